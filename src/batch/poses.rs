//! Stable poses of a polyhedral body (Mirtich 1996, §2.4): the faces of its convex hull, which of
//! them it can rest on, where it rolls from the others, and the quasi-static estimate of how often
//! it comes to rest on each.
//!
//! Quasi-static estimate: Wiegley, Rao & Goldberg, "Computing a statistical distribution of stable
//! poses for a polyhedron", Proc. 30th Allerton Conf., 1992. A body dropped with a uniformly random
//! orientation and no bounce first touches down on the hull face whose outward normal is closest to
//! gravity; the directions that pick face `f` are the cone the face subtends from the centre of
//! mass, so `f` is hit with probability `Ω_f / 4π` (`Ω_f` its solid angle). An unstable face then
//! rolls over an edge onto a neighbour until a stable face is reached, which collects its share.
//!
//! Solid angles are exact: a fan of triangles, each by Van Oosterom & Strackee, "The solid angle of
//! a plane triangle", IEEE Trans. Biomed. Eng. BME-30(2), 1983.

use crate::shape::{Shape, ShapeError};
use glam::{DQuat, DVec3};
use std::f64::consts::PI;

/// The z value of a two-sided 95 % normal interval, used by [`wilson_interval`].
pub const Z_95: f64 = 1.959963984540054;

/// Hull triangles whose unit normals differ by less than this (≈ radians) lie on one face.
const NORMAL_TOL: f64 = 1e-9;
/// Hull triangles whose plane offsets differ by less than this times the hull's extent lie on one
/// face (together with [`NORMAL_TOL`]).
const PLANE_TOL: f64 = 1e-9;
/// A hull triangle with `|cross| <= SLIVER_TOL * (longest edge)²` (an angle below ~1e-10 rad) is a
/// sliver: its normal is rounding noise, so it is skipped (its vertices belong to its neighbours).
const SLIVER_TOL: f64 = 1e-10;
/// Polygon vertices that turn by less than this times the extent² (a 2D cross product) are dropped
/// as collinear, so that each polygon edge is a whole hull edge.
const COLLINEAR_TOL: f64 = 1e-12;
/// A face is stable when the centre of mass projects inside its polygon by more than
/// `STABILITY_MARGIN` times the hull's extent (largest distance of a vertex from the centre of
/// mass). A projection on the boundary within that margin is a knife-edge balance, which a dropped
/// body never keeps: it counts as unstable and tips over that edge.
pub const STABILITY_MARGIN: f64 = 1e-9;
/// Quantum (of probability and of normal components) under which two faces tie when numbering poses.
const KEY_QUANTUM: f64 = 1e-9;

/// One face of a body's convex hull: the union of its coplanar hull triangles.
#[derive(Clone, Debug, PartialEq)]
pub struct Face {
    /// Outward unit normal, in the body (shape) frame.
    pub normal: DVec3,
    /// The face polygon, counter-clockwise seen from outside, without collinear vertices.
    pub vertices: Vec<DVec3>,
    /// Area of the polygon (m²).
    pub area: f64,
}

/// The stable-pose table of a polyhedral body; every per-face vector is indexed like `faces`.
#[derive(Clone, Debug, PartialEq)]
pub struct PoseTable {
    /// Every hull face (coplanar triangles merged), sorted by outward normal (x, then y, then z,
    /// ascending after rounding to 1e-9), so that the order does not depend on the hull algorithm.
    pub faces: Vec<Face>,
    /// Centre of mass at uniform density, in the body frame.
    pub center_of_mass: DVec3,
    /// Whether the body can rest on the face (see [`STABILITY_MARGIN`]).
    pub stable: Vec<bool>,
    /// The face the body tips onto from this face, one step (itself if stable).
    pub rolls_onto: Vec<usize>,
    /// The stable face where the chain of tips from this face ends (itself if stable).
    pub settles_on: Vec<usize>,
    /// Quasi-static probability of coming to rest on the face (Wiegley, Rao & Goldberg 1992):
    /// the solid angle of the face from the centre of mass over 4π, plus the shares of the unstable
    /// faces that settle on it; 0 for unstable faces. Sums to 1.
    pub quasi_static: Vec<f64>,
    /// Pose id of each stable face (`None` for unstable ones). Stable faces are numbered `0..` by
    /// descending `quasi_static`, ties (within 1e-9) broken by the face order (ascending normal).
    pub pose_of_face: Vec<Option<usize>>,
}

impl PoseTable {
    /// The number of stable poses.
    pub fn pose_count(&self) -> usize {
        self.stable.iter().filter(|s| **s).count()
    }

    /// The face index of each pose id: `face_of_pose()[pose] == face`.
    pub fn face_of_pose(&self) -> Vec<usize> {
        let mut faces = vec![0; self.pose_count()];
        for (face, pose) in self.pose_of_face.iter().enumerate() {
            if let Some(pose) = pose {
                faces[*pose] = face;
            }
        }
        faces
    }
}

/// Why a pose table cannot be built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PoseError {
    /// The body has curved surfaces (or is a plane), so it has no finite set of faces.
    #[error(
        "a pose table needs a polyhedral body (a box, a convex hull, or a compound of those): {0}"
    )]
    NotPolyhedral(String),
    /// The shape itself is invalid.
    #[error("invalid shape: {0}")]
    Shape(#[from] ShapeError),
    /// The convex hull could not be built or is not a closed polyhedron.
    #[error("convex hull: {0}")]
    Hull(String),
    /// Rolling from a face never reaches a stable face (numerical trouble: each tip lowers the
    /// centre of mass, so this cannot happen on an exact hull).
    #[error("rolling from hull face {0} cycles without reaching a stable face")]
    RollCycle(usize),
}

/// Builds the pose table of a box, a convex hull, or a compound of boxes and convex hulls, in the
/// shape's own frame. Curved shapes (sphere, capsule, cylinder, or a compound containing one) and
/// planes are [`PoseError::NotPolyhedral`].
pub fn pose_table(shape: &Shape) -> Result<PoseTable, PoseError> {
    shape.validate()?;
    let points = polyhedral_points(shape)?;
    let com = crate::mass_properties::mass_properties(shape, 1.0)?.center_of_mass;
    let faces = hull_faces(&points)?;
    let n = faces.len();
    let extent = faces
        .iter()
        .flat_map(|f| &f.vertices)
        .map(|v| (*v - com).length())
        .fold(0.0, f64::max);

    let mut stable = vec![false; n];
    let mut rolls_onto: Vec<usize> = (0..n).collect();
    for (i, face) in faces.iter().enumerate() {
        match tipping_edge(face, com, STABILITY_MARGIN * extent) {
            None => stable[i] = true,
            Some((a, b)) => rolls_onto[i] = neighbour(&faces, i, a, b, PLANE_TOL * extent)?,
        }
    }
    let settles_on = (0..n)
        .map(|i| chain_end(&rolls_onto, &stable, i))
        .collect::<Result<Vec<_>, _>>()?;

    let omega: Vec<f64> = faces
        .iter()
        .map(|f| polygon_solid_angle(&f.vertices, com))
        .collect();
    let total: f64 = omega.iter().sum();
    if !total.is_finite() || (total - 4.0 * PI).abs() > 1e-9 * 4.0 * PI {
        return Err(PoseError::Hull(format!(
            "the faces subtend {total} sr from the centre of mass instead of 4π: not closed"
        )));
    }
    let mut quasi_static = vec![0.0; n];
    for (i, w) in omega.iter().enumerate() {
        quasi_static[settles_on[i]] += w / (4.0 * PI);
    }

    let mut order: Vec<usize> = (0..n).filter(|i| stable[*i]).collect();
    // Quantised keys keep the comparison a total order while treating rounding noise as a tie;
    // the faces are already sorted by normal, so the index breaks ties by normal.
    order.sort_by_key(|i| (-quantise(quasi_static[*i]), *i));
    let mut pose_of_face = vec![None; n];
    for (pose, face) in order.into_iter().enumerate() {
        pose_of_face[face] = Some(pose);
    }
    Ok(PoseTable {
        faces,
        center_of_mass: com,
        stable,
        rolls_onto,
        settles_on,
        quasi_static,
        pose_of_face,
    })
}

/// Which pose a body rests in: given its orientation (body frame → world) and the world's down
/// direction (gravity; need not be unit, must be non-zero), the face whose outward normal in the
/// world is closest to `down`, and that face's pose id (`None` if the face is unstable).
pub fn classify(table: &PoseTable, orientation: DQuat, down: DVec3) -> (Option<usize>, usize) {
    let down_in_body = orientation.normalize().inverse() * down.normalize();
    let mut best = (0, f64::NEG_INFINITY);
    for (i, face) in table.faces.iter().enumerate() {
        let d = face.normal.dot(down_in_body);
        if d > best.1 {
            best = (i, d);
        }
    }
    (table.pose_of_face[best.0], best.0)
}

/// The 95 % Wilson score interval of a proportion `count / n` (z = [`Z_95`]), clamped to [0, 1].
/// With `n == 0` there is no information and the interval is the whole of (0, 1).
///
/// # Panics
/// If `count > n`.
pub fn wilson_interval(count: u64, n: u64) -> (f64, f64) {
    assert!(count <= n, "wilson_interval: count {count} > n {n}");
    if n == 0 {
        return (0.0, 1.0);
    }
    let (k, n) = (count as f64, n as f64);
    let p = k / n;
    let z2 = Z_95 * Z_95;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = Z_95 / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    // The ends are exactly 0 at count 0 and 1 at count n; rounding would leave ±1e-16.
    let low = if count == 0 { 0.0 } else { centre - half };
    let high = if count as f64 == n {
        1.0
    } else {
        centre + half
    };
    (low.max(0.0), high.min(1.0))
}

/// `x` in units of [`KEY_QUANTUM`], rounded: a total-order sort key.
fn quantise(x: f64) -> i64 {
    (x / KEY_QUANTUM).round() as i64
}

/// The points whose convex hull is the body: box corners, convex vertices, or those of each
/// compound part placed in the compound's frame.
fn polyhedral_points(shape: &Shape) -> Result<Vec<DVec3>, PoseError> {
    match shape {
        Shape::Box { half_extents: h } => Ok((0..8)
            .map(|i| {
                let s = |bit: i32| if i & bit == 0 { -1.0 } else { 1.0 };
                DVec3::new(s(1), s(2), s(4)) * *h
            })
            .collect()),
        Shape::Convex { vertices }
        | Shape::Mesh {
            collision: crate::mesh::MeshCollision::Hull { vertices },
            ..
        } => Ok(vertices.clone()),
        Shape::Mesh {
            collision: crate::mesh::MeshCollision::Decomposed { parts },
            ..
        } => Ok(parts.concat()),
        Shape::Compound { parts } => {
            let mut points = Vec::new();
            for (i, part) in parts.iter().enumerate() {
                let local = polyhedral_points(&part.shape).map_err(|_| {
                    PoseError::NotPolyhedral(format!(
                        "compound part {i} is a {}",
                        part.shape.type_name()
                    ))
                })?;
                let q = part.orientation.normalize();
                points.extend(local.into_iter().map(|p| part.position + q * p));
            }
            Ok(points)
        }
        other => Err(PoseError::NotPolyhedral(format!(
            "got a {}",
            other.type_name()
        ))),
    }
}

/// The faces of the convex hull of `points`: hull triangles grouped by plane, each group's vertices
/// made into a convex polygon; sorted by quantised normal.
fn hull_faces(points: &[DVec3]) -> Result<Vec<Face>, PoseError> {
    let (hull, triangles) = parry3d_f64::transformation::try_convex_hull(points)
        .map_err(|e| PoseError::Hull(e.to_string()))?;
    if hull.len() < 4 || triangles.len() < 4 {
        return Err(PoseError::Hull("the hull is flat".into()));
    }
    let inside = hull.iter().sum::<DVec3>() / hull.len() as f64;
    let extent = hull
        .iter()
        .map(|p| (*p - inside).length())
        .fold(0.0, f64::max);

    // (outward unit normal, offset from `inside`, vertices) of each distinct plane.
    let mut planes: Vec<(DVec3, f64, Vec<DVec3>)> = Vec::new();
    for t in &triangles {
        let [a, b, c] = t.map(|i| hull[i as usize]);
        let cross = (b - a).cross(c - a);
        let longest = (b - a)
            .length_squared()
            .max((c - b).length_squared())
            .max((a - c).length_squared());
        if cross.length() <= SLIVER_TOL * longest {
            continue;
        }
        let mut normal = cross.normalize();
        if normal.dot(a - inside) < 0.0 {
            normal = -normal;
        }
        let offset = normal.dot(a - inside);
        let same = planes.iter_mut().find(|(n, d, _)| {
            (*n - normal).length() < NORMAL_TOL && (*d - offset).abs() < PLANE_TOL * extent
        });
        match same {
            Some((_, _, vertices)) => vertices.extend([a, b, c]),
            None => planes.push((normal, offset, vec![a, b, c])),
        }
    }

    let mut faces = Vec::with_capacity(planes.len());
    for (normal, _, points) in planes {
        let vertices = convex_polygon(&points, normal, COLLINEAR_TOL * extent * extent);
        // Newell's vector of a planar polygon is twice its area times its unit normal; taken
        // about the first vertex so that a face far from the origin loses no digits.
        let newell = (1..vertices.len().saturating_sub(1))
            .map(|i| (vertices[i] - vertices[0]).cross(vertices[i + 1] - vertices[0]))
            .sum::<DVec3>();
        if vertices.len() < 3 || newell.dot(normal) <= 0.0 {
            return Err(PoseError::Hull("a hull face has no area".into()));
        }
        faces.push(Face {
            normal: newell.normalize(),
            vertices,
            area: 0.5 * newell.length(),
        });
    }
    faces.sort_by_key(|f| f.normal.to_array().map(quantise));
    Ok(faces)
}

/// The convex hull of coplanar `points` (plane normal `normal`), counter-clockwise seen from the
/// side `normal` points to; turns below `tol` (a 2D cross product) count as straight and are
/// dropped. Andrew's monotone chain in a basis `(u, w)` of the plane with `u × w = normal`.
fn convex_polygon(points: &[DVec3], normal: DVec3, tol: f64) -> Vec<DVec3> {
    let u = normal.any_orthonormal_vector();
    let w = normal.cross(u);
    let mut pts: Vec<(f64, f64, DVec3)> = points.iter().map(|p| (p.dot(u), p.dot(w), *p)).collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let turn = |o: &(f64, f64, DVec3), a: &(f64, f64, DVec3), b: &(f64, f64, DVec3)| {
        (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
    };
    let mut hull: Vec<(f64, f64, DVec3)> = Vec::with_capacity(pts.len() + 1);
    for pass in 0..2 {
        let start = hull.len();
        let seq: Box<dyn Iterator<Item = &(f64, f64, DVec3)>> = if pass == 0 {
            Box::new(pts.iter())
        } else {
            Box::new(pts.iter().rev())
        };
        for p in seq {
            while hull.len() >= start + 2
                && turn(&hull[hull.len() - 2], &hull[hull.len() - 1], p) <= tol
            {
                hull.pop();
            }
            hull.push(*p);
        }
        hull.pop(); // the last point of each chain starts the other
    }
    hull.into_iter().map(|p| p.2).collect()
}

/// `None` if the centre of mass projects inside `face` by more than `margin`; otherwise the edge
/// `(a, b)` the body tips over: the one whose line the projection lies farthest beyond. Rotating
/// about an edge whose line lies a distance `s` inside the projection lowers the centre of mass by
/// `s` per radian at first, so this is the tip of steepest initial descent (and the only one when
/// the projection is beyond a single edge line, the usual case).
fn tipping_edge(face: &Face, com: DVec3, margin: f64) -> Option<(DVec3, DVec3)> {
    let v = &face.vertices;
    let mut best = (f64::NEG_INFINITY, 0);
    for i in 0..v.len() {
        let (a, b) = (v[i], v[(i + 1) % v.len()]);
        // CCW seen from outside: the interior is to the left, `normal × edge`.
        let outward = (b - a).cross(face.normal).normalize();
        let beyond = outward.dot(com - a);
        if beyond > best.0 {
            best = (beyond, i);
        }
    }
    (best.0 >= -margin).then(|| (v[best.1], v[(best.1 + 1) % v.len()]))
}

/// The hull face other than `from` that contains the edge `(a, b)` (both ends within `tol` of its
/// plane); if rounding admits several, the one with the smallest dihedral turn from `from`, which is
/// the first to reach the ground as the body tips.
fn neighbour(
    faces: &[Face],
    from: usize,
    a: DVec3,
    b: DVec3,
    tol: f64,
) -> Result<usize, PoseError> {
    let on = |f: &Face, p: DVec3| (f.normal.dot(p - f.vertices[0])).abs() <= tol;
    faces
        .iter()
        .enumerate()
        .filter(|(i, f)| *i != from && on(f, a) && on(f, b))
        .max_by(|x, y| {
            let n = faces[from].normal;
            n.dot(x.1.normal).total_cmp(&n.dot(y.1.normal))
        })
        .map(|(i, _)| i)
        .ok_or_else(|| PoseError::Hull(format!("an edge of face {from} has no neighbouring face")))
}

/// The stable face where tipping from `start` ends; a cycle (impossible on an exact hull) is an
/// error rather than a hang.
fn chain_end(rolls_onto: &[usize], stable: &[bool], start: usize) -> Result<usize, PoseError> {
    let mut face = start;
    for _ in 0..=rolls_onto.len() {
        if stable[face] {
            return Ok(face);
        }
        face = rolls_onto[face];
    }
    Err(PoseError::RollCycle(start))
}

/// Solid angle (sr) a convex planar polygon subtends from `eye`, positive when the polygon is
/// counter-clockwise seen from the side away from `eye`: the sum over the fan `(v0, vi, vi+1)`.
fn polygon_solid_angle(vertices: &[DVec3], eye: DVec3) -> f64 {
    (1..vertices.len() - 1)
        .map(|i| triangle_solid_angle(vertices[0] - eye, vertices[i] - eye, vertices[i + 1] - eye))
        .sum()
}

/// Signed solid angle of the triangle `(a, b, c)` (vectors from the eye), by Van Oosterom &
/// Strackee (1983): `tan(Ω/2) = a·(b×c) / (|a||b||c| + (a·b)|c| + (a·c)|b| + (b·c)|a|)`; `atan2`
/// puts Ω/2 in the right quadrant when the denominator is negative (Ω > π).
fn triangle_solid_angle(a: DVec3, b: DVec3, c: DVec3) -> f64 {
    let (la, lb, lc) = (a.length(), b.length(), c.length());
    let num = a.dot(b.cross(c));
    let den = la * lb * lc + a.dot(b) * lc + a.dot(c) * lb + b.dot(c) * la;
    2.0 * num.atan2(den)
}

#[cfg(test)]
mod tests;
