//! One run of a comparison: the scene by one method, run ([`Simulation::run`]) to each
//! comparison time in turn to record the dynamic bodies' states there.

use crate::body::BodyState;
use crate::scene::{Method, Scene};
use crate::simulation::{RunError, Simulation};
use crate::world::World;
use std::time::Instant;

/// What one run recorded.
#[derive(Clone, Debug)]
pub struct Run {
    pub method: Method,
    pub time_step: Option<f64>,
    /// Wall time of the simulation (s), the world built.
    pub wall_s: f64,
    pub max_penetration: f64,
    /// Kinetic plus gravitational energy at the start and the end (J).
    pub energy_start: f64,
    pub energy_end: f64,
    /// The dynamic bodies' states at each comparison time reached, in body order.
    pub samples: Vec<Vec<BodyState>>,
    /// The simulation error that ended the run early, if any.
    pub error: Option<String>,
}

/// Runs `scene` by `method` (with step `h` for the LCP method) and samples it at `times`
/// (ascending; the last is the end). The world stops exactly at each time: the event-driven
/// method ends a frame there, the LCP method shows its step's straight-line motion there.
pub fn run_method(scene: &Scene, method: Method, h: Option<f64>, times: &[f64]) -> Run {
    let mut scene = scene.clone();
    scene.world.config.method = method;
    if let Some(h) = h {
        scene.world.config.time_step = h;
    }
    let mut run = Run {
        method,
        time_step: h,
        wall_s: 0.0,
        max_penetration: 0.0,
        energy_start: 0.0,
        energy_end: 0.0,
        samples: Vec::new(),
        error: None,
    };
    let mut sim = match Simulation::new(&scene) {
        Ok(sim) => sim,
        Err(e) => {
            run.error = Some(e.to_string());
            return run;
        }
    };
    let world = sim.world();
    let dynamic: Vec<usize> = (0..world.body_count())
        .filter(|&i| world.body(i).is_dynamic())
        .collect();
    let energy = |w: &World| w.kinetic_energy() + w.potential_energy();
    run.energy_start = energy(world);
    let clock = Instant::now();
    for &t in times {
        if let Err(e) = sim.run(Some(t), &mut []) {
            run.error = Some(match e {
                // The world's own message, as compare.csv has always had it.
                RunError::Sim { error, .. } => error.to_string(),
                other => other.to_string(),
            });
            break;
        }
        let world = sim.world();
        run.samples
            .push(dynamic.iter().map(|&i| world.body_state(i)).collect());
    }
    run.wall_s = clock.elapsed().as_secs_f64();
    run.max_penetration = sim.world().max_penetration();
    run.energy_end = energy(sim.world());
    run
}
