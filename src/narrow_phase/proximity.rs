//! The proximity query ([`proximity`]): plane against parts, or part against part with a
//! bounding-sphere cull (through a part tree for colliders with many parts), each pair sent to
//! its routine, and the overall closest pair put first.

use super::ball_ball::ball_ball;
use super::ball_box::ball_box;
use super::box_box::{box_box, WorldBox};
use super::collider::Collider;
use super::contact::{reduce_manifold, ContactPoint, DUPLICATE, TIE};
use super::convex_convex::parry_pair;
use super::flat_face::{flat_face, FaceContact};
use super::part::{Geom, Part};
use super::plane_convex::plane_part;
use super::pose::Pose;
use glam::{DQuat, DVec3};

/// Proximity query between body a and body b. Returns the smallest signed separation (the
/// distance when apart, minus the penetration depth when overlapping). `out` is cleared, then
/// filled: always with the closest pair as its first entry; and, where the separation is at most
/// `margin`, with every further contact point of the contact manifold whose own separation is at
/// most `margin` (up to 4 per pair of convex parts).
///
/// Two planes never interact (both are fixed): the answer is `+∞` with `out` left empty.
pub fn proximity(
    a: &Collider,
    pose_a: &Pose,
    b: &Collider,
    pose_b: &Pose,
    margin: f64,
    out: &mut Vec<ContactPoint>,
) -> f64 {
    out.clear();
    let mut best = Best::default();
    match (a.world_plane(pose_a), b.world_plane(pose_b)) {
        (Some(_), Some(_)) => return f64::INFINITY,
        (None, Some(plane)) => {
            for part in &a.parts {
                let start = out.len();
                let cp = plane_part(plane, part, pose_a, margin, out);
                best.offer(cp, start, margin);
            }
        }
        (Some(plane), None) => {
            for part in &b.parts {
                let start = out.len();
                let cp = plane_part(plane, part, pose_b, margin, out).flipped();
                for p in &mut out[start..] {
                    p.normal = -p.normal;
                }
                best.offer(cp, start, margin);
            }
        }
        (None, None) if a.tree.is_some() || b.tree.is_some() => {
            tree_pairs(a, pose_a, b, pose_b, margin, out, &mut best);
        }
        (None, None) => {
            for pa in &a.parts {
                let ca = pose_a.transform_point(pa.sphere_center);
                for pb in &b.parts {
                    // Signed separation ≥ centre distance − radii, also when overlapping: moving
                    // one sphere that far along the centre line separates the spheres, hence the
                    // parts. A pair that can neither beat the best nor come within the margin is
                    // skipped.
                    let cb = pose_b.transform_point(pb.sphere_center);
                    let lower = ca.distance(cb) - pa.sphere_radius - pb.sphere_radius;
                    if lower > margin && lower > best.separation() {
                        continue;
                    }
                    let start = out.len();
                    let cp = part_part(pa, pose_a, pb, pose_b, margin, out);
                    best.offer(cp, start, margin);
                }
            }
        }
    }
    best.finish(out)
}

/// The pairs of parts of a and b when one has a part tree: for each part of the other
/// collider (of the one with fewer parts when both have a tree), the tree's parts near it, with
/// the pair loop's cull (see `part_tree`), their manifold points reduced to 4 together.
fn tree_pairs(
    a: &Collider,
    pose_a: &Pose,
    b: &Collider,
    pose_b: &Pose,
    margin: f64,
    out: &mut Vec<ContactPoint>,
    best: &mut Best,
) {
    let a_searched = match (&a.tree, &b.tree) {
        (Some(_), None) => true,
        (None, Some(_)) => false,
        _ => a.parts.len() >= b.parts.len(),
    };
    let (outer, pose_o, inner, pose_i) = if a_searched {
        (b, pose_b, a, pose_a)
    } else {
        (a, pose_a, b, pose_b)
    };
    let Some(tree) = &inner.tree else {
        return;
    };
    for po in &outer.parts {
        let group = out.len();
        let c = pose_i.inverse_transform_point(pose_o.transform_point(po.sphere_center));
        let threshold = margin.max(best.separation());
        tree.visit_near(c, po.sphere_radius, &inner.parts, threshold, |j, _| {
            let pi = &inner.parts[j];
            let start = out.len();
            let cp = if a_searched {
                part_part(pi, pose_a, po, pose_b, margin, out)
            } else {
                part_part(po, pose_a, pi, pose_b, margin, out)
            };
            best.offer(cp, start, margin);
            margin.max(best.separation())
        });
        reduce_group(out, group, best);
    }
}

/// Reduces the manifold points `out[group..]` of one part against a tree's parts to 4, as one
/// pair's: a ball in a dish of 3 456 triangles otherwise met 17 points (one per triangle within
/// the margin), which cost the contact step ten times the time and made it lose the ball's
/// energy twice as fast, for no better answer.
fn reduce_group(out: &mut Vec<ContactPoint>, group: usize, best: &mut Best) {
    if out.len() - group <= 4 {
        return;
    }
    let deepest = (group..out.len())
        .min_by(|&i, &j| {
            out[i]
                .separation
                .total_cmp(&out[j].separation)
                .then(i.cmp(&j))
        })
        .unwrap_or(group);
    out[group..=deepest].rotate_right(1);
    if best.index.is_some_and(|i| i >= group) {
        best.index = Some(group);
    }
    reduce_manifold(out, group);
}

/// The closest pair so far over pairs of parts, and where it sits in `out`.
#[derive(Default)]
struct Best {
    point: Option<ContactPoint>,
    index: Option<usize>,
}

impl Best {
    fn separation(&self) -> f64 {
        self.point.map_or(f64::INFINITY, |p| p.separation)
    }

    /// A pair's closest point, which the pair wrote at `out[start]` if within the margin. Ties keep
    /// the earlier pair, for determinism.
    fn offer(&mut self, cp: ContactPoint, start: usize, margin: f64) {
        if self.point.is_none() || cp.separation < self.separation() {
            self.point = Some(cp);
            self.index = (cp.separation <= margin).then_some(start);
        }
    }

    /// Moves the overall closest pair to the front of `out` (the other points keep their order),
    /// or writes it alone when nothing came within the margin.
    fn finish(self, out: &mut Vec<ContactPoint>) -> f64 {
        let Some(point) = self.point else {
            return f64::INFINITY;
        };
        match self.index {
            Some(i) => out[..=i].rotate_right(1),
            None => {
                out.clear();
                out.push(point);
            }
        }
        point.separation
    }
}

/// One pair of convex parts. Appends the closest pair then the other manifold points within
/// `margin` (at most 4 in all) if the closest is within `margin`; returns the closest pair.
fn part_part(
    pa: &Part,
    pose_a: &Pose,
    pb: &Part,
    pose_b: &Pose,
    margin: f64,
    out: &mut Vec<ContactPoint>,
) -> ContactPoint {
    let cp = match (&pa.geom, &pb.geom) {
        (
            Geom::Ball {
                center: ca,
                radius: ra,
            },
            Geom::Ball {
                center: cb,
                radius: rb,
            },
        ) => ball_ball(
            pose_a.transform_point(*ca),
            *ra,
            pose_b.transform_point(*cb),
            *rb,
        ),
        (Geom::Ball { center, radius }, Geom::Box { .. }) => {
            ball_box(pose_a.transform_point(*center), *radius, &pb.geom, pose_b)
        }
        (Geom::Box { .. }, Geom::Ball { center, radius }) => {
            ball_box(pose_b.transform_point(*center), *radius, &pa.geom, pose_a).flipped()
        }
        (
            Geom::Box {
                center: ca,
                rotation: qa,
                half_extents: ha,
            },
            Geom::Box {
                center: cb,
                rotation: qb,
                half_extents: hb,
            },
        ) => {
            let world = |c: &DVec3, q: &DQuat, h: &DVec3, pose: &Pose| {
                WorldBox::new(pose.transform_point(*c), pose.orientation * *q, *h)
            };
            let radii = pa.sphere_radius + pb.sphere_radius;
            let (a, b) = (world(ca, qa, ha, pose_a), world(cb, qb, hb, pose_b));
            return box_box(&a, &b, margin, TIE * radii, DUPLICATE * radii, out)
                .unwrap_or_else(|| parry_pair(pa, pose_a, pb, pose_b, margin, out));
        }
        (_, Geom::Box { .. }) => {
            let start = out.len();
            let face = flat_face(pb, pose_b, pa, pose_a, margin, out);
            return face_or_general(face, pa, pose_a, pb, pose_b, margin, start, out);
        }
        (Geom::Box { .. }, _) => {
            let start = out.len();
            let face = face_of_a(pa, pose_a, pb, pose_b, margin, out);
            return face_or_general(face, pa, pose_a, pb, pose_b, margin, start, out);
        }
        (_, Geom::Cylinder { .. }) | (Geom::Cylinder { .. }, _) => {
            // A coin on a coin: over either one's flat face, else the general query.
            let start = out.len();
            let face = flat_face(pb, pose_b, pa, pose_a, margin, out)
                .or_else(|| face_of_a(pa, pose_a, pb, pose_b, margin, out));
            return face_or_general(face, pa, pose_a, pb, pose_b, margin, start, out);
        }
        _ => return parry_pair(pa, pose_a, pb, pose_b, margin, out),
    };
    if cp.separation <= margin {
        out.push(cp);
    }
    cp
}

/// [`flat_face`] of part a's face against part b, with normals from b to a.
fn face_of_a(
    pa: &Part,
    pose_a: &Pose,
    pb: &Part,
    pose_b: &Pose,
    margin: f64,
    out: &mut Vec<ContactPoint>,
) -> Option<FaceContact> {
    let start = out.len();
    let face = flat_face(pa, pose_a, pb, pose_b, margin, out)?;
    // A whole contact's manifold is in `out` (a closest-only one appended nothing).
    for p in &mut out[start..] {
        p.normal = -p.normal;
    }
    Some(face.flipped())
}

/// Part a against part b from what [`flat_face`] found (normals from b to a, appended to `out`
/// from `start`): the whole contact, the general query's with the exact closest point, or the
/// general query's.
#[allow(clippy::too_many_arguments)]
fn face_or_general(
    face: Option<FaceContact>,
    pa: &Part,
    pose_a: &Pose,
    pb: &Part,
    pose_b: &Pose,
    margin: f64,
    start: usize,
    out: &mut Vec<ContactPoint>,
) -> ContactPoint {
    match face {
        Some(FaceContact::Whole(cp)) => cp,
        Some(FaceContact::Closest(cp)) => {
            parry_pair(pa, pose_a, pb, pose_b, margin, out);
            exact_closest(cp, start, out)
        }
        None => parry_pair(pa, pose_a, pb, pose_b, margin, out),
    }
}

/// The general query's points (appended to `out` from `start`, its closest first) with that
/// closest replaced by the exact one, `exact`, which is returned.
fn exact_closest(exact: ContactPoint, start: usize, out: &mut [ContactPoint]) -> ContactPoint {
    if let Some(first) = out.get_mut(start) {
        *first = exact;
    }
    exact
}
