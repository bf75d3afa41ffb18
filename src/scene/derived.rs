//! A body's derived quantities (its size, volume, mass and principal moments) checked when the
//! body is read, before anything computes with them, and refused at the key that made them.
//!
//! A radius of 1e300 is a valid number whose volume is not (`inf`, then `NaN` inertia); a
//! density of 1e300 gives a mass no impulse can move. Checked here, where the keys' spans are
//! known, each refusal names the key as written, the body and the bound
//! (docs/scene-format.md, Sanity bounds). The bounds on built bodies (`limits::check_bodies`)
//! stay as the authority for scenes built in code and for what depends on the run's duration.

use super::limits::{
    short_number, MAX_EPSILON_OVER_SIZE, MAX_MASS, MAX_MOMENT, MIN_MASS, MIN_MOMENT,
};
use super::table::{Span, Tab};
use super::{InertiaSpec, MassSpec, Motion, PartMass, SceneError};
use crate::geometry_guard::guarded;
use crate::mass_properties::{mass_properties, principal_axes};
use crate::shape::Shape;
use crate::world::resolution::{GJK_TOLERANCE, MAX_SIZE_OVER_EPSILON};
use glam::{DMat3, DVec3};
use toml::de::DeValue;
use toml::Spanned;

/// Which of a shape's size keys to blame: the one that makes it largest (a body too large, a
/// volume that overflows) or smallest (too small, a volume that underflows).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pick {
    Largest,
    Smallest,
}

/// The body read from `t` (its shape table `shape_value`, read as `shape`) against the bounds on
/// its size (every body but a plane) and, for a dynamic body, its volume, mass and principal
/// moments: the first out of bounds is an error at the key that made it.
pub(super) fn check_body(
    t: &Tab,
    shape_value: &Spanned<DeValue>,
    shape: &Shape,
    mass: &MassSpec,
    inertia: Option<InertiaSpec>,
    motion: Motion,
    epsilon: f64,
) -> Result<(), SceneError> {
    if matches!(shape, Shape::Plane { .. }) {
        return Ok(());
    }
    let blame = |pick: Pick, why: String| {
        let (key, span) = size_key(shape_value, shape, "shape", pick);
        t.value_error(&span, &key, &format!("{}{why}", as_written(t, &span)))
    };
    let r = extent(shape);
    let largest = MAX_SIZE_OVER_EPSILON * epsilon;
    if r.is_nan() || r > largest {
        return Err(blame(
            Pick::Largest,
            format!(
                "makes a body of bounding radius {} m, more than the {} m ({:.1e} times [world] \
                 collision_epsilon = {} m) the geometry resolves: it decides contacts to \
                 {GJK_TOLERANCE:.1e} of a pair's size, coarser than the contact band; make the \
                 body smaller or collision_epsilon larger",
                short_number(r),
                short_number(largest),
                MAX_SIZE_OVER_EPSILON,
                short_number(epsilon)
            ),
        ));
    }
    if motion != Motion::Dynamic {
        return Ok(());
    }
    if r * MAX_EPSILON_OVER_SIZE < epsilon {
        return Err(blame(
            Pick::Largest,
            format!(
                "makes a dynamic body of bounding radius {} m, smaller than [world] \
                 collision_epsilon = {} m, the band in which a pair counts as touching: bodies \
                 this far apart would be in contact; make the body larger or collision_epsilon \
                 smaller",
                short_number(r),
                short_number(epsilon)
            ),
        ));
    }
    // A shape the geometry cannot build is refused when the world is built, with its reason.
    let Ok(Ok(unit)) = guarded(|| mass_properties(shape, 1.0)) else {
        return Ok(());
    };
    let volume = unit.mass;
    if !(volume.is_normal() && unit.inertia.is_finite()) {
        let pick = if volume.is_finite() {
            Pick::Smallest
        } else {
            Pick::Largest
        };
        return Err(blame(
            pick,
            format!(
                "gives the body a volume of {} m³, which f64 cannot hold with its moments of \
                 inertia (a volume from {:.1e} m³, the smallest normal f64, up to about 1e300 \
                 m³); its mass cannot be computed",
                short_number(volume),
                f64::MIN_POSITIVE
            ),
        ));
    }
    let (mass, tensor) = match mass {
        MassSpec::Mass(m) => {
            check_mass(t, "mass", *m, None)?;
            (*m, unit.inertia * (m / volume))
        }
        MassSpec::Density(rho) => {
            check_mass(t, "density", rho * volume, Some((*rho, volume)))?;
            (rho * volume, unit.inertia * *rho)
        }
        MassSpec::Parts(masses) => match check_parts(t, shape_value, shape, masses)? {
            Some(total) => total,
            // Refused with its reason when the world is built.
            None => return Ok(()),
        },
    };
    let (moments, key) = match inertia {
        Some(InertiaSpec::Principal(given)) => (given, "inertia"),
        Some(InertiaSpec::Tensor(given)) => (principal_axes(given).0, "inertia"),
        None => (principal_axes(tensor).0, ""),
    };
    let within = |i: f64| (MIN_MOMENT..=MAX_MOMENT).contains(&i);
    if moments.to_array().into_iter().all(within) {
        return Ok(());
    }
    let why = format!(
        "gives the body principal moments of inertia [{}] kg m² with its mass of {} kg: each \
         must be from {MIN_MOMENT:e} to {MAX_MOMENT:e} kg m² (f64 headroom: the solver divides \
         impulses' torques by them and multiplies them by squared spins)",
        moments.to_array().map(short_number).join(", "),
        short_number(mass)
    );
    if key == "inertia" {
        let span = t.get(key).map_or(t.span.clone(), |v| v.span());
        return Err(t.value_error(&span, key, &why));
    }
    let too_large = moments.max_element() > MAX_MOMENT || moments.is_nan();
    Err(blame(
        if too_large {
            Pick::Largest
        } else {
            Pick::Smallest
        },
        why,
    ))
}

/// A body's (or a part's) mass against [`MIN_MASS`]..=[`MAX_MASS`], blamed on `key`; for a
/// mass from a density, `density` is the density and the volume, and the bound is given as one
/// on the density.
fn check_mass(
    t: &Tab,
    key: &str,
    mass: f64,
    density: Option<(f64, f64)>,
) -> Result<(), SceneError> {
    if (MIN_MASS..=MAX_MASS).contains(&mass) {
        return Ok(());
    }
    let span = key_span(t, key);
    let bound = format!(
        "a mass must be from {MIN_MASS:e} to {MAX_MASS:e} kg (f64 headroom: impulses, momenta \
         and energies are masses times speeds, and velocity changes inverse masses times \
         impulses)"
    );
    let why = match density {
        None => format!("= {} kg is outside the bounds: {bound}", short_number(mass)),
        Some((rho, volume)) => format!(
            "= {} kg/m³ gives a mass of {} kg (volume {} m³): {bound}, so for this shape the \
             density from {} to {} kg/m³",
            short_number(rho),
            short_number(mass),
            short_number(volume),
            short_number(MIN_MASS / volume),
            short_number(MAX_MASS / volume)
        ),
    };
    Err(t.value_error(&span, key, &why))
}

/// A compound whose parts carry their own mass or density: each part's against the bounds at
/// its own key, then the body's total mass and inertia tensor (`None` where they cannot be
/// computed).
fn check_parts(
    t: &Tab,
    shape_value: &Spanned<DeValue>,
    shape: &Shape,
    masses: &[PartMass],
) -> Result<Option<(f64, DMat3)>, SceneError> {
    let Shape::Compound { parts } = shape else {
        return Ok(None);
    };
    for (k, (part, m)) in parts.iter().zip(masses).enumerate() {
        let Ok(Ok(unit)) = guarded(|| mass_properties(&part.shape, 1.0)) else {
            continue;
        };
        let (key, mass, density) = match *m {
            PartMass::Mass(m) => ("mass", m, None),
            PartMass::Density(rho) => ("density", rho * unit.mass, Some((rho, unit.mass))),
        };
        let part_table = table_item(shape_value, "parts", k);
        let part = part_table.and_then(|p| sub_tab(t, p, &format!("shape.parts[{k}].")));
        match part {
            Some(p) => check_mass(&p, key, mass, density)?,
            None => check_mass(t, "shape", mass, density)?,
        }
    }
    match guarded(|| crate::mass_properties::compound_mass_properties(parts, masses)) {
        Ok(Ok(mp)) => Ok(Some((mp.mass, mp.inertia))),
        _ => Ok(None),
    }
}

/// `= VALUE ` as the file writes the value at `span`, when that is short enough to repeat.
fn as_written(t: &Tab, span: &Span) -> String {
    let text = t.src.text.get(span.clone()).unwrap_or("").trim();
    if text.is_empty() || text.chars().count() > 40 || text.contains('\n') {
        String::new()
    } else {
        format!("= {text} ")
    }
}

/// The span of `key` in `t`, or the table's own.
fn key_span(t: &Tab, key: &str) -> Span {
    t.get(key).map_or(t.span.clone(), |v| v.span())
}

/// Element `k` of the array at `key` of a table value.
fn table_item<'a, 'i>(
    value: &'a Spanned<DeValue<'i>>,
    key: &str,
    k: usize,
) -> Option<&'a Spanned<DeValue<'i>>> {
    let DeValue::Table(table) = value.get_ref() else {
        return None;
    };
    match table.get(key)?.get_ref() {
        DeValue::Array(items) => items.get(k),
        _ => None,
    }
}

/// A table value as a [`Tab`] of the same owner as `t`, at key path `path`.
fn sub_tab<'s, 't, 'i>(
    t: &Tab<'s, 't, 'i>,
    value: &'t Spanned<DeValue<'i>>,
    path: &str,
) -> Option<Tab<'s, 't, 'i>> {
    match value.get_ref() {
        DeValue::Table(table) => Some(Tab {
            src: t.src,
            table,
            span: value.span(),
            who: t.who.clone(),
            path: format!("{}{path}", t.path),
        }),
        _ => None,
    }
}

/// The key (path from the body's table, e.g. `shape.radius` or `shape.parts[1].shape.half_extents`)
/// that sets the shape's size at `value`, with its span: the key that makes it largest or
/// smallest, as `pick` says.
fn size_key(value: &Spanned<DeValue>, shape: &Shape, path: &str, pick: Pick) -> (String, Span) {
    let key = |name: &str| {
        let DeValue::Table(table) = value.get_ref() else {
            return (path.to_string(), value.span());
        };
        match table.get(name) {
            Some(v) => (format!("{path}.{name}"), v.span()),
            None => (path.to_string(), value.span()),
        }
    };
    let larger = |a: f64, b: f64| (a >= b) == (pick == Pick::Largest);
    match shape {
        Shape::Sphere { .. } => key("radius"),
        Shape::Box { .. } => key("half_extents"),
        Shape::Capsule {
            radius,
            half_length,
        } => key(if pick == Pick::Smallest || radius >= half_length {
            "radius"
        } else {
            "half_length"
        }),
        Shape::Cylinder {
            radius,
            half_height,
        } => key(if larger(*radius, *half_height) {
            "radius"
        } else {
            "half_height"
        }),
        Shape::Convex { .. } => key("vertices"),
        Shape::Mesh { .. } => {
            let has_scale =
                matches!(value.get_ref(), DeValue::Table(t) if t.get("scale").is_some());
            key(if has_scale { "scale" } else { "file" })
        }
        Shape::Compound { parts } => {
            // The part reaching farthest from the compound's origin (or the smallest part), and
            // in it its position when that is what reaches far, else its own size.
            let reach = |p: &crate::shape::CompoundPart| length(p.position) + extent(&p.shape);
            let measure = |p: &crate::shape::CompoundPart| match pick {
                Pick::Largest => reach(p),
                Pick::Smallest => extent(&p.shape),
            };
            let chosen = (0..parts.len()).reduce(|a, b| {
                if larger(measure(&parts[a]), measure(&parts[b])) {
                    a
                } else {
                    b
                }
            });
            let Some(k) = chosen else {
                return key("parts");
            };
            let Some(part) = table_item(value, "parts", k) else {
                return key("parts");
            };
            let DeValue::Table(table) = part.get_ref() else {
                return key("parts");
            };
            let part_path = format!("{path}.parts[{k}]");
            let p = &parts[k];
            if pick == Pick::Largest && length(p.position) > extent(&p.shape) {
                if let Some(v) = table.get("position") {
                    return (format!("{part_path}.position"), v.span());
                }
            }
            match table.get("shape") {
                Some(v) => size_key(v, &p.shape, &format!("{part_path}.shape"), pick),
                None => (part_path, part.span()),
            }
        }
        Shape::Plane { .. } => key("normal"),
    }
}

/// A shape's size: its bounding radius about the centre of its box (for the primitives, about
/// their origin); a bound, within a factor of two, of the built body's radius about its centre
/// of mass.
fn extent(shape: &Shape) -> f64 {
    match shape {
        Shape::Sphere { radius } => *radius,
        Shape::Box { half_extents } => length(*half_extents),
        Shape::Capsule {
            radius,
            half_length,
        } => radius + half_length,
        Shape::Cylinder {
            radius,
            half_height,
        } => radius.hypot(*half_height),
        Shape::Convex { vertices } => spread(vertices.iter().copied()),
        Shape::Mesh { mesh, .. } => spread(mesh.vertices.iter().copied()),
        Shape::Compound { parts } => {
            let (lo, hi) =
                parts
                    .iter()
                    .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), p| {
                        let e = DVec3::splat(extent(&p.shape));
                        (lo.min(p.position - e), hi.max(p.position + e))
                    });
            let centre = 0.5 * (lo + hi);
            parts
                .iter()
                .map(|p| length(p.position - centre) + extent(&p.shape))
                .fold(0.0, f64::max)
        }
        Shape::Plane { .. } => 0.0,
    }
}

/// The largest distance of `points` from the centre of their box (infinite when a point is not
/// finite).
fn spread(points: impl Iterator<Item = DVec3> + Clone) -> f64 {
    let (lo, hi) = points
        .clone()
        .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p), hi.max(p))
        });
    if !(lo.is_finite() && hi.is_finite()) {
        return f64::INFINITY;
    }
    let centre = 0.5 * (lo + hi);
    points.map(|p| length(p - centre)).fold(0.0, f64::max)
}

/// A vector's length without overflow of its squares (glam's `length` of a 1e300 vector is
/// infinite).
fn length(v: DVec3) -> f64 {
    let largest = v.abs().max_element();
    if largest == 0.0 || !largest.is_finite() {
        largest
    } else {
        largest * (v / largest).length()
    }
}
