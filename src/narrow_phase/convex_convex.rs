//! Any other pair of convex parts, through parry: the closest pair by GJK (EPA when
//! overlapping), made conservative for curved pairs, then parry's contact manifold within the
//! margin; and the axis fallback for the rare query parry cannot answer.

use super::contact::{reduce_manifold, ContactPoint, DUPLICATE, TIE};
use super::part::{Geom, Part};
use super::pose::Pose;
use glam::DVec3;
use parry3d_f64::math::Pose as ParryPose;
use parry3d_f64::query::{
    ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher, QueryDispatcher,
};
use std::cell::RefCell;

thread_local! {
    /// Parry's manifold buffer, reused so that a query does not allocate its point list.
    static MANIFOLD: RefCell<ContactManifold<(), ()>> = RefCell::new(ContactManifold::new());
}

/// A pair of convex parts through parry: the closest pair by `contact` with an infinite
/// prediction (GJK, or EPA when overlapping), then, within the margin, parry's contact manifold
/// (SAT and clipping for box–box, polygonal features clipped otherwise).
pub(super) fn parry_pair(
    pa: &Part,
    pose_a: &Pose,
    pb: &Part,
    pose_b: &Pose,
    margin: f64,
    out: &mut Vec<ContactPoint>,
) -> ContactPoint {
    let wa = pose_a.compose(&pa.local).to_parry();
    let wb = pose_b.compose(&pb.local).to_parry();
    let pos12 = wa.inv_mul(&wb);
    let (s1, s2) = (&*pa.shape, &*pb.shape);
    let contact = DefaultQueryDispatcher.contact(&pos12, s1, s2, f64::INFINITY);
    let Ok(Some(mut contact)) = contact else {
        return axis_fallback(pa, &wa, pb, &wb, margin, out);
    };
    if contact.dist < 0.0 {
        // Overlapping: EPA's polytope grows inside the Minkowski difference, so its depth
        // stops short of the true one by its tolerance, differently for the two orders of the
        // pair. The deeper of the two is the nearer, and the answer no longer depends on the
        // order (seen: 0.1482 against 0.1517 for two hulls 0.4 m into each other).
        let reverse = DefaultQueryDispatcher.contact(&wb.inv_mul(&wa), s2, s1, f64::INFINITY);
        if let Ok(Some(reverse)) = reverse {
            if reverse.dist < contact.dist {
                contact = reverse.flipped();
            }
        }
    }
    let on_a = wa.transform_point(contact.point1);
    let on_b = wb.transform_point(contact.point2);
    let mut closest = ContactPoint {
        position: (on_a + on_b) * 0.5,
        separation: contact.dist,
        normal: -(wa.rotation * contact.normal1),
    };
    let curved = |g: &Geom| matches!(g, Geom::Cylinder { .. } | Geom::Capsule { .. });
    if closest.separation > 0.0 && (curved(&pa.geom) || curved(&pb.geom)) {
        // GJK approaches a curved pair's distance from above (its witnesses are real surface
        // points) and stops at a relative tolerance, so it may overstate it. The gap along its
        // axis, from the exact support functions, is a lower bound by the separating-axis
        // theorem; taking it keeps the distance (and so every TOI bound built on it) conservative.
        if let (Some(sa), Some(sb)) = (pa.shape.as_support_map(), pb.shape.as_support_map()) {
            let n = closest.normal;
            let gap = n.dot(sa.support_point(&wa, -n)) - n.dot(sb.support_point(&wb, n));
            if gap < closest.separation {
                closest.separation = gap.max(0.0);
            }
        }
    }
    if closest.separation > margin {
        return closest;
    }
    let start = out.len();
    out.push(closest);
    let is_ball = |g: &Geom| matches!(g, Geom::Ball { .. });
    if is_ball(&pa.geom) || is_ball(&pb.geom) {
        return closest; // a ball touches anything convex at a single point
    }
    // Points closer than this to the closest pair repeat it (parry adds its own GJK point).
    let duplicate = DUPLICATE * (pa.sphere_radius + pb.sphere_radius);
    // Whether a manifold point was dropped as the closest pair's repeat: the witness is then
    // one of the patch's corners already.
    let mut witness_is_corner = false;
    MANIFOLD.with(|m| {
        let mut m = m.borrow_mut();
        m.clear();
        // Seed the manifold's GJK with the known normal; a zero second normal disables parry's
        // reuse of the previous manifold (each query must stand alone).
        m.local_n1 = contact.normal1;
        m.local_n2 = DVec3::ZERO;
        let dispatched = <DefaultQueryDispatcher as PersistentQueryDispatcher<(), ()>>::contact_manifold_convex_convex(
            &DefaultQueryDispatcher,
            &pos12,
            s1,
            s2,
            None,
            None,
            margin,
            &mut m,
        );
        if dispatched.is_err() {
            return;
        }
        let normal = -(wa.rotation * m.local_n1).normalize_or(-closest.normal);
        for pt in &m.points {
            if pt.dist > margin {
                continue;
            }
            let position = (wa.transform_point(pt.local_p1) + wb.transform_point(pt.local_p2)) * 0.5;
            if position.distance(closest.position) <= duplicate {
                witness_is_corner = true;
                continue;
            }
            // Parry's manifold of two curved parts can list one point twice: a point counted
            // twice is two rows of one contact in a solve.
            if out[start + 1..]
                .iter()
                .any(|p| p.position.distance(position) <= duplicate)
            {
                continue;
            }
            out.push(ContactPoint {
                position,
                separation: pt.dist,
                normal,
            });
        }
    });
    // A face resting on a face touches along a patch and GJK's witness is an arbitrary point of
    // it; a patch corner as deep (to rounding) is an equally valid closest pair and spares the
    // manifold a fifth, redundant point (a box flat on a box then gives exactly its 4 corners).
    // Not when the witness is a corner itself: replacing it by another corner as deep would
    // drop a corner, and a flat box would keep 3 of its 4.
    let tie = TIE * (pa.sphere_radius + pb.sphere_radius);
    let deepest = (start + 1..out.len()).fold(None, |best: Option<usize>, i| match best {
        Some(j) if out[j].separation <= out[i].separation => best,
        _ => Some(i),
    });
    let tied = deepest
        .filter(|&k| !witness_is_corner && (out[k].separation - closest.separation).abs() <= tie);
    if let Some(k) = tied {
        closest = out[k];
        closest.separation = closest.separation.min(out[start].separation);
        out[start] = closest;
        out.remove(k);
    }
    // Manifold separations are measured along the manifold's normal; for separated boxes SAT's
    // face normal can understate the distance (two boxes apart corner to corner). No point may
    // claim to be nearer than the exact closest pair.
    for p in &mut out[start + 1..] {
        p.separation = p.separation.max(closest.separation);
    }
    reduce_manifold(out, start);
    closest
}

/// Used only if parry reports no result (a GJK/EPA failure on a degenerate configuration): the
/// separation along the axis between the parts' centres, `min_a n·x − max_b n·x`. By the
/// separating-axis theorem the true signed separation is the largest such value over all axes, so
/// this one never overstates it.
fn axis_fallback(
    pa: &Part,
    wa: &ParryPose,
    pb: &Part,
    wb: &ParryPose,
    margin: f64,
    out: &mut Vec<ContactPoint>,
) -> ContactPoint {
    let ca = wa.transform_point(DVec3::ZERO);
    let cb = wb.transform_point(DVec3::ZERO);
    let n = (ca - cb).try_normalize().unwrap_or(DVec3::Z);
    let (Some(sa), Some(sb)) = (pa.shape.as_support_map(), pb.shape.as_support_map()) else {
        unreachable!("every convex part is a support map")
    };
    let on_a = sa.support_point(wa, -n);
    let on_b = sb.support_point(wb, n);
    let cp = ContactPoint {
        position: (on_a + on_b) * 0.5,
        separation: (on_a - on_b).dot(n),
        normal: n,
    };
    if cp.separation <= margin {
        out.push(cp);
    }
    cp
}
