//! Contact points carried through a contact step on the two bodies they join (contact caching):
//! [`TrackedPoint`], and [`tracked_contacts`], a held pair's contacts re-read from them at the
//! bodies' present poses for a local re-solve.

use crate::body::Body;
use crate::narrow_phase::ContactPoint;
use glam::DVec3;

/// A contact point carried through a contact step on the two bodies it joins: its point on
/// each body and its normal, in those bodies' frames (contact caching). A held pair's
/// neighbourhood is re-solved mid-step ([`crate::world`]'s local re-solves) from where these
/// material points are *now*, instead of a new proximity query for every pair of the ring.
///
/// That is a first-order estimate: a vertex sliding over a face keeps its separation exactly
/// (the face is a plane moving with its body), and the normal turns with b, off by the
/// relative turn since the step's start (a few mrad over a 2.5 ms step) times the slide. It is
/// only used to choose impulses: every pair keeps its conservative time-of-impact bound and is
/// measured exactly whenever it is processed, so no collision can be missed through it.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct TrackedPoint {
    /// The contact's point on a, in a's frame.
    on_a: DVec3,
    /// The contact's point on b, in b's frame.
    on_b: DVec3,
    /// The normal (from b to a) in b's frame.
    normal: DVec3,
    /// The same normal in a's frame: how far the two frames turned against each other across
    /// the normal since (rolling) is the angle between it and `normal`, both carried to now.
    normal_on_a: DVec3,
    /// Separation when tracked (m).
    separation: f64,
}

impl TrackedPoint {
    /// Tracks contact `p` between `a` and `b` at their present poses: the narrow phase's point
    /// is the midpoint of the two closest points, `separation` apart along the normal.
    pub fn new(a: &Body, b: &Body, p: &ContactPoint) -> Self {
        let half = 0.5 * p.separation * p.normal;
        TrackedPoint {
            on_a: a.orientation.inverse() * (p.position + half - a.position),
            on_b: b.orientation.inverse() * (p.position - half - b.position),
            normal: b.orientation.inverse() * p.normal,
            normal_on_a: a.orientation.inverse() * p.normal,
            separation: p.separation,
        }
    }

    /// The contact at the bodies' present poses (midpoint, separation of the two material
    /// points along the normal, the normal), and how far the estimate extrapolates (m): the
    /// larger of how far a's point moved relative to b since it was tracked (slide and
    /// approach) and how far the contact rolled.
    ///
    /// Rolling needs its own measure: two surfaces rolling on each other move their material
    /// points apart only to second order (a cycloid), while the true contact moves over both
    /// surfaces to first order, by about the turn across the normal times the radius. A
    /// point left behind carries the support off-centre, and its torque about the centre of
    /// mass drives the roll on (a slowly rolling ball sped up from 0.1 to 0.28 m/s in 2 s).
    /// The lever is the sum of the two surfaces' largest radii of curvature (a contact moves
    /// over a curved surface by its radius per radian of roll); polytopes roll about vertices
    /// and edges, which the tracked points follow exactly, so theirs is 0.
    pub fn now(&self, a: &Body, b: &Body) -> (ContactPoint, f64) {
        let mut on_a = a.position + a.orientation * self.on_a;
        let mut on_b = b.position + b.orientation * self.on_b;
        let (normal_a, normal_b) = (
            a.orientation * self.normal_on_a,
            b.orientation * self.normal,
        );
        let then = self.on_b + self.separation * self.normal;
        let slid = (b.orientation.inverse() * (on_a - b.position) - then).length();
        let turn = normal_b.cross(normal_a).length();
        let rolled = turn * (a.collider.rolling_radius() + b.collider.rolling_radius());
        let moved = slid.max(rolled);
        // A ball or capsule rolls its material point away from the contact, and a normal
        // carried on it tilts with the roll: the tilted, off-centre support's torque then
        // drives the roll on (a capsule at rest spun up to 5 rad/s). Its contact is instead
        // re-derived from its core, and the normal is carried on a flat partner or runs
        // between two cores.
        let core = |body: &Body, local: DVec3| {
            let (c, r) = body.collider.rolling_core(local)?;
            Some((body.position + body.orientation * c, r))
        };
        let (core_a, core_b) = (core(a, self.on_a), core(b, self.on_b));
        let normal = match (core_a, core_b) {
            (Some((ca, _)), Some((cb, _))) => (ca - cb).normalize_or(normal_b),
            (None, Some(_)) if a.collider.rolling_radius() == 0.0 => normal_a,
            _ => normal_b,
        };
        if let Some((ca, r)) = core_a {
            on_a = ca - r * normal;
        }
        if let Some((cb, r)) = core_b {
            on_b = cb + r * normal;
        }
        let point = ContactPoint {
            position: 0.5 * (on_a + on_b),
            separation: normal.dot(on_a - on_b),
            normal,
        };
        (point, moved)
    }
}

/// The contacts of one pair from its tracked points at the bodies' present poses, appended to
/// `out` in order, if every point moved less than `slide` relative to the other body since it
/// was tracked; returns their least separation. Otherwise appends nothing and returns `None`
/// (the estimate extrapolates too far: the pair is to be measured).
pub fn tracked_contacts(
    points: &[TrackedPoint],
    a: &Body,
    b: &Body,
    slide: f64,
    out: &mut Vec<ContactPoint>,
) -> Option<f64> {
    let start = out.len();
    let mut least = f64::INFINITY;
    for tp in points {
        let (p, moved) = tp.now(a, b);
        if moved > slide {
            out.truncate(start);
            return None;
        }
        least = least.min(p.separation);
        out.push(p);
    }
    Some(least)
}
