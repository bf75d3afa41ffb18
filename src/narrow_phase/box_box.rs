//! Two boxes apart, by hand: the separating-axis test over their 15 axes, then the incident face
//! clipped against the reference face (Gottschalk, Lin & Manocha's OBB test, 1996; the clipping
//! of ODE's `dBoxBox` and Box2D v3's polygon manifold).
//!
//! The answer is only given where it is provably exact, and the caller asks parry otherwise:
//! every axis's separation is a lower bound on the distance (separating-axis theorem), so when
//! a real pair of points, one on each box, lies that far apart along the best axis, that is the
//! distance. For a face axis the pair is a point of the incident face inside the reference
//! face's prism and its projection on the reference face; for an edge axis the closest points
//! of the two supporting edges, when both fall inside their edges. A pair of boxes apart corner
//! to corner or corner to edge has no such pair (its closest points are not along any of the 15
//! axes) and goes to GJK; so do overlapping boxes, whose depth EPA finds.
//!
//! In a pile of boxes nearly every pair is face on face, edge or corner on face, or edge across
//! edge, and this path answers it without GJK's simplex or parry's manifold (measured on the
//! funnel: see `docs/performance.md`).

use super::contact::{reduce_manifold, ContactPoint};
use glam::{DMat3, DQuat, DVec3};

/// A box in world coordinates: centre, unit axes (the columns of its rotation) and half extents.
pub(super) struct WorldBox {
    center: DVec3,
    axes: [DVec3; 3],
    half: DVec3,
}

impl WorldBox {
    /// The box of half extents `half` centred at `center`, turned by `rotation`.
    pub(super) fn new(center: DVec3, rotation: DQuat, half: DVec3) -> WorldBox {
        let m = DMat3::from_quat(rotation);
        WorldBox {
            center,
            axes: [m.x_axis, m.y_axis, m.z_axis],
            half,
        }
    }
}

/// Which of `axes` is most nearly parallel (or anti-parallel) to `dir`: the axis of the face
/// of a box most turned towards `dir` or against it.
fn most_aligned(axes: &[DVec3; 3], dir: DVec3) -> usize {
    (0..3)
        .max_by(|&p, &q| dir.dot(axes[p]).abs().total_cmp(&dir.dot(axes[q]).abs()))
        .expect("three axes")
}

/// Edge axes shorter than this (|a_i × b_j|, unit axes) are skipped: nearly parallel edges,
/// whose cross product is a direction rounding decides. Skipping an axis leaves the separation
/// a lower bound, and the exactness check below decides whether it is the distance.
const PARALLEL: f64 = 1e-6;

/// The best separating axis found: its separation and what it is.
#[derive(Clone, Copy)]
enum Axis {
    /// Face `i` of box `a` (`reference_is_a`) or of box `b`.
    Face { reference_is_a: bool, i: usize },
    /// Edge `i` of a across edge `j` of b.
    Edge { i: usize, j: usize },
}

/// Proximity of boxes `a` and `b` when it can be answered exactly by the separating axes (see
/// the module doc): the closest pair (normal from b towards a, separation ≥ 0), with the contact
/// manifold appended to `out` (closest first, at most 4 points, each within `margin`) when the
/// separation is within `margin`. `None`, with `out` untouched, leaves the pair to the general
/// path. `tie` is the rounding allowance of a length comparison and `duplicate` the distance
/// under which two manifold points are one.
pub(super) fn box_box(
    a: &WorldBox,
    b: &WorldBox,
    margin: f64,
    tie: f64,
    duplicate: f64,
    out: &mut Vec<ContactPoint>,
) -> Option<ContactPoint> {
    let start = out.len();
    let closest = unreduced(a, b, margin, tie, duplicate, out)?;
    if out.len() > start {
        reduce_manifold(out, start);
    }
    Some(closest)
}

/// [`box_box`] with the whole clipped manifold (up to 8 points besides the closest pair).
///
/// The 15 axes are tested in a's frame, as Gottschalk, Lin & Manocha do (§4, Table 1): with
/// `r[i][j] = a_i · b_j` and `t` the centres' offset along a's axes, an edge axis `a_i × b_j`
/// is `e_i × r[.][j]` there, so its length, its projected radii and the offset along it are a
/// few products of `r` and `t` (no cross product or normalisation per axis). Its length is
/// `√(r[i1][j]² + r[i2][j]²)`, free of the cancellation of `√(1 − r[i][j]²)`.
fn unreduced(
    a: &WorldBox,
    b: &WorldBox,
    margin: f64,
    tie: f64,
    duplicate: f64,
    out: &mut Vec<ContactPoint>,
) -> Option<ContactPoint> {
    let d = b.center - a.center;
    let (ax, bx) = (&a.axes, &b.axes);
    let (ha, hb) = (a.half.to_array(), b.half.to_array());
    let mut r = [[0.0; 3]; 3];
    let mut c = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            r[i][j] = ax[i].dot(bx[j]);
            c[i][j] = r[i][j].abs();
        }
    }
    let t = [d.dot(ax[0]), d.dot(ax[1]), d.dot(ax[2])];
    let mut best = (
        f64::NEG_INFINITY,
        Axis::Face {
            reference_is_a: true,
            i: 0,
        },
    );
    for i in 0..3 {
        let rb = hb[0] * c[i][0] + hb[1] * c[i][1] + hb[2] * c[i][2];
        let sep = t[i].abs() - ha[i] - rb;
        if sep > best.0 {
            best = (
                sep,
                Axis::Face {
                    reference_is_a: true,
                    i,
                },
            );
        }
    }
    for j in 0..3 {
        let ra = ha[0] * c[0][j] + ha[1] * c[1][j] + ha[2] * c[2][j];
        let sep = d.dot(bx[j]).abs() - hb[j] - ra;
        if sep > best.0 {
            best = (
                sep,
                Axis::Face {
                    reference_is_a: false,
                    i: j,
                },
            );
        }
    }
    // An edge axis must beat the best face by more than rounding: a face gives a whole patch,
    // and where both are as good (an edge lying on a face) the face's manifold is the right one.
    let face_best = best.0;
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for j in 0..3 {
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            // a_i × b_j = e_i2·r[i1][j] − e_i1·r[i2][j] in a's frame.
            let len = (r[i1][j] * r[i1][j] + r[i2][j] * r[i2][j]).sqrt();
            if len < PARALLEL {
                continue;
            }
            let offset = t[i2] * r[i1][j] - t[i1] * r[i2][j];
            let ra = ha[i1] * c[i2][j] + ha[i2] * c[i1][j];
            let rb = hb[j1] * c[i][j2] + hb[j2] * c[i][j1];
            let sep = (offset.abs() - ra - rb) / len;
            if sep > best.0 && sep > face_best + tie {
                best = (sep, Axis::Edge { i, j });
            }
        }
    }
    let (sep, axis) = best;
    if sep.is_nan() || sep <= 0.0 {
        return None; // overlapping: EPA's depth (or a NaN pose: parry's answer)
    }
    match axis {
        Axis::Face { reference_is_a, i } => {
            let (reference, incident) = if reference_is_a { (a, b) } else { (b, a) };
            face_contact(
                reference,
                incident,
                i,
                reference_is_a,
                sep,
                margin,
                tie,
                duplicate,
                out,
            )
        }
        Axis::Edge { i, j } => edge_contact(a, b, i, j, sep, margin, tie, duplicate, out),
    }
}

/// A point in the reference box's frame (coordinates along its axes from its centre).
type Local = [f64; 3];

impl WorldBox {
    /// `v` (a world vector) along this box's axes.
    fn local(&self, v: DVec3) -> Local {
        [
            self.axes[0].dot(v),
            self.axes[1].dot(v),
            self.axes[2].dot(v),
        ]
    }

    /// The world point of `p` (this box's frame).
    fn world(&self, p: Local) -> DVec3 {
        self.center + self.axes[0] * p[0] + self.axes[1] * p[1] + self.axes[2] * p[2]
    }
}

/// The incident box's face most turned towards the reference face `i` on side `side` (±1:
/// outward normal `side · r_i`), clipped, as seen along `dir`, to the reference face: the
/// prism along `dir` over the reference face, whose four side planes pass through the face's
/// edges and contain `dir`. Done in the reference box's frame, where projecting a point along
/// `dir` onto the face's plane is affine and leaves the prism's side planes as the lines
/// `±x_m = h_m` of the face's rectangle: Sutherland–Hodgman against them, carrying each
/// clipped point's own coordinates (for a face axis `dir` is the face's normal and the
/// projection keeps `x_m`). Returns the clipped points (at most 8) on the incident face, in
/// the reference frame, none if it misses the prism. This is the projected face–face clipping
/// of parry's `PolygonalFeature::contacts` and Box2D v3's `b2ClipPolygons` (the same polygon).
fn clipped_face(
    reference: &WorldBox,
    i: usize,
    side: f64,
    dir: DVec3,
    incident: &WorldBox,
    duplicate: f64,
) -> ([Local; 8], usize) {
    let ix = &incident.axes;
    let face = reference.axes[i] * side;
    let k = most_aligned(ix, face);
    // Its outward normal points against the reference face's.
    let sign = if face.dot(ix[k]) > 0.0 { -1.0 } else { 1.0 };
    let (k1, k2) = ((k + 1) % 3, (k + 2) % 3);
    let centre =
        reference.local(incident.center - reference.center + ix[k] * (sign * incident.half[k]));
    let e1 = reference.local(ix[k1] * incident.half[k1]);
    let e2 = reference.local(ix[k2] * incident.half[k2]);
    let corner = |s1: f64, s2: f64| -> Local {
        std::array::from_fn(|m| centre[m] + s1 * e1[m] + s2 * e2[m])
    };
    let mut poly = [[0.0; 3]; 8];
    poly[..4].copy_from_slice(&[
        corner(1.0, 1.0),
        corner(-1.0, 1.0),
        corner(-1.0, -1.0),
        corner(1.0, -1.0),
    ]);
    let mut count = 4;
    let mut next = [[0.0; 3]; 8];
    // Along `dir`, onto the face's plane `x_i = side · h_i`: `x_m − slope_m·(x_i − side·h_i)`.
    let dl = reference.local(dir);
    let plane = side * reference.half[i];
    let duplicate_sq = duplicate * duplicate;
    for m in (0..3).filter(|&m| m != i) {
        let slope = dl[m] / dl[i];
        let half = reference.half[m];
        for s in [1.0, -1.0] {
            // Outside by this much past the edge at `s · h_m` along r_m.
            let out = |p: &Local| s * (p[m] - slope * (p[i] - plane)) - half;
            let mut outside = [0.0; 8];
            let (mut any_in, mut any_out) = (false, false);
            for (o, p) in outside.iter_mut().zip(&poly[..count]) {
                *o = out(p);
                any_in |= *o <= 0.0;
                any_out |= *o > 0.0;
            }
            if !any_out {
                continue; // wholly inside this side: nothing to clip
            }
            if !any_in {
                return (poly, 0);
            }
            // Each edge from `e` to the next: `e` kept if inside, the crossing added.
            let mut n = 0;
            for e in 0..count {
                let f = if e + 1 == count { 0 } else { e + 1 };
                let (dp, dq) = (outside[e], outside[f]);
                if dp <= 0.0 {
                    n = push_distinct(&mut next, n, poly[e], duplicate_sq);
                }
                if (dp <= 0.0) != (dq <= 0.0) {
                    let (p, q) = (&poly[e], &poly[f]);
                    let t = dp / (dp - dq);
                    let x = std::array::from_fn(|c| p[c] + (q[c] - p[c]) * t);
                    n = push_distinct(&mut next, n, x, duplicate_sq);
                }
            }
            if n > 1 && distance_sq(&next[0], &next[n - 1]) <= duplicate_sq {
                n -= 1;
            }
            poly[..n].copy_from_slice(&next[..n]);
            count = n;
            if count == 0 {
                return (poly, 0);
            }
        }
    }
    (poly, count)
}

/// The squared distance of two points.
fn distance_sq(p: &Local, q: &Local) -> f64 {
    let d = [p[0] - q[0], p[1] - q[1], p[2] - q[2]];
    d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
}

/// The face axis `i` of `reference`: exact when a point of the incident face inside the
/// reference face's prism lies `sep` from the reference plane (to `tie`); that point is the
/// closest pair, and the clipped face within `margin` the manifold.
#[allow(clippy::too_many_arguments)]
fn face_contact(
    reference: &WorldBox,
    incident: &WorldBox,
    i: usize,
    reference_is_a: bool,
    sep: f64,
    margin: f64,
    tie: f64,
    duplicate: f64,
    out: &mut Vec<ContactPoint>,
) -> Option<ContactPoint> {
    let axis = reference.axes[i];
    let side = if (incident.center - reference.center).dot(axis) >= 0.0 {
        1.0
    } else {
        -1.0
    };
    let u = axis * side;
    let (poly, count) = clipped_face(reference, i, side, u, incident, duplicate);
    let h = reference.half[i];
    let depth = |p: &Local| side * p[i] - h;
    // The first clipped point as deep as the separation (to rounding): a face flat on a face
    // has four, and which one leads must not be left to rounding.
    let deepest = (0..count).find(|&e| (depth(&poly[e]) - sep).abs() <= tie)?;
    // Normal from body b towards body a.
    let normal = if reference_is_a { -u } else { u };
    // Halfway between the incident point and its foot on the reference face.
    let contact = |p: &Local, separation: f64| {
        let mut mid = *p;
        mid[i] -= side * 0.5 * depth(p);
        ContactPoint {
            position: reference.world(mid),
            separation,
            normal,
        }
    };
    let closest = contact(&poly[deepest], sep);
    if sep > margin {
        return Some(closest);
    }
    out.push(closest);
    for (e, p) in poly[..count].iter().enumerate() {
        let h = depth(p);
        if e != deepest && h <= margin {
            // Points as deep as the closest pair (to rounding) are as deep: one separation.
            out.push(contact(p, if h - sep <= tie { sep } else { h }));
        }
    }
    Some(closest)
}

/// Appends `p` to `poly[..n]` unless it repeats the last point (within `√duplicate_sq`);
/// returns the new length.
fn push_distinct(poly: &mut [Local; 8], n: usize, p: Local, duplicate_sq: f64) -> usize {
    if n > 0 && distance_sq(&poly[n - 1], &p) <= duplicate_sq {
        return n;
    }
    if n == poly.len() {
        return n; // a convex quad clipped by 4 planes has at most 8 vertices
    }
    poly[n] = p;
    n + 1
}

/// Edge `i` of a across edge `j` of b: the closest points of the two supporting edges (the
/// edges of each box farthest towards the other along the axis). Exact when both fall inside
/// their edges and lie `sep` apart (to `tie`).
#[allow(clippy::too_many_arguments)]
fn edge_contact(
    a: &WorldBox,
    b: &WorldBox,
    i: usize,
    j: usize,
    sep: f64,
    margin: f64,
    tie: f64,
    duplicate: f64,
    out: &mut Vec<ContactPoint>,
) -> Option<ContactPoint> {
    let (ax, bx) = (&a.axes, &b.axes);
    let mut u = ax[i].cross(bx[j]).normalize();
    if (b.center - a.center).dot(u) < 0.0 {
        u = -u; // from a towards b
    }
    let signed = |v: DVec3, s: f64| if v.dot(u) * s >= 0.0 { 1.0 } else { -1.0 };
    // a's edge farthest along u, b's farthest along −u.
    let mut pa = a.center;
    let mut pb = b.center;
    for k in 0..3 {
        if k != i {
            pa += ax[k] * (signed(ax[k], 1.0) * a.half[k]);
        }
        if k != j {
            pb += bx[k] * (signed(bx[k], -1.0) * b.half[k]);
        }
    }
    // Closest points of the lines pa + t·e1 and pb + s·e2 (unit directions).
    let (e1, e2) = (ax[i], bx[j]);
    let r = pa - pb;
    let cos = e1.dot(e2);
    let denom = 1.0 - cos * cos;
    if denom <= PARALLEL * PARALLEL {
        return None;
    }
    let t = (cos * e2.dot(r) - e1.dot(r)) / denom;
    let s = e2.dot(r) + cos * t;
    if t.abs() > a.half[i] || s.abs() > b.half[j] {
        return None; // an edge ends first: a corner's case
    }
    let on_a = pa + e1 * t;
    let on_b = pb + e2 * s;
    if (on_a.distance(on_b) - sep).abs() > tie {
        return None;
    }
    let mut closest = ContactPoint {
        position: (on_a + on_b) * 0.5,
        separation: sep,
        normal: -u,
    };
    if sep > margin {
        return Some(closest);
    }
    // The manifold as parry builds it for an edge axis: a's face most turned along the axis
    // clipped, as seen along the axis, with b's face most turned against it, each point with
    // the axis's normal and the faces' distance along it there, never nearer than the closest
    // pair. Two faces all but parallel whose nearest features are two crossing edges touch
    // over the whole patch, not at one point.
    let start = out.len();
    out.push(closest);
    let k = most_aligned(ax, u);
    let side = if u.dot(ax[k]) >= 0.0 { 1.0 } else { -1.0 };
    let (poly, count) = clipped_face(a, k, side, u, b, duplicate);
    let slope = side * u.dot(ax[k]);
    for p in &poly[..count] {
        // From p back along u to a's face plane.
        let h = (side * p[k] - a.half[k]) / slope;
        let position = a.world(*p) - u * (0.5 * h);
        if h <= margin && position.distance(closest.position) > duplicate {
            out.push(ContactPoint {
                position,
                separation: if h - sep <= tie { sep } else { h },
                normal: -u,
            });
        }
    }
    // A manifold point as near as the closest pair (to rounding) stands for it, so the patch
    // keeps its corners (as on the general path).
    if let Some(k) = (start + 1..out.len()).find(|&k| out[k].separation <= sep + tie) {
        closest = ContactPoint {
            separation: sep,
            ..out[k]
        };
        out[start] = closest;
        out.remove(k);
    }
    Some(closest)
}

#[cfg(test)]
mod tests;
