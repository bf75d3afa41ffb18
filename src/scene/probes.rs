//! `[[probes]]` entries: what a run measures at every frame and writes to `probes.csv`
//! (LIGGGHTS' `fix massflow/mesh`, Chrono's flow-in-rectangle events): the flow through a
//! rectangle and the state of the bodies in a region.

use super::flow::{named_entry, parse_region};
use super::region::Region;
use super::table::{fmt_vec, Span, Tab};
use super::SceneError;
use glam::DVec3;
use toml::de::DeValue;
use toml::Spanned;

/// What a probe measures.
#[derive(Clone, Debug, PartialEq)]
pub enum ProbeKind {
    /// The bodies and mass whose centres cross a rectangle along its normal within each frame,
    /// net of those crossing back: the rectangle centred at `center`, spanning `half_extents`
    /// (hu, hv) along two unit axes `u`, `v` of its plane, `normal` = u × v.
    Flow {
        /// Centre (m, world).
        center: DVec3,
        /// Half extents along `u` and `v` (m, > 0).
        half_extents: [f64; 2],
        /// Unit normal: the positive direction of crossing.
        normal: DVec3,
        /// Unit axes of the plane (`u` × `v` = `normal`).
        u: DVec3,
        /// See `u`.
        v: DVec3,
    },
    /// The dynamic bodies whose centres are in `region` at the frame's end: their number, solid
    /// fraction, mean velocity and kinetic energy.
    Region(Region),
}

/// A `[[probes]]` entry.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeSpec {
    /// Its name (the `probe` column of probes.csv).
    pub name: String,
    /// What it measures.
    pub kind: ProbeKind,
    /// Where it was defined ("scene.toml:12"), for messages.
    pub origin: String,
}

impl ProbeSpec {
    /// The quantities it writes, in the order of its rows.
    pub fn quantities(&self) -> &'static [&'static str] {
        match self.kind {
            ProbeKind::Flow { .. } => &["bodies", "mass"],
            ProbeKind::Region(_) => &[
                "bodies",
                "solid_fraction",
                "vx",
                "vy",
                "vz",
                "kinetic_energy",
            ],
        }
    }
}

/// The plane's axes for `normal`: `u` the world axis least aligned with it, projected onto the
/// plane and normalised; `v` = `normal` × `u`.
fn plane_axes(normal: DVec3) -> (DVec3, DVec3) {
    let a = normal.abs();
    let pick = if a.x <= a.y && a.x <= a.z {
        DVec3::X
    } else if a.y <= a.z {
        DVec3::Y
    } else {
        DVec3::Z
    };
    let u = (pick - normal * pick.dot(normal)).normalize();
    (u, normal.cross(u))
}

/// Reads `[[probes]]` entry `index`.
pub(super) fn parse_probe<'s, 't, 'i>(
    root: &Tab<'s, 't, 'i>,
    index: usize,
    item: &'t Spanned<DeValue<'i>>,
) -> Result<(ProbeSpec, Span), SceneError> {
    let (t, name, name_span) = named_entry(root, "probes", index, item)?;
    let kind = t
        .choice("kind", &[("flow", 0), ("region", 1), ("load", 2)])?
        .ok_or_else(|| t.missing("kind"))?;
    let kind = match kind {
        0 => {
            t.check_keys(&["name", "kind", "center", "half_extents", "normal"])?;
            let (center, _) = t.vec3("center")?.ok_or_else(|| t.missing("center"))?;
            let v = t
                .get("half_extents")
                .ok_or_else(|| t.missing("half_extents"))?;
            let items = t.array_of_len(v, "half_extents", 2)?;
            let mut half = [0.0; 2];
            for (k, item) in items.iter().enumerate() {
                half[k] = t.number_value(item, &format!("half_extents[{k}]"))?;
            }
            if half[0] <= 0.0 || half[1] <= 0.0 {
                return Err(t.value_error(
                    &v.span(),
                    "half_extents",
                    &format!(
                        "must be > 0 on both axes of the rectangle (got [{}, {}]: the \
                         rectangle is {})",
                        half[0],
                        half[1],
                        if half[0] < 0.0 || half[1] < 0.0 {
                            "inverted"
                        } else {
                            "empty"
                        }
                    ),
                ));
            }
            let (normal, normal_span) = t.vec3("normal")?.ok_or_else(|| t.missing("normal"))?;
            let length = normal.length();
            if length.is_nan() || length <= 1e-12 {
                return Err(t.value_error(
                    &normal_span,
                    "normal",
                    &format!("must not be zero (got {})", fmt_vec(normal)),
                ));
            }
            let normal = normal / length;
            let (u, v) = plane_axes(normal);
            ProbeKind::Flow {
                center,
                half_extents: half,
                normal,
                u,
                v,
            }
        }
        1 => {
            t.check_keys(&["name", "kind", "region"])?;
            ProbeKind::Region(parse_region(&t, "region")?)
        }
        _ => {
            let span = t.get("kind").map_or(t.span.clone(), |v| v.span());
            return Err(t.value_error(
                &span,
                "kind",
                "\"load\" (the force and torque on a fixed or kinematic body) is not available \
                 yet: use \"flow\" or \"region\"",
            ));
        }
    };
    let origin = t.origin();
    Ok((ProbeSpec { name, kind, origin }, name_span))
}
