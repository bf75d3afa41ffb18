//! `tumble run`: simulate a scene, streaming frames, then the summary.

use crate::{default_out_dir, select_backend, set_threads, BackendChoice, Failure, FormatChoice};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Instant;
use tumble::output::{self, FramesWriter, Summary};
use tumble::scene::{self, Scene};
use tumble::simulation::{FrameSink, RunError, Simulation, SinkError};
use tumble::world::World;

#[derive(Args, Debug)]
pub struct RunArgs {
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

/// `tumble run`: simulate, writing frames as they are produced and the summary at the end (also
/// after a simulation error, with the error recorded).
pub fn run(args: &RunArgs) -> Result<(), Failure> {
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

/// The run's progress bar as a frame sink: one tick per frame.
pub struct FrameProgress(ProgressBar);

impl FrameSink for FrameProgress {
    fn frame(&mut self, _: &mut World) -> Result<ControlFlow<()>, SinkError> {
        self.0.inc(1);
        Ok(ControlFlow::Continue(()))
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
    if let Ok(style) = ProgressStyle::with_template(
        "{elapsed_precise} [{wide_bar}] {pos}/{len} frames ({per_sec}, eta {eta})",
    ) {
        bar.set_style(style);
    }
    bar
}

/// The one-paragraph report printed at the end of a run.
pub fn result_paragraph(
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
