//! Stage 1, `integrate`: advance every body from its own time to the frame start.
//! Shader: `shaders/integrate.wgsl`; one GPU thread = one call of [`integrate_one`].
//!
//! Between collisions a body moves ballistically and rotates torque-free (Mirtich & Canny 1994,
//! §3): dynamic bodies follow x += v dt + ½ g dt², v += g dt; kinematic bodies x += v dt with
//! constant ω and no gravity; fixed bodies stay put. Spherical bodies (equal principal moments)
//! keep ω constant, so q ← exp(ω dt) ⊗ q is exact. Other bodies integrate Euler's equations in the
//! body frame, I ω̇ + ω × (I ω) = 0, i.e. ω̇ = I⁻¹ ((I ω) × ω), together with q̇ = ½ q ⊗ (ω_b, 0),
//! by RK4 with a fixed number of sub-steps (at most [`RK4_MAX_ANGLE`] radians each, capped at
//! [`RK4_MAX_STEPS`]) and renormalise q. (Rejected: integrating q alone with the world angular
//! momentum held fixed conserves L exactly, but cannot represent axes of infinite inertia, for
//! which I ω is undefined.)
//!
//! The result is f32 and not authoritative: the host keeps its own f64 state.

use super::math::{quat_exp, quat_mul, quat_rotate, quat_rotate_inv};
use super::{FrameParams, StageBody, MOTION_FIXED, MOTION_KINEMATIC};
use glam::{Vec3, Vec4};
use rayon::prelude::*;

/// Largest rotation (rad) of one RK4 sub-step; the local error is then ~0.05⁵ ≈ 3·10⁻⁷, at f32's
/// resolution.
pub const RK4_MAX_ANGLE: f32 = 0.05;
/// Most RK4 sub-steps per body (beyond |ω| dt = 3.2 rad the step grows instead).
pub const RK4_MAX_STEPS: f32 = 64.0;

/// Body-frame angular momentum I ω; an axis of infinite inertia (inverse 0) contributes none (the
/// host keeps ω zero about such an axis).
fn body_momentum(inv_inertia: Vec3, w: Vec3) -> Vec3 {
    Vec3::select(inv_inertia.cmpgt(Vec3::ZERO), w / inv_inertia, Vec3::ZERO)
}

/// Euler's equations: ω̇ = I⁻¹ ((I ω) × ω).
fn euler_rate(inv_inertia: Vec3, w: Vec3) -> Vec3 {
    inv_inertia * body_momentum(inv_inertia, w).cross(w)
}

/// q̇ = ½ q ⊗ (ω_b, 0) for a body-frame angular velocity ω_b.
fn quat_rate(q: Vec4, w: Vec3) -> Vec4 {
    0.5 * quat_mul(q, w.extend(0.0))
}

/// Number of RK4 sub-steps for body-frame angular velocity `w` over `dt`.
fn rk4_steps(w: Vec3, dt: f32) -> f32 {
    (w.length() * dt.abs() / RK4_MAX_ANGLE)
        .ceil()
        .clamp(1.0, RK4_MAX_STEPS)
}

/// Body `ix` advanced to `params.frame_start` (its `time` set to it). Same statements as
/// `integrate_one` in `shaders/integrate.wgsl`.
pub fn integrate_one(ix: usize, params: &FrameParams, bodies: &[StageBody]) -> StageBody {
    let mut b = bodies[ix];
    let dt = params.frame_start - b.time;
    b.time = params.frame_start;
    if b.motion == MOTION_FIXED || dt == 0.0 {
        return b;
    }
    // The own box described the body at its old time and pose.
    b.has_own_box = 0;
    let position = Vec3::from(b.position);
    let velocity = Vec3::from(b.velocity);
    let omega = Vec3::from(b.angular_velocity);
    let orientation = Vec4::from(b.orientation);
    if b.motion == MOTION_KINEMATIC {
        b.position = (position + velocity * dt).into();
        b.orientation = quat_mul(quat_exp(omega, dt), orientation)
            .normalize()
            .into();
        return b;
    }
    // Dynamic: ballistic centre of mass.
    let g = Vec3::from(params.gravity);
    b.position = (position + velocity * dt + 0.5 * g * dt * dt).into();
    b.velocity = (velocity + g * dt).into();
    let inv = Vec3::from(b.inv_inertia);
    if inv.x == inv.y && inv.y == inv.z {
        b.orientation = quat_mul(quat_exp(omega, dt), orientation)
            .normalize()
            .into();
    } else {
        let mut q = orientation;
        let mut w = quat_rotate_inv(q, omega);
        let n = rk4_steps(w, dt);
        let h = dt / n;
        let mut s = 0.0;
        while s < n {
            let kq1 = quat_rate(q, w);
            let kw1 = euler_rate(inv, w);
            let q2 = q + 0.5 * h * kq1;
            let w2 = w + 0.5 * h * kw1;
            let kq2 = quat_rate(q2, w2);
            let kw2 = euler_rate(inv, w2);
            let q3 = q + 0.5 * h * kq2;
            let w3 = w + 0.5 * h * kw2;
            let kq3 = quat_rate(q3, w3);
            let kw3 = euler_rate(inv, w3);
            let q4 = q + h * kq3;
            let w4 = w + h * kw3;
            let kq4 = quat_rate(q4, w4);
            let kw4 = euler_rate(inv, w4);
            q = (q + (h / 6.0) * (kq1 + 2.0 * kq2 + 2.0 * kq3 + kq4)).normalize();
            w += (h / 6.0) * (kw1 + 2.0 * kw2 + 2.0 * kw3 + kw4);
            s += 1.0;
        }
        b.orientation = q.into();
        b.angular_velocity = quat_rotate(q, w).into();
    }
    b
}

/// Advances all `bodies` to `params.frame_start` in place, in parallel on the current rayon pool.
pub fn integrate(params: &FrameParams, bodies: &mut [StageBody]) {
    // The GPU reads and writes the same slot; here a copy of the input keeps `integrate_one`'s
    // (ix, inputs) → output shape without aliasing.
    let input = bodies.to_vec();
    bodies
        .par_iter_mut()
        .with_min_len(256)
        .enumerate()
        .for_each(|(ix, out)| *out = integrate_one(ix, params, &input));
}
