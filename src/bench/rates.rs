//! Per-event and per-body rates derived from a run's counters ([`Rates`]).

use crate::world::Counts;

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
    /// Wall time of the event loop per impulse event (µs): the event loop's cost per event.
    pub event_loop_us_per_event: Option<f64>,
    /// Wall time of the contact steps' sweeps per point-sweep (ns, on however many threads the
    /// run had): the contact step's cost per point.
    pub sweep_ns_per_point: Option<f64>,
    /// `method = "lcp"`: LCPs per time step, their mean size (rows), Lemke pivots per LCP.
    pub lcp_problems_per_step: Option<f64>,
    pub lcp_rows_per_problem: Option<f64>,
    pub lcp_pivots_per_problem: Option<f64>,
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
            mean_largest_island: per(counts.largest_island_sum, counts.island_plans),
            event_loop_us_per_event: None,
            sweep_ns_per_point: None,
            lcp_problems_per_step: per(counts.lcp_problems, counts.lcp_steps),
            lcp_rows_per_problem: per(counts.lcp_rows, counts.lcp_problems),
            lcp_pivots_per_problem: per(counts.lcp_pivots, counts.lcp_problems),
        }
    }

    /// With the wall-time rates from `stage_times` (the world's stage times, seconds by stage
    /// name) for the run of `counts`.
    pub fn with_stage_times(mut self, counts: &Counts, stage_times: &serde_json::Value) -> Rates {
        let stage = |name: &str| stage_times.get(name).and_then(serde_json::Value::as_f64);
        let events = counts.collisions + counts.microcollisions + counts.held_resolutions;
        let per =
            |t: Option<f64>, n: u64, unit: f64| t.filter(|_| n > 0).map(|t| t * unit / n as f64);
        self.event_loop_us_per_event = per(stage("event_loop"), events, 1e6);
        self.sweep_ns_per_point = per(stage("contact_sweeps"), counts.step_point_sweeps, 1e9);
        self
    }

    /// `(name, value)` rows for the figures table.
    pub(super) fn rows(&self) -> Vec<(String, String)> {
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
            (
                "rate event loop µs/event".into(),
                opt(self.event_loop_us_per_event),
            ),
            (
                "rate sweep ns/point-sweep".into(),
                opt(self.sweep_ns_per_point),
            ),
            ("rate LCPs/step".into(), opt(self.lcp_problems_per_step)),
            ("rate LCP rows/LCP".into(), opt(self.lcp_rows_per_problem)),
            ("rate pivots/LCP".into(), opt(self.lcp_pivots_per_problem)),
        ]
    }
}
