//! A plane against a convex part: each support candidate of the part measured against the plane,
//! in closed form.

use super::contact::{reduce_manifold, ContactPoint};
use super::part::{Geom, Part};
use super::pose::Pose;
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
    if let Geom::Convex { vertices } = &part.geom {
        // A hull's vertices measured in its own frame (one dot product each, where moving each
        // to the world first was most of a fine hull's run: the rattleback's 200 vertices
        // against the floor at every query), and only the candidates moved to the world.
        let n_local = pose.orientation.inverse() * n;
        let base = n.dot(pose.position) - d;
        // (height, vertex, where it is or would be pushed)
        let mut lowest = (f64::INFINITY, 0, start);
        for (k, v) in vertices.iter().enumerate() {
            let height = n_local.dot(*v) + base;
            if height < lowest.0 {
                lowest = (height, k, out.len());
            }
            if height <= margin {
                out.push(on_plane(pose.transform_point(*v), n, height));
            }
        }
        let cp = on_plane(pose.transform_point(vertices[lowest.1]), n, lowest.0);
        if cp.separation <= margin {
            out[start..=lowest.2].rotate_right(1);
            reduce_manifold(out, start);
        }
        return cp;
    }
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

/// The contact of a vertex `p` at `height` above the plane of normal `n`: at the vertex, its
/// separation the height (a vertex has no radius).
fn on_plane(p: DVec3, n: DVec3, height: f64) -> ContactPoint {
    ContactPoint {
        position: p - n * (0.5 * height),
        separation: height,
        normal: n,
    }
}
