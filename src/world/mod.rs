//! The world and its frame loop (Mirtich & Canny 1994, §3).
//!
//! A frame is split into steps (contact steps when resting contacts are constraints, else the
//! frame is one step), and each step runs, top to bottom ([`World::step`]):
//! 1. **contact step** (constraint mode only): resting contacts solved together as constraints
//!    over the step, their pairs *held* (Bender & Schmitt 2006 §3.2; [`contact_step`]);
//! 2. **swept boxes** over `[t₀, t₁]` and the **broad phase** on the host grid
//!    ([`swept_boxes`]), or both through the data-parallel stages ([`stage_seed`]);
//! 3. **pair bounds** into the heap: a conservative lower bound on each pair's time of impact
//!    ([`bounds`], computed by [`pair_bound`]);
//! 4. **event loop** ([`World::run_event_loop`], on threads per group of islands where the step
//!    splits, [`islands`]): pop the earliest entry, skip it if stale, advance its two bodies,
//!    measure, and respond ([`collide`]; held pairs by local re-solves, [`held`]), re-bounding
//!    every pair an impulse changed;
//! 5. **sync**: every body advanced to `t₁`; at a frame's end resting bodies may sleep
//!    ([`sleep`]).
//!
//! Nothing tunnels by construction: a pair farther than ε_c is bounded to the time it could
//! reach ε_c/2, and every pair an impulse changes is bounded again at once. The reasoning and
//! the measurements behind each stage are in `docs/design.md`.

mod band_crossing;
mod bounds;
mod build;
mod collide;
mod contact_step;
mod counts;
mod event_log;
mod held;
mod impacts;
mod islands;
mod joint_step;
mod lcp_step;
mod pair_bound;
#[cfg(feature = "parallelism-probe")]
mod parallelism_probe;
mod settings;
mod sleep;
mod stage_seed;
mod swept_boxes;
#[cfg(test)]
mod tests;

pub use crate::body::BodyState;
pub use counts::{Counts, DeepestOverlap, SimError, StageTimes};
pub use event_log::{EventKind, ImpulseEvent};
pub use settings::{ContactPush, Method, RestingContactMode, WorldConfig};

use crate::body::{Body, Motion};
use crate::event_heap::EventHeap;
use crate::hash_grid::HashGrid;
use crate::narrow_phase::ContactPoint;
use crate::stages::FrameStages;
use crate::swept_aabb::Aabb;
use bounds::BoundStore;
use contact_step::ContactStep;
use glam::DVec3;
use held::{Cluster, HeldPairs};
use impacts::ImpactScratch;
use settings::Settings;
use stage_seed::StageScratch;
use std::time::Instant;

/// Current events within `JAM_WINDOW` after which a world with a kinematic body stops with
/// [`SimError::Jammed`]: a crush between a kinematic body and a fixed one (or another
/// kinematic one) repeats its impulses at one instant, or creeps on by rounding-sized steps,
/// for ever. A settling pile takes a few thousand at one instant at most.
const MAX_EVENTS_AT_ONE_INSTANT: u64 = 100_000;

/// What counts as one instant for [`MAX_EVENTS_AT_ONE_INSTANT`] (s).
const JAM_WINDOW: f64 = 1e-9;

/// The simulated world: the bodies, the settings, and each stage's state.
#[derive(Default)]
pub struct World {
    bodies: Vec<Body>,
    /// What the scene fixed for the whole run (cloned into island worlds).
    settings: Settings,
    /// The world time: every body is there between steps (s).
    time: f64,
    /// End of the present step (s).
    frame_end: f64,
    /// Present contact step length h (s), within `settings.contact_step_range` (see
    /// [`World::adapt_step_length`]).
    contact_step: f64,
    /// The step [t₀, t₁] whose start (contact step, joints) was done at the end of the last
    /// frame, so that the frame reports the velocities its impulses leave, and the bodies as
    /// they were before it, for a next frame that starts another step (see
    /// [`World::prepare_next_step`]).
    prepared: Option<(f64, f64)>,
    prepared_from: Vec<crate::body::BodyHot>,
    /// The `until` of the last [`World::step_frame`]: the next frame is assumed to go as far.
    last_until: f64,
    /// Tests that drive single steps turn the preparing off.
    #[cfg(test)]
    no_prepare: bool,

    // The event machinery.
    heap: EventHeap,
    /// The host's grid of the present swept boxes, queried after every impulse.
    grid: HashGrid,
    /// Each body's swept box to the step's end.
    boxes: Vec<Aabb>,
    /// Kept bounds and last separating axes ([`bounds`]).
    bounds: BoundStore,
    /// Contact points of the latest proximity query.
    points: Vec<ContactPoint>,
    /// Grid query results (reused).
    candidates: Vec<u32>,

    /// The joints and their articulations ([`crate::joints`]).
    joints: crate::joints::Joints,

    // Resting contact as constraints.
    contact: ContactStep,
    held: HeldPairs,
    cluster: Cluster,
    /// Buffers of the simultaneous impacts ([`impacts`]) and the bodies they moved.
    impacts: ImpactScratch,
    impact_moved: Vec<usize>,

    // Data-parallel stages and threads.
    /// Data-parallel frame stages (GPU or CPU twins); `None`: the host's own f64 path.
    stages: Option<Box<dyn FrameStages>>,
    stage_scratch: StageScratch,
    /// Buffers and the pool of island worlds of the parallel event loop.
    islands: islands::IslandScratch,
    /// In an island's world: per body, the box it must stay inside (empty elsewhere).
    limits: Vec<Aabb>,
    /// In an island's world: a body's box left its limit, so the run is void.
    escaped: bool,

    // Shared reusable buffers (no allocation in the event loop once grown).
    /// The step's candidate pairs.
    step_pairs: Vec<(usize, usize)>,
    /// Bodies a contact step touched, or a wake-up woke.
    woken: Vec<usize>,
    /// Stack of [`World::wake_up`], frontier of [`World::solve_rings`].
    wake_stack: Vec<usize>,
    /// The popped pair's points, kept while its band crossing is searched for.
    crossing_points: Vec<ContactPoint>,
    /// The contact impulses a solve reports.
    pushed: Vec<crate::resting_contact::ContactImpulse>,
    /// The bodies [`World::rebound_after_change`] re-bounds.
    changed_bodies: Vec<usize>,
    /// Velocities saved while finding an articulated collision matrix.
    joint_saved: Vec<(usize, DVec3, DVec3)>,
    /// Rows of [`World::simultaneous_microcollision`].
    micro_rows: Vec<collide::MicroRow>,

    /// `method = "lcp"`: steps begun; step l covers [l h, (l + 1) h] ([`lcp_step`]).
    lcp_steps_begun: u64,

    // What the run reports.
    counts: Counts,
    max_penetration: f64,
    /// Impulses recorded since the last [`World::take_events`] (when `settings.record_events`).
    event_log: Vec<ImpulseEvent>,
    /// Where `max_penetration` was measured: the time and the pair (a < b).
    deepest_at: (f64, u32, u32),
    stage_times: StageTimes,
    /// Tests only: watches that every popped pair gets a new bound ([`tests::BoundWatch`]).
    #[cfg(test)]
    watch: Option<tests::BoundWatch>,
}

/// Runs `f` on one of rayon's pool threads while the caller waits, if the caller is not one
/// already and the pool has more than one thread; else here. A frame loop run inside it hands
/// over to the pool once, not at every frame ([`World::step_frame`] does it per frame): in a
/// scene of a few bodies, the two thread switches per frame were a tenth of the run.
pub fn on_pool<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if rayon::current_thread_index().is_none() && rayon::current_num_threads() > 1 {
        rayon::scope(|_| f())
    } else {
        f()
    }
}

/// The frame loop: a frame's steps, each step's stages in order.
impl World {
    /// Advances one frame period, or less to stop exactly at `until` (s).
    ///
    /// Called from outside rayon's pool, the frame runs on a pool thread while the caller
    /// waits: the frame's parallel parts (the contact queries, the contact step's crew
    /// threads, island event loops) then have the pool's threads to themselves, one per core.
    /// Run from the caller's thread instead, the frame's thread and the pool's would be one
    /// thread more than the cores (docs/design.md, Islands and threads).
    pub fn step_frame(&mut self, until: f64) -> Result<(), SimError> {
        on_pool(|| self.step_frame_here(until))
    }

    /// [`Self::step_frame`] on this thread.
    fn step_frame_here(&mut self, until: f64) -> Result<(), SimError> {
        #[cfg(feature = "parallelism-probe")]
        {
            let half = (self.time * 2.0).floor();
            let stepped = self.step_frame_inner(until);
            if (self.time * 2.0).floor() > half {
                parallelism_probe::report(half / 2.0);
            }
            stepped
        }
        #[cfg(not(feature = "parallelism-probe"))]
        self.step_frame_inner(until)
    }

    fn step_frame_inner(&mut self, until: f64) -> Result<(), SimError> {
        if until <= self.time {
            return Ok(());
        }
        let t0 = self.time;
        if self.settings.method == crate::scene::Method::Lcp {
            return self.lcp_frame(until);
        }
        self.last_until = until;
        let (t1, steps) = self.frame_steps(t0, until);
        for k in 1..=steps {
            let s0 = self.time;
            let s1 = Self::step_end(t0, t1, steps, k);
            self.step(s0, s1)?;
        }
        self.sleep_resting_bodies(t1);
        self.counts.frames += 1;
        if self.settings.resting_mode == RestingContactMode::Constraints {
            if self.contact_step > self.settings.contact_step_range.0 {
                self.counts.long_contact_steps += steps as u64;
            }
            self.adapt_step_length();
        }
        self.prepare_next_step();
        Ok(())
    }

    /// The end of the frame from `t0` towards `until` and its number of steps. Frames end on
    /// the grid k·t_f (no accumulated rounding), or exactly at `until`.
    fn frame_steps(&self, t0: f64, until: f64) -> (f64, usize) {
        let k = (t0 / self.settings.frame_period * (1.0 + 1e-12)).floor() + 1.0;
        let mut t1 = (k * self.settings.frame_period).min(until);
        if until - t1 < 1e-9 * self.settings.frame_period {
            t1 = until;
        }
        // With resting contacts as constraints the frame is split into contact steps.
        // Joints are held at each step's ends, so they split the frame too.
        let steps = if self.splits_frames() {
            ((t1 - t0) / self.contact_step * (1.0 - 1e-9))
                .ceil()
                .max(1.0) as usize
        } else {
            1
        };
        (t1, steps)
    }

    /// Whether frames are split into steps that start with impulses (contact steps, joints).
    fn splits_frames(&self) -> bool {
        self.settings.resting_mode == RestingContactMode::Constraints || !self.joints.is_empty()
    }

    /// End of step `k` (from 1) of `steps` in the frame [t0, t1].
    fn step_end(t0: f64, t1: f64, steps: usize, k: usize) -> f64 {
        if k == steps {
            t1
        } else {
            t0 + (t1 - t0) * k as f64 / steps as f64
        }
    }

    /// At a frame's end: does the next step's start (its contact step and joint impulses, at
    /// this same instant) now, so that the frame can report the mean of the velocities before
    /// and after them ([`Body::reported_motion`]), not the end of the bodies' last flight. A
    /// resting body then reads 0, not the one step of gravity it fell before its support's
    /// impulse (−g·h), and a domino pivoting on its edge its turning rate. The next frame is assumed to run towards the same
    /// `until` (or a whole frame past a run's end); if it starts a different step after all,
    /// the bodies are put back and its step starts afresh (see [`World::step`]). Physics is
    /// unchanged: the same impulses at the same instant, from the same state.
    fn prepare_next_step(&mut self) {
        #[cfg(test)]
        if self.no_prepare {
            return;
        }
        if !self.splits_frames() {
            return;
        }
        let t0 = self.time;
        let until = if self.last_until > t0 {
            self.last_until
        } else {
            f64::INFINITY
        };
        let (t1, steps) = self.frame_steps(t0, until);
        let s1 = Self::step_end(t0, t1, steps, 1);
        let mut from = std::mem::take(&mut self.prepared_from);
        from.clear();
        from.extend(self.bodies.iter().map(Body::hot));
        self.prepared_from = from;
        let clock = Instant::now();
        self.start_step(t0, s1);
        self.lap(clock, |s| &mut s.contact_step);
        self.prepared = Some((t0, s1));
    }

    /// The impulses a step [t0, t1] starts with: the contact step (constraint mode) and the
    /// joints' hold over it.
    fn start_step(&mut self, t0: f64, t1: f64) {
        self.frame_end = t1;
        if self.settings.resting_mode == RestingContactMode::Constraints {
            self.resting_contact_step(t1 - t0);
        }
        // The joints' impulses that hold them at the step's end (their bodies fly ballistic
        // trajectories within it, so the bounds below stay conservative).
        self.hold_joints_over_step(t1 - t0);
    }

    /// One step over [t0, t1]: every body is at t0. The stages in order (see the module doc).
    fn step(&mut self, t0: f64, t1: f64) -> Result<(), SimError> {
        let clock = Instant::now();
        // 1. Contact step: resting contacts solved together as constraints, their pairs held;
        // and the joints' impulses. Done at the last frame's end if this is the step it
        // prepared; another step puts the bodies back first.
        match self.prepared.take() {
            Some(prepared) if prepared == (t0, t1) => {}
            Some(_) => {
                for (body, hot) in self.bodies.iter_mut().zip(&self.prepared_from) {
                    body.restore(hot);
                }
                self.start_step(t0, t1);
            }
            None => self.start_step(t0, t1),
        }
        self.frame_end = t1;
        let clock = self.lap(clock, |s| &mut s.contact_step);
        // 2–3. Swept boxes, broad phase, and each pair's first bound into the heap.
        self.seed_step(t0, t1)?;
        let clock = self.lap(clock, |s| &mut s.broad_phase);
        // 4. The event loop: on threads, one group of islands each, where the step splits into
        // islands that cannot meet; else, or if a body left its island, here.
        if !self.parallel_event_loop(t0, t1)? {
            self.run_event_loop(t1)?;
        }
        self.heap.clear();
        let clock = self.lap(clock, |s| &mut s.event_loop);
        // 5. Sync: every body at t1, for the next step or the output frame.
        self.sync_bodies(t1)?;
        self.project_joint_velocities();
        self.lap(clock, |s| &mut s.sync);
        Ok(())
    }

    /// Pops and processes the heap's events before `t1` in time order (§3.1). In an island's
    /// world, stops early once a body's box left its island's limits (`escaped`).
    fn run_event_loop(&mut self, t1: f64) -> Result<(), SimError> {
        // The loop's allocations are counted where the program installed the counter
        // (`tumble bench` reports them): it should make none once its buffers have grown.
        let _inside = crate::event_loop_allocations::InsideEventLoop::enter();
        // Events at one instant, to stop a crush (see `SimError::Jammed`).
        let mut instant = (f64::NEG_INFINITY, 0u64);
        while let Some(ev) = self.heap.pop_before(t1) {
            self.counts.heap_pops += 1;
            let (a, b) = (ev.a as usize, ev.b as usize);
            if self.bodies[a].version != ev.version_a || self.bodies[b].version != ev.version_b {
                self.counts.stale_pops += 1;
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
            self.process_pair(a, b, t, ev.kind)?;
            #[cfg(feature = "parallelism-probe")]
            parallelism_probe::after_event(&self.bodies, a, b, started);
            if self.escaped {
                break;
            }
            #[cfg(test)]
            self.watch_rebound(&ev);
        }
        Ok(())
    }

    /// Advances every body to `t1` and makes it the world time.
    fn sync_bodies(&mut self, t1: f64) -> Result<(), SimError> {
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
        self.time = t1;
        Ok(())
    }

    /// Adds the wall time since `since` to a stage's slot; returns now.
    fn lap(&mut self, since: Instant, slot: impl Fn(&mut StageTimes) -> &mut f64) -> Instant {
        let now = Instant::now();
        *slot(&mut self.stage_times) += (now - since).as_secs_f64();
        now
    }

    fn non_finite(&self, i: usize, t: f64) -> SimError {
        SimError::NonFinite {
            body: self.bodies[i].name.clone(),
            time: t,
        }
    }
}

/// Reading the world, and choices that change how fast it runs, never what it computes.
impl World {
    /// Current simulated time (s).
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Number of bodies (all motions).
    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }

    /// Name of body `i`.
    pub fn body_name(&self, i: usize) -> &str {
        &self.bodies[i].name
    }

    /// Motion of body `i`.
    pub fn body_motion(&self, i: usize) -> Motion {
        self.bodies[i].motion
    }

    /// Body `i` (its state is at the world time between frames).
    pub fn body(&self, i: usize) -> &Body {
        &self.bodies[i]
    }

    /// Index of the body called `name`.
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b.name == name)
    }

    /// State of body `i` at the current world time, in its user frame.
    pub fn body_state(&self, i: usize) -> BodyState {
        self.bodies[i].reported_state(self.before_prepared(i))
    }

    /// Body `i` just before the impulses of a step prepared at this instant, if any (see
    /// [`Body::reported_motion`]).
    fn before_prepared(&self, i: usize) -> Option<&crate::body::BodyHot> {
        self.prepared.and(self.prepared_from.get(i))
    }

    /// Counters so far.
    pub fn counts(&self) -> &Counts {
        &self.counts
    }

    /// Largest penetration depth seen at any event or frame (m, >= 0).
    pub fn max_penetration(&self) -> f64 {
        self.max_penetration
    }

    /// Where the largest penetration ([`Self::max_penetration`]) was seen, if any pair ever
    /// overlapped: its depth, the time and the two bodies, so a run whose quality figure is off
    /// names the place to look.
    pub fn deepest_overlap(&self) -> Option<DeepestOverlap> {
        let (time, a, b) = self.deepest_at;
        (self.max_penetration > 0.0).then_some(DeepestOverlap {
            depth: self.max_penetration,
            time,
            a: a as usize,
            b: b as usize,
        })
    }

    /// Gravity (m/s²).
    pub fn gravity(&self) -> DVec3 {
        self.settings.gravity
    }

    /// Total kinetic energy of the dynamic bodies (J).
    pub fn kinetic_energy(&self) -> f64 {
        (0..self.bodies.len())
            .map(|i| self.bodies[i].reported_kinetic_energy(self.before_prepared(i)))
            .sum()
    }

    /// Total gravitational potential energy of the dynamic bodies, `-m g·x` (J).
    pub fn potential_energy(&self) -> f64 {
        self.bodies
            .iter()
            .filter(|b| b.is_dynamic())
            .map(|b| -self.settings.gravity.dot(b.position) / b.inv_mass)
            .sum()
    }

    /// Total linear momentum of the dynamic bodies (kg m/s).
    pub fn momentum(&self) -> DVec3 {
        self.bodies
            .iter()
            .enumerate()
            .filter(|(_, b)| b.is_dynamic())
            .map(|(i, b)| b.reported_motion(self.before_prepared(i)).0 / b.inv_mass)
            .sum()
    }

    /// Number of pairs whose last separating axis is stored (see `World::prune_last_axes`):
    /// at most about twice a step's broad-phase pairs plus a constant, however long the run.
    pub fn stored_axes(&self) -> usize {
        self.bounds.last_axis.len()
    }

    /// Wall time per stage so far.
    pub fn stage_times(&self) -> &StageTimes {
        &self.stage_times
    }

    /// Runs the frame-start stages (swept boxes, broad phase, pair bounds) through `stages`
    /// instead of the host's f64 path; see [`crate::stages`]. The host still owns the event heap,
    /// the exact distances and the collision response.
    pub fn set_frame_stages(&mut self, stages: Box<dyn FrameStages>) {
        self.stages = Some(stages);
    }

    /// Whether a step's event loop may run on threads, one group of islands each (default: on;
    /// the results are the same either way, bit for bit: see `world/islands.rs`).
    pub fn set_parallel_islands(&mut self, on: bool) {
        self.settings.parallel_islands = on;
    }

    /// Scales the margin by which an island's limits exceed its bodies' swept boxes (default
    /// 1). Only the speed changes with it: 0 makes nearly every run void (each redone in one
    /// loop), which the tests use to check that path.
    pub fn set_island_margin(&mut self, scale: f64) {
        self.settings.island_margin = scale.max(0.0);
    }

    /// Name of the frame stages in use ("host" when none were set).
    pub fn frame_stages_name(&self) -> String {
        self.stages
            .as_ref()
            .map_or_else(|| "host".to_string(), |s| s.name())
    }
}
