//! The `tumble` command line: `tumble run SCENE` simulates a scene and writes `frames.csv` and
//! `summary.json`; `tumble check SCENE` validates a scene without running it; `tumble bench SCENE`
//! runs it without output and reports speed and quality ([`tumble::bench`]); `tumble compare
//! SCENE` runs it by the event-driven and the LCP method and compares them
//! ([`tumble::compare`]).
//!
//! Exit codes: 0 success; 1 the simulation failed or an output file could not be written; 2 the
//! scene (or the command line) is invalid, or the requested backend is unavailable.

mod cli;

use clap::{Parser, Subcommand, ValueEnum};
use cli::batch::BatchArgs;
use cli::bench::BenchArgs;
use cli::compare::CompareArgs;
use cli::pictures::{ExportArgs, RenderArgs, ViewArgs};
use cli::run_args::RunArgs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tumble::gpu::{Backend, BackendKind};
use tumble::output;
use tumble::scene::{self, Scene};

/// The system allocator, counting the event loops' allocations for `tumble bench`'s report.
#[global_allocator]
static ALLOCATOR: tumble::event_loop_allocations::CountingAllocator =
    tumble::event_loop_allocations::CountingAllocator;

/// Event-driven, impulse-based rigid-body simulation (Mirtich & Canny 1994).
#[derive(Parser, Debug)]
#[command(name = "tumble", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Simulate a scene and write DIR/frames.csv and DIR/summary.json.
    // One usage for the help and the error alike: the scene is required unless --resume names
    // the run to continue (clap's own shows `[SCENE]` in one and `<SCENE>` in the other).
    #[command(
        override_usage = "tumble run [OPTIONS] <SCENE>\n       tumble run [OPTIONS] --resume <DIR>"
    )]
    Run(RunArgs),
    /// Validate a scene (parse, mass properties, initial overlaps) without running it.
    Check {
        /// The scene file (TOML).
        scene: PathBuf,
        /// Also list each body's mass, centre of mass and principal moments of inertia, and
        /// each joint.
        #[arg(long)]
        verbose: bool,
    },
    /// Run a scene without writing frames and report wall time, event rates, memory and quality.
    Bench(BenchArgs),
    /// Run seeded trials of a scene ([batch] table) and report where the classified body comes
    /// to rest: DIR/trials.csv, DIR/poses.csv and DIR/poses.svg (with a [batch] classify),
    /// DIR/summary.json.
    Batch(BatchArgs),
    /// Render a finished run (RUN_DIR of `tumble run`) headless with wgpu: DIR/frame_00000.png,
    /// … and DIR/animation.gif.
    Render(RenderArgs),
    /// Write a finished run (RUN_DIR of `tumble run`) as one self-contained HTML file that
    /// plays it in a browser with three.js, no network needed: RUN_DIR/view.html.
    View(ViewArgs),
    /// Export a finished run (RUN_DIR of `tumble run`) as a glTF 2.0 binary for Blender,
    /// three.js and other viewers: a node per body, an animation of the frames.
    Export(ExportArgs),
    /// Run a scene by the event-driven method and by Stewart & Trinkle's time-stepping (LCP) at
    /// several steps, and compare: DIR/compare.csv, DIR/compare.svg and a table.
    Compare(CompareArgs),
}

/// The table format asked for on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum FormatChoice {
    /// Comma-separated text.
    Csv,
    /// Parquet: float64 numbers and UTF-8 names, readable by pandas, polars and DuckDB.
    Parquet,
}

impl FormatChoice {
    fn format(self) -> output::TableFormat {
        match self {
            FormatChoice::Csv => output::TableFormat::Csv,
            FormatChoice::Parquet => output::TableFormat::Parquet,
        }
    }
}

/// The backend asked for on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum BackendChoice {
    /// The host's f64 path on the CPU (always available).
    Cpu,
    /// The WGSL compute stages on the adapter wgpu finds, a CPU implementation such as lavapipe
    /// included; exit code 2 if there is none (TUMBLE_ADAPTER=<substring> picks one).
    Gpu,
    /// The GPU for scenes of at least 50 000 moving bodies when wgpu finds a real (discrete or
    /// integrated) GPU, else the CPU; below that count no device is looked for.
    Auto,
}

/// Resolves the requested backend for `scene` through [`tumble::gpu::select`]. A device opened
/// is named on stderr (and why `auto` could not use one it picked); with `why`, also what `auto`
/// chose and why (`tumble bench`). Install it on each world with [`Backend::install`].
fn select_backend(choice: BackendChoice, scene: &Scene, why: bool) -> Result<Backend, Failure> {
    let kind = match choice {
        BackendChoice::Cpu => BackendKind::Cpu,
        BackendChoice::Gpu => BackendKind::Gpu,
        BackendChoice::Auto => BackendKind::Auto,
    };
    let (moving, _, _) = scene.motion_counts();
    let selection =
        tumble::gpu::select(kind, moving).map_err(|e| Failure::invalid(e.to_string()))?;
    let line = match (&selection.auto, &selection.note) {
        (Some(auto), _) if why => Some(auto),
        (_, note) => note.as_ref(),
    };
    if let Some(line) = line {
        eprintln!("{line}");
    }
    Ok(selection.backend)
}

/// Why the command failed, and its exit code.
#[derive(Debug)]
struct Failure {
    code: u8,
    message: String,
}

impl Failure {
    /// Bad input (scene, arguments, backend): exit code 2.
    fn invalid(message: String) -> Failure {
        Failure { code: 2, message }
    }
    /// The run itself failed (simulation error, output I/O): exit code 1.
    fn failed(message: String) -> Failure {
        Failure { code: 1, message }
    }
}

impl From<scene::SceneError> for Failure {
    fn from(e: scene::SceneError) -> Self {
        Failure::invalid(e.message)
    }
}

impl From<tumble::bench::BenchError> for Failure {
    fn from(e: tumble::bench::BenchError) -> Self {
        use tumble::bench::BenchError;
        match e {
            BenchError::Invalid(_) | BenchError::Scene(_) => Failure::invalid(e.to_string()),
            BenchError::Sim { .. } | BenchError::Stalled { .. } | BenchError::Timeline { .. } => {
                Failure::failed(e.to_string())
            }
        }
    }
}

impl From<output::OutputError> for Failure {
    fn from(e: output::OutputError) -> Self {
        Failure::failed(e.to_string())
    }
}

fn main() -> ExitCode {
    // clap exits with code 2 on usage errors, matching "invalid input".
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => cli::run::run(&args),
        Command::Check { scene, verbose } => cli::check::check(&scene, verbose),
        Command::Bench(args) => cli::bench::bench(&args),
        Command::Batch(args) => cli::batch::batch(&args),
        Command::Render(args) => cli::pictures::render(&args),
        Command::View(args) => cli::pictures::view(&args),
        Command::Export(args) => cli::pictures::export(&args),
        Command::Compare(args) => cli::compare::compare(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("error: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}

/// Sizes rayon's global pool (`--threads`); without the option, rayon's default (one thread
/// per core, or `RAYON_NUM_THREADS`).
fn set_threads(threads: Option<u64>) -> Result<(), Failure> {
    let Some(n) = threads else { return Ok(()) };
    rayon::ThreadPoolBuilder::new()
        .num_threads(usize::try_from(n).unwrap_or(usize::MAX))
        .build_global()
        .map_err(|e| Failure::failed(format!("cannot start {n} worker threads: {e}")))
}

/// Prints each of `warnings` on stderr as `warning: …` ([`Scene::warnings`]).
fn warn(warnings: Vec<String>) {
    for line in warnings {
        eprintln!("warning: {line}");
    }
}

/// `out/<scene file stem>`, the default output directory.
fn default_out_dir(scene: &Path) -> PathBuf {
    let stem = scene
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "scene".to_string());
    Path::new("out").join(stem)
}
