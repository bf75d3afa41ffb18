//! What the engine can resolve in f64: the numbers behind the scene's sanity bounds
//! (`scene/limits.rs`; docs/scene-format.md, Sanity bounds), and the check that no body leaves
//! them during a run (a collision can spin a body up beyond anything the scene gave it).
//!
//! Each bound comes from the engine's numerics, not from the scenes it was tried on:
//! - **the clock**: times are f64 seconds, so near time `T` they are resolved to one ulp,
//!   `ε·T` (ε = 2⁻⁵²). Every interval the engine must tell apart (a frame, a contact step, the
//!   time a body takes to cross half the contact band) must span [`CLOCK_TICKS`] of them;
//! - **the geometry**: parry's GJK accepts a contact within `√(10 ε)` ([`GJK_TOLERANCE`]) of the
//!   pair's size, so a body larger than ε_c / `GJK_TOLERANCE` has its contacts decided coarser
//!   than the contact band; coordinates must resolve ε_c to [`CLOCK_TICKS`] ulps as well;
//! - **the work**: a torque-free asymmetric body is integrated in steps of 0.02 rad
//!   ([`crate::ballistic`]), so a spin costs in proportion to the angle it turns.

use super::stores::Stores;
use super::SimError;
use crate::body::Body;

/// Ulps of the clock that every interval the engine must resolve spans, at least: 2¹⁶, so that a
/// time within an interval is known to 1.5e-5 of it, and `T / t_f ≤ 2³⁶`, well inside the frame
/// grid's 1e-12 relative allowance (`World::frame_steps`).
pub const CLOCK_TICKS: f64 = 65536.0;

/// parry's GJK tolerance relative to a pair's support scale: `√(10 ε)` (parry's `eps_tol` is
/// 10 ε and its relative tolerance the square root of it). A pair touching within this fraction
/// of its size counts as touching.
pub const GJK_TOLERANCE: f64 = 4.712_160_915_387_242e-8;

/// Most a body's bounding radius may exceed ε_c: beyond `1 / GJK_TOLERANCE` (2.1e7) the
/// geometry decides contacts more coarsely than the contact band. Measured (ε_c = 1 mm): a cube
/// dropped on a fixed slab of half-width 10⁸ ε_c sinks 0.28 ε_c into it and lands elsewhere, at
/// 10⁹ ε_c it sinks 1.7 ε_c, at 10¹¹ ε_c it falls through; at 10⁷ ε_c the run is exact.
pub const MAX_SIZE_OVER_EPSILON: f64 = 1.0 / GJK_TOLERANCE;

/// Most a coordinate (a body's farthest point from the origin, on any axis) may exceed ε_c:
/// 2³⁶, so that a coordinate's ulp is at most ε_c / [`CLOCK_TICKS`].
pub const MAX_COORDINATE_OVER_EPSILON: f64 = 68_719_476_736.0;

/// Most a body may turn in one frame (rad): 1e4 rad, 5e5 integration steps of an asymmetric
/// body's rotation per frame (about 25 ms of work), four thousand times the fastest bundled
/// scene (the tippe-top, 2.5 rad per frame).
pub const MAX_TURN_PER_FRAME: f64 = 1e4;

/// The clock's resolution near time `t` (s): one ulp, to within a factor of 2.
pub fn clock_resolution(t: f64) -> f64 {
    f64::EPSILON * t.abs()
}

/// The shortest interval a run that ends at `end` (s) resolves: [`CLOCK_TICKS`] ulps of it.
pub fn shortest_interval(end: f64) -> f64 {
    CLOCK_TICKS * clock_resolution(end)
}

/// Most times a second a body may cross half the contact band: a pair near contact takes an
/// event (a bound, a distance) for each, so 1e9 is a quarter of an hour of work per simulated
/// second for one pair. The bundled scenes reach 8e5 (a pool ball at 8 m/s with ε_c = 10 µm).
pub const MAX_CROSSINGS_PER_SECOND: f64 = 1e9;

/// Why [`max_speed`] is what it is, for messages.
pub const SPEED_REASON: &str = "a body must take at least 2^16 ticks of the clock to cross half \
     the contact band, where the pair bounds stop it (faster, it crosses a thin body between two \
     ticks), and cross it at most 1e9 times a second (an event each)";

/// The largest speed (m/s) the engine resolves in a run to `end` with contact band `epsilon`: a
/// body must take at least [`shortest_interval`] to cross half the band, where the pair bounds
/// stop it (faster, it crosses a thin body between two ticks of the clock: it tunnels), and it
/// may cross it at most [`MAX_CROSSINGS_PER_SECOND`].
pub fn max_speed(epsilon: f64, end: f64) -> f64 {
    (0.5 * epsilon / shortest_interval(end)).min(0.5 * epsilon * MAX_CROSSINGS_PER_SECOND)
}

/// The largest spin (rad/s) with frames of `frame_period`: [`MAX_TURN_PER_FRAME`] per frame.
pub fn max_spin(frame_period: f64) -> f64 {
    MAX_TURN_PER_FRAME / frame_period
}

/// A body's fastest point speed bound: its centre's speed plus its spin times its reach.
pub fn surface_speed(body: &Body) -> f64 {
    magnitude(body.velocity) + magnitude(body.angular_velocity) * body.rotation_radius
}

/// `|v|` without overflow: 1e155 m/s squared is past f64's range, and the bound's message
/// should name the speed, not ∞.
pub fn magnitude(v: glam::DVec3) -> f64 {
    let m = v.abs().max_element();
    if m > 0.0 && m.is_finite() {
        m * (v / m).length()
    } else {
        m
    }
}

impl Stores {
    /// Whether body `i` (at `t`) moves within the run's limits (`Settings::motion_limits`);
    /// the error naming it otherwise. Only dynamic bodies are checked: a kinematic body's motion
    /// is the scene's, checked when it was read.
    pub(super) fn check_motion(&self, i: usize, t: f64) -> Result<(), SimError> {
        let b = &self.bodies[i];
        let (max_speed, max_spin) = self.settings.motion_limits;
        if !b.is_dynamic() {
            return Ok(());
        }
        let (speed, spin) = (surface_speed(b), magnitude(b.angular_velocity));
        let what = if spin > max_spin {
            format!(
                "spins at {spin:.3e} rad/s, beyond the {max_spin:.3e} rad/s the engine integrates \
                 ({MAX_TURN_PER_FRAME:e} rad per frame)"
            )
        } else if speed > max_speed {
            format!(
                "moves at {speed:.3e} m/s (its fastest point), beyond the {max_speed:.3e} m/s the \
                 engine resolves: {SPEED_REASON}"
            )
        } else {
            return Ok(());
        };
        Err(SimError::OutOfRange {
            body: b.name.clone(),
            time: t,
            what,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gjk_tolerance_is_parrys() {
        let parry = parry3d_f64::query::gjk::eps_tol().sqrt();
        assert!((GJK_TOLERANCE - parry).abs() <= 1e-15 * parry, "{parry:e}");
        assert_eq!(MAX_COORDINATE_OVER_EPSILON, 2f64.powi(36));
    }

    #[test]
    fn the_clock_resolves_what_the_bundled_scenes_ask() {
        // pool-break: ε_c = 1e-5 m over 0.3 s, balls at 8 m/s; the crossings bound it there.
        assert_eq!(max_speed(1e-5, 0.3), 0.5 * 1e-5 * MAX_CROSSINGS_PER_SECOND);
        assert!(max_speed(1e-5, 0.3) > 100.0 * 8.0);
        // A run of a day with ε_c = 1 mm: the clock bounds it.
        assert!(max_speed(1e-3, 86_400.0) < 0.5 * 1e-3 * MAX_CROSSINGS_PER_SECOND);
        // A contact step of 2.5 ms in a run of a day.
        assert!(shortest_interval(86_400.0) < 2.5e-3 / 1000.0);
        // contact_step = 5e-324 in a run of 5 s is not.
        assert!(shortest_interval(5.0) > 5e-324);
    }
}
