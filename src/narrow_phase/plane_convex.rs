//! A plane against a convex part: each support candidate of the part measured against the plane,
//! in closed form.

use super::collider::Pose;
use super::contact::{reduce_manifold, ContactPoint};
use super::part::Part;
use glam::DVec3;

/// Plane (body b) against a convex part of body a at `pose`: the part's support candidates against
/// the plane, each giving its own contact with the plane's normal. Appends the closest candidate
/// then the others within `margin` (reduced to 4), if the closest is within `margin`; returns the
/// closest.
pub(super) fn plane_part(
    (n, d): (DVec3, f64),
    part: &Part,
    pose: &Pose,
    margin: f64,
    out: &mut Vec<ContactPoint>,
) -> ContactPoint {
    let start = out.len();
    let mut closest: Option<(ContactPoint, usize)> = None;
    part.for_each_support_candidate(pose, n, |p, radius| {
        let height = n.dot(p) - d; // of the core point above the plane
        let cp = ContactPoint {
            // Midpoint of the surface point p − ρ n and its projection p − height n.
            position: p - n * (0.5 * (radius + height)),
            separation: height - radius,
            normal: n,
        };
        if closest.is_none_or(|(c, _)| cp.separation < c.separation) {
            closest = Some((cp, out.len()));
        }
        if cp.separation <= margin {
            out.push(cp);
        }
    });
    let (cp, index) = closest.expect("every part has a support candidate");
    if cp.separation <= margin {
        out[start..=index].rotate_right(1);
        reduce_manifold(out, start);
    }
    cp
}
