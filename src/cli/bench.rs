//! `tumble bench`: a scene run without output, timed.

use crate::{select_backend, set_threads, BackendChoice, Failure};
use clap::Args;
use std::path::PathBuf;
use tumble::scene::Scene;
use tumble::world::World;

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// The scene file (TOML), optionally with a [bench] table (outlet_z).
    scene: PathBuf,
    /// Where the data-parallel frame stages run (the same default as `run`, so that a bench
    /// measures what a run does; with `auto`, one line on stderr says what it chose and why).
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    backend: BackendChoice,
    /// How many times to run the scene; each run is reported, and the medians.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = super::flag_values::repeat)]
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
    #[arg(long, value_name = "N", value_parser = super::flag_values::threads)]
    threads: Option<u64>,
    /// Run every step's event loop as one loop, never split into island groups on threads
    /// (the results are identical bit for bit: this only measures what the split gains).
    #[arg(long)]
    one_event_loop: bool,
}

/// `tumble bench`: run the scene `--repeat` times without output; print the table, then the JSON
/// report (to `--json FILE`, else on stdout as one line after `JSON: `).
pub fn bench(args: &BenchArgs) -> Result<(), Failure> {
    set_threads(args.threads)?;
    let scene = tumble::bench::load(&args.scene)?;
    crate::warn(scene.scene.warnings());
    // After the scene checks, so that an invalid scene fails without opening a device.
    let backend = select_backend(args.backend, &scene.scene, true)?;
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
