//! One convex part of a collider: its geometry in the body frame ([`Geom`]) next to the same
//! solid as a parry shape, and the closed-form queries on it: bounding and rotation radii,
//! support function, exact world AABB, and the support candidates a plane is tested against.

use super::pose::Pose;
use crate::shape::{Shape, ShapeError};
use glam::{DQuat, DVec3};
use parry3d_f64::shape::{ConvexPolyhedron, SharedShape};

/// One convex part: its geometry in the body frame, for the hand-written paths, and the same
/// solid as a parry shape placed by `local`, for the rest.
#[derive(Clone)]
pub(super) struct Part {
    pub(super) geom: Geom,
    pub(super) shape: SharedShape,
    /// Parry shape frame → body frame (includes the y → z turn for cylinders).
    pub(super) local: Pose,
    /// Centre of a sphere enclosing the part (body frame), for culling compound part pairs.
    pub(super) sphere_center: DVec3,
    /// Radius of that sphere.
    pub(super) sphere_radius: f64,
}

/// A convex part in the body frame.
#[derive(Clone, Debug)]
pub(super) enum Geom {
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

/// Turns parry's y-axis cylinders onto tumble's z axis: a quarter turn about x takes y to z.
fn y_to_z() -> DQuat {
    DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2)
}

impl Part {
    /// A convex part: `shape` (not a plane nor a compound) placed in the body frame by `place`.
    pub(super) fn new(shape: &Shape, place: Pose) -> Result<Part, ShapeError> {
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
            Shape::Plane { .. } | Shape::Compound { .. } | Shape::Mesh { .. } => {
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

    /// One triangle of a mesh used as it is (`convex = "none"`), placed in the body frame by
    /// `place`: a flat convex part (parry's `Triangle`, which GJK, EPA and the polygonal-feature
    /// manifolds take like any convex shape). Both sides collide.
    pub(super) fn triangle(corners: [DVec3; 3], place: Pose) -> Part {
        let [a, b, c] = corners.map(|p| place.transform_point(p));
        let center = (a + b + c) / 3.0;
        let radius = [a, b, c]
            .iter()
            .map(|v| v.distance(center))
            .fold(0.0, f64::max);
        Part {
            geom: Geom::Convex {
                vertices: vec![a, b, c],
            },
            shape: SharedShape::triangle(a, b, c),
            local: Pose::IDENTITY,
            sphere_center: center,
            sphere_radius: radius,
        }
    }

    /// Exact largest distance of the part from the body origin. Convex parts reach it at an extreme
    /// point: a vertex, a rim point (maximised in closed form), or a capsule end dilated by ρ.
    pub(super) fn bounding_radius(&self) -> f64 {
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
    /// [`Collider::rotation_radius`](super::Collider::rotation_radius)): balls and capsules are
    /// cores dilated by a ball.
    pub(super) fn rotation_radius(&self) -> f64 {
        match &self.geom {
            Geom::Ball { center, .. } => center.length(),
            Geom::Capsule { a, b, .. } => a.length().max(b.length()),
            _ => self.bounding_radius(),
        }
    }

    /// Largest radius of curvature of the part's surface (m): the radius for a ball, a
    /// capsule and a cylinder's side, 0 for a polytope, whose contacts are vertices and edges
    /// carried on the body.
    pub(super) fn rolling_radius(&self) -> f64 {
        match &self.geom {
            Geom::Ball { radius, .. }
            | Geom::Capsule { radius, .. }
            | Geom::Cylinder { radius, .. } => *radius,
            Geom::Box { .. } | Geom::Convex { .. } => 0.0,
        }
    }

    /// Whether the part is unchanged by every rotation about the line through the body-frame
    /// origin along the unit `axis`: a ball centred on it, a capsule or a cylinder along it.
    pub(super) fn symmetric_about(&self, axis: DVec3) -> bool {
        const TOL: f64 = 1e-9;
        let on_line = |p: DVec3| p.cross(axis).length() <= TOL * (1.0 + p.length());
        let along = |d: DVec3| d.normalize_or_zero().cross(axis).length() <= TOL;
        match &self.geom {
            Geom::Ball { center, .. } => on_line(*center),
            Geom::Capsule { a, b, .. } => on_line(*a) && on_line(*b),
            Geom::Cylinder {
                center, axis: c, ..
            } => on_line(*center) && along(*c),
            Geom::Box { .. } | Geom::Convex { .. } => false,
        }
    }

    /// A hull's vertices (body frame); `None` for other parts.
    pub(super) fn hull_vertices(&self) -> Option<&[DVec3]> {
        match &self.geom {
            Geom::Convex { vertices } => Some(vertices),
            _ => None,
        }
    }

    /// The axis a capsule or a cylinder part lies along (body frame, unit); `None` for others.
    pub(super) fn own_axis(&self) -> Option<DVec3> {
        match &self.geom {
            Geom::Capsule { a, b, .. } => (*b - *a).try_normalize(),
            Geom::Cylinder { axis, .. } => axis.try_normalize(),
            _ => None,
        }
    }

    /// For a capsule or a cylinder on `axis` (its own): the offsets of its ends along the axis
    /// and the rim's radius (0 for a capsule; see [`crate::toi_bound::AxialProfile`]).
    pub(super) fn axial_profile(&self, axis: DVec3) -> Option<crate::toi_bound::AxialProfile> {
        let (ends, rim) = match &self.geom {
            Geom::Capsule { a, b, .. } => ((a.dot(axis), b.dot(axis)), 0.0),
            Geom::Cylinder {
                center,
                radius,
                half_height,
                ..
            } => {
                let c = center.dot(axis);
                ((c - half_height, c + half_height), *radius)
            }
            _ => return None,
        };
        Some(crate::toi_bound::AxialProfile {
            axis,
            ends: (ends.0.min(ends.1), ends.0.max(ends.1)),
            rim,
        })
    }

    /// For a ball or a capsule (a core point or segment dilated by a radius): the core's point
    /// nearest `p` (body frame) and the radius; `None` for other parts.
    pub(super) fn core_point(&self, p: DVec3) -> Option<(DVec3, f64)> {
        match &self.geom {
            Geom::Ball { center, radius } => Some((*center, *radius)),
            Geom::Capsule { a, b, radius } => {
                let ab = *b - *a;
                let len_sq = ab.length_squared();
                let s = if len_sq > 0.0 {
                    ((p - *a).dot(ab) / len_sq).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                Some((*a + ab * s, *radius))
            }
            _ => None,
        }
    }

    /// Support function of the part in the body frame, `max_{x ∈ part} u · x`.
    pub(super) fn support(&self, u: DVec3) -> f64 {
        match &self.geom {
            Geom::Ball { center, radius } => u.dot(*center) + radius * u.length(),
            Geom::Capsule { a, b, radius } => u.dot(*a).max(u.dot(*b)) + radius * u.length(),
            Geom::Box {
                center,
                rotation,
                half_extents,
            } => box_support(center, rotation, half_extents, u),
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

    /// `(support(u), support(−u))`, bit for bit, sharing the work: the part's extent both ways
    /// along one axis (a face normal and its opposite, [`super::flat_face`]).
    pub(super) fn support_both(&self, u: DVec3) -> (f64, f64) {
        match &self.geom {
            Geom::Ball { center, radius } => {
                let (at, r) = (u.dot(*center), radius * u.length());
                (at + r, -at + r)
            }
            Geom::Capsule { a, b, radius } => {
                let (ua, ub, r) = (u.dot(*a), u.dot(*b), radius * u.length());
                (ua.max(ub) + r, (-ua).max(-ub) + r)
            }
            Geom::Box {
                center,
                rotation,
                half_extents,
            } => {
                let reach = in_box_frame(rotation, u).abs().dot(*half_extents);
                let at = u.dot(*center);
                (at + reach, -at + reach)
            }
            Geom::Cylinder {
                center,
                axis,
                radius,
                half_height,
            } => {
                let along = u.dot(*axis);
                let (at, rim) = (u.dot(*center), radius * (u - *axis * along).length());
                let cap = along.abs() * half_height;
                (at + cap + rim, -at + cap + rim)
            }
            Geom::Convex { vertices } => vertices
                .iter()
                .map(|v| u.dot(*v))
                .fold((f64::NEG_INFINITY, f64::NEG_INFINITY), |(hi, lo), x| {
                    (hi.max(x), lo.max(-x))
                }),
        }
    }

    /// Exact world AABB of the part with its body at `pose`.
    pub(super) fn aabb(&self, pose: &Pose) -> (DVec3, DVec3) {
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
            } => box_aabb(center, rotation, half_extents, pose),
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
    pub(super) fn for_each_support_candidate(
        &self,
        pose: &Pose,
        n: DVec3,
        mut f: impl FnMut(DVec3, f64),
    ) {
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

/// Direction `u` (body frame) in the frame of a box part turned by `rotation`. A box is mostly
/// its body's own frame: the identity rotation is skipped (the same value, exactly: the
/// rotation formula adds zeros), one quaternion rotation of the two per call in the bounds' and
/// the contact step's support queries.
fn in_box_frame(rotation: &DQuat, u: DVec3) -> DVec3 {
    if *rotation == DQuat::IDENTITY {
        u
    } else {
        rotation.inverse() * u
    }
}

/// A box part's geometry in the body frame (see `Collider::support`).
#[derive(Clone, Copy, Debug)]
pub(super) struct BoxGeom {
    center: DVec3,
    rotation: DQuat,
    half_extents: DVec3,
}

impl BoxGeom {
    /// [`Part::aabb`] of the box.
    #[inline(always)]
    pub(super) fn aabb(&self, pose: &Pose) -> (DVec3, DVec3) {
        box_aabb(&self.center, &self.rotation, &self.half_extents, pose)
    }

    /// [`Part::support`] of the box.
    #[inline(always)]
    pub(super) fn support(&self, u: DVec3) -> f64 {
        box_support(&self.center, &self.rotation, &self.half_extents, u)
    }
}

/// The world box of a box part with its body at `pose`: one formula for [`Part::aabb`] and
/// [`BoxGeom::aabb`], which must agree bit for bit.
#[inline(always)]
fn box_aabb(center: &DVec3, rotation: &DQuat, half_extents: &DVec3, pose: &Pose) -> (DVec3, DVec3) {
    let c = pose.transform_point(*center);
    // A box part unturned in its body (every cube) skips the product: it would give the body's
    // orientation, up to the signs of zero components, which the absolute values below do not
    // see.
    let q = match *rotation == DQuat::IDENTITY {
        true => pose.orientation,
        false => pose.orientation * *rotation,
    };
    let m = glam::DMat3::from_quat(q);
    // Extent along world axis i: Σ_j |R_ij| h_j.
    let e = DVec3::new(
        m.row(0).abs().dot(*half_extents),
        m.row(1).abs().dot(*half_extents),
        m.row(2).abs().dot(*half_extents),
    );
    (c - e, c + e)
}

/// The support of a box part along `u` (body frame): one formula for [`Part::support`] and
/// [`BoxGeom::support`], which must agree bit for bit.
#[inline(always)]
fn box_support(center: &DVec3, rotation: &DQuat, half_extents: &DVec3, u: DVec3) -> f64 {
    u.dot(*center) + in_box_frame(rotation, u).abs().dot(*half_extents)
}

impl Part {
    /// The part's geometry if it is a box.
    pub(super) fn box_geom(&self) -> Option<BoxGeom> {
        match self.geom {
            Geom::Box {
                center,
                rotation,
                half_extents,
            } => Some(BoxGeom {
                center,
                rotation,
                half_extents,
            }),
            _ => None,
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DQuat;

    /// `support_both` is the two support queries bit for bit, for every kind of part placed
    /// off the origin and turned, along random directions.
    #[test]
    fn support_both_is_both_supports_bit_for_bit() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(21);
        let shapes = [
            Shape::Sphere { radius: 0.3 },
            Shape::Box {
                half_extents: DVec3::new(0.1, 0.2, 0.3),
            },
            Shape::Capsule {
                radius: 0.05,
                half_length: 0.2,
            },
            Shape::Cylinder {
                radius: 0.012,
                half_height: 0.001,
            },
            Shape::Convex {
                vertices: vec![
                    DVec3::new(0.0, 0.0, 0.0),
                    DVec3::new(0.3, 0.0, 0.1),
                    DVec3::new(0.0, 0.2, 0.0),
                    DVec3::new(0.1, 0.1, 0.4),
                ],
            },
        ];
        for shape in &shapes {
            for _ in 0..500 {
                let mut r = || rng.random_range(-1.0..1.0);
                let place = Pose::new(
                    DVec3::new(r(), r(), r()),
                    DQuat::from_scaled_axis(DVec3::new(r(), r(), r()) * 3.0),
                );
                let part = Part::new(shape, place).unwrap();
                let u = DVec3::new(r(), r(), r());
                let both = part.support_both(u);
                assert_eq!(both.0.to_bits(), part.support(u).to_bits(), "{shape:?} {u}");
                assert_eq!(
                    both.1.to_bits(),
                    part.support(-u).to_bits(),
                    "{shape:?} {u}"
                );
            }
        }
    }
}
