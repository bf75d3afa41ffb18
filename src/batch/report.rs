//! A batch's files: `trials.csv` (a row per trial), `poses.csv` (a row per stable pose of the
//! classified body, every one even at 0), `poses.svg` and `summary.json`; and [`merge`], which
//! combines shard directories into the files an unsharded run writes (wall times aside).
//!
//! Numbers are written as the shortest text that reads back to the same f64, so a merge that
//! reads them back writes them again unchanged.

use super::plot::{write_pose_plot, PoseRow};
use super::poses::{wilson_interval, PoseTable};
use super::trial::TrialResult;
use super::{BatchError, BatchRun};
use crate::plural::count;
use crate::scene::Scene;
use glam::DVec3;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// `summary.json` of a batch or a shard.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BatchSummary {
    /// The scene file.
    pub scene: String,
    /// "finished", or "running" while the batch goes (rewritten every few seconds with the
    /// trials finished so far; a batch killed meanwhile leaves it so).
    #[serde(default = "finished")]
    pub status: String,
    /// Trials in these files.
    pub trials: u64,
    /// Trials of the whole batch.
    pub trials_total: u64,
    /// `[I, K]` of the shard, `null` for a whole batch or a merge.
    pub shard: Option<[u64; 2]>,
    /// The batch seed.
    pub seed: u64,
    /// The classified body, if any.
    pub classify: Option<String>,
    /// Trials whose classified body came to rest.
    pub at_rest: u64,
    /// Trials whose classified body came to rest on a stable face (`poses.csv`'s total count).
    pub classified: u64,
    /// Wall time (s): of the run; for a merge, the sum of the shards'.
    pub wall_time: f64,
    /// Trials per second of wall time.
    pub trials_per_second: f64,
    /// Worker threads (for a merge, the shards' most).
    pub threads: usize,
    /// Where the frame stages ran ("cpu", "gpu").
    pub backend: String,
    /// The trials that failed, each with its error (the batch went on without them).
    pub failed: Vec<FailedTrial>,
    /// For a merge: the shard directories merged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged_from: Option<Vec<String>>,
}

fn finished() -> String {
    "finished".to_string()
}

/// A trial that failed.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FailedTrial {
    /// Its index.
    pub trial: u64,
    /// Its seed.
    pub seed: u64,
    /// Why.
    pub error: String,
}

/// What a merge produced.
#[derive(Clone, Debug)]
pub struct MergeReport {
    /// The merged summary.
    pub summary: BatchSummary,
}

/// A stable pose's fixed data: its face normal (body frame) and quasi-static probability.
#[derive(Clone, Copy, Debug, PartialEq)]
struct PoseInfo {
    normal: DVec3,
    quasi_static: f64,
}

fn io(path: &Path, e: impl std::fmt::Display) -> BatchError {
    BatchError::Io(format!("{}: {e}", path.display()))
}

fn opt<T: std::fmt::Display>(x: Option<T>) -> String {
    x.map_or(String::new(), |x| x.to_string())
}

/// The columns of a recorded body's final state in `trials.csv` (`NAME.x` … `NAME.wz`).
const RECORDED: [&str; 13] = [
    "x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz",
];

/// The `trials.csv` header for a run with these drawn columns and recorded bodies.
fn trials_header(vary_columns: &[String], recorded: &[String]) -> String {
    let mut h = vec!["trial".to_string(), "seed".to_string()];
    h.extend(vary_columns.iter().cloned());
    h.extend(
        [
            "pose",
            "nx",
            "ny",
            "nz",
            "rest_time",
            "x",
            "y",
            "z",
            "qw",
            "qx",
            "qy",
            "qz",
            "max_penetration",
            "collisions",
            "wall_time",
        ]
        .map(String::from),
    );
    for name in recorded {
        h.extend(RECORDED.iter().map(|c| format!("{name}.{c}")));
    }
    h.join(",")
}

/// One `trials.csv` row; `recorded` bodies' columns after the wall time.
fn trial_row(r: &TrialResult, recorded: usize) -> String {
    let mut row = format!("{},{}", r.trial, r.seed);
    for v in &r.values {
        let _ = write!(row, ",{v}");
    }
    match &r.outcome {
        Ok(o) => {
            let n = o.normal;
            let s = o.state;
            let _ = write!(
                row,
                ",{},{},{},{},{}",
                opt(o.pose),
                opt(n.map(|n| n.x)),
                opt(n.map(|n| n.y)),
                opt(n.map(|n| n.z)),
                opt(o.rest_time)
            );
            let p = s.map(|s| s.position);
            let q = s.map(|s| s.orientation);
            let _ = write!(
                row,
                ",{},{},{},{},{},{},{},{},{}",
                opt(p.map(|p| p.x)),
                opt(p.map(|p| p.y)),
                opt(p.map(|p| p.z)),
                opt(q.map(|q| q.w)),
                opt(q.map(|q| q.x)),
                opt(q.map(|q| q.y)),
                opt(q.map(|q| q.z)),
                o.max_penetration,
                o.collisions
            );
        }
        // A failed trial: its draws, and nothing simulated (its error is in summary.json).
        Err(_) => row.push_str(",,,,,,,,,,,,,,"),
    }
    let _ = write!(row, ",{}", r.wall_time);
    match &r.outcome {
        Ok(o) => {
            for x in o.recorded.iter().flat_map(|s| s.to_array()) {
                let _ = write!(row, ",{x}");
            }
        }
        Err(_) => row.push_str(&",".repeat(RECORDED.len() * recorded)),
    }
    row
}

/// The stable poses of a table, by pose id.
fn pose_infos(table: &PoseTable) -> Vec<PoseInfo> {
    let mut infos = vec![None; table.faces.len()];
    let mut count = 0;
    for (face, pose) in table.pose_of_face.iter().enumerate() {
        if let Some(p) = *pose {
            infos[p] = Some(PoseInfo {
                normal: table.faces[face].normal,
                quasi_static: table.quasi_static[face],
            });
            count = count.max(p + 1);
        }
    }
    infos
        .into_iter()
        .take(count)
        .map(|i| i.expect("pose ids are 0..count"))
        .collect()
}

/// `poses.csv` rows from the poses and their counts.
fn pose_rows(infos: &[PoseInfo], counts: &[u64]) -> Vec<PoseRow> {
    let n: u64 = counts.iter().sum();
    infos
        .iter()
        .zip(counts)
        .enumerate()
        .map(|(pose, (info, &count))| {
            let (ci_low, ci_high) = wilson_interval(count, n);
            PoseRow {
                pose,
                count,
                fraction: if n > 0 { count as f64 / n as f64 } else { 0.0 },
                ci_low,
                ci_high,
                quasi_static: info.quasi_static,
            }
        })
        .collect()
}

fn write_poses(dir: &Path, infos: &[PoseInfo], counts: &[u64]) -> Result<(), BatchError> {
    let rows = pose_rows(infos, counts);
    let mut text = String::from("pose,nx,ny,nz,count,fraction,ci_low,ci_high,quasi_static\n");
    for (row, info) in rows.iter().zip(infos) {
        let n = info.normal;
        let _ = writeln!(
            text,
            "{},{},{},{},{},{},{},{},{}",
            row.pose,
            n.x,
            n.y,
            n.z,
            row.count,
            row.fraction,
            row.ci_low,
            row.ci_high,
            row.quasi_static
        );
    }
    let path = dir.join("poses.csv");
    std::fs::write(&path, text).map_err(|e| io(&path, e))?;
    let svg = dir.join("poses.svg");
    write_pose_plot(&svg, &rows).map_err(|e| io(&svg, e))
}

fn write_summary(dir: &Path, summary: &BatchSummary) -> Result<(), BatchError> {
    let path = dir.join("summary.json");
    let text = serde_json::to_string_pretty(summary).map_err(|e| io(&path, e))?;
    write_atomically(&path, &(text + "\n"))
}

/// Writes a file through a temporary one and a rename: a batch killed meanwhile leaves the
/// old file or the new one, never a torn one.
fn write_atomically(path: &Path, text: &str) -> Result<(), BatchError> {
    crate::output::write_atomically(path, |out| out.write_all(text.as_bytes()))
        .map_err(|e| BatchError::Io(e.to_string()))
}

/// Writes every file of a run (see the module doc).
pub fn write_all(
    dir: &Path,
    scene: &Scene,
    run: &BatchRun,
    threads: usize,
) -> Result<(), BatchError> {
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let columns: Vec<String> = run.spec.vary.iter().flat_map(|v| v.columns()).collect();
    let recorded: Vec<String> = run
        .spec
        .record
        .iter()
        .map(|&i| scene.bodies[i].name.clone())
        .collect();
    let mut text = trials_header(&columns, &recorded) + "\n";
    for r in &run.results {
        text += &trial_row(r, recorded.len());
        text.push('\n');
    }
    let path = dir.join("trials.csv");
    write_atomically(&path, &text)?;
    if let Some(table) = &run.poses {
        let infos = pose_infos(table);
        let mut counts = vec![0; infos.len()];
        for r in &run.results {
            if let Ok(super::trial::Outcome { pose: Some(p), .. }) = &r.outcome {
                counts[*p] += 1;
            }
        }
        write_poses(dir, &infos, &counts)?;
    }
    let summary = BatchSummary {
        scene: scene.source.display().to_string(),
        status: if run.complete { "finished" } else { "running" }.to_string(),
        trials: run.results.len() as u64,
        trials_total: run.trials_total,
        shard: (run.shard.count > 1).then_some([run.shard.index, run.shard.count]),
        seed: run.spec.seed,
        classify: run.spec.classify.map(|c| scene.bodies[c].name.clone()),
        at_rest: run
            .results
            .iter()
            .filter(|r| r.outcome.as_ref().is_ok_and(|o| o.rest_time.is_some()))
            .count() as u64,
        classified: run
            .results
            .iter()
            .filter(|r| r.outcome.as_ref().is_ok_and(|o| o.pose.is_some()))
            .count() as u64,
        wall_time: run.wall_time,
        trials_per_second: run.results.len() as f64 / run.wall_time.max(1e-9),
        threads,
        backend: run.backend_name.clone(),
        failed: run
            .results
            .iter()
            .filter_map(|r| {
                r.outcome.as_ref().err().map(|e| FailedTrial {
                    trial: r.trial,
                    seed: r.seed,
                    error: e.clone(),
                })
            })
            .collect(),
        merged_from: None,
    };
    write_summary(dir, &summary)
}

/// Reads a shard's file.
fn read(path: &Path) -> Result<String, BatchError> {
    std::fs::read_to_string(path).map_err(|e| io(path, e))
}

/// Combines shard directories (see [`super::merge`]).
pub fn merge(out: &Path, shards: &[PathBuf]) -> Result<MergeReport, BatchError> {
    let invalid = |m: String| BatchError::Invalid(m);
    if shards.is_empty() {
        return Err(invalid("batch merge: no shard directories given".into()));
    }
    let mut summaries = Vec::new();
    for dir in shards {
        let path = dir.join("summary.json");
        let s: BatchSummary = serde_json::from_str(&read(&path)?)
            .map_err(|e| io(&path, format!("not a batch summary: {e}")))?;
        if s.status != "finished" {
            return Err(invalid(format!(
                "{}: the shard's batch did not finish (status \"{}\", {} of its trials written): \
                 run it again",
                path.display(),
                s.status,
                s.trials
            )));
        }
        summaries.push(s);
    }
    let first = summaries[0].clone();
    for (s, dir) in summaries.iter().zip(shards).skip(1) {
        let same = s.scene == first.scene
            && s.seed == first.seed
            && s.trials_total == first.trials_total
            && s.classify == first.classify;
        if !same {
            return Err(invalid(format!(
                "{}: another batch (scene {}, seed {}, {}) than {} (scene {}, seed {}, {})",
                dir.display(),
                s.scene,
                s.seed,
                count(s.trials_total, "trial", "trials"),
                shards[0].display(),
                first.scene,
                first.seed,
                count(first.trials_total, "trial", "trials")
            )));
        }
    }
    // The trials, each once, by index; every shard with the same columns.
    let mut header: Option<String> = None;
    let mut rows: BTreeMap<u64, String> = BTreeMap::new();
    for dir in shards {
        let path = dir.join("trials.csv");
        let text = read(&path)?;
        let mut lines = text.lines();
        let h = lines.next().unwrap_or_default().to_string();
        match &header {
            None => header = Some(h),
            Some(first) if *first != h => {
                return Err(invalid(format!(
                    "{}: its columns differ from {}'s",
                    path.display(),
                    shards[0].display()
                )))
            }
            Some(_) => {}
        }
        for (k, line) in lines.enumerate() {
            let trial: u64 = line
                .split(',')
                .next()
                .and_then(|t| t.parse().ok())
                .ok_or_else(|| invalid(format!("{}:{}: no trial index", path.display(), k + 2)))?;
            if rows.insert(trial, line.to_string()).is_some() {
                return Err(invalid(format!(
                    "{}: trial {trial} is in more than one shard",
                    path.display()
                )));
            }
        }
    }
    let header = header.unwrap_or_default();
    let missing = (0..first.trials_total)
        .filter(|t| !rows.contains_key(t))
        .count();
    if missing > 0 || rows.len() as u64 != first.trials_total {
        let first_missing = (0..first.trials_total).find(|t| !rows.contains_key(t));
        return Err(invalid(format!(
            "batch merge: {missing} of {} trials missing (first: {}): a shard is absent or \
             incomplete",
            first.trials_total,
            opt(first_missing)
        )));
    }
    std::fs::create_dir_all(out).map_err(|e| io(out, e))?;
    let mut text = header.clone() + "\n";
    for row in rows.values() {
        text += row;
        text.push('\n');
    }
    let path = out.join("trials.csv");
    std::fs::write(&path, &text).map_err(|e| io(&path, e))?;
    // The poses: their normals and quasi-static values from the shards (all equal), their
    // counts over the merged trials.
    let mut classified = 0;
    if first.classify.is_some() {
        let mut infos: Option<Vec<PoseInfo>> = None;
        for dir in shards {
            let path = dir.join("poses.csv");
            let parsed = read_pose_infos(&path)?;
            match &infos {
                None => infos = Some(parsed),
                Some(i) if *i != parsed => {
                    return Err(invalid(format!(
                        "{}: its poses differ from {}'s",
                        path.display(),
                        shards[0].display()
                    )))
                }
                Some(_) => {}
            }
        }
        let infos = infos.unwrap_or_default();
        let pose_col = header
            .split(',')
            .position(|c| c == "pose")
            .ok_or_else(|| invalid("trials.csv has no pose column".into()))?;
        let mut counts = vec![0u64; infos.len()];
        for row in rows.values() {
            if let Some(p) = row
                .split(',')
                .nth(pose_col)
                .and_then(|p| p.parse::<usize>().ok())
            {
                if p < counts.len() {
                    counts[p] += 1;
                    classified += 1;
                }
            }
        }
        write_poses(out, &infos, &counts)?;
    }
    let mut failed: Vec<FailedTrial> = summaries.iter().flat_map(|s| s.failed.clone()).collect();
    failed.sort_by_key(|f| f.trial);
    let wall_time: f64 = summaries.iter().map(|s| s.wall_time).sum();
    let summary = BatchSummary {
        scene: first.scene.clone(),
        status: finished(),
        trials: first.trials_total,
        trials_total: first.trials_total,
        shard: None,
        seed: first.seed,
        classify: first.classify.clone(),
        at_rest: summaries.iter().map(|s| s.at_rest).sum(),
        classified,
        wall_time,
        trials_per_second: first.trials_total as f64 / wall_time.max(1e-9),
        threads: summaries.iter().map(|s| s.threads).max().unwrap_or(1),
        backend: first.backend.clone(),
        failed,
        merged_from: Some(shards.iter().map(|d| d.display().to_string()).collect()),
    };
    write_summary(out, &summary)?;
    Ok(MergeReport { summary })
}

/// The poses of a shard's `poses.csv`: normal and quasi-static value by pose id.
fn read_pose_infos(path: &Path) -> Result<Vec<PoseInfo>, BatchError> {
    let text = read(path)?;
    let mut infos = Vec::new();
    for (k, line) in text.lines().enumerate().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let num = |i: usize| -> Result<f64, BatchError> {
            f.get(i).and_then(|x| x.parse::<f64>().ok()).ok_or_else(|| {
                io(
                    path,
                    format!("line {}: column {} is not a number", k + 1, i + 1),
                )
            })
        };
        if f.len() != 9 || f[0].parse::<usize>().ok() != Some(infos.len()) {
            return Err(io(path, format!("line {}: not a pose row in order", k + 1)));
        }
        infos.push(PoseInfo {
            normal: DVec3::new(num(1)?, num(2)?, num(3)?),
            quasi_static: num(8)?,
        });
    }
    Ok(infos)
}
