//! Conservative time-of-impact bounds of one pair, computed from the two bodies alone (no world
//! state), so that a step's many first bounds can run on all cores: along the pair's last
//! separating axis (support functions, then per-vertex envelopes), else from bounding spheres
//! (Mirtich & Canny 1994 §3.3; see `docs/design.md`, Time-of-impact bounds).

use super::contact_band::{HELD_BAND, JAMMED_BAND};
use crate::body::Body;
use crate::toi_bound::{
    axial_extent, turning_axis_extents, AxialFlight, DistanceBound, EnvelopeBound, Extent,
    MotionBound, VertexFlight,
};
use glam::DVec3;
use rustc_hash::FxHashMap;

/// The extents of a (from below) and b (from above) along the axis `n` (from b to a), for an
/// [`EnvelopeBound`], valid over the next `horizon` seconds.
///
/// When both bodies move and spin at constant `ω` (spherical inertia, the per-vertex case), the
/// axis is carried along with b ([`turning_axis_extents`]): in a pile, bodies in contact turn
/// together, and an axis fixed in space then sees each of a's vertices closing on each of b's at
/// the full `|ω| L` of the pair's common turn, although neither moves relative to the other.
/// Else the axis is fixed in space, and the bound holds for ever (`horizon` ∞).
pub(super) fn pair_axis_extents(
    a: &Body,
    b: &Body,
    gravity: DVec3,
    n: DVec3,
    horizon: f64,
) -> AxisExtents {
    let mut out = AxisExtents {
        lower: [Extent::default(); crate::body::MAX_BOUND_VERTICES],
        upper: [Extent::default(); crate::body::MAX_BOUND_VERTICES],
        lower_len: 0,
        upper_len: 0,
        horizon: f64::INFINITY,
        step_left: horizon,
        coherent: None,
    };
    let spins_freely = |body: &Body| {
        body.is_awake_dynamic()
            && !body.vertices.is_empty()
            && body.motion_bound(gravity).constant_spin
    };
    // With b not turning, its frame is the fixed one (whose bound needs no horizon).
    if horizon.is_finite()
        && b.angular_velocity != DVec3::ZERO
        && spins_freely(a)
        && spins_freely(b)
    {
        fn flight(body: &Body) -> VertexFlight<'_> {
            VertexFlight {
                position: body.position,
                orientation: body.orientation,
                velocity: body.velocity,
                angular_velocity: body.angular_velocity,
                vertices: &body.vertices,
            }
        }
        (out.lower_len, out.upper_len) = turning_axis_extents(
            &flight(a),
            &flight(b),
            n,
            horizon,
            &mut out.lower,
            &mut out.upper,
        );
        out.horizon = horizon;
        return out;
    }
    let (lower_len, lower_horizon) = body_extents(a, gravity, n, true, horizon, &mut out.lower);
    let (upper_len, upper_horizon) = body_extents(b, gravity, n, false, horizon, &mut out.upper);
    (out.lower_len, out.upper_len) = (lower_len, upper_len);
    out.horizon = lower_horizon.min(upper_horizon);
    if (lower_len, upper_len) == (1, 1) {
        let lower = coherent_extent(a, gravity, n, true, out.lower[0], horizon);
        let upper = coherent_extent(b, gravity, n, false, out.upper[0], horizon);
        if lower.is_some() || upper.is_some() {
            let (lower, valid_a) = lower.unwrap_or((out.lower[0], out.horizon));
            let (upper, valid_b) = upper.unwrap_or((out.upper[0], out.horizon));
            out.coherent = Some(Coherent {
                lower,
                upper,
                valid: valid_a.min(valid_b),
            });
        }
    }
    out
}

/// A second extent for an awake body that is one cylinder or capsule ([`axial_extent`]): from
/// the rate at its present support point, valid for the returned time (within `horizon`);
/// `None` for other bodies. `support` is its extent from [`body_extents`], whose value now it
/// shares.
pub(super) fn coherent_extent(
    body: &Body,
    gravity: DVec3,
    n: DVec3,
    lower: bool,
    support: Extent,
    horizon: f64,
) -> Option<(Extent, f64)> {
    if !body.is_awake_dynamic() || body.path.is_some() || !body.spin.shape_turn.is_finite() {
        return None;
    }
    let profile = body.collider.axial_profile()?;
    // A finite shape turn: the shape's axis is a principal one, the other two moments equal.
    let (_, transverse, axial) = crate::ballistic::symmetric_axis(body.inertia)?;
    let flight = AxialFlight {
        axis: body.orientation * profile.axis,
        velocity: body.velocity,
        acceleration: body.acceleration(gravity),
        angular_velocity: body.angular_velocity,
        shape_turn: body.spin.shape_turn,
        axial_ratio: axial / transverse,
        rotation_radius: body.rotation_radius,
    };
    let d = if lower { -n } else { n };
    let (h1, h2, valid) = axial_extent(&profile, &flight, d, horizon)?;
    let sign = if lower { -1.0 } else { 1.0 };
    Some((
        Extent {
            h0: support.h0,
            h1: sign * h1,
            h2: sign * h2,
        },
        valid,
    ))
}

/// A hull's support point along `n` stays within its cap radius over `horizon` (see
/// `Collider::cap_radius`) if that is well inside its rotation radius: the radius and the
/// horizon, else the rotation radius for ever.
fn support_radius(body: &Body, m: &MotionBound, n: DVec3, lower: bool, horizon: f64) -> (f64, f64) {
    let whole = (body.rotation_radius, f64::INFINITY);
    if !horizon.is_finite() || m.max_angular_speed == 0.0 || body.rotation_radius == 0.0 {
        return whole;
    }
    let turn = m.max_angular_speed * horizon;
    let direction = body.orientation.inverse() * if lower { -n } else { n };
    match body
        .collider
        .cap_radius(direction, 2.0 * turn * body.rotation_radius)
    {
        Some(r) if r < CAP_GAIN * body.rotation_radius => (r, horizon),
        _ => whole,
    }
}

/// A cap radius is used (and the bound then holds only over the horizon, not kept across
/// steps) only when it is this much smaller than the rotation radius.
const CAP_GAIN: f64 = 0.8;

/// Quadratic extents of `body` along `n`: per vertex for polytopes spinning at constant `ω` (see
/// [`EnvelopeBound`]), else one term from the support function and the spin rate. `lower`:
/// bound the minimum from below (body a); else the maximum from above (body b). A body on a
/// prescribed path widens each term by its departure bound `β t + ½ α t²`
/// ([`MotionBound::speed_slack`](crate::toi_bound::MotionBound)).
pub(super) fn body_extents(
    body: &Body,
    gravity: DVec3,
    n: DVec3,
    lower: bool,
    horizon: f64,
    out: &mut [Extent],
) -> (usize, f64) {
    let m = body.motion_bound(gravity);
    let g = n.dot(m.acceleration);
    let sign = if lower { -1.0 } else { 1.0 };
    // Only a body on a path has slack; the others' terms stay bit for bit as they were.
    let widen = |x: f64, slack: f64| if slack > 0.0 { x + sign * slack } else { x };
    if !body.vertices.is_empty() && m.constant_spin && body.moves() {
        let w2 = m.angular_velocity.length_squared();
        for (k, c) in body.vertices.iter().enumerate() {
            let r = body.orientation * *c;
            out[k] = Extent {
                h0: n.dot(body.position + r),
                h1: widen(
                    n.dot(m.velocity + m.angular_velocity.cross(r)),
                    m.speed_slack,
                ),
                h2: widen(
                    g + sign * w2 * c.length() * (1.0 + 1e-12),
                    m.acceleration_slack,
                ),
            };
        }
        (body.vertices.len(), f64::INFINITY)
    } else {
        let pose = body.pose();
        let (radius, valid) = support_radius(body, &m, n, lower, horizon);
        let h0 = if lower {
            -body.collider.support(&pose, -n)
        } else {
            body.collider.support(&pose, n)
        };
        out[0] = Extent {
            h0,
            h1: widen(
                n.dot(m.velocity) + sign * m.spin_along_within(n, radius),
                m.speed_slack,
            ),
            h2: widen(g, m.acceleration_slack),
        };
        (1, valid)
    }
}

/// The contact band of pair (a, b): ε_c, or while a contact step holds it `HELD_BAND`·ε_c, and
/// `JAMMED_BAND`·ε_c if either body is in a jammed island (one the step advances as a whole).
pub(super) fn pair_band(
    held: &FxHashMap<(u32, u32), (u32, u32)>,
    bodies: &[Body],
    epsilon: f64,
    (a, b): (usize, usize),
) -> f64 {
    if !held.is_empty() && held.contains_key(&(a as u32, b as u32)) {
        if bodies[a].jammed || bodies[b].jammed {
            JAMMED_BAND * epsilon
        } else {
            HELD_BAND * epsilon
        }
    } else {
        epsilon
    }
}

/// A coarse bound for a pair: when its bodies' ballistic paths can first come within the
/// tolerance of an event.
#[derive(Clone, Copy)]
pub(super) enum FirstBound {
    /// Along the pair's last separating axis ([`EnvelopeBound`]): time from now (s; ∞ if not
    /// within the extents' horizon), and whether it may be kept across steps.
    Axis(f64, bool),
    /// From the bounding spheres: time from now (s).
    Spheres(f64),
    /// From the data-parallel stages (a pair never measured): time from now (s).
    Stage(f64),
    /// The stages found no meeting within the step: nothing to push.
    None,
}

/// A pair needs bounds if one of its bodies moves and one can be pushed or woken.
pub(super) fn pair_matters(a: &Body, b: &Body) -> bool {
    (a.moves() || b.moves()) && (a.is_dynamic() || b.is_dynamic())
}

/// The bound [`Stores::push_bound`] pushes for bodies `a`, `b` (both at the same time), computed
/// without touching the world, so that a step's many first bounds can be computed on all cores:
/// along `axis` (the pair's last separating axis) if there is one, both are convex and their
/// gap along it exceeds `band`, else from the bounding spheres with `epsilon`. `horizon`: the
/// time left in the step (see [`pair_axis_extents`]).
pub(super) fn first_bound(
    a: &Body,
    b: &Body,
    axis: Option<DVec3>,
    gravity: DVec3,
    epsilon: f64,
    band: f64,
    horizon: f64,
) -> FirstBound {
    if let (Some(n), true) = (axis, a.convex && b.convex) {
        // First the support functions' bound (Mirtich & Canny's separating-axis bound; the
        // module doc of `toi_bound`): two support queries, where the per-vertex envelope below
        // solves up to 64 quadratics. It holds for ever; when it already clears the step, the
        // envelope could not tell the step more.
        let gap = -a.collider.support(&a.pose(), -n) - b.collider.support(&b.pose(), n);
        if gap <= band {
            // Already inside the band along this axis: so is the envelope below, whose gap
            // now is this one (the same supports, by vertices), and the bounding spheres'
            // bound follows; skip building it.
            return FirstBound::Spheres(sphere_bound(a, b, gravity, epsilon));
        }
        let (ma, mb) = (a.motion_bound(gravity), b.motion_bound(gravity));
        let quick = DistanceBound::separating_axis(gap, n, &ma, &mb).time_to(0.5 * band);
        if quick >= horizon {
            return FirstBound::Axis(quick, true);
        }
        let extents = pair_axis_extents(a, b, gravity, n, horizon);
        if extents.envelope().gap() > band {
            return FirstBound::Axis(extents.time_to(0.5 * band), extents.lasting());
        }
    }
    FirstBound::Spheres(sphere_bound(a, b, gravity, epsilon))
}

/// When the bounding spheres of `a` and `b` (both at the same time) can first come within
/// `epsilon` (s from now; 0 if they may already be).
pub(super) fn sphere_bound(a: &Body, b: &Body, gravity: DVec3, epsilon: f64) -> f64 {
    let d = a.position - b.position;
    let dist = d.length();
    let radii = a.bounding_radius + b.bounding_radius;
    if dist > 0.0 && radii.is_finite() {
        // Bounding spheres are invariant under rotation: only the centres matter.
        let n = d / dist;
        let ((beta_a, alpha_a), (beta_b, alpha_b)) = (a.path_slack(), b.path_slack());
        let bound = DistanceBound {
            d0: dist - radii,
            c1: n.dot(a.velocity - b.velocity) - (beta_a + beta_b),
            c2: n.dot(a.acceleration(gravity) - b.acceleration(gravity)) - (alpha_a + alpha_b),
        };
        bound.time_to(epsilon)
    } else {
        0.0
    }
}

/// The gap of a pair of convex bodies (a, b) along its last separating axis (from b to a) at
/// their present poses: the least support of a along it minus the greatest of b. A lower
/// bound on their distance (separating-axis theorem). `None` for a pair with no last axis or a
/// non-convex body.
pub(super) fn axis_gap(
    bodies: &[Body],
    last_axis: &FxHashMap<(u32, u32), DVec3>,
    a: usize,
    b: usize,
) -> Option<f64> {
    let n = *last_axis.get(&(a as u32, b as u32))?;
    let (ba, bb) = (&bodies[a], &bodies[b]);
    (ba.convex && bb.convex)
        .then(|| -ba.collider.support(&ba.pose(), -n) - bb.collider.support(&bb.pose(), n))
}

/// Per-vertex extents of a pair along one axis (see [`Stores::axis_extents`]).
pub(super) struct AxisExtents {
    lower: [Extent; crate::body::MAX_BOUND_VERTICES],
    upper: [Extent; crate::body::MAX_BOUND_VERTICES],
    lower_len: usize,
    upper_len: usize,
    /// How long the extents hold (s from now): ∞ for an axis fixed in space.
    horizon: f64,
    /// Time left in the step (s), when every pair is bounded afresh.
    step_left: f64,
    /// A second bound of a pair with a cylinder or a capsule ([`coherent_extent`]): both are
    /// lower bounds on the gap, so the later of their times is one too.
    coherent: Option<Coherent>,
}

/// One extent per body from [`coherent_extent`] (or the body's own where it has none), and how
/// long they hold (s from now).
#[derive(Clone, Copy)]
struct Coherent {
    lower: Extent,
    upper: Extent,
    valid: f64,
}

impl Coherent {
    fn envelope(&self) -> EnvelopeBound<'_> {
        EnvelopeBound {
            lower: std::slice::from_ref(&self.lower),
            upper: std::slice::from_ref(&self.upper),
        }
    }

    /// `t` if it is within the extents' validity; else their end, when the pair must be
    /// measured again, or ∞ if they hold to the step's end.
    fn within(&self, t: f64, step_left: f64) -> f64 {
        if t < self.valid {
            t
        } else if self.valid < step_left {
            self.valid
        } else {
            f64::INFINITY
        }
    }
}

impl AxisExtents {
    pub(super) fn envelope(&self) -> EnvelopeBound<'_> {
        EnvelopeBound {
            lower: &self.lower[..self.lower_len],
            upper: &self.upper[..self.upper_len],
        }
    }

    /// True if the extents hold for ever, so a bound from them may be kept across steps.
    pub(super) fn lasting(&self) -> bool {
        self.horizon == f64::INFINITY && self.coherent.is_none()
    }

    /// [`EnvelopeBound::time_to`] within the horizon: ∞ if not before it; with coherent
    /// extents, the later of the two bounds' times.
    pub(super) fn time_to(&self, target: f64) -> f64 {
        let t = self.within_horizon(self.envelope().time_to_within(target, self.horizon));
        self.with_coherent(t, |e, valid| e.time_to_within(target, valid))
    }

    /// [`EnvelopeBound::return_time`] within the horizon: ∞ if not before it; with coherent
    /// extents, the later of the two bounds' times.
    pub(super) fn return_time(&self, gap: f64) -> f64 {
        let t = self.within_horizon(self.envelope().return_time(gap));
        self.with_coherent(t, |e, _| e.return_time(gap))
    }

    /// The later of `t` (finite: the extents' own time) and the coherent extents' time,
    /// `coherent(envelope, validity)`, taken within their validity; `t` without them.
    fn with_coherent(&self, t: f64, coherent: impl Fn(&EnvelopeBound<'_>, f64) -> f64) -> f64 {
        match &self.coherent {
            Some(c) if t.is_finite() => {
                t.max(c.within(coherent(&c.envelope(), c.valid), self.step_left))
            }
            _ => t,
        }
    }

    pub(super) fn within_horizon(&self, t: f64) -> f64 {
        if t < self.horizon {
            t
        } else {
            f64::INFINITY
        }
    }
}
