//! The report as the tables `tumble bench` prints ([`BenchReport::table`]): the runs, the
//! seconds, and every figure with its unit, with the number formats they share.

use super::BenchReport;
use crate::event_loop_allocations::Allocations;
use crate::plural::count;
use crate::world::Counts;

/// The event loops' allocations as a figure: the count, the bytes, and the count per thousand
/// heap pops (the loop's unit of work); "n/a" where they were not counted.
fn allocations(a: Option<Allocations>, counts: &Counts) -> String {
    match a {
        Some(a) => format!(
            "{} ({} bytes; {:.3} per 1000 heap pops)",
            a.count,
            a.bytes,
            1000.0 * a.count as f64 / counts.heap_pops.max(1) as f64
        ),
        None => "n/a".into(),
    }
}

impl BenchReport {
    /// The report as the tables printed by `tumble bench`: one row per run and the medians, then
    /// every figure of the medians with its unit.
    pub fn table(&self) -> String {
        let mut out = String::new();
        out.push_str(&format!(
            "tumble bench: {}: {}, {} backend, {} s simulated, {}\n\n",
            self.scene,
            count(self.bodies, "dynamic body", "dynamic bodies"),
            self.backend,
            self.sim_time,
            count(self.repeat, "run", "runs")
        ));
        let header = [
            "run",
            "first frame (s)",
            "wall time (s)",
            "wall/sim",
            "events/s",
            "heap pops/s",
            "peak memory (MiB)",
            "wall (µs/contact point-step)",
        ];
        let mut rows: Vec<Vec<String>> = self
            .runs
            .iter()
            .enumerate()
            .map(|(i, r)| {
                RunRow {
                    label: (i + 1).to_string(),
                    first_frame: r.time_to_first_frame,
                    wall: r.wall_time,
                    wall_per_sim: r.wall_per_sim,
                    events: r.events_per_second,
                    pops: r.heap_pops_per_second,
                    memory: r.peak_memory_mib,
                    us_per_point_step: r.per_contact_point_step.wall_us,
                }
                .cells()
            })
            .collect();
        rows.push(
            RunRow {
                label: "median".to_string(),
                first_frame: self.time_to_first_frame,
                wall: self.wall_time,
                wall_per_sim: self.wall_per_sim,
                events: self.events_per_second,
                pops: self.heap_pops_per_second,
                memory: self.peak_memory_mib,
                us_per_point_step: self.per_contact_point_step.wall_us,
            }
            .cells(),
        );
        out.push_str(&columns(&header, &rows));
        out.push('\n');
        if !self.by_second.is_empty() {
            out.push_str(&self.by_second_table());
            out.push('\n');
        }

        let mut figures: Vec<(String, String)> = vec![
            ("scene".into(), self.scene.clone()),
            ("bodies (dynamic)".into(), self.bodies.to_string()),
            ("backend".into(), self.backend.clone()),
            (
                "adapter".into(),
                self.adapter.clone().unwrap_or_else(|| "n/a".into()),
            ),
            ("sim time (s)".into(), self.sim_time.to_string()),
            (
                "time to first frame (s)".into(),
                significant(self.time_to_first_frame),
            ),
            ("wall time (s)".into(), significant(self.wall_time)),
            ("wall/sim".into(), ratio(self.wall_per_sim)),
            ("events/s".into(), format!("{:.0}", self.events_per_second)),
            (
                "heap pops/s".into(),
                format!("{:.0}", self.heap_pops_per_second),
            ),
            ("peak memory (MiB)".into(), mib(self.peak_memory_mib)),
            (
                "event-loop allocations".into(),
                allocations(self.event_loop_allocations, &self.counts),
            ),
        ];
        match &self.stage_times {
            serde_json::Value::Object(stages) if !stages.is_empty() => {
                for (stage, seconds) in stages {
                    let share = match seconds.as_f64() {
                        Some(s) if self.wall_time > 0.0 => {
                            format!("{} ({:.0}%)", significant(s), 100.0 * s / self.wall_time)
                        }
                        Some(s) => significant(s),
                        None => seconds.to_string(),
                    };
                    figures.push((format!("stage {stage} (s)"), share));
                }
            }
            _ => figures.push(("stage times".into(), "n/a".into())),
        }
        if let Some(share) = self.device_share {
            figures.push((
                "device share of wall".into(),
                format!("{:.1}%", 100.0 * share),
            ));
        }
        // Through serde, so that counters the world adds later are listed without touching this.
        if let Ok(serde_json::Value::Object(counts)) = serde_json::to_value(&self.counts) {
            for (name, n) in counts {
                figures.push((format!("count {name}"), n.to_string()));
            }
        }
        figures.extend(self.rates.rows());
        figures.extend(self.per_contact_point_step.rows());
        figures.push((
            "max penetration (m)".into(),
            match &self.quality.deepest_overlap {
                Some(o) => format!(
                    "{:.3e} (at {:.4} s, {} and {})",
                    self.quality.max_penetration, o.time, o.bodies[0], o.bodies[1]
                ),
                None => format!("{:.3e}", self.quality.max_penetration),
            },
        ));
        figures.push(("escaped".into(), self.quality.escaped.to_string()));
        figures.push((
            "fell off the floor's edge".into(),
            self.quality.fell_off_edge.to_string(),
        ));
        figures.push((
            "through outlet".into(),
            match self.quality.through_outlet {
                Some(n) => n.to_string(),
                None => "n/a (no [bench] outlet_z)".into(),
            },
        ));
        figures.push((
            "deterministic".into(),
            if self.deterministic {
                "yes".into()
            } else {
                "NO: the runs' counters or quality figures differ (see the JSON runs)".into()
            },
        ));
        let rows: Vec<Vec<String>> = figures.into_iter().map(|(k, v)| vec![k, v]).collect();
        out.push_str(&columns(&["figure", "value"], &rows));
        out
    }
}

impl BenchReport {
    /// The table of [`Self::by_second`]: where the wall time went, second by simulated second.
    fn by_second_table(&self) -> String {
        let header = [
            "simulated (s)",
            "wall (s)",
            "wall/sim",
            "contact step (s)",
            "broad phase (s)",
            "event loop (s)",
            "stepped islands (s)",
            "island steps",
            "collisions",
            "re-solves",
            "contact steps",
            "asleep",
            "awake",
        ];
        let rows: Vec<Vec<String>> = self
            .by_second
            .iter()
            .map(|s| {
                let length = s.to - s.from;
                vec![
                    format!("{}-{}", s.from, short(s.to)),
                    significant(s.wall_time),
                    ratio((length > 0.0).then(|| s.wall_time / length)),
                    significant(s.contact_step),
                    significant(s.broad_phase),
                    significant(s.event_loop),
                    significant(s.stepped_islands),
                    s.island_steps.to_string(),
                    s.collisions.to_string(),
                    s.held_resolutions.to_string(),
                    s.contact_steps.to_string(),
                    s.asleep.to_string(),
                    s.awake.to_string(),
                ]
            })
            .collect();
        let mut out = "by simulated second (median times over the runs):\n".to_string();
        out.push_str(&columns(&header, &rows));
        out
    }
}

/// One row of the runs table: a run's figures, or the medians.
struct RunRow {
    label: String,
    first_frame: f64,
    wall: f64,
    wall_per_sim: Option<f64>,
    events: f64,
    pops: f64,
    memory: Option<f64>,
    us_per_point_step: Option<f64>,
}

impl RunRow {
    /// The row's cells, in the header's order.
    fn cells(self) -> Vec<String> {
        vec![
            self.label,
            significant(self.first_frame),
            significant(self.wall),
            ratio(self.wall_per_sim),
            format!("{:.0}", self.events),
            format!("{:.0}", self.pops),
            mib(self.memory),
            ratio(self.us_per_point_step),
        ]
    }
}

/// A simulated time with at most three decimals and no trailing zeros ("2", "2.1").
fn short(t: f64) -> String {
    let text = format!("{t:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A ratio to four significant digits, or "n/a".
fn ratio(r: Option<f64>) -> String {
    r.map_or_else(|| "n/a".to_string(), significant)
}

/// Four significant digits: fixed point from 1e-3 up, scientific below (a short run's
/// sub-millisecond times would otherwise all print as 0.000).
pub(super) fn significant(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    if x.abs() < 1e-3 {
        return format!("{x:.3e}");
    }
    let decimals = (3 - x.abs().log10().floor() as i32).clamp(0, 6) as usize;
    format!("{x:.decimals$}")
}

/// A peak-memory figure in MiB, or "n/a".
fn mib(m: Option<f64>) -> String {
    m.map_or_else(|| "n/a".to_string(), |m| format!("{m:.1}"))
}

/// Left-aligned columns separated by two spaces, with a dashed rule under the header.
fn columns(header: &[&str], rows: &[Vec<String>]) -> String {
    let header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        padded.join("  ").trim_end().to_string() + "\n"
    };
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    let mut out = line(&header);
    out.push_str(&line(&rule));
    for row in rows {
        out.push_str(&line(row));
    }
    out
}
