//! Two balls, in closed form.

use super::contact::ContactPoint;
use glam::DVec3;

/// Two balls: closed form along the centre line.
pub(super) fn ball_ball(ca: DVec3, ra: f64, cb: DVec3, rb: f64) -> ContactPoint {
    let d = ca - cb;
    let dist = d.length();
    // Concentric balls have no preferred direction: +z, fixed for determinism.
    let n = if dist > 0.0 { d / dist } else { DVec3::Z };
    let on_a = ca - n * ra;
    let on_b = cb + n * rb;
    ContactPoint {
        position: (on_a + on_b) * 0.5,
        separation: dist - ra - rb,
        normal: n,
    }
}
