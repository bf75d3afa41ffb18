//! The settings a world runs with: the engine's own configuration ([`WorldConfig`] and its
//! choices [`Method`], [`RestingContactMode`], [`ContactPush`]), and [`Settings`], derived from
//! it once, fixed for the whole run and cloned as a whole into the island stores
//! ([`super::islands`]).
//!
//! These are engine types: the scene format (`crate::scene`) reads its `[world]` table into a
//! [`WorldConfig`] and names the choices through them, so the file format depends on the engine
//! and never the reverse. How each is spelled in a scene file is the scene module's business
//! (`docs/scene-format.md`).

use super::contact_band::BAND_STEP;
use crate::material::MaterialTable;
use glam::DVec3;

/// How the world advances (a scene's `[world] method`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Method {
    /// Event-driven, impulse-based (Mirtich & Canny 1994). The default.
    #[default]
    Event,
    /// Stewart & Trinkle 1996's implicit time-stepping with an LCP per step.
    Lcp,
}

/// How a contact step pushes a resting contact that is nearer than its target separation back
/// towards it (a scene's `[world] contact_push`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ContactPush {
    /// By the contact rows' own bias: a separating velocity that stays. Gravity takes it back
    /// from a body resting on a support, but nothing takes it back sideways: touching balls
    /// on a frictionless floor drift apart. The default: a pile settles and sleeps sooner.
    #[default]
    Velocity,
    /// By a push-out the bodies keep for the step only (split impulses): positions move,
    /// velocities do not. Touching bodies stay at rest (a Newton's cradle on a floor); a
    /// jammed pile takes more sweeps and re-solves (docs/design.md, The push-out).
    Split,
}

/// How a jammed island is advanced (a scene's `[world] jammed_islands`): Mirtich 1996 §4.2's
/// paradigm shift, an island whose contacts collide over and over stepped as a whole.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum JammedIslands {
    /// An island the switch rule calls jammed takes each contact step as one simultaneous step
    /// (Bender & Schmitt 2006 §3.1–3.2: its collisions in rounds, then its contacts), and
    /// returns to events once it calms (docs/design.md, Jammed islands). The default.
    #[default]
    Step,
    /// Every collision is an event, in time order, everywhere.
    Events,
}

/// How resting contacts are handled (a scene's `[world] resting_contact`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RestingContactMode {
    /// Contacts resting at the start of a contact step are solved together as constraints over
    /// the step (Bender & Schmitt 2006, §3.2); collisions stay events. The default.
    #[default]
    Constraints,
    /// Every resting contact is a train of microcollisions (Mirtich & Canny 1994, §4.5).
    Microcollisions,
}

/// What a world is configured with, whatever it was read from (a scene file's `[world]` table
/// is converted into one by the scene module); the run's length is not part of it, it is the
/// caller's to keep.
#[derive(Clone, Debug, PartialEq)]
pub struct WorldConfig {
    /// Gravity (m/s²); z is up.
    pub gravity: DVec3,
    /// Swept-volume horizon t_f and output frame interval (s).
    pub frame_period: f64,
    /// Collision epsilon ε_c (m).
    pub collision_epsilon: f64,
    /// Rest time before a supported, motionless body sleeps (s); 0 disables sleeping.
    pub sleep_time: f64,
    /// How resting contacts are handled.
    pub resting_contact: RestingContactMode,
    /// Shortest length h of a contact step (s) when resting contacts are constraints; frames
    /// are split into steps no longer than the present length, which starts here.
    pub contact_step: f64,
    /// Longest contact step (s, ≥ `contact_step`; `None`: twice `contact_step`). Between the
    /// two the length doubles or halves per frame by the measured work of the contact steps
    /// against that of the local re-solves (see `Stores::adapt_step_length`); equal to
    /// `contact_step`, every step has that length.
    pub contact_step_max: Option<f64>,
    /// Most projected Gauss–Seidel sweeps per contact step (≥ 1).
    pub contact_sweeps: usize,
    /// Sweeps per level of the shock-propagation pass after them (0: none).
    pub shock_sweeps: usize,
    /// The time-stepping method.
    pub method: Method,
    /// [`Method::Lcp`]: the time step h (s), and the friction cone's directions.
    pub time_step: f64,
    pub friction_directions: usize,
    /// How a contact step restores a resting contact's shortfall below its target separation.
    pub contact_push: ContactPush,
    /// How a jammed island is advanced (constraint mode only).
    pub jammed_islands: JammedIslands,
}

impl Default for WorldConfig {
    /// The defaults (the scene format's too): gravity [0, 0, -9.81], frame period 0.02 s,
    /// collision epsilon 1 mm, sleep time 0.5 s, resting contacts as constraints over contact
    /// steps of 2.5 ms with 8 Gauss–Seidel sweeps and 4 shock-propagation sweeps per level (see
    /// docs/performance.md for both modes measured on the funnels).
    fn default() -> Self {
        WorldConfig {
            gravity: DVec3::new(0.0, 0.0, -9.81),
            frame_period: 0.02,
            collision_epsilon: 0.001,
            sleep_time: 0.5,
            resting_contact: RestingContactMode::Constraints,
            contact_step: 0.0025,
            contact_step_max: None,
            contact_sweeps: 8,
            shock_sweeps: 4,
            method: Method::Event,
            time_step: 0.01,
            friction_directions: 8,
            contact_push: ContactPush::Velocity,
            jammed_islands: JammedIslands::Step,
        }
    }
}

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
    /// Shortest hop return accepted as a bound (see `Stores::schedule`).
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
    /// Whether jammed islands are stepped (`jammed_islands = "step"`, constraint mode).
    pub(super) step_jams: bool,
    /// Whether a step's event loop may run on threads, one group of islands each.
    pub(super) parallel_islands: bool,
    /// Scale of the margin by which an island's limits exceed its bodies' swept boxes.
    pub(super) island_margin: f64,
    /// With frame stages on a device: the fewest contact points a contact step sweeps there,
    /// and the fewest points a collision round solves there (fewer: the host; see
    /// [`World::set_device_minimums`](super::World::set_device_minimums)).
    pub(super) device_minimums: (usize, usize),
    /// The LCP method's step, and its friction cone's directions.
    pub(super) time_step: f64,
    pub(super) friction_directions: usize,
    /// Whether every impulse is recorded ([`World::record_events`](super::World::record_events)).
    pub(super) record_events: bool,
    /// The largest speed (m/s, of a body's fastest point) and spin (rad/s) a dynamic body may
    /// reach (see `world/resolution.rs`); ∞ until the world is told its run's end.
    pub(super) motion_limits: (f64, f64),
    /// The wall-clock time past which a frame stops with [`super::SimError::OverBudget`]
    /// ([`World::set_deadline`](super::World::set_deadline)); not part of the physics.
    pub(super) deadline: Option<(std::time::Instant, f64)>,
}

/// The fewest contact points of a contact step swept on a device, and the fewest points of a
/// jammed island's collision round solved there: below them the host is faster on any device.
/// A device call costs a submission and a readback (about 0.1 ms on a GPU) and a few µs a
/// dispatch, one dispatch a colour and sweep (a step of 16 sweeps over 10 colours: about
/// 0.7 ms; a round's three phases of up to 32 sweeps: about 4 ms), against 70 ns a point-sweep
/// on the host's two cores for the contact sweeps (to about 12 ns on 16) and about 50 ns a
/// point-sweep for a round (one core). Provisional, like `auto`'s threshold, until measured on
/// a lent GPU (`benches/device_check.sh`); on lavapipe the device costs 22 ms a step or a round.
pub const DEVICE_MIN_POINTS: usize = 4096;
pub const DEVICE_MIN_ROWS: usize = 2048;

impl Settings {
    /// The settings of a world configured by `world`, with its material table.
    pub(super) fn new(world: &WorldConfig, materials: MaterialTable) -> Settings {
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
            split_push: world.contact_push == ContactPush::Split,
            step_jams: world.jammed_islands == JammedIslands::Step
                && world.resting_contact == RestingContactMode::Constraints,
            parallel_islands: true,
            island_margin: 1.0,
            device_minimums: (DEVICE_MIN_POINTS, DEVICE_MIN_ROWS),
            record_events: false,
            motion_limits: (f64::INFINITY, f64::INFINITY),
            time_step: world.time_step,
            friction_directions: world.friction_directions,
            deadline: None,
        }
    }
}
