//! A convex part above one face of a box, in closed form: the part against the face's plane
//! (`plane_part`), kept where every contact point lies over the face. A coin or a hull resting
//! on a floor or a platform is this case, and GJK and parry's manifold (about two thirds of the
//! coins experiment's run) are only needed at the box's edges and corners, and when overlapping.

use super::collider::Pose;
use super::contact::ContactPoint;
use super::part::{Geom, Part};
use super::plane_convex::plane_part;
use glam::{DMat3, DVec3};

/// Part `other` (at `pose_other`) against box part `boxed` (at `pose_box`): `None` unless the
/// part is entirely outside the box face it is farthest beyond and its closest point and every
/// manifold point within `margin` lie over that face (then the distance to the box is the
/// distance to the face's plane, exactly). Otherwise appends the closest pair then the other
/// points within `margin` to `out`, as `plane_part` does, with normals from the box towards the
/// part, and returns the closest; or, where the closest point is over the face but another
/// point within `margin` is not, appends nothing and returns the exact closest point only.
pub(super) fn box_face(
    boxed: &Part,
    pose_box: &Pose,
    other: &Part,
    pose_other: &Pose,
    margin: f64,
    out: &mut Vec<ContactPoint>,
) -> Option<FaceContact> {
    let Geom::Box {
        center,
        rotation,
        half_extents: h,
    } = &boxed.geom
    else {
        return None;
    };
    let c = pose_box.transform_point(*center);
    let axes = DMat3::from_quat(pose_box.orientation * *rotation);
    // The face the part is farthest beyond: the largest gap between the part's lowest point
    // along a face normal and that face's plane (a separating axis when positive).
    let to_other = pose_other.orientation.inverse();
    let mut best: Option<(f64, DVec3, f64, usize)> = None;
    for i in 0..3 {
        for sign in [1.0, -1.0] {
            let n = axes.col(i) * sign;
            let d = n.dot(c) + h[i];
            let lowest = -(other.support(to_other * -n) + (-n).dot(pose_other.position));
            let gap = lowest - d;
            if best.is_none_or(|b| gap > b.0) {
                best = Some((gap, n, d, i));
            }
        }
    }
    let (gap, n, d, i) = best?;
    if gap < 0.0 {
        return None; // overlapping (or over an edge's corner region): the general query
    }
    let start = out.len();
    let cp = plane_part((n, d), other, pose_other, margin, out);
    // Over the face: the point's projection onto the plane within the face's two half-widths.
    let over = |p: &ContactPoint| {
        let q = p.position - (n.dot(p.position) - d) * n - c;
        (0..3)
            .filter(|&j| j != i)
            .all(|j| axes.col(j).dot(q).abs() <= h[j])
    };
    if !over(&cp) {
        out.truncate(start);
        return None;
    }
    if !out[start..].iter().all(over) {
        // The closest point is over the face, so the distance is the plane's, exactly (every
        // point of the part is above the plane, and no nearer to the box than to it), but some
        // manifold point hangs past an edge: the general query finds the manifold, and `cp`
        // replaces its closest point (GJK/EPA is off by up to 1e-4 of the part's size when
        // touching).
        out.truncate(start);
        return Some(FaceContact::Closest(cp));
    }
    Some(FaceContact::Whole(cp))
}

/// What [`box_face`] settled: the contact and its manifold, or only the exact closest point.
pub(super) enum FaceContact {
    Whole(ContactPoint),
    Closest(ContactPoint),
}
