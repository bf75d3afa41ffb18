//! Exact mass properties of shapes (STUB: the geometry helper implements this file).
//!
//! Polyhedra use Mirtich's exact polyhedral mass-properties method (Mirtich 1996, "Fast and accurate
//! computation of polyhedral mass properties", J. Graphics Tools).

use crate::shape::{Shape, ShapeError};
use glam::{DMat3, DQuat, DVec3};

/// Mass, centre of mass and inertia tensor of a solid of uniform density, in the shape's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProperties {
    /// Mass (kg).
    pub mass: f64,
    /// Centre of mass in the shape's frame (m).
    pub center_of_mass: DVec3,
    /// Inertia tensor about the centre of mass, axes of the shape's frame (kg m²).
    pub inertia: DMat3,
}

/// Volume (m³) of a shape. Errors for planes (infinite) and degenerate shapes.
pub fn volume(shape: &Shape) -> Result<f64, ShapeError> {
    let _ = shape;
    todo!("geometry helper")
}

/// Mass properties of `shape` at uniform `density` (kg/m³). Errors for planes and degenerate shapes.
pub fn mass_properties(shape: &Shape, density: f64) -> Result<MassProperties, ShapeError> {
    let _ = (shape, density);
    todo!("geometry helper")
}

/// Principal moments and axes of a symmetric inertia tensor: returns `(moments, rotation)` with
/// `inertia == R * diag(moments) * R^T` where `R = DMat3::from_quat(rotation)` is a proper rotation.
pub fn principal_axes(inertia: DMat3) -> (DVec3, DQuat) {
    let _ = inertia;
    todo!("geometry helper")
}
