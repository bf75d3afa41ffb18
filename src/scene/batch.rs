//! The `[batch]` table: seeded trials of the scene for `tumble batch` ([`BatchSpec`]), with the
//! values drawn per trial (`[[batch.vary]]`, [`Vary`]). Read here, checked against the scene's
//! bodies, so that every error names the file, line, key and body; run by [`crate::batch`].

use super::table::{Span, Tab};
use super::{BodySpec, SceneError};

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
}

impl Default for BatchSpec {
    fn default() -> Self {
        BatchSpec {
            trials: 100,
            seed: 1,
            classify: None,
            until_rest: true,
            vary: Vec::new(),
        }
    }
}

/// One `[[batch.vary]]` entry: a value of one body's initial state drawn per trial.
#[derive(Clone, Debug, PartialEq)]
pub struct Vary {
    /// The body's index in [`super::Scene::bodies`].
    pub body: usize,
    /// The body's name (for column names).
    pub body_name: String,
    /// What is drawn.
    pub key: VaryKey,
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
                .map(|c| format!("{}.orientation.{c}", self.body_name))
                .collect(),
            VaryKey::Component { vector, axis, .. } => {
                vec![format!(
                    "{}.{}.{}",
                    self.body_name,
                    vector.key(),
                    ["x", "y", "z"][axis]
                )]
            }
        }
    }
}

/// Reads `[batch]` from the scene's root table, with the bodies already read.
pub(super) fn parse_batch(
    root: &Tab,
    bodies: &[BodySpec],
) -> Result<Option<BatchSpec>, SceneError> {
    let Some(t) = root.sub_table("batch", "batch".to_string(), String::new())? else {
        return Ok(None);
    };
    t.check_keys(&["trials", "seed", "classify", "until_rest", "vary"])?;
    let mut spec = BatchSpec::default();
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
    if let Some((items, _)) = t.array_of_tables("vary")? {
        for (index, item) in items.iter().enumerate() {
            let e = t.element_table(item, format!("batch.vary[{index}]"))?;
            spec.vary.push(parse_vary(&e, bodies)?);
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

/// One `[[batch.vary]]` entry.
fn parse_vary(t: &Tab, bodies: &[BodySpec]) -> Result<Vary, SceneError> {
    t.check_keys(&["body", "key", "uniform", "normal"])?;
    let (name, name_span) = t.string("body")?.ok_or_else(|| t.missing("body"))?;
    let body = find_body(t, bodies, name, &name_span, "body")?;
    let (key, key_span) = t.string("key")?.ok_or_else(|| t.missing("key"))?;
    let range = |k: &str| -> Result<Option<(f64, f64, Span)>, SceneError> {
        let Some(v) = t.get(k) else { return Ok(None) };
        let items = t.array_of_len(v, k, 2)?;
        let a = t.number_value(&items[0], &format!("{k}[0]"))?;
        let b = t.number_value(&items[1], &format!("{k}[1]"))?;
        Ok(Some((a, b, v.span())))
    };
    let (uniform, normal) = (range("uniform")?, range("normal")?);
    let key = if key == "orientation" {
        if let Some((_, _, span)) = uniform.as_ref().or(normal.as_ref()) {
            return Err(t.error_at(
                span,
                "key \"orientation\" is a uniformly random rotation and takes no range",
            ));
        }
        VaryKey::Orientation
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
                t.value_error(
                    &key_span,
                    "key",
                    &format!(
                        "must be \"orientation\" or a component: position.x|y|z, velocity.x|y|z \
                         or angular_velocity.x|y|z (got \"{key}\")"
                    ),
                )
            })?;
        if bodies[body].path.is_some() && vector != StateVector::Position {
            return Err(t.value_error(
                &key_span,
                "key",
                &format!(
                    "\"{key}\" cannot be drawn: body \"{name}\" follows a path, which gives its \
                     velocities"
                ),
            ));
        }
        let distribution = match (uniform, normal) {
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
        };
        VaryKey::Component {
            vector,
            axis,
            distribution,
        }
    };
    Ok(Vary {
        body,
        body_name: bodies[body].name.clone(),
        key,
    })
}
