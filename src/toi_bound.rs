//! Conservative time-of-impact bounds (Mirtich & Canny 1994, §3.1; Mirtich & Canny 1995).
//!
//! A bound is a time before which the pair's distance cannot fall below a target, assuming both
//! bodies stay ballistic. Two lower bounds on the distance `d(t)` are used:
//!
//! - **Separating axis** (convex pairs). With `n` the unit direction of the closest points at
//!   `t = 0`, the gap along `n`, `s(t) = min_{a∈A(t)} n·a − max_{b∈B(t)} n·b`, satisfies
//!   `d(t) ≥ s(t)` (a slab of width `s` separates the bodies) and `s(0) = d₀` for convex bodies.
//!   Each support function moves with the centre of mass (`n·v`, plus `n·g t` for dynamic bodies)
//!   and changes under rotation at most at `|ω × n| R_rot` (`R_rot` the rotation radius: 0 for a
//!   ball). Hence `s(t) ≥ d₀ + c₁ t + ½ c₂ t²` with `c₁ = n·(v_a − v_b) − spin_a − spin_b`,
//!   `c₂ = n·(g_a − g_b)`. Unlike a bound on `|v_a − v_b|`, this one lets a ball roll along a
//!   floor with long steps: its tangential speed does not close the gap.
//! - **Isotropic** (any pair, used for non-convex compounds): no point moves relative to the
//!   other body faster than `|v_a − v_b| + |ω_a| R_a + |ω_b| R_b + |g_a − g_b| t`.
//!
//! Both are exact lower bounds, never estimates; a property test checks no pair ever gets below
//! the target unseen.

use glam::{DMat3, DQuat, DVec3};

/// What a body contributes to a pair's bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MotionBound {
    /// Centre-of-mass velocity now (m/s).
    pub velocity: DVec3,
    /// Centre-of-mass acceleration over the flight (gravity for dynamic bodies, else 0).
    pub acceleration: DVec3,
    /// Angular velocity now (rad/s).
    pub angular_velocity: DVec3,
    /// Upper bound on `|ω|` over the flight (rad/s).
    pub max_angular_speed: f64,
    /// ω stays within `spin_wobble` of `steady_spin` over the flight (rad/s; see
    /// [`crate::ballistic::SpinBound`]).
    pub steady_spin: DVec3,
    pub spin_wobble: f64,
    /// Upper bound on `|ω|` less its part about the shape's axis of symmetry over the flight
    /// (rad/s; ∞ without one; see [`crate::ballistic::shape_turn`]).
    pub shape_turn: f64,
    /// True if `ω` is constant over the flight (spherical inertia, kinematic, fixed).
    pub constant_spin: bool,
    /// Rotation radius: bound on support-function change per unit angular speed (m).
    pub rotation_radius: f64,
    /// β, and α below, bound how far a body on a prescribed path departs from the parabola of
    /// its present velocity and acceleration: `|x(t) − x(0) − v t − ½ a t²| ≤ β t + ½ α t²`
    /// for all t ≥ 0 (m/s; 0 for ballistic bodies; see `KinematicPath::speed_slack`).
    pub speed_slack: f64,
    /// α (m/s²; see `speed_slack`).
    pub acceleration_slack: f64,
}

impl MotionBound {
    /// Bound on the rate at which rotation moves the body's support along the fixed axis `n`.
    pub fn spin_along(&self, n: DVec3) -> f64 {
        self.spin_along_within(n, self.rotation_radius)
    }

    /// [`Self::spin_along`] for a support point known to stay within `radius` of the centre
    /// (see `Collider::cap_radius`).
    pub fn spin_along_within(&self, n: DVec3, radius: f64) -> f64 {
        if self.rotation_radius == 0.0 || self.max_angular_speed == 0.0 {
            return 0.0;
        }
        // d/dt max_r n·(R r) = n·(ω × r*) = r*·(n × ω): only ω's part across n counts.
        // Turning about the shape's axis of symmetry moves no surface: only the rest counts.
        let w = if self.constant_spin {
            self.angular_velocity.cross(n).length().min(self.shape_turn)
        } else {
            // ω(t) = steady + (at most wobble): |ω × n| ≤ |steady × n| + wobble. A rattleback
            // spinning about the vertical turns its support along the floor's normal only
            // by its rocking.
            self.max_angular_speed
                .min(self.steady_spin.cross(n).length() + self.spin_wobble)
                .min(self.shape_turn)
        };
        w * radius.min(self.rotation_radius) * (1.0 + 1e-12)
    }
}

/// Quadratic lower bound `s(t) = d0 + c1 t + ½ c2 t²` on a pair's distance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DistanceBound {
    /// Distance bound at t = 0 (m).
    pub d0: f64,
    /// Rate (m/s); negative when closing.
    pub c1: f64,
    /// Acceleration (m/s²).
    pub c2: f64,
}

impl DistanceBound {
    /// Separating-axis bound for convex bodies `a`, `b` at distance `d0` with unit normal `n`
    /// pointing from b to a.
    pub fn separating_axis(d0: f64, n: DVec3, a: &MotionBound, b: &MotionBound) -> Self {
        DistanceBound {
            d0,
            c1: n.dot(a.velocity - b.velocity)
                - a.spin_along(n)
                - b.spin_along(n)
                - (a.speed_slack + b.speed_slack),
            c2: n.dot(a.acceleration - b.acceleration)
                - (a.acceleration_slack + b.acceleration_slack),
        }
    }

    /// Isotropic bound, valid for any shapes.
    pub fn isotropic(d0: f64, a: &MotionBound, b: &MotionBound) -> Self {
        let spin = |m: &MotionBound| {
            if m.rotation_radius == 0.0 || m.max_angular_speed == 0.0 {
                0.0
            } else {
                m.max_angular_speed.min(m.shape_turn) * m.rotation_radius
            }
        };
        DistanceBound {
            d0,
            c1: -((a.velocity - b.velocity).length()
                + spin(a)
                + spin(b)
                + a.speed_slack
                + b.speed_slack)
                * (1.0 + 1e-12),
            c2: -((a.acceleration - b.acceleration).length()
                + a.acceleration_slack
                + b.acceleration_slack),
        }
    }

    /// The bound's value at `t`.
    pub fn at(&self, t: f64) -> f64 {
        self.d0 + self.c1 * t + 0.5 * self.c2 * t * t
    }

    /// The first `t > 0` at which the bound comes back down to its starting value `d0`: `0` if it
    /// starts closing (`c1 <= 0`), ∞ if it never returns.
    pub fn return_time(&self) -> f64 {
        if self.c1 <= 0.0 {
            0.0
        } else if self.c2 < 0.0 {
            -2.0 * self.c1 / self.c2 * (1.0 - 1e-12)
        } else {
            f64::INFINITY
        }
    }

    /// The first `t >= 0` at which the bound reaches `target` (∞ if never). Conservative: the
    /// returned time is shrunk by a relative 1e-12 against rounding.
    pub fn time_to(&self, target: f64) -> f64 {
        let k = self.d0 - target;
        if k <= 0.0 {
            return 0.0;
        }
        // Solve ½ c2 t² + c1 t + k = 0 for the smallest positive root.
        let (a, b, c) = (0.5 * self.c2, self.c1, k);
        let t = if a == 0.0 {
            if b < 0.0 {
                -c / b
            } else {
                f64::INFINITY
            }
        } else {
            let disc = b * b - 4.0 * a * c;
            if disc < 0.0 {
                f64::INFINITY
            } else {
                // Numerically stable roots: q = -½(b + sign(b)√disc), roots q/a and c/q.
                let q = -0.5 * (b + b.signum() * disc.sqrt());
                let r1 = q / a;
                let r2 = if q != 0.0 { c / q } else { f64::INFINITY };
                let mut best = f64::INFINITY;
                for r in [r1, r2] {
                    if r > 0.0 && r < best {
                        best = r;
                    }
                }
                best
            }
        };
        t * (1.0 - 1e-12)
    }
}

/// Quadratic bound `h0 + h1 t + ½ h2 t²` on one body's extent along the separating axis: from
/// below for body a (its minimum over `n`), from above for body b (its maximum).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Extent {
    /// Value now (m).
    pub h0: f64,
    /// Rate (m/s).
    pub h1: f64,
    /// Curvature bound (m/s²).
    pub h2: f64,
}

impl Extent {
    /// The bound's value at `t` (s from now): `h0 + h1 t + ½ h2 t²`.
    pub fn at(&self, t: f64) -> f64 {
        self.h0 + self.h1 * t + 0.5 * self.h2 * t * t
    }
}

/// Separating-axis bound from per-vertex extents (polytopes): the gap along `n` is
/// `min_i a_i(t) − max_j b_j(t)` over the vertices, so it is bounded below by the smallest of
/// the quadratics `a_i − b_j`. Each vertex of a body spinning at constant `ω` moves along `n`
/// at exactly `n·(v + ω × r)` now, with `|d²/dt² (n·R r)| ≤ |ω|² |r|` — much tighter than
/// charging every vertex the support's worst rate `|ω × n| R`: a resting box that rocks a little
/// no longer looks as if it were falling into its support.
pub struct EnvelopeBound<'a> {
    /// Lower extents of body a.
    pub lower: &'a [Extent],
    /// Upper extents of body b.
    pub upper: &'a [Extent],
}

impl EnvelopeBound<'_> {
    fn terms(&self) -> impl Iterator<Item = DistanceBound> + '_ {
        self.lower.iter().flat_map(move |a| {
            self.upper.iter().map(move |b| DistanceBound {
                d0: a.h0 - b.h0,
                c1: a.h1 - b.h1,
                c2: a.h2 - b.h2,
            })
        })
    }

    /// The gap bound now: `min_ij (a_i − b_j)`.
    pub fn gap(&self) -> f64 {
        // min_i a_i − max_j b_j: separable, no need to form the pairs.
        let low = self
            .lower
            .iter()
            .map(|a| a.h0)
            .fold(f64::INFINITY, f64::min);
        let high = self
            .upper
            .iter()
            .map(|b| b.h0)
            .fold(f64::NEG_INFINITY, f64::max);
        low - high
    }

    /// First time the bound can reach `target` (∞ if never).
    ///
    /// The minimum over all vertex pairs, without solving every pair's quadratic: the pair
    /// nearest now gives a first time `T`; a whole row `i` is then skipped when even its lowest
    /// reach over `[0, T]` stays above `target` against the highest reach of any `b_j`
    /// (`a_i − b_j ≥ (a_i's low) − (b_j's high)` term by term), and any remaining pair whose
    /// value cannot drop to `target` in `[0, best]` (see [`DistanceBound::may_reach_by`]) is
    /// skipped too. The result is exactly the full minimum.
    pub fn time_to(&self, target: f64) -> f64 {
        self.time_to_within(target, f64::INFINITY)
    }

    /// [`Self::time_to`] where only times before `limit` matter: the exact first time if it is
    /// before `limit`, else some time no earlier than `limit`. Terms that cannot reach the
    /// target before `limit` are screened out without solving them.
    pub fn time_to_within(&self, target: f64, limit: f64) -> f64 {
        let nearest = |x: &[Extent], lowest: bool| {
            (0..x.len()).reduce(|k, m| {
                let better = if lowest {
                    x[m].h0 < x[k].h0
                } else {
                    x[m].h0 > x[k].h0
                };
                if better {
                    m
                } else {
                    k
                }
            })
        };
        let (Some(i0), Some(j0)) = (nearest(self.lower, true), nearest(self.upper, false)) else {
            return f64::INFINITY;
        };
        let term = |a: &Extent, b: &Extent| DistanceBound {
            d0: a.h0 - b.h0,
            c1: a.h1 - b.h1,
            c2: a.h2 - b.h2,
        };
        let mut best = term(&self.lower[i0], &self.upper[j0])
            .time_to(target)
            .min(limit);
        let horizon = best;
        let high = if horizon.is_finite() {
            let t = horizon;
            self.upper
                .iter()
                .map(|b| b.h0 + b.h1.max(0.0) * t + 0.5 * b.h2.max(0.0) * t * t)
                .fold(f64::NEG_INFINITY, f64::max)
        } else {
            f64::NEG_INFINITY
        };
        for a in self.lower {
            if horizon.is_finite() {
                let t = horizon;
                let low = a.h0 + a.h1.min(0.0) * t + 0.5 * a.h2.min(0.0) * t * t;
                let slack = 1e-12 * (low.abs() + high.abs() + target.abs() + 1.0);
                if low - high > target + slack {
                    continue;
                }
            }
            for b in self.upper {
                let term = term(a, b);
                if term.may_reach_by(target, best) {
                    best = best.min(term.time_to(target));
                }
            }
        }
        best
    }

    /// First time the bound can come back down to its present value `gap` (0 if some term
    /// at the gap starts closing).
    pub fn return_time(&self, gap: f64) -> f64 {
        let tol = 1e-12 * (1.0 + gap.abs());
        let mut best = f64::INFINITY;
        for term in self.terms() {
            if best == 0.0 {
                break;
            }
            if term.d0 <= gap + tol {
                best = best.min(term.return_time());
            } else if term.may_reach_by(gap, best) {
                best = best.min(term.time_to(gap));
            }
        }
        best
    }
}

/// A polytope in free flight with constant angular velocity (spherical inertia) and the same
/// acceleration as the other body of its pair: what [`turning_axis_extents`] needs of it.
pub struct VertexFlight<'a> {
    /// Centre of mass now (m).
    pub position: DVec3,
    /// Orientation now (body to world).
    pub orientation: DQuat,
    /// Centre-of-mass velocity now (m/s).
    pub velocity: DVec3,
    /// Angular velocity (rad/s), constant over the flight.
    pub angular_velocity: DVec3,
    /// Vertices relative to the centre of mass, in the body frame (m).
    pub vertices: &'a [DVec3],
}

/// Per-vertex extents of a pair of polytopes `a` (from below) and `b` (from above), both in
/// free flight with constant `ω` and equal accelerations, along the axis
/// `n(t) = R_b(t) R_b(0)ᵀ n` that turns with b (`n` from b to a), valid over `[0, horizon]`.
/// Writes `lower` and `upper` and returns how many of each.
///
/// Why: in a pile, bodies in contact turn together, and an axis fixed in space sees each of
/// a's vertices close on each of b's at the full `|ω| L` of the pair's common turn, although
/// neither moves relative to the other: the bound then expires long before anything happens.
///
/// Measured from b's centre along the turning axis, b's vertices are fixed (`h1 = h2 = 0`), and
/// a's vertex `i` sits at `n·q_i` with `q_i = R_bᵀ y_i`, `y_i = x_a + R_a c_i − x_b`. That moves
/// at `n·(v_a + ω_a × r_i − v_b − ω_b × y_i)` now: the velocity of a's vertex relative to b's
/// material point there, zero for a pair at rest relative to each other however fast it turns.
/// Its second derivative is `n(t)·(ÿ − 2 ω_b × ẏ + ω_b × (ω_b × y))` (the rotating frame's
/// Coriolis and centripetal terms; the accelerations cancel), with `|ÿ| ≤ |ω_a| |ω_a × r_i|`,
/// `|ẏ| ≤ |v_a − v_b| + |ω_a × r_i| = U_i` (the vertex turns about `ω_a`, so `|ω_a × r_i|` is
/// constant) and `|y(t)| ≤ |y_i(0)| + U_i t`. So over `[0, T]` it is bounded from below by
/// `h2_i = −(|ω_a| |ω_a × r_i| + 2 |ω_b| U_i + |ω_b|² (|y_i| + U_i T))`. A slab along any axis,
/// turning or not, separates the bodies, so the gap along it never exceeds their distance and
/// the bound stays exact (`tests/toi_bound.rs` samples it).
pub fn turning_axis_extents(
    a: &VertexFlight,
    b: &VertexFlight,
    n: DVec3,
    horizon: f64,
    lower: &mut [Extent],
    upper: &mut [Extent],
) -> (usize, usize) {
    let (wa, wb) = (a.angular_velocity, b.angular_velocity);
    let (sa, sb) = (wa.length(), wb.length());
    let dv = a.velocity - b.velocity;
    let speed = dv.length();
    // Per vertex, only what depends on it: `n·(ω_a × r) = r·(n × ω_a)` and
    // `n·(ω_b × y) = y·(n × ω_b)`, so the rate is three dot products; a's rotation as a matrix
    // (one conversion for all its vertices).
    let rotation_a = DMat3::from_quat(a.orientation);
    let d = a.position - b.position;
    let (n_wa, n_wb) = (n.cross(wa), n.cross(wb));
    let n_dv = n.dot(dv);
    for (out, c) in lower.iter_mut().zip(a.vertices) {
        let r = rotation_a * *c;
        let y = d + r;
        let turn = wa.cross(r).length();
        let u = speed + turn;
        let curvature = sa * turn + 2.0 * sb * u + sb * sb * (y.length() + u * horizon);
        *out = Extent {
            h0: n.dot(y),
            h1: n_dv + r.dot(n_wa) - y.dot(n_wb),
            h2: -curvature * (1.0 + 1e-9),
        };
    }
    // b's vertices along n: `n·(R_b c) = (R_bᵀ n)·c`.
    let n_b = b.orientation.conjugate() * n;
    for (out, c) in upper.iter_mut().zip(b.vertices) {
        *out = Extent {
            h0: n_b.dot(*c),
            h1: 0.0,
            h2: 0.0,
        };
    }
    (
        a.vertices.len().min(lower.len()),
        b.vertices.len().min(upper.len()),
    )
}

impl DistanceBound {
    /// False only if the bound stays above `target` over all of `[0, horizon]`: there
    /// `d0 + c1·t + ½c2·t² ≥ d0 + min(c1, 0)·T + ½·min(c2, 0)·T²`. Cheap (no square root), so it
    /// screens quadratics before [`Self::time_to`] solves them.
    pub fn may_reach_by(&self, target: f64, horizon: f64) -> bool {
        if !horizon.is_finite() {
            return true;
        }
        let low = self.d0 + self.c1.min(0.0) * horizon + 0.5 * self.c2.min(0.0) * horizon * horizon;
        // The margin covers the rounding of `low` itself, so a root at `horizon` is never lost.
        low <= target + 1e-12 * (self.d0.abs() + target.abs() + 1.0)
    }
}

/// A body of one cylinder or capsule on its axis of symmetry: what [`axial_extent`] needs of its
/// shape (body frame).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AxialProfile {
    /// The axis of symmetry through the origin (body frame, unit).
    pub axis: DVec3,
    /// Offsets along the axis of the two ends, lower first: a cylinder's faces, a capsule's
    /// core ends (m).
    pub ends: (f64, f64),
    /// A cylinder's radius; 0 for a capsule, whose rounding adds the same to every support.
    pub rim: f64,
}

/// What [`axial_extent`] needs of an axially symmetric body's torque-free flight.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AxialFlight {
    /// The axis of symmetry now (world, unit).
    pub axis: DVec3,
    /// Centre-of-mass velocity and acceleration (m/s, m/s²).
    pub velocity: DVec3,
    pub acceleration: DVec3,
    /// Angular velocity now (rad/s).
    pub angular_velocity: DVec3,
    /// Bound on `ω` across the axis over the flight, the axis's turning rate (rad/s; see
    /// [`crate::ballistic::shape_turn`]).
    pub shape_turn: f64,
    /// Axial over transverse moment of inertia, `I₃/I₁`.
    pub axial_ratio: f64,
    /// Largest distance of a support point from the centre of mass (m).
    pub rotation_radius: f64,
}

/// Bound on an axially symmetric body's support along the fixed direction `d` over its flight,
/// from the rate at its present support point rather than the worst rate `|ω × d| R` of any
/// surface point: `(h1, h2, valid)` of `h(t) ≤ h(0) + h1 t + ½ h2 t²` for `t ≤ valid`
/// (`valid ≤ horizon`). `None` where it cannot be had (a cylinder face-on to `d`).
///
/// By the envelope theorem `ḣ = d·v + r·(d × ω)` at the support point `r` (from the centre of
/// mass), which lies in the plane of the axis `a` and `d` (`r = e a + R u`, `u` the unit part of
/// `d` across `a`), so the spin about `a` drops out: `r·(d × ω⊥)`. Then
/// `ḣ(t) − ḣ(0) ≤ |r(t) − r(0)| |d × ω⊥(0)| + |r(t)| |ω⊥(t) − ω⊥(0)|` beyond the centre's own
/// motion. The axis turns at `|ω⊥| ≤ T` (the shape turn), so the end moves by at most
/// `max|e| T t`, the rim point by `R T t / sin θ_min` (`|u̇| ≤ |ȧ| / sin θ`, θ between `a` and
/// `d`; `valid` keeps `sin θ` above half its value), and the support jumps between the ends
/// (by their distance) only if `a·d` can change sign. Torque-free, `ω⊥` turns at
/// `(I₃/I₁) |ω₃| |ω⊥|` with `ω₃` constant. A coin rolling on its rim, its lowest point nearly at
/// rest, is so bounded for milliseconds where the worst rate allows tens of microseconds.
pub fn axial_extent(
    profile: &AxialProfile,
    flight: &AxialFlight,
    d: DVec3,
    horizon: f64,
) -> Option<(f64, f64, f64)> {
    let a = flight.axis;
    let w = flight.angular_velocity;
    let (cos, sin) = (d.dot(a), d.cross(a).length());
    let spin = w.dot(a);
    let across = w - a * spin;
    let turn = flight.shape_turn.max(across.length());
    if !turn.is_finite() {
        return None;
    }
    let mut valid = horizon;
    let (lo, hi) = profile.ends;
    let mut r0 = a * if cos >= 0.0 { hi } else { lo };
    let mut reach = lo.abs().max(hi.abs());
    if profile.rim > 0.0 {
        if sin <= 0.0 {
            return None;
        }
        if turn > 0.0 {
            valid = valid.min(0.5 * sin / turn);
        }
        r0 += (d - a * cos) * (profile.rim / sin);
        reach += profile.rim / (sin - turn * valid);
    }
    if valid.is_nan() || valid <= 0.0 {
        return None;
    }
    let flips = cos.abs() <= turn * valid * (1.0 + 1e-9);
    let jump = if flips { hi - lo } else { 0.0 };
    let across_d = d.cross(across).length();
    let slack = 1.0 + 1e-9;
    let h1 = d.dot(flight.velocity)
        + d.dot(w.cross(r0))
        + (jump * across_d + 1e-12 * turn * flight.rotation_radius) * slack;
    let h2 = d.dot(flight.acceleration)
        + (turn * reach * across_d
            + flight.rotation_radius * flight.axial_ratio * spin.abs() * turn)
            * slack;
    Some((h1, h2, valid))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn free(v: DVec3, g: DVec3) -> MotionBound {
        MotionBound {
            velocity: v,
            acceleration: g,
            angular_velocity: DVec3::ZERO,
            max_angular_speed: 0.0,
            steady_spin: DVec3::ZERO,
            spin_wobble: 0.0,
            shape_turn: f64::INFINITY,
            constant_spin: true,
            rotation_radius: 0.0,
            speed_slack: 0.0,
            acceleration_slack: 0.0,
        }
    }

    #[test]
    fn falling_ball_reaches_target_exactly() {
        let g = DVec3::new(0.0, 0.0, -9.81);
        let a = free(DVec3::ZERO, g);
        let floor = free(DVec3::ZERO, DVec3::ZERO);
        let b = DistanceBound::separating_axis(1.0, DVec3::Z, &a, &floor);
        let t = b.time_to(0.0);
        assert!((t - (2.0 / 9.81f64).sqrt()).abs() < 1e-9);
        // Rolling along the floor does not close the gap.
        let a = free(DVec3::new(3.0, 0.0, 0.0), DVec3::ZERO);
        let b = DistanceBound::separating_axis(0.01, DVec3::Z, &a, &floor);
        assert_eq!(b.time_to(0.0), f64::INFINITY);
    }

    #[test]
    fn rising_then_falling_returns() {
        let g = DVec3::new(0.0, 0.0, -10.0);
        let a = free(DVec3::new(0.0, 0.0, 1.0), g);
        let floor = free(DVec3::ZERO, DVec3::ZERO);
        let b = DistanceBound::separating_axis(0.5, DVec3::Z, &a, &floor);
        assert!((b.return_time() - 0.2).abs() < 1e-9);
        assert!((b.time_to(0.45) - (1.0 + 2f64.sqrt()) / 10.0).abs() < 1e-9);
    }

    /// The screened minimum equals the plain minimum over every vertex pair.
    #[test]
    fn screened_envelope_matches_every_pair() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let extent = |rng: &mut rand_chacha::ChaCha8Rng, h0: f64| Extent {
            h0: h0 + rng.random_range(0.0..0.5),
            h1: rng.random_range(-3.0..3.0),
            h2: rng.random_range(-12.0..12.0),
        };
        for _ in 0..2000 {
            let lower: Vec<Extent> = (0..8).map(|_| extent(&mut rng, 0.0)).collect();
            let upper: Vec<Extent> = (0..8).map(|_| extent(&mut rng, -0.5)).collect();
            let env = EnvelopeBound {
                lower: &lower,
                upper: &upper,
            };
            let terms: Vec<DistanceBound> = env.terms().collect();
            let gap = env.gap();
            for target in [gap - 1e-3, gap - 0.1, gap * 0.5] {
                let plain = terms
                    .iter()
                    .map(|b| b.time_to(target))
                    .fold(f64::INFINITY, f64::min);
                assert_eq!(env.time_to(target), plain);
                // Within a limit: exact before it, no earlier than it otherwise.
                for limit in [1e-3, 0.05, 0.3] {
                    let within = env.time_to_within(target, limit);
                    if plain < limit {
                        assert_eq!(within, plain);
                    } else {
                        assert!(within >= limit, "{within} < {limit} (exact {plain})");
                    }
                }
            }
            let tol = 1e-12 * (1.0 + gap.abs());
            let plain = terms
                .iter()
                .map(|b| {
                    if b.d0 <= gap + tol {
                        b.return_time()
                    } else {
                        b.time_to(gap)
                    }
                })
                .fold(f64::INFINITY, f64::min);
            assert_eq!(env.return_time(gap), plain);
        }
    }
}
