//! Tests of the hand-written box–box path against parry's GJK and contact manifold: random pairs
//! apart, faces resting on faces, and the pairs it must decline.

use super::super::collider::Collider;
use super::super::contact::{DUPLICATE, TIE};
use super::super::convex_convex::parry_pair;
use super::super::part::Part;
use super::super::pose::Pose;
use super::*;
use crate::shape::Shape;
use glam::DQuat;

/// A small deterministic generator (the tests must not depend on a seed file).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }
    fn rotation(&mut self) -> DQuat {
        let v = DVec3::new(
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
        );
        DQuat::from_scaled_axis(v.normalize_or(DVec3::Z) * self.range(0.0, std::f64::consts::PI))
    }
}

fn part(half: DVec3) -> Part {
    let collider = Collider::new(&Shape::Box { half_extents: half }, Pose::IDENTITY).unwrap();
    collider.parts[0].clone()
}

/// The box of half extents `half` placed by `pose`.
fn world(half: DVec3, pose: &Pose) -> WorldBox {
    WorldBox::new(pose.position, pose.orientation, half)
}

/// Signed distance of `p` from the surface of box (`half`) at `pose`.
fn box_sdf(p: DVec3, half: DVec3, pose: &Pose) -> f64 {
    let q = pose.inverse_transform_point(p).abs() - half;
    q.max(DVec3::ZERO).length() + q.max_element().min(0.0)
}

/// Both paths on one pair: returns whether the hand path answered.
fn compare(ha: DVec3, pose_a: &Pose, hb: DVec3, pose_b: &Pose, margin: f64) -> bool {
    let (pa, pb) = (part(ha), part(hb));
    let radii = pa.sphere_radius + pb.sphere_radius;
    let mut mine = Vec::new();
    let Some(cp) = box_box(
        &world(ha, pose_a),
        &world(hb, pose_b),
        margin,
        TIE * radii,
        DUPLICATE * radii,
        &mut mine,
    ) else {
        assert!(mine.is_empty(), "nothing appended when declining");
        return false;
    };
    let mut theirs = Vec::new();
    let reference = parry_pair(&pa, pose_a, &pb, pose_b, margin, &mut theirs);
    // GJK stops at ~5e-8 relative; the hand path is exact to rounding.
    let tol = 1e-7 * radii;
    assert!(
        (cp.separation - reference.separation).abs() <= tol,
        "separation {} vs parry {} ({:?} {:?} / {:?} {:?})",
        cp.separation,
        reference.separation,
        ha,
        pose_a,
        hb,
        pose_b
    );
    assert!(cp.normal.dot(reference.normal) > 1.0 - 1e-6 || cp.separation < 1e-9);
    assert_eq!(mine.is_empty(), theirs.is_empty());
    if !mine.is_empty() {
        assert_eq!(mine[0], cp, "the closest pair comes first");
    }
    // The closest pair is a pair of surface points; every manifold point lies between
    // the two boxes, no farther from them together than its separation.
    let on = 1e-9 * radii;
    assert!(
        box_sdf(cp.point_on_a(), ha, pose_a).abs() <= on,
        "{cp:?} off a"
    );
    assert!(
        box_sdf(cp.point_on_b(), hb, pose_b).abs() <= on,
        "{cp:?} off b"
    );
    for p in &mine {
        assert!(p.separation <= margin + 1e-12 && p.separation >= cp.separation);
        let (da, db) = (
            box_sdf(p.position, ha, pose_a),
            box_sdf(p.position, hb, pose_b),
        );
        assert!(
            da >= -on && db >= -on && da + db <= p.separation + on,
            "{p:?}"
        );
    }
    // The same patch as parry's manifold (both reduce to 4 of its points).
    assert_eq!(mine.len(), theirs.len(), "{mine:?} vs {theirs:?}");
    // Before the reduction to 4, the clipped manifold is parry's: the same points within
    // the margin (besides the closest pair, which GJK finds on its own), as near.
    let mut raw = Vec::new();
    unreduced(
        &world(ha, pose_a),
        &world(hb, pose_b),
        margin,
        TIE * radii,
        DUPLICATE * radii,
        &mut raw,
    )
    .unwrap();
    let parry_raw = parry_manifold(&pa, pose_a, &pb, pose_b, margin, reference.separation);
    if raw.is_empty() {
        assert!(parry_raw.is_empty());
        return true;
    }
    let duplicate = |p: &ContactPoint| p.position.distance(raw[0].position) <= DUPLICATE * radii;
    let same = |p: &ContactPoint, q: &ContactPoint| {
        p.position.distance(q.position) <= tol && (p.separation - q.separation).abs() <= tol
    };
    for p in raw[1..].iter() {
        assert!(
            parry_raw.iter().any(|q| same(p, q)),
            "{p:?} not in {parry_raw:?}"
        );
    }
    for q in parry_raw.iter().filter(|q| !duplicate(q)) {
        assert!(
            raw.iter().any(|p| same(p, q)),
            "parry's {q:?} not in {raw:?}"
        );
    }
    true
}

/// Parry's contact manifold of two box parts, unreduced: each point within `margin`, at the
/// midpoint of its two feature points, its separation no less than `least`.
fn parry_manifold(
    pa: &Part,
    pose_a: &Pose,
    pb: &Part,
    pose_b: &Pose,
    margin: f64,
    least: f64,
) -> Vec<ContactPoint> {
    use parry3d_f64::query::{ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher};
    let wa = pose_a.compose(&pa.local).to_parry();
    let wb = pose_b.compose(&pb.local).to_parry();
    let mut m = ContactManifold::<(), ()>::new();
    <DefaultQueryDispatcher as PersistentQueryDispatcher<(), ()>>::contact_manifold_convex_convex(
        &DefaultQueryDispatcher,
        &wa.inv_mul(&wb),
        &*pa.shape,
        &*pb.shape,
        None,
        None,
        margin,
        &mut m,
    )
    .unwrap();
    let normal = -(wa.rotation * m.local_n1).normalize();
    m.points
        .iter()
        .filter(|pt| pt.dist <= margin)
        .map(|pt| ContactPoint {
            position: (wa.transform_point(pt.local_p1) + wb.transform_point(pt.local_p2)) * 0.5,
            separation: pt.dist.max(least),
            normal,
        })
        .collect()
}

/// Places b at `gap` from a along the normal parry finds (the boxes keep their turns).
fn at_gap(ha: DVec3, pose_a: &Pose, hb: DVec3, pose_b: Pose, gap: f64) -> Pose {
    let (pa, pb) = (part(ha), part(hb));
    let mut out = Vec::new();
    let cp = parry_pair(&pa, pose_a, &pb, &pose_b, 0.0, &mut out);
    Pose::new(
        pose_b.position - cp.normal * (gap - cp.separation),
        pose_b.orientation,
    )
}

#[test]
fn agrees_with_gjk_on_random_pairs_apart() {
    let mut rng = Lcg(7);
    let mut answered = 0;
    let n = 3000;
    for _ in 0..n {
        let ha = DVec3::new(
            rng.range(0.1, 1.5),
            rng.range(0.1, 1.5),
            rng.range(0.1, 1.5),
        );
        let hb = DVec3::new(
            rng.range(0.1, 1.5),
            rng.range(0.1, 1.5),
            rng.range(0.1, 1.5),
        );
        let pose_a = Pose::new(DVec3::new(rng.range(-5.0, 5.0), 0.0, 1.0), rng.rotation());
        let dir = DVec3::new(
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        );
        let pose_b = Pose::new(
            pose_a.position + dir.normalize_or(DVec3::X) * 4.0,
            rng.rotation(),
        );
        let gap = rng.range(1e-6, 4e-3);
        let pose_b = at_gap(ha, &pose_a, hb, pose_b, gap);
        answered += usize::from(compare(ha, &pose_a, hb, &pose_b, 2e-3));
    }
    // Random turns are mostly corner or edge against a face or an edge: the hand path
    // must answer a good share of them (the rest go to GJK).
    eprintln!("answered {answered} of {n}");
    assert!(answered > n / 4, "answered {answered} of {n}");
}

#[test]
fn answers_faces_resting_on_faces_with_their_corners() {
    let mut rng = Lcg(11);
    for k in 0..2000 {
        let ha = DVec3::new(
            rng.range(0.3, 2.0),
            rng.range(0.3, 2.0),
            rng.range(0.1, 1.0),
        );
        let hb = DVec3::splat(0.5);
        let pose_a = Pose::new(DVec3::ZERO, DQuat::IDENTITY);
        // b on a's top face, slightly tilted and turned, anywhere over it.
        let tilt = if k % 4 == 0 {
            0.0
        } else {
            rng.range(0.0, 1e-3)
        };
        let turn = DQuat::from_rotation_z(rng.range(-3.2, 3.2))
            * DQuat::from_axis_angle(
                DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), 0.0).normalize_or(DVec3::X),
                tilt,
            );
        let x = rng.range(-ha.x * 0.7, ha.x * 0.7);
        let y = rng.range(-ha.y * 0.7, ha.y * 0.7);
        let pose_b = Pose::new(DVec3::new(x, y, ha.z + 2.0), turn);
        let gap = rng.range(0.0, 1.5e-3);
        let pose_b = at_gap(ha, &pose_a, hb, pose_b, gap);
        assert!(compare(ha, &pose_a, hb, &pose_b, 2e-3), "case {k} declined");
        let mut out = Vec::new();
        box_box(
            &world(ha, &pose_a),
            &world(hb, &pose_b),
            2e-3,
            1e-12,
            1e-9,
            &mut out,
        )
        .unwrap();
        if tilt == 0.0 {
            assert_eq!(
                out.len(),
                4,
                "a flat cube touches at its 4 corners: {out:?}"
            );
        }
    }
}

#[test]
fn declines_overlapping_boxes_and_corners_apart() {
    let w = |h: DVec3, p: DVec3, q: DQuat| WorldBox::new(p, q, h);
    let h = DVec3::splat(0.5);
    let mut out = Vec::new();
    // Overlapping: EPA's depth.
    let a = w(h, DVec3::ZERO, DQuat::IDENTITY);
    let b = w(h, DVec3::new(0.9, 0.0, 0.0), DQuat::IDENTITY);
    assert!(box_box(&a, &b, 1e-3, 1e-12, 1e-9, &mut out).is_none());
    // Corner to corner along the diagonal: the closest points are not along any face or
    // edge axis, so the separating axes understate the distance.
    let b = w(h, DVec3::splat(1.0 + 1e-3), DQuat::IDENTITY);
    assert!(box_box(&a, &b, 1e-3, 1e-12, 1e-9, &mut out).is_none());
    assert!(out.is_empty());
    // Face to face apart: answered, 4 corners, exact gap.
    let b = w(h, DVec3::new(0.0, 0.0, 1.0 + 5e-4), DQuat::IDENTITY);
    let cp = box_box(&a, &b, 1e-3, 1e-12, 1e-9, &mut out).unwrap();
    assert!((cp.separation - 5e-4).abs() < 1e-15);
    assert_eq!(cp.normal, DVec3::NEG_Z);
    assert_eq!(out.len(), 4);
}
