//! The settings a world runs with: fixed for the whole run, derived once from the scene's
//! `[world]` table, and cloned as a whole into the island worlds ([`super::islands`]).

use super::contact_band::BAND_STEP;
use crate::material::MaterialTable;
use crate::scene::{RestingContactMode, WorldSettings};
use glam::DVec3;

/// What a world runs with (see the module doc).
#[derive(Clone, Default)]
pub(super) struct Settings {
    pub(super) materials: MaterialTable,
    /// m/s².
    pub(super) gravity: DVec3,
    /// Output frame interval and swept-volume horizon t_f (s).
    pub(super) frame_period: f64,
    /// Collision tolerance ε_c (m).
    pub(super) epsilon: f64,
    /// Microcollision normal-speed threshold, sqrt(2 g ε_c) (Mirtich & Canny §4.5).
    pub(super) micro_speed: f64,
    /// Shortest hop return accepted as a bound (see `World::schedule`).
    pub(super) min_return_time: f64,
    /// Rest time before a supported, motionless body sleeps (s); 0: never.
    pub(super) sleep_time: f64,
    /// How far a body may move (m) and still count as at rest.
    pub(super) rest_distance: f64,
    /// Approach speed above which an impact wakes a sleeping body (m/s).
    pub(super) wake_speed: f64,
    /// How resting contacts are handled.
    pub(super) resting_mode: RestingContactMode,
    /// Shortest and longest contact step (s): `[world] contact_step` and `contact_step_max`.
    pub(super) contact_step_range: (f64, f64),
    /// Most Gauss–Seidel sweeps per contact step, and shock-propagation sweeps per level.
    pub(super) contact_sweeps: usize,
    pub(super) shock_sweeps: usize,
    /// `[world] contact_push = "split"`: shortfalls restored by push-outs kept for the step only.
    pub(super) split_push: bool,
    /// Whether a step's event loop may run on threads, one group of islands each.
    pub(super) parallel_islands: bool,
    /// Scale of the margin by which an island's limits exceed its bodies' swept boxes.
    pub(super) island_margin: f64,
    /// The LCP method's step, and its friction cone's directions.
    pub(super) time_step: f64,
    pub(super) friction_directions: usize,
    /// Whether every impulse is recorded ([`World::record_events`](super::World::record_events)).
    pub(super) record_events: bool,
}

impl Settings {
    /// The settings of a scene's `[world]` table, with its material table.
    pub(super) fn new(world: &WorldSettings, materials: MaterialTable) -> Settings {
        let g = world.gravity;
        let eps = world.collision_epsilon;
        // A hop shorter than the time to fall one band step is not trusted as a return.
        let delta = eps * BAND_STEP;
        Settings {
            materials,
            gravity: g,
            frame_period: world.frame_period,
            epsilon: eps,
            micro_speed: (2.0 * g.length() * eps).sqrt(),
            min_return_time: if g.length() > 0.0 {
                (2.0 * delta / g.length()).sqrt()
            } else {
                0.0
            },
            sleep_time: world.sleep_time,
            rest_distance: 3.0 * eps,
            wake_speed: 2.0 * (2.0 * g.length() * eps).sqrt(),
            resting_mode: world.resting_contact,
            contact_step_range: (
                world.contact_step,
                world.contact_step_max.unwrap_or(2.0 * world.contact_step),
            ),
            contact_sweeps: world.contact_sweeps,
            shock_sweeps: world.shock_sweeps,
            split_push: world.contact_push == crate::scene::ContactPush::Split,
            parallel_islands: true,
            island_margin: 1.0,
            record_events: false,
            time_step: world.time_step,
            friction_directions: world.friction_directions,
        }
    }
}
