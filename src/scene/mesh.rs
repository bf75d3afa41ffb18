//! Mesh shape tables: `shape = { type = "mesh", file = "part.stl", scale = 0.001, convex =
//! "hull" }` read into [`Shape::Mesh`] (the file relative to the scene's folder), and the check
//! that a mesh used as its own triangles is not on a dynamic body. Every error names the key,
//! the body and the mesh file.

use super::table::{fmt_vec, Span, Tab};
use super::{Motion, SceneError};
use crate::mesh::{ConvexMode, DecomposeParams, MeshCollision, MeshKey};
use crate::shape::Shape;
use glam::DVec3;
use toml::de::DeValue;
use toml::Spanned;

const CONVEX_VALUES: &str = "\"hull\", \"decompose\" or \"none\"";

/// Reads a mesh shape table (its `type` already read as "mesh").
pub(super) fn parse_mesh(s: &Tab) -> Result<Shape, SceneError> {
    s.check_keys(&["type", "file", "scale", "convex", "decompose"])?;
    let (file, file_span) = s.string("file")?.ok_or_else(|| s.missing("file"))?;
    if file.is_empty() {
        return Err(s.value_error(&file_span, "file", "must name a mesh file (got \"\")"));
    }
    let scale = scale(s)?;
    let convex = s.string("convex")?;
    let convex_span = convex.as_ref().map_or(file_span.clone(), |c| c.1.clone());
    let mode = match convex {
        None | Some(("hull", _)) => ConvexMode::Hull,
        Some(("decompose", _)) => ConvexMode::Decompose(decompose_params(s)?),
        Some(("none", _)) => ConvexMode::None,
        Some((other, span)) => {
            return Err(s.value_error(
                &span,
                "convex",
                &format!("must be {CONVEX_VALUES} (got \"{other}\") for mesh \"{file}\""),
            ))
        }
    };
    if let (Some(v), false) = (s.get("decompose"), matches!(mode, ConvexMode::Decompose(_))) {
        return Err(s.value_error(
            &v.span(),
            "decompose",
            &format!(
                "is read only with convex = \"decompose\" (mesh \"{file}\" is used as its {})",
                if mode == ConvexMode::None {
                    "triangles"
                } else {
                    "hull"
                }
            ),
        ));
    }
    let path = s.src.named_file(file);
    let (mesh, collision) =
        crate::mesh::load(&path, file, scale, &mode).map_err(|e| match e.key {
            MeshKey::File => s.value_error(&file_span, "file", &e.message),
            MeshKey::Convex => s.value_error(&convex_span, "convex", &e.message),
        })?;
    Ok(Shape::Mesh { mesh, collision })
}

/// `scale`: a number or three, each > 0 (default 1).
fn scale(s: &Tab) -> Result<DVec3, SceneError> {
    let Some(v) = s.get("scale") else {
        return Ok(DVec3::ONE);
    };
    let (scale, span) = match v.get_ref() {
        DeValue::Array(_) => s.vec3("scale")?.unwrap_or((DVec3::ONE, v.span())),
        _ => (DVec3::splat(s.number_value(v, "scale")?), v.span()),
    };
    let shown = if scale.x == scale.y && scale.y == scale.z {
        scale.x.to_string()
    } else {
        fmt_vec(scale)
    };
    if scale.min_element() <= 0.0 {
        return Err(s.value_error(
            &span,
            "scale",
            &format!("must be > 0, a number or one per axis [sx, sy, sz] (got {shown})"),
        ));
    }
    if scale.min_element() < MIN_SCALE || scale.max_element() > MAX_SCALE {
        return Err(s.value_error(
            &span,
            "scale",
            &format!(
                "must be from {MIN_SCALE:e} to {MAX_SCALE:e} on every axis (got {shown}): the mesh's \
                 coordinates times the scale, cubed for its volume, must stay inside f64; a \
                 millimetre mesh takes 0.001",
            ),
        ));
    }
    Ok(scale)
}

/// Smallest and largest factor of a mesh's `scale`, far past any change of units (0.001 for
/// millimetres): the scaled coordinates, cubed in the volume and squared again in the inertia,
/// stay inside f64 for any file of ordinary coordinates (a scale of 1e300 made every vertex
/// infinite, reported as a flat mesh). The body's size is then bounded at this key as any other.
const MIN_SCALE: f64 = 1e-30;
const MAX_SCALE: f64 = 1e30;

/// `decompose = { resolution, concavity, max_hulls, alpha, beta }`, each optional.
fn decompose_params(s: &Tab) -> Result<DecomposeParams, SceneError> {
    let mut p = DecomposeParams::default();
    let Some(t) = s.sub_table("decompose", s.who.clone(), format!("{}decompose.", s.path))? else {
        return Ok(p);
    };
    t.check_keys(&["resolution", "concavity", "max_hulls", "alpha", "beta"])?;
    if let Some(n) = t.count_in("resolution", 8, 256)? {
        p.resolution = n as u32;
    }
    if let Some(n) = t.count_in("max_hulls", 1, 1024)? {
        p.max_hulls = n as u32;
    }
    let in_range = |key: &str, lo: f64, hi: f64| -> Result<Option<f64>, SceneError> {
        match t.number(key)? {
            Some((x, span)) if !(lo..=hi).contains(&x) => {
                Err(t.value_error(&span, key, &format!("must be from {lo} to {hi} (got {x})")))
            }
            other => Ok(other.map(|(x, _)| x)),
        }
    };
    p.concavity = in_range("concavity", 0.0, 1.0)?.unwrap_or(p.concavity);
    p.alpha = in_range("alpha", 0.0, 1.0)?.unwrap_or(p.alpha);
    p.beta = in_range("beta", 0.0, 1.0)?.unwrap_or(p.beta);
    Ok(p)
}

/// Refuses a mesh used as its own triangles (`convex = "none"`) on a dynamic body: a surface
/// of triangles bounds no solid to give it mass, and two such surfaces could pass through each
/// other's triangles. Blamed on the `convex` value of the shape table `shape`.
pub(super) fn check_mesh_motion(
    t: &Tab,
    shape_value: &Spanned<DeValue>,
    shape: &Shape,
    motion: Motion,
) -> Result<(), SceneError> {
    let Shape::Mesh {
        mesh,
        collision: MeshCollision::Triangles,
    } = shape
    else {
        return Ok(());
    };
    if motion != Motion::Dynamic {
        return Ok(());
    }
    let span: Span = match shape_value.get_ref() {
        DeValue::Table(table) => table.get("convex").map(|v| v.span()),
        _ => None,
    }
    .unwrap_or(shape_value.span());
    Err(t.value_error(
        &span,
        "shape.convex",
        &format!(
            "\"none\" (mesh \"{}\" used as its triangles) is only for fixed and kinematic bodies, \
             and this body is dynamic: use convex = \"hull\" or \"decompose\"",
            mesh.file
        ),
    ))
}
