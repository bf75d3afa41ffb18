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
    // |a_i · b_j|, reused by the face axes' projected radii.
    let mut c = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            c[i][j] = ax[i].dot(bx[j]).abs();
        }
    }
    let mut best = (
        f64::NEG_INFINITY,
        Axis::Face {
            reference_is_a: true,
            i: 0,
        },
    );
    for i in 0..3 {
        let rb = b.half.x * c[i][0] + b.half.y * c[i][1] + b.half.z * c[i][2];
        let sep = d.dot(ax[i]).abs() - a.half[i] - rb;
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
        let ra = a.half.x * c[0][j] + a.half.y * c[1][j] + a.half.z * c[2][j];
        let sep = d.dot(bx[j]).abs() - b.half[j] - ra;
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
        for j in 0..3 {
            let axis = ax[i].cross(bx[j]);
            let len = axis.length();
            if len < PARALLEL {
                continue;
            }
            let n = axis / len;
            let ra = (0..3).map(|k| a.half[k] * ax[k].dot(n).abs()).sum::<f64>();
            let rb = (0..3).map(|k| b.half[k] * bx[k].dot(n).abs()).sum::<f64>();
            let sep = d.dot(n).abs() - ra - rb;
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

/// The incident box's face most turned towards the reference face `i` (outward normal `face`)
/// clipped, as seen along `dir`, to the reference face: Sutherland–Hodgman against the four
/// planes through the reference face's edges that contain `dir` (its prism along `dir`; for a
/// face axis `dir` is the face's own normal). Returns the clipped points (at most 8) on the
/// incident face, none if it misses the prism. This is the projected face–face clipping of
/// parry's `PolygonalFeature::contacts` (the same polygon), as clipping in 3D.
fn clipped_face(
    reference: &WorldBox,
    i: usize,
    face: DVec3,
    dir: DVec3,
    incident: &WorldBox,
    duplicate: f64,
) -> ([DVec3; 8], usize) {
    let (rx, ix) = (&reference.axes, &incident.axes);
    let k = most_aligned(ix, face);
    // Its outward normal points against the reference face's.
    let sign = if face.dot(ix[k]) > 0.0 { -1.0 } else { 1.0 };
    let face_center = incident.center + ix[k] * (sign * incident.half[k]);
    let (k1, k2) = ((k + 1) % 3, (k + 2) % 3);
    let (e1, e2) = (ix[k1] * incident.half[k1], ix[k2] * incident.half[k2]);
    let mut poly = [DVec3::ZERO; 8];
    poly[..4].copy_from_slice(&[
        face_center + e1 + e2,
        face_center - e1 + e2,
        face_center - e1 - e2,
        face_center + e1 - e2,
    ]);
    let mut count = 4;
    let mut next = [DVec3::ZERO; 8];
    for m in (0..3).filter(|&m| m != i) {
        // The side planes through the edges at ±h_m along r_m: they contain the edge direction
        // r_o and `dir`, and face outwards (towards ±r_m).
        let o = 3 - i - m;
        let across = rx[o].cross(dir);
        let across = if across.dot(rx[m]) >= 0.0 {
            across
        } else {
            -across
        };
        for s in [1.0, -1.0] {
            let plane = across * s;
            // Through the edge itself (on the face): `dir` need not lie along the face normal.
            let edge =
                reference.center + face * reference.half[i] + rx[m] * (s * reference.half[m]);
            let offset = plane.dot(edge);
            let mut n = 0;
            for e in 0..count {
                let (p, q) = (poly[e], poly[(e + 1) % count]);
                let (dp, dq) = (plane.dot(p) - offset, plane.dot(q) - offset);
                if dp <= 0.0 {
                    n = push_distinct(&mut next, n, p, duplicate);
                }
                if (dp <= 0.0) != (dq <= 0.0) {
                    let t = dp / (dp - dq);
                    n = push_distinct(&mut next, n, p + (q - p) * t, duplicate);
                }
            }
            if n > 1 && next[0].distance(next[n - 1]) <= duplicate {
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
    let u = if (incident.center - reference.center).dot(axis) >= 0.0 {
        axis
    } else {
        -axis
    };
    let (poly, count) = clipped_face(reference, i, u, u, incident, duplicate);
    let offset = u.dot(reference.center) + reference.half[i];
    let depth = |p: DVec3| u.dot(p) - offset;
    // The first clipped point as deep as the separation (to rounding): a face flat on a face
    // has four, and which one leads must not be left to rounding.
    let deepest = (0..count).find(|&e| (depth(poly[e]) - sep).abs() <= tie)?;
    // Normal from body b towards body a.
    let normal = if reference_is_a { -u } else { u };
    let contact = |p: DVec3, separation: f64| ContactPoint {
        position: p - u * (0.5 * depth(p)),
        separation,
        normal,
    };
    let closest = contact(poly[deepest], sep);
    if sep > margin {
        return Some(closest);
    }
    out.push(closest);
    for (e, &p) in poly[..count].iter().enumerate() {
        let h = depth(p);
        if e != deepest && h <= margin {
            // Points as deep as the closest pair (to rounding) are as deep: one separation.
            out.push(contact(p, if h - sep <= tie { sep } else { h }));
        }
    }
    Some(closest)
}

/// Appends `p` to `poly[..n]` unless it repeats the last point; returns the new length.
fn push_distinct(poly: &mut [DVec3; 8], n: usize, p: DVec3, duplicate: f64) -> usize {
    if n > 0 && poly[n - 1].distance(p) <= duplicate {
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
    let face = if u.dot(ax[k]) >= 0.0 { ax[k] } else { -ax[k] };
    let (poly, count) = clipped_face(a, k, face, u, b, duplicate);
    let (offset, slope) = (face.dot(a.center) + a.half[k], face.dot(u));
    for &p in &poly[..count] {
        // From p back along u to a's face plane.
        let h = (face.dot(p) - offset) / slope;
        let position = p - u * (0.5 * h);
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
