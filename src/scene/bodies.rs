//! `[[bodies]]` entries: one body each, and the keys a body shares with a `[[lattices]]` entry
//! (motion, shape, mass or density, inertia, orientation, velocities, material, name).

use super::inertia::parse_inertia;
use super::path::parse_path;
use super::shape::parse_shape;
use super::table::{Span, Tab};
use super::{BodySpec, InertiaSpec, MassSpec, Motion, PathSpec, SceneError, UNUSED_DENSITY};
use crate::material::Material;
use crate::shape::Shape;
use glam::{DQuat, DVec3};
use std::collections::BTreeMap;
use toml::de::DeValue;
use toml::Spanned;

/// What every body-like table (a body or a lattice) needs to know about the scene.
pub(super) struct BodyCtx<'a> {
    pub(super) materials: &'a BTreeMap<String, Material>,
    /// `[world] collision_epsilon` (m): a body's size is bounded by it.
    pub(super) epsilon: f64,
}

/// The keys a body and a lattice share, read and validated.
pub(super) struct Common {
    pub(super) motion: Motion,
    pub(super) shape: Shape,
    pub(super) mass: MassSpec,
    pub(super) inertia: Option<InertiaSpec>,
    pub(super) orientation: DQuat,
    pub(super) velocity: DVec3,
    pub(super) angular_velocity: DVec3,
    pub(super) material: String,
    pub(super) path: Option<PathSpec>,
}

/// Keys shared by `[[bodies]]` and `[[lattices]]`.
pub(super) const COMMON_KEYS: [&str; 11] = [
    "name",
    "motion",
    "shape",
    "mass",
    "density",
    "inertia",
    "orientation",
    "velocity",
    "angular_velocity",
    "material",
    "path",
];

pub(super) fn parse_common(t: &Tab, ctx: &BodyCtx) -> Result<Common, SceneError> {
    let motion = t
        .choice(
            "motion",
            &[
                ("dynamic", Motion::Dynamic),
                ("fixed", Motion::Fixed),
                ("kinematic", Motion::Kinematic),
            ],
        )?
        .unwrap_or(Motion::Dynamic);

    let shape_value = t.get("shape").ok_or_else(|| t.missing("shape"))?;
    let (shape, part_masses) = parse_shape(t, shape_value, "shape")?;
    if matches!(shape, Shape::Plane { .. }) && motion != Motion::Fixed {
        return Err(t.value_error(
            &shape_value.span(),
            "shape",
            &format!(
                "a plane is only allowed on a fixed body (this body is {}; add motion = \"fixed\")",
                motion.as_str()
            ),
        ));
    }
    super::mesh::check_mesh_motion(t, shape_value, &shape, motion)?;

    let mass = t.positive("mass")?;
    let density = t.positive("density")?;
    let mass = match (mass, density) {
        (Some(_), Some((_, span))) => {
            return Err(t.value_error(&span, "density", "give either mass or density, not both"))
        }
        // The parts' masses make the body's: a body-level value would contradict or rescale them.
        (Some((_, span)), None) | (None, Some((_, span))) if part_masses.is_some() => {
            let key = if t.get("mass").is_some() {
                "mass"
            } else {
                "density"
            };
            let (first, first_span) = part_masses.map(|p| p.first).unwrap_or_default();
            return Err(t.value_error(
                &span,
                key,
                &format!(
                    "must be absent when the compound's parts carry their own density or mass \
                     ({first} at {}): the body's mass is the sum of its parts'",
                    t.src.loc(&first_span)
                ),
            ));
        }
        (None, None) if part_masses.is_some() => {
            MassSpec::Parts(part_masses.map(|p| p.masses).unwrap_or_default())
        }
        (Some((m, _)), None) => MassSpec::Mass(m),
        (None, Some((d, _))) => MassSpec::Density(d),
        (None, None) if motion == Motion::Dynamic => {
            return Err(t.error_at(
                &t.span,
                "a dynamic body needs mass or density (missing key mass)",
            ))
        }
        (None, None) => MassSpec::Density(UNUSED_DENSITY),
    };
    let inertia = parse_inertia(t)?;
    super::derived::check_body(t, shape_value, &shape, &mass, inertia, motion, ctx.epsilon)?;

    let orientation = t.quat("orientation")?.unwrap_or(DQuat::IDENTITY);
    let mut velocities = [DVec3::ZERO; 2];
    for (k, key) in ["velocity", "angular_velocity"].into_iter().enumerate() {
        if let Some((v, span)) = t.vec3(key)? {
            // A fixed body that moves is a contradiction, not something to ignore silently.
            if motion == Motion::Fixed && v != DVec3::ZERO {
                return Err(t.value_error(
                    &span,
                    key,
                    "must be zero on a fixed body (use motion = \"kinematic\" for a body that \
                     moves at constant velocity)",
                ));
            }
            velocities[k] = v;
        }
    }
    let [velocity, angular_velocity] = velocities;

    // A prescribed motion: kinematic bodies only, and it gives the velocities.
    let path = match t.get("path") {
        None => None,
        Some(value) => {
            if motion != Motion::Kinematic {
                return Err(t.value_error(
                    &value.span(),
                    "path",
                    &format!(
                        "is only allowed on a kinematic body (this body is {}; add motion = \
                         \"kinematic\")",
                        motion.as_str()
                    ),
                ));
            }
            let spec = parse_path(t, value)?;
            for (key, v) in [
                ("velocity", velocity),
                ("angular_velocity", angular_velocity),
            ] {
                if v != DVec3::ZERO {
                    let span = t.get(key).map_or(t.span.clone(), |v| v.span());
                    return Err(t.value_error(
                        &span,
                        key,
                        "must be zero on a body with a path (the path gives its velocities)",
                    ));
                }
            }
            Some(spec)
        }
    };

    let material = match t.string("material")? {
        None => "default".to_string(),
        Some((name, span)) => {
            if !ctx.materials.contains_key(name) {
                let known: Vec<&str> = ctx.materials.keys().map(String::as_str).collect();
                return Err(t.value_error(
                    &span,
                    "material",
                    &format!(
                        "unknown material \"{name}\" (defined: {}; add a [materials.{name}] table)",
                        known.join(", ")
                    ),
                ));
            }
            name.to_string()
        }
    };

    Ok(Common {
        motion,
        shape,
        mass,
        inertia,
        orientation,
        velocity,
        angular_velocity,
        material,
        path,
    })
}

/// Longest body or lattice name (characters): far more than a name needs, and small enough that a
/// run's frames (a name on every row) and a lattice's bodies (its name in each) stay their size.
pub(super) const MAX_NAME_CHARS: usize = 256;

/// Reads a body's optional `name`: returns the name, the span to blame for a duplicate, and the
/// "who" label for messages (`bodies[2] "ball"`, or `bodies[2]` when nameless).
pub(super) fn read_name<'t>(t: &Tab<'_, 't, '_>) -> Result<(Option<&'t str>, Span), SceneError> {
    match t.string("name")? {
        Some((name, span)) => {
            if name.is_empty() {
                return Err(t.value_error(&span, "name", "must not be empty"));
            }
            if name.contains(['\n', '\r']) {
                return Err(t.value_error(&span, "name", "must not contain a line break"));
            }
            let chars = name.chars().count();
            if chars > MAX_NAME_CHARS {
                return Err(t.value_error(
                    &span,
                    "name",
                    &format!(
                        "must have at most {MAX_NAME_CHARS} characters (got {chars}): a name is \
                         written on every row of frames.csv, and a lattice's on each of its bodies"
                    ),
                ));
            }
            Ok((Some(name), span))
        }
        None => Ok((None, t.span.clone())),
    }
}

pub(super) fn parse_body<'s, 't, 'i>(
    root: &Tab<'s, 't, 'i>,
    ctx: &BodyCtx,
    index: usize,
    item: &'t Spanned<DeValue<'i>>,
) -> Result<(BodySpec, Span, String), SceneError> {
    let mut t = root.element_table(item, format!("bodies[{index}]"))?;
    let (name, name_span) = read_name(&t)?;
    if let Some(name) = name {
        t.who = format!("bodies[{index}] \"{name}\"");
    }
    let mut keys = COMMON_KEYS.to_vec();
    keys.push("position");
    t.check_keys(&keys)?;
    let c = parse_common(&t, ctx)?;
    let position = t.vec3("position")?.map(|v| v.0).unwrap_or(DVec3::ZERO);
    let body = BodySpec {
        name: name
            .map(str::to_string)
            .unwrap_or_else(|| format!("body_{index}")),
        motion: c.motion,
        shape: c.shape,
        mass: c.mass,
        inertia: c.inertia,
        position,
        orientation: c.orientation,
        velocity: c.velocity,
        angular_velocity: c.angular_velocity,
        material: c.material,
        path: c.path,
        origin: t.origin(),
    };
    Ok((body, name_span, t.who.clone()))
}
