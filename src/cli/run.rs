//! `tumble run`: simulate a scene, streaming frames, then the summary.

use crate::cli::interrupt;
use crate::cli::resume::{self, Checkpoints};
use crate::cli::run_args::RunArgs;
use crate::{default_out_dir, select_backend, set_threads, Failure};
use indicatif::{ProgressBar, ProgressDrawTarget};
use std::io::IsTerminal;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Instant;
use tumble::output::{self, FramesWriter, Summary};
use tumble::plural::count;
use tumble::scene::Scene;
use tumble::simulation::{FrameSink, RunError, SinkError};
use tumble::world::World;

impl RunArgs {
    /// The scene file given (set from the checkpoint on a resume).
    pub(super) fn scene_path(&self) -> &Path {
        self.scene.as_deref().unwrap_or(Path::new(""))
    }
}

/// `tumble run`: simulate, writing frames as they are produced and the summary at the start,
/// every few seconds and at the end (also after a simulation error or an interruption, with
/// its status and error).
pub fn run(args: &RunArgs) -> Result<(), Failure> {
    // With --resume, the checkpoint's scene, world and options (`cli/resume.rs`).
    let (resumed_args, mut resumed) = resume::start(args)?.unzip();
    let args = resumed_args.as_ref().unwrap_or(args);
    set_threads(args.threads)?;
    let (mut scene, source) = resume::scene(args, &resumed)?;
    if resumed.is_none() {
        crate::warn(scene.warnings());
    }
    if let Some(d) = args.duration {
        if !(d.is_finite() && d >= 0.0) {
            return Err(Failure::invalid(format!(
                "--duration must be a finite number >= 0 (got {d})"
            )));
        }
        scene.world.duration = d;
    }
    let mut sim = resume::simulation(&scene, &mut resumed)?;
    // After the scene checks, so that an invalid scene fails without opening a device.
    let backend = select_backend(args.backend, &scene, false)?;
    backend.install(sim.world_mut());
    let selection = output::FrameSelection::new(args.every, &args.record, sim.world())
        .map_err(Failure::invalid)?;

    let out_dir = args
        .out
        .clone()
        .unwrap_or_else(|| default_out_dir(args.scene_path()));
    output::create_dir(&out_dir)?;
    let stored_scene = resume::stored_scene(&out_dir, args, &scene, &resumed)?;
    let format = args.format.format();
    let ext = format.extension();
    let frames_path = out_dir.join(format!("frames.{ext}"));
    let summary_path = out_dir.join("summary.json");
    let events_path = out_dir.join(format!("events.{ext}"));
    // Tables left by an earlier run in this directory (the other format's, or a log when this
    // run keeps none) would not match these frames.
    let other = match format {
        output::TableFormat::Csv => "parquet",
        output::TableFormat::Parquet => "csv",
    };
    let mut stale = vec![
        out_dir.join(format!("frames.{other}")),
        out_dir.join(format!("events.{other}")),
    ];
    if !args.events {
        stale.push(events_path.clone());
    }
    stale.extend(tumble::flow::FlowTables::not_written(
        &out_dir, &scene, format,
    ));
    for path in stale {
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(Failure::failed(format!(
                    "cannot remove {}: {e}",
                    path.display()
                )));
            }
            _ => {}
        }
    }
    let events = if args.events {
        sim.world_mut().record_events(true);
        Some(resume::events_writer(&events_path, format, &resumed)?)
    } else {
        None
    };

    let time = sim.world().time();
    let checkpoints = Checkpoints::new(
        args,
        &out_dir,
        source,
        &backend,
        &scene,
        &stored_scene,
        time,
    );
    let meta = SummaryMeta {
        scene: args.scene_path().display().to_string(),
        backend: backend.name().to_string(),
        adapter: backend.adapter(),
        path: summary_path.clone(),
        stored_scene,
    };
    // Replaces the summary of any earlier run here at once: it would not match these frames.
    meta.write(sim.world(), 0.0, Status::Running)?;
    interrupt::install();

    let start = resume::started(&resumed);
    let frames = resume::frames_writer(&frames_path, selection, format, &resumed, sim.world())?;
    let flow = tumble::flow::FlowTables::create(&out_dir, &scene, format)?;
    let mut output = RunOutput {
        frames,
        events,
        flow,
        progress: progress_bar(&scene),
        meta,
        start,
        last_summary: Instant::now(),
        interrupted: false,
        checkpoints,
    };
    let sim_error = match sim.run(None, &mut [&mut output]) {
        Ok(_) => None,
        // An output file that cannot be written ends the run without a summary.
        Err(RunError::Sink(e)) => return Err(Failure::failed(e.to_string())),
        Err(e) => Some(e.to_string()),
    };
    let RunOutput {
        mut frames,
        mut events,
        progress,
        meta,
        interrupted,
        mut checkpoints,
        flow,
        ..
    } = output;
    if let Some(flow) = flow {
        flow.finish()?;
    }
    if let (Some(c), None) = (checkpoints.as_mut(), &sim_error) {
        // At the end (or the interruption), before a thinned run's last frame: a resume that
        // goes further appends from here.
        let wall = start.elapsed().as_secs_f64();
        c.write(sim.world(), &mut frames, events.as_mut(), wall)
            .map_err(|e| Failure::failed(e.to_string()))?;
    }
    frames.write_last(sim.world())?;
    frames.finish()?;
    let event_rows = match events {
        Some(mut w) => {
            // What a failed frame recorded before it failed.
            w.write_events(sim.world_mut())?;
            let rows = w.rows();
            w.finish()?;
            Some(rows)
        }
        None => None,
    };
    progress.finish_and_clear();
    let wall_time = start.elapsed().as_secs_f64();
    let status = match (&sim_error, interrupted) {
        (Some(m), _) => Status::Failed(m.clone()),
        (None, true) => Status::Interrupted,
        (None, false) => Status::Finished,
    };
    let summary = meta.write(sim.world(), wall_time, status)?;

    println!(
        "{}",
        result_paragraph(&scene, &summary, &frames_path, &summary_path)
    );
    if let Some(rows) = event_rows {
        println!("Wrote {rows} impulse events to {}.", events_path.display());
    }
    if let Some(c) = &checkpoints {
        println!("{}", c.report());
    }
    if args.verbose {
        println!("{}", counters(&summary));
    }
    match (sim_error, interrupted) {
        (Some(message), _) => Err(Failure::failed(message)),
        (None, true) => Err(Failure {
            code: 130,
            message: format!(
                "interrupted at t = {} s; the frames so far and summary.json are written",
                summary.sim_time
            ),
        }),
        (None, false) => Ok(()),
    }
}

/// How often a running `tumble run` rewrites summary.json (wall seconds), so that a run killed
/// without warning (`kill -9`, a node lost) leaves a summary at most this old.
const SUMMARY_PERIOD: f64 = 2.0;

/// Where a run stands, for summary.json's `status` and `error`.
enum Status {
    Running,
    Finished,
    Interrupted,
    Failed(String),
}

/// What summary.json says besides the world's state.
struct SummaryMeta {
    scene: String,
    backend: String,
    adapter: Option<String>,
    path: PathBuf,
    stored_scene: tumble::run_dir::StoredScene,
}

impl SummaryMeta {
    /// Writes summary.json (atomically) for `world` as it is now.
    fn write(&self, world: &World, wall_time: f64, status: Status) -> Result<Summary, Failure> {
        let (status, error) = match status {
            Status::Running => (
                "running",
                Some(
                    "incomplete: written while the run was going (a run that ends replaces it)"
                        .to_string(),
                ),
            ),
            Status::Finished => ("finished", None),
            Status::Interrupted => ("interrupted", Some("interrupted".to_string())),
            Status::Failed(m) => ("failed", Some(m)),
        };
        let summary = Summary {
            scene: self.scene.clone(),
            status: status.to_string(),
            backend: self.backend.clone(),
            adapter: self.adapter.clone(),
            sim_time: world.time(),
            wall_time,
            counts: world.counts().clone(),
            max_penetration: world.max_penetration(),
            error,
            bodies: Summary::bodies_of(world),
            stored_scene: Some(self.stored_scene.clone()),
        };
        summary.write(&self.path)?;
        Ok(summary)
    }
}

/// Everything a run does at each frame's end: its rows, its impulses, a tick of the bar (in
/// that order), summary.json every [`SUMMARY_PERIOD`], and a stop once SIGINT or SIGTERM came.
struct RunOutput {
    frames: FramesWriter,
    events: Option<output::EventsWriter>,
    /// `inserted.csv`, `removed.csv` and `probes.csv`, for a scene with sources, sinks or
    /// probes.
    flow: Option<tumble::flow::FlowTables>,
    progress: ProgressBar,
    meta: SummaryMeta,
    start: Instant,
    last_summary: Instant,
    interrupted: bool,
    /// `--checkpoint-every`: after the frame's rows and impulses, so that its marks include them.
    checkpoints: Option<Checkpoints>,
}

impl FrameSink for RunOutput {
    fn frame(&mut self, world: &mut World) -> Result<ControlFlow<()>, SinkError> {
        self.frames.write_frame(world)?;
        if let Some(events) = self.events.as_mut() {
            events.write_events(world)?;
        }
        if let Some(flow) = self.flow.as_mut() {
            flow.write(world)?;
        }
        self.progress.inc(1);
        if self.last_summary.elapsed().as_secs_f64() >= SUMMARY_PERIOD {
            // The tables first, so that the frames on disk reach at least the summary's time.
            self.frames.flush()?;
            if let Some(events) = self.events.as_mut() {
                events.flush()?;
            }
            let wall = self.start.elapsed().as_secs_f64();
            self.meta
                .write(world, wall, Status::Running)
                .map_err(|f| f.message)?;
            self.last_summary = Instant::now();
        }
        if let Some(c) = self.checkpoints.as_mut() {
            let wall = self.start.elapsed().as_secs_f64();
            c.after_frame(world, &mut self.frames, self.events.as_mut(), wall)?;
        }
        if interrupt::requested() {
            self.interrupted = true;
            return Ok(ControlFlow::Break(()));
        }
        Ok(ControlFlow::Continue(()))
    }
}

/// The world's counters, one per line, for `--verbose`.
fn counters(summary: &Summary) -> String {
    // Through serde so that counters the world adds later are listed without touching this.
    match serde_json::to_value(&summary.counts) {
        Ok(serde_json::Value::Object(map)) => {
            let width = map.keys().map(String::len).max().unwrap_or(0);
            let lines: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("  {k:width$}  {v}"))
                .collect();
            format!("Counters (also in summary.json):\n{}", lines.join("\n"))
        }
        _ => String::from("Counters: unavailable"),
    }
}

/// A frame-count progress bar on stderr when it is a terminal; hidden otherwise, so that logs and
/// pipes get only the result paragraph.
pub fn progress_bar(scene: &Scene) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let w = &scene.world;
    let frames = (w.duration / w.config.frame_period).ceil().max(0.0) as u64;
    let bar = ProgressBar::with_draw_target(Some(frames), ProgressDrawTarget::stderr());
    bar.set_style(super::progress::style("frames"));
    bar
}

/// The short report printed at the end of a run: what ran, how fast, what it found, where the
/// files are (the counters behind `--verbose` and in summary.json).
fn result_paragraph(
    scene: &Scene,
    summary: &Summary,
    frames_path: &Path,
    summary_path: &Path,
) -> String {
    let (dynamic, fixed, kinematic) = scene.motion_counts();
    let speed = if summary.wall_time > 0.0 {
        format!(", {:.3}x real time", summary.sim_time / summary.wall_time)
    } else {
        String::new()
    };
    let status = match summary.status.as_str() {
        "finished" => "Simulated",
        "interrupted" => "Interrupted after simulating",
        _ => "Stopped by an error after simulating",
    };
    let c = &summary.counts;
    let poured = match scene.sources.is_empty() {
        true => String::new(),
        false => format!(
            ", and {} poured in by its sources ({} unplaced)",
            count(c.inserted, "body", "bodies"),
            c.unplaced
        ),
    };
    let poured = match scene.sinks.is_empty() {
        true => poured,
        false => format!(
            "{poured}, {} taken out by its sinks",
            count(c.removed, "body", "bodies")
        ),
    };
    let run_dir = frames_path.parent().unwrap_or(Path::new("."));
    format!(
        "{status} {} s of {} on the {} backend in {:.3} s of wall time{speed}.\n\
         {} ({dynamic} dynamic, {fixed} fixed, {kinematic} kinematic){poured}; {}, {}; largest \
         penetration {:.3e} m.\n\
         Wrote {} and {}.\n\
         To look at it: tumble view {dir} (a page for the browser), tumble render {dir} (pictures).",
        summary.sim_time,
        summary.scene,
        summary.backend,
        summary.wall_time,
        count(scene.bodies.len(), "body", "bodies"),
        count(c.collisions + c.step_collisions, "collision", "collisions"),
        count(c.resting_contacts, "resting contact", "resting contacts"),
        summary.max_penetration,
        frames_path.display(),
        summary_path.display(),
        dir = run_dir.display(),
    )
}
