//! Shapes as the user describes them in a scene, in the shape's own frame.
//!
//! Axis conventions: capsules and cylinders run along their local **z** axis (z is up in tumble).
//! A plane is the solid half-space `normal · x <= offset`; only fixed bodies may be planes.

use glam::{DQuat, DVec3};

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
            Shape::Plane { .. } => "plane",
        }
    }
}
