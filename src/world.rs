//! The world: bodies built from a scene, and the frame loop (API skeleton; implementation pending).

use crate::scene::{Motion, Scene, SceneError};
use glam::{DQuat, DVec3};

/// A body's state in its user frame (the frame its scene entry was written in).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct BodyState {
    /// Position of the shape frame's origin (m).
    pub position: DVec3,
    /// Orientation of the shape frame.
    pub orientation: DQuat,
    /// Velocity of the shape frame's origin (m/s).
    pub velocity: DVec3,
    /// Angular velocity (rad/s, world).
    pub angular_velocity: DVec3,
}

/// Event and work counters (summary.json `counts`).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Counts {
    /// Collisions resolved with the full impulse integration.
    pub collisions: u64,
    /// Microcollisions resolved with the velocity-reversing impulse (§4.5).
    pub microcollisions: u64,
    /// Time-of-impact bounds computed.
    pub toi_bounds: u64,
    /// Entries popped from the event heap (stale ones included).
    pub heap_pops: u64,
    /// Popped entries that were stale (a body had changed since the bound was computed).
    pub stale_pops: u64,
    /// Narrow-phase proximity queries.
    pub distance_queries: u64,
    /// Frames completed.
    pub frames: u64,
}

/// A failure during simulation.
#[derive(Clone, Debug, thiserror::Error)]
pub enum SimError {
    /// A body's state became NaN or infinite.
    #[error("body \"{body}\" has a non-finite state at t = {time} s")]
    NonFinite {
        /// The body's name.
        body: String,
        /// Simulated time (s).
        time: f64,
    },
}

/// The simulated world.
pub struct World {
    _private: (),
}

impl World {
    /// Builds the world from a validated scene: mass properties, colliders, initial-overlap check.
    pub fn new(scene: &Scene) -> Result<World, SceneError> {
        let _ = scene;
        todo!()
    }
    /// Current simulated time (s).
    pub fn time(&self) -> f64 {
        todo!()
    }
    /// Number of bodies (all motions).
    pub fn body_count(&self) -> usize {
        todo!()
    }
    /// Name of body `i`.
    pub fn body_name(&self, i: usize) -> &str {
        let _ = i;
        todo!()
    }
    /// Motion of body `i`.
    pub fn body_motion(&self, i: usize) -> Motion {
        let _ = i;
        todo!()
    }
    /// State of body `i` at the current world time, in its user frame.
    pub fn body_state(&self, i: usize) -> BodyState {
        let _ = i;
        todo!()
    }
    /// Advances one frame period, or less to stop exactly at `until` (s).
    pub fn step_frame(&mut self, until: f64) -> Result<(), SimError> {
        let _ = until;
        todo!()
    }
    /// Counters so far.
    pub fn counts(&self) -> &Counts {
        todo!()
    }
    /// Largest penetration depth seen at any event or frame (m, >= 0).
    pub fn max_penetration(&self) -> f64 {
        todo!()
    }
}
