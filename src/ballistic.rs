//! Ballistic (collision-free) motion in closed form or accurate integration.
//!
//! Between collisions a dynamic body's centre of mass follows a parabola under gravity and its
//! rotation is torque free (Mirtich & Canny 1994, §2–3: "ballistic trajectories"):
//! - spherical inertia (balls, cubes): `ω` is constant and `q(t) = exp(ω t / 2) q₀` exactly;
//! - axisymmetric inertia (coins, cylinders, tops): regular precession, exactly: the body turns
//!   about the fixed angular momentum `L` at `|L|/I₁` and about its own axis at
//!   `ω₃ (I₁ − I₃)/I₁` (`q(t) = exp(L t / 2I₁) q₀ exp(λ t e₃ / 2)`);
//! - otherwise Euler's equations `I ω̇ + ω × (I ω) = 0` in the body frame are integrated with RK4
//!   in steps of at most 0.02 rad of rotation, and the world angular momentum — exactly conserved
//!   in torque-free motion — is imposed again after each advance, so momentum never drifts.
//!
//! Kinematic bodies move with constant `v` and `ω` (no gravity), or follow a prescribed path
//! ([`crate::kinematic_path`]). Fixed bodies never move.

use glam::{DQuat, DVec3};

/// Rotation angle per RK4 sub-step for asymmetric bodies (rad). Local error per step is
/// O(θ⁵): 0.02 rad keeps the relative error of a full turn near 1e-9.
const MAX_STEP_ANGLE: f64 = 0.02;

/// Most RK4 sub-steps of one advance: a body within the scene's spin bound
/// ([`crate::world::resolution::MAX_TURN_PER_FRAME`]) needs at most 5e5 over a frame. A body an
/// impulse spun beyond it is integrated coarsely up to the next check, which stops the run,
/// rather than for ever (an infinite spin would ask for `usize::MAX` sub-steps).
const MAX_STEPS: f64 = 1_048_576.0;

/// For principal moments of which exactly two are equal to 1e-12 relative (an axisymmetric
/// body): the body-frame symmetry axis, the equal (transverse) moment and the axial one.
pub fn symmetric_axis(inertia: DVec3) -> Option<(DVec3, f64, f64)> {
    let tol = 1e-12 * inertia.max_element();
    let close = |x: f64, y: f64| (x - y).abs() <= tol;
    if close(inertia.x, inertia.y) {
        Some((DVec3::Z, inertia.x, inertia.z))
    } else if close(inertia.y, inertia.z) {
        Some((DVec3::X, inertia.y, inertia.x))
    } else if close(inertia.x, inertia.z) {
        Some((DVec3::Y, inertia.x, inertia.y))
    } else {
        None
    }
}

/// True if the three principal moments are equal to 1e-12 relative (spherical inertia).
pub fn is_spherical(inertia: DVec3) -> bool {
    let max = inertia.max_element();
    let min = inertia.min_element();
    max - min <= 1e-12 * max
}

/// Position and velocity after `dt` under constant acceleration `g` (exact).
pub fn advance_linear(position: DVec3, velocity: DVec3, g: DVec3, dt: f64) -> (DVec3, DVec3) {
    (
        position + velocity * dt + 0.5 * g * dt * dt,
        velocity + g * dt,
    )
}

/// `exp(ω dt) q`: rotation at constant world angular velocity (exact).
pub fn rotate_constant(q: DQuat, omega: DVec3, dt: f64) -> DQuat {
    let angle = omega * dt;
    if angle == DVec3::ZERO {
        return q;
    }
    (DQuat::from_scaled_axis(angle) * q).normalize()
}

/// Torque-free rotation of a body with principal moments `inertia` (body frame = principal axes)
/// from orientation `q` and world angular velocity `omega` over `dt`.
/// Returns the new orientation and world angular velocity.
pub fn advance_rotation(q: DQuat, omega: DVec3, inertia: DVec3, dt: f64) -> (DQuat, DVec3) {
    if dt == 0.0 || omega == DVec3::ZERO {
        return (q, omega);
    }
    if is_spherical(inertia) {
        return (rotate_constant(q, omega, dt), omega);
    }
    // World angular momentum: invariant of torque-free motion.
    let l_world = q * (inertia * (q.inverse() * omega));
    if let Some((axis, transverse, axial)) = symmetric_axis(inertia) {
        // Regular precession: ω = L/I₁ + λ·a with a the symmetry axis, and the two rotations
        // (about the fixed L in the world, about a in the body) commute.
        let spin = (q.inverse() * omega).dot(axis) * (transverse - axial) / transverse;
        let q = (DQuat::from_scaled_axis(l_world * (dt / transverse))
            * q
            * DQuat::from_scaled_axis(axis * (spin * dt)))
        .normalize();
        return (q, q * ((q.inverse() * l_world) / inertia));
    }
    // Not `clamp`: a NaN spin takes one step, as it always has (its state is reported as not
    // finite at the step's end).
    #[allow(clippy::manual_clamp)]
    let steps = ((omega.length() * dt.abs()) / MAX_STEP_ANGLE)
        .ceil()
        .max(1.0)
        .min(MAX_STEPS) as usize;
    let h = dt / steps as f64;
    let mut q = q;
    let mut wb = q.inverse() * omega;
    // State: orientation q and body angular velocity wb.
    // q̇ = ½ q ⊗ (0, ω_b);  I ω̇_b = (I ω_b) × ω_b.
    let deriv = |q: DQuat, wb: DVec3| -> (DQuat, DVec3) {
        let qd = q * DQuat::from_xyzw(wb.x, wb.y, wb.z, 0.0) * 0.5;
        let wd = (inertia * wb).cross(wb) / inertia;
        (qd, wd)
    };
    let add = |q: DQuat, dq: DQuat, s: f64| -> DQuat {
        DQuat::from_xyzw(
            q.x + dq.x * s,
            q.y + dq.y * s,
            q.z + dq.z * s,
            q.w + dq.w * s,
        )
    };
    for _ in 0..steps {
        let (q1, w1) = deriv(q, wb);
        let (q2, w2) = deriv(add(q, q1, 0.5 * h), wb + w1 * (0.5 * h));
        let (q3, w3) = deriv(add(q, q2, 0.5 * h), wb + w2 * (0.5 * h));
        let (q4, w4) = deriv(add(q, q3, h), wb + w3 * h);
        let dq = DQuat::from_xyzw(
            q1.x + 2.0 * q2.x + 2.0 * q3.x + q4.x,
            q1.y + 2.0 * q2.y + 2.0 * q3.y + q4.y,
            q1.z + 2.0 * q2.z + 2.0 * q3.z + q4.z,
            q1.w + 2.0 * q2.w + 2.0 * q3.w + q4.w,
        );
        q = add(q, dq, h / 6.0).normalize();
        wb += (w1 + 2.0 * w2 + 2.0 * w3 + w4) * (h / 6.0);
    }
    // Re-impose the conserved world angular momentum: ω = R I⁻¹ Rᵀ L.
    let omega = q * ((q.inverse() * l_world) / inertia);
    (q, omega)
}

/// Upper bound on `|ω|` over a torque-free flight ([`spin_bound`]'s `max_speed`).
pub fn max_angular_speed(q: DQuat, omega: DVec3, inertia: DVec3) -> f64 {
    spin_bound(q, omega, inertia).max_speed
}

/// Relative error in the rotational energy that [`spin_bound`] allows for: the integrator of
/// [`advance_rotation`] keeps the angular momentum exactly and the energy to about 1e-7 over
/// 750 RK4 steps.
const ENERGY_SLACK: f64 = 1e-6;

/// Bounds on the angular velocity over a torque-free flight.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SpinBound {
    /// Upper bound on `|ω|` (rad/s).
    pub max_speed: f64,
    /// The part of `ω` along the angular momentum `L`, `(ω·L) L / |L|² = 2E L / |L|²`: constant
    /// over the flight, since `ω·L = 2E` and `L` are (world frame, rad/s).
    pub steady: DVec3,
    /// Upper bound on the rest of `ω`, across `L` (rad/s): `ω(t)` stays within this of
    /// `steady`.
    pub wobble: f64,
    /// Upper bound on how fast the body's shape turns: `|ω|` less its part about the shape's
    /// axis of symmetry, for a body symmetric about a principal axis with the other two
    /// moments equal (see [`shape_turn`]); ∞ otherwise.
    pub shape_turn: f64,
}

impl SpinBound {
    /// A bound that says only `|ω| ≤ max_speed`.
    pub fn speed_only(max_speed: f64) -> Self {
        SpinBound {
            max_speed,
            steady: DVec3::ZERO,
            wobble: max_speed,
            shape_turn: f64::INFINITY,
        }
    }
}

/// Bounds on `ω` over a torque-free flight from orientation `q`, world angular velocity
/// `omega` and principal moments `inertia`. With `x_k = ω_k²` in the body frame, the flight
/// keeps `Σ I_k x_k = 2E` and `Σ I_k² x_k = |L|²`, so `|ω|² = Σ x_k` is at most the largest
/// value of a linear function on a segment of the positive octant: at one of its ends, where
/// one `x_k` is 0 (the polhode's widest point). That is exact, where the energy alone
/// (`|ω|² ≤ 2E / I_min`) overestimates a spin about the largest axis by `sqrt(I_max / I_min)`
/// (4.5× for the rattleback). The energy is allowed [`ENERGY_SLACK`] either way.
pub fn spin_bound(q: DQuat, omega: DVec3, inertia: DVec3) -> SpinBound {
    if is_spherical(inertia) {
        let w = omega.length();
        return SpinBound {
            max_speed: w,
            steady: omega,
            wobble: 0.0,
            shape_turn: f64::INFINITY,
        };
    }
    let wb = q.inverse() * omega;
    let lb = inertia * wb;
    let two_e = lb.dot(wb);
    let l2 = lb.length_squared();
    if two_e <= 0.0 || l2 <= 0.0 {
        return SpinBound::speed_only(0.0);
    }
    let moments = inertia.to_array();
    let mut best = wb.length_squared();
    for two_e in [two_e * (1.0 - ENERGY_SLACK), two_e * (1.0 + ENERGY_SLACK)] {
        let energy_only = two_e / inertia.min_element();
        let tolerance = 1e-9 * energy_only;
        for (i, j) in [(0, 1), (0, 2), (1, 2)] {
            let (a, b) = (moments[i], moments[j]);
            if (b - a).abs() <= 1e-9 * b {
                continue; // equal moments: the other two ends bound the segment
            }
            // a x_i + b x_j = 2E and a² x_i + b² x_j = |L|².
            let xi = (two_e * b - l2) / (a * (b - a));
            let xj = (l2 - two_e * a) / (b * (b - a));
            if xi >= -tolerance && xj >= -tolerance {
                best = best.max(xi.max(0.0) + xj.max(0.0));
            }
        }
    }
    let energy_only = two_e * (1.0 + ENERGY_SLACK) / inertia.min_element();
    let max_speed = best.min(energy_only).sqrt() * (1.0 + 1e-12);
    let steady = (q * lb) * (two_e / l2);
    // |ω − steady|² = |ω|² − (2E(t)/2E)·2|steady|² + |steady|², with the energy within its slack.
    let across =
        (max_speed * max_speed - steady.length_squared() * (1.0 - 2.0 * ENERGY_SLACK)).max(0.0);
    SpinBound {
        max_speed,
        steady,
        wobble: across.sqrt() + 1e-9 * max_speed,
        shape_turn: f64::INFINITY,
    }
}

/// Upper bound over a torque-free flight on `|ω|` less its part about `axis` (body frame,
/// unit), the shape's axis of symmetry: turning about that axis moves none of the surface. For
/// spherical inertia ω is constant; for a principal `axis` whose two other moments are equal
/// (to 1e-12) Euler's equations keep `ω`'s body-frame part along it constant, and so the rest's
/// length. The integrator's drift is allowed 1e-6 of `|ω|`. ∞ for any other body.
pub fn shape_turn(axis: DVec3, q: DQuat, omega: DVec3, inertia: DVec3) -> f64 {
    let wb = q.inverse() * omega;
    let across = (wb - axis * wb.dot(axis)).length();
    let margin = 1e-6 * wb.length();
    if is_spherical(inertia) {
        return across + margin;
    }
    let moments = inertia.to_array();
    for k in 0..3 {
        let (i, j) = ((k + 1) % 3, (k + 2) % 3);
        let equal = (moments[i] - moments[j]).abs() <= 1e-12 * moments[i].max(moments[j]);
        if equal && axis[k].abs() >= 1.0 - 1e-9 {
            return across + margin;
        }
    }
    f64::INFINITY
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spherical_rotation_is_exact() {
        let q = DQuat::IDENTITY;
        let w = DVec3::new(0.0, 0.0, std::f64::consts::PI);
        let (q1, w1) = advance_rotation(q, w, DVec3::ONE, 1.0);
        assert!((q1 * DVec3::X + DVec3::X).length() < 1e-12);
        assert_eq!(w1, w);
    }

    /// The closed form for axisymmetric bodies against Euler's equations integrated finely
    /// (the same moments split by 1e-9, which the closed form does not take), a coin's and a
    /// long rod's, about every axis, over a long flight.
    #[test]
    fn symmetric_rotation_is_regular_precession() {
        let cases = [
            (DVec3::new(1.0, 1.0, 2.0), DVec3::new(3.0, -2.0, 40.0)),
            (DVec3::new(5.0, 1.0, 5.0), DVec3::new(0.7, 9.0, -1.5)),
            (DVec3::new(0.2, 3.0, 3.0), DVec3::new(12.0, 0.3, 2.0)),
        ];
        for (inertia, w0) in cases {
            let q0 = DQuat::from_rotation_x(0.4) * DQuat::from_rotation_z(1.1);
            let (q1, w1) = advance_rotation(q0, w0, inertia, 2.0);
            let split = inertia * DVec3::new(1.0, 1.0 + 1e-9, 1.0 + 2e-9);
            let (q2, w2) = advance_rotation(q0, w0, split, 2.0);
            let angle = 2.0 * q1.dot(q2).abs().min(1.0).acos();
            println!(
                "{inertia}: closed form against integration {angle:.2e} rad, ω {:.2e}",
                (w1 - w2).length()
            );
            assert!(angle < 1e-6, "{inertia}: {angle}");
            assert!((w1 - w2).length() < 1e-6 * w0.length());
            // Energy and angular momentum are those of the start.
            let l = |q: DQuat, w: DVec3| q * (inertia * (q.inverse() * w));
            assert!((l(q1, w1) - l(q0, w0)).length() < 1e-12 * l(q0, w0).length());
        }
    }

    #[test]
    fn asymmetric_rotation_conserves_momentum_and_energy() {
        let inertia = DVec3::new(1.0, 2.0, 3.0);
        let q0 = DQuat::from_rotation_x(0.3);
        let w0 = DVec3::new(0.1, 5.0, 0.2);
        let l0 = q0 * (inertia * (q0.inverse() * w0));
        let e0 = (inertia * (q0.inverse() * w0)).dot(q0.inverse() * w0);
        let (q1, w1) = advance_rotation(q0, w0, inertia, 3.0);
        let wb = q1.inverse() * w1;
        let l1 = q1 * (inertia * wb);
        let e1 = (inertia * wb).dot(wb);
        assert!((l1 - l0).length() < 1e-12 * l0.length());
        assert!((e1 - e0).abs() < 1e-7 * e0, "{e0} {e1}");
        // Advancing in two halves gives the same answer as one step.
        let (qa, wa) = advance_rotation(q0, w0, inertia, 1.5);
        let (qb, wb2) = advance_rotation(qa, wa, inertia, 1.5);
        assert!((qb.dot(q1)).abs() > 1.0 - 1e-10);
        assert!((wb2 - w1).length() < 1e-6);
        assert!(max_angular_speed(q0, w0, inertia) >= w1.length());
    }

    /// Long torque-free flights, near-degenerate and very unequal moments, stay within the spin
    /// bound at every instant, and the bound is tight: the flight comes close to it.
    #[test]
    fn spin_bound_holds_over_torque_free_flights() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut closest: f64 = 0.0;
        for case in 0..40 {
            let inertia = match case % 4 {
                0 => DVec3::new(9.9e-6, 1.921e-4, 1.973e-4), // the rattleback's
                1 => DVec3::new(1.0, 1.0001, 3.0),
                2 => DVec3::new(1.0, 2.0, 3.0),
                _ => DVec3::new(
                    rng.random_range(0.1..1.0),
                    rng.random_range(0.1..1.0),
                    rng.random_range(0.1..1.0),
                ),
            };
            let q = DQuat::from_euler(
                glam::EulerRot::XYZ,
                rng.random_range(-3.0..3.0),
                rng.random_range(-3.0..3.0),
                rng.random_range(-3.0..3.0),
            );
            let w = DVec3::new(
                rng.random_range(-3.0..3.0),
                rng.random_range(-3.0..3.0),
                rng.random_range(-20.0..20.0),
            );
            let bound = spin_bound(q, w, inertia);
            assert!(bound.max_speed <= max_energy_only(q, w, inertia) * (1.0 + 1e-9));
            let (mut qt, mut wt) = (q, w);
            let mut widest: f64 = 0.0;
            for _ in 0..400 {
                (qt, wt) = advance_rotation(qt, wt, inertia, 0.01);
                assert!(
                    wt.length() <= bound.max_speed,
                    "case {case}: |ω| {} > {}",
                    wt.length(),
                    bound.max_speed
                );
                assert!(
                    (wt - bound.steady).length() <= bound.wobble,
                    "case {case}: wobble {} > {}",
                    (wt - bound.steady).length(),
                    bound.wobble
                );
                widest = widest.max(wt.length());
            }
            closest = closest.max(widest / bound.max_speed);
        }
        eprintln!("spin bound: the flights reach {closest:.6} of it at most");
        assert!(closest > 0.999, "the bound is loose: {closest}");
    }

    fn max_energy_only(q: DQuat, omega: DVec3, inertia: DVec3) -> f64 {
        let wb = q.inverse() * omega;
        ((inertia * wb).dot(wb) * (1.0 + 1e-6) / inertia.min_element()).sqrt() * (1.0 + 1e-12)
    }
}
