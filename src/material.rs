//! Materials and the rule for a pair of different materials (STUB: the scene helper implements this).

/// Surface properties of a body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Material {
    /// Poisson coefficient of restitution, in [0, 1].
    pub restitution: f64,
    /// Coulomb friction coefficient, >= 0.
    pub friction: f64,
}

impl Default for Material {
    fn default() -> Self {
        Material { restitution: 0.5, friction: 0.5 }
    }
}

/// The restitution and friction used when two materials meet.
pub fn combine(a: &Material, b: &Material) -> Material {
    let _ = (a, b);
    todo!("scene helper")
}
