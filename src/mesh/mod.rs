//! Triangle meshes read from files (`shape = { type = "mesh", file = …, scale = …, convex = … }`):
//! reading STL and OBJ (`read`), welding and scaling, the closed-surface check, and what the
//! mesh collides as: its convex hull, a compound of convex pieces by approximate convex
//! decomposition (`decompose`, V-HACD through parry), or its own triangles.
//!
//! A mesh is **closed** when every edge is shared by exactly two triangles that run along it in
//! opposite directions (a consistently wound, watertight surface); its triangles are then turned
//! to wind counter-clockwise seen from outside (the signed volume positive). Only a closed mesh
//! bounds a solid: its own volume integrals give a dynamic body's mass properties, and the
//! decomposition needs one. A hull takes any mesh, open ones included.

mod decompose;
mod read;

pub use decompose::DecomposeParams;

use crate::geometry_guard::guarded;
use glam::DVec3;
pub use read::MAX_MESH_FILE_BYTES;
use read::{read_file, ReadError};
use rustc_hash::FxHashMap;
use std::path::Path;
use std::sync::Arc;

/// A triangle mesh in its shape's frame: welded, scaled vertices and index triples.
#[derive(Clone, Debug, PartialEq)]
pub struct TriangleMesh {
    /// The file as the scene names it, for messages.
    pub file: String,
    /// Distinct vertices (m).
    pub vertices: Vec<DVec3>,
    /// Triangles (indices into `vertices`, no repeated index), counter-clockwise seen from
    /// outside when the mesh is closed, as in the file otherwise.
    pub triangles: Vec<[u32; 3]>,
    /// `None` when the mesh is closed; else why not, in words.
    pub open: Option<String>,
}

impl TriangleMesh {
    /// Whether every edge is shared by two triangles wound consistently (see the module doc).
    pub fn closed(&self) -> bool {
        self.open.is_none()
    }

    /// The three corners of triangle `k`.
    pub fn corners(&self, k: usize) -> [DVec3; 3] {
        self.triangles[k].map(|i| self.vertices[i as usize])
    }
}

/// What a mesh collides as.
#[derive(Clone, Debug, PartialEq)]
pub enum MeshCollision {
    /// Its convex hull (`convex = "hull"`), given by the hull's vertices.
    Hull {
        /// The hull's vertices (m, shape frame).
        vertices: Vec<DVec3>,
    },
    /// Convex pieces from the approximate convex decomposition (`convex = "decompose"`), each
    /// the vertices of its hull, all in the shape frame.
    Decomposed {
        /// One vertex list per piece.
        parts: Vec<Vec<DVec3>>,
    },
    /// The triangles themselves (`convex = "none"`): fixed and kinematic bodies only.
    Triangles,
}

/// What the scene asks a mesh to collide as (`convex = …`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ConvexMode {
    /// `"hull"`.
    Hull,
    /// `"decompose"`, with V-HACD's settings.
    Decompose(DecomposeParams),
    /// `"none"`.
    None,
}

/// The scene key a [`MeshError`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeshKey {
    /// `file`: the file is missing, unreadable or unparsable, or its mesh is empty or flat.
    File,
    /// `convex`: the mesh cannot collide as asked (an open mesh to decompose).
    Convex,
}

/// Why a mesh cannot be used; the message names the file.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshError {
    /// The key to blame.
    pub key: MeshKey,
    /// What is wrong, naming the file.
    pub message: String,
}

/// Reads the mesh at `path` (`shown`: the path as the scene writes it), scales it by `scale`
/// (each component > 0) and builds what it collides as.
pub fn load(
    path: &Path,
    shown: &str,
    scale: DVec3,
    mode: &ConvexMode,
) -> Result<(Arc<TriangleMesh>, MeshCollision), MeshError> {
    let file_error = |what: String| MeshError {
        key: MeshKey::File,
        message: format!("\"{shown}\": {what}"),
    };
    let raw = read_file(path).map_err(|e| {
        file_error(match e {
            ReadError::NotFound => format!("no such file ({})", path.display()),
            ReadError::UnknownFormat(ext) if ext.is_empty() => {
                "unknown mesh format: the file has no extension (expected .stl or .obj)".into()
            }
            ReadError::UnknownFormat(ext) => {
                format!("unknown mesh format \".{ext}\" (expected .stl or .obj)")
            }
            ReadError::Invalid(why) => why,
        })
    })?;
    // The welding, hulls and decomposition run parry, which panics on some degenerate input.
    let mesh = guarded(|| build(raw.positions, &raw.triangles, scale, shown))
        .map_err(&file_error)?
        .map_err(&file_error)?;
    let collision = guarded(|| collision(&mesh, mode))
        .map_err(|e| (MeshKey::File, e))
        .and_then(|c| c)
        .map_err(|(key, what)| MeshError {
            key,
            message: format!("\"{shown}\": {what}"),
        })?;
    Ok((Arc::new(mesh), collision))
}

/// Relative tolerance of a flat vertex set, triangle or mesh: a vertex set of extent `L` within
/// `FLAT * L` of a plane spans no volume (see [`check_spans_volume`]), a triangle whose doubled
/// area is below `FLAT * L²` (`L` its longest edge) has no area, a closed mesh whose volume is
/// below `FLAT * L³` (`L` its extent) has no volume. Well above f64 rounding (1e-16) so that hulls
/// of nearly flat sets, which quickhull and the volume integrals would handle badly, are refused.
const FLAT: f64 = 1e-9;

/// Welds vertices with equal coordinates (after scaling), drops triangles that repeat a
/// vertex, checks what is left, and finds whether it is closed (turning it outward if so).
fn build(
    positions: Vec<DVec3>,
    triangles: &[[u32; 3]],
    scale: DVec3,
    file: &str,
) -> Result<TriangleMesh, String> {
    if let Some(bad) = positions.iter().find(|p| !p.is_finite()) {
        return Err(format!("has a vertex that is not finite ({bad})"));
    }
    let mut index_of: FxHashMap<[u64; 3], u32> = FxHashMap::default();
    let mut vertices = Vec::new();
    let mut remap = Vec::with_capacity(positions.len());
    for p in positions {
        // +0.0 for -0.0, so that the two weld.
        let p = p * scale + DVec3::ZERO;
        let key = p.to_array().map(f64::to_bits);
        let next = vertices.len() as u32;
        let i = *index_of.entry(key).or_insert(next);
        if i == next {
            vertices.push(p);
        }
        remap.push(i);
    }
    let mut kept: Vec<[u32; 3]> = triangles
        .iter()
        .map(|t| t.map(|i| remap[i as usize]))
        .filter(|[a, b, c]| a != b && b != c && c != a)
        .collect();
    if kept.is_empty() {
        return Err("has no triangles".into());
    }
    // Only the vertices the triangles use.
    let mut used = vec![u32::MAX; vertices.len()];
    let mut compact = Vec::new();
    for t in &mut kept {
        for i in t.iter_mut() {
            if used[*i as usize] == u32::MAX {
                used[*i as usize] = compact.len() as u32;
                compact.push(vertices[*i as usize]);
            }
            *i = used[*i as usize];
        }
    }
    let mut mesh = TriangleMesh {
        file: file.to_string(),
        vertices: compact,
        triangles: kept,
        open: None,
    };
    mesh.open = open_edges(&mesh);
    if mesh.closed() && signed_volume(&mesh) < 0.0 {
        for t in &mut mesh.triangles {
            t.swap(1, 2);
        }
    }
    Ok(mesh)
}

/// `None` if every edge is run along once in each direction; else a description of the first
/// edge (in triangle order) that is not: on one triangle only (open), on more than two
/// (not a manifold), or twice the same way (inconsistently wound).
fn open_edges(mesh: &TriangleMesh) -> Option<String> {
    let mut directed: FxHashMap<(u32, u32), u32> = FxHashMap::default();
    for t in &mesh.triangles {
        for k in 0..3 {
            *directed.entry((t[k], t[(k + 1) % 3])).or_insert(0) += 1;
        }
    }
    let mut border = 0usize;
    let mut first: Option<String> = None;
    let edge = |a: u32, b: u32| {
        let (p, q) = (mesh.vertices[a as usize], mesh.vertices[b as usize]);
        format!("({}, {}, {})–({}, {}, {})", p.x, p.y, p.z, q.x, q.y, q.z)
    };
    for t in &mesh.triangles {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            let forward = directed[&(a, b)];
            let back = directed.get(&(b, a)).copied().unwrap_or(0);
            if forward == 1 && back == 1 {
                continue;
            }
            if forward + back == 1 {
                border += 1;
            }
            if first.is_none() {
                first = Some(if forward + back == 1 {
                    format!("edge {} belongs to one triangle only", edge(a, b))
                } else if forward + back > 2 {
                    format!(
                        "edge {} is shared by {} triangles (not a manifold)",
                        edge(a, b),
                        forward + back
                    )
                } else {
                    format!(
                        "edge {} is run along the same way by two triangles (they are not \
                         wound consistently)",
                        edge(a, b)
                    )
                });
            }
        }
    }
    first.map(|f| {
        if border > 0 {
            format!("the mesh is open ({border} border edges; {f})")
        } else {
            format!("the mesh is not a closed, consistently wound surface ({f})")
        }
    })
}

/// Signed volume enclosed by the triangles (positive when they wind outward), about the mean
/// vertex to keep the sum free of cancellation.
fn signed_volume(mesh: &TriangleMesh) -> f64 {
    let c = mesh.vertices.iter().sum::<DVec3>() / mesh.vertices.len() as f64;
    (0..mesh.triangles.len())
        .map(|k| {
            let [a, b, d] = mesh.corners(k).map(|p| p - c);
            a.dot(b.cross(d))
        })
        .sum::<f64>()
        / 6.0
}

/// Largest distance between the mean vertex and a vertex: the mesh's extent.
fn extent(vertices: &[DVec3]) -> f64 {
    let c = vertices.iter().sum::<DVec3>() / vertices.len() as f64;
    vertices.iter().map(|v| v.distance(c)).fold(0.0, f64::max)
}

/// Whether triangle `k` has an area (doubled area above `FLAT` × its longest edge squared).
pub fn has_area(corners: [DVec3; 3]) -> bool {
    let [a, b, c] = corners;
    let longest = (b - a)
        .length_squared()
        .max((c - b).length_squared())
        .max((a - c).length_squared());
    (b - a).cross(c - a).length() > FLAT * longest
}

/// Checks that a convex vertex list (a convex shape's, a mesh's hull or one of its pieces) has at
/// least 4 finite points that are not all (nearly) on one plane; else why not, in words (the
/// shape's check wraps it as [`crate::shape::ShapeError::Degenerate`]). Greedy affine-rank test
/// (the same as quickhull's initial simplex): the point farthest from the first, then the
/// farthest from that line, then the farthest from that plane. A set of extent `L` spans a
/// volume only if some point lies farther than `FLAT * L` from that line and then that plane.
pub(crate) fn check_spans_volume(vertices: &[DVec3]) -> Result<(), String> {
    if vertices.len() < 4 {
        return Err(format!(
            "a convex shape needs at least 4 vertices (got {})",
            vertices.len()
        ));
    }
    if let Some(bad) = vertices.iter().find(|v| !v.is_finite()) {
        return Err(format!("convex vertex {bad} is not finite"));
    }
    let p0 = vertices[0];
    let farthest = |score: &dyn Fn(DVec3) -> f64| -> (DVec3, f64) {
        vertices
            .iter()
            .map(|&v| (v, score(v)))
            .fold(
                (p0, 0.0),
                |best, cand| if cand.1 > best.1 { cand } else { best },
            )
    };
    let (p1, extent) = farthest(&|v| (v - p0).length());
    if extent == 0.0 {
        return Err("all convex vertices coincide".into());
    }
    let axis = (p1 - p0) / extent;
    let (p2, off_line) = farthest(&|v| (v - p0).reject_from_normalized(axis).length());
    if off_line <= FLAT * extent {
        return Err("convex vertices are collinear".into());
    }
    let normal = axis.cross(p2 - p0).normalize();
    let (_, off_plane) = farthest(&|v| (v - p0).dot(normal).abs());
    if off_plane <= FLAT * extent {
        return Err("convex vertices are coplanar".into());
    }
    Ok(())
}

/// Builds what `mesh` collides as, checking that it can: a hull needs vertices that span a
/// volume; a decomposition a closed mesh with a volume; the triangles themselves one triangle
/// with an area. The error names the key to blame.
fn collision(mesh: &TriangleMesh, mode: &ConvexMode) -> Result<MeshCollision, (MeshKey, String)> {
    let flat = |_: String| {
        (
            MeshKey::File,
            "the mesh is degenerate: its vertices span no volume (they lie in one plane); a \
             flat surface can only be used with convex = \"none\""
                .to_string(),
        )
    };
    match mode {
        ConvexMode::None => {
            if !(0..mesh.triangles.len()).any(|k| has_area(mesh.corners(k))) {
                return Err((
                    MeshKey::File,
                    "the mesh is degenerate: every triangle has zero area".into(),
                ));
            }
            Ok(MeshCollision::Triangles)
        }
        ConvexMode::Hull => {
            check_spans_volume(&mesh.vertices).map_err(flat)?;
            let (points, _) = parry3d_f64::transformation::try_convex_hull(&mesh.vertices)
                .map_err(|e| (MeshKey::File, format!("its convex hull failed: {e:?}")))?;
            check_spans_volume(&points).map_err(flat)?;
            Ok(MeshCollision::Hull { vertices: points })
        }
        ConvexMode::Decompose(params) => {
            check_spans_volume(&mesh.vertices).map_err(flat)?;
            if let Some(why) = &mesh.open {
                return Err((
                    MeshKey::Convex,
                    format!(
                        "convex = \"decompose\" needs a closed mesh (every edge shared by two \
                         triangles wound consistently), but {why}; use convex = \"hull\", or \
                         \"none\" on a fixed or kinematic body"
                    ),
                ));
            }
            let volume = signed_volume(mesh);
            let l = extent(&mesh.vertices);
            if volume <= FLAT * l.powi(3) {
                return Err((
                    MeshKey::File,
                    format!("the mesh is degenerate: it encloses no volume ({volume:e} m³)"),
                ));
            }
            let parts = decompose::decompose(mesh, params).map_err(|e| (MeshKey::Convex, e))?;
            Ok(MeshCollision::Decomposed { parts })
        }
    }
}

/// The check of [`crate::shape::Shape::validate`] for a mesh shape: finite vertices and
/// triangles in range, and collision geometry that can be built (a hull and every piece
/// spanning a volume, a triangle with an area); else what is degenerate, in words (the shape's
/// check wraps it as [`crate::shape::ShapeError::Degenerate`]).
pub fn validate(mesh: &TriangleMesh, collision: &MeshCollision) -> Result<(), String> {
    let bad = |m: String| Err(format!("mesh \"{}\": {m}", mesh.file));
    let n = mesh.vertices.len() as u32;
    if mesh.triangles.is_empty() {
        return bad("has no triangles".into());
    }
    if mesh.triangles.iter().flatten().any(|&i| i >= n) {
        return bad("a triangle's vertex index is out of range".into());
    }
    if mesh.vertices.iter().any(|v| !v.is_finite()) {
        return bad("a vertex is not finite".into());
    }
    match collision {
        MeshCollision::Hull { vertices } => check_spans_volume(vertices),
        MeshCollision::Decomposed { parts } if parts.is_empty() => {
            bad("the decomposition has no pieces".into())
        }
        MeshCollision::Decomposed { parts } => parts.iter().try_for_each(|p| check_spans_volume(p)),
        MeshCollision::Triangles => {
            if (0..mesh.triangles.len()).any(|k| has_area(mesh.corners(k))) {
                Ok(())
            } else {
                bad("every triangle has zero area".into())
            }
        }
    }
}

#[cfg(test)]
mod tests;
