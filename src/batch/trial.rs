//! One trial: the scene with the trial's drawn values, simulated until every dynamic body sleeps
//! (or to the duration), and the classified body's resting pose read off its final orientation.

use super::draw::{apply, draw, trial_seed};
use super::poses::{classify, PoseTable};
use crate::body::BodyState;
use crate::gpu::Backend;
use crate::scene::{BatchSpec, Scene};
use crate::simulation::{FrameSink, RunError, Simulation, SinkError};
use crate::world::World;
use glam::DVec3;
use std::ops::ControlFlow;
use std::time::Instant;

/// What one trial gives.
#[derive(Clone, Debug)]
pub struct TrialResult {
    /// The trial's index (0-based, over the whole batch).
    pub trial: u64,
    /// Its seed ([`trial_seed`]).
    pub seed: u64,
    /// The drawn values, one per `trials.csv` column of `[[batch.vary]]`.
    pub values: Vec<f64>,
    /// The simulation's outcome, or why the trial failed (it fails alone: the batch goes on).
    pub outcome: Result<Outcome, String>,
    /// Wall time of the trial (s).
    pub wall_time: f64,
}

/// A trial that ran to its end.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// The classified body's pose id, if it came to rest on a stable face.
    pub pose: Option<usize>,
    /// The outward normal (body frame) of the face it rests on, if it came to rest.
    pub normal: Option<DVec3>,
    /// When it came to rest (s): when it last fell asleep, or the end of a run without sleeping.
    pub rest_time: Option<f64>,
    /// The classified body's final state (user frame).
    pub state: Option<BodyState>,
    /// Largest penetration seen (m).
    pub max_penetration: f64,
    /// Full collisions (eq. 9 integrations).
    pub collisions: u64,
    /// The final states of `[batch] record`'s bodies, in its order.
    pub recorded: Vec<BodyState>,
}

/// Runs trial `trial` of `spec` on `scene`. `table`: the classified body's poses (with
/// `spec.classify`). Never panics: a failure (a scene the draws made invalid, a simulation
/// error, a panic) is the trial's outcome.
pub fn run_trial(
    scene: &Scene,
    spec: &BatchSpec,
    table: Option<&PoseTable>,
    backend: &Backend,
    batch_seed: u64,
    trial: u64,
) -> TrialResult {
    let clock = Instant::now();
    let seed = trial_seed(batch_seed, trial);
    let values = draw(spec, seed);
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        simulate(scene, spec, table, backend, &values)
    }))
    .unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("unknown panic");
        Err(format!("panicked: {what}"))
    });
    TrialResult {
        trial,
        seed,
        values,
        outcome,
        wall_time: clock.elapsed().as_secs_f64(),
    }
}

fn simulate(
    scene: &Scene,
    spec: &BatchSpec,
    table: Option<&PoseTable>,
    backend: &Backend,
    values: &[f64],
) -> Result<Outcome, String> {
    let mut scene = scene.clone();
    apply(&mut scene, spec, values)?;
    let mut world = World::new(&scene).map_err(|e| e.message)?;
    backend.install(&mut world);
    // A budget too large for a Duration is no budget.
    world.set_deadline(std::time::Duration::try_from_secs_f64(spec.trial_budget).ok());
    let mut sim = Simulation::from_world(world, &scene).map_err(|e| e.message)?;
    let sleeps = scene.world.config.sleep_time > 0.0;
    let world = sim.world();
    let mut watch = RestWatch {
        classified: spec.classify,
        asleep_since: None,
        dynamic: (0..world.body_count())
            .filter(|&i| world.body(i).is_dynamic())
            .collect(),
        stop_at_rest: spec.until_rest && sleeps,
    };
    sim.run(None, &mut [&mut watch]).map_err(|e| match e {
        // The world's own message, as trials.csv has always had it.
        RunError::Sim { error, .. } => error.to_string(),
        other => other.to_string(),
    })?;
    let world = sim.world();
    let classified = spec.classify;
    let asleep_since = watch.asleep_since;
    let mut outcome = Outcome {
        max_penetration: world.max_penetration(),
        collisions: world.counts().collisions,
        recorded: spec.record.iter().map(|&i| world.body_state(i)).collect(),
        ..Outcome::default()
    };
    if let Some(c) = classified {
        let state = world.body_state(c);
        outcome.state = Some(state);
        // At rest: asleep, or, where the scene never sleeps, slower at its end than a
        // microcollision (Mirtich & Canny §4.5), turning included.
        let body = world.body(c);
        let micro = (2.0 * world.gravity().length() * scene.world.config.collision_epsilon).sqrt();
        let slow = body.velocity.length() < micro
            && body.angular_velocity.length() * body.bounding_radius < micro;
        let rest_time = if sleeps {
            asleep_since
        } else {
            slow.then_some(world.time())
        };
        if let (Some(t), Some(table)) = (rest_time, table) {
            let down = world.gravity().normalize_or_zero();
            let (pose, face) = classify(table, state.orientation, down);
            outcome.pose = pose;
            outcome.normal = Some(table.faces[face].normal);
            outcome.rest_time = Some(t);
        }
    }
    Ok(outcome)
}

/// Watches a trial's frames: when the classified body last fell asleep, and, for a trial that
/// runs until rest, whether every dynamic body sleeps (then the trial ends).
struct RestWatch {
    classified: Option<usize>,
    /// When the classified body fell asleep and has slept since (s).
    asleep_since: Option<f64>,
    dynamic: Vec<usize>,
    /// `[batch] until_rest` in a scene whose bodies sleep.
    stop_at_rest: bool,
}

impl FrameSink for RestWatch {
    fn frame(&mut self, world: &mut World) -> Result<ControlFlow<()>, SinkError> {
        if let Some(c) = self.classified {
            if world.body(c).asleep {
                self.asleep_since.get_or_insert(world.time());
            } else {
                self.asleep_since = None;
            }
        }
        if self.stop_at_rest && self.dynamic.iter().all(|&i| world.body(i).asleep) {
            return Ok(ControlFlow::Break(()));
        }
        Ok(ControlFlow::Continue(()))
    }
}
