//! The `[batch]` table: seeded trials of the scene for `tumble batch` ([`BatchSpec`]), with the
//! values drawn per trial (`[[batch.vary]]`, [`Vary`]). Read here, checked against the scene's
//! bodies, so that every error names the file, line, key and body; run by [`crate::batch`].

use super::table::{Span, Tab};
use super::{BodySpec, SceneError};
use crate::material::Material;
use crate::shape::Shape;
use std::collections::BTreeMap;

/// `[batch]`: how `tumble batch` runs the scene's trials.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchSpec {
    /// `trials`: the number of trials when `--trials` is not given (default 100).
    pub trials: u64,
    /// `seed`: the batch seed when `--seed` is not given (default 1).
    pub seed: u64,
    /// `classify`: the index of the body whose resting pose each trial reports.
    pub classify: Option<usize>,
    /// `until_rest`: end a trial once every dynamic body sleeps (default), else at the duration.
    pub until_rest: bool,
    /// `[[batch.vary]]`: the values drawn per trial, in file order (the draw order).
    pub vary: Vec<Vary>,
    /// `record`: the bodies (indices into the scene's bodies) whose final state each trial
    /// writes to `trials.csv`, in the order given.
    pub record: Vec<usize>,
    /// `trial_budget`: the wall-clock seconds one trial may take before it ends as a failed
    /// trial (default [`DEFAULT_TRIAL_BUDGET`]), so that one pathological draw cannot stall a
    /// batch. Wall time depends on the machine: a budget is a guard, not a result.
    pub trial_budget: f64,
}

/// The default `[batch] trial_budget` (s of wall time): far beyond any trial of the bundled
/// scenes (milliseconds to seconds), short enough that a stuck trial costs minutes, not a job.
pub const DEFAULT_TRIAL_BUDGET: f64 = 600.0;

impl Default for BatchSpec {
    fn default() -> Self {
        BatchSpec {
            trials: 100,
            seed: 1,
            classify: None,
            until_rest: true,
            vary: Vec::new(),
            record: Vec::new(),
            trial_budget: DEFAULT_TRIAL_BUDGET,
        }
    }
}

/// One `[[batch.vary]]` entry: a value of one body's initial state or properties, or of one
/// material, drawn per trial.
#[derive(Clone, Debug, PartialEq)]
pub struct Vary {
    /// What it draws for: a body or a material.
    pub target: VaryTarget,
    /// The body's name, or `materials.NAME` (for column names).
    pub name: String,
    /// What is drawn.
    pub key: VaryKey,
}

/// What a [`Vary`] entry draws for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VaryTarget {
    /// `body = "NAME"`: the body's index in [`super::Scene::bodies`].
    Body(usize),
    /// `material = "NAME"`: a material of [`super::Scene::materials`].
    Material(String),
}

/// A scalar a [`Vary`] entry may draw: a body's mass, density or a size of its shape, or a
/// material's friction or restitution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarKey {
    /// `mass` (kg).
    Mass,
    /// `density` (kg/m³).
    Density,
    /// `shape.radius` (m) of a sphere, capsule or cylinder.
    Radius,
    /// `shape.half_extents.x|y|z` (m) of a box.
    HalfExtent(usize),
    /// `shape.half_height` (m) of a cylinder.
    HalfHeight,
    /// `shape.half_length` (m) of a capsule.
    HalfLength,
    /// `friction` of a material.
    Friction,
    /// `restitution` of a material.
    Restitution,
}

impl ScalarKey {
    /// The key as written in `[[batch.vary]]`.
    pub fn key(self) -> String {
        match self {
            ScalarKey::Mass => "mass".into(),
            ScalarKey::Density => "density".into(),
            ScalarKey::Radius => "shape.radius".into(),
            ScalarKey::HalfExtent(axis) => format!("shape.half_extents.{}", ["x", "y", "z"][axis]),
            ScalarKey::HalfHeight => "shape.half_height".into(),
            ScalarKey::HalfLength => "shape.half_length".into(),
            ScalarKey::Friction => "friction".into(),
            ScalarKey::Restitution => "restitution".into(),
        }
    }
}

/// What a [`Vary`] entry draws.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum VaryKey {
    /// `key = "orientation"`: a uniformly random rotation (Haar measure), replacing the body's
    /// orientation.
    Orientation,
    /// `key = "position.x"` etc.: one component of a vector, drawn from a distribution.
    Component {
        /// Which vector.
        vector: StateVector,
        /// 0, 1, 2 for x, y, z.
        axis: usize,
        /// Its distribution.
        distribution: Distribution,
    },
    /// `key = "mass"`, `"friction"` etc.: one scalar, drawn from a distribution.
    Scalar {
        /// Which scalar.
        scalar: ScalarKey,
        /// Its distribution.
        distribution: Distribution,
    },
}

/// A vector of a body's initial state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateVector {
    /// `position` (m).
    Position,
    /// `velocity` (m/s).
    Velocity,
    /// `angular_velocity` (rad/s).
    AngularVelocity,
}

impl StateVector {
    /// The scene key: `position`, `velocity`, `angular_velocity`.
    pub fn key(self) -> &'static str {
        match self {
            StateVector::Position => "position",
            StateVector::Velocity => "velocity",
            StateVector::AngularVelocity => "angular_velocity",
        }
    }
}

/// A distribution of a drawn component.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Distribution {
    /// `uniform = [low, high]`.
    Uniform(f64, f64),
    /// `normal = [mean, sd]`.
    Normal(f64, f64),
}

impl Vary {
    /// The `trials.csv` columns of this entry: `body.key`, or `body.orientation.qw` … `.qz`.
    pub fn columns(&self) -> Vec<String> {
        match self.key {
            VaryKey::Orientation => ["qw", "qx", "qy", "qz"]
                .iter()
                .map(|c| format!("{}.orientation.{c}", self.name))
                .collect(),
            VaryKey::Component { vector, axis, .. } => {
                vec![format!(
                    "{}.{}.{}",
                    self.name,
                    vector.key(),
                    ["x", "y", "z"][axis]
                )]
            }
            VaryKey::Scalar { scalar, .. } => vec![format!("{}.{}", self.name, scalar.key())],
        }
    }
}

/// Reads `[batch]` from the scene's root table, with the bodies already read.
pub(super) fn parse_batch(
    root: &Tab,
    bodies: &[BodySpec],
    materials: &BTreeMap<String, Material>,
) -> Result<Option<BatchSpec>, SceneError> {
    let Some(t) = root.sub_table("batch", "batch".to_string(), String::new())? else {
        return Ok(None);
    };
    t.check_keys(&[
        "trials",
        "seed",
        "classify",
        "until_rest",
        "vary",
        "record",
        "trial_budget",
    ])?;
    let mut spec = BatchSpec::default();
    if let Some((b, span)) = t.positive("trial_budget")? {
        if !b.is_finite() {
            return Err(t.value_error(
                &span,
                "trial_budget",
                &format!("must be a finite number of seconds > 0 (got {b})"),
            ));
        }
        spec.trial_budget = b;
    }
    if let Some(v) = t.get("trials") {
        let (n, span) = t.integer_value(v, "trials")?;
        spec.trials = u64::try_from(n)
            .ok()
            .filter(|&n| n >= 1)
            .ok_or_else(|| t.value_error(&span, "trials", &format!("must be >= 1 (got {n})")))?;
    }
    if let Some(v) = t.get("seed") {
        let (n, span) = t.integer_value(v, "seed")?;
        spec.seed = u64::try_from(n)
            .map_err(|_| t.value_error(&span, "seed", &format!("must be >= 0 (got {n})")))?;
    }
    if let Some((name, span)) = t.string("classify")? {
        let body = find_body(&t, bodies, name, &span, "classify")?;
        if bodies[body].motion != super::Motion::Dynamic {
            return Err(t.value_error(
                &span,
                "classify",
                &format!("body \"{name}\" must be dynamic to come to rest on a face"),
            ));
        }
        spec.classify = Some(body);
    }
    if let Some(v) = t.get("until_rest") {
        match v.get_ref() {
            toml::de::DeValue::Boolean(b) => spec.until_rest = *b,
            other => {
                return Err(t.value_error(
                    &v.span(),
                    "until_rest",
                    &format!("must be true or false (got {})", other.type_str()),
                ))
            }
        }
    }
    if let Some(v) = t.get("record") {
        let toml::de::DeValue::Array(items) = v.get_ref() else {
            return Err(t.value_error(&v.span(), "record", "must be a list of body names"));
        };
        for (k, item) in items.iter().enumerate() {
            let key = format!("record[{k}]");
            let toml::de::DeValue::String(name) = item.get_ref() else {
                return Err(t.value_error(&item.span(), &key, "must be a body name (a string)"));
            };
            let body = find_body(&t, bodies, name, &item.span(), &key)?;
            if bodies[body].motion == super::Motion::Fixed {
                return Err(t.value_error(
                    &item.span(),
                    &key,
                    &format!("body \"{name}\" is fixed: its state never changes"),
                ));
            }
            spec.record.push(body);
        }
    }
    if let Some((items, _)) = t.array_of_tables("vary")? {
        for (index, item) in items.iter().enumerate() {
            let e = t.element_table(item, format!("batch.vary[{index}]"))?;
            spec.vary.push(parse_vary(&e, bodies, materials)?);
        }
    }
    Ok(Some(spec))
}

/// Index of the body called `name`, or an error at `span` naming `key`.
fn find_body(
    t: &Tab,
    bodies: &[BodySpec],
    name: &str,
    span: &Span,
    key: &str,
) -> Result<usize, SceneError> {
    bodies.iter().position(|b| b.name == name).ok_or_else(|| {
        t.value_error(
            span,
            key,
            &format!("= \"{name}\" names no body of the scene"),
        )
    })
}

/// One `[[batch.vary]]` entry: `body = "NAME"` with a key of its initial state (`orientation`,
/// `position.x` …), its mass or density, or a size of its shape; or `material = "NAME"` with
/// `friction` or `restitution`.
fn parse_vary(
    t: &Tab,
    bodies: &[BodySpec],
    materials: &BTreeMap<String, Material>,
) -> Result<Vary, SceneError> {
    t.check_keys(&["body", "material", "key", "uniform", "normal"])?;
    let (key, key_span) = t.string("key")?.ok_or_else(|| t.missing("key"))?;
    let (uniform, normal) = (range(t, "uniform")?, range(t, "normal")?);
    let key_error = |expected: &str| {
        t.value_error(
            &key_span,
            "key",
            &format!("must be {expected} (got \"{key}\")"),
        )
    };
    match (t.string("body")?, t.string("material")?) {
        (Some(_), Some((_, span))) => {
            Err(t.error_at(&span, "give one of body and material, not both"))
        }
        (None, None) => Err(t.error_at(&t.span, "needs body = \"NAME\" or material = \"NAME\"")),
        (None, Some((name, span))) => {
            if !materials.contains_key(name) {
                return Err(t.value_error(
                    &span,
                    "material",
                    &format!("= \"{name}\" names no material of the scene"),
                ));
            }
            let scalar = match key {
                "friction" => ScalarKey::Friction,
                "restitution" => ScalarKey::Restitution,
                _ => return Err(key_error("\"friction\" or \"restitution\" for a material")),
            };
            Ok(Vary {
                target: VaryTarget::Material(name.to_string()),
                name: format!("materials.{name}"),
                key: VaryKey::Scalar {
                    scalar,
                    distribution: distribution(t, key, uniform, normal)?,
                },
            })
        }
        (Some((name, name_span)), None) => {
            let body = find_body(t, bodies, name, &name_span, "body")?;
            let spec = &bodies[body];
            let key = if key == "orientation" {
                if let Some((_, _, span)) = uniform.as_ref().or(normal.as_ref()) {
                    return Err(t.error_at(
                        span,
                        "key \"orientation\" is a uniformly random rotation and takes no range",
                    ));
                }
                VaryKey::Orientation
            } else if let Some(scalar) = body_scalar(key) {
                let fits = match (scalar, &spec.shape) {
                    (ScalarKey::Mass | ScalarKey::Density, _) => {
                        !matches!(spec.mass, super::MassSpec::Parts(_))
                    }
                    (
                        ScalarKey::Radius,
                        Shape::Sphere { .. } | Shape::Capsule { .. } | Shape::Cylinder { .. },
                    ) => true,
                    (ScalarKey::HalfExtent(_), Shape::Box { .. }) => true,
                    (ScalarKey::HalfHeight, Shape::Cylinder { .. }) => true,
                    (ScalarKey::HalfLength, Shape::Capsule { .. }) => true,
                    _ => false,
                };
                if !fits || spec.motion != super::Motion::Dynamic {
                    return Err(t.value_error(
                        &key_span,
                        "key",
                        &format!(
                            "\"{key}\" cannot be drawn for body \"{name}\": it is not dynamic, its \
                             shape has no such size, or its parts carry their own masses"
                        ),
                    ));
                }
                VaryKey::Scalar {
                    scalar,
                    distribution: distribution(t, key, uniform, normal)?,
                }
            } else {
                let (vector, axis) = key
                    .split_once('.')
                    .and_then(|(v, a)| {
                        let vector = match v {
                            "position" => StateVector::Position,
                            "velocity" => StateVector::Velocity,
                            "angular_velocity" => StateVector::AngularVelocity,
                            _ => return None,
                        };
                        let axis = ["x", "y", "z"].iter().position(|c| *c == a)?;
                        Some((vector, axis))
                    })
                    .ok_or_else(|| {
                        key_error(
                            "\"orientation\", a component (position.x|y|z, velocity.x|y|z, \
                             angular_velocity.x|y|z), \"mass\", \"density\" or a size of the \
                             shape (shape.radius, shape.half_extents.x|y|z, shape.half_height, \
                             shape.half_length)",
                        )
                    })?;
                if spec.path.is_some() && vector != StateVector::Position {
                    return Err(t.value_error(
                        &key_span,
                        "key",
                        &format!(
                            "\"{key}\" cannot be drawn: body \"{name}\" follows a path, which gives \
                             its velocities"
                        ),
                    ));
                }
                VaryKey::Component {
                    vector,
                    axis,
                    distribution: distribution(t, key, uniform, normal)?,
                }
            };
            Ok(Vary {
                target: VaryTarget::Body(body),
                name: spec.name.clone(),
                key,
            })
        }
    }
}

/// The scalar body key `key` names, if any.
fn body_scalar(key: &str) -> Option<ScalarKey> {
    Some(match key {
        "mass" => ScalarKey::Mass,
        "density" => ScalarKey::Density,
        "shape.radius" => ScalarKey::Radius,
        "shape.half_extents.x" => ScalarKey::HalfExtent(0),
        "shape.half_extents.y" => ScalarKey::HalfExtent(1),
        "shape.half_extents.z" => ScalarKey::HalfExtent(2),
        "shape.half_height" => ScalarKey::HalfHeight,
        "shape.half_length" => ScalarKey::HalfLength,
        _ => return None,
    })
}

/// An entry's `uniform` or `normal` (`k`), with its span.
fn range(t: &Tab, k: &str) -> Result<Option<(f64, f64, Span)>, SceneError> {
    let Some(v) = t.get(k) else { return Ok(None) };
    let items = t.array_of_len(v, k, 2)?;
    let a = t.number_value(&items[0], &format!("{k}[0]"))?;
    let b = t.number_value(&items[1], &format!("{k}[1]"))?;
    Ok(Some((a, b, v.span())))
}

/// The distribution of an entry drawing `key`: exactly one of `uniform` and `normal`.
fn distribution(
    t: &Tab,
    key: &str,
    uniform: Option<(f64, f64, Span)>,
    normal: Option<(f64, f64, Span)>,
) -> Result<Distribution, SceneError> {
    Ok(match (uniform, normal) {
        (Some(_), Some((_, _, span))) => {
            return Err(t.error_at(&span, "give one of uniform and normal, not both"))
        }
        (None, None) => {
            return Err(t.error_at(
                &t.span,
                &format!("key \"{key}\" needs uniform = [low, high] or normal = [mean, sd]"),
            ))
        }
        (Some((lo, hi, span)), None) => {
            if lo > hi {
                return Err(t.value_error(
                    &span,
                    "uniform",
                    &format!("must have low <= high (got [{lo}, {hi}])"),
                ));
            }
            Distribution::Uniform(lo, hi)
        }
        (None, Some((mean, sd, span))) => {
            if sd < 0.0 {
                return Err(t.value_error(
                    &span,
                    "normal",
                    &format!("must have sd >= 0 (got {sd})"),
                ));
            }
            Distribution::Normal(mean, sd)
        }
    })
}
