//! The reports of a bench, serialised as its JSON report: one run's figures ([`RunReport`]) and
//! the bench's ([`BenchReport`]), whose timing figures are the medians over the runs.

use super::{BenchOptions, PerContactPointStep, Quality, Rates, SecondRow};
use crate::event_loop_allocations::Allocations;
use crate::scene::Scene;
use crate::world::Counts;

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
    /// The wall time and each stage's per contact point-step (µs).
    pub per_contact_point_step: PerContactPointStep,
    /// The quality figures.
    #[serde(flatten)]
    pub quality: Quality,
    /// The run's frames summed per simulated second
    /// ([`Timeline::by_second`](super::Timeline::by_second)).
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
    /// The device's share of the wall time: the frame stages' calls, the contact sweeps and
    /// the collision rounds on the device (`frame_stages` + `device_sweeps` + `device_rounds`,
    /// each from upload to readback) over the wall time; `None` on the CPU backend.
    pub device_share: Option<f64>,
    /// The first run's counters.
    pub counts: Counts,
    /// Rates derived from the first run's counters.
    pub rates: Rates,
    /// The medians over the runs of the wall time and each stage's per contact point-step (µs).
    pub per_contact_point_step: PerContactPointStep,
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

/// [`BenchReport::device_share`] of a run on `options`' backend with `stage_times` and
/// `wall_time`.
fn device_share(
    options: &BenchOptions,
    stage_times: &serde_json::Value,
    wall_time: f64,
) -> Option<f64> {
    let stage = |name: &str| {
        stage_times
            .get(name)
            .and_then(serde_json::Value::as_f64)
            .unwrap_or(0.0)
    };
    (options.backend == "gpu" && wall_time > 0.0).then(|| {
        (stage("frame_stages") + stage("device_sweeps") + stage("device_rounds")) / wall_time
    })
}

/// The medians of the timing figures; counters and quality from the first run.
pub(super) fn summarise(
    scene: &Scene,
    options: &BenchOptions,
    runs: Vec<RunReport>,
) -> BenchReport {
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
    let stage_times = median_stage_times(&runs);
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
        device_share: device_share(options, &stage_times, median_of(&|r| r.wall_time)),
        stage_times: stage_times.clone(),
        counts: first.counts.clone(),
        rates: Rates::of(&first.counts, scene.motion_counts().0, first.sim_time)
            .with_stage_times(&first.counts, &stage_times),
        per_contact_point_step: PerContactPointStep::median_of(
            &runs
                .iter()
                .map(|r| &r.per_contact_point_step)
                .collect::<Vec<_>>(),
        ),
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
            stepped_islands: at(k, |s| s.stepped_islands),
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
pub(super) fn median(mut values: Vec<f64>) -> f64 {
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
