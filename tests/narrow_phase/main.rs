//! Narrow phase: separations and manifolds against closed forms and brute force, bounds, symmetry.

use glam::{DQuat, DVec3};
use rand::Rng;
use tumble::narrow_phase::{proximity, Collider, ContactPoint, Pose};
use tumble::shape::Shape;

pub(crate) fn collider(shape: Shape) -> Collider {
    Collider::new(&shape, Pose::IDENTITY).unwrap()
}

pub(crate) fn at(x: f64, y: f64, z: f64) -> Pose {
    Pose::new(DVec3::new(x, y, z), DQuat::IDENTITY)
}

pub(crate) fn ground() -> Collider {
    collider(Shape::Plane {
        normal: DVec3::Z,
        offset: 0.0,
    })
}

pub(crate) fn query(
    a: &Collider,
    pa: &Pose,
    b: &Collider,
    pb: &Pose,
    margin: f64,
) -> (f64, Vec<ContactPoint>) {
    let mut out = vec![ContactPoint {
        position: DVec3::splat(9.0),
        separation: 9.0,
        normal: DVec3::X,
    }];
    let sep = proximity(a, pa, b, pb, margin, &mut out);
    (sep, out)
}

pub(crate) fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

pub(crate) fn vclose(a: DVec3, b: DVec3, tol: f64) -> bool {
    (a - b).length() <= tol
}

pub(crate) fn random_rotation(rng: &mut impl Rng) -> DQuat {
    DQuat::from_xyzw(
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
    )
    .normalize()
}

mod closed_forms;
mod samples;
