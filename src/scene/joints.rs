//! `[[joints]]`: the scene's joints, read and checked against its bodies. Every error names the
//! joint (its name, or its index), the file, line and column.

use super::table::Tab;
use super::{BodySpec, SceneError};
use crate::body::Motion;
use crate::joints::{JointDef, JointKind};
use glam::DVec3;
use toml::de::DeValue;
use toml::Spanned;

/// One side of a joint: a body (index into the scene's bodies) or the world.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointEnd {
    /// The fixed world frame.
    World,
    /// A body.
    Body(usize),
}

/// A joint as the scene gives it (world coordinates at t = 0).
#[derive(Clone, Debug, PartialEq)]
pub struct JointSpec {
    /// Unique name.
    pub name: String,
    /// Its kind.
    pub kind: JointKind,
    /// The two ends (different).
    pub bodies: [JointEnd; 2],
    /// The anchor (m, world at t = 0). It need not lie on either body: a ball joint anchored
    /// away from its body is a massless rigid string.
    pub anchor: DVec3,
    /// Unit axis (world at t = 0) of a hinge or a slider.
    pub axis: Option<DVec3>,
    /// Optional limits `[lower, upper]`: rad for a hinge, m for a slider.
    pub limits: Option<[f64; 2]>,
    /// Where it was defined ("scene.toml:12").
    pub origin: String,
}

impl From<&JointSpec> for JointDef {
    /// The engine's definition of the joint: the file's record less where it was written.
    fn from(spec: &JointSpec) -> JointDef {
        let end = |e: JointEnd| match e {
            JointEnd::World => None,
            JointEnd::Body(i) => Some(i),
        };
        JointDef {
            name: spec.name.clone(),
            kind: spec.kind,
            bodies: spec.bodies.map(end),
            anchor: spec.anchor,
            axis: spec.axis,
            limits: spec.limits,
        }
    }
}

/// Reads `[[joints]]` of `root` against `bodies`.
pub(super) fn parse_joints(root: &Tab, bodies: &[BodySpec]) -> Result<Vec<JointSpec>, SceneError> {
    let Some((items, _)) = root.array_of_tables("joints")? else {
        return Ok(Vec::new());
    };
    let mut joints: Vec<JointSpec> = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let joint = parse_joint(root, bodies, index, item)?;
        if let Some(first) = joints.iter().find(|j| j.name == joint.name) {
            return Err(root.src.error(
                &item.span(),
                &format!(
                    "joints[{index}]: duplicate joint name \"{}\" (first defined at {})",
                    joint.name, first.origin
                ),
            ));
        }
        joints.push(joint);
    }
    Ok(joints)
}

fn parse_joint(
    root: &Tab,
    bodies: &[BodySpec],
    index: usize,
    item: &Spanned<DeValue>,
) -> Result<JointSpec, SceneError> {
    let t = root.element_table(item, format!("joints[{index}]"))?;
    let origin = root.src.loc(&item.span());
    // Name the joint in every later message.
    let name = match t.string("name")? {
        Some((n, _)) => n.to_string(),
        None => format!("joint_{index}"),
    };
    let t = Tab {
        who: format!("joints[{index}] \"{name}\""),
        ..t
    };
    t.check_keys(&["name", "type", "bodies", "anchor", "axis", "limits"])?;
    let (kind_name, kind_span) = t.string("type")?.ok_or_else(|| t.missing("type"))?;
    let kind = match kind_name {
        "ball" => JointKind::Ball,
        "hinge" => JointKind::Hinge,
        "slider" => JointKind::Slider,
        "fixed" => JointKind::Fixed,
        other => {
            return Err(t.value_error(
                &kind_span,
                "type",
                &format!("unknown joint type \"{other}\" (expected ball, hinge, slider or fixed)"),
            ))
        }
    };
    let ends_value = t.get("bodies").ok_or_else(|| t.missing("bodies"))?;
    let items = t.array_of_len(ends_value, "bodies", 2)?;
    let mut ends = [JointEnd::World; 2];
    for (k, v) in items.iter().enumerate() {
        let DeValue::String(s) = v.get_ref() else {
            return Err(t.value_error(&v.span(), "bodies", "must hold two names (strings)"));
        };
        ends[k] = if s == "world" {
            JointEnd::World
        } else {
            let i = bodies.iter().position(|b| b.name == *s).ok_or_else(|| {
                t.value_error(&v.span(), "bodies", &format!("unknown body \"{s}\""))
            })?;
            if bodies[i].motion != Motion::Dynamic {
                return Err(t.value_error(
                    &v.span(),
                    "bodies",
                    &format!(
                        "body \"{s}\" is {}: join a fixed body through \"world\" \
                         (kinematic bodies cannot be joined yet)",
                        bodies[i].motion.as_str()
                    ),
                ));
            }
            JointEnd::Body(i)
        };
    }
    if ends[0] == ends[1] {
        return Err(t.value_error(
            &ends_value.span(),
            "bodies",
            "a joint needs two different ends (a body cannot be joined to itself)",
        ));
    }
    let (anchor, _) = t.vec3("anchor")?.ok_or_else(|| t.missing("anchor"))?;
    let axis = match (kind, t.vec3("axis")?) {
        (JointKind::Hinge | JointKind::Slider, None) => return Err(t.missing("axis")),
        (JointKind::Hinge | JointKind::Slider, Some((a, span))) => {
            if a.length() < 1e-9 {
                return Err(t.value_error(&span, "axis", "must not be zero"));
            }
            Some(a.normalize())
        }
        (_, Some((_, span))) => {
            return Err(t.value_error(
                &span,
                "axis",
                &format!("a {} joint has no axis", kind.as_str()),
            ))
        }
        (_, None) => None,
    };
    let limits = match t.get("limits") {
        None => None,
        Some(v) => {
            if !matches!(kind, JointKind::Hinge | JointKind::Slider) {
                return Err(t.value_error(
                    &v.span(),
                    "limits",
                    &format!("a {} joint has no limits", kind.as_str()),
                ));
            }
            let items = t.array_of_len(v, "limits", 2)?;
            let lo = t.number_value(&items[0], "limits[0]")?;
            let hi = t.number_value(&items[1], "limits[1]")?;
            if lo > hi {
                return Err(t.value_error(
                    &v.span(),
                    "limits",
                    &format!("out of order: lower {lo} > upper {hi}"),
                ));
            }
            Some([lo, hi])
        }
    };
    Ok(JointSpec {
        name,
        kind,
        bodies: ends,
        anchor,
        axis,
        limits,
        origin,
    })
}
