//! `tumble batch`: many seeded trials of one scene, and the statistics of where a part comes to
//! rest (Mirtich 1996 §2.4: a part dropped 2000 times to predict its stable-pose distribution).
//!
//! A scene's `[batch]` table ([`crate::scene::BatchSpec`]) says how many trials, the batch seed,
//! the values drawn per trial and the body to classify. Each trial's seed is a function of the
//! batch seed and the trial's index alone ([`draw::trial_seed`]), so a trial's result does not
//! depend on the thread count, on the shard layout (`--shard I/K`) or on the order trials ran
//! in, and shards merged ([`merge`]) equal an unsharded run in every column but wall times.
//!
//! - `draw`: trial seeds and the drawn values;
//! - `trial`: one trial, simulated and classified;
//! - `poses`: the classified body's hull faces, its stable poses, the quasi-static estimate
//!   and the Wilson intervals;
//! - `report`: `trials.csv`, `poses.csv`, `summary.json`, and merging shards;
//! - `plot`: `poses.svg`.

pub mod draw;
pub mod plot;
pub mod poses;
pub mod report;
pub mod trial;

use crate::gpu::Backend;
use crate::scene::{BatchSpec, Scene};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;
use trial::{run_trial, TrialResult};

/// A share of a batch's trials: shard `index` (1-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 1-based.
    pub index: u64,
    /// Number of shards, >= 1.
    pub count: u64,
}

impl Shard {
    /// The whole batch.
    pub const ALL: Shard = Shard { index: 1, count: 1 };

    /// Parses `I/K` (1 <= I <= K).
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("--shard must be I/K with 1 <= I <= K (got \"{text}\")");
        let (i, k) = text.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            i.trim().parse::<u64>().map_err(|_| bad())?,
            k.trim().parse::<u64>().map_err(|_| bad())?,
        );
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// The trials of this shard among `trials`: a contiguous block, the blocks of shards 1..=K
    /// covering `0..trials` in order.
    pub fn range(self, trials: u64) -> std::ops::Range<u64> {
        let at = |i: u64| (u128::from(trials) * u128::from(i) / u128::from(self.count)) as u64;
        at(self.index - 1)..at(self.index)
    }
}

/// How to run a batch (the command line's choices over the scene's `[batch]`).
#[derive(Clone)]
pub struct BatchOptions {
    /// Number of trials (default: `[batch] trials`).
    pub trials: Option<u64>,
    /// Batch seed (default: `[batch] seed`).
    pub seed: Option<u64>,
    /// Which share of the trials to run.
    pub shard: Shard,
    /// Where the data-parallel frame stages run, per trial world.
    pub backend: Backend,
    /// Called once per finished trial (a progress bar).
    pub on_trial: Option<std::sync::Arc<dyn Fn() + Send + Sync>>,
    /// Where to keep the files of the trials finished so far while the batch goes (rewritten
    /// every [`PARTIAL_PERIOD`] s of wall time, `"status": "running"`), so that a batch killed
    /// meanwhile keeps them; `None`: nothing is written until [`write`].
    pub partial: Option<PathBuf>,
}

/// How often a running batch rewrites its files (wall seconds).
pub const PARTIAL_PERIOD: f64 = 2.0;

/// A batch that could not start (an invalid `[batch]` or classified body).
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    /// The scene or its `[batch]` table is unusable for a batch.
    #[error("{0}")]
    Invalid(String),
    /// An output file could not be written or read.
    #[error("{0}")]
    Io(String),
}

/// What a batch (or one shard of it) produced.
pub struct BatchRun {
    /// The batch's settings after the command line.
    pub spec: BatchSpec,
    /// Total trials of the batch (all shards).
    pub trials_total: u64,
    /// The shard run.
    pub shard: Shard,
    /// Every trial of the shard, in trial order.
    pub results: Vec<TrialResult>,
    /// The classified body's pose table.
    pub poses: Option<poses::PoseTable>,
    /// Wall time of the whole shard (s).
    pub wall_time: f64,
    /// Where the frame stages ran ("cpu", "gpu").
    pub backend_name: String,
    /// Whether every trial of the shard is in `results` (false: the files of a batch still
    /// running).
    pub complete: bool,
}

/// Runs the shard's trials of `scene` on all cores (rayon's pool) and returns them in trial
/// order. One failing trial never stops the batch: its error is its result.
pub fn run(scene: &Scene, options: &BatchOptions) -> Result<BatchRun, BatchError> {
    let mut spec = scene.batch.clone().unwrap_or_default();
    if let Some(n) = options.trials {
        spec.trials = n;
    }
    if let Some(s) = options.seed {
        spec.seed = s;
    }
    let table = match spec.classify {
        Some(c) => Some(poses::pose_table(&scene.bodies[c].shape).map_err(|e| {
            BatchError::Invalid(format!(
                "{}: [batch] classify = \"{}\": {e}",
                scene.source.display(),
                scene.bodies[c].name
            ))
        })?),
        None => None,
    };
    let clock = Instant::now();
    let range = options.shard.range(spec.trials);
    let view = |results: Vec<TrialResult>, complete: bool| BatchRun {
        trials_total: spec.trials,
        spec: spec.clone(),
        shard: options.shard,
        results,
        poses: table.clone(),
        wall_time: clock.elapsed().as_secs_f64(),
        backend_name: options.backend.name().to_string(),
        complete,
    };
    // The trials finished so far and when their files were last written.
    let finished = Mutex::new((Vec::<TrialResult>::new(), Instant::now(), None));
    let results: Vec<TrialResult> = range
        .into_par_iter()
        .map(|trial| {
            let result = run_trial(
                scene,
                &spec,
                table.as_ref(),
                &options.backend,
                spec.seed,
                trial,
            );
            if let Some(tick) = &options.on_trial {
                tick();
            }
            if let Some(dir) = &options.partial {
                let mut guard = finished.lock().unwrap_or_else(|p| p.into_inner());
                let (done, written, failure) = &mut *guard;
                done.push(result.clone());
                if failure.is_none() && written.elapsed().as_secs_f64() >= PARTIAL_PERIOD {
                    let mut sorted = done.clone();
                    sorted.sort_by_key(|r| r.trial);
                    let threads = rayon::current_num_threads();
                    *failure = report::write_all(dir, scene, &view(sorted, false), threads).err();
                    *written = Instant::now();
                }
            }
            result
        })
        .collect();
    // A directory that cannot be written fails the batch at its end, as it would have anyway.
    if let (_, _, Some(e)) = finished.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    Ok(view(results, true))
}

/// Writes `trials.parquet` and `poses.parquet` beside the `trials.csv` and `poses.csv` that
/// [`write`] left in `dir` (`--format parquet`: the CSVs stay, `batch merge` reads them).
pub fn write_parquet_twins(dir: &Path) -> Result<(), BatchError> {
    for table in ["trials", "poses"] {
        let csv = dir.join(format!("{table}.csv"));
        if csv.exists() {
            crate::parquet_tables::csv_to_parquet(&csv, &dir.join(format!("{table}.parquet")))
                .map_err(|e| BatchError::Io(e.to_string()))?;
        }
    }
    Ok(())
}

/// Writes a batch's `trials.csv`, `poses.csv`, `poses.svg` (with a classified body) and
/// `summary.json` into `dir`.
pub fn write(dir: &Path, scene: &Scene, run: &BatchRun, threads: usize) -> Result<(), BatchError> {
    report::write_all(dir, scene, run, threads)
}

/// Combines shard directories into `out`: the trials in order (each exactly once), the pose
/// counts over all of them, and a summary; fails if the shards disagree (scene, seed, trials,
/// columns) or leave trials out.
pub fn merge(out: &Path, shards: &[PathBuf]) -> Result<report::MergeReport, BatchError> {
    report::merge(out, shards)
}
