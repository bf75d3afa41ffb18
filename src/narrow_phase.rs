//! Distance and contact geometry between bodies: the narrow phase of the event loop.
//!
//! A [`Collider`] is a body's geometry in its body frame (origin at the centre of mass, axes along
//! the principal axes), as one or more convex parts, or a half-space. [`proximity`] returns the
//! smallest signed separation of two colliders, the closest (or deepest) pair of points and, within
//! a margin, the rest of the contact manifold: the points the collision response of Mirtich &
//! Canny (1994, §4) applies impulses at.
//!
//! Which routine answers which pair of convex parts:
//!
//! | pair                        | closest pair                          | manifold                         |
//! |-----------------------------|---------------------------------------|----------------------------------|
//! | ball–ball, ball–box         | by hand, closed form                  | the one point                    |
//! | plane–any part              | by hand: support points vs the plane  | every support point ≤ margin     |
//! | ball–capsule/cylinder/hull  | parry: projection of the centre       | the one point                    |
//! | box–box apart, exact by SAT | by hand: best of the 15 axes          | by hand: parry's face clipping   |
//! | other box–box               | parry: GJK, EPA when overlapping      | parry: SAT + face clipping       |
//! | other pairs                 | parry: GJK, EPA when overlapping      | parry: polygonal features clipped|
//!
//! Box pairs apart whose distance the separating axes prove (face on face, edge or corner on a
//! face, edge across edge: nearly every pair in a pile of boxes) are answered by hand; the rest
//! (corner to corner, corner to edge, overlapping) go to parry. See the `box_box` module.
//!
//! Support points against a plane: a ball's or capsule's core points, a box's corners, a hull's
//! vertices, a cylinder's 4 quarter points per rim starting from the lowest (exact lowest point;
//! a cylinder standing on its cap gives a square of 4 rim points). In parry's feature clipping a
//! cylinder's cap is a square inscribed in its rim, so its points are true rim points.
//!
//! Accuracy. Hand paths are exact to rounding. GJK stops when the distance has converged to
//! ~5e-8 relative: polytope pairs end on exact features (rounding-level error), curved pairs have a
//! normal only to ~1e-4 and a distance GJK may overstate (seen: 1.7e-6 relative), so a separated
//! curved pair reports the gap along GJK's axis from the support functions, which never overstates. Manifold points from parry carry their
//! separation along the manifold normal, clamped to be no smaller than the closest pair's (SAT can
//! understate the distance of boxes apart corner to corner); when a manifold point is as deep as
//! GJK's witness (a face on a face) it becomes the closest pair, so a box flat on a box reports its
//! 4 corners and not an arbitrary interior point besides.
//!
//! Compounds are handled here, part against part, with a bounding-sphere cull; each pair of parts
//! contributes at most 4 manifold points (Bullet's area-maximising reduction, keeping the deepest).
//!
//! No coherence is exploited: every query starts from scratch, so the result depends only on the
//! arguments (deterministic, and independent of the order in which pairs are processed). The
//! manifold query reuses the closest pair's normal as its GJK starting direction, which makes the
//! second GJK converge in one or two iterations. Queries allocate nothing on the heap beyond what
//! parry does inside EPA; parry's manifold buffer is a reused thread-local.

mod box_box;

use crate::shape::{Shape, ShapeError};
use box_box::{box_box, WorldBox};
use glam::{DQuat, DVec3};
use parry3d_f64::math::Pose as ParryPose;
use parry3d_f64::query::{
    ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher, QueryDispatcher,
};
use parry3d_f64::shape::{ConvexPolyhedron, SharedShape};
use std::cell::RefCell;

/// A rigid placement: body frame → world.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// World position of the body frame's origin (the centre of mass).
    pub position: DVec3,
    /// Rotation from the body frame to the world.
    pub orientation: DQuat,
}

impl Pose {
    /// The identity placement.
    pub const IDENTITY: Pose = Pose {
        position: DVec3::ZERO,
        orientation: DQuat::IDENTITY,
    };

    /// A placement from its parts.
    pub fn new(position: DVec3, orientation: DQuat) -> Pose {
        Pose {
            position,
            orientation,
        }
    }

    /// Maps a point from the body frame to the world.
    pub fn transform_point(&self, p: DVec3) -> DVec3 {
        self.position + self.orientation * p
    }

    /// Maps a point from the world to the body frame.
    pub fn inverse_transform_point(&self, p: DVec3) -> DVec3 {
        self.orientation.inverse() * (p - self.position)
    }

    /// `self ∘ inner`: the placement of a frame placed by `inner` inside the frame `self` places.
    pub fn compose(&self, inner: &Pose) -> Pose {
        Pose {
            position: self.transform_point(inner.position),
            orientation: self.orientation * inner.orientation,
        }
    }

    fn to_parry(self) -> ParryPose {
        ParryPose::from_parts(self.position, self.orientation)
    }
}

/// One contact point between two bodies, in world coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactPoint {
    /// Midpoint of the two closest (or deepest) points (m, world).
    pub position: DVec3,
    /// Signed separation along `normal` (m): > 0 apart, < 0 penetrating.
    pub separation: f64,
    /// Unit normal pointing from body b towards body a.
    pub normal: DVec3,
}

impl ContactPoint {
    /// The same contact seen with a and b swapped.
    fn flipped(self) -> ContactPoint {
        ContactPoint {
            normal: -self.normal,
            ..self
        }
    }

    /// The point of body a: `position + normal · separation / 2`.
    pub fn point_on_a(&self) -> DVec3 {
        self.position + self.normal * (0.5 * self.separation)
    }

    /// The point of body b: `position − normal · separation / 2`.
    pub fn point_on_b(&self) -> DVec3 {
        self.position - self.normal * (0.5 * self.separation)
    }
}

/// Collision geometry of one body, expressed in its body frame (origin at the centre of mass).
#[derive(Clone)]
pub struct Collider {
    /// The convex parts (one unless the shape is a compound); empty for a plane.
    parts: Vec<Part>,
    /// `(unit normal, offset)` of the half-space `normal · x <= offset`, body frame.
    plane: Option<(DVec3, f64)>,
    bounding_radius: f64,
    rotation_radius: f64,
}

/// One convex part: its geometry in the body frame, for the hand-written paths, and the same
/// solid as a parry shape placed by `local`, for the rest.
#[derive(Clone)]
struct Part {
    geom: Geom,
    shape: SharedShape,
    /// Parry shape frame → body frame (includes the y → z turn for cylinders).
    local: Pose,
    /// Centre of a sphere enclosing the part (body frame), for culling compound part pairs.
    sphere_center: DVec3,
    /// Radius of that sphere.
    sphere_radius: f64,
}

/// A convex part in the body frame.
#[derive(Clone, Debug)]
enum Geom {
    Ball {
        center: DVec3,
        radius: f64,
    },
    /// The segment `a`–`b` swept by a ball of `radius`.
    Capsule {
        a: DVec3,
        b: DVec3,
        radius: f64,
    },
    Box {
        center: DVec3,
        rotation: DQuat,
        half_extents: DVec3,
    },
    Cylinder {
        center: DVec3,
        axis: DVec3,
        radius: f64,
        half_height: f64,
    },
    /// Hull vertices only (interior points dropped).
    Convex {
        vertices: Vec<DVec3>,
    },
}

impl std::fmt::Debug for Collider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Collider")
            .field(
                "parts",
                &self.parts.iter().map(|p| &p.geom).collect::<Vec<_>>(),
            )
            .field("plane", &self.plane)
            .field("bounding_radius", &self.bounding_radius)
            .field("rotation_radius", &self.rotation_radius)
            .finish()
    }
}

/// Turns parry's y-axis cylinders onto tumble's z axis: a quarter turn about x takes y to z.
fn y_to_z() -> DQuat {
    DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2)
}

impl Collider {
    /// Builds the geometry of `shape` placed in the body frame by `shape_to_body` (the shape's
    /// origin and axes seen from the body frame). The orientation is normalised; a non-finite
    /// placement or an invalid shape (see [`Shape::validate`]) is an error.
    pub fn new(shape: &Shape, shape_to_body: Pose) -> Result<Collider, ShapeError> {
        shape.validate()?;
        let placement = checked_pose(shape_to_body)?;
        let mut parts = Vec::new();
        let mut plane = None;
        match shape {
            Shape::Plane { normal, offset } => {
                let len = normal.length();
                let n_shape = *normal / len;
                let d_shape = offset / len;
                // n·x ≤ d in the shape frame, x = R⁻¹ (y − t): (R n)·y ≤ d + (R n)·t.
                let n = placement.orientation * n_shape;
                plane = Some((n, d_shape + n.dot(placement.position)));
            }
            Shape::Compound { parts: list } => {
                for p in list {
                    let inner = Pose::new(p.position, p.orientation.normalize());
                    parts.push(Part::new(&p.shape, placement.compose(&inner))?);
                }
            }
            _ => parts.push(Part::new(shape, placement)?),
        }
        let (bounding_radius, rotation_radius) = if plane.is_some() {
            (f64::INFINITY, f64::INFINITY)
        } else {
            parts.iter().fold((0.0f64, 0.0f64), |(b, r), p| {
                (b.max(p.bounding_radius()), r.max(p.rotation_radius()))
            })
        };
        Ok(Collider {
            parts,
            plane,
            bounding_radius,
            rotation_radius,
        })
    }

    /// Largest distance of any point of the body from the body-frame origin (∞ for a plane).
    pub fn bounding_radius(&self) -> f64 {
        self.bounding_radius
    }

    /// Bound on how fast the body's support function can change per unit angular speed: the
    /// largest distance from the origin of the body's "core" (0 for a ball centred on the origin,
    /// the half-length for a centred capsule, the bounding radius otherwise).
    ///
    /// Why it is a bound: the support function is `h(u) = max_p u · R p`, and by the envelope
    /// theorem `dh/dt = u · (ω × R p*) ≤ ω |p*|` at the support point `p*`. For a core dilated by a
    /// ball of radius ρ, `h = h_core + ρ` and only the core's points matter. For a compound, `h` is
    /// the largest of the parts' and so changes no faster than the fastest part. ∞ for a plane.
    pub fn rotation_radius(&self) -> f64 {
        self.rotation_radius
    }

    /// World axis-aligned bounding box `(min, max)` at `pose` (infinite components for a plane).
    /// Exact (the smallest box) for every convex part.
    pub fn aabb(&self, pose: &Pose) -> (DVec3, DVec3) {
        if let Some((n, d)) = self.world_plane(pose) {
            // The half-space is bounded only along an axis it is perpendicular to.
            let mut min = DVec3::NEG_INFINITY;
            let mut max = DVec3::INFINITY;
            for i in 0..3 {
                let mut axis = DVec3::ZERO;
                axis[i] = 1.0;
                if n == axis {
                    max[i] = d;
                } else if n == -axis {
                    min[i] = -d;
                }
            }
            return (min, max);
        }
        self.parts.iter().fold(
            (DVec3::INFINITY, DVec3::NEG_INFINITY),
            |(min, max), part| {
                let (lo, hi) = part.aabb(pose);
                (min.min(lo), max.max(hi))
            },
        )
    }

    /// `Some((unit normal, offset))` if this is a plane: the solid half-space
    /// `normal · x <= offset` in the BODY frame (the caller maps it to the world with the body's
    /// pose; a fixed plane usually has the identity pose).
    pub fn plane(&self) -> Option<(DVec3, f64)> {
        self.plane
    }

    /// The support function `max_{x ∈ body} direction · x` in world terms with the body at `pose`
    /// (`direction` need not be unit). For a plane: its offset along its outward normal when
    /// `direction` is a positive multiple of it, else `+∞`.
    pub fn support(&self, pose: &Pose, direction: DVec3) -> f64 {
        if let Some((n, d)) = self.world_plane(pose) {
            let len = direction.length();
            return if direction == n * len {
                d * len
            } else {
                f64::INFINITY
            };
        }
        let local = pose.orientation.inverse() * direction;
        let h = self
            .parts
            .iter()
            .map(|p| p.support(local))
            .fold(f64::NEG_INFINITY, f64::max);
        h + direction.dot(pose.position)
    }

    /// The plane in world terms at `pose`.
    fn world_plane(&self, pose: &Pose) -> Option<(DVec3, f64)> {
        self.plane.map(|(n, d)| {
            let nw = pose.orientation * n;
            (nw, d + nw.dot(pose.position))
        })
    }
}

/// Normalises the orientation of a placement; refuses non-finite ones.
fn checked_pose(pose: Pose) -> Result<Pose, ShapeError> {
    let q = pose.orientation;
    if !(pose.position.is_finite() && q.is_finite() && q.length_squared() > 0.0) {
        return Err(ShapeError::Degenerate(format!(
            "shape placement must be finite with a non-zero quaternion (got {pose:?})"
        )));
    }
    Ok(Pose::new(pose.position, q.normalize()))
}

impl Part {
    /// A convex part: `shape` (not a plane nor a compound) placed in the body frame by `place`.
    fn new(shape: &Shape, place: Pose) -> Result<Part, ShapeError> {
        let t = place.position;
        let q = place.orientation;
        let (geom, parry, local) = match shape {
            Shape::Sphere { radius } => (
                Geom::Ball {
                    center: t,
                    radius: *radius,
                },
                SharedShape::ball(*radius),
                place,
            ),
            Shape::Box { half_extents: h } => (
                Geom::Box {
                    center: t,
                    rotation: q,
                    half_extents: *h,
                },
                SharedShape::cuboid(h.x, h.y, h.z),
                place,
            ),
            Shape::Capsule {
                radius,
                half_length,
            } if *half_length == 0.0 => (
                // A capsule without a core is a ball; parry's capsule code would see a
                // zero-length segment.
                Geom::Ball {
                    center: t,
                    radius: *radius,
                },
                SharedShape::ball(*radius),
                place,
            ),
            Shape::Capsule {
                radius,
                half_length,
            } => {
                let half = q * DVec3::new(0.0, 0.0, *half_length);
                (
                    Geom::Capsule {
                        a: t - half,
                        b: t + half,
                        radius: *radius,
                    },
                    SharedShape::capsule_z(*half_length, *radius),
                    place,
                )
            }
            Shape::Cylinder {
                radius,
                half_height,
            } => (
                Geom::Cylinder {
                    center: t,
                    axis: q * DVec3::Z,
                    radius: *radius,
                    half_height: *half_height,
                },
                SharedShape::cylinder(*half_height, *radius),
                Pose::new(t, q * y_to_z()),
            ),
            Shape::Convex { vertices } => {
                let hull = ConvexPolyhedron::from_convex_hull(vertices).ok_or_else(|| {
                    ShapeError::Degenerate("the convex hull could not be built".into())
                })?;
                let body_vertices = hull.points().iter().map(|p| place.transform_point(*p));
                (
                    Geom::Convex {
                        vertices: body_vertices.collect(),
                    },
                    SharedShape::new(hull),
                    place,
                )
            }
            Shape::Plane { .. } | Shape::Compound { .. } => {
                return Err(ShapeError::NotAllowed(format!(
                    "a {} cannot be a convex part",
                    shape.type_name()
                )))
            }
        };
        let (sphere_center, sphere_radius) = match &geom {
            Geom::Ball { center, radius } => (*center, *radius),
            Geom::Capsule { a, b, radius } => ((*a + *b) * 0.5, (*b - *a).length() * 0.5 + radius),
            Geom::Box {
                center,
                half_extents,
                ..
            } => (*center, half_extents.length()),
            Geom::Cylinder {
                center,
                radius,
                half_height,
                ..
            } => (*center, radius.hypot(*half_height)),
            Geom::Convex { vertices } => {
                let c = vertices.iter().sum::<DVec3>() / vertices.len() as f64;
                let r = vertices.iter().map(|v| v.distance(c)).fold(0.0, f64::max);
                (c, r)
            }
        };
        Ok(Part {
            geom,
            shape: parry,
            local,
            sphere_center,
            sphere_radius,
        })
    }

    /// Exact largest distance of the part from the body origin. Convex parts reach it at an extreme
    /// point: a vertex, a rim point (maximised in closed form), or a capsule end dilated by ρ.
    fn bounding_radius(&self) -> f64 {
        match &self.geom {
            Geom::Ball { center, radius } => center.length() + radius,
            Geom::Capsule { a, b, radius } => a.length().max(b.length()) + radius,
            Geom::Box {
                center,
                rotation,
                half_extents,
            } => box_corners(*center, *rotation, *half_extents)
                .iter()
                .map(|c| c.length())
                .fold(0.0, f64::max),
            Geom::Cylinder {
                center,
                axis,
                radius,
                half_height,
            } => [-1.0, 1.0]
                .iter()
                .map(|s| {
                    // Rim of the cap at p0: |p0 + r u|² is largest for u along p0's part
                    // perpendicular to the axis, giving (|p0⊥| + r)² + (p0·axis)².
                    let p0 = *center + *axis * (s * half_height);
                    let along = p0.dot(*axis);
                    let across = (p0 - *axis * along).length();
                    (across + radius).hypot(along)
                })
                .fold(0.0, f64::max),
            Geom::Convex { vertices } => vertices.iter().map(|v| v.length()).fold(0.0, f64::max),
        }
    }

    /// Largest distance of the part's core from the body origin (see
    /// [`Collider::rotation_radius`]): balls and capsules are cores dilated by a ball.
    fn rotation_radius(&self) -> f64 {
        match &self.geom {
            Geom::Ball { center, .. } => center.length(),
            Geom::Capsule { a, b, .. } => a.length().max(b.length()),
            _ => self.bounding_radius(),
        }
    }

    /// Support function of the part in the body frame, `max_{x ∈ part} u · x`.
    fn support(&self, u: DVec3) -> f64 {
        match &self.geom {
            Geom::Ball { center, radius } => u.dot(*center) + radius * u.length(),
            Geom::Capsule { a, b, radius } => u.dot(*a).max(u.dot(*b)) + radius * u.length(),
            Geom::Box {
                center,
                rotation,
                half_extents,
            } => {
                // A box is mostly its body's own frame: skip the identity rotation (the same
                // value, exactly: the rotation formula adds zeros), one quaternion rotation of
                // the two per call in the bounds' and the contact step's support queries.
                let local = if *rotation == DQuat::IDENTITY {
                    u
                } else {
                    rotation.inverse() * u
                };
                u.dot(*center) + local.abs().dot(*half_extents)
            }
            Geom::Cylinder {
                center,
                axis,
                radius,
                half_height,
            } => {
                let along = u.dot(*axis);
                u.dot(*center) + along.abs() * half_height + radius * (u - *axis * along).length()
            }
            Geom::Convex { vertices } => vertices
                .iter()
                .map(|v| u.dot(*v))
                .fold(f64::NEG_INFINITY, f64::max),
        }
    }

    /// Exact world AABB of the part with its body at `pose`.
    fn aabb(&self, pose: &Pose) -> (DVec3, DVec3) {
        match &self.geom {
            Geom::Ball { center, radius } => {
                let c = pose.transform_point(*center);
                (c - *radius, c + *radius)
            }
            Geom::Capsule { a, b, radius } => {
                let (a, b) = (pose.transform_point(*a), pose.transform_point(*b));
                (a.min(b) - *radius, a.max(b) + *radius)
            }
            Geom::Box {
                center,
                rotation,
                half_extents,
            } => {
                let c = pose.transform_point(*center);
                let m = glam::DMat3::from_quat(pose.orientation * *rotation);
                // Extent along world axis i: Σ_j |R_ij| h_j.
                let e = DVec3::new(
                    m.row(0).abs().dot(*half_extents),
                    m.row(1).abs().dot(*half_extents),
                    m.row(2).abs().dot(*half_extents),
                );
                (c - e, c + e)
            }
            Geom::Cylinder {
                center,
                axis,
                radius,
                half_height,
            } => {
                let c = pose.transform_point(*center);
                let a = pose.orientation * *axis;
                // Along axis e_i: the segment contributes |a_i| h, the rim disc r √(1 − a_i²).
                let disc = (DVec3::ONE - a * a).max(DVec3::ZERO);
                let e = a.abs() * *half_height
                    + DVec3::new(disc.x.sqrt(), disc.y.sqrt(), disc.z.sqrt()) * *radius;
                (c - e, c + e)
            }
            Geom::Convex { vertices } => {
                vertices
                    .iter()
                    .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), v| {
                        let w = pose.transform_point(*v);
                        (lo.min(w), hi.max(w))
                    })
            }
        }
    }

    /// Calls `f(point, radius)` with the points whose dilation by `radius` holds the part's extreme
    /// points towards `-n` (world): a ball or capsule's core points, a box's corners, a hull's
    /// vertices, and for a cylinder the 4 quarter points of each rim starting from the rim's lowest
    /// point along `-n` (so that a cylinder flat on its cap gives a square of contacts).
    fn for_each_support_candidate(&self, pose: &Pose, n: DVec3, mut f: impl FnMut(DVec3, f64)) {
        match &self.geom {
            Geom::Ball { center, radius } => f(pose.transform_point(*center), *radius),
            Geom::Capsule { a, b, radius } => {
                f(pose.transform_point(*a), *radius);
                f(pose.transform_point(*b), *radius);
            }
            Geom::Box {
                center,
                rotation,
                half_extents,
            } => {
                for c in box_corners(*center, *rotation, *half_extents) {
                    f(pose.transform_point(c), 0.0);
                }
            }
            Geom::Cylinder {
                center,
                axis,
                radius,
                half_height,
            } => {
                let c = pose.transform_point(*center);
                let a = pose.orientation * *axis;
                let down = -(n - a * n.dot(a));
                // A rim parallel to the plane has no lowest point: any fixed radius will do.
                let w = down
                    .try_normalize()
                    .unwrap_or_else(|| a.any_orthonormal_vector());
                let v = a.cross(w);
                for s in [-1.0, 1.0] {
                    let cap = c + a * (s * half_height);
                    for dir in [w, v, -w, -v] {
                        f(cap + dir * *radius, 0.0);
                    }
                }
            }
            Geom::Convex { vertices } => {
                for v in vertices {
                    f(pose.transform_point(*v), 0.0);
                }
            }
        }
    }
}

/// The 8 corners of a box in the body frame, in a fixed order.
/// The 8 corners of a box with half extents `h`, rotated by `rotation` about and placed at
/// `center` (corner k takes +h on axis i when bit i of k is set).
pub fn box_corners(center: DVec3, rotation: DQuat, h: DVec3) -> [DVec3; 8] {
    let mut out = [DVec3::ZERO; 8];
    for (i, c) in out.iter_mut().enumerate() {
        let sx = if i & 1 == 0 { -h.x } else { h.x };
        let sy = if i & 2 == 0 { -h.y } else { h.y };
        let sz = if i & 4 == 0 { -h.z } else { h.z };
        *c = center + rotation * DVec3::new(sx, sy, sz);
    }
    out
}

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

/// Plane (body b) against a convex part of body a at `pose`: the part's support candidates against
/// the plane, each giving its own contact with the plane's normal. Appends the closest candidate
/// then the others within `margin` (reduced to 4), if the closest is within `margin`; returns the
/// closest.
fn plane_part(
    (n, d): (DVec3, f64),
    part: &Part,
    pose: &Pose,
    margin: f64,
    out: &mut Vec<ContactPoint>,
) -> ContactPoint {
    let start = out.len();
    let mut closest: Option<(ContactPoint, usize)> = None;
    part.for_each_support_candidate(pose, n, |p, radius| {
        let height = n.dot(p) - d; // of the core point above the plane
        let cp = ContactPoint {
            // Midpoint of the surface point p − ρ n and its projection p − height n.
            position: p - n * (0.5 * (radius + height)),
            separation: height - radius,
            normal: n,
        };
        if closest.is_none_or(|(c, _)| cp.separation < c.separation) {
            closest = Some((cp, out.len()));
        }
        if cp.separation <= margin {
            out.push(cp);
        }
    });
    let (cp, index) = closest.expect("every part has a support candidate");
    if cp.separation <= margin {
        out[start..=index].rotate_right(1);
        reduce_manifold(out, start);
    }
    cp
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
        _ => return parry_pair(pa, pose_a, pb, pose_b, margin, out),
    };
    if cp.separation <= margin {
        out.push(cp);
    }
    cp
}

/// Two balls: closed form along the centre line.
fn ball_ball(ca: DVec3, ra: f64, cb: DVec3, rb: f64) -> ContactPoint {
    let d = ca - cb;
    let dist = d.length();
    // Concentric balls have no preferred direction: +z, fixed for determinism.
    let n = if dist > 0.0 { d / dist } else { DVec3::Z };
    let on_a = ca - n * ra;
    let on_b = cb + n * rb;
    ContactPoint {
        position: (on_a + on_b) * 0.5,
        separation: dist - ra - rb,
        normal: n,
    }
}

/// Ball (a, world centre `c`) against a box part (b): the centre clamped to the box gives the
/// closest box point; a centre inside the box leaves by the nearest face.
fn ball_box(c: DVec3, r: f64, boxed: &Geom, pose_b: &Pose) -> ContactPoint {
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

/// Two separations of a pair of parts within this much (relative to the sum of their bounding
/// spheres' radii) are equal but for rounding: a manifold point as deep as the closest pair.
const TIE: f64 = 1e-9;

/// Two manifold points of a pair of parts this close (relative, as `TIE`) are one point.
const DUPLICATE: f64 = 1e-6;

thread_local! {
    /// Parry's manifold buffer, reused so that a query does not allocate its point list.
    static MANIFOLD: RefCell<ContactManifold<(), ()>> = RefCell::new(ContactManifold::new());
}

/// A pair of convex parts through parry: the closest pair by `contact` with an infinite
/// prediction (GJK, or EPA when overlapping), then, within the margin, parry's contact manifold
/// (SAT and clipping for box–box, polygonal features clipped otherwise).
fn parry_pair(
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
    let Ok(Some(contact)) = contact else {
        return axis_fallback(pa, &wa, pb, &wb, margin, out);
    };
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
        // points) and stops at a relative tolerance: seen 1.7e-6 too far for a hull and a
        // cylinder 1.2 m apart. The gap along its axis, from the exact support functions, is a
        // lower bound by the separating-axis theorem; taking it keeps the distance (and so
        // every TOI bound built on it) conservative.
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
    // drop a corner (measured: a cube flat on a floor kept 3 of its 4 corners in 1.3 % of
    // random tilts below 1e-5 rad, and a flat stack flickered between 3 and 4 from step to
    // step).
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

/// Keeps at most 4 of the points `out[start..]` (the closest pair at `start` always kept): the
/// point farthest from it, then the one spanning the largest triangle with those two, then the one
/// adding the most area outside that triangle. The classic area-maximising reduction (Bullet's
/// `sortCachedPoints`, Rapier's manifold reduction): 4 points spanning the contact patch make the
/// collision response as stable as the whole patch would.
fn reduce_manifold(out: &mut Vec<ContactPoint>, start: usize) {
    let pts = &mut out[start..];
    if pts.len() <= 4 {
        return;
    }
    let n = pts[0].normal;
    let p0 = pts[0].position;
    let argmax = |pts: &[ContactPoint], from: usize, score: &dyn Fn(DVec3) -> f64| {
        (from..pts.len()).fold((from, f64::NEG_INFINITY), |best, i| {
            let s = score(pts[i].position);
            if s > best.1 {
                (i, s)
            } else {
                best
            }
        })
    };
    let (i1, _) = argmax(pts, 1, &|p| p.distance_squared(p0));
    pts.swap(1, i1);
    let p1 = pts[1].position;
    let area = |a: DVec3, b: DVec3, p: DVec3| (b - a).cross(p - a).dot(n);
    let (i2, _) = argmax(pts, 2, &|p| area(p0, p1, p).abs());
    pts.swap(2, i2);
    let p2 = pts[2].position;
    let orient = if area(p0, p1, p2) >= 0.0 { 1.0 } else { -1.0 };
    // Area added outside the triangle: for each edge the point is beyond, the triangle it makes.
    let gain = |p: DVec3| {
        [(p0, p1), (p1, p2), (p2, p0)]
            .iter()
            .map(|&(a, b)| (-orient * area(a, b, p)).max(0.0))
            .fold(0.0, f64::max)
    };
    let (i3, g) = argmax(pts, 3, &gain);
    let keep = if g > 0.0 {
        pts.swap(3, i3);
        4
    } else {
        3
    };
    out.truncate(start + keep);
}
