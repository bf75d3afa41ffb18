//! `tumble batch` and `tumble batch merge`.

use crate::{default_out_dir, select_backend, set_threads, BackendChoice, Failure, FormatChoice};
use clap::{Args, Subcommand};
use indicatif::ProgressBar;
use std::io::IsTerminal;
use std::path::PathBuf;
use tumble::plural::count;
use tumble::scene;

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct BatchArgs {
    #[command(subcommand)]
    merge: Option<BatchCommand>,
    /// The scene file (TOML) with a [batch] table.
    #[arg(required = true)]
    scene: Option<PathBuf>,
    /// Number of trials [default: the scene's [batch] trials].
    #[arg(long, value_name = "N", value_parser = super::flag_values::trials)]
    trials: Option<u64>,
    /// Batch seed [default: the scene's [batch] seed]; trial i's seed depends on it and i only.
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
    /// Run only shard I of K (1-based) of the trials, e.g. one task of a Slurm array; combine
    /// the shards' directories with `tumble batch merge`.
    #[arg(long, value_name = "I/K", value_parser = tumble::batch::Shard::parse)]
    shard: Option<tumble::batch::Shard>,
    /// Output directory [default: out/<scene file stem>-batch].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Worker threads, trials run in parallel [default: one per core]. Results do not depend on it.
    #[arg(long, value_name = "N", value_parser = super::flag_values::threads)]
    threads: Option<u64>,
    /// Where each trial's frame stages run. The default is the host: a trial is a few bodies,
    /// where the GPU stages cannot pay for their transfers.
    #[arg(long, value_enum, default_value_t = BackendChoice::Cpu)]
    backend: BackendChoice,
    /// Wall-clock seconds one trial may take before it ends as a failed trial, so that one
    /// pathological draw cannot stall the batch [default: the scene's [batch] trial_budget, 600].
    #[arg(long, value_name = "S")]
    trial_budget: Option<f64>,
    /// Also write trials.parquet and poses.parquet beside trials.csv and poses.csv (which
    /// `batch merge` reads), with the same columns.
    #[arg(long, value_enum, default_value_t = FormatChoice::Csv)]
    format: FormatChoice,
}

#[derive(Subcommand, Debug)]
pub enum BatchCommand {
    /// Combine shard directories into OUT (the files an unsharded run writes).
    Merge {
        /// The merged output directory.
        out: PathBuf,
        /// The shards' output directories.
        #[arg(required = true, num_args = 1..)]
        dirs: Vec<PathBuf>,
    },
}

impl From<tumble::batch::BatchError> for Failure {
    fn from(e: tumble::batch::BatchError) -> Self {
        match e {
            tumble::batch::BatchError::Invalid(m) => Failure::invalid(m),
            tumble::batch::BatchError::Io(m) => Failure::failed(m),
        }
    }
}

/// `tumble batch`: the shard's trials on all cores, then its files; `tumble batch merge`.
/// Failed trials are listed and recorded, and the batch goes on; the exit code is 1 only when
/// every trial failed.
pub fn batch(args: &BatchArgs) -> Result<(), Failure> {
    if let Some(BatchCommand::Merge { out, dirs }) = &args.merge {
        let report = tumble::batch::merge(out, dirs)?;
        let s = &report.summary;
        println!(
            "Merged {}: {} ({} failed, {} classified) into {}.",
            count(dirs.len(), "shard", "shards"),
            count(s.trials, "trial", "trials"),
            s.failed.len(),
            s.classified,
            out.display()
        );
        return Ok(());
    }
    let path = args
        .scene
        .as_ref()
        .expect("clap requires SCENE without a subcommand");
    set_threads(args.threads)?;
    let mut scene = scene::load(path)?;
    let Some(spec) = scene.batch.as_mut() else {
        return Err(Failure::invalid(format!(
            "{}: no [batch] table: tumble batch needs one (see docs/scene-format.md)",
            path.display()
        )));
    };
    if let Some(b) = args.trial_budget {
        if !(b.is_finite() && b > 0.0) {
            return Err(Failure::invalid(format!(
                "--trial-budget must be a finite number of seconds > 0 (got {b})"
            )));
        }
        spec.trial_budget = b;
    }
    crate::warn(scene.warnings());
    crate::warn(scene.batch_warnings());
    let out = args.out.clone().unwrap_or_else(|| {
        let mut dir = default_out_dir(path);
        dir.as_mut_os_string().push("-batch");
        dir
    });
    let backend = select_backend(args.backend, &scene, false)?;
    let shard = args.shard.unwrap_or(tumble::batch::Shard::ALL);
    let trials = args
        .trials
        .unwrap_or(scene.batch.as_ref().map_or(1, |b| b.trials));
    let bar = if std::io::stderr().is_terminal() {
        ProgressBar::new(shard.range(trials).count() as u64)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(super::progress::style("trials"));
    let tick = bar.clone();
    let options = tumble::batch::BatchOptions {
        trials: args.trials,
        seed: args.seed,
        shard,
        backend,
        on_trial: Some(std::sync::Arc::new(move || tick.inc(1))),
        partial: Some(out.clone()),
    };
    let run = tumble::batch::run(&scene, &options)?;
    bar.finish_and_clear();
    tumble::batch::write(&out, &scene, &run, rayon::current_num_threads())?;
    if args.format == FormatChoice::Parquet {
        tumble::batch::write_parquet_twins(&out)?;
    }
    let failed: Vec<_> = run.results.iter().filter(|r| r.outcome.is_err()).collect();
    for r in failed.iter().take(5) {
        if let Err(e) = &r.outcome {
            eprintln!("trial {} (seed {}) failed: {e}", r.trial, r.seed);
        }
    }
    println!(
        "Ran {} of {} ({} failed) in {:.3} s ({:.1} trials/s); wrote {}.",
        count(run.results.len(), "trial", "trials"),
        path.display(),
        failed.len(),
        run.wall_time,
        run.results.len() as f64 / run.wall_time.max(1e-9),
        out.display()
    );
    if !run.results.is_empty() && failed.len() == run.results.len() {
        return Err(Failure::failed("every trial failed".to_string()));
    }
    Ok(())
}
