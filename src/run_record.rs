//! A finished run read back from its directory (`summary.json`, `frames.csv`, and the scene
//! the summary names): what `tumble render`, `export` and `view` draw.

use crate::body::Motion;
use crate::scene::{self, Scene};
use crate::shape::Shape;
use glam::{DQuat, DVec3};
use std::path::{Path, PathBuf};

/// Why a run directory cannot be read. Every message names the file (and line) at fault.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct RunRecordError(pub String);

/// One body of the run, in scene order.
#[derive(Clone, Debug)]
pub struct RecordedBody {
    /// Its scene name.
    pub name: String,
    /// Dynamic, fixed or kinematic.
    pub motion: Motion,
    /// Its shape, in its own (user) frame.
    pub shape: Shape,
    /// Its material's name.
    pub material: String,
    /// When it entered the world (s; −∞ for a body of the scene) and when a sink took it out
    /// (+∞ if none did): it is drawn at the times in between.
    pub present: (f64, f64),
}

impl RecordedBody {
    /// The scene's bodies as a run records them, in scene order.
    pub fn all_of(scene: &Scene) -> Vec<RecordedBody> {
        scene
            .bodies
            .iter()
            .map(|b| RecordedBody {
                name: b.name.clone(),
                motion: b.motion,
                shape: b.shape.clone(),
                material: b.material.clone(),
                present: (f64::NEG_INFINITY, f64::INFINITY),
            })
            .collect()
    }

    /// Whether it is in the world at time `t`.
    pub fn present_at(&self, t: f64) -> bool {
        self.present.0 <= t && t < self.present.1
    }
}

/// One frame: the time and every body's pose (shape frame, world), scene order.
#[derive(Clone, Debug)]
pub struct RecordedFrame {
    /// Simulated time (s).
    pub t: f64,
    /// `(position, orientation)` of each body's shape frame.
    pub poses: Vec<(DVec3, DQuat)>,
}

/// A run read back from its directory.
#[derive(Clone, Debug)]
pub struct RunRecord {
    /// The run directory.
    pub dir: PathBuf,
    /// The scene the run simulated.
    pub scene: Scene,
    /// Its bodies, scene order.
    pub bodies: Vec<RecordedBody>,
    /// The frames, in time order. Bodies `frames.csv` does not list (fixed ones) keep their
    /// scene pose.
    pub frames: Vec<RecordedFrame>,
}

impl RunRecord {
    /// Reads `dir/summary.json`, the scene and `dir/frames.csv`.
    ///
    /// The scene is the run directory's own copy where the summary names one
    /// (`stored_scene`, [`crate::run_dir`]); else (a run directory of an older tumble) the
    /// summary's scene path as written, or relative to the run directory's parent.
    pub fn load(dir: &Path) -> Result<RunRecord, RunRecordError> {
        let err = |m: String| RunRecordError(m);
        let summary_path = dir.join("summary.json");
        let text = std::fs::read_to_string(&summary_path)
            .map_err(|e| err(format!("{}: {e}", summary_path.display())))?;
        let summary: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| err(format!("{}: {e}", summary_path.display())))?;
        if let Some(stored) = summary.get("stored_scene") {
            let stored: crate::run_dir::StoredScene = serde_json::from_value(stored.clone())
                .map_err(|e| err(format!("{}: stored_scene: {e}", summary_path.display())))?;
            let scene = crate::run_dir::load(dir, &stored).map_err(|e| err(e.0))?;
            return RunRecord::read(dir, scene);
        }
        let named = summary
            .get("scene")
            .and_then(|s| s.as_str())
            .ok_or_else(|| {
                err(format!(
                    "{}: no \"scene\" string naming the scene file",
                    summary_path.display()
                ))
            })?;
        let scene_path = [
            PathBuf::from(named),
            dir.parent().unwrap_or(Path::new(".")).join(named),
        ]
        .into_iter()
        .find(|p| p.is_file())
        .ok_or_else(|| {
            err(format!(
                "{}: the scene \"{named}\" it names is not found",
                summary_path.display()
            ))
        })?;
        let scene = scene::load(&scene_path).map_err(|e| err(e.message))?;
        RunRecord::read(dir, scene)
    }

    /// The run of `scene` from `dir/frames.csv`, with the bodies its sources poured in
    /// (`inserted.csv`) and its sinks took out (`removed.csv`).
    fn read(dir: &Path, scene: Scene) -> Result<RunRecord, RunRecordError> {
        let mut bodies = RecordedBody::all_of(&scene);
        read_flow(dir, &scene, &mut bodies)?;
        let frames = read_frames(dir, &scene, &bodies)?;
        Ok(RunRecord {
            dir: dir.to_path_buf(),
            scene,
            bodies,
            frames,
        })
    }

    /// Index of the body named `name`.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b.name == name)
    }
}

/// Table `name` of the run in `dir` as CSV text, with the file it came from: `name.csv`, or the
/// `name.parquet` of a run with `--format parquet`.
fn table_text(dir: &Path, name: &str) -> Result<(PathBuf, String), RunRecordError> {
    let csv = dir.join(format!("{name}.csv"));
    let parquet = dir.join(format!("{name}.parquet"));
    if !csv.exists() && parquet.exists() {
        let text = crate::parquet_tables::read_as_csv(&parquet)
            .map_err(|e| RunRecordError(e.to_string()))?;
        Ok((parquet, text))
    } else {
        let text = std::fs::read_to_string(&csv)
            .map_err(|e| RunRecordError(format!("{}: {e}", csv.display())))?;
        Ok((csv, text))
    }
}

/// The rows of a flow's table `name` in `dir` ([`table_text`]; each row split at its commas,
/// with its file and line number), if the run wrote one; its header must be `header`.
fn flow_rows(
    dir: &Path,
    name: &str,
    header: &str,
) -> Result<Vec<(String, Vec<String>)>, RunRecordError> {
    let written = ["csv", "parquet"].map(|ext| dir.join(format!("{name}.{ext}")));
    if !written.iter().any(|p| p.exists()) {
        return Ok(Vec::new());
    }
    let (path, text) = table_text(dir, name)?;
    let mut lines = text.lines().enumerate();
    if lines.next().map(|(_, h)| h) != Some(header) {
        return Err(RunRecordError(format!(
            "{}:1: the header is not {header}",
            path.display()
        )));
    }
    let width = header.split(',').count();
    lines
        .filter(|(_, l)| !l.is_empty())
        .map(|(n, l)| {
            let cells: Vec<String> = l.split(',').map(str::to_string).collect();
            match cells.len() == width {
                true => Ok((format!("{}:{}", path.display(), n + 1), cells)),
                false => Err(RunRecordError(format!(
                    "{}:{}: {} columns, {width} expected",
                    path.display(),
                    n + 1,
                    cells.len()
                ))),
            }
        })
        .collect()
}

/// Adds the bodies the run's sources poured in (`inserted.csv`: each one's shape from its
/// source's kind) and sets when each body the sinks took out went (`removed.csv`).
fn read_flow(
    dir: &Path,
    scene: &Scene,
    bodies: &mut Vec<RecordedBody>,
) -> Result<(), RunRecordError> {
    let bad = |at: &str, m: String| RunRecordError(format!("{at}: {m}"));
    for (at, c) in flow_rows(dir, "inserted", "t,source,body,kind")? {
        let t: f64 = c[0]
            .parse()
            .map_err(|_| bad(&at, format!("t: \"{}\" is not a number", c[0])))?;
        let source = scene
            .sources
            .iter()
            .find(|s| s.name == c[1])
            .ok_or_else(|| bad(&at, format!("source \"{}\" is not in the scene", c[1])))?;
        let kind = c[3]
            .parse::<usize>()
            .ok()
            .and_then(|k| source.bodies.get(k))
            .ok_or_else(|| {
                bad(
                    &at,
                    format!("kind \"{}\" is not one of source \"{}\"'s", c[3], c[1]),
                )
            })?;
        bodies.push(RecordedBody {
            name: c[2].clone(),
            motion: Motion::Dynamic,
            shape: kind.spec.shape.clone(),
            material: kind.spec.material.clone(),
            present: (t, f64::INFINITY),
        });
    }
    let index: std::collections::HashMap<String, usize> = bodies
        .iter()
        .enumerate()
        .map(|(i, b)| (b.name.clone(), i))
        .collect();
    for (at, c) in flow_rows(dir, "removed", "t,sink,body")? {
        let t: f64 = c[0]
            .parse()
            .map_err(|_| bad(&at, format!("t: \"{}\" is not a number", c[0])))?;
        let &i = index
            .get(&c[2])
            .ok_or_else(|| bad(&at, format!("body \"{}\" is not in the run", c[2])))?;
        bodies[i].present.1 = t;
    }
    Ok(())
}

/// Reads `frames.csv` (`t,body,x,y,z,qw,qx,qy,qz,…`, one row per listed body per frame, a
/// frame's rows together) into frames with every body's pose (a body poured in later starts at
/// the pose of its first row).
fn read_frames(
    dir: &Path,
    scene: &Scene,
    bodies: &[RecordedBody],
) -> Result<Vec<RecordedFrame>, RunRecordError> {
    let (path, text) = table_text(dir, "frames")?;
    let path = path.as_path();
    let index: std::collections::HashMap<&str, usize> = bodies
        .iter()
        .enumerate()
        .map(|(i, b)| (b.name.as_str(), i))
        .collect();
    let mut start: Vec<(DVec3, DQuat)> = vec![(DVec3::ZERO, DQuat::IDENTITY); bodies.len()];
    for (i, b) in scene.bodies.iter().enumerate() {
        start[i] = (b.position, b.orientation);
    }
    // The frame of each body's first row.
    let mut first_seen: Vec<Option<usize>> = vec![None; bodies.len()];
    let mut lines = text.lines().enumerate();
    let header = lines.next().map(|(_, h)| h).unwrap_or("");
    let columns: Vec<&str> = header.split(',').collect();
    let want = ["t", "body", "x", "y", "z", "qw", "qx", "qy", "qz"];
    if columns.len() < want.len() || columns[..want.len()] != want {
        return Err(RunRecordError(format!(
            "{}:1: the header does not start with {}",
            path.display(),
            want.join(",")
        )));
    }
    let mut frames: Vec<RecordedFrame> = Vec::new();
    for (n, line) in lines {
        if line.is_empty() {
            continue;
        }
        let at = |m: String| RunRecordError(format!("{}:{}: {m}", path.display(), n + 1));
        let cells: Vec<&str> = line.split(',').collect();
        if cells.len() < want.len() {
            return Err(at(format!(
                "{} columns, at least {} expected",
                cells.len(),
                want.len()
            )));
        }
        let mut num = [0.0; 9];
        for (k, cell) in cells.iter().enumerate().take(9) {
            if k == 1 {
                continue;
            }
            num[k] = cell
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| at(format!("{}: \"{cell}\" is not a finite number", want[k])))?;
        }
        let &body = index.get(cells[1]).ok_or_else(|| {
            let poured = (scene.sources.iter()).find(|s| scene::generated_by(cells[1], &s.name));
            at(match poured {
                // A run directory whose inserted table is missing: which kind it was is unknown.
                Some(s) => format!(
                    "body \"{}\" was poured in by source \"{}\" ({}), but the run directory \
                     has no inserted.csv (or inserted.parquet) saying which of its bodies it is",
                    cells[1], s.name, s.origin
                ),
                None => format!("body \"{}\" is not in the scene", cells[1]),
            })
        })?;
        let t = num[0];
        if frames.last().is_none_or(|f| f.t != t) {
            if frames.last().is_some_and(|f| f.t > t) {
                return Err(at(format!("time {t} runs backwards")));
            }
            // A frame starts from the previous one: bodies it does not list keep their pose.
            let poses = frames
                .last()
                .map_or_else(|| start.clone(), |f| f.poses.clone());
            frames.push(RecordedFrame { t, poses });
        }
        let q = DQuat::from_xyzw(num[6], num[7], num[8], num[5]);
        frames.last_mut().unwrap().poses[body] =
            (DVec3::new(num[2], num[3], num[4]), q.normalize());
        first_seen[body].get_or_insert(frames.len() - 1);
    }
    if frames.is_empty() {
        return Err(RunRecordError(format!("{}: no frames", path.display())));
    }
    // A body poured in stands where it entered in the frames before it did.
    for (i, first) in first_seen.iter().enumerate().skip(scene.bodies.len()) {
        if let Some(k) = *first {
            let pose = frames[k].poses[i];
            for f in &mut frames[..k] {
                f.poses[i] = pose;
            }
        }
    }
    Ok(frames)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_run(dir: &Path, frames: &str) {
        std::fs::create_dir_all(dir).unwrap();
        let scene = dir.join("scene.toml");
        std::fs::write(
            &scene,
            "[world]\nduration = 0.02\n\n[[bodies]]\nname = \"floor\"\nmotion = \"fixed\"\n\
             shape = { type = \"box\", half_extents = [1.0, 1.0, 0.1] }\nposition = [0.0, 0.0, -0.1]\n\n\
             [[bodies]]\nname = \"ball\"\nshape = { type = \"sphere\", radius = 0.1 }\ndensity = 1000.0\n\
             position = [0.0, 0.0, 1.0]\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("summary.json"),
            format!("{{\"scene\": {:?}}}", scene.display().to_string()),
        )
        .unwrap();
        std::fs::write(dir.join("frames.csv"), frames).unwrap();
    }

    #[test]
    fn frames_fill_unlisted_bodies_from_the_scene() {
        let dir = std::env::temp_dir().join(format!("tumble-run-record-{}", std::process::id()));
        write_run(
            &dir,
            "t,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz\n\
             0,ball,0,0,1,1,0,0,0,0,0,0,0,0,0\n\
             0.01,ball,0,0,0.9,1,0,0,0,0,0,-1,0,0,0\n",
        );
        let run = RunRecord::load(&dir).unwrap();
        assert_eq!(run.frames.len(), 2);
        assert_eq!(run.bodies.len(), 2);
        let floor = run.index("floor").unwrap();
        let ball = run.index("ball").unwrap();
        assert_eq!(run.frames[1].poses[floor].0, DVec3::new(0.0, 0.0, -0.1));
        assert_eq!(run.frames[1].poses[ball].0, DVec3::new(0.0, 0.0, 0.9));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_bad_row_names_its_file_and_line() {
        let dir = std::env::temp_dir().join(format!("tumble-run-bad-{}", std::process::id()));
        write_run(
            &dir,
            "t,body,x,y,z,qw,qx,qy,qz\n0,ball,0,0,1,1,0,0,0\n0.01,ghost,0,0,1,1,0,0,0\n",
        );
        let e = RunRecord::load(&dir).unwrap_err().to_string();
        assert!(e.contains("frames.csv:3") && e.contains("ghost"), "{e}");
        std::fs::write(dir.join("frames.csv"), "t,body,x\n").unwrap();
        let e = RunRecord::load(&dir).unwrap_err().to_string();
        assert!(e.contains("frames.csv:1"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
