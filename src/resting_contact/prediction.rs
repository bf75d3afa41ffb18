//! The prediction the constraints are written in: a contact point's relative motion over a step
//! to second order (its step-mean velocity, with the bodies' relative acceleration), the normal
//! row's bias towards the target separation, and [`predicted_separation`], the test for whether
//! a held pair needs its contacts solved again.

use super::{RestingContact, StepSettings};
use crate::ballistic::advance_rotation;
use crate::body::Body;
use glam::DVec3;

/// Least step-mean normal velocity for a contact at separation `d0` (eq. 8 with a target): a
/// contact farther than the target may close to it over the step; one nearer may not close at
/// all. Its shortfall is restored by the push-out ([`push_bias`]), which moves the bodies
/// without leaving them the velocity (split impulses): a velocity bias would stay as a
/// separating speed wherever nothing pulls the bodies back (touching balls on a frictionless
/// floor fly apart for good).
pub(super) fn bias(d0: f64, target: f64, h: f64) -> f64 {
    ((target - d0) / h).min(0.0)
}

/// Least step-mean normal push-out velocity for a contact at separation `d0`: one nearer than
/// the target is pushed back the fraction `push_out` of the way over the step, others not at
/// all. Pushing all the way at every step (as eq. 8 does) can ask more of a jammed pile than
/// its other contacts allow, and Gauss–Seidel then trades one violated contact for another
/// instead of converging.
pub(super) fn push_bias(d0: f64, target: f64, push_out: f64, h: f64) -> f64 {
    (push_out * (target - d0) / h).max(0.0)
}

/// Relative acceleration of the two body points of a contact over a step: gravity, and the part
/// of the centripetal terms ω×(ω×r) that brings them together. Only that part: on a curved
/// surface (a rolling ball) the contact moves over the body, so the body point's centripetal
/// motion away from the contact says nothing about the separation, while a polytope's vertex
/// swinging towards the other body does close the gap.
///
/// A body on a prescribed path (a vibrating plate, a rotating drum) contributes instead the
/// whole acceleration of its material point that makes its step-mean velocity over `h` exact
/// ([`Body::path_acceleration`]): a part on a vibrating plate is solved against where the plate
/// really goes over the step, not where its present velocity would take it.
pub(super) fn relative_acceleration(
    ba: &Body,
    bb: &Body,
    ra: DVec3,
    rb: DVec3,
    normal: DVec3,
    gravity: DVec3,
    h: f64,
) -> DVec3 {
    PairAcceleration::new(ba, bb, gravity).at(ra, rb, normal, h)
}

/// [`relative_acceleration`] for the contacts of one pair: what does not depend on the point
/// (each body's spin as the centripetal term takes it, the free bodies' accelerations, whether
/// either is on a path) taken once for all of them.
pub(super) struct PairAcceleration<'a> {
    ba: &'a Body,
    bb: &'a Body,
    /// The spins in the centripetal term: a path body's own is left out.
    w_a: DVec3,
    w_b: DVec3,
    /// a's acceleration less b's in free flight.
    free: DVec3,
    /// Either body on a prescribed path.
    path: bool,
}

impl<'a> PairAcceleration<'a> {
    pub(super) fn new(ba: &'a Body, bb: &'a Body, gravity: DVec3) -> Self {
        // Only a path body's own spin is left out of the free bodies' centripetal term.
        let spin = |b: &Body| match b.path {
            Some(_) => DVec3::ZERO,
            None => b.angular_velocity,
        };
        PairAcceleration {
            ba,
            bb,
            w_a: spin(ba),
            w_b: spin(bb),
            free: ba.acceleration(gravity) - bb.acceleration(gravity),
            path: ba.path.is_some() || bb.path.is_some(),
        }
    }

    /// The relative acceleration at the contact `ra`, `rb` from the centres of mass, with
    /// `normal` (see [`relative_acceleration`]).
    #[inline]
    pub(super) fn at(&self, ra: DVec3, rb: DVec3, normal: DVec3, h: f64) -> DVec3 {
        let (w_a, w_b) = (self.w_a, self.w_b);
        let spin = w_a.cross(w_a.cross(ra)) - w_b.cross(w_b.cross(rb));
        let free = self.free + spin.dot(normal).min(0.0) * normal;
        if !self.path {
            return free;
        }
        let (pa, pb) = (
            self.ba.path_acceleration(ra, h),
            self.bb.path_acceleration(rb, h),
        );
        free + pa.unwrap_or(DVec3::ZERO) - pb.unwrap_or(DVec3::ZERO)
    }
}

/// Largest turn over a step (rad) for which [`flight_slip`] takes the second-order series
/// instead of the flight: its error is then below (0.05)²/3, about 0.1 %.
const SERIES_TURN: f64 = 0.05;

/// The step-mean relative slip that the two bodies' rotations in free flight add over a step of
/// `h` at a contact `ra`, `rb` from their centres of mass, along the tangent plane of `normal`
/// (m/s): what static friction must hold still besides the present slip (Bender & Schmitt 2006
/// §3.2 find the state after a step by simulating it without the impulses).
///
/// The point that slips is the body point at the contact as the contact moves. On a polytope
/// that is the material point: where the flight's rotation takes it, `(R(h) − 1)·r / h`, less
/// the present `ω × r`. On a ball or capsule part the contact stays at the core point (the
/// ball's centre) plus the radius along the normal whatever the roll, so the core's motion
/// counts, and of the offset from it only the change of ω: a uniform ball rolls without a
/// drift, while a tippe top, rolling about the vertical through its contact with its centre of
/// mass off the ball's centre, has its centre swing about its centre of mass (to second order `½·h·(ω×(ω×r) + ω̇×r)` at the core; the
/// whole rotation is used, since at 150 rad/s a 5 ms step turns 0.75 rad, where that series is
/// 25 % off). Left out, each step's friction would stop only the slip at its start and the slip
/// gained over the step would be lost at the next: a dissipation of order h that makes a
/// rolling top slide and turn over.
///
/// Along the normal the rows keep [`relative_acceleration`]'s closing part only. A body on a
/// prescribed path has its whole motion in its path acceleration already, so only free bodies
/// add theirs here.
pub(super) fn flight_slip(
    ba: &Body,
    bb: &Body,
    ra: DVec3,
    rb: DVec3,
    normal: DVec3,
    h: f64,
) -> DVec3 {
    let excess = |b: &Body, r: DVec3| {
        let w = b.angular_velocity;
        if !b.is_awake_dynamic() || w == DVec3::ZERO || h <= 0.0 {
            return DVec3::ZERO;
        }
        let local = b.orientation.inverse() * r;
        let core = b.collider.rolling_core(local).map_or(local, |(c, _)| c);
        let centre = b.orientation * core;
        if w.length() * h <= SERIES_TURN {
            // ½·h·(ω×(ω×r_c) + ω̇×r): the series of the expression below.
            return 0.5 * h * (w.cross(w.cross(centre)) + b.angular_acceleration().cross(r));
        }
        let (q, w_end) = advance_rotation(b.orientation, w, b.inertia, h);
        // The contact's offset from the core does not turn with the body, but the velocity
        // there changes as ω does (mean over the step, to second order: (ω(h) − ω)/2).
        (q * core - centre) / h - w.cross(centre) + 0.5 * (w_end - w).cross(r - centre)
    };
    let e = excess(ba, ra) - excess(bb, rb);
    e - e.dot(normal) * normal
}

/// Where contact `c`, flying ballistically from now, would be after a step of `settings.h` (m,
/// to second order): the test for whether a held pair needs its contacts solved again.
pub fn predicted_separation(bodies: &[Body], c: &RestingContact, settings: &StepSettings) -> f64 {
    let (ba, bb) = (&bodies[c.a as usize], &bodies[c.b as usize]);
    let (ra, rb) = (c.position - ba.position, c.position - bb.position);
    let u = ba.point_velocity(c.position) - bb.point_velocity(c.position)
        + 0.5
            * settings.h
            * relative_acceleration(ba, bb, ra, rb, c.normal, settings.gravity, settings.h);
    c.separation + settings.h * u.dot(c.normal)
}
