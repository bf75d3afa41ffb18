//! `tumble run`'s options, read by the run (`cli/run.rs`) and by its resumption
//! (`cli/resume.rs`), which imports nothing else of the run.

use crate::{BackendChoice, FormatChoice};
use clap::Args;
use std::path::PathBuf;

/// `tumble run`'s arguments (the resume reads and sets them: `cli/resume.rs`).
#[derive(Args, Clone, Debug)]
pub struct RunArgs {
    /// The scene file (TOML); optional with --resume (if given, it must be the checkpoint's).
    #[arg(required_unless_present = "resume")]
    pub(crate) scene: Option<PathBuf>,
    /// Output directory [default: out/<scene file stem>].
    #[arg(long, value_name = "DIR")]
    pub(crate) out: Option<PathBuf>,
    /// Simulated time in seconds, overriding the scene's [world] duration.
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    pub(crate) duration: Option<f64>,
    /// Worker threads for the parallel stages (contact queries and sweeps, island event loops)
    /// [default: one per core]. The results do not depend on it.
    #[arg(long, value_name = "N", value_parser = super::flag_values::threads)]
    pub(crate) threads: Option<u64>,
    /// Where the data-parallel frame stages run.
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    pub(crate) backend: BackendChoice,
    /// Also write DIR/events.csv: one row per impulse (collision, microcollision, resting,
    /// re-solve) with its point, normal, impulses and normal velocities, streamed frame by frame.
    #[arg(long)]
    pub(crate) events: bool,
    /// The format of frames and events: csv (frames.csv, events.csv) or parquet (frames.parquet,
    /// events.parquet), with the same columns.
    #[arg(long, value_enum, default_value_t = FormatChoice::Csv)]
    pub(crate) format: FormatChoice,
    /// Keep every K-th frame in frames.csv (the first and the last always).
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = super::flag_values::every)]
    pub(crate) every: u64,
    /// Keep only these bodies in frames.csv: body names, or lattice names for all of a
    /// lattice's bodies (NAME_0, NAME_1, ...), comma-separated.
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    pub(crate) record: Vec<String>,
    /// Also print the world's counters (events, contacts, solver work) at the end; they are in
    /// summary.json in any case.
    #[arg(long)]
    pub(crate) verbose: bool,
    /// Write DIR/checkpoint.bin, the whole simulation state, at the end of the first frame at
    /// or after every multiple of S seconds of simulated time and at the run's end, for
    /// --resume (CSV tables only).
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    pub(crate) checkpoint_every: Option<f64>,
    /// Continue the run whose output directory DIR holds a checkpoint.bin, with its scene and
    /// options, to its duration (or --duration): frames.csv and events.csv are cut back to the
    /// checkpoint and appended to, as the run would have written them.
    #[arg(
        long,
        value_name = "DIR",
        conflicts_with_all = ["out", "backend", "events", "format", "every", "record"]
    )]
    pub(crate) resume: Option<PathBuf>,
}
