//! A ball against a box part, in closed form.

use super::contact::ContactPoint;
use super::part::Geom;
use super::pose::Pose;
use glam::DVec3;

/// Ball (a, world centre `c`) against a box part (b): the centre clamped to the box gives the
/// closest box point; a centre inside the box leaves by the nearest face.
pub(super) fn ball_box(c: DVec3, r: f64, boxed: &Geom, pose_b: &Pose) -> ContactPoint {
    let Geom::Box {
        center,
        rotation,
        half_extents: h,
    } = boxed
    else {
        unreachable!("ball_box takes a box")
    };
    let to_world = pose_b.orientation * *rotation;
    let origin = pose_b.transform_point(*center);
    let p = to_world.inverse() * (c - origin);
    let q = p.clamp(-*h, *h);
    let (n_local, on_box, dist) = if q != p {
        let d = p - q;
        let len = d.length();
        (d / len, q, len)
    } else {
        // Inside: the face with the least depth h_i − |p_i|, first axis on ties.
        let depth = *h - p.abs();
        let i = if depth.x <= depth.y && depth.x <= depth.z {
            0
        } else if depth.y <= depth.z {
            1
        } else {
            2
        };
        let sign = if p[i] >= 0.0 { 1.0 } else { -1.0 };
        let mut n = DVec3::ZERO;
        n[i] = sign;
        let mut on_face = p;
        on_face[i] = sign * h[i];
        (n, on_face, -depth[i])
    };
    let n = to_world * n_local;
    let on_a = c - n * r;
    let on_b = origin + to_world * on_box;
    ContactPoint {
        position: (on_a + on_b) * 0.5,
        separation: dist - r,
        normal: n,
    }
}
