//! The impulses `tumble render --contacts` draws: read from the run's `events.csv` (written by
//! `tumble run --events`), each an arrow at its contact point along its normal, its length
//! proportional to the normal impulse.

use super::geometry::{push_arrow, Vertex, ARROW_KINDS};
use glam::DVec3;
use std::path::Path;

/// One impulse event of `events.csv`.
#[derive(Clone, Copy, Debug)]
pub struct Impulse {
    /// Time (s).
    pub t: f64,
    /// Index into [`ARROW_KINDS`].
    pub kind: usize,
    /// Contact point (m, world).
    pub point: DVec3,
    /// Unit normal (towards body a, the body the impulse `+jn n` acts on).
    pub normal: DVec3,
    /// Normal impulse (N s).
    pub jn: f64,
}

/// Reads `path` (`t,kind,body_a,body_b,px,py,pz,nx,ny,nz,jn,…`); errors name the file and
/// line.
pub fn read_events(path: &Path) -> Result<Vec<Impulse>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        format!(
            "{}: {e} (run the scene with `tumble run --events` to draw contacts)",
            path.display()
        )
    })?;
    let mut lines = text.lines().enumerate();
    let header: Vec<&str> = lines.next().map_or(vec![], |(_, h)| h.split(',').collect());
    let want = [
        "t", "kind", "body_a", "body_b", "px", "py", "pz", "nx", "ny", "nz", "jn",
    ];
    if header.len() < want.len() || header[..want.len()] != want {
        return Err(format!(
            "{}:1: the header does not start with {}",
            path.display(),
            want.join(",")
        ));
    }
    let mut out = Vec::new();
    for (n, line) in lines {
        if line.is_empty() {
            continue;
        }
        let at = |m: String| format!("{}:{}: {m}", path.display(), n + 1);
        let c: Vec<&str> = line.split(',').collect();
        if c.len() < want.len() {
            return Err(at(format!(
                "{} columns, at least {} expected",
                c.len(),
                want.len()
            )));
        }
        let num = |k: usize| -> Result<f64, String> {
            c[k].parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| at(format!("{}: \"{}\" is not a finite number", want[k], c[k])))
        };
        let kind = ARROW_KINDS
            .iter()
            .position(|k| *k == c[1])
            .ok_or_else(|| at(format!("unknown kind \"{}\"", c[1])))?;
        out.push(Impulse {
            t: num(0)?,
            kind,
            point: DVec3::new(num(4)?, num(5)?, num(6)?),
            normal: DVec3::new(num(7)?, num(8)?, num(9)?),
            jn: num(10)?,
        });
    }
    Ok(out)
}

/// The arrow length per N s: the 95th percentile of the impulses is drawn `reach` long, so a
/// few hard collisions do not shrink every resting arrow to nothing.
pub fn arrow_scale(events: &[Impulse], reach: f64) -> f64 {
    let mut j: Vec<f64> = events
        .iter()
        .map(|e| e.jn.abs())
        .filter(|j| *j > 0.0)
        .collect();
    if j.is_empty() {
        return 0.0;
    }
    j.sort_by(f64::total_cmp);
    reach / j[(j.len() - 1) * 95 / 100]
}

/// Appends the arrows of the events with `from < t <= to` (sorted by time in `events`):
/// lengths `scale`·jn, capped at twice the reach, instance `first + kind`.
#[allow(clippy::too_many_arguments)]
pub fn push_arrows(
    events: &[Impulse],
    (from, to): (f64, f64),
    scale: f64,
    reach: f64,
    width: f64,
    first: u32,
    vertices: &mut Vec<Vertex>,
    indices: &mut Vec<u32>,
) {
    let start = events.partition_point(|e| e.t <= from);
    for e in events[start..].iter().take_while(|e| e.t <= to) {
        let len = (scale * e.jn.abs()).min(2.0 * reach);
        push_arrow(
            vertices,
            indices,
            e.point,
            e.normal,
            len,
            width,
            first + e.kind as u32,
        );
    }
}
