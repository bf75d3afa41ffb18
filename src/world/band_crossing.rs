//! When a pair entering its contact band is handled: at the instant its gap comes down to half
//! the band, found on the bodies' ballistic trajectories, not at whatever instant its
//! conservative bound happened to expire.
//!
//! A bound only promises that the pair is measured before its gap could reach band/2; where in
//! (band/2, band] it is found depends on when its earlier bounds were computed. A contact solve
//! (a local re-solve in constraint mode) depends on the gap it starts from, so two pairs with the
//! same trajectory but different bounding histories (mirror images in a symmetric scene) would be
//! handled at different gaps and instants and leave at different speeds. Handling every entering
//! pair at the first instant its gap is band/2 makes that instant a function of the trajectories
//! alone, and pairs of one body that reach it together are handled together
//! ([`Stores::gather_crossings`]). See `docs/design.md`, Band crossings.

use super::collide::body_proximity;
use super::held::SeedPair;
use super::stores::Stores;
use super::Scratch;
use crate::body::BodyHot;
use crate::narrow_phase::ContactPoint;
use crate::toi_bound::DistanceBound;

/// The crossing instant is found to this fraction of the level (a gap within it counts as the
/// level). At ε_c = 1 mm, 0.5 nm: two pairs handled at levels this far apart leave with push
/// velocities that differ by 0.5 nm / h, 2e-7 m/s at h = 2.5 ms.
pub(super) const CROSSING_TOLERANCE: f64 = 1e-6;

/// Most proximity queries spent finding one crossing; a pair whose crossing is not found in
/// that many is handled where it was found.
const MAX_QUERIES: usize = 24;

impl Stores {
    /// The first instant after `t`, before the step's end, at which pair (a, b), both at `t` and
    /// just measured at distance `d` into `s.points`, comes down to `level` (half its band)
    /// while flying its ballistic trajectories, if it does and the pair cannot meet before it
    /// (the conservative bound to contact lies beyond it). `None` if the pair is at the level
    /// already, does not approach, or does not get there within the step: it is handled now,
    /// as it was found. The bodies are left as they were.
    pub(super) fn band_crossing(
        &mut self,
        a: usize,
        b: usize,
        d: f64,
        level: f64,
        t: f64,
        s: &mut Scratch,
    ) -> Option<f64> {
        let tolerance = CROSSING_TOLERANCE * level;
        if d <= level + tolerance {
            return None;
        }
        let rate = self.gap_rate(a, b, d, &s.points)?;
        // The crossing must come before the pair could touch: then nothing is missed between
        // now and then (the gap stays positive, the bound's promise).
        let limit = (t + self.contact_time(a, b, d, t, &s.points)).min(self.clock.frame_end);
        if limit <= t {
            return None;
        }
        let saved = (self.bodies[a].hot(), self.bodies[b].hot());
        // The trials measure into their own buffer: the caller handles the pair now if none
        // was found, from its points at `t`.
        let trial = &mut s.crossing_points;
        let start = (t, d - level, rate);
        let found = self.find_crossing((a, b), start, level, limit, tolerance, trial);
        self.restore_pair(a, b, &saved);
        found.filter(|&tc| tc < self.clock.frame_end)
    }

    /// Newton's method on the gap from `start` = (time, gap above the level, its rate), safe
    /// by bisection once a trial overshoots the level.
    fn find_crossing(
        &mut self,
        (a, b): (usize, usize),
        start: (f64, f64, f64),
        level: f64,
        limit: f64,
        tolerance: f64,
        trial_points: &mut Vec<ContactPoint>,
    ) -> Option<f64> {
        let (mut lo, mut g_lo, mut rate) = start;
        // The earliest known instant below the level, once one is found.
        let mut hi: Option<(f64, f64)> = None;
        for _ in 0..MAX_QUERIES {
            let trial = match hi {
                None => (lo + g_lo / -rate).min(limit),
                // Regula falsi between the bracket's ends, kept off them.
                Some((t_hi, g_hi)) => {
                    let s = lo + (t_hi - lo) * g_lo / (g_lo - g_hi);
                    let width = t_hi - lo;
                    // Not `clamp`, which panics on a NaN end (a state gone non-finite).
                    #[allow(clippy::manual_clamp)]
                    s.max(lo + 0.05 * width).min(t_hi - 0.05 * width)
                }
            };
            if trial <= lo {
                return None;
            }
            let g = self.gap_at(a, b, trial, level, trial_points) - level;
            if g.abs() <= tolerance {
                return Some(trial);
            }
            if g > 0.0 {
                if hi.is_none() && trial >= limit {
                    return None; // still above the level where the search must stop
                }
                lo = trial;
                g_lo = g;
                if hi.is_none() {
                    rate = self.gap_rate(a, b, g + level, trial_points)?;
                }
            } else {
                hi = Some((trial, g));
            }
        }
        None
    }

    /// The rate at which pair (a, b)'s gap closes at its `points` within `2 d` (the fastest;
    /// negative), if it closes.
    fn gap_rate(&self, a: usize, b: usize, d: f64, points: &[ContactPoint]) -> Option<f64> {
        let near = d.max(0.0) * 2.0 + 1e-12;
        let rate = points
            .iter()
            .filter(|p| p.separation <= near)
            .map(|p| self.normal_speed(a, b, p))
            .fold(f64::INFINITY, f64::min);
        (rate < -1e-12).then_some(rate)
    }

    /// Pair (a, b)'s gap with both bodies advanced to `t` (from where they are), measured into
    /// `points` with contact points up to `margin` apart; not recorded as a measurement (a
    /// trial may lie past the crossing).
    fn gap_at(
        &mut self,
        a: usize,
        b: usize,
        t: f64,
        margin: f64,
        points: &mut Vec<ContactPoint>,
    ) -> f64 {
        let gravity = self.settings.gravity;
        self.bodies[a].advance_to(t, gravity);
        self.bodies[b].advance_to(t, gravity);
        self.stats.counts.distance_queries += 1;
        match body_proximity(&self.bodies[a], &self.bodies[b], 2.0 * margin, points) {
            Ok(d) => d,
            Err(failure) => self.note_geometry_failure(failure),
        }
    }

    /// The conservative time from `t` before pair (a, b), at distance `d`, can touch (the same
    /// bound [`Self::push_fine`] schedules from).
    fn contact_time(&self, a: usize, b: usize, d: f64, t: f64, points: &[ContactPoint]) -> f64 {
        if self.bodies[a].convex && self.bodies[b].convex {
            let n = points.first().map_or(glam::DVec3::Z, |p| p.normal);
            let extents = self.axis_extents(a, b, n, self.clock.frame_end - t);
            let gap = extents.envelope().gap();
            extents.time_to(gap - d)
        } else {
            let (ma, mb) = (
                self.bodies[a].motion_bound(self.settings.gravity),
                self.bodies[b].motion_bound(self.settings.gravity),
            );
            DistanceBound::isotropic(d, &ma, &mb).time_to(0.0)
        }
    }

    fn restore_pair(&mut self, a: usize, b: usize, saved: &(BodyHot, BodyHot)) {
        self.bodies[a].restore(&saved.0);
        self.bodies[b].restore(&saved.1);
    }

    /// Pairs of the awake bodies of (a, b), other than (a, b) and not yet held, that cross
    /// their own level together with it at `t`: within the crossing tolerance of half their
    /// band and approaching. Each is held from now on and appended to `seeds` as a first try,
    /// so one local re-solve handles them all, whatever order their bounds would have given.
    pub(super) fn gather_crossings(
        &mut self,
        a: usize,
        b: usize,
        t: f64,
        seeds: &mut Vec<SeedPair>,
        cand: &mut Vec<u32>,
        points: &mut Vec<ContactPoint>,
    ) {
        let eps = self.settings.epsilon;
        for i in [a, b] {
            if !self.bodies[i].is_awake_dynamic() {
                continue;
            }
            let bx = self.pairs.boxes[i].grown(eps);
            self.pairs.grid.query(i, &bx, &self.pairs.boxes, cand);
            for &j in cand.iter() {
                let j = j as usize;
                let (x, y) = (i.min(j), i.max(j));
                if j == i || (x, y) == (a, b) || !self.pair_matters(x, y) {
                    continue;
                }
                if self.bodies[x].asleep || self.bodies[y].asleep {
                    continue;
                }
                if self.contacts.held.pairs.contains_key(&(x as u32, y as u32))
                    || seeds.iter().any(|s| (s.a, s.b) == (x, y))
                {
                    continue;
                }
                self.bodies[j].advance_to(t, self.settings.gravity);
                let level = 0.5 * self.band(x, y);
                let near = level * (1.0 + 4.0 * CROSSING_TOLERANCE);
                if self.axis_gap(x, y).is_some_and(|g| g > near) {
                    continue;
                }
                let d = self.measure_within(x, y, 2.0 * level, points);
                if d > near || self.gap_rate(x, y, d, points).is_none() {
                    continue;
                }
                self.hold(x, y, (0, 0));
                let tries = self.contacts.held.count_resolve(x, y);
                seeds.push(SeedPair { a: x, b: y, tries });
            }
        }
    }
}
