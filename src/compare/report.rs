//! `compare.csv` (one row per run) and the table `tumble compare` prints.
//!
//! Columns: `method`, `time_step` (s; empty for the event-driven method), `wall_s`,
//! `max_penetration` (m), `energy_drift` (J: kinetic plus gravitational energy at the end less
//! at the start), then per comparison time t given with `--at` `state_error_at_<t>` (m: the
//! largest distance of a dynamic body's centre from where the event-driven run has it) and
//! `velocity_error_at_<t>` (the largest difference of a linear or angular velocity component,
//! m/s or rad/s), then the same at the scene's end, `state_error_end` and
//! `velocity_error_end`, and `error` (the simulation error that stopped a run, else empty).

use super::{CompareRow, Comparison};
use crate::scene::Method;
use std::fmt::Write as _;
use std::path::Path;

/// The method's name as in `[world] method`.
pub fn method_name(m: Method) -> &'static str {
    match m {
        Method::Event => "event",
        Method::Lcp => "lcp",
    }
}

/// The CSV header of a comparison at `times` (the last is the end).
pub fn header(times: &[f64]) -> Vec<String> {
    let mut h: Vec<String> = [
        "method",
        "time_step",
        "wall_s",
        "max_penetration",
        "energy_drift",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for (k, t) in times.iter().enumerate() {
        let at = if k + 1 == times.len() {
            "end".to_string()
        } else {
            format!("at_{t}")
        };
        h.push(format!("state_error_{at}"));
        h.push(format!("velocity_error_{at}"));
    }
    h.push("error".to_string());
    h
}

fn fields(r: &CompareRow) -> Vec<String> {
    let mut f = vec![
        method_name(r.method).to_string(),
        r.time_step.map_or(String::new(), |h| h.to_string()),
        format!("{:.6}", r.wall_s),
        format!("{:e}", r.max_penetration),
        format!("{:e}", r.energy_drift),
    ];
    for (x, v) in r.state_error.iter().zip(&r.velocity_error) {
        f.push(format!("{x:e}"));
        f.push(format!("{v:e}"));
    }
    // The message in quotes, its own quotes doubled (RFC 4180).
    f.push(
        r.error
            .as_ref()
            .map_or(String::new(), |e| format!("\"{}\"", e.replace('"', "\"\""))),
    );
    f
}

/// Writes `compare.csv` for `c` to `path`.
pub fn write_csv(path: &Path, c: &Comparison) -> std::io::Result<()> {
    let mut text = header(&c.times).join(",");
    text.push('\n');
    for r in &c.rows {
        text.push_str(&fields(r).join(","));
        text.push('\n');
    }
    std::fs::write(path, text)
}

/// The printed table: a line per run, the state errors at each time.
pub fn table(c: &Comparison) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "{:<6} {:>9} {:>9} {:>12} {:>12}",
        "method", "h (s)", "wall (s)", "max pen (m)", "ΔE (J)"
    );
    for (k, t) in c.times.iter().enumerate() {
        let label = if k + 1 == c.times.len() {
            "end".to_string()
        } else {
            format!("t={t}")
        };
        let _ = write!(
            s,
            " {:>11} {:>11}",
            format!("Δx {label}"),
            format!("Δv {label}")
        );
    }
    s.push('\n');
    for r in &c.rows {
        let _ = write!(
            s,
            "{:<6} {:>9} {:>9.3} {:>12.2e} {:>12.3e}",
            method_name(r.method),
            r.time_step.map_or("-".to_string(), |h| h.to_string()),
            r.wall_s,
            r.max_penetration,
            r.energy_drift
        );
        for (x, v) in r.state_error.iter().zip(&r.velocity_error) {
            let _ = write!(s, " {x:>11.3e} {v:>11.3e}");
        }
        if let Some(e) = &r.error {
            let _ = write!(s, "  stopped: {e}");
        }
        s.push('\n');
    }
    s
}
