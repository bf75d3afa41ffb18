//! `tumble bench`: runs a scene without writing frames and reports speed and quality.
//!
//! One run is `World::new` (timed separately as the time to first frame) followed by
//! [`World::step_frame`] up to the duration; nothing else is timed, so the figures are the
//! simulator's own cost. A bench repeats the run, reports each one and the medians of the timing
//! figures, and checks that the repeats agree on the counters (the event loop is meant to be
//! deterministic, so a disagreement is itself a finding).
//!
//! Quality figures, measured at the end of each run:
//! - the largest penetration the world saw ([`World::max_penetration`]);
//! - **escaped** bodies: dynamic bodies whose centre is inside a fixed body (a wall or the floor,
//!   by the narrow phase) or below the top of the floor by more than their bounding radius while
//!   over the floor's footprint (fell through). The floor is the fixed body whose box reaches
//!   lowest;
//! - bodies that **fell off the floor's edge**: below its top by more than their radius but
//!   outside its footprint (a bounded floor has edges; leaving over one is not a missed contact);
//! - bodies **through the outlet**, when the scene has a `[bench]` table with `outlet_z`: dynamic
//!   bodies whose centre is below that height (the funnel scenes' figure of merit).
//!
//! Where the time goes over simulated time: each run records a row at every frame's end
//! ([`timeline`]); the report sums them per simulated second, and `--timeline FILE` writes the
//! first run's rows as CSV.
//!
//! # `[bench]` in scene files
//! The scene parser ([`crate::scene`]) rejects unknown top-level keys, and `[bench]` is not one of
//! its own, so [`parse`] takes it out first: when the file has a `bench` key the document is
//! re-serialised without it and that text is parsed. Line numbers in the errors of such a file
//! then refer to the re-serialised text; files without `[bench]` are parsed as written.

use crate::event_loop_allocations::{self, Allocations};
use crate::narrow_phase::{proximity, Collider, ContactPoint, Pose};
use crate::scene::{self, Motion, Scene, SceneError};
use crate::shape::Shape;
use crate::world::{Counts, SimError, World};
use glam::{DQuat, DVec3};
use std::path::{Path, PathBuf};
use std::time::Instant;
pub use timeline::{FrameRow, SecondRow, Timeline};

pub mod timeline;

/// Radius of the probe sphere placed at a body's centre to ask "is this point inside a fixed
/// body?" through the narrow phase: small enough not to matter, but a real shape, so that every
/// collider pair has a path.
const PROBE_RADIUS: f64 = 1e-6;

/// A scene and the bench's own settings from its `[bench]` table.
#[derive(Clone, Debug)]
pub struct BenchScene {
    /// The scene, as [`scene::parse`] reads it.
    pub scene: Scene,
    /// `[bench] outlet_z`: bodies whose centre ends below this height (m) went through the outlet.
    pub outlet_z: Option<f64>,
}

/// Reads a scene file for benchmarking (see [`parse`]).
pub fn load(path: &Path) -> Result<BenchScene, SceneError> {
    let text = std::fs::read_to_string(path).map_err(|e| SceneError {
        message: format!("{}: cannot read scene file: {e}", path.display()),
    })?;
    parse(&text, path)
}

/// Parses scene text with an optional `[bench]` table (`outlet_z = <number>`); `source` names it
/// in errors.
pub fn parse(text: &str, source: &Path) -> Result<BenchScene, SceneError> {
    let error = |message: String| SceneError {
        message: format!("{}: [bench]: {message}", source.display()),
    };
    // A document that is not valid TOML goes straight to the scene parser, whose message locates
    // the syntax error.
    let mut doc = match text.parse::<toml::Table>() {
        Ok(doc) => doc,
        Err(_) => {
            return scene::parse(text, source).map(|scene| BenchScene {
                scene,
                outlet_z: None,
            })
        }
    };
    let Some(bench) = doc.remove("bench") else {
        return Ok(BenchScene {
            scene: scene::parse(text, source)?,
            outlet_z: None,
        });
    };
    let toml::Value::Table(bench) = bench else {
        return Err(error("must be a table".to_string()));
    };
    let mut outlet_z = None;
    for (key, value) in &bench {
        match key.as_str() {
            "outlet_z" => {
                let z = match value {
                    toml::Value::Float(z) => *z,
                    toml::Value::Integer(z) => *z as f64,
                    other => {
                        return Err(error(format!(
                            "outlet_z must be a number (got {})",
                            other.type_str()
                        )))
                    }
                };
                if !z.is_finite() {
                    return Err(error(format!("outlet_z must be finite (got {z})")));
                }
                outlet_z = Some(z);
            }
            other => {
                return Err(error(format!(
                    "unknown key \"{other}\" (expected: outlet_z)"
                )))
            }
        }
    }
    // The scene parser accepts (and ignores) `[bench]`, so errors keep the file's own lines.
    Ok(BenchScene {
        scene: scene::parse(text, source)?,
        outlet_z,
    })
}

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

/// The quality figures of one run (see the module doc).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Quality {
    /// Largest penetration depth seen (m).
    pub max_penetration: f64,
    /// Where it was seen (`None` if no pair ever overlapped).
    pub deepest_overlap: Option<OverlapPlace>,
    /// Dynamic bodies inside a fixed body or fallen through the floor at the end.
    pub escaped: usize,
    /// Dynamic bodies that left the floor's footprint and fell below its top (over its edge).
    pub fell_off_edge: usize,
    /// Dynamic bodies below `[bench] outlet_z` at the end; `None` without an outlet.
    pub through_outlet: Option<usize>,
}

/// Where a run saw its largest penetration: when, and between which bodies (by name).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct OverlapPlace {
    /// Simulated time of the measurement (s).
    pub time: f64,
    /// The two bodies' names.
    pub bodies: [String; 2],
}

/// Per-event and per-body rates derived from a run's counters (the profile of where the events
/// go: how many events each body causes, how much heap and bounding work each event costs, how
/// large the contact steps are).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Rates {
    /// Collisions per dynamic body per simulated second.
    pub collisions_per_body_second: f64,
    /// Microcollisions per dynamic body per simulated second.
    pub microcollisions_per_body_second: f64,
    /// Held pairs' local re-solves per dynamic body per simulated second.
    pub resolves_per_body_second: f64,
    /// Heap pops (stale included) per impulse event (collision, microcollision or re-solve).
    pub heap_pops_per_event: Option<f64>,
    /// Time-of-impact bounds computed per impulse event.
    pub toi_bounds_per_event: Option<f64>,
    /// Distance queries per impulse event.
    pub distance_queries_per_event: Option<f64>,
    /// Resting contact points per contact step.
    pub contact_points_per_step: Option<f64>,
    /// Gauss–Seidel sweeps per contact step.
    pub sweeps_per_step: Option<f64>,
    /// Mean size of a step's largest island.
    pub mean_largest_island: Option<f64>,
}

impl Rates {
    /// The rates of `counts` for `bodies` dynamic bodies over `sim_time` simulated seconds.
    pub fn of(counts: &Counts, bodies: usize, sim_time: f64) -> Rates {
        let body_seconds = bodies as f64 * sim_time;
        let per_body_second = |n: u64| {
            if body_seconds > 0.0 {
                n as f64 / body_seconds
            } else {
                0.0
            }
        };
        let per = |n: u64, d: u64| (d > 0).then(|| n as f64 / d as f64);
        let events = counts.collisions + counts.microcollisions + counts.held_resolutions;
        Rates {
            collisions_per_body_second: per_body_second(counts.collisions),
            microcollisions_per_body_second: per_body_second(counts.microcollisions),
            resolves_per_body_second: per_body_second(counts.held_resolutions),
            heap_pops_per_event: per(counts.heap_pops, events),
            toi_bounds_per_event: per(counts.toi_bounds, events),
            distance_queries_per_event: per(counts.distance_queries, events),
            contact_points_per_step: per(counts.resting_contacts, counts.contact_steps),
            sweeps_per_step: per(counts.contact_iterations, counts.contact_steps),
            mean_largest_island: per(counts.largest_island_sum, counts.island_steps),
        }
    }

    /// `(name, value)` rows for the figures table.
    fn rows(&self) -> Vec<(String, String)> {
        let opt = |x: Option<f64>| x.map_or_else(|| "n/a".to_string(), |v| format!("{v:.3}"));
        vec![
            (
                "rate collisions/body/s".into(),
                format!("{:.3}", self.collisions_per_body_second),
            ),
            (
                "rate microcollisions/body/s".into(),
                format!("{:.3}", self.microcollisions_per_body_second),
            ),
            (
                "rate re-solves/body/s".into(),
                format!("{:.3}", self.resolves_per_body_second),
            ),
            ("rate heap pops/event".into(), opt(self.heap_pops_per_event)),
            (
                "rate TOI bounds/event".into(),
                opt(self.toi_bounds_per_event),
            ),
            (
                "rate distance queries/event".into(),
                opt(self.distance_queries_per_event),
            ),
            (
                "rate contact points/step".into(),
                opt(self.contact_points_per_step),
            ),
            ("rate sweeps/step".into(), opt(self.sweeps_per_step)),
            (
                "rate mean largest island".into(),
                opt(self.mean_largest_island),
            ),
        ]
    }
}

/// One run's figures.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RunReport {
    /// `World::new` (s): mass properties, colliders, the initial overlap check.
    pub time_to_first_frame: f64,
    /// Stepping to the duration (s), `World::new` excluded.
    pub wall_time: f64,
    /// Simulated time reached (s).
    pub sim_time: f64,
    /// Wall time per simulated second; `None` for a zero duration.
    pub wall_per_sim: Option<f64>,
    /// Collisions and microcollisions per wall-clock second.
    pub events_per_second: f64,
    /// Event-heap pops (stale ones included) per wall-clock second.
    pub heap_pops_per_second: f64,
    /// Peak resident memory of the process during the run (MiB), where the OS reports it.
    pub peak_memory_mib: Option<f64>,
    /// What the run's event loops allocated ([`crate::event_loop_allocations`]); `None` where
    /// the program does not count them.
    pub event_loop_allocations: Option<Allocations>,
    /// The world's counters at the end.
    pub counts: Counts,
    /// The world's per-stage wall times (s), as the world names them.
    pub stage_times: serde_json::Value,
    /// The quality figures.
    #[serde(flatten)]
    pub quality: Quality,
    /// The run's frames summed per simulated second ([`Timeline::by_second`]).
    pub by_second: Vec<SecondRow>,
}

/// A bench: the medians over its runs, and each run.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BenchReport {
    /// The scene file.
    pub scene: String,
    /// Number of dynamic bodies.
    pub bodies: usize,
    /// The backend that ran.
    pub backend: String,
    /// The GPU adapter that ran the frame stages; `None` on the CPU.
    pub adapter: Option<String>,
    /// Number of runs.
    pub repeat: usize,
    /// Simulated time of each run (s).
    pub sim_time: f64,
    /// Median of the runs' [`RunReport::time_to_first_frame`] (s).
    pub time_to_first_frame: f64,
    /// Median wall time (s).
    pub wall_time: f64,
    /// Median wall time per simulated second.
    pub wall_per_sim: Option<f64>,
    /// Median events (collisions + microcollisions) per second.
    pub events_per_second: f64,
    /// Median heap pops per second.
    pub heap_pops_per_second: f64,
    /// Median peak memory (MiB); `None` where the OS does not report it.
    pub peak_memory_mib: Option<f64>,
    /// The first run's event-loop allocations; `None` where the program does not count them.
    pub event_loop_allocations: Option<Allocations>,
    /// Median of each per-stage wall time (s).
    pub stage_times: serde_json::Value,
    /// The first run's counters.
    pub counts: Counts,
    /// Rates derived from the first run's counters.
    pub rates: Rates,
    /// The first run's quality figures.
    #[serde(flatten)]
    pub quality: Quality,
    /// True if every run ended with the same counters and quality figures as the first.
    pub deterministic: bool,
    /// The frames summed per simulated second: the runs' median times, the first run's counts.
    pub by_second: Vec<SecondRow>,
    /// Each run, in order.
    pub runs: Vec<RunReport>,
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
    let mut world = build_world(scene)?;
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
    let frames = (duration / scene.world.frame_period).ceil();
    let frames = if frames.is_finite() {
        (frames as usize).min(1 << 20) + 1
    } else {
        0
    };
    let mut timeline = Timeline::new(csv.is_some(), frames);
    let start = Instant::now();
    while world.time() < duration {
        let before = world.time();
        let stepped = world.step_frame(duration);
        timeline.record(&world, start.elapsed().as_secs_f64());
        let failure = match stepped {
            Err(error) => Some(BenchError::Sim {
                run: index,
                time: world.time(),
                error,
            }),
            Ok(()) if world.time() <= before => Some(BenchError::Stalled {
                run: index,
                time: before,
            }),
            Ok(()) => None,
        };
        if let Some(failure) = failure {
            // The frames done are reported even so; the run's own failure comes first.
            write_csv(&timeline).ok();
            return Err(failure);
        }
    }
    let wall_time = start.elapsed().as_secs_f64();
    write_csv(&timeline)?;
    let peak_memory_mib = peak_memory_mib();
    let event_loop_allocations = event_loop_allocations::count()
        .zip(allocations_before)
        .map(|(now, before)| now.since(before));

    let counts = world.counts().clone();
    let sim_time = world.time();
    let events = counts.collisions + counts.microcollisions;
    Ok(RunReport {
        time_to_first_frame,
        wall_time,
        sim_time,
        wall_per_sim: (sim_time > 0.0).then(|| wall_time / sim_time),
        events_per_second: per_second(events, wall_time),
        heap_pops_per_second: per_second(counts.heap_pops, wall_time),
        peak_memory_mib,
        event_loop_allocations,
        stage_times: serde_json::to_value(world.stage_times()).unwrap_or(serde_json::Value::Null),
        quality: quality(&world, outlet_z),
        counts,
        by_second: timeline.by_second(),
    })
}

/// `n / wall`, and 0 for a run too short to time.
fn per_second(n: u64, wall: f64) -> f64 {
    if wall > 0.0 {
        n as f64 / wall
    } else {
        0.0
    }
}

/// The medians of the timing figures; counters and quality from the first run.
fn summarise(scene: &Scene, options: &BenchOptions, runs: Vec<RunReport>) -> BenchReport {
    let median_of = |f: &dyn Fn(&RunReport) -> f64| median(runs.iter().map(f).collect());
    let first = &runs[0];
    let deterministic = runs
        .iter()
        .all(|r| r.counts == first.counts && r.quality == first.quality);
    let peak_memory_mib = if runs.iter().all(|r| r.peak_memory_mib.is_some()) {
        Some(median_of(&|r| r.peak_memory_mib.unwrap_or(0.0)))
    } else {
        None
    };
    BenchReport {
        scene: scene.source.display().to_string(),
        bodies: scene.motion_counts().0,
        backend: options.backend.clone(),
        adapter: options.adapter.clone(),
        repeat: runs.len(),
        sim_time: first.sim_time,
        time_to_first_frame: median_of(&|r| r.time_to_first_frame),
        wall_time: median_of(&|r| r.wall_time),
        wall_per_sim: first
            .wall_per_sim
            .map(|_| median_of(&|r| r.wall_per_sim.unwrap_or(0.0))),
        events_per_second: median_of(&|r| r.events_per_second),
        heap_pops_per_second: median_of(&|r| r.heap_pops_per_second),
        peak_memory_mib,
        event_loop_allocations: first.event_loop_allocations,
        stage_times: median_stage_times(&runs),
        counts: first.counts.clone(),
        rates: Rates::of(&first.counts, scene.motion_counts().0, first.sim_time),
        quality: first.quality.clone(),
        deterministic,
        by_second: median_by_second(&runs),
        runs,
    }
}

/// The first run's seconds with each time the median over the runs (the runs step the same
/// frames, so their seconds match; if they do not, the first run's as they are).
fn median_by_second(runs: &[RunReport]) -> Vec<SecondRow> {
    let first = &runs[0].by_second;
    if runs.iter().any(|r| r.by_second.len() != first.len()) {
        return first.clone();
    }
    let at = |k: usize, f: fn(&SecondRow) -> f64| {
        median(runs.iter().map(|r| f(&r.by_second[k])).collect())
    };
    (0..first.len())
        .map(|k| SecondRow {
            wall_time: at(k, |s| s.wall_time),
            contact_step: at(k, |s| s.contact_step),
            broad_phase: at(k, |s| s.broad_phase),
            event_loop: at(k, |s| s.event_loop),
            ..first[k].clone()
        })
        .collect()
}

/// The median of each numeric field of the runs' stage times (an object keyed by stage).
fn median_stage_times(runs: &[RunReport]) -> serde_json::Value {
    let serde_json::Value::Object(first) = &runs[0].stage_times else {
        return runs[0].stage_times.clone();
    };
    let mut out = serde_json::Map::new();
    for key in first.keys() {
        let values: Vec<f64> = runs
            .iter()
            .filter_map(|r| r.stage_times.get(key).and_then(serde_json::Value::as_f64))
            .collect();
        if values.len() == runs.len() {
            out.insert(key.clone(), serde_json::json!(median(values)));
        }
    }
    serde_json::Value::Object(out)
}

/// The median (the mean of the middle two for an even count); 0 for none.
fn median(mut values: Vec<f64>) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        0.5 * (values[n / 2 - 1] + values[n / 2])
    }
}

/// The quality figures of `world` now (see the module doc).
pub fn quality(world: &World, outlet_z: Option<f64>) -> Quality {
    let check = EscapeCheck::new(
        (0..world.body_count())
            .filter(|&i| world.body_motion(i) == Motion::Fixed)
            .map(|i| (world.body(i).collider.clone(), world.body(i).pose())),
    );
    let dynamic: Vec<usize> = (0..world.body_count())
        .filter(|&i| world.body_motion(i) == Motion::Dynamic)
        .collect();
    let (mut escaped, mut fell_off_edge) = (0, 0);
    for &i in &dynamic {
        let b = world.body(i);
        escaped += usize::from(check.escaped(b.position, b.bounding_radius));
        fell_off_edge += usize::from(check.fell_off_edge(b.position, b.bounding_radius));
    }
    let through_outlet = outlet_z.map(|z| {
        dynamic
            .iter()
            .filter(|&&i| world.body(i).position.z < z)
            .count()
    });
    let deepest_overlap = world.deepest_overlap().map(|o| OverlapPlace {
        time: o.time,
        bodies: [world.body(o.a).name.clone(), world.body(o.b).name.clone()],
    });
    Quality {
        max_penetration: world.max_penetration(),
        deepest_overlap,
        escaped,
        fell_off_edge,
        through_outlet,
    }
}

/// The fixed bodies, and the test of whether a body's centre has escaped through them.
pub struct EscapeCheck {
    /// Each fixed body's collider, pose and world box.
    fixed: Vec<(Collider, Pose, (DVec3, DVec3))>,
    /// Top of the floor's box (m): the fixed body whose box reaches lowest. `None` without fixed
    /// bodies, or when that top is unbounded (a tilted plane), where "below the floor" means
    /// nothing.
    floor_top: Option<f64>,
    /// The floor's footprint: its box's corners (only x and y are used).
    floor_box: (DVec3, DVec3),
    probe: Collider,
}

impl EscapeCheck {
    /// The check against these fixed bodies (collider and pose).
    pub fn new(fixed: impl IntoIterator<Item = (Collider, Pose)>) -> EscapeCheck {
        let fixed: Vec<_> = fixed
            .into_iter()
            .map(|(collider, pose)| {
                let aabb = collider.aabb(&pose);
                (collider, pose, aabb)
            })
            .collect();
        let floor = fixed
            .iter()
            .map(|(_, _, aabb)| *aabb)
            .min_by(|a, b| a.0.z.total_cmp(&b.0.z).then(a.1.z.total_cmp(&b.1.z)));
        let floor_top = floor.map(|(_, max)| max.z).filter(|top| top.is_finite());
        let floor_box = floor.unwrap_or((DVec3::ZERO, DVec3::ZERO));
        // The probe is a valid sphere by construction; failing here would be a bug in Collider.
        let probe = Collider::new(
            &Shape::Sphere {
                radius: PROBE_RADIUS,
            },
            Pose::IDENTITY,
        )
        .expect("a sphere of positive radius is a valid shape");
        EscapeCheck {
            fixed,
            floor_top,
            floor_box,
            probe,
        }
    }

    /// True if a body centred at `centre` with bounding radius `radius` is below the floor's top
    /// by more than `radius`.
    fn below_floor(&self, centre: DVec3, radius: f64) -> bool {
        self.floor_top.is_some_and(|top| centre.z < top - radius)
    }

    /// True if `centre` is over the floor's footprint, grown by `radius`.
    fn over_floor(&self, centre: DVec3, radius: f64) -> bool {
        let (min, max) = self.floor_box;
        centre.x >= min.x - radius
            && centre.x <= max.x + radius
            && centre.y >= min.y - radius
            && centre.y <= max.y + radius
    }

    /// True if a body centred at `centre` with bounding radius `radius` fell off the floor's
    /// edge: below its top by more than `radius`, outside its footprint.
    pub fn fell_off_edge(&self, centre: DVec3, radius: f64) -> bool {
        self.below_floor(centre, radius) && !self.over_floor(centre, radius)
    }

    /// True if a body centred at `centre` with bounding radius `radius` has escaped: fallen below
    /// the floor's top by more than `radius` over the floor, or its centre is inside a fixed body.
    pub fn escaped(&self, centre: DVec3, radius: f64) -> bool {
        if self.below_floor(centre, radius) {
            return self.over_floor(centre, radius);
        }
        let probe_pose = Pose::new(centre, DQuat::IDENTITY);
        let mut points: Vec<ContactPoint> = Vec::new();
        self.fixed.iter().any(|(collider, pose, (min, max))| {
            // Only a box that contains the centre can have it inside: most fixed bodies are far.
            let contained = centre.cmpge(*min).all() && centre.cmple(*max).all();
            // The probe's separation is the centre's signed distance less the probe radius, so
            // the centre is strictly inside when it is below -PROBE_RADIUS.
            contained
                && proximity(&self.probe, &probe_pose, collider, pose, 0.0, &mut points)
                    < -PROBE_RADIUS
        })
    }
}

/// The event loops' allocations as a figure: the count, the bytes, and the count per thousand
/// heap pops (the loop's unit of work); "n/a" where they were not counted.
fn allocations(a: Option<Allocations>, counts: &Counts) -> String {
    match a {
        Some(a) => format!(
            "{} ({} bytes; {:.3} per 1000 heap pops)",
            a.count,
            a.bytes,
            1000.0 * a.count as f64 / counts.heap_pops.max(1) as f64
        ),
        None => "n/a".into(),
    }
}

/// Peak resident memory of this process (MiB): `VmHWM` from `/proc/self/status`; `None` where
/// there is no such file (not Linux).
pub fn peak_memory_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
    let kib: f64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    Some(kib / 1024.0)
}

/// Resets the peak resident memory to the current one (Linux: writing 5 to
/// `/proc/self/clear_refs`). Where that is not possible the peak stays the process's, which only
/// overstates the later runs of a repeat.
fn reset_peak_memory() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

impl BenchReport {
    /// The report as the tables printed by `tumble bench`: one row per run and the medians, then
    /// every figure of the medians with its unit.
    pub fn table(&self) -> String {
        let mut out = String::new();
        out.push_str(&format!(
            "tumble bench: {}: {} dynamic bodies, {} backend, {} s simulated, {} run{}\n\n",
            self.scene,
            self.bodies,
            self.backend,
            self.sim_time,
            self.repeat,
            if self.repeat == 1 { "" } else { "s" }
        ));
        let header = [
            "run",
            "first frame (s)",
            "wall time (s)",
            "wall/sim",
            "events/s",
            "heap pops/s",
            "peak memory (MiB)",
        ];
        let mut rows: Vec<Vec<String>> = self
            .runs
            .iter()
            .enumerate()
            .map(|(i, r)| {
                run_row(
                    (i + 1).to_string(),
                    r.time_to_first_frame,
                    r.wall_time,
                    r.wall_per_sim,
                    r.events_per_second,
                    r.heap_pops_per_second,
                    r.peak_memory_mib,
                )
            })
            .collect();
        rows.push(run_row(
            "median".to_string(),
            self.time_to_first_frame,
            self.wall_time,
            self.wall_per_sim,
            self.events_per_second,
            self.heap_pops_per_second,
            self.peak_memory_mib,
        ));
        out.push_str(&columns(&header, &rows));
        out.push('\n');
        if !self.by_second.is_empty() {
            out.push_str(&self.by_second_table());
            out.push('\n');
        }

        let mut figures: Vec<(String, String)> = vec![
            ("scene".into(), self.scene.clone()),
            ("bodies (dynamic)".into(), self.bodies.to_string()),
            ("backend".into(), self.backend.clone()),
            (
                "adapter".into(),
                self.adapter.clone().unwrap_or_else(|| "n/a".into()),
            ),
            ("sim time (s)".into(), self.sim_time.to_string()),
            (
                "time to first frame (s)".into(),
                significant(self.time_to_first_frame),
            ),
            ("wall time (s)".into(), significant(self.wall_time)),
            ("wall/sim".into(), ratio(self.wall_per_sim)),
            ("events/s".into(), format!("{:.0}", self.events_per_second)),
            (
                "heap pops/s".into(),
                format!("{:.0}", self.heap_pops_per_second),
            ),
            ("peak memory (MiB)".into(), mib(self.peak_memory_mib)),
            (
                "event-loop allocations".into(),
                allocations(self.event_loop_allocations, &self.counts),
            ),
        ];
        match &self.stage_times {
            serde_json::Value::Object(stages) if !stages.is_empty() => {
                for (stage, seconds) in stages {
                    let share = match seconds.as_f64() {
                        Some(s) if self.wall_time > 0.0 => {
                            format!("{} ({:.0}%)", significant(s), 100.0 * s / self.wall_time)
                        }
                        Some(s) => significant(s),
                        None => seconds.to_string(),
                    };
                    figures.push((format!("stage {stage} (s)"), share));
                }
            }
            _ => figures.push(("stage times".into(), "n/a".into())),
        }
        // Through serde, so that counters the world adds later are listed without touching this.
        if let Ok(serde_json::Value::Object(counts)) = serde_json::to_value(&self.counts) {
            for (name, n) in counts {
                figures.push((format!("count {name}"), n.to_string()));
            }
        }
        figures.extend(self.rates.rows());
        figures.push((
            "max penetration (m)".into(),
            match &self.quality.deepest_overlap {
                Some(o) => format!(
                    "{:.3e} (at {:.4} s, {} and {})",
                    self.quality.max_penetration, o.time, o.bodies[0], o.bodies[1]
                ),
                None => format!("{:.3e}", self.quality.max_penetration),
            },
        ));
        figures.push(("escaped".into(), self.quality.escaped.to_string()));
        figures.push((
            "fell off the floor's edge".into(),
            self.quality.fell_off_edge.to_string(),
        ));
        figures.push((
            "through outlet".into(),
            match self.quality.through_outlet {
                Some(n) => n.to_string(),
                None => "n/a (no [bench] outlet_z)".into(),
            },
        ));
        figures.push((
            "deterministic".into(),
            if self.deterministic {
                "yes".into()
            } else {
                "NO: the runs' counters or quality figures differ (see the JSON runs)".into()
            },
        ));
        let rows: Vec<Vec<String>> = figures.into_iter().map(|(k, v)| vec![k, v]).collect();
        out.push_str(&columns(&["figure", "value"], &rows));
        out
    }
}

impl BenchReport {
    /// The table of [`Self::by_second`]: where the wall time went, second by simulated second.
    fn by_second_table(&self) -> String {
        let header = [
            "simulated (s)",
            "wall (s)",
            "wall/sim",
            "contact step (s)",
            "broad phase (s)",
            "event loop (s)",
            "collisions",
            "re-solves",
            "contact steps",
            "asleep",
            "awake",
        ];
        let rows: Vec<Vec<String>> = self
            .by_second
            .iter()
            .map(|s| {
                let length = s.to - s.from;
                vec![
                    format!("{}-{}", s.from, short(s.to)),
                    significant(s.wall_time),
                    ratio((length > 0.0).then(|| s.wall_time / length)),
                    significant(s.contact_step),
                    significant(s.broad_phase),
                    significant(s.event_loop),
                    s.collisions.to_string(),
                    s.held_resolutions.to_string(),
                    s.contact_steps.to_string(),
                    s.asleep.to_string(),
                    s.awake.to_string(),
                ]
            })
            .collect();
        let mut out = "by simulated second (median times over the runs):\n".to_string();
        out.push_str(&columns(&header, &rows));
        out
    }
}

/// One row of the runs table.
fn run_row(
    label: String,
    first_frame: f64,
    wall: f64,
    wall_per_sim: Option<f64>,
    events: f64,
    pops: f64,
    memory: Option<f64>,
) -> Vec<String> {
    vec![
        label,
        significant(first_frame),
        significant(wall),
        ratio(wall_per_sim),
        format!("{events:.0}"),
        format!("{pops:.0}"),
        mib(memory),
    ]
}

/// A simulated time with at most three decimals and no trailing zeros ("2", "2.1").
fn short(t: f64) -> String {
    let text = format!("{t:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A ratio to four significant digits, or "n/a".
fn ratio(r: Option<f64>) -> String {
    r.map_or_else(|| "n/a".to_string(), significant)
}

/// Four significant digits: fixed point from 1e-3 up, scientific below (a short run's
/// sub-millisecond times would otherwise all print as 0.000).
fn significant(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    if x.abs() < 1e-3 {
        return format!("{x:.3e}");
    }
    let decimals = (3 - x.abs().log10().floor() as i32).clamp(0, 6) as usize;
    format!("{x:.decimals$}")
}

/// A peak-memory figure in MiB, or "n/a".
fn mib(m: Option<f64>) -> String {
    m.map_or_else(|| "n/a".to_string(), |m| format!("{m:.1}"))
}

/// Left-aligned columns separated by two spaces, with a dashed rule under the header.
fn columns(header: &[&str], rows: &[Vec<String>]) -> String {
    let header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        padded.join("  ").trim_end().to_string() + "\n"
    };
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    let mut out = line(&header);
    out.push_str(&line(&rule));
    for row in rows {
        out.push_str(&line(row));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ground() -> (Collider, Pose) {
        let shape = Shape::Box {
            half_extents: DVec3::new(10.0, 10.0, 0.5),
        };
        let collider = Collider::new(&shape, Pose::IDENTITY).unwrap();
        (
            collider,
            Pose::new(DVec3::new(0.0, 0.0, -0.5), DQuat::IDENTITY),
        )
    }

    #[test]
    fn a_centre_inside_the_floor_or_below_it_has_escaped() {
        let check = EscapeCheck::new([ground()]);
        // Resting on the floor, and barely touching it.
        assert!(!check.escaped(DVec3::new(0.0, 0.0, 0.25), 0.3));
        assert!(!check.escaped(DVec3::new(0.0, 0.0, 1e-3), 0.3));
        // Centre inside the slab (within its bounding radius of the top, so by the narrow phase).
        assert!(check.escaped(DVec3::new(0.0, 0.0, -0.1), 0.3));
        // Under the slab, below it.
        assert!(check.escaped(DVec3::new(0.0, 9.0, -2.0), 0.3));
        assert!(!check.fell_off_edge(DVec3::new(0.0, 9.0, -2.0), 0.3));
        // Beside the slab (outside its footprint) and below the floor's top by more than the
        // radius: fell off the edge, not through the floor.
        assert!(!check.escaped(DVec3::new(50.0, 0.0, -2.0), 0.3));
        assert!(check.fell_off_edge(DVec3::new(50.0, 0.0, -2.0), 0.3));
        assert!(check.fell_off_edge(DVec3::new(0.0, -10.5, -2.0), 0.3));
        // Beside the slab and above that depth.
        assert!(!check.escaped(DVec3::new(50.0, 0.0, -0.2), 0.3));
        assert!(!check.fell_off_edge(DVec3::new(50.0, 0.0, -0.2), 0.3));
    }

    #[test]
    fn a_centre_inside_a_wall_has_escaped() {
        let wall = Collider::new(
            &Shape::Box {
                half_extents: DVec3::new(0.25, 5.0, 2.0),
            },
            Pose::IDENTITY,
        )
        .unwrap();
        let turned = Pose::new(
            DVec3::new(3.0, 0.0, 4.0),
            DQuat::from_rotation_y(std::f64::consts::FRAC_PI_4),
        );
        let check = EscapeCheck::new([ground(), (wall, turned)]);
        assert!(check.escaped(DVec3::new(3.0, 0.0, 4.0), 0.3));
        assert!(check.escaped(DVec3::new(3.1, 1.0, 4.1), 0.3));
        // In the wall's box but outside the tilted wall itself.
        assert!(!check.escaped(DVec3::new(4.2, 0.0, 3.0), 0.3));
    }

    #[test]
    fn bench_table_is_stripped_and_read() {
        let text = "[world]\nduration = 1.0\n\n[bench]\noutlet_z = 8\n\n[[bodies]]\nname = \"ball\"\n\
                    shape = { type = \"sphere\", radius = 0.1 }\nmass = 1.0\nposition = [0.0, 0.0, 1.0]\n";
        let b = parse(text, Path::new("t.toml")).unwrap();
        assert_eq!(b.outlet_z, Some(8.0));
        assert_eq!(b.scene.bodies.len(), 1);
        assert_eq!(b.scene.world.duration, 1.0);

        let plain = parse("[world]\nduration = 2.0\n", Path::new("t.toml")).unwrap();
        assert_eq!(plain.outlet_z, None);

        let bad = parse("[bench]\noutlet = 1.0\n", Path::new("t.toml")).unwrap_err();
        assert!(
            bad.message
                .contains("t.toml: [bench]: unknown key \"outlet\""),
            "{bad}"
        );
        let bad = parse("[bench]\noutlet_z = \"low\"\n", Path::new("t.toml")).unwrap_err();
        assert!(bad.message.contains("outlet_z must be a number"), "{bad}");
    }

    #[test]
    fn rates_are_counts_per_body_second_and_per_event() {
        let counts = Counts {
            collisions: 600,
            microcollisions: 200,
            held_resolutions: 200,
            heap_pops: 5000,
            toi_bounds: 20000,
            distance_queries: 3000,
            contact_steps: 10,
            resting_contacts: 1234,
            contact_iterations: 640,
            largest_island_sum: 90,
            island_steps: 3,
            ..Counts::default()
        };
        let r = Rates::of(&counts, 100, 2.0);
        assert_eq!(r.collisions_per_body_second, 3.0);
        assert_eq!(r.microcollisions_per_body_second, 1.0);
        assert_eq!(r.resolves_per_body_second, 1.0);
        assert_eq!(r.heap_pops_per_event, Some(5.0));
        assert_eq!(r.toi_bounds_per_event, Some(20.0));
        assert_eq!(r.distance_queries_per_event, Some(3.0));
        assert_eq!(r.contact_points_per_step, Some(123.4));
        assert_eq!(r.sweeps_per_step, Some(64.0));
        assert_eq!(r.mean_largest_island, Some(30.0));
        // Nothing to divide by: no figure rather than a NaN or an infinity.
        let none = Rates::of(&Counts::default(), 0, 0.0);
        assert_eq!(none.collisions_per_body_second, 0.0);
        assert_eq!(none.heap_pops_per_event, None);
        assert_eq!(none.sweeps_per_step, None);
    }

    #[test]
    fn medians() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0]), 2.5);
        assert_eq!(median(vec![]), 0.0);
    }
}
