//! The progress bars of `tumble run`, `batch` and `render`: a rate with the digits it means and a
//! time left extrapolated from the recent rate, not the whole run's.
//!
//! A pile costs more per frame as it grows (funnel.toml's frames cost about six times as much
//! once its 1 000 cubes pile up as in its first second), so an average over the whole run, or
//! indicatif's estimate that weighs the first seconds for a long while, promises the end too
//! soon. The rate of the last few seconds follows the cost as it grows.

use std::collections::VecDeque;
use std::fmt::Write;
use std::time::Instant;

use indicatif::style::ProgressTracker;
use indicatif::{ProgressState, ProgressStyle};

/// The shortest stretch of wall time the recent rate is taken over (s): long enough to span
/// several of the bar's ticks (at most 20 a second) and the irregular frames of a jam.
const WINDOW_MIN: f64 = 3.0;
/// The stretch grows with the run, as this share of the time elapsed, so that a long run's
/// estimate does not jump with each burst of cheap or costly frames.
const WINDOW_SHARE: f64 = 0.2;

/// A style for a bar of `len` `unit`s (`frames`, `trials`, `pictures`): elapsed time, the bar,
/// the count, the recent rate and the time left.
pub fn style(unit: &'static str) -> ProgressStyle {
    let template =
        format!("{{elapsed_precise}} [{{wide_bar}}] {{pos}}/{{len}} {unit} ({{recent}})");
    ProgressStyle::with_template(&template)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .with_key("recent", Recent::new(unit))
}

/// The bar's recent positions, for the rate over the last [`window`] of wall time and the time
/// left at that rate (one tracker for both, so the samples are kept once).
#[derive(Clone, Debug)]
struct Recent {
    /// What the bar counts (`frames`), for the rate's text.
    unit: &'static str,
    start: Option<Instant>,
    /// (wall seconds since `start`, position), oldest first; the first one lies at or before the
    /// window's start, so that the window is spanned whole.
    samples: VecDeque<(f64, u64)>,
}

impl Recent {
    fn new(unit: &'static str) -> Self {
        Recent {
            unit,
            start: None,
            samples: VecDeque::new(),
        }
    }

    /// Records the position `pos` at `t` wall seconds and forgets what the window no longer needs.
    fn record(&mut self, t: f64, pos: u64) {
        if self.samples.back().is_some_and(|&(_, p)| p == pos) {
            return;
        }
        self.samples.push_back((t, pos));
        let from = t - window(t);
        while self.samples.len() > 2 && self.samples[1].0 <= from {
            self.samples.pop_front();
        }
    }

    /// Units per second over the window, once there are two positions a moment apart.
    fn per_sec(&self) -> Option<f64> {
        let (&(t0, p0), &(t1, p1)) = (self.samples.front()?, self.samples.back()?);
        (t1 - t0 > 0.05 && p1 > p0).then(|| (p1 - p0) as f64 / (t1 - t0))
    }
}

/// The stretch of wall time the rate is taken over, `t` seconds into the run.
fn window(t: f64) -> f64 {
    (WINDOW_SHARE * t).max(WINDOW_MIN)
}

impl ProgressTracker for Recent {
    fn clone_box(&self) -> Box<dyn ProgressTracker> {
        Box::new(self.clone())
    }

    fn tick(&mut self, state: &ProgressState, now: Instant) {
        let start = *self.start.get_or_insert(now - state.elapsed());
        self.record((now - start).as_secs_f64(), state.pos());
    }

    fn reset(&mut self, _: &ProgressState, _: Instant) {
        self.start = None;
        self.samples.clear();
    }

    /// `2315 frames/s, 3 s left`, or `… frames/s, time left …` until the rate is known.
    fn write(&self, state: &ProgressState, w: &mut dyn std::fmt::Write) {
        let text = match self.per_sec() {
            Some(r) => {
                let left = state.len().unwrap_or(0).saturating_sub(state.pos());
                format!(
                    "{}, {} left",
                    rate_text(r, self.unit),
                    duration_text(left as f64 / r)
                )
            }
            None => format!("… {}/s, time left …", self.unit),
        };
        let _ = w.write_str(&text);
    }
}

/// `2315 frames/s`, `12.5 frames/s`, `0.84 frames/s`, or `3.2 s/frame` below one in 10 s:
/// three significant digits at most, never the four decimals of a raw float.
pub fn rate_text(per_sec: f64, unit: &str) -> String {
    if per_sec >= 0.1 {
        format!("{} {unit}/s", significant(per_sec))
    } else {
        let one = unit.strip_suffix('s').unwrap_or(unit);
        format!("{} s/{one}", significant(1.0 / per_sec))
    }
}

/// `x` with at most three significant digits and no trailing decimals past the units.
fn significant(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// `45 s`, `3 min 20 s`, `2 h 05 min`: whole seconds, and the two largest units only.
pub fn duration_text(seconds: f64) -> String {
    if !seconds.is_finite() {
        return String::from("?");
    }
    let s = seconds.round().max(0.0) as u64;
    let mut text = String::new();
    let _ = match s {
        0..60 => write!(text, "{s} s"),
        60..3600 => write!(text, "{} min {} s", s / 60, s % 60),
        _ => write!(text, "{} h {:02} min", s / 3600, (s % 3600) / 60),
    };
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_durations_read_as_a_person_writes_them() {
        for (rate, unit, text) in [
            (2315.2495, "frames", "2315 frames/s"),
            (12.46, "frames", "12.5 frames/s"),
            (0.8412, "trials", "0.84 trials/s"),
            (0.05, "frames", "20.0 s/frame"),
        ] {
            assert_eq!(rate_text(rate, unit), text);
        }
        for (s, text) in [
            (0.4, "0 s"),
            (44.6, "45 s"),
            (200.0, "3 min 20 s"),
            (7500.0, "2 h 05 min"),
        ] {
            assert_eq!(duration_text(s), text);
        }
    }

    /// A run whose frames cost more as it goes (a growing pile: the cost per frame rises linearly
    /// 4× from first to last): the time left from the recent rate is never further from the truth
    /// than the whole run's average rate's, and within 25 % of it from 60 % of the wall time on,
    /// where the average still promises 40 % too little. (No constant rate can foresee the growth
    /// itself; extrapolating it would chase every jam's burst of costly frames.)
    #[test]
    fn the_time_left_follows_a_rate_that_falls() {
        let frames = 1000u64;
        let cost = |i: u64| 0.005 * (1.0 + 3.0 * i as f64 / frames as f64);
        let total: f64 = (0..frames).map(cost).sum();
        let mut recent = Recent::new("frames");
        let mut t = 0.0;
        for i in 0..frames {
            t += cost(i);
            let pos = i + 1;
            recent.record(t, pos);
            if pos % 100 == 0 && pos < frames {
                let truth = total - t;
                let ours = (frames - pos) as f64 / recent.per_sec().unwrap();
                let average = (frames - pos) as f64 / (pos as f64 / t);
                println!(
                    "at {t:.2} s of {total:.2}: left {truth:.2} s, recent rate {ours:.2} s, \
                     average {average:.2} s"
                );
                assert!((ours - truth).abs() <= (average - truth).abs() + 1e-9);
                if t > 0.6 * total {
                    assert!(
                        (ours - truth).abs() < 0.25 * truth,
                        "{ours} against {truth}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_window_keeps_one_sample_at_its_start() {
        let mut recent = Recent::new("frames");
        for i in 0..100 {
            recent.record(i as f64 * 0.1, i);
        }
        // 9.9 s in: the window is the last 3 s, spanned whole by 30 frames.
        let (t0, _) = recent.samples[0];
        assert!((9.9 - t0 - 3.0).abs() < 0.11, "window starts at {t0}");
        assert!((recent.per_sec().unwrap() - 10.0).abs() < 1e-9);
        // A repeated position adds nothing.
        let n = recent.samples.len();
        recent.record(10.0, 99);
        assert_eq!(recent.samples.len(), n);
    }
}
