//! The event loop (Mirtich & Canny 1994 §3.1) and the sync that ends a step: events popped in
//! time order from the heap, stale ones skipped, each pair's response ([`super::collide`]); then
//! every body advanced to the step's end.

#[cfg(feature = "parallelism-probe")]
use super::parallelism_probe;
use super::stores::Stores;
use super::Scratch;
use super::SimError;
use crate::body::Motion;

/// The stall guard's windows of simulated time (s) and budgets: the current events a dynamic
/// body may take part in within one instant (1 ns) and within 1 ms before the run stops with
/// [`SimError::Jammed`]. A crush between a kinematic body and a fixed one repeats its impulses at
/// one instant, a Zeno sequence (impacts closer and closer in time) or a creep by rounding-sized
/// steps goes on for ever, and the simulated time stops advancing; a body deep inside another
/// (an exploding mechanism) crawls on by nanoseconds an event. The most a dynamic body of the
/// bundled scenes reaches is 879 in 1 ns (counting fixed bodies too) and 917 in 1 ms, of the GPU
/// backend's microcollision pile test (f32 bounds) 36 000 and 70 000 (see docs/design.md, The
/// stall guard). Counted per body, so that the counts, and the run, do not
/// depend on how the step's islands were spread over threads.
const STALL_WINDOWS: [f64; 2] = [1e-9, 1e-3];
const STALL_BUDGETS: [u32; 2] = [100_000, 200_000];

impl Stores {
    /// Pops and processes the heap's events before `t1` in time order (§3.1). In an island's
    /// world, stops early once a body's box left its island's limits (`escaped`).
    pub(super) fn run_event_loop(&mut self, t1: f64, s: &mut Scratch) -> Result<(), SimError> {
        // The loop's allocations are counted where the program installed the counter
        // (`tumble bench` reports them): it should make none once its buffers have grown.
        let _inside = crate::event_loop_allocations::InsideEventLoop::enter();
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
            self.count_at_instant(a, b, t)?;
            self.bodies[a].advance_to(t, self.settings.gravity);
            self.bodies[b].advance_to(t, self.settings.gravity);
            #[cfg(test)]
            self.watch_popped(&ev);
            #[cfg(feature = "parallelism-probe")]
            let started = parallelism_probe::before_event(&self.bodies);
            self.process_pair(a, b, t, ev.kind, s)?;
            self.take_geometry_failure()?;
            self.check_motion(a, t)?;
            self.check_motion(b, t)?;
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

    /// The stall guard: counts the event of pair (a, b) at `t` for its dynamic bodies, and stops
    /// the run once one of them passes a budget of [`STALL_BUDGETS`] in its window.
    fn count_at_instant(&mut self, a: usize, b: usize, t: f64) -> Result<(), SimError> {
        for (x, y) in [(a, b), (b, a)] {
            if self.bodies[x].motion != Motion::Dynamic {
                continue;
            }
            let counts = self.bodies[x].count_at_instant(t, STALL_WINDOWS);
            if let Some(k) = (0..2).find(|&k| counts[k] > STALL_BUDGETS[k]) {
                let crush = self.bodies.iter().any(|b| b.motion == Motion::Kinematic);
                return Err(SimError::Jammed {
                    a: self.bodies[x].name.clone(),
                    b: self.bodies[y].name.clone(),
                    time: t,
                    events: u64::from(counts[k]),
                    budget: STALL_BUDGETS[k],
                    window: STALL_WINDOWS[k],
                    crush,
                });
            }
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
            self.check_motion(i, t1)?;
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
