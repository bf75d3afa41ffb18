//! Wall time per contact point-step ([`PerContactPointStep`]): the run's and each stage's, a
//! unit of work that the contact-dominated scenes share whatever their size.
//!
//! A contact point-step is one resting contact point in one contact step; the world counts them
//! over the run as `resting_contacts` ([`Counts::resting_contacts`]).

use super::report::median;
use crate::world::Counts;
use std::collections::BTreeMap;

/// The run's wall time and each stage's per contact point-step (µs); `None` where the run had
/// no contact points.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PerContactPointStep {
    /// The divisor: contact points summed over the contact steps (`counts.resting_contacts`).
    pub contact_point_steps: u64,
    /// The run's wall time (stepping, `World::new` excluded) per contact point-step (µs).
    pub wall_us: Option<f64>,
    /// Each stage of the world's stage times per contact point-step (µs), keyed as
    /// `stage_times`.
    pub stages_us: BTreeMap<String, Option<f64>>,
}

impl PerContactPointStep {
    /// The figures of a run of `wall_time` seconds with `stage_times` (seconds by stage name;
    /// entries that are not numbers are left out) and `counts`.
    pub fn of(wall_time: f64, stage_times: &serde_json::Value, counts: &Counts) -> Self {
        let n = counts.resting_contacts;
        let per = |seconds: f64| (n > 0).then(|| seconds * 1e6 / n as f64);
        let stages_us = match stage_times {
            serde_json::Value::Object(stages) => stages
                .iter()
                .filter_map(|(name, s)| s.as_f64().map(|s| (name.clone(), per(s))))
                .collect(),
            _ => BTreeMap::new(),
        };
        PerContactPointStep {
            contact_point_steps: n,
            wall_us: per(wall_time),
            stages_us,
        }
    }

    /// The medians over `runs` (at least one) of each figure, as the bench's other timing
    /// figures; a figure is `None` if it is in any run, and the divisor is the first run's.
    pub fn median_of(runs: &[&PerContactPointStep]) -> Self {
        let first = runs[0];
        let median_or_none = |f: &dyn Fn(&PerContactPointStep) -> Option<f64>| {
            runs.iter()
                .map(|r| f(r))
                .collect::<Option<Vec<f64>>>()
                .map(median)
        };
        PerContactPointStep {
            contact_point_steps: first.contact_point_steps,
            wall_us: median_or_none(&|r| r.wall_us),
            stages_us: first
                .stages_us
                .keys()
                .map(|name| {
                    let value = median_or_none(&|r| r.stages_us.get(name).copied().flatten());
                    (name.clone(), value)
                })
                .collect(),
        }
    }

    /// `(name, value)` rows for the figures table: µs to four significant digits, or "n/a".
    pub(super) fn rows(&self) -> Vec<(String, String)> {
        let us = |x: Option<f64>| x.map_or_else(|| "n/a".to_string(), super::table::significant);
        let mut rows = vec![(
            "wall per contact point-step (µs)".to_string(),
            us(self.wall_us),
        )];
        for (stage, value) in &self.stages_us {
            rows.push((
                format!("stage {stage} per contact point-step (µs)"),
                us(*value),
            ));
        }
        rows
    }
}
