//! A contact point ([`ContactPoint`]), the tolerances under which two separations or two points
//! are the same, and the reduction of a contact manifold to the 4 points spanning it.

use glam::DVec3;

/// One contact point between two bodies, in world coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactPoint {
    /// Midpoint of the two closest (or deepest) points (m, world).
    pub position: DVec3,
    /// Signed separation along `normal` (m): > 0 apart, < 0 penetrating.
    pub separation: f64,
    /// Unit normal pointing from body b towards body a.
    pub normal: DVec3,
}

impl ContactPoint {
    /// The same contact seen with a and b swapped.
    pub(super) fn flipped(self) -> ContactPoint {
        ContactPoint {
            normal: -self.normal,
            ..self
        }
    }

    /// The point of body a: `position + normal · separation / 2`.
    pub fn point_on_a(&self) -> DVec3 {
        self.position + self.normal * (0.5 * self.separation)
    }

    /// The point of body b: `position − normal · separation / 2`.
    pub fn point_on_b(&self) -> DVec3 {
        self.position - self.normal * (0.5 * self.separation)
    }
}

/// Two separations of a pair of parts within this much (relative to the sum of their bounding
/// spheres' radii) are equal but for rounding: a manifold point as deep as the closest pair.
pub(super) const TIE: f64 = 1e-9;

/// Two manifold points of a pair of parts this close (relative, as `TIE`) are one point.
pub(super) const DUPLICATE: f64 = 1e-6;

/// Keeps at most 4 of the points `out[start..]` (the closest pair at `start` always kept): the
/// point farthest from it, then the one spanning the largest triangle with those two, then the one
/// adding the most area outside that triangle. The classic area-maximising reduction (Bullet's
/// `sortCachedPoints`, Rapier's manifold reduction): 4 points spanning the contact patch make the
/// collision response as stable as the whole patch would.
pub(super) fn reduce_manifold(out: &mut Vec<ContactPoint>, start: usize) {
    let pts = &mut out[start..];
    if pts.len() <= 4 {
        return;
    }
    let n = pts[0].normal;
    let p0 = pts[0].position;
    let argmax = |pts: &[ContactPoint], from: usize, score: &dyn Fn(DVec3) -> f64| {
        (from..pts.len()).fold((from, f64::NEG_INFINITY), |best, i| {
            let s = score(pts[i].position);
            if s > best.1 {
                (i, s)
            } else {
                best
            }
        })
    };
    let (i1, _) = argmax(pts, 1, &|p| p.distance_squared(p0));
    pts.swap(1, i1);
    let p1 = pts[1].position;
    let area = |a: DVec3, b: DVec3, p: DVec3| (b - a).cross(p - a).dot(n);
    let (i2, _) = argmax(pts, 2, &|p| area(p0, p1, p).abs());
    pts.swap(2, i2);
    let p2 = pts[2].position;
    let orient = if area(p0, p1, p2) >= 0.0 { 1.0 } else { -1.0 };
    // Area added outside the triangle: for each edge the point is beyond, the triangle it makes.
    let gain = |p: DVec3| {
        [(p0, p1), (p1, p2), (p2, p0)]
            .iter()
            .map(|&(a, b)| (-orient * area(a, b, p)).max(0.0))
            .fold(0.0, f64::max)
    };
    let (i3, g) = argmax(pts, 3, &gain);
    let keep = if g > 0.0 {
        pts.swap(3, i3);
        4
    } else {
        3
    };
    out.truncate(start + keep);
}
