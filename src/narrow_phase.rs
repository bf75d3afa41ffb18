//! Distance and contact geometry between bodies (STUB: the geometry helper implements this file).

use crate::shape::{Shape, ShapeError};
use glam::{DQuat, DVec3};

/// A rigid placement: body frame → world.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// World position of the body frame's origin (the centre of mass).
    pub position: DVec3,
    /// Rotation from the body frame to the world.
    pub orientation: DQuat,
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

/// Collision geometry of one body, expressed in its body frame (origin at the centre of mass).
#[derive(Clone)]
pub struct Collider {
    _private: (),
}

impl Collider {
    /// Builds the geometry of `shape` placed in the body frame by `shape_to_body` (the shape's
    /// origin and axes seen from the body frame).
    pub fn new(shape: &Shape, shape_to_body: Pose) -> Result<Collider, ShapeError> {
        let _ = (shape, shape_to_body);
        todo!("geometry helper")
    }
    /// Largest distance of any point of the body from the body-frame origin (∞ for a plane).
    pub fn bounding_radius(&self) -> f64 {
        todo!("geometry helper")
    }
    /// Bound on how fast the body's support function can change per unit angular speed: the
    /// largest distance from the origin of the body's "core" (0 for a ball centred on the origin,
    /// the half-length for a centred capsule, the bounding radius otherwise).
    pub fn rotation_radius(&self) -> f64 {
        todo!("geometry helper")
    }
    /// World axis-aligned bounding box `(min, max)` at `pose` (infinite components for a plane).
    pub fn aabb(&self, pose: &Pose) -> (DVec3, DVec3) {
        let _ = pose;
        todo!("geometry helper")
    }
    /// `Some((unit normal, offset))` in world terms if this is a plane (fixed bodies only).
    pub fn plane(&self) -> Option<(DVec3, f64)> {
        todo!("geometry helper")
    }
}

/// Proximity query between body a and body b. Returns the smallest signed separation (the
/// distance when apart, minus the penetration depth when overlapping). `out` is cleared, then
/// filled: always with the closest pair as its first entry; and, where the separation is at most
/// `margin`, with every further contact point of the contact manifold whose own separation is at
/// most `margin` (up to 4 per pair of convex parts).
pub fn proximity(
    a: &Collider,
    pose_a: &Pose,
    b: &Collider,
    pose_b: &Pose,
    margin: f64,
    out: &mut Vec<ContactPoint>,
) -> f64 {
    let _ = (a, pose_a, b, pose_b, margin, out);
    todo!("geometry helper")
}
