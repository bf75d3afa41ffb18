//! What the experiments share: loading a bundled scene of `scenes/experiments/`, running it
//! frame by frame with a record of every dynamic body, and small geometric readings.
#![allow(dead_code)]

use glam::{DQuat, DVec3};
use std::path::PathBuf;
use tumble::body::BodyState;
use tumble::scene::{RestingContactMode, Scene};
use tumble::world::World;

/// `scenes/experiments/<file>`, loaded and checked.
pub fn scene(file: &str) -> Scene {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("scenes/experiments")
        .join(file);
    tumble::scene::load(&path).unwrap_or_else(|e| panic!("{}", e.message))
}

/// The same scene with its resting contacts handled the other way.
pub fn with_mode(mut scene: Scene, mode: RestingContactMode) -> Scene {
    scene.world.config.resting_contact = mode;
    scene
}

/// One frame of a run: the time, every body's state (in its user frame, index as in the world)
/// and the world's energies.
pub struct Frame {
    pub t: f64,
    pub states: Vec<BodyState>,
    pub kinetic: f64,
    pub potential: f64,
}

/// A recorded run.
pub struct Record {
    pub world: World,
    pub frames: Vec<Frame>,
    /// Wall time of the run (s).
    pub wall: f64,
}

impl Record {
    /// The index of the body called `name`.
    pub fn index(&self, name: &str) -> usize {
        self.world
            .body_index(name)
            .unwrap_or_else(|| panic!("no body {name}"))
    }

    /// `(t, f(state))` of body `i` over the run.
    pub fn series(&self, i: usize, f: impl Fn(&BodyState) -> f64) -> Vec<(f64, f64)> {
        self.frames
            .iter()
            .map(|fr| (fr.t, f(&fr.states[i])))
            .collect()
    }

    /// The first frame at or after `t`.
    pub fn at(&self, t: f64) -> &Frame {
        self.frames
            .iter()
            .find(|f| f.t >= t - 1e-9)
            .unwrap_or_else(|| self.frames.last().unwrap())
    }
}

fn frame(world: &World) -> Frame {
    Frame {
        t: world.time(),
        states: (0..world.body_count())
            .map(|i| world.body_state(i))
            .collect(),
        kinetic: world.kinetic_energy(),
        potential: world.potential_energy(),
    }
}

/// Runs `scene` for its whole duration (or `duration` when given), recording every frame.
pub fn run(scene: &Scene, duration: Option<f64>) -> Record {
    let t_end = duration.unwrap_or(scene.world.duration);
    let mut world = World::new(scene).unwrap_or_else(|e| panic!("{}", e.message));
    let mut frames = vec![frame(&world)];
    let start = std::time::Instant::now();
    while world.time() < t_end - 1e-12 {
        world.step_frame(t_end).expect("simulation failed");
        frames.push(frame(&world));
    }
    let wall = start.elapsed().as_secs_f64();
    Record {
        world,
        frames,
        wall,
    }
}

/// Angle (rad) between the body's local z axis and the world's z axis.
pub fn tilt(q: DQuat) -> f64 {
    (q * DVec3::Z).dot(DVec3::Z).clamp(-1.0, 1.0).acos()
}

/// Linear interpolation of the time at which `series` first rises through `level`.
pub fn first_crossing(series: &[(f64, f64)], level: f64) -> Option<f64> {
    series.windows(2).find_map(|w| {
        let ((t0, y0), (t1, y1)) = (w[0], w[1]);
        (y0 < level && y1 >= level).then(|| t0 + (level - y0) / (y1 - y0) * (t1 - t0))
    })
}
