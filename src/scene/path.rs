//! A kinematic body's `path = { type = … }` table read into a [`PathSpec`], each value checked
//! where its own span can be blamed (see `docs/scene-format.md`, Prescribed motion).

use super::table::{fmt_vec, Tab};
use super::{PathSpec, SceneError};
use glam::{DQuat, DVec3};
use toml::de::DeValue;
use toml::Spanned;

const PATH_TYPES: &str = "oscillate, rock, keyframes";

/// Parses the `path` value of body table `t`.
pub(super) fn parse_path(t: &Tab, value: &Spanned<DeValue>) -> Result<PathSpec, SceneError> {
    let DeValue::Table(table) = value.get_ref() else {
        return Err(t.value_error(
            &value.span(),
            "path",
            &format!(
                "must be a table such as {{ type = \"oscillate\", amplitude = [0, 0, 0.001], \
                 frequency = 50 }} (got {})",
                value.get_ref().type_str()
            ),
        ));
    };
    let p = Tab {
        src: t.src,
        table,
        span: value.span(),
        who: t.who.clone(),
        path: format!("{}path.", t.path),
    };
    let (kind, kind_span) = p.string("type")?.ok_or_else(|| p.missing("type"))?;
    // A frequency ≥ 0 (0 holds the body at its scene pose) and a phase, default 0.
    let frequency = |p: &Tab| -> Result<f64, SceneError> {
        match p.number("frequency")? {
            None => Err(p.missing("frequency")),
            Some((f, span)) if f < 0.0 => {
                Err(p.value_error(&span, "frequency", &format!("must be >= 0 (got {f})")))
            }
            Some((f, _)) => Ok(f),
        }
    };
    let phase =
        |p: &Tab| -> Result<f64, SceneError> { Ok(p.number("phase")?.map_or(0.0, |(x, _)| x)) };
    match kind {
        "oscillate" => {
            p.check_keys(&["type", "amplitude", "frequency", "phase"])?;
            let (amplitude, _) = p.vec3("amplitude")?.ok_or_else(|| p.missing("amplitude"))?;
            Ok(PathSpec::Oscillate {
                amplitude,
                frequency: frequency(&p)?,
                phase: phase(&p)?,
            })
        }
        "rock" => {
            p.check_keys(&["type", "axis", "amplitude", "frequency", "phase"])?;
            let (axis, span) = p.vec3("axis")?.ok_or_else(|| p.missing("axis"))?;
            if axis.length() <= 1e-12 {
                return Err(p.value_error(
                    &span,
                    "axis",
                    &format!("must not be zero (got {})", fmt_vec(axis)),
                ));
            }
            let (amplitude, _) = p
                .number("amplitude")?
                .ok_or_else(|| p.missing("amplitude"))?;
            Ok(PathSpec::Rock {
                axis: axis.normalize(),
                amplitude,
                frequency: frequency(&p)?,
                phase: phase(&p)?,
            })
        }
        "keyframes" => parse_keyframes(&p),
        other => Err(p.value_error(
            &kind_span,
            "type",
            &format!("must be one of {PATH_TYPES} (got unknown path type \"{other}\")"),
        )),
    }
}

/// `{ type = "keyframes", times, positions, orientations, repeat }`.
fn parse_keyframes(p: &Tab) -> Result<PathSpec, SceneError> {
    p.check_keys(&["type", "times", "positions", "orientations", "repeat"])?;
    let list = p.get("times").ok_or_else(|| p.missing("times"))?;
    let items = p.array(list, "times")?;
    if items.len() < 2 {
        return Err(p.value_error(
            &list.span(),
            "times",
            &format!("must have at least two keys (got {})", items.len()),
        ));
    }
    let mut times = Vec::with_capacity(items.len());
    for (k, item) in items.iter().enumerate() {
        let t = p.number_value(item, &format!("times[{k}]"))?;
        if let Some(&before) = times.last() {
            if t <= before {
                return Err(p.value_error(
                    &item.span(),
                    &format!("times[{k}]"),
                    &format!(
                        "must be after times[{}] (got {t} after {before}): times must be \
                         strictly increasing",
                        k - 1
                    ),
                ));
            }
        }
        times.push(t);
    }
    let n = times.len();
    // One entry per key, or the key's identity when the list is absent.
    let per_key = |key: &str| match p.get(key) {
        None => Ok(None),
        Some(v) => {
            let items = p.array(v, key)?;
            if items.len() != n {
                return Err(p.value_error(
                    &v.span(),
                    key,
                    &format!(
                        "must have one entry per time (got {} for {n} times)",
                        items.len()
                    ),
                ));
            }
            Ok(Some((items, v.span())))
        }
    };
    let positions_items = per_key("positions")?;
    let orientations_items = per_key("orientations")?;
    if positions_items.is_none() && orientations_items.is_none() {
        return Err(p.error_at(
            &p.span,
            "missing key path.positions or path.orientations (keyframes need at least one)",
        ));
    }
    let mut positions = vec![DVec3::ZERO; n];
    if let Some((items, _)) = positions_items {
        for (k, item) in items.iter().enumerate() {
            positions[k] = p.vec3_value(item, &format!("positions[{k}]"))?;
        }
    }
    let mut orientations = vec![DQuat::IDENTITY; n];
    if let Some((items, _)) = orientations_items {
        for (k, item) in items.iter().enumerate() {
            let key = format!("orientations[{k}]");
            let q = p.array_of_len(item, &key, 4)?;
            let mut c = [0.0; 4];
            for (j, x) in q.iter().enumerate() {
                c[j] = p.number_value(x, &format!("{key}[{j}]"))?;
            }
            let quat = DQuat::from_xyzw(c[1], c[2], c[3], c[0]);
            let norm = quat.length();
            if (norm - 1.0).abs() > 1e-6 {
                return Err(p.value_error(
                    &item.span(),
                    &key,
                    &format!(
                        "must be a unit quaternion [w, x, y, z] (got norm {norm}; within 1e-6 \
                         of 1 is normalised)"
                    ),
                ));
            }
            orientations[k] = quat.normalize();
        }
    }
    let repeat = match p.get("repeat") {
        None => false,
        Some(v) => match v.get_ref() {
            DeValue::Boolean(b) => *b,
            other => {
                return Err(p.value_error(
                    &v.span(),
                    "repeat",
                    &format!("must be true or false (got {})", other.type_str()),
                ))
            }
        },
    };
    if repeat {
        // A loop that does not close would jump: teleport the body through its neighbours.
        let last = n - 1;
        let pos_gap = (positions[last] - positions[0]).length();
        if pos_gap > 1e-12 * (1.0 + positions[0].length()) {
            let span = positions_items.map(|(_, s)| s).unwrap_or(p.span.clone());
            return Err(p.value_error(
                &span,
                "positions",
                &format!(
                    "must end where they start when repeat = true (positions[{last}] = {} but \
                     positions[0] = {}): a looped path must close",
                    fmt_vec(positions[last]),
                    fmt_vec(positions[0])
                ),
            ));
        }
        if orientations[last].dot(orientations[0]).abs() < 1.0 - 1e-12 {
            let span = orientations_items.map(|(_, s)| s).unwrap_or(p.span.clone());
            return Err(p.value_error(
                &span,
                "orientations",
                &format!(
                    "must end where they start when repeat = true (orientations[{last}] differs \
                     from orientations[0] by {:.3e} rad): a looped path must close",
                    orientations[last].angle_between(orientations[0])
                ),
            ));
        }
    }
    Ok(PathSpec::Keyframes {
        times,
        positions,
        orientations,
        repeat,
    })
}
