//! The run's side of checkpoints ([`tumble::checkpoint`]): `tumble run --checkpoint-every S`
//! writes `DIR/checkpoint.bin` as the run goes ([`Checkpoints`]), and `tumble run --resume DIR`
//! continues the run it belongs to ([`start`]): the checkpoint's scene, options and world, its
//! tables cut back to where they stood and appended to.
//!
//! With `--resume`, the run's options are the checkpoint's: `--every`, `--record`, `--events`,
//! `--format`, `--backend` and `--out` cannot be given (they would change the frames), while
//! `--duration` may move the end (not before the checkpoint), `--threads` and
//! `--checkpoint-every` replace the checkpoint's, and a SCENE given must be the checkpoint's
//! (its hash, meshes included). Any fault of the checkpoint or of the tables it names is an
//! invalid input (exit code 2) whose message names the file.

use super::run_args::RunArgs;
use crate::{BackendChoice, Failure, FormatChoice};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tumble::checkpoint::{
    self, Checkpoint, CheckpointError, RunInfo, RunOptions, SceneRecord, Written,
};
use tumble::gpu::Backend;
use tumble::output::{
    EventsMark, EventsWriter, FrameSelection, FramesMark, FramesWriter, TableFormat,
};
use tumble::run_dir::{self, StoredScene};
use tumble::scene::{self, Scene};
use tumble::simulation::{Simulation, SinkError};
use tumble::world::World;

/// A run continued from a checkpoint: the checkpoint (its world is built once the thread
/// pool is sized), the scene file given beside it, and where its tables stood.
pub struct Resumed {
    checkpoint: Option<Checkpoint>,
    given: Option<PathBuf>,
    record: SceneRecord,
    hash: [u8; 32],
    frames: FramesMark,
    events: Option<EventsMark>,
    stored_scene: Option<StoredScene>,
    /// Wall time of the run before the checkpoint (s).
    wall_time: f64,
}

fn invalid(e: impl ToString) -> Failure {
    Failure::invalid(e.to_string())
}

/// Checks `--checkpoint-every` and, with `--resume DIR`, reads and checks DIR's checkpoint and
/// returns the arguments the run goes on with (the checkpoint's options, see the module doc);
/// `None` for a run from its scene. Nothing is built yet: the worker threads are sized first.
pub fn start(args: &RunArgs) -> Result<Option<(RunArgs, Resumed)>, Failure> {
    if let Some(s) = args.checkpoint_every {
        if !(s.is_finite() && s > 0.0) {
            return Err(invalid(format!(
                "--checkpoint-every must be a finite number of seconds > 0 (got {s})"
            )));
        }
        if args.format == FormatChoice::Parquet {
            return Err(invalid(
                "--checkpoint-every needs --format csv: a Parquet table is written whole at \
                 the end and cannot be cut back to a checkpoint and appended to",
            ));
        }
    }
    let Some(dir) = &args.resume else {
        return Ok(None);
    };
    let path = checkpoint::path_in(dir);
    let ck = checkpoint::read(&path).map_err(invalid)?;
    let info = ck.info.clone();
    let o = &info.options;
    let duration = args.duration.unwrap_or(o.duration);
    if duration < info.time {
        return Err(invalid(format!(
            "--duration {duration} ends before the checkpoint {} (t = {} s)",
            path.display(),
            info.time
        )));
    }
    let backend = match o.backend.as_str() {
        "cpu" => BackendChoice::Cpu,
        "gpu" => BackendChoice::Gpu,
        other => {
            return Err(invalid(format!(
                "{}: corrupt: unknown backend \"{other}\"",
                path.display()
            )))
        }
    };
    if o.format != "csv" {
        return Err(invalid(format!(
            "{}: corrupt: unknown table format \"{}\"",
            path.display(),
            o.format
        )));
    }
    let mut resumed_args = args.clone();
    resumed_args.scene = Some(PathBuf::from(&info.scene.name));
    resumed_args.out = Some(dir.clone());
    resumed_args.duration = Some(duration);
    resumed_args.threads = args.threads.or(o.threads);
    resumed_args.backend = backend;
    resumed_args.events = o.events;
    resumed_args.format = FormatChoice::Csv;
    resumed_args.every = o.every;
    resumed_args.record = o.record.clone();
    resumed_args.checkpoint_every = args.checkpoint_every.or(Some(o.checkpoint_every));
    let hash = ck.scene_hash;
    Ok(Some((
        resumed_args,
        Resumed {
            checkpoint: Some(ck),
            given: args.scene.clone(),
            record: info.scene,
            hash,
            frames: info.frames,
            events: info.events,
            stored_scene: info.stored_scene,
            wall_time: info.wall_time,
        },
    )))
}

/// The run's scene and, if it writes checkpoints, its record and hash. On a resume, the
/// checkpoint's (a SCENE given must hash the same); else read from SCENE, its text kept and its
/// path made absolute for the mesh files.
#[allow(clippy::type_complexity)]
pub fn scene(
    args: &RunArgs,
    resumed: &Option<Resumed>,
) -> Result<(Scene, Option<(SceneRecord, [u8; 32])>), Failure> {
    if let Some(r) = resumed {
        let ck = r
            .checkpoint
            .as_ref()
            .ok_or_else(|| invalid("checkpoint already used"))?;
        if let Some(given) = &r.given {
            let (_, _, hash) = read_scene(given)?;
            if hash != r.hash {
                return Err(invalid(format!(
                    "{}: not the scene of the checkpoint {} (its hash is {}, the checkpoint's \
                     {}; the checkpoint was written for {})",
                    given.display(),
                    ck.path.display(),
                    checkpoint::hex(&hash),
                    checkpoint::hex(&r.hash),
                    r.record.name
                )));
            }
        }
        let scene = ck.scene().map_err(invalid)?;
        return Ok((scene, Some((r.record.clone(), r.hash))));
    }
    let path = args.scene_path();
    if args.checkpoint_every.is_none() {
        return Ok((scene::load(path)?, None));
    }
    let (text, scene, hash) = read_scene(path)?;
    let flow = scene
        .sources
        .first()
        .map(|s| (&s.origin, "sources", &s.name));
    if let Some((origin, what, name)) =
        flow.or(scene.sinks.first().map(|s| (&s.origin, "sinks", &s.name)))
    {
        return Err(invalid(format!(
            "{origin}: --checkpoint-every: a run with [[{what}]] (\"{name}\") cannot be \
             checkpointed yet (the bodies poured in and taken out are not saved); run it without \
             checkpoints"
        )));
    }
    let absolute = std::path::absolute(path)
        .map_err(|e| invalid(format!("{}: cannot resolve its path: {e}", path.display())))?;
    let record = SceneRecord {
        name: path.display().to_string(),
        path: absolute,
        text,
    };
    Ok((scene, Some((record, hash))))
}

/// The scene file at `path`: its text, its scene and its hash ([`checkpoint::scene_hash`]).
fn read_scene(path: &Path) -> Result<(String, Scene, [u8; 32]), Failure> {
    let text = scene::read_text(path)?;
    let scene = scene::parse(&text, path)?;
    let hash = checkpoint::scene_hash(&text, &scene).map_err(invalid)?;
    Ok((text, scene, hash))
}

/// The run directory's copies of the scene and its files (`tumble::run_dir`): made afresh, or
/// on a resume those the run made (its copies are in DIR already), so that summary.json says
/// what the run's would have.
pub fn stored_scene(
    out_dir: &Path,
    args: &RunArgs,
    scene: &Scene,
    resumed: &Option<Resumed>,
) -> Result<StoredScene, Failure> {
    let source = match resumed {
        Some(Resumed {
            stored_scene: Some(stored),
            ..
        }) => return Ok(stored.clone()),
        Some(r) => r.record.path.as_path(),
        None => args.scene_path(),
    };
    run_dir::store(out_dir, source, scene).map_err(|e| Failure::failed(e.to_string()))
}

/// The run's simulation: the checkpoint's world, or one built from the scene.
pub fn simulation(scene: &Scene, resumed: &mut Option<Resumed>) -> Result<Simulation, Failure> {
    let Some(ck) = resumed.as_mut().and_then(|r| r.checkpoint.take()) else {
        return Ok(Simulation::new(scene)?);
    };
    let (path, time) = (ck.path.clone(), ck.info.time);
    let world = ck.into_world(scene).map_err(invalid)?;
    eprintln!(
        "Resuming {} from t = {time} s ({}).",
        scene.source.display(),
        path.display()
    );
    Ok(Simulation::from_world(world, scene)?)
}

/// The run's events.csv: created, or reopened where the checkpoint left it.
pub fn events_writer(
    path: &Path,
    format: TableFormat,
    resumed: &Option<Resumed>,
) -> Result<EventsWriter, Failure> {
    match resumed {
        Some(r) => {
            let mark = r.events.as_ref().ok_or_else(|| {
                invalid(format!(
                    "{}: the checkpoint has no events table",
                    path.display()
                ))
            })?;
            EventsWriter::reopen(path, format, mark).map_err(invalid)
        }
        None => Ok(EventsWriter::create_as(path, format)?),
    }
}

/// The run's frames.csv: created with the first frame, or reopened where the checkpoint left
/// it.
pub fn frames_writer(
    path: &Path,
    selection: FrameSelection,
    format: TableFormat,
    resumed: &Option<Resumed>,
    world: &World,
) -> Result<FramesWriter, Failure> {
    match resumed {
        Some(r) => FramesWriter::reopen(path, selection, format, &r.frames).map_err(invalid),
        None => {
            let mut frames = FramesWriter::create_as(path, selection, format)?;
            frames.write_frame(world)?;
            Ok(frames)
        }
    }
}

/// When the run started, in wall time: earlier for a resumed run by the wall time it had
/// taken before its checkpoint, so that its summary counts the whole run.
pub fn started(resumed: &Option<Resumed>) -> Instant {
    let now = Instant::now();
    let before = resumed.as_ref().map_or(0.0, |r| r.wall_time);
    Duration::try_from_secs_f64(before)
        .ok()
        .and_then(|d| now.checked_sub(d))
        .unwrap_or(now)
}

/// The checkpoints a run writes: at the end of the first frame at or after each multiple of
/// the period (simulated time), and at the run's end.
pub struct Checkpoints {
    path: PathBuf,
    every: f64,
    /// The next multiple of `every` due.
    next: f64,
    hash: [u8; 32],
    /// The run's record; its marks and times are set at each write.
    info: RunInfo,
    /// How many were written, the last one, and their total wall time (s).
    written: u64,
    last: Option<Written>,
    seconds: f64,
}

/// Seconds of simulated time a checkpoint may come early by (rounding of the frame grid).
const SLACK: f64 = 1e-9;

/// The first multiple of `every` after `t` (beyond rounding).
fn next_multiple(t: f64, every: f64) -> f64 {
    ((t / every + SLACK).floor() + 1.0) * every
}

impl Checkpoints {
    /// The checkpoints of a run with `args` (`None` without `--checkpoint-every`) writing to
    /// `out_dir`, of `scene` read from `source` ([`fn@scene`]) and stored as `stored`, running
    /// on `backend` from time `time`.
    pub fn new(
        args: &RunArgs,
        out_dir: &Path,
        source: Option<(SceneRecord, [u8; 32])>,
        backend: &Backend,
        scene: &Scene,
        stored: &StoredScene,
        time: f64,
    ) -> Option<Checkpoints> {
        let every = args.checkpoint_every?;
        let (record, hash) = source?;
        let options = RunOptions {
            duration: scene.world.duration,
            every: args.every,
            record: args.record.clone(),
            format: "csv".into(),
            events: args.events,
            backend: backend.name().to_string(),
            checkpoint_every: every,
            threads: args.threads,
        };
        let info = RunInfo {
            scene: record,
            options,
            frames: FramesMark {
                bytes: 0,
                offered: 0,
                last_written: None,
            },
            events: None,
            stored_scene: Some(stored.clone()),
            time,
            wall_time: 0.0,
        };
        Some(Checkpoints {
            path: checkpoint::path_in(out_dir),
            every,
            next: next_multiple(time, every),
            hash,
            info,
            written: 0,
            last: None,
            seconds: 0.0,
        })
    }

    /// After a frame: a checkpoint if the world reached the next multiple of the period.
    pub fn after_frame(
        &mut self,
        world: &World,
        frames: &mut FramesWriter,
        events: Option<&mut EventsWriter>,
        wall_time: f64,
    ) -> Result<(), SinkError> {
        if world.time() >= self.next - SLACK * self.every {
            self.write(world, frames, events, wall_time)?;
        }
        Ok(())
    }

    /// Writes a checkpoint now: the tables synced to disk first, their lengths recorded, then
    /// the state.
    pub fn write(
        &mut self,
        world: &World,
        frames: &mut FramesWriter,
        events: Option<&mut EventsWriter>,
        wall_time: f64,
    ) -> Result<(), SinkError> {
        self.info.frames = frames.mark()?;
        self.info.events = match events {
            Some(w) => Some(w.mark()?),
            None => None,
        };
        self.info.time = world.time();
        self.info.wall_time = wall_time;
        let written: Result<Written, CheckpointError> =
            checkpoint::write(&self.path, &self.hash, &self.info, world);
        let written = written?;
        self.written += 1;
        self.seconds += written.seconds;
        self.last = Some(written);
        self.next = next_multiple(world.time(), self.every);
        Ok(())
    }

    /// One line for the end-of-run report.
    pub fn report(&self) -> String {
        match self.last {
            Some(last) => format!(
                "Wrote {} to {} (the last {} bytes; {:.1} ms each on average).",
                tumble::plural::count(self.written, "checkpoint", "checkpoints"),
                self.path.display(),
                last.bytes,
                1e3 * self.seconds / self.written as f64
            ),
            None => format!("Wrote no checkpoint to {}.", self.path.display()),
        }
    }
}
