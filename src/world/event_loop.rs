//! The event loop (Mirtich & Canny 1994 §3.1) and the sync that ends a step: events popped in
//! time order from the heap, stale ones skipped, each pair's response ([`super::collide`]); then
//! every body advanced to the step's end.

#[cfg(feature = "parallelism-probe")]
use super::parallelism_probe;
use super::stores::Stores;
use super::Scratch;
use super::SimError;
use crate::body::Motion;

/// Current events within `JAM_WINDOW` after which a world with a kinematic body stops with
/// [`SimError::Jammed`]: a crush between a kinematic body and a fixed one (or another
/// kinematic one) repeats its impulses at one instant, or creeps on by rounding-sized steps,
/// for ever. A settling pile takes a few thousand at one instant at most.
const MAX_EVENTS_AT_ONE_INSTANT: u64 = 100_000;

/// What counts as one instant for [`MAX_EVENTS_AT_ONE_INSTANT`] (s).
const JAM_WINDOW: f64 = 1e-9;

impl Stores {
    /// Pops and processes the heap's events before `t1` in time order (§3.1). In an island's
    /// world, stops early once a body's box left its island's limits (`escaped`).
    pub(super) fn run_event_loop(&mut self, t1: f64, s: &mut Scratch) -> Result<(), SimError> {
        // The loop's allocations are counted where the program installed the counter
        // (`tumble bench` reports them): it should make none once its buffers have grown.
        let _inside = crate::event_loop_allocations::InsideEventLoop::enter();
        // Events at one instant, to stop a crush (see `SimError::Jammed`).
        let mut instant = (f64::NEG_INFINITY, 0u64);
        while let Some(ev) = self.pairs.heap.pop_before(t1) {
            self.stats.counts.heap_pops += 1;
            if self.stats.counts.heap_pops.is_multiple_of(4096) {
                self.check_deadline()?;
            }
            let (a, b) = (ev.a as usize, ev.b as usize);
            if self.bodies[a].version != ev.version_a || self.bodies[b].version != ev.version_b {
                self.stats.counts.stale_pops += 1;
                continue;
            }
            let t = ev.time;
            // Within a nanosecond: a crush may creep on by rounding-sized steps.
            instant = if t - instant.0 <= JAM_WINDOW {
                (instant.0, instant.1 + 1)
            } else {
                (t, 1)
            };
            if instant.1 > MAX_EVENTS_AT_ONE_INSTANT
                && self.bodies.iter().any(|b| b.motion == Motion::Kinematic)
            {
                return Err(SimError::Jammed {
                    a: self.bodies[a].name.clone(),
                    b: self.bodies[b].name.clone(),
                    time: t,
                    events: instant.1,
                });
            }
            self.bodies[a].advance_to(t, self.settings.gravity);
            self.bodies[b].advance_to(t, self.settings.gravity);
            #[cfg(test)]
            self.watch_popped(&ev);
            #[cfg(feature = "parallelism-probe")]
            let started = parallelism_probe::before_event(&self.bodies);
            self.process_pair(a, b, t, ev.kind, s)?;
            #[cfg(feature = "parallelism-probe")]
            parallelism_probe::after_event(&self.bodies, a, b, started);
            if self.pairs.escaped {
                break;
            }
            #[cfg(test)]
            self.watch_rebound(&ev);
        }
        Ok(())
    }

    /// Advances every body to `t1` and makes it the world time.
    pub(super) fn sync_bodies(&mut self, t1: f64) -> Result<(), SimError> {
        for i in 0..self.bodies.len() {
            self.bodies[i].advance_to(t1, self.settings.gravity);
            // The step's push-outs end with it (`resting_contact::push_apart`).
            if self.bodies[i].end_push() {
                self.bodies[i].version = self.bodies[i].version.wrapping_add(1);
            }
            if !self.bodies[i].is_finite() {
                return Err(self.non_finite(i, t1));
            }
        }
        self.clock.time = t1;
        Ok(())
    }

    /// [`SimError::OverBudget`] once the wall-clock deadline has passed
    /// ([`super::World::set_deadline`]).
    pub(super) fn check_deadline(&self) -> Result<(), SimError> {
        match self.settings.deadline {
            Some((at, seconds)) if std::time::Instant::now() > at => Err(SimError::OverBudget {
                seconds,
                time: self.clock.time,
            }),
            _ => Ok(()),
        }
    }

    /// The error of body `i` found not finite at `t`.
    pub(super) fn non_finite(&self, i: usize, t: f64) -> SimError {
        SimError::NonFinite {
            body: self.bodies[i].name.clone(),
            time: t,
        }
    }
}
