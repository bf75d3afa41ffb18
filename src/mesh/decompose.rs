//! Approximate convex decomposition of a closed mesh (`convex = "decompose"`): parry's V-HACD
//! (Mamou & Ghorbel 2009, "A simple and efficient approach for 3D mesh approximate convex
//! decomposition"). The mesh is voxelised and filled, the voxels are split recursively by the
//! planes that most reduce the concavity, and each piece becomes the convex hull of the mesh
//! triangles it holds (parry's "exact" hulls, on the mesh's own vertices rather than voxel
//! corners).

use super::check_spans_volume;
use super::TriangleMesh;
use glam::DVec3;
use parry3d_f64::transformation::vhacd::{VHACDParameters, VHACD};

/// V-HACD's settings (`decompose = { … }`), named as in the scene.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DecomposeParams {
    /// `resolution`: voxels along the mesh's longest side (8–256; parry's `resolution`).
    pub resolution: u32,
    /// `concavity`: the largest concavity a piece may keep, relative to the mesh's size
    /// (≥ 0; parry's `concavity`): smaller gives more, tighter pieces.
    pub concavity: f64,
    /// `max_hulls`: most pieces (1–1024; parry's `max_convex_hulls`): the closest pieces are
    /// merged down to it.
    pub max_hulls: u32,
    /// `alpha`: weight of the split plane's symmetry in choosing it (0–1; parry's `alpha`).
    pub alpha: f64,
    /// `beta`: weight of its alignment with the mesh's axes (0–1; parry's `beta`).
    pub beta: f64,
}

impl Default for DecomposeParams {
    /// parry's defaults, but for at most 32 pieces instead of 1024.
    fn default() -> Self {
        let p = VHACDParameters::default();
        DecomposeParams {
            resolution: p.resolution,
            concavity: p.concavity,
            max_hulls: 32,
            alpha: p.alpha,
            beta: p.beta,
        }
    }
}

/// The vertex lists of the convex pieces of `mesh` (closed, with a volume), each spanning a
/// volume; an error in words if none does or V-HACD fails.
pub(super) fn decompose(
    mesh: &TriangleMesh,
    params: &DecomposeParams,
) -> Result<Vec<Vec<DVec3>>, String> {
    let settings = VHACDParameters {
        resolution: params.resolution,
        concavity: params.concavity,
        max_convex_hulls: params.max_hulls,
        alpha: params.alpha,
        beta: params.beta,
        ..VHACDParameters::default()
    };
    // parry's V-HACD asserts on inputs it cannot handle; a scene must get an error, not a
    // crash, so a panic inside it is turned into one.
    let run = || {
        let vhacd = VHACD::decompose(&settings, &mesh.vertices, &mesh.triangles, true);
        vhacd.compute_exact_convex_hulls(&mesh.vertices, &mesh.triangles)
    };
    let hulls = crate::geometry_guard::guarded(run).map_err(|e| {
        format!("the convex decomposition failed inside V-HACD: {e} (try another resolution)")
    })?;
    let pieces: Vec<Vec<DVec3>> = hulls
        .into_iter()
        .map(|(points, _)| points)
        .filter(|points| check_spans_volume(points).is_ok())
        .collect();
    if pieces.is_empty() {
        return Err(format!(
            "the convex decomposition gave no piece with a volume (resolution {}: try a \
             higher one)",
            params.resolution
        ));
    }
    Ok(pieces)
}
