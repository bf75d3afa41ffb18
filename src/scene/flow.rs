//! `[[sources]]` entries: bodies poured into a region over time (LIGGGHTS' `fix
//! insert/rate/region`, Chrono's particle emitter), `[[sinks]]` that take them out (Chrono's
//! particle remover, Yade's `DomainLimiter`), and the `region` tables both name.

use super::bodies::{parse_common, read_name, BodyCtx, COMMON_KEYS};
use super::limits::{BODY_LIMIT_REASON, MAX_BODIES};
use super::region::Region;
use super::table::{fmt_vec, Span, Tab};
use super::{BodySpec, Motion, SceneError};
use glam::{DQuat, DVec3};
use toml::de::DeValue;
use toml::Spanned;

/// Largest coordinate or half extent of a region (m): far beyond any scene simulated, and small
/// enough that a point drawn in it keeps millimetres of f64 resolution.
pub const MAX_REGION_EXTENT: f64 = 1e6;

/// One kind of body a source pours: a body's keys (no name, position or path: the source names
/// and places it), with its share of the mix.
#[derive(Clone, Debug)]
pub struct SourceBody {
    /// Relative weight in a `bodies = [...]` mix (1 for a single `body`).
    pub weight: f64,
    /// The body's keys; its `name` and `position` are set for each body poured.
    pub spec: BodySpec,
    /// The orientation given, or `None`: each body turned at random (uniformly).
    pub orientation: Option<DQuat>,
}

/// A `[[sources]]` entry: bodies poured into `region` at `rate` per second from `start` to
/// `stop`, each placed at a random point of the region where it overlaps nothing.
#[derive(Clone, Debug)]
pub struct SourceSpec {
    /// Its name; the bodies it pours are named `<name>_<k>`, k = 0, 1, … in the order poured.
    pub name: String,
    /// Where its bodies' centres are placed.
    pub region: Region,
    /// Bodies per second (a `count` is turned into the rate that spreads it evenly).
    pub rate: f64,
    /// When the first body is due (s).
    pub start: f64,
    /// No body is due at or after this time (s; the run's duration if not given).
    pub stop: f64,
    /// The seed of the draws that place, turn and pick each body.
    pub seed: u64,
    /// What it pours: one kind, or a weighted mix.
    pub bodies: Vec<SourceBody>,
    /// Where it was defined ("scene.toml:12"), for messages.
    pub origin: String,
}

impl SourceSpec {
    /// How many bodies are due over its whole interval: k/rate after `start`, before `stop`.
    pub fn planned(&self) -> u64 {
        let span = (self.stop - self.start).max(0.0);
        (span * self.rate).ceil() as u64
    }

    /// When its `k`-th body is due (s).
    pub fn due(&self, k: u64) -> f64 {
        self.start + k as f64 / self.rate
    }
}

/// Entry `index` of `[[key]]`, which must have a `name`: its table (owned by its name), the name
/// and the name's span.
pub(super) fn named_entry<'s, 't, 'i>(
    root: &Tab<'s, 't, 'i>,
    key: &str,
    index: usize,
    item: &'t Spanned<DeValue<'i>>,
) -> Result<(Tab<'s, 't, 'i>, String, Span), SceneError> {
    let mut t = root.element_table(item, format!("{key}[{index}]"))?;
    let (name, name_span) = read_name(&t)?;
    let name = name.ok_or_else(|| t.missing("name"))?.to_string();
    t.who = format!("{key}[{index}] \"{name}\"");
    Ok((t, name, name_span))
}

/// Reads a `region` table at `key` of `t`: `center`, `half_extents` (each > 0) and an optional
/// `orientation`, within [`MAX_REGION_EXTENT`].
pub(super) fn parse_region(t: &Tab, key: &str) -> Result<Region, SceneError> {
    let path = format!("{key}.");
    let r = t
        .sub_table(key, t.who.clone(), path)?
        .ok_or_else(|| t.missing(key))?;
    r.check_keys(&["center", "half_extents", "orientation"])?;
    let (center, center_span) = r.vec3("center")?.ok_or_else(|| r.missing("center"))?;
    let (half, half_span) = r
        .vec3("half_extents")?
        .ok_or_else(|| r.missing("half_extents"))?;
    if half.min_element() <= 0.0 {
        let what = if half.min_element() < 0.0 {
            "inverted"
        } else {
            "empty"
        };
        return Err(r.value_error(
            &half_span,
            "half_extents",
            &format!(
                "must be > 0 on every axis (got {}: the region is {what})",
                fmt_vec(half)
            ),
        ));
    }
    for (v, span, name) in [
        (center, center_span, "center"),
        (half, half_span, "half_extents"),
    ] {
        if v.abs().max_element() > MAX_REGION_EXTENT {
            return Err(r.value_error(
                &span,
                name,
                &format!(
                    "must be within {MAX_REGION_EXTENT:e} m on every axis (got {})",
                    fmt_vec(v)
                ),
            ));
        }
    }
    let orientation = r.quat("orientation")?.unwrap_or(DQuat::IDENTITY);
    Ok(Region {
        center,
        half_extents: half,
        orientation,
    })
}

/// The keys a body shares with a lattice that a source sets itself: poured bodies are dynamic,
/// named and placed by their source, and follow no path.
const SET_BY_SOURCE: [&str; 3] = ["name", "motion", "path"];

/// Reads one kind of body of source `who` from table `t` (`weighted`: an entry of a mix): the
/// keys a `[[lattices]]` entry takes for its bodies but those the source sets, and `weight` in
/// a mix.
fn parse_source_body(t: &Tab, ctx: &BodyCtx, weighted: bool) -> Result<SourceBody, SceneError> {
    let mut keys: Vec<&str> = COMMON_KEYS
        .into_iter()
        .filter(|k| !SET_BY_SOURCE.contains(k))
        .collect();
    if weighted {
        keys.push("weight");
    }
    t.check_keys(&keys)?;
    let c = parse_common(t, ctx)?;
    debug_assert_eq!(c.motion, Motion::Dynamic);
    let weight = match t.number("weight")? {
        None if weighted => return Err(t.missing("weight")),
        None => 1.0,
        Some((w, span)) if w <= 0.0 => {
            return Err(t.value_error(&span, "weight", &format!("must be > 0 (got {w})")))
        }
        Some((w, _)) => w,
    };
    let orientation = t.get("orientation").map(|_| c.orientation);
    Ok(SourceBody {
        weight,
        orientation,
        spec: BodySpec {
            name: String::new(),
            motion: Motion::Dynamic,
            shape: c.shape,
            mass: c.mass,
            inertia: c.inertia,
            position: DVec3::ZERO,
            orientation: c.orientation,
            velocity: c.velocity,
            angular_velocity: c.angular_velocity,
            material: c.material,
            path: None,
            origin: String::new(),
        },
    })
}

/// Reads `[[sources]]` entry `index` of a scene that runs for `duration` and whose other entries
/// declare `others` bodies (the scene's bodies and the sources before it): the bodies it pours
/// count against [`MAX_BODIES`] too.
pub(super) fn parse_source<'s, 't, 'i>(
    root: &Tab<'s, 't, 'i>,
    ctx: &BodyCtx,
    index: usize,
    item: &'t Spanned<DeValue<'i>>,
    (duration, others): (f64, u64),
) -> Result<(SourceSpec, Span), SceneError> {
    let (t, name, name_span) = named_entry(root, "sources", index, item)?;
    t.check_keys(&[
        "name", "region", "rate", "count", "start", "stop", "seed", "body", "bodies",
    ])?;
    let region = parse_region(&t, "region")?;
    let start = match t.number("start")? {
        None => 0.0,
        Some((s, span)) if s < 0.0 => {
            return Err(t.value_error(&span, "start", &format!("must be >= 0 (got {s})")))
        }
        Some((s, _)) => s,
    };
    let stop = match t.number("stop")? {
        None => duration.max(start),
        Some((s, span)) if s < start => {
            return Err(t.value_error(
                &span,
                "stop",
                &format!("must be >= start ({start} s) (got {s})"),
            ))
        }
        Some((s, _)) => s,
    };
    let rate = match (t.number("rate")?, t.get("count")) {
        (Some(_), Some(c)) => {
            return Err(t.value_error(&c.span(), "count", "give either rate or count, not both"))
        }
        (None, None) => {
            return Err(t.error_at(&t.span, "a source needs rate or count (missing key rate)"))
        }
        (Some((r, span)), None) if r <= 0.0 => {
            return Err(t.value_error(&span, "rate", &format!("must be > 0 (got {r})")))
        }
        (Some((r, _)), None) => r,
        (None, Some(c)) => {
            let (n, span) = t.integer_value(c, "count")?;
            if n < 1 {
                return Err(t.value_error(&span, "count", &format!("must be >= 1 (got {n})")));
            }
            if stop <= start {
                return Err(t.value_error(
                    &span,
                    "count",
                    &format!(
                        "needs an interval to spread over: stop ({stop} s) must be after start \
                         ({start} s)"
                    ),
                ));
            }
            n as f64 / (stop - start)
        }
    };
    let seed = t.seed()?;
    let bodies = match (t.get("body"), t.array_of_tables("bodies")?) {
        (Some(_), Some((_, span))) => {
            return Err(t.value_error(&span, "bodies", "give either body or bodies, not both"))
        }
        (None, None) => {
            return Err(t.error_at(
                &t.span,
                "a source needs body = { shape = … } or a mix bodies = [{ weight = …, … }] \
                 (missing key body)",
            ))
        }
        (Some(_), None) => {
            let b = t
                .sub_table("body", format!("{} body", t.who), "body.".into())?
                .ok_or_else(|| t.missing("body"))?;
            vec![parse_source_body(&b, ctx, false)?]
        }
        (None, Some((items, span))) => {
            if items.is_empty() {
                return Err(t.value_error(&span, "bodies", "must list at least one body"));
            }
            let mut mix = Vec::with_capacity(items.len());
            for (k, item) in items.iter().enumerate() {
                let mut b = t.element_table(item, format!("{} bodies[{k}]", t.who))?;
                b.path = format!("bodies[{k}].");
                mix.push(parse_source_body(&b, ctx, true)?);
            }
            mix
        }
    };
    let spec = SourceSpec {
        name,
        region,
        rate,
        start,
        stop,
        seed,
        bodies,
        origin: t.origin(),
    };
    let planned = spec.planned();
    if planned.saturating_add(others) > MAX_BODIES {
        let key = if t.get("count").is_some() {
            "count"
        } else {
            "rate"
        };
        let span = t.get(key).map_or(t.span.clone(), |v| v.span());
        return Err(t.value_error(
            &span,
            key,
            &format!(
                "pours {planned} bodies from {} s to {} s which, with the scene's other {others}, \
                 is more than the {MAX_BODIES} a scene may have ({BODY_LIMIT_REASON})",
                spec.start, spec.stop
            ),
        ));
    }
    Ok((spec, name_span))
}

/// A `[[sinks]]` entry: a dynamic body whose centre is in `region` at a frame's end is taken out
/// of the world.
#[derive(Clone, Debug)]
pub struct SinkSpec {
    /// Its name (in `removed.csv`).
    pub name: String,
    /// Where it takes bodies out.
    pub region: Region,
    /// Where it was defined ("scene.toml:12"), for messages.
    pub origin: String,
}

/// Reads `[[sinks]]` entry `index`.
pub(super) fn parse_sink<'s, 't, 'i>(
    root: &Tab<'s, 't, 'i>,
    index: usize,
    item: &'t Spanned<DeValue<'i>>,
) -> Result<(SinkSpec, Span), SceneError> {
    let (t, name, name_span) = named_entry(root, "sinks", index, item)?;
    t.check_keys(&["name", "region"])?;
    let region = parse_region(&t, "region")?;
    let origin = t.origin();
    Ok((
        SinkSpec {
            name,
            region,
            origin,
        },
        name_span,
    ))
}
