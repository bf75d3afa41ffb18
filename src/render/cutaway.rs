//! What the automatic camera leaves out so that nothing fixed hides what moves: the fixed
//! bodies (and the ground square) between the eye and the moving bodies are cut away, as in a
//! CAD viewer's cutaway view.
//!
//! The sight lines are the segments from the eye to every moving body's centre in every frame
//! drawn; a fixed triangle that one crosses is in the way. A convex fixed body in the way (a
//! box, sphere, capsule, cylinder or hull: a wall, a post) is left out whole: a wall that lost
//! only its crossed faces would leave a floating rim. A mesh, a compound or a plane (a bowl, a
//! chute, the floor) loses only the flat faces in the way: coplanar triangles of one body go
//! together, so a flat face goes whole, and a curved surface loses the facets in the way.
//! What is cut still casts its shadow: the walls are there, only not drawn.
//!
//! Cost: one plane test per sight line and fixed triangle, and a full segment–triangle test for
//! the few that straddle its plane. Centres closer than a 500th of the focus radius count once
//! (a pile at rest is one set of points), and past [`MAX_TESTS`] the centres are thinned
//! evenly, so a very large run is cut by a sample of its sight lines.

use glam::{DQuat, DVec3};
use std::collections::HashSet;

/// The most plane tests one cut makes (about a tenth of a second).
pub const MAX_TESTS: usize = 50_000_000;

/// How an instance may be cut away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CutRule {
    /// Always drawn: moving bodies, contact arrows.
    Never,
    /// Left out whole when any of its triangles is in the way (convex fixed bodies).
    Whole,
    /// Its flat faces in the way are left out (meshes, compounds, planes, the ground).
    Faces,
}

/// The moving bodies' centres over the frames drawn, merged on a grid of `cell` (m).
pub struct Targets {
    cell: f64,
    seen: HashSet<[i64; 3]>,
    points: Vec<DVec3>,
}

impl Targets {
    /// No points yet; points closer than `cell` (m, > 0) may merge.
    pub fn new(cell: f64) -> Targets {
        Targets {
            cell,
            seen: HashSet::new(),
            points: Vec::new(),
        }
    }

    /// Adds a centre (ignored unless finite).
    pub fn add(&mut self, p: DVec3) {
        if !p.is_finite() {
            return;
        }
        let key = (p / self.cell).floor().as_i64vec3().to_array();
        if self.seen.insert(key) {
            self.points.push(p);
        }
    }

    /// The centres, one per occupied cell, in the order first seen.
    pub fn points(&self) -> &[DVec3] {
        &self.points
    }
}

/// What was cut.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CutReport {
    /// Triangles left out of the picture.
    pub triangles: usize,
    /// The instances with at least one triangle left out, in order.
    pub instances: Vec<u32>,
}

/// Reorders `indices` (a triangle list over the vertices `vertex` gives: each one's position in
/// its instance's frame, and its instance) so that the triangles drawn come first, those cut
/// away last, and returns how many indices are drawn, with what was cut. `rules` and
/// `placements` are per instance: how it may be cut, and where it stands (fixed bodies do not
/// move, so one placement serves every frame). `tolerance` (m) decides which triangles are
/// coplanar.
pub fn cut_away(
    vertex: impl Fn(u32) -> ([f32; 3], u32),
    indices: &mut [u32],
    rules: &[CutRule],
    placements: &[(DVec3, DQuat)],
    eye: DVec3,
    targets: &[DVec3],
    tolerance: f64,
) -> (usize, CutReport) {
    let world = |i: u32| -> DVec3 {
        let (position, instance) = vertex(i);
        let (p, q) = placements
            .get(instance as usize)
            .copied()
            .unwrap_or((DVec3::ZERO, DQuat::IDENTITY));
        p + q * DVec3::from(position.map(f64::from))
    };
    let body_of = |t: usize| vertex(indices[3 * t]).1;
    let rule = |t: usize| {
        rules
            .get(body_of(t) as usize)
            .copied()
            .unwrap_or(CutRule::Never)
    };
    let triangles = indices.len() / 3;
    let candidates: Vec<usize> = (0..triangles)
        .filter(|&t| rule(t) != CutRule::Never)
        .collect();
    // Thin the sight lines evenly when there are too many for the triangles.
    let stride = (targets.len() * candidates.len())
        .div_ceil(MAX_TESTS)
        .max(1);
    let sights: Vec<DVec3> = targets.iter().step_by(stride).copied().collect();
    // A flat face: the body, and its plane rounded to the tolerance.
    let face_of = |t: usize, tri: &[DVec3; 3]| -> Option<(u32, [i64; 4])> {
        let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]).normalize_or_zero();
        if n == DVec3::ZERO {
            return None;
        }
        let r = |x: f64| x.round() as i64;
        let body = body_of(t);
        Some((
            body,
            [
                r(n.x * 1e4),
                r(n.y * 1e4),
                r(n.z * 1e4),
                r(n.dot(tri[0]) / tolerance),
            ],
        ))
    };
    let mut whole_cut: HashSet<u32> = HashSet::new();
    let mut faces_cut: HashSet<(u32, [i64; 4])> = HashSet::new();
    // Each candidate triangle's flat face, by triangle (None: not a candidate, or degenerate).
    let mut face: Vec<Option<(u32, [i64; 4])>> = vec![None; triangles];
    for &t in &candidates {
        let body = body_of(t);
        let tri = [0, 1, 2].map(|k| world(indices[3 * t + k]));
        let key = face_of(t, &tri);
        face[t] = key;
        let known = match rule(t) {
            CutRule::Whole => whole_cut.contains(&body),
            _ => key.is_some_and(|k| faces_cut.contains(&k)),
        };
        if known || !in_the_way(eye, &sights, &tri) {
            continue;
        }
        match (rule(t), key) {
            (CutRule::Whole, _) => {
                whole_cut.insert(body);
            }
            (_, Some(k)) => {
                faces_cut.insert(k);
            }
            _ => {}
        }
    }
    let cut = |t: usize| {
        let body = body_of(t);
        match rule(t) {
            CutRule::Never => false,
            CutRule::Whole => whole_cut.contains(&body),
            CutRule::Faces => face[t].is_some_and(|k| faces_cut.contains(&k)),
        }
    };
    let (mut kept, mut dropped) = (Vec::new(), Vec::new());
    let mut instances = std::collections::BTreeSet::new();
    for t in 0..triangles {
        let tri = &indices[3 * t..3 * t + 3];
        if cut(t) {
            instances.insert(vertex(tri[0]).1);
            dropped.extend_from_slice(tri);
        } else {
            kept.extend_from_slice(tri);
        }
    }
    let drawn = kept.len();
    let report = CutReport {
        triangles: dropped.len() / 3,
        instances: instances.into_iter().collect(),
    };
    kept.extend(dropped);
    kept.extend_from_slice(&indices[3 * triangles..]);
    indices.copy_from_slice(&kept);
    (drawn, report)
}

/// Whether a segment from `eye` to one of `targets` crosses the triangle `tri` strictly between
/// its ends.
fn in_the_way(eye: DVec3, targets: &[DVec3], tri: &[DVec3; 3]) -> bool {
    let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]);
    let side_of_eye = n.dot(eye - tri[0]);
    if side_of_eye == 0.0 {
        return false; // the eye in the triangle's plane sees it edge on
    }
    targets.iter().any(|&c| {
        // Cheap first: the target must lie on the other side of the plane.
        n.dot(c - tri[0]) * side_of_eye < 0.0 && segment_crosses(eye, c, tri)
    })
}

/// Möller–Trumbore: whether the segment from `a` to `b` meets the triangle `tri` at a point
/// strictly between them.
pub fn segment_crosses(a: DVec3, b: DVec3, tri: &[DVec3; 3]) -> bool {
    let d = b - a;
    let (e1, e2) = (tri[1] - tri[0], tri[2] - tri[0]);
    let p = d.cross(e2);
    let det = e1.dot(p);
    if det.abs() <= f64::MIN_POSITIVE {
        return false;
    }
    let s = a - tri[0];
    let u = s.dot(p) / det;
    if !(0.0..=1.0).contains(&u) {
        return false;
    }
    let q = s.cross(e1);
    let v = d.dot(q) / det;
    if v < 0.0 || u + v > 1.0 {
        return false;
    }
    let t = e2.dot(q) / det;
    t > 0.0 && t < 1.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A vertex as `cut_away` reads it: position, instance.
    type Vertex = ([f32; 3], u32);

    #[test]
    fn a_segment_crosses_a_triangle_only_between_its_ends() {
        let tri = [DVec3::ZERO, DVec3::X, DVec3::Y];
        let (above, below) = (DVec3::new(0.2, 0.2, 1.0), DVec3::new(0.2, 0.2, -1.0));
        assert!(segment_crosses(above, below, &tri));
        assert!(segment_crosses(below, above, &tri));
        // Ends on the same side, or passing beside the triangle.
        assert!(!segment_crosses(above, DVec3::new(0.2, 0.2, 0.5), &tri));
        assert!(!segment_crosses(
            DVec3::new(0.8, 0.8, 1.0),
            DVec3::new(0.8, 0.8, -1.0),
            &tri
        ));
    }

    /// Two bodies in front of a target (a convex one and a mesh of two faces) and one beside:
    /// the convex one goes whole, the mesh loses only the face in the way, the one beside and
    /// the moving body stay.
    #[test]
    fn what_is_in_the_way_goes_and_nothing_else() {
        let eye = DVec3::new(0.0, -10.0, 0.5);
        let target = DVec3::new(0.0, 0.0, 0.5);
        let square = |y: f32, x0: f32, body: u32| -> Vec<Vertex> {
            [
                [x0, y, 0.0],
                [x0 + 1.0, y, 0.0],
                [x0 + 1.0, y, 1.0],
                [x0, y, 1.0],
            ]
            .map(|p| (p, body))
            .to_vec()
        };
        let mut vertices = Vec::new();
        let mut indices = Vec::new();
        let mut quad = |vs: Vec<Vertex>| {
            let b = vertices.len() as u32;
            vertices.extend(vs);
            indices.extend([b, b + 1, b + 2, b, b + 2, b + 3]);
        };
        quad(square(-5.0, -0.5, 0)); // body 0, convex: in the way
        quad(square(-4.0, 3.0, 0)); // body 0's other face, beside: goes with it
        quad(square(-3.0, -0.5, 1)); // body 1, mesh: this face is in the way
        quad(square(-2.5, 3.0, 1)); // body 1, another plane, beside: stays
        quad(square(-2.0, 3.0, 2)); // body 2, convex, beside: stays
        quad(square(1.0, -0.5, 3)); // body 3, moving, behind: never cut
        let rules = [
            CutRule::Whole,
            CutRule::Faces,
            CutRule::Whole,
            CutRule::Never,
        ];
        let placements = [(DVec3::ZERO, DQuat::IDENTITY); 4];
        let before = indices.clone();
        let (drawn, report) = cut_away(
            |i| vertices[i as usize],
            &mut indices,
            &rules,
            &placements,
            eye,
            &[target],
            1e-6,
        );
        let body_of = |i: &u32| vertices[*i as usize].1;
        let drawn_bodies: Vec<u32> = indices[..drawn].iter().map(body_of).collect();
        let cut_bodies: Vec<u32> = indices[drawn..].iter().map(body_of).collect();
        eprintln!("drawn {drawn_bodies:?}, cut {cut_bodies:?}, {report:?}");
        // Body 0 whole (its second face, beside the sight line, goes too), body 1's face at
        // y = -3 only.
        assert_eq!(
            cut_bodies,
            [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]
        );
        assert_eq!(
            drawn_bodies,
            [1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3]
        );
        assert_eq!(
            report,
            CutReport {
                triangles: 6,
                instances: vec![0, 1]
            }
        );
        // The same triangles, reordered.
        let (mut a, mut b) = (before, indices.clone());
        a.sort();
        b.sort();
        assert_eq!(a, b);
        // Without a target behind them, nothing is cut.
        let mut again = indices.clone();
        let (drawn, report) = cut_away(
            |i| vertices[i as usize],
            &mut again,
            &rules,
            &placements,
            eye,
            &[DVec3::new(0.0, -11.0, 0.5)],
            1e-6,
        );
        assert_eq!((drawn, report), (again.len(), CutReport::default()));
    }

    #[test]
    fn targets_merge_within_a_cell() {
        let mut t = Targets::new(0.1);
        t.add(DVec3::new(0.01, 0.01, 0.01));
        t.add(DVec3::new(0.02, 0.03, 0.04));
        t.add(DVec3::new(0.5, 0.0, 0.0));
        t.add(DVec3::new(f64::NAN, 0.0, 0.0));
        assert_eq!(t.points().len(), 2);
    }
}
