//! The `tumble` command line: `tumble run SCENE` simulates a scene and writes `frames.csv` and
//! `summary.json`; `tumble check SCENE` validates a scene without running it; `tumble bench SCENE`
//! runs it without output and reports speed and quality ([`tumble::bench`]); `tumble compare
//! SCENE` runs it by the event-driven and the LCP method and compares them
//! ([`tumble::compare`]).
//!
//! Exit codes: 0 success; 1 the simulation failed or an output file could not be written; 2 the
//! scene (or the command line) is invalid, or the requested backend is unavailable.

use clap::{Args, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use tumble::gpu::{Backend, BackendKind};
use tumble::output::{self, FramesWriter, Summary};
use tumble::scene::{self, Scene};
use tumble::simulation::{FrameSink, RunError, Simulation, SinkError};
use tumble::world::World;

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
    Run(RunArgs),
    /// Validate a scene (parse, mass properties, initial overlaps) without running it.
    Check {
        /// The scene file (TOML).
        scene: PathBuf,
    },
    /// Run a scene without writing frames and report wall time, event rates, memory and quality.
    Bench(BenchArgs),
    /// Run seeded trials of a scene ([batch] table) and report where the classified body comes
    /// to rest: DIR/trials.csv, DIR/poses.csv, DIR/poses.svg, DIR/summary.json.
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

#[derive(Args, Debug)]
struct CompareArgs {
    /// The scene file (TOML); its [world] method is overridden per run.
    scene: PathBuf,
    /// The methods to run (the event-driven run is made in any case: it is the reference).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "event,lcp")]
    methods: Vec<MethodChoice>,
    /// The LCP method's time steps h (s).
    #[arg(
        long,
        value_name = "H,...",
        value_delimiter = ',',
        default_value = "0.02,0.01,0.005,0.0025"
    )]
    steps: Vec<f64>,
    /// Times (s) at which the states are also compared, besides the end.
    #[arg(long, value_name = "T,...", value_delimiter = ',')]
    at: Vec<f64>,
    /// Simulated time in seconds, overriding the scene's [world] duration.
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    duration: Option<f64>,
    /// Output directory [default: out/<scene file stem>-compare].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Also write compare.parquet beside compare.csv, with the same columns.
    #[arg(long, value_enum, default_value_t = FormatChoice::Csv)]
    format: FormatChoice,
}

/// A method named on the command line (`[world] method`'s values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum MethodChoice {
    /// Event-driven impulses (Mirtich & Canny).
    Event,
    /// Stewart & Trinkle's time-stepping with an LCP per step.
    Lcp,
}

#[derive(Args, Debug)]
struct RenderArgs {
    /// The run's output directory (with summary.json and frames.csv).
    run_dir: PathBuf,
    /// Output directory [default: RUN_DIR/render].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Picture width in pixels.
    #[arg(long, value_name = "W", default_value_t = 640, value_parser = clap::value_parser!(u32).range(1..=8192))]
    width: u32,
    /// Picture height in pixels.
    #[arg(long, value_name = "H", default_value_t = 480, value_parser = clap::value_parser!(u32).range(1..=8192))]
    height: u32,
    /// Render every K-th frame, starting with the first.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    every: u64,
    /// Camera eye, optionally the point looked at and the vertical field of view in degrees:
    /// EX,EY,EZ[,TX,TY,TZ[,FOV]] [default: framing the moving bodies over the run].
    #[arg(
        long,
        value_name = "EX,EY,EZ[,TX,TY,TZ[,FOV]]",
        allow_hyphen_values = true
    )]
    camera: Option<tumble::render::CameraSpec>,
    /// Draw each frame's impulses from RUN_DIR/events.csv (`tumble run --events`) as arrows
    /// scaled by their magnitude.
    #[arg(long)]
    contacts: bool,
}

#[derive(Args, Debug)]
struct ExportArgs {
    /// The run's output directory (with summary.json and frames.csv).
    run_dir: PathBuf,
    /// The glTF binary to write (its directory is created).
    #[arg(long, value_name = "FILE.glb")]
    gltf: PathBuf,
}

#[derive(Args, Debug)]
struct ViewArgs {
    /// The run's output directory (with summary.json and frames.csv).
    run_dir: PathBuf,
    /// The HTML file to write (its directory is created) [default: RUN_DIR/view.html].
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Keep every K-th frame (the first and the last included), for long runs.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    every: u64,
}

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
struct BatchArgs {
    #[command(subcommand)]
    merge: Option<BatchCommand>,
    /// The scene file (TOML) with a [batch] table.
    #[arg(required = true)]
    scene: Option<PathBuf>,
    /// Number of trials [default: the scene's [batch] trials].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
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
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    threads: Option<u64>,
    /// Where each trial's frame stages run. The default is the host: a trial is a few bodies,
    /// where the GPU stages cannot pay for their transfers.
    #[arg(long, value_enum, default_value_t = BackendChoice::Cpu)]
    backend: BackendChoice,
    /// Also write trials.parquet and poses.parquet beside trials.csv and poses.csv (which
    /// `batch merge` reads), with the same columns.
    #[arg(long, value_enum, default_value_t = FormatChoice::Csv)]
    format: FormatChoice,
}

#[derive(Subcommand, Debug)]
enum BatchCommand {
    /// Combine shard directories into OUT (the files an unsharded run writes).
    Merge {
        /// The merged output directory.
        out: PathBuf,
        /// The shards' output directories.
        #[arg(required = true, num_args = 1..)]
        dirs: Vec<PathBuf>,
    },
}

#[derive(Args, Debug)]
struct BenchArgs {
    /// The scene file (TOML), optionally with a [bench] table (outlet_z).
    scene: PathBuf,
    /// Where the data-parallel frame stages run (the same default as `run`, so that a bench
    /// measures what a run does).
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    backend: BackendChoice,
    /// How many times to run the scene; each run is reported, and the medians.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u64).range(1..))]
    repeat: u64,
    /// Simulated time in seconds, overriding the scene's [world] duration.
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    duration: Option<f64>,
    /// Write the JSON report to FILE instead of printing it after the table.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write the first run's figures at every frame's end to FILE as CSV (simulated and wall
    /// time, stage times, event and solver counters, bodies asleep and awake; cumulative, so
    /// any span's cost is the difference of two rows). Written also when a run fails.
    #[arg(long, value_name = "FILE")]
    timeline: Option<PathBuf>,
    /// Worker threads [default: one per core]; see `run --threads`.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    threads: Option<u64>,
    /// Run every step's event loop as one loop, never split into island groups on threads
    /// (the results are identical bit for bit: this only measures what the split gains).
    #[arg(long)]
    one_event_loop: bool,
}

#[derive(Args, Debug)]
struct RunArgs {
    /// The scene file (TOML).
    scene: PathBuf,
    /// Output directory [default: out/<scene file stem>].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Simulated time in seconds, overriding the scene's [world] duration.
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    duration: Option<f64>,
    /// Worker threads for the parallel stages (contact queries and sweeps, island event loops)
    /// [default: one per core]. The results do not depend on it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    threads: Option<u64>,
    /// Where the data-parallel frame stages run.
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    backend: BackendChoice,
    /// Also write DIR/events.csv: one row per impulse (collision, microcollision, resting,
    /// re-solve) with its point, normal, impulses and normal velocities, streamed frame by frame.
    #[arg(long)]
    events: bool,
    /// The format of frames and events: csv (frames.csv, events.csv) or parquet (frames.parquet,
    /// events.parquet), with the same columns.
    #[arg(long, value_enum, default_value_t = FormatChoice::Csv)]
    format: FormatChoice,
    /// Keep every K-th frame in frames.csv (the first and the last always).
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    every: u64,
    /// Keep only these bodies in frames.csv: body names, or lattice names for all of a
    /// lattice's bodies (NAME_0, NAME_1, ...), comma-separated.
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    record: Vec<String>,
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
    /// The GPU if wgpu finds one that is not a CPU implementation (lavapipe/llvmpipe run slower
    /// than the host path), else the CPU.
    Auto,
}

/// Resolves the requested backend through [`tumble::gpu::select`] and prints on stderr which one
/// runs (and why `auto` fell back to the CPU). Install it on each world with
/// [`Backend::install`].
fn select_backend(choice: BackendChoice) -> Result<Backend, Failure> {
    let kind = match choice {
        BackendChoice::Cpu => BackendKind::Cpu,
        BackendChoice::Gpu => BackendKind::Gpu,
        BackendChoice::Auto => BackendKind::Auto,
    };
    let selection = tumble::gpu::select(kind).map_err(|e| Failure::invalid(e.to_string()))?;
    if let Some(note) = &selection.note {
        eprintln!("{note}");
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
        Command::Run(args) => run(&args),
        Command::Check { scene } => check(&scene),
        Command::Bench(args) => bench(&args),
        Command::Batch(args) => batch(&args),
        Command::Render(args) => render(&args),
        Command::View(args) => view(&args),
        Command::Export(args) => export(&args),
        Command::Compare(args) => compare(&args),
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

/// `tumble render`: read the run back, draw its frames, write the PNGs and the GIF.
fn render(args: &RenderArgs) -> Result<(), Failure> {
    use tumble::render::{self, RenderError, RenderOptions};
    let run = tumble::run_record::RunRecord::load(&args.run_dir)
        .map_err(|e| Failure::invalid(e.to_string()))?;
    let options = RenderOptions {
        out: args
            .out
            .clone()
            .unwrap_or_else(|| render::default_out(&args.run_dir)),
        width: args.width,
        height: args.height,
        every: usize::try_from(args.every).unwrap_or(usize::MAX),
        camera: args.camera,
        contacts: args.contacts,
    };
    let total = run.frames.len().div_ceil(options.every) as u64;
    let bar = if std::io::stderr().is_terminal() {
        ProgressBar::new(total)
    } else {
        ProgressBar::hidden()
    };
    let report = render::render(&run, &options, |done, _| bar.set_position(done as u64)).map_err(
        |e| match e {
            RenderError::Input(m) => Failure::invalid(m),
            RenderError::Gpu(tumble::render::GpuRenderError::Device(d)) => {
                Failure::invalid(format!("no GPU adapter for rendering: {d}"))
            }
            other => Failure::failed(other.to_string()),
        },
    )?;
    bar.finish_and_clear();
    println!(
        "{} pictures {}x{} on {} in {}: draw {:.3} s (median {:.1} ms per picture, first {:.1} ms), \
         PNG and GIF encoding {:.3} s",
        report.pictures,
        options.width,
        options.height,
        report.adapter,
        options.out.display(),
        report.draw_seconds.iter().sum::<f64>(),
        1e3 * report.median_draw_seconds(),
        1e3 * report.draw_seconds.first().copied().unwrap_or(0.0),
        report.encode_seconds,
    );
    Ok(())
}

/// `tumble export`: read the run back and write it as one glTF binary.
fn export(args: &ExportArgs) -> Result<(), Failure> {
    let run = tumble::run_record::RunRecord::load(&args.run_dir)
        .map_err(|e| Failure::invalid(e.to_string()))?;
    let r =
        tumble::export::write_glb(&run, &args.gltf).map_err(|e| Failure::failed(e.to_string()))?;
    println!(
        "wrote {}: {} nodes ({} meshes, {} triangles), {} frames over {:.3} s as keyframes of \
         {} animation channels, {:.1} kB",
        args.gltf.display(),
        r.nodes,
        r.meshes,
        r.triangles,
        r.frames,
        r.seconds,
        r.channels,
        r.bytes as f64 / 1e3,
    );
    Ok(())
}

/// `tumble view`: read the run back, write the page, report its size (and warn when a browser
/// would struggle with it).
fn view(args: &ViewArgs) -> Result<(), Failure> {
    use tumble::view::{self, ViewError, ViewOptions};
    let run = tumble::run_record::RunRecord::load(&args.run_dir)
        .map_err(|e| Failure::invalid(e.to_string()))?;
    let options = ViewOptions {
        out: args
            .out
            .clone()
            .unwrap_or_else(|| view::default_out(&args.run_dir)),
        every: usize::try_from(args.every).unwrap_or(usize::MAX),
    };
    let report = view::write(&run, &options).map_err(|e| match e {
        ViewError::Input(m) => Failure::invalid(m),
        ViewError::Output(m) => Failure::failed(m),
    })?;
    println!("{}", report.describe());
    if let Some(warning) = report.warning() {
        eprintln!("warning: {warning}");
    }
    Ok(())
}

/// `tumble compare`: the runs, the CSV, the chart, the table.
fn compare(args: &CompareArgs) -> Result<(), Failure> {
    use tumble::compare::{self, report, CompareError, CompareOptions};
    let mut scene = scene::load(&args.scene)?;
    if let Some(d) = args.duration {
        if !(d.is_finite() && d > 0.0) {
            return Err(Failure::invalid(format!(
                "--duration must be a finite number > 0 (got {d})"
            )));
        }
        scene.world.duration = d;
    }
    let options = CompareOptions {
        methods: args
            .methods
            .iter()
            .map(|m| match m {
                MethodChoice::Event => scene::Method::Event,
                MethodChoice::Lcp => scene::Method::Lcp,
            })
            .collect(),
        steps: args.steps.clone(),
        at: args.at.clone(),
    };
    let out = args.out.clone().unwrap_or_else(|| {
        let mut dir = default_out_dir(&args.scene).into_os_string();
        dir.push("-compare");
        PathBuf::from(dir)
    });
    let comparison = compare::compare(&scene, &options).map_err(|e| match e {
        CompareError::Invalid(m) => Failure::invalid(m),
        other => Failure::failed(other.to_string()),
    })?;
    output::create_dir(&out)?;
    let csv = out.join("compare.csv");
    report::write_csv(&csv, &comparison)
        .map_err(|e| Failure::failed(format!("cannot write {}: {e}", csv.display())))?;
    if args.format == FormatChoice::Parquet {
        tumble::parquet_tables::csv_to_parquet(&csv, &out.join("compare.parquet"))
            .map_err(|e| Failure::failed(e.to_string()))?;
    }
    let svg = out.join("compare.svg");
    compare::plot::write_plot(&svg, &comparison).map_err(Failure::failed)?;
    print!("{}", report::table(&comparison));
    println!(
        "{} over {} s; errors against the event-driven run. Wrote {} and {}.",
        args.scene.display(),
        scene.world.duration,
        csv.display(),
        svg.display()
    );
    Ok(())
}

/// `tumble check`: parse, build the world (mass properties, initial overlaps), print a summary.
fn check(path: &Path) -> Result<(), Failure> {
    let scene = scene::load(path)?;
    World::new(&scene)?;
    let (w, duration) = (&scene.world.config, scene.world.duration);
    let (dynamic, fixed, kinematic) = scene.motion_counts();
    println!("{}: OK", path.display());
    println!(
        "  world: gravity [{}, {}, {}] m/s², duration {} s, frame period {} s, collision epsilon {} m",
        w.gravity.x, w.gravity.y, w.gravity.z, duration, w.frame_period, w.collision_epsilon
    );
    println!(
        "  bodies: {} ({dynamic} dynamic, {fixed} fixed, {kinematic} kinematic)",
        scene.bodies.len()
    );
    let materials: Vec<String> = scene
        .materials
        .iter()
        .map(|(name, m)| {
            let users = scene.bodies.iter().filter(|b| &b.material == name).count();
            format!(
                "{name} (restitution {}, friction {}; {users} bodies)",
                m.restitution, m.friction
            )
        })
        .collect();
    println!("  materials: {}", materials.join(", "));
    if !scene.material_pairs.is_empty() {
        let pairs: Vec<String> = scene
            .material_pairs
            .iter()
            .map(|p| format!("{}/{}", p.a, p.b))
            .collect();
        println!("  material pair overrides: {}", pairs.join(", "));
    }
    Ok(())
}

/// `tumble run`: simulate, writing frames as they are produced and the summary at the end (also
/// after a simulation error, with the error recorded).
fn run(args: &RunArgs) -> Result<(), Failure> {
    set_threads(args.threads)?;
    let mut scene = scene::load(&args.scene)?;
    if let Some(d) = args.duration {
        if !(d.is_finite() && d >= 0.0) {
            return Err(Failure::invalid(format!(
                "--duration must be a finite number >= 0 (got {d})"
            )));
        }
        scene.world.duration = d;
    }
    let mut sim = Simulation::new(&scene)?;
    // After the scene checks, so that an invalid scene fails without opening a device.
    let backend = select_backend(args.backend)?;
    backend.install(sim.world_mut());
    let selection = output::FrameSelection::new(args.every, &args.record, sim.world())
        .map_err(Failure::invalid)?;

    let out_dir = args
        .out
        .clone()
        .unwrap_or_else(|| default_out_dir(&args.scene));
    output::create_dir(&out_dir)?;
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
    let mut events = if args.events {
        sim.world_mut().record_events(true);
        Some(output::EventsWriter::create_as(&events_path, format)?)
    } else {
        None
    };

    let start = Instant::now();
    let mut progress = FrameProgress(progress_bar(&scene));
    let mut frames = FramesWriter::create_as(&frames_path, selection, format)?;
    frames.write_frame(sim.world())?;
    // Each frame: its rows, its impulses, a tick of the bar, in that order.
    let mut sinks: Vec<&mut dyn FrameSink> = vec![&mut frames];
    if let Some(w) = events.as_mut() {
        sinks.push(w);
    }
    sinks.push(&mut progress);
    let sim_error = match sim.run(None, &mut sinks) {
        Ok(_) => None,
        // An output file that cannot be written ends the run without a summary.
        Err(RunError::Sink(e)) => return Err(Failure::failed(e.to_string())),
        Err(e) => Some(e.to_string()),
    };
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
    progress.0.finish_and_clear();
    let wall_time = start.elapsed().as_secs_f64();
    let world = sim.world();

    let summary = Summary {
        scene: args.scene.display().to_string(),
        backend: backend.name().to_string(),
        adapter: backend.adapter(),
        sim_time: world.time(),
        wall_time,
        counts: world.counts().clone(),
        max_penetration: world.max_penetration(),
        error: sim_error.clone(),
        bodies: Summary::bodies_of(world),
    };
    summary.write(&summary_path)?;

    println!(
        "{}",
        result_paragraph(&scene, &summary, &frames_path, &summary_path)
    );
    if let Some(rows) = event_rows {
        println!("Wrote {rows} impulse events to {}.", events_path.display());
    }
    match sim_error {
        None => Ok(()),
        Some(message) => Err(Failure::failed(message)),
    }
}

/// `tumble bench`: run the scene `--repeat` times without output; print the table, then the JSON
/// report (to `--json FILE`, else on stdout as one line after `JSON: `).
fn bench(args: &BenchArgs) -> Result<(), Failure> {
    set_threads(args.threads)?;
    let scene = tumble::bench::load(&args.scene)?;
    // After the scene checks, so that an invalid scene fails without opening a device.
    let backend = select_backend(args.backend)?;
    let options = tumble::bench::BenchOptions {
        backend: backend.name().to_string(),
        adapter: backend.adapter(),
        repeat: usize::try_from(args.repeat).unwrap_or(usize::MAX),
        duration: args.duration,
        timeline: args.timeline.clone(),
    };
    // Built here, where the backend is known, exactly as `run` builds it; installing the
    // backend is part of the time to first frame.
    let report = tumble::bench::run(&scene, &options, &|s: &Scene| {
        let mut world = World::new(s)?;
        backend.install(&mut world);
        world.set_parallel_islands(!args.one_event_loop);
        Ok(world)
    })?;
    print!("{}", report.table());
    match &args.json {
        Some(path) => {
            let text = serde_json::to_string_pretty(&report)
                .map_err(|e| Failure::failed(format!("cannot encode the JSON report: {e}")))?;
            std::fs::write(path, text + "\n").map_err(|e| {
                Failure::failed(format!(
                    "{}: cannot write the JSON report: {e}",
                    path.display()
                ))
            })?;
            println!("JSON report written to {}", path.display());
        }
        None => {
            let line = serde_json::to_string(&report)
                .map_err(|e| Failure::failed(format!("cannot encode the JSON report: {e}")))?;
            println!("JSON: {line}");
        }
    }
    Ok(())
}

/// `out/<scene file stem>`, the default output directory.
fn default_out_dir(scene: &Path) -> PathBuf {
    let stem = scene
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "scene".to_string());
    Path::new("out").join(stem)
}

/// The run's progress bar as a frame sink: one tick per frame.
struct FrameProgress(ProgressBar);

impl FrameSink for FrameProgress {
    fn frame(&mut self, _: &mut World) -> Result<ControlFlow<()>, SinkError> {
        self.0.inc(1);
        Ok(ControlFlow::Continue(()))
    }
}

/// A frame-count progress bar on stderr when it is a terminal; hidden otherwise, so that logs and
/// pipes get only the result paragraph.
fn progress_bar(scene: &Scene) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let w = &scene.world;
    let frames = (w.duration / w.config.frame_period).ceil().max(0.0) as u64;
    let bar = ProgressBar::with_draw_target(Some(frames), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(
        "{elapsed_precise} [{wide_bar}] {pos}/{len} frames ({per_sec}, eta {eta})",
    ) {
        bar.set_style(style);
    }
    bar
}

/// The one-paragraph report printed at the end of a run.
fn result_paragraph(
    scene: &Scene,
    summary: &Summary,
    frames_path: &Path,
    summary_path: &Path,
) -> String {
    let (dynamic, fixed, kinematic) = scene.motion_counts();
    // Through serde so that counters the world adds later are reported without touching this.
    let counts = match serde_json::to_value(&summary.counts) {
        Ok(serde_json::Value::Object(map)) => map
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", "),
        _ => String::from("unavailable"),
    };
    let speed = if summary.wall_time > 0.0 {
        format!(" ({:.3}x real time)", summary.sim_time / summary.wall_time)
    } else {
        String::new()
    };
    let status = match &summary.error {
        None => "Simulated",
        Some(_) => "Stopped by an error after simulating",
    };
    format!(
        "{status} {} s of {} ({} bodies: {dynamic} dynamic, {fixed} fixed, {kinematic} kinematic) \
         on the {} backend in {:.3} s of wall time{speed}. Counts: {counts}. Max penetration {:.3e} m. \
         Wrote {} and {}.",
        summary.sim_time,
        summary.scene,
        scene.bodies.len(),
        summary.backend,
        summary.wall_time,
        summary.max_penetration,
        frames_path.display(),
        summary_path.display()
    )
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
fn batch(args: &BatchArgs) -> Result<(), Failure> {
    if let Some(BatchCommand::Merge { out, dirs }) = &args.merge {
        let report = tumble::batch::merge(out, dirs)?;
        let s = &report.summary;
        println!(
            "Merged {} shard(s): {} trials ({} failed, {} classified) into {}.",
            dirs.len(),
            s.trials,
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
    let scene = scene::load(path)?;
    if scene.batch.is_none() {
        return Err(Failure::invalid(format!(
            "{}: no [batch] table: tumble batch needs one (see docs/scene-format.md)",
            path.display()
        )));
    }
    let backend = select_backend(args.backend)?;
    let shard = args.shard.unwrap_or(tumble::batch::Shard::ALL);
    let trials = args
        .trials
        .unwrap_or(scene.batch.as_ref().map_or(1, |b| b.trials));
    let bar = if std::io::stderr().is_terminal() {
        ProgressBar::new(shard.range(trials).count() as u64)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} trials {elapsed_precise} (eta {eta})")
            .expect("a valid template"),
    );
    let tick = bar.clone();
    let options = tumble::batch::BatchOptions {
        trials: args.trials,
        seed: args.seed,
        shard,
        backend,
        on_trial: Some(std::sync::Arc::new(move || tick.inc(1))),
    };
    let run = tumble::batch::run(&scene, &options)?;
    bar.finish_and_clear();
    let out = args.out.clone().unwrap_or_else(|| {
        let mut dir = default_out_dir(path);
        dir.as_mut_os_string().push("-batch");
        dir
    });
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
        "Ran {} trials of {} ({} failed) in {:.3} s ({:.1} trials/s); wrote {}.",
        run.results.len(),
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
