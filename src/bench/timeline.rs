//! Where a run's wall time goes over simulated time: a row per frame, and the rows summed by
//! simulated second.
//!
//! The whole-run figures of `tumble bench` say how long a scene takes, not when. A pour like the
//! funnel has phases that cost very differently: free fall (almost nothing), the impact on the
//! walls (thousands of collisions and local re-solves in a few tenths of a second), a jammed pile
//! (contact steps), and a quiet pile where bodies fall asleep. A lever for one phase does nothing
//! for another, so the bench records, at the end of every frame, the wall time and the world's
//! cumulative stage times and counters ([`FrameRow`]); any span's cost is the difference of two
//! rows. [`Timeline::by_second`] sums them per simulated second for the report's table, and
//! `tumble bench --timeline FILE` writes every row as CSV ([`Timeline::write_csv`]).
//!
//! Recording a row reads the world's counters and counts its sleeping and awake bodies, O(n) per
//! frame (never per event). The seconds are summed as the frames come, so a run keeps its frame
//! rows only when they are to be written (`--timeline`); the CSV is written after the run,
//! outside the timed loop.

use crate::body::Motion;
use crate::world::World;
use std::io::Write;
use std::path::Path;

/// The CSV header of [`Timeline::write_csv`], one column per field of [`FrameRow`].
pub const TIMELINE_HEADER: &str = "sim_time,wall_time,contact_step,broad_phase,event_loop,\
collisions,microcollisions,held_resolutions,contact_steps,heap_pops,toi_bounds,\
step_point_sweeps,resolve_point_sweeps,max_penetration,asleep,awake,stepped_islands,island_steps";

/// The state of a run at the end of one frame. Times and counters are cumulative from the start
/// of stepping (`World::new` excluded); `asleep` and `awake` are the dynamic bodies in each state
/// at that moment.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct FrameRow {
    /// Simulated time at the frame's end (s).
    pub sim_time: f64,
    /// Wall time since stepping began (s).
    pub wall_time: f64,
    /// The world's stage time in contact steps so far (s).
    pub contact_step: f64,
    /// The world's stage time in swept boxes, broad phase and first bounds so far (s).
    pub broad_phase: f64,
    /// The world's stage time in event loops so far (s).
    pub event_loop: f64,
    /// Collisions so far.
    pub collisions: u64,
    /// Microcollisions so far.
    pub microcollisions: u64,
    /// Local re-solves of held pairs so far.
    pub held_resolutions: u64,
    /// Contact steps so far.
    pub contact_steps: u64,
    /// Event-heap pops so far (stale ones included).
    pub heap_pops: u64,
    /// Time-of-impact bounds so far.
    pub toi_bounds: u64,
    /// Contact points times Gauss–Seidel sweeps in contact steps so far.
    pub step_point_sweeps: u64,
    /// Contact points times Gauss–Seidel sweeps in local re-solves so far.
    pub resolve_point_sweeps: u64,
    /// Largest penetration seen so far (m): the frame where it grows is where to look.
    pub max_penetration: f64,
    /// Dynamic bodies asleep at the frame's end.
    pub asleep: usize,
    /// Dynamic bodies awake at the frame's end.
    pub awake: usize,
    /// The world's stage time in the jammed islands' switch rule and collision rounds so far (s).
    pub stepped_islands: f64,
    /// Jammed islands advanced by one simultaneous step so far.
    pub island_steps: u64,
}

impl FrameRow {
    /// The row of `world` now, `wall_time` seconds after stepping began.
    pub fn of(world: &World, wall_time: f64) -> FrameRow {
        let (counts, stages) = (world.counts(), world.stage_times());
        let (mut asleep, mut awake) = (0, 0);
        for i in 0..world.body_count() {
            if world.body_motion(i) == Motion::Dynamic {
                if world.body(i).asleep {
                    asleep += 1;
                } else {
                    awake += 1;
                }
            }
        }
        FrameRow {
            sim_time: world.time(),
            wall_time,
            contact_step: stages.contact_step,
            broad_phase: stages.broad_phase,
            event_loop: stages.event_loop,
            collisions: counts.collisions,
            microcollisions: counts.microcollisions,
            held_resolutions: counts.held_resolutions,
            contact_steps: counts.contact_steps,
            heap_pops: counts.heap_pops,
            toi_bounds: counts.toi_bounds,
            step_point_sweeps: counts.step_point_sweeps,
            resolve_point_sweeps: counts.resolve_point_sweeps,
            max_penetration: world.max_penetration(),
            asleep,
            awake,
            stepped_islands: stages.stepped_islands,
            island_steps: counts.island_steps,
        }
    }
}

/// One simulated second of a run (the last one may be shorter): the wall time and work of the
/// frames that ended in it, and the bodies' states at its last frame.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SecondRow {
    /// Start of the span (s, simulated).
    pub from: f64,
    /// End of the span: the last frame's end in it (s, simulated).
    pub to: f64,
    /// Wall time of its frames (s).
    pub wall_time: f64,
    /// Of that, contact steps (s).
    pub contact_step: f64,
    /// Of that, swept boxes, broad phase and first bounds (s).
    pub broad_phase: f64,
    /// Of that, event loops (s).
    pub event_loop: f64,
    /// Of that, the jammed islands' switch rule and collision rounds (s).
    pub stepped_islands: f64,
    /// Jammed islands advanced by one simultaneous step in it.
    pub island_steps: u64,
    /// Collisions in it.
    pub collisions: u64,
    /// Local re-solves of held pairs in it.
    pub held_resolutions: u64,
    /// Contact steps in it.
    pub contact_steps: u64,
    /// Dynamic bodies asleep at its end.
    pub asleep: usize,
    /// Dynamic bodies awake at its end.
    pub awake: usize,
}

/// A run's frames: summed per simulated second as they come, and each frame's row where
/// kept.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timeline {
    /// One row per frame, the first at the first frame's end; empty unless kept.
    pub rows: Vec<FrameRow>,
    keep_rows: bool,
    /// The seconds finished so far.
    seconds: Vec<SecondRow>,
    /// The second in progress and the row at its start (the last row before it).
    current: Option<(u64, FrameRow)>,
    /// The last row recorded.
    last: FrameRow,
}

impl Timeline {
    /// An empty timeline that keeps every frame's row if `keep_rows` (room for `frames` of
    /// them is taken now, so that recording allocates nothing in a run's timed loop).
    pub fn new(keep_rows: bool, frames: usize) -> Timeline {
        Timeline {
            rows: Vec::with_capacity(if keep_rows { frames } else { 0 }),
            keep_rows,
            ..Timeline::default()
        }
    }

    /// Records the row of `world` now (see [`FrameRow::of`]).
    pub fn record(&mut self, world: &World, wall_time: f64) {
        self.push(FrameRow::of(world, wall_time));
    }

    /// Records `row`, the next frame's: it ends simulated second k if its end lies in
    /// (k, k + 1] (a frame that straddles a whole second counts in the second it ends in).
    pub fn push(&mut self, row: FrameRow) {
        // The second a frame ends in; a relative 1e-9 absorbs rounding of grid times k·t_f.
        let second = (row.sim_time * (1.0 - 1e-9)).floor().max(0.0) as u64;
        match &self.current {
            Some((s, _)) if *s == second => {}
            _ => {
                let start = self.current.replace((second, self.last.clone()));
                if let Some((s, start)) = start {
                    self.seconds.push(span(s, &start, &self.last));
                }
            }
        }
        if self.keep_rows {
            self.rows.push(row.clone());
        }
        self.last = row;
    }

    /// The frames summed per simulated second, the second in progress included.
    pub fn by_second(&self) -> Vec<SecondRow> {
        let mut out = self.seconds.clone();
        if let Some((s, start)) = &self.current {
            out.push(span(*s, start, &self.last));
        }
        out
    }

    /// Writes every row as CSV ([`TIMELINE_HEADER`], then one line per frame) to `path`.
    pub fn write_csv(&self, path: &Path) -> std::io::Result<()> {
        let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
        writeln!(out, "{TIMELINE_HEADER}")?;
        for r in &self.rows {
            writeln!(
                out,
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                r.sim_time,
                r.wall_time,
                r.contact_step,
                r.broad_phase,
                r.event_loop,
                r.collisions,
                r.microcollisions,
                r.held_resolutions,
                r.contact_steps,
                r.heap_pops,
                r.toi_bounds,
                r.step_point_sweeps,
                r.resolve_point_sweeps,
                r.max_penetration,
                r.asleep,
                r.awake,
                r.stepped_islands,
                r.island_steps
            )?;
        }
        out.flush()
    }
}

/// Second `s` from the row at its start (`start`, the last row before it) to `end`.
fn span(s: u64, start: &FrameRow, end: &FrameRow) -> SecondRow {
    SecondRow {
        from: s as f64,
        to: end.sim_time,
        wall_time: end.wall_time - start.wall_time,
        contact_step: end.contact_step - start.contact_step,
        broad_phase: end.broad_phase - start.broad_phase,
        event_loop: end.event_loop - start.event_loop,
        stepped_islands: end.stepped_islands - start.stepped_islands,
        island_steps: end.island_steps - start.island_steps,
        collisions: end.collisions - start.collisions,
        held_resolutions: end.held_resolutions - start.held_resolutions,
        contact_steps: end.contact_steps - start.contact_steps,
        asleep: end.asleep,
        awake: end.awake,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(sim_time: f64, wall_time: f64, collisions: u64) -> FrameRow {
        FrameRow {
            sim_time,
            wall_time,
            event_loop: wall_time / 2.0,
            collisions,
            asleep: collisions as usize,
            ..FrameRow::default()
        }
    }

    /// Frames are summed into the simulated second they end in, each second from the last row
    /// before it; the last, partial second ends at the last frame.
    #[test]
    fn frames_sum_into_the_second_they_end_in() {
        // Frames of 0.25 s; 0.1 + 0.2 cannot be summed exactly, so grid times are checked too.
        let times = [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.1];
        let mut timeline = Timeline::new(false, 0);
        for (k, &t) in times.iter().enumerate() {
            timeline.push(row(t, (k + 1) as f64, 10 * (k as u64 + 1)));
        }
        assert!(
            timeline.rows.is_empty(),
            "rows are kept only when asked for"
        );
        let s = timeline.by_second();
        assert_eq!(s.len(), 3);
        assert_eq!((s[0].from, s[0].to, s[0].wall_time), (0.0, 1.0, 4.0));
        assert_eq!((s[1].from, s[1].to, s[1].wall_time), (1.0, 2.0, 4.0));
        assert_eq!((s[2].from, s[2].to, s[2].wall_time), (2.0, 2.1, 1.0));
        assert_eq!(
            s.iter().map(|r| r.collisions).collect::<Vec<_>>(),
            [40, 40, 10]
        );
        assert_eq!(s[1].event_loop, 2.0);
        assert_eq!(s[2].asleep, 90, "the state at the span's last frame");
        let total: f64 = s.iter().map(|r| r.wall_time).sum();
        assert_eq!(total, 9.0, "every frame counted once");
        // 50 frames of 0.02 s end at k·0.02, which rounds just above 1.0 at k = 50 in some
        // sums: the relative 1e-9 keeps that frame in the first second.
        let mut grid = Timeline::new(true, 100);
        for k in 1..=100 {
            grid.push(row(k as f64 * 0.02, k as f64, k));
        }
        assert_eq!(grid.rows.len(), 100);
        let g = grid.by_second();
        assert_eq!(g.len(), 2);
        assert_eq!((g[0].collisions, g[1].collisions), (50, 50));
    }

    /// The CSV has the header's columns on every line, one line per frame.
    #[test]
    fn the_csv_has_a_line_per_frame() {
        let mut timeline = Timeline::new(true, 2);
        timeline.push(row(0.5, 1.0, 3));
        timeline.push(row(1.0, 2.5, 7));
        let path = std::env::temp_dir().join(format!("tumble-timeline-{}.csv", std::process::id()));
        timeline.write_csv(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).ok();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0], TIMELINE_HEADER);
        let columns = TIMELINE_HEADER.split(',').count();
        assert!(lines.iter().all(|l| l.split(',').count() == columns));
        assert!(lines[2].starts_with("1,2.5,0,0,1.25,7,"), "{}", lines[2]);
    }
}
