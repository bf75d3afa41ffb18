//! A convex part above a flat face of a box or a cylinder, in closed form: the part against the
//! face's plane (`plane_part`), kept where every contact point lies over the face. A coin or a
//! hull resting on a floor, a platform or another coin is this case, and GJK and parry's
//! manifold (about two thirds of the coins experiment's run) are only needed at the faces'
//! edges, and when overlapping.
//!
//! Why it is exact: the box or cylinder lies wholly below each face's plane, so a point above
//! that plane is no nearer to the body than to the plane, and exactly as near where its
//! projection falls on the face. With the part wholly above the plane, its distance to the body
//! is then the plane's wherever its lowest point lies over the face.

use super::contact::ContactPoint;
use super::part::{Geom, Part};
use super::plane_convex::plane_part;
use super::pose::Pose;
use glam::{DMat3, DVec3};

/// Part `other` (at `pose_other`) against the box or cylinder part `flat` (at `pose_flat`):
/// `None` unless the part is entirely outside the face it is farthest beyond and its closest
/// point and every manifold point within `margin` lie over that face (then the distance is the
/// distance to the face's plane, exactly), or `flat` is neither a box nor a cylinder. Otherwise
/// appends the closest pair then the other points within `margin` to `out`, as `plane_part`
/// does, with normals from `flat` towards the part, and returns the closest; or, where the
/// closest point is over the face but another point within `margin` is not, appends nothing and
/// returns the exact closest point only.
pub(super) fn flat_face(
    flat: &Part,
    pose_flat: &Pose,
    other: &Part,
    pose_other: &Pose,
    margin: f64,
    out: &mut Vec<ContactPoint>,
) -> Option<FaceContact> {
    let to_other = pose_other.orientation.inverse();
    // The part's extents below both faces across the world direction `n`:
    // (support along −n, support along n), the part's support in its own frame.
    let extents = |n: DVec3| other.support_both(to_other * -n);
    // The gap between the part's lowest point along the face normal `n` and the plane n·x = d
    // (a separating axis when positive), from the part's support along −n.
    let gap_to = |n: DVec3, d: f64, support: f64| -(support + (-n).dot(pose_other.position)) - d;
    match &flat.geom {
        Geom::Box {
            center,
            rotation,
            half_extents: h,
        } => {
            let c = pose_flat.transform_point(*center);
            let axes = DMat3::from_quat(pose_flat.orientation * *rotation);
            let mut best: Option<(f64, DVec3, f64, usize)> = None;
            for i in 0..3 {
                let (below, above) = extents(axes.col(i));
                for (sign, support) in [(1.0, below), (-1.0, above)] {
                    let n = axes.col(i) * sign;
                    let d = n.dot(c) + h[i];
                    let gap = gap_to(n, d, support);
                    if best.is_none_or(|b| gap > b.0) {
                        best = Some((gap, n, d, i));
                    }
                }
            }
            let (gap, n, d, i) = best?;
            // Over the face: the point's projection within the face's two half-widths.
            let over = |p: DVec3| {
                let q = p - c;
                (0..3)
                    .filter(|&j| j != i)
                    .all(|j| axes.col(j).dot(q).abs() <= h[j])
            };
            face_contact((gap, n, d), over, other, pose_other, margin, out)
        }
        Geom::Cylinder {
            center,
            axis,
            radius,
            half_height,
        } => {
            let c = pose_flat.transform_point(*center);
            let a = pose_flat.orientation * *axis;
            let (top, bottom) = ((a, a.dot(c) + half_height), (-a, -a.dot(c) + half_height));
            let (below, above) = extents(a);
            let (gap_top, gap_bottom) = (
                gap_to(top.0, top.1, below),
                gap_to(bottom.0, bottom.1, above),
            );
            let (n, d) = if gap_top >= gap_bottom { top } else { bottom };
            // Over the face: the point's distance from the axis within the radius.
            let over = |p: DVec3| {
                let q = p - c;
                (q - a * a.dot(q)).length_squared() <= radius * radius
            };
            face_contact(
                (gap_top.max(gap_bottom), n, d),
                over,
                other,
                pose_other,
                margin,
                out,
            )
        }
        _ => None,
    }
}

/// The part against the face chosen, `(gap, n, d)` of the plane `n·x = d`, whose points `over`
/// tells (see [`flat_face`]).
fn face_contact(
    (gap, n, d): (f64, DVec3, f64),
    over: impl Fn(DVec3) -> bool,
    other: &Part,
    pose_other: &Pose,
    margin: f64,
    out: &mut Vec<ContactPoint>,
) -> Option<FaceContact> {
    if gap < 0.0 {
        return None; // overlapping (or beside the face): the general query
    }
    let start = out.len();
    let cp = plane_part((n, d), other, pose_other, margin, out);
    let projected = |p: &ContactPoint| over(p.position - (n.dot(p.position) - d) * n);
    if !projected(&cp) {
        out.truncate(start);
        return None;
    }
    if !out[start..].iter().all(projected) {
        // The closest point is over the face, so the distance is the plane's, exactly (every
        // point of the part is above the plane, and no nearer to the body than to it), but some
        // manifold point hangs past an edge: the general query finds the manifold, and `cp`
        // replaces its closest point (GJK/EPA is off by up to 1e-4 of the part's size when
        // touching).
        out.truncate(start);
        return Some(FaceContact::Closest(cp));
    }
    Some(FaceContact::Whole(cp))
}

/// What [`flat_face`] found: the whole contact (closest point and manifold), or the exact
/// closest point only.
pub(super) enum FaceContact {
    Whole(ContactPoint),
    Closest(ContactPoint),
}

impl FaceContact {
    /// The same closest point seen from the other part (the manifold in `out` is the caller's).
    pub(super) fn flipped(self) -> FaceContact {
        match self {
            FaceContact::Whole(cp) => FaceContact::Whole(cp.flipped()),
            FaceContact::Closest(cp) => FaceContact::Closest(cp.flipped()),
        }
    }
}
