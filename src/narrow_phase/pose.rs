//! A rigid placement ([`Pose`]): body frame → world. It sits below the collider, its parts and
//! their box tree, which all place geometry with it, so they import it and it imports none of them.

use glam::{DQuat, DVec3};
use parry3d_f64::math::Pose as ParryPose;

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

    pub(super) fn to_parry(self) -> ParryPose {
        ParryPose::from_parts(self.position, self.orientation)
    }
}
