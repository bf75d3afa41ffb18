//! Running a bench: what to run ([`BenchOptions`]), the repeated runs ([`run()`]: build the world,
//! step it to the duration by [`Simulation::run`], measure), and why a bench fails ([`BenchError`]).

use super::memory::{peak_memory_mib, reset_peak_memory};
use super::quality::quality;
use super::report::{summarise, BenchReport, RunReport};
use super::table::significant;
use super::{BenchScene, PerContactPointStep, Timeline};
use crate::event_loop_allocations;
use crate::scene::{Scene, SceneError};
use crate::simulation::{FrameSink, RunError, Simulation, SinkError};
use crate::world::{SimError, World};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What to run.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// The backend's name, for the report (the caller builds the world for it).
    pub backend: String,
    /// The GPU adapter's description, for the report; `None` on the CPU.
    pub adapter: Option<String>,
    /// How many times to run the scene (at least 1).
    pub repeat: usize,
    /// Simulated time (s), overriding the scene's `[world] duration`.
    pub duration: Option<f64>,
    /// Where to write the first run's frame rows as CSV ([`Timeline::write_csv`]); written
    /// when the run ends, and also when it fails, with the frames it finished.
    pub timeline: Option<PathBuf>,
}

/// Why a bench failed.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The options or the scene are invalid (the command line's exit code 2).
    #[error("{0}")]
    Invalid(String),
    /// The scene could not be built into a world (exit code 2).
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// The simulation failed during a run (exit code 1).
    #[error("run {run}: simulation failed at t = {time} s: {error}")]
    Sim {
        /// Which run (from 1).
        run: usize,
        /// Simulated time of the failure (s).
        time: f64,
        /// The world's error.
        error: SimError,
    },
    /// The world stopped advancing (exit code 1): a run would otherwise never end.
    #[error("run {run}: simulation failed: time did not advance past t = {time} s")]
    Stalled {
        /// Which run (from 1).
        run: usize,
        /// Simulated time where it stuck (s).
        time: f64,
    },
    /// The timeline file could not be written (exit code 1).
    #[error("{}: cannot write the timeline: {source}", path.display())]
    Timeline {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Runs `bench` `options.repeat` times. `build_world` builds the world for the chosen backend;
/// its time is the time to first frame.
pub fn run(
    bench: &BenchScene,
    options: &BenchOptions,
    build_world: &dyn Fn(&Scene) -> Result<World, SceneError>,
) -> Result<BenchReport, BenchError> {
    if options.repeat == 0 {
        return Err(BenchError::Invalid(
            "--repeat must be at least 1".to_string(),
        ));
    }
    let mut scene = bench.scene.clone();
    if let Some(d) = options.duration {
        if !(d.is_finite() && d >= 0.0) {
            return Err(BenchError::Invalid(format!(
                "--duration must be a finite number >= 0 (got {d})"
            )));
        }
        scene.world.duration = d;
    }
    let mut runs = Vec::with_capacity(options.repeat);
    for index in 1..=options.repeat {
        let csv = if index == 1 {
            options.timeline.as_deref()
        } else {
            None
        };
        let report = run_once(&scene, bench.outlet_z, build_world, index, csv)?;
        eprintln!(
            "run {index} of {}: {} s wall for {} s simulated",
            options.repeat,
            significant(report.wall_time),
            report.sim_time
        );
        runs.push(report);
    }
    Ok(summarise(&scene, options, runs))
}

/// One run: build, step to the duration, measure; with `csv`, write the run's frame rows there
/// (after the timed loop, or on a failure with the frames done).
fn run_once(
    scene: &Scene,
    outlet_z: Option<f64>,
    build_world: &dyn Fn(&Scene) -> Result<World, SceneError>,
    index: usize,
    csv: Option<&Path>,
) -> Result<RunReport, BenchError> {
    // Each run's peak is its own, not the largest of the runs so far.
    reset_peak_memory();
    let start = Instant::now();
    let world = build_world(scene)?;
    let time_to_first_frame = start.elapsed().as_secs_f64();
    let allocations_before = event_loop_allocations::count();

    let duration = scene.world.duration;
    let write_csv = |timeline: &Timeline| match csv {
        Some(path) => timeline
            .write_csv(path)
            .map_err(|source| BenchError::Timeline {
                path: path.to_path_buf(),
                source,
            }),
        None => Ok(()),
    };
    // Frame rows are kept only for the CSV, with room for every frame taken up front.
    let frames = (duration / scene.world.config.frame_period).ceil();
    let frames = if frames.is_finite() {
        (frames as usize).min(1 << 20) + 1
    } else {
        0
    };
    let mut timeline = Timeline::new(csv.is_some(), frames);
    let mut sim = Simulation::from_world(world, scene)?;
    let start = Instant::now();
    let ran = sim.run(
        None,
        &mut [&mut TimelineSink {
            timeline: &mut timeline,
            start,
        }],
    );
    if let Err(failure) = ran {
        // The failed frame has its row too, as every frame does.
        timeline.record(sim.world(), start.elapsed().as_secs_f64());
        let failure = match failure {
            RunError::Sim { time, error } => BenchError::Sim {
                run: index,
                time,
                error,
            },
            RunError::Stalled { time } => BenchError::Stalled { run: index, time },
            RunError::Sink(_) => unreachable!("the timeline sink never fails"),
        };
        // The frames done are reported even so; the run's own failure comes first.
        write_csv(&timeline).ok();
        return Err(failure);
    }
    let wall_time = start.elapsed().as_secs_f64();
    write_csv(&timeline)?;
    let peak_memory_mib = peak_memory_mib();
    let event_loop_allocations = event_loop_allocations::count()
        .zip(allocations_before)
        .map(|(now, before)| now.since(before));

    let world = sim.world();
    let counts = world.counts().clone();
    let sim_time = world.time();
    let events = counts.collisions + counts.microcollisions;
    let stage_times = serde_json::to_value(world.stage_times()).unwrap_or(serde_json::Value::Null);
    Ok(RunReport {
        time_to_first_frame,
        wall_time,
        sim_time,
        wall_per_sim: (sim_time > 0.0).then(|| wall_time / sim_time),
        events_per_second: per_second(events, wall_time),
        heap_pops_per_second: per_second(counts.heap_pops, wall_time),
        peak_memory_mib,
        event_loop_allocations,
        per_contact_point_step: PerContactPointStep::of(wall_time, &stage_times, &counts),
        stage_times,
        quality: quality(world, outlet_z),
        counts,
        by_second: timeline.by_second(),
    })
}

/// The timeline as a frame sink: a row at every frame's end, with the wall time since `start`.
struct TimelineSink<'a> {
    timeline: &'a mut Timeline,
    start: Instant,
}

impl FrameSink for TimelineSink<'_> {
    fn frame(&mut self, world: &mut World) -> Result<ControlFlow<()>, SinkError> {
        self.timeline
            .record(world, self.start.elapsed().as_secs_f64());
        Ok(ControlFlow::Continue(()))
    }
}

/// `n / wall`, and 0 for a run too short to time.
fn per_second(n: u64, wall: f64) -> f64 {
    if wall > 0.0 {
        n as f64 / wall
    } else {
        0.0
    }
}
