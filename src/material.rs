//! Materials, the rule for a pair of different materials, and per-pair overrides.
//!
//! # The combination rule
//!
//! When bodies of materials `a` and `b` collide, the contact uses
//!
//! - friction `μ = sqrt(μa · μb)` (geometric mean): a frictionless surface (μ = 0) stays frictionless
//!   whatever touches it, and equal materials keep their own coefficient;
//! - restitution `e = max(ea, eb)`: a bouncy ball bounces on any floor. The tempting alternatives
//!   are worse for the scenes tumble runs: the product `ea · eb` makes two equal materials less
//!   bouncy than the material itself (0.48 → 0.23 in the funnel), and `min` lets a dead floor kill
//!   every bounce. `max` is also Box2D's default.
//!
//! Both rules are symmetric and return the material itself for a pair of equal materials, so a
//! scene with one material behaves exactly as its numbers say.
//!
//! A scene may override the rule for chosen pairs with `[[material_pairs]]` entries; a
//! [`MaterialTable`] holds the materials and the resolved coefficient for every pair.

use std::collections::BTreeMap;

/// Surface properties of a body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Material {
    /// Poisson coefficient of restitution, in [0, 1].
    pub restitution: f64,
    /// Coulomb friction coefficient, >= 0.
    pub friction: f64,
}

impl Default for Material {
    /// The scene format's default material: restitution 0.5, friction 0.5.
    fn default() -> Self {
        Material {
            restitution: 0.5,
            friction: 0.5,
        }
    }
}

/// The restitution and friction used when two materials meet (see the module documentation):
/// restitution is the larger of the two, friction the geometric mean.
pub fn combine(a: &Material, b: &Material) -> Material {
    Material {
        restitution: a.restitution.max(b.restitution),
        // The product of two non-negative coefficients; sqrt of a tiny negative rounding error
        // cannot occur because both factors are validated >= 0.
        friction: (a.friction * b.friction).sqrt(),
    }
}

/// A scene's override of the combination rule for one pair of materials (`[[material_pairs]]`).
/// The pair is unordered: `a = "steel", b = "rubber"` also covers rubber against steel.
#[derive(Clone, Debug, PartialEq)]
pub struct MaterialPair {
    /// One material's name.
    pub a: String,
    /// The other material's name (may equal `a`).
    pub b: String,
    /// Restitution for this pair; `None` keeps the rule's value.
    pub restitution: Option<f64>,
    /// Friction for this pair; `None` keeps the rule's value.
    pub friction: Option<f64>,
}

/// Why a [`MaterialTable`] cannot be built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MaterialError {
    /// A pair names a material that is not in the table.
    #[error("material_pairs names unknown material \"{0}\"")]
    UnknownMaterial(String),
}

/// All materials of a scene, indexed, with the coefficient for every pair resolved in advance.
///
/// Bodies store a material index; the collision response asks [`MaterialTable::pair`] for the
/// contact's coefficients. The table is dense (n² entries) because scenes have a handful of
/// materials and the lookup sits on the per-collision path.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MaterialTable {
    /// Material names, sorted (the index of a name is its position here).
    names: Vec<String>,
    /// The materials, parallel to `names`.
    materials: Vec<Material>,
    /// `pairs[i * n + j]`: the coefficients for materials i and j (symmetric).
    pairs: Vec<Material>,
}

impl MaterialTable {
    /// Builds the table from named materials and pair overrides. Later overrides of the same pair
    /// win (the scene parser refuses duplicates before this point).
    pub fn new(
        materials: &BTreeMap<String, Material>,
        overrides: &[MaterialPair],
    ) -> Result<MaterialTable, MaterialError> {
        let names: Vec<String> = materials.keys().cloned().collect();
        let mats: Vec<Material> = materials.values().copied().collect();
        let n = mats.len();
        let mut pairs = Vec::with_capacity(n * n);
        for a in &mats {
            for b in &mats {
                pairs.push(combine(a, b));
            }
        }
        let mut table = MaterialTable {
            names,
            materials: mats,
            pairs,
        };
        for o in overrides {
            let i = table
                .index(&o.a)
                .ok_or_else(|| MaterialError::UnknownMaterial(o.a.clone()))?;
            let j = table
                .index(&o.b)
                .ok_or_else(|| MaterialError::UnknownMaterial(o.b.clone()))?;
            let rule = combine(&table.materials[i], &table.materials[j]);
            let m = Material {
                restitution: o.restitution.unwrap_or(rule.restitution),
                friction: o.friction.unwrap_or(rule.friction),
            };
            table.pairs[i * n + j] = m;
            table.pairs[j * n + i] = m;
        }
        Ok(table)
    }

    /// Number of materials.
    pub fn len(&self) -> usize {
        self.materials.len()
    }

    /// Whether the table has no materials (never the case for a parsed scene, which always has
    /// "default").
    pub fn is_empty(&self) -> bool {
        self.materials.is_empty()
    }

    /// The index of a material name, if it exists.
    pub fn index(&self, name: &str) -> Option<usize> {
        // Names are sorted (they come from a BTreeMap), so a binary search suffices.
        self.names.binary_search_by(|n| n.as_str().cmp(name)).ok()
    }

    /// The name of material `i`. Panics if `i >= len()`.
    pub fn name(&self, i: usize) -> &str {
        &self.names[i]
    }

    /// Material `i` on its own. Panics if `i >= len()`.
    pub fn material(&self, i: usize) -> &Material {
        &self.materials[i]
    }

    /// The coefficients for a contact between materials `i` and `j` (the override if the scene
    /// gives one, else [`combine`]). Panics if either index is out of range.
    pub fn pair(&self, i: usize, j: usize) -> Material {
        let n = self.materials.len();
        assert!(i < n && j < n, "material index out of range");
        self.pairs[i * n + j]
    }

    /// The coefficients for a contact between two materials given by name; `None` if either name
    /// is unknown.
    pub fn pair_by_name(&self, a: &str, b: &str) -> Option<Material> {
        Some(self.pair(self.index(a)?, self.index(b)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(restitution: f64, friction: f64) -> Material {
        Material {
            restitution,
            friction,
        }
    }

    #[test]
    fn combine_is_max_restitution_and_geometric_mean_friction() {
        let c = combine(&m(0.2, 0.9), &m(0.8, 0.1));
        assert_eq!(c.restitution, 0.8);
        assert!((c.friction - 0.3).abs() < 1e-15);
        assert_eq!(combine(&m(0.48, 0.1), &m(0.48, 0.1)), m(0.48, 0.1));
        assert_eq!(combine(&m(0.5, 0.0), &m(0.5, 2.0)).friction, 0.0);
    }

    #[test]
    fn table_applies_overrides_symmetrically_and_keeps_the_rule_elsewhere() {
        let mut mats = BTreeMap::new();
        mats.insert("default".to_string(), m(0.5, 0.5));
        mats.insert("ice".to_string(), m(0.1, 0.02));
        mats.insert("rubber".to_string(), m(0.9, 1.0));
        let table = MaterialTable::new(
            &mats,
            &[MaterialPair {
                a: "rubber".into(),
                b: "ice".into(),
                restitution: None,
                friction: Some(0.3),
            }],
        )
        .unwrap();
        assert_eq!(table.len(), 3);
        let ice = table.index("ice").unwrap();
        let rubber = table.index("rubber").unwrap();
        assert_eq!(table.name(rubber), "rubber");
        assert_eq!(table.pair(ice, rubber), m(0.9, 0.3));
        assert_eq!(table.pair(rubber, ice), m(0.9, 0.3));
        let d = table.pair_by_name("default", "rubber").unwrap();
        assert_eq!(d, combine(&m(0.5, 0.5), &m(0.9, 1.0)));
        assert_eq!(table.pair_by_name("default", "lava"), None);
    }

    #[test]
    fn table_refuses_an_override_naming_an_unknown_material() {
        let mut mats = BTreeMap::new();
        mats.insert("default".to_string(), Material::default());
        let err = MaterialTable::new(
            &mats,
            &[MaterialPair {
                a: "default".into(),
                b: "lava".into(),
                restitution: Some(0.1),
                friction: None,
            }],
        )
        .unwrap_err();
        assert_eq!(err, MaterialError::UnknownMaterial("lava".into()));
    }
}
