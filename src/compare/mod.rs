//! `tumble compare`: one scene run by the event-driven method and by Stewart & Trinkle's
//! time-stepping at several steps, side by side: wall time, largest penetration, energy drift,
//! and the state error against the event-driven run (the reference) at given times and at the
//! scene's end.
//!
//! - `run`: one run, sampled at the comparison times;
//! - `report`: `compare.csv` and the printed table;
//! - `plot`: `compare.svg`, the state error against the step, log–log.

pub mod plot;
pub mod report;
pub mod run;

use crate::scene::{Method, Scene};
use run::{run_method, Run};

/// What to compare.
#[derive(Clone, Debug)]
pub struct CompareOptions {
    /// The methods listed (the event-driven run is made in any case: it is the reference).
    pub methods: Vec<Method>,
    /// The LCP method's time steps h (s).
    pub steps: Vec<f64>,
    /// Times (s) at which the states are compared, besides the end.
    pub at: Vec<f64>,
}

/// Why a comparison could not be made.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// Bad options (a step or time that is not a finite positive number, a time past the end).
    #[error("{0}")]
    Invalid(String),
    /// The reference run failed: there is nothing to compare with.
    #[error("the event-driven reference run failed: {0}")]
    Reference(String),
}

/// One row of the comparison: a run and its errors against the reference.
#[derive(Clone, Debug)]
pub struct CompareRow {
    /// The method and, for the LCP method, its step (s).
    pub method: Method,
    pub time_step: Option<f64>,
    /// Wall time of the run (s), largest penetration (m), energy at the end less at the start
    /// (J, kinetic plus gravitational).
    pub wall_s: f64,
    pub max_penetration: f64,
    pub energy_drift: f64,
    /// Per comparison time (the `at` times, then the end): the largest distance between a
    /// dynamic body's centre here and in the reference (m), and the largest difference of a
    /// linear or angular velocity component (m/s, rad/s).
    pub state_error: Vec<f64>,
    pub velocity_error: Vec<f64>,
    /// The simulation error that ended the run early, if any (its errors are then NaN).
    pub error: Option<String>,
}

/// The comparison: the times compared (the `at` times, then the end) and one row per run,
/// the reference first.
#[derive(Clone, Debug)]
pub struct Comparison {
    pub times: Vec<f64>,
    pub rows: Vec<CompareRow>,
}

/// Runs `scene` (to its `[world] duration`) by each method and step of `options`, and compares
/// each run's states with the event-driven run's.
pub fn compare(scene: &Scene, options: &CompareOptions) -> Result<Comparison, CompareError> {
    let end = scene.world.duration;
    for &h in &options.steps {
        if !(h.is_finite() && h > 0.0) {
            return Err(CompareError::Invalid(format!(
                "--steps: every step must be a finite number > 0 (got {h})"
            )));
        }
    }
    let mut times = Vec::new();
    for &t in &options.at {
        if !(t.is_finite() && t > 0.0 && t <= end) {
            return Err(CompareError::Invalid(format!(
                "--at: every time must be in (0, {end}] s, the scene's duration (got {t})"
            )));
        }
        times.push(t);
    }
    times.sort_by(f64::total_cmp);
    times.dedup();
    times.push(end);
    let reference = run_method(scene, Method::Event, None, &times);
    if let Some(e) = &reference.error {
        return Err(CompareError::Reference(e.clone()));
    }
    let mut rows = Vec::new();
    if options.methods.contains(&Method::Event) || !options.methods.contains(&Method::Lcp) {
        rows.push(row(&reference, &reference));
    }
    if options.methods.contains(&Method::Lcp) {
        for &h in &options.steps {
            let r = run_method(scene, Method::Lcp, Some(h), &times);
            rows.push(row(&r, &reference));
        }
    }
    Ok(Comparison { times, rows })
}

/// A run's row: its figures and its errors against `reference` at each sample.
fn row(r: &Run, reference: &Run) -> CompareRow {
    let mut state_error = Vec::new();
    let mut velocity_error = Vec::new();
    for (k, reference_states) in reference.samples.iter().enumerate() {
        match r.samples.get(k) {
            Some(states) => {
                let (mut x, mut v) = (0.0f64, 0.0f64);
                for (a, b) in states.iter().zip(reference_states) {
                    x = x.max((a.position - b.position).length());
                    v = v.max((a.velocity - b.velocity).abs().max_element()).max(
                        (a.angular_velocity - b.angular_velocity)
                            .abs()
                            .max_element(),
                    );
                }
                state_error.push(x);
                velocity_error.push(v);
            }
            None => {
                state_error.push(f64::NAN);
                velocity_error.push(f64::NAN);
            }
        }
    }
    CompareRow {
        method: r.method,
        time_step: r.time_step,
        wall_s: r.wall_s,
        max_penetration: r.max_penetration,
        energy_drift: r.energy_end - r.energy_start,
        state_error,
        velocity_error,
        error: r.error.clone(),
    }
}
