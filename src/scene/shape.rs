//! Shape tables (`shape = { type = "box", … }`, compound parts included) read into
//! [`crate::shape::Shape`], each dimension checked where its own span can be blamed.

use super::mesh::parse_mesh;
use super::table::{fmt_vec, Span, Tab};
use super::{PartMass, SceneError};
use crate::shape::{CompoundPart, Shape};
use glam::{DQuat, DVec3};
use toml::de::DeValue;
use toml::Spanned;

const SHAPE_TYPES: &str = "sphere, box, capsule, cylinder, convex, compound, mesh, plane";

/// The masses of a compound whose every part gives its own `density` or `mass`.
pub(super) struct PartMasses {
    /// One per part, in the order of `parts`.
    pub(super) masses: Vec<PartMass>,
    /// The first part's key path ("shape.parts[0].density") and its value's span, to point at
    /// when the body also gives a mass.
    pub(super) first: (String, Span),
}

/// Parses a shape table at `key` (a path like "shape" or "shape.parts[1].shape") of `t`, and the
/// per-part masses when it is a compound whose parts carry them (every part or none: a mix is an
/// error naming the first part without one).
pub(super) fn parse_shape(
    t: &Tab,
    value: &Spanned<DeValue>,
    key: &str,
) -> Result<(Shape, Option<PartMasses>), SceneError> {
    let mut part_masses = None;
    let DeValue::Table(table) = value.get_ref() else {
        return Err(t.value_error(
            &value.span(),
            key,
            &format!(
                "must be a table such as {{ type = \"sphere\", radius = 0.1 }} (got {})",
                value.get_ref().type_str()
            ),
        ));
    };
    let s = Tab {
        src: t.src,
        table,
        span: value.span(),
        who: t.who.clone(),
        path: format!("{}{key}.", t.path),
    };
    let (kind, kind_span) = s.string("type")?.ok_or_else(|| s.missing("type"))?;
    let shape = match kind {
        "sphere" => {
            s.check_keys(&["type", "radius"])?;
            Shape::Sphere {
                radius: s.dimension("radius")?,
            }
        }
        "box" => {
            s.check_keys(&["type", "half_extents"])?;
            let (h, span) = s
                .vec3("half_extents")?
                .ok_or_else(|| s.missing("half_extents"))?;
            if h.min_element() <= 0.0 {
                return Err(s.value_error(
                    &span,
                    "half_extents",
                    &format!("must all be > 0 (got {})", fmt_vec(h)),
                ));
            }
            Shape::Box { half_extents: h }
        }
        "capsule" => {
            s.check_keys(&["type", "radius", "half_length"])?;
            let radius = s.dimension("radius")?;
            let (half_length, span) = s
                .number("half_length")?
                .ok_or_else(|| s.missing("half_length"))?;
            if half_length < 0.0 {
                return Err(s.value_error(
                    &span,
                    "half_length",
                    &format!("must be >= 0 (got {half_length})"),
                ));
            }
            Shape::Capsule {
                radius,
                half_length,
            }
        }
        "cylinder" => {
            s.check_keys(&["type", "radius", "half_height"])?;
            Shape::Cylinder {
                radius: s.dimension("radius")?,
                half_height: s.dimension("half_height")?,
            }
        }
        "convex" => {
            s.check_keys(&["type", "vertices"])?;
            let list = s.get("vertices").ok_or_else(|| s.missing("vertices"))?;
            let items = s.array(list, "vertices")?;
            let mut vertices = Vec::with_capacity(items.len());
            for (k, v) in items.iter().enumerate() {
                vertices.push(s.vec3_value(v, &format!("vertices[{k}]"))?);
            }
            let shape = Shape::Convex { vertices };
            // The geometry module owns the flatness rule; blame the vertex list, not the table.
            if let Err(e) = shape.validate() {
                return Err(s.value_error(&list.span(), "vertices", &format!("are invalid: {e}")));
            }
            shape
        }
        "compound" => {
            s.check_keys(&["type", "parts"])?;
            let list = s.get("parts").ok_or_else(|| s.missing("parts"))?;
            let items = s.array(list, "parts")?;
            if items.is_empty() {
                return Err(s.value_error(&list.span(), "parts", "must have at least one part"));
            }
            let mut parts = Vec::with_capacity(items.len());
            // Each part's own mass, if it gives one, with its key path and span.
            let mut masses: Vec<Option<(PartMass, String, Span)>> = Vec::new();
            for (k, item) in items.iter().enumerate() {
                let DeValue::Table(pt) = item.get_ref() else {
                    return Err(s.value_error(
                        &item.span(),
                        &format!("parts[{k}]"),
                        "must be a table { shape, position, orientation }",
                    ));
                };
                let p = Tab {
                    src: s.src,
                    table: pt,
                    span: item.span(),
                    who: s.who.clone(),
                    path: format!("{}parts[{k}].", s.path),
                };
                p.check_keys(&["shape", "position", "orientation", "density", "mass"])?;
                let sv = p.get("shape").ok_or_else(|| p.missing("shape"))?;
                let (shape, _) = parse_shape(&p, sv, "shape")?;
                if matches!(
                    shape,
                    Shape::Plane { .. } | Shape::Compound { .. } | Shape::Mesh { .. }
                ) {
                    return Err(p.value_error(
                        &sv.span(),
                        "shape",
                        &format!(
                            "a compound's part must be convex (got a {})",
                            shape.type_name()
                        ),
                    ));
                }
                parts.push(CompoundPart {
                    shape,
                    position: p.vec3("position")?.map(|v| v.0).unwrap_or(DVec3::ZERO),
                    orientation: p.quat("orientation")?.unwrap_or(DQuat::IDENTITY),
                });
                masses.push(part_mass(&p)?);
            }
            part_masses = check_part_masses(&s, items, masses)?;
            Shape::Compound { parts }
        }
        "mesh" => parse_mesh(&s)?,
        "plane" => {
            s.check_keys(&["type", "normal", "offset"])?;
            let (normal, span) = s.vec3("normal")?.ok_or_else(|| s.missing("normal"))?;
            if normal.length() < 1e-12 {
                return Err(s.value_error(&span, "normal", "must not be the zero vector"));
            }
            Shape::Plane {
                normal,
                offset: s.number("offset")?.map(|v| v.0).unwrap_or(0.0),
            }
        }
        other => {
            return Err(s.value_error(
                &kind_span,
                "type",
                &format!("must be one of {SHAPE_TYPES} (got unknown shape type \"{other}\")"),
            ))
        }
    };
    // The dimensions were checked above where their own spans could be blamed; this is the
    // geometry module's full check (the authority on what can be built), blamed on the shape.
    shape
        .validate()
        .map_err(|e| t.value_error(&value.span(), key, &format!("is invalid: {e}")))?;
    Ok((shape, part_masses))
}

/// A compound part's own `density` or `mass` (finite and > 0, not both), with its key path and
/// span; `None` when it gives neither.
fn part_mass(p: &Tab) -> Result<Option<(PartMass, String, Span)>, SceneError> {
    let density = p.positive("density")?;
    let mass = p.positive("mass")?;
    Ok(match (density, mass) {
        (Some(_), Some((_, span))) => {
            return Err(p.value_error(
                &span,
                "mass",
                "is given together with density: give a part either density or mass, not both",
            ))
        }
        (Some((d, span)), None) => Some((PartMass::Density(d), format!("{}density", p.path), span)),
        (None, Some((m, span))) => Some((PartMass::Mass(m), format!("{}mass", p.path), span)),
        (None, None) => None,
    })
}

/// Every part of a compound gives its own mass or none does: the masses when all do, `None` when
/// none does, an error naming the first part without one when only some do.
fn check_part_masses(
    s: &Tab,
    items: &[Spanned<DeValue>],
    masses: Vec<Option<(PartMass, String, Span)>>,
) -> Result<Option<PartMasses>, SceneError> {
    let Some(given) = masses.iter().flatten().next() else {
        return Ok(None);
    };
    if let Some(k) = masses.iter().position(Option::is_none) {
        return Err(s.error_at(
            &items[k].span(),
            &format!(
                "{}parts[{k}] has neither density nor mass, but {} is given: give every part of \
                 a compound its own density or mass, or none (then the body's mass or density \
                 covers the whole compound)",
                s.path, given.1
            ),
        ));
    }
    let first = (given.1.clone(), given.2.clone());
    Ok(Some(PartMasses {
        masses: masses.into_iter().flatten().map(|m| m.0).collect(),
        first,
    }))
}
