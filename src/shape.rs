//! Shapes as the user describes them in a scene, in the shape's own frame.
//!
//! Axis conventions: capsules and cylinders run along their local **z** axis (z is up in tumble).
//! A plane is the solid half-space `normal · x <= offset`; only fixed bodies may be planes.

use crate::mesh::{MeshCollision, TriangleMesh};
use glam::{DQuat, DVec3};
use std::sync::Arc;

/// A collision shape in its own (user) frame. Mass properties come from [`crate::mass_properties`],
/// collision geometry from [`crate::narrow_phase::Collider`].
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A ball of the given radius centred on the origin.
    Sphere {
        /// Radius (m), > 0.
        radius: f64,
    },
    /// A rectangular box centred on the origin.
    Box {
        /// Half the side lengths along x, y, z (m), each > 0.
        half_extents: DVec3,
    },
    /// A segment from z = -half_length to z = +half_length swept by a ball of `radius`.
    Capsule {
        /// Radius of the swept ball (m), > 0.
        radius: f64,
        /// Half the length of the core segment (m), >= 0.
        half_length: f64,
    },
    /// A solid circular cylinder around the z axis, from z = -half_height to +half_height.
    Cylinder {
        /// Radius (m), > 0.
        radius: f64,
        /// Half the height (m), > 0.
        half_height: f64,
    },
    /// The convex hull of a vertex list (the hull is computed; interior points are ignored).
    Convex {
        /// Points whose hull is the shape (at least 4, not coplanar).
        vertices: Vec<DVec3>,
    },
    /// A rigid union of convex parts, each placed in the compound's frame: non-convex bodies by
    /// decomposition.
    Compound {
        /// The parts; none may be a compound or a plane.
        parts: Vec<CompoundPart>,
    },
    /// A triangle mesh read from a file (`type = "mesh"`, see [`crate::mesh`]) and what it
    /// collides as: its convex hull, convex pieces, or its own triangles (fixed and kinematic
    /// bodies only).
    Mesh {
        /// The mesh, scaled, in the shape's frame (shared by the bodies of a lattice).
        mesh: Arc<TriangleMesh>,
        /// What collides.
        collision: MeshCollision,
    },
    /// The half-space `normal · x <= offset` (fixed bodies only).
    Plane {
        /// Outward normal of the solid (need not be unit on input; normalised when built).
        normal: DVec3,
        /// Offset along the normal (m).
        offset: f64,
    },
}

/// One convex part of a [`Shape::Compound`].
#[derive(Clone, Debug, PartialEq)]
pub struct CompoundPart {
    /// The part's shape (convex, not a plane nor a compound).
    pub shape: Shape,
    /// The part's origin in the compound's frame.
    pub position: DVec3,
    /// The part's orientation in the compound's frame.
    pub orientation: DQuat,
}

/// Why a shape cannot be built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ShapeError {
    /// A dimension is zero, negative or not finite.
    #[error("{what} must be a finite number > 0 (got {value})")]
    BadDimension {
        /// Which dimension, e.g. "radius".
        what: &'static str,
        /// The offending value.
        value: f64,
    },
    /// The shape has no volume (coplanar hull, too few vertices, zero normal …).
    #[error("degenerate shape: {0}")]
    Degenerate(String),
    /// A shape that is not allowed where it was used (a plane inside a compound, say).
    #[error("not allowed here: {0}")]
    NotAllowed(String),
}

impl Shape {
    /// A short lower-case name of the shape's type as written in scene files ("sphere", "box" …).
    pub fn type_name(&self) -> &'static str {
        match self {
            Shape::Sphere { .. } => "sphere",
            Shape::Box { .. } => "box",
            Shape::Capsule { .. } => "capsule",
            Shape::Cylinder { .. } => "cylinder",
            Shape::Convex { .. } => "convex",
            Shape::Compound { .. } => "compound",
            Shape::Mesh { .. } => "mesh",
            Shape::Plane { .. } => "plane",
        }
    }

    /// Whether the shape collides as one convex solid (a plane counts as one): not a compound,
    /// nor a mesh decomposed or used as its triangles. Such bodies are bounded along separating
    /// axes; the others by their bounding spheres and distances.
    pub fn is_one_convex(&self) -> bool {
        match self {
            Shape::Compound { .. } => false,
            Shape::Mesh { collision, .. } => matches!(collision, MeshCollision::Hull { .. }),
            _ => true,
        }
    }

    /// Checks that the shape can be built, without computing its mass: every dimension finite and
    /// positive (a capsule's `half_length` may be 0), a convex vertex list with at least 4 finite
    /// points that span a volume, a compound with at least one part and no plane or compound among
    /// its parts (each part valid, placed by a finite position and a finite non-zero quaternion), a
    /// plane with a finite non-zero normal and a finite offset.
    pub fn validate(&self) -> Result<(), ShapeError> {
        match self {
            Shape::Sphere { radius } => positive("radius", *radius),
            Shape::Box { half_extents } => {
                positive("half_extents.x", half_extents.x)?;
                positive("half_extents.y", half_extents.y)?;
                positive("half_extents.z", half_extents.z)
            }
            Shape::Capsule {
                radius,
                half_length,
            } => {
                positive("radius", *radius)?;
                // A capsule of zero length is a ball, which is a legitimate capsule.
                if !(half_length.is_finite() && *half_length >= 0.0) {
                    return Err(ShapeError::BadDimension {
                        what: "half_length",
                        value: *half_length,
                    });
                }
                Ok(())
            }
            Shape::Cylinder {
                radius,
                half_height,
            } => {
                positive("radius", *radius)?;
                positive("half_height", *half_height)
            }
            Shape::Convex { vertices } => {
                crate::mesh::check_spans_volume(vertices).map_err(ShapeError::Degenerate)
            }
            Shape::Mesh { mesh, collision } => {
                crate::mesh::validate(mesh, collision).map_err(ShapeError::Degenerate)
            }
            Shape::Compound { parts } => {
                if parts.is_empty() {
                    return Err(ShapeError::Degenerate(
                        "a compound needs at least one part".into(),
                    ));
                }
                for part in parts {
                    match part.shape {
                        Shape::Plane { .. } => {
                            return Err(ShapeError::NotAllowed(
                                "a plane cannot be a part of a compound".into(),
                            ))
                        }
                        Shape::Compound { .. } => {
                            return Err(ShapeError::NotAllowed(
                                "a compound cannot be a part of a compound".into(),
                            ))
                        }
                        _ => part.shape.validate()?,
                    }
                    if !part.position.is_finite() {
                        return Err(ShapeError::Degenerate(format!(
                            "compound part position must be finite (got {})",
                            part.position
                        )));
                    }
                    let q = part.orientation;
                    if !(q.is_finite() && q.length_squared() > 0.0) {
                        return Err(ShapeError::Degenerate(format!(
                            "compound part orientation must be a finite non-zero quaternion (got {q})"
                        )));
                    }
                }
                Ok(())
            }
            Shape::Plane { normal, offset } => {
                if !(normal.is_finite() && normal.length_squared() > 0.0) {
                    return Err(ShapeError::Degenerate(format!(
                        "plane normal must be finite and non-zero (got {normal})"
                    )));
                }
                if !offset.is_finite() {
                    return Err(ShapeError::Degenerate(format!(
                        "plane offset must be finite (got {offset})"
                    )));
                }
                Ok(())
            }
        }
    }
}

/// `Ok` if `value` is finite and > 0, else the matching [`ShapeError::BadDimension`].
fn positive(what: &'static str, value: f64) -> Result<(), ShapeError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(ShapeError::BadDimension { what, value })
    }
}
