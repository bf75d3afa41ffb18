//! The world and its frame loop (Mirtich & Canny 1994, §3).
//!
//! A frame is split into steps (contact steps when resting contacts are constraints, else the
//! frame is one step), and each step runs, top to bottom ([`World::step`]):
//! 1. **contact step** (constraint mode only): resting contacts solved together as constraints
//!    over the step, their pairs *held* (Bender & Schmitt 2006 §3.2; [`contact_step`]); an island
//!    the switch rule calls jammed ([`jam`]) has its collisions resolved first, in rounds over
//!    the whole island, and all its contacts solved with the rest ([`island_step`]);
//! 2. **swept boxes** over `[t₀, t₁]` and the **broad phase** on the host grid
//!    ([`swept_boxes`]), or both through the data-parallel stages ([`stage_seed`]);
//! 3. **pair bounds** into the heap: a conservative lower bound on each pair's time of impact
//!    ([`bounds`], computed by [`pair_bound`]);
//! 4. **event loop** ([`Stores::run_event_loop`], on threads per group of islands where the step
//!    splits, [`islands`]): pop the earliest entry, skip it if stale, advance its two bodies,
//!    measure, and respond ([`collide`]; held pairs by local re-solves, [`held`]), re-bounding
//!    every pair an impulse changed;
//! 5. **sync**: every body advanced to `t₁`; at a frame's end resting bodies may sleep
//!    ([`sleep`]).
//!
//! Nothing tunnels by construction: a pair farther than ε_c is bounded to the time it could
//! reach ε_c/2, and every pair an impulse changes is bounded again at once. The reasoning
//! behind each stage is in `docs/design.md`, the measurements in `docs/measurements.md`.

mod band_crossing;
mod body_log;
mod body_set;
mod bounds;
mod build;
mod collide;
mod contact_band;
mod contact_step;
mod counts;
mod device_round;
mod event_log;
mod event_loop;
mod held;
mod impacts;
mod impulse_record;
mod island_step;
mod islands;
mod jam;
mod joint_step;
mod lcp_step;
mod pair_bound;
#[cfg(feature = "parallelism-probe")]
mod parallelism_probe;
pub mod resolution;
mod round_sweeps;
mod saved_state;
mod set_state;
mod settings;
mod sleep;
mod stage_seed;
mod stores;
#[cfg(test)]
mod sweep_tests;
mod swept_boxes;
#[cfg(test)]
mod tests;

pub use crate::body::BodyState;
pub use body_log::{Insertion, ProbeRow, Removal};
pub use body_set::BodyFlow;
pub use counts::{Counts, DeepestOverlap, SimError, StageTimes};
pub use event_log::{EventKind, ImpulseEvent};
pub use saved_state::{StateError, WorldState, WorldStateRef};
pub use settings::{
    ContactPush, JammedIslands, Method, RestingContactMode, WorldConfig, DEVICE_MIN_POINTS,
    DEVICE_MIN_ROWS,
};

use crate::body::{Body, Motion};
use crate::narrow_phase::ContactPoint;
use crate::stages::FrameStages;
use crate::swept_aabb::Aabb;
use bounds::Seeding;
use collide::{Rebound, Response};
use glam::DVec3;
use held::ClusterScratch;
use impacts::ImpactScratch;
use stage_seed::StageScratch;
use std::time::Instant;
use stores::Stores;

/// The simulated world: its stores ([`stores`]), the event loop's buffers, and how its frames
/// are stepped.
#[derive(Default)]
pub struct World {
    /// Bodies, settings, clock, pairs, joints, contacts and what the run reports.
    stores: Stores,
    /// The event loop's reusable buffers.
    scratch: Scratch,
    /// The time-stepping method the frames run ([`Stepper`]).
    stepper: Stepper,
    /// Tests that drive single steps turn the preparing off.
    #[cfg(test)]
    no_prepare: bool,
    /// Data-parallel frame stages (GPU or CPU twins); `None`: the host's own f64 path.
    stages: Option<Box<dyn FrameStages>>,
    stage_scratch: StageScratch,
    /// Buffers and the island stores of the parallel event loop.
    islands: islands::IslandScratch,
    /// What adds and removes bodies at each step's end (`[[sources]]`, `[[sinks]]`).
    flow: Option<Box<dyn body_set::BodyFlow>>,
}

/// Reusable buffers of the event loop and the contact step (no allocation once grown). Each
/// stage is handed the buffers it uses, so a stage can hold one while it calls another.
#[derive(Default)]
struct Scratch {
    /// Contact points of the latest proximity query of the popped pair (or of the pair a
    /// stage measures).
    points: Vec<ContactPoint>,
    /// A band-crossing search's trial points (the popped pair's stay in `points`).
    crossing_points: Vec<ContactPoint>,
    /// The bodies an impulse changed and their grid neighbours, to re-bound.
    rebound: Rebound,
    /// Buffers of one pair's collision response.
    response: Response,
    /// The local re-solves and their clusters.
    cluster: ClusterScratch,
    /// The impact sets ([`super::impacts`]) and the bodies one moved.
    impacts: ImpactScratch,
    impact_moved: Vec<usize>,
    /// The step's candidate pairs.
    step_pairs: Vec<(usize, usize)>,
    /// The contact step's pairs measured, by chunk.
    measured: Vec<contact_step::MeasuredChunk>,
    /// A step's seeding.
    seeding: Seeding,
    /// Bodies a wake-up woke.
    woken: Vec<usize>,
    /// Whether a contact step touched each body.
    touched: Vec<bool>,
    /// Stack of `Stores::wake_up`, frontier of `Stores::solve_rings`.
    wake_stack: Vec<usize>,
    /// The contact impulses a solve reports.
    pushed: Vec<crate::resting_contact::ContactImpulse>,
}

/// The time-stepping method a world's frames run, picked when the world is built: Mirtich &
/// Canny's events ([`World::step`]) or Stewart & Trinkle's implicit steps ([`lcp_step`]).
#[derive(Default, serde::Serialize, serde::Deserialize)]
enum Stepper {
    #[default]
    Events,
    /// `method = "lcp"`: steps begun; step l covers [l h, (l + 1) h].
    Lcp { steps_begun: u64 },
}

impl Stepper {
    /// The stepper of `method`, before its first frame.
    fn new(method: Method) -> Stepper {
        match method {
            Method::Event => Stepper::Events,
            Method::Lcp => Stepper::Lcp { steps_begun: 0 },
        }
    }
}

/// Runs `f` on one of rayon's pool threads while the caller waits, if the caller is not one
/// already; else here. A frame loop run inside it hands over to the pool once, not at every
/// frame ([`World::step_frame`] does it per frame): in a scene of a few bodies, the two
/// thread switches per frame were a tenth of the run. On a pool of one thread too: the
/// frame's parallel parts then run inline on that thread, where from outside the pool each
/// would be handed to it and waited for (7 % of a funnel's run on one thread went to those
/// switches).
pub fn on_pool<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if rayon::current_thread_index().is_none() {
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
        // One thread: the frame stays here, where a scene small enough for one thread mostly
        // has no parallel part to hand over.
        if rayon::current_num_threads() > 1 {
            on_pool(|| self.step_frame_here(until))
        } else {
            self.step_frame_here(until)
        }
    }

    /// [`Self::step_frame`] on this thread.
    fn step_frame_here(&mut self, until: f64) -> Result<(), SimError> {
        #[cfg(feature = "parallelism-probe")]
        {
            let half = (self.stores.clock.time * 2.0).floor();
            let stepped = self.step_frame_inner(until);
            if (self.stores.clock.time * 2.0).floor() > half {
                parallelism_probe::report(half / 2.0);
            }
            stepped
        }
        #[cfg(not(feature = "parallelism-probe"))]
        self.step_frame_inner(until)
    }

    fn step_frame_inner(&mut self, until: f64) -> Result<(), SimError> {
        if self.reached(until) {
            return Ok(());
        }
        match self.stepper {
            Stepper::Events => self.event_frame(until),
            Stepper::Lcp { .. } => self.lcp_frame(until),
        }
    }

    /// One frame of the event-driven method: its steps, each step's stages in order (see the
    /// module doc); then sleep, the contact step's length, and the next step's start.
    fn event_frame(&mut self, until: f64) -> Result<(), SimError> {
        let t0 = self.stores.clock.time;
        self.stores.clock.last_until = until;
        let (t1, steps) = self.frame_steps(t0, until);
        for k in 1..=steps {
            self.stores.check_deadline()?;
            let s0 = self.stores.clock.time;
            let s1 = Self::step_end(t0, t1, steps, k);
            self.step(s0, s1)?;
            self.run_body_flow();
        }
        self.stores.sleep_resting_bodies(t1);
        self.stores.stats.counts.frames += 1;
        if self.stores.settings.resting_mode == RestingContactMode::Constraints {
            if self.stores.clock.contact_step > self.stores.settings.contact_step_range.0 {
                self.stores.stats.counts.long_contact_steps += steps as u64;
            }
            self.stores.adapt_step_length();
        }
        self.prepare_next_step();
        self.measure_frame();
        // A failure of the next step's contact step is this frame's: none is left pending at a
        // frame's end, where checkpoints are written.
        self.stores.take_geometry_failure()
    }

    /// The end of the frame from `t0` towards `until` and its number of steps. Frames end on
    /// the grid k·t_f (no accumulated rounding), or exactly at `until`.
    fn frame_steps(&self, t0: f64, until: f64) -> (f64, usize) {
        let k = (t0 / self.stores.settings.frame_period * (1.0 + 1e-12)).floor() + 1.0;
        let mut t1 = (k * self.stores.settings.frame_period).min(until);
        if until - t1 < 1e-9 * self.stores.settings.frame_period {
            t1 = until;
        }
        // With resting contacts as constraints the frame is split into contact steps.
        // Joints are held at each step's ends, so they split the frame too.
        let steps = if self.splits_frames() {
            ((t1 - t0) / self.stores.clock.contact_step * (1.0 - 1e-9))
                .ceil()
                .max(1.0) as usize
        } else {
            1
        };
        (t1, steps)
    }

    /// Whether frames are split into steps that start with impulses (contact steps, joints).
    fn splits_frames(&self) -> bool {
        self.stores.settings.resting_mode == RestingContactMode::Constraints
            || !self.stores.joints.is_empty()
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
        let t0 = self.stores.clock.time;
        let until = if self.stores.clock.last_until > t0 {
            self.stores.clock.last_until
        } else {
            f64::INFINITY
        };
        let (t1, steps) = self.frame_steps(t0, until);
        let s1 = Self::step_end(t0, t1, steps, 1);
        let from = &mut self.stores.clock.prepared_from;
        from.clear();
        from.extend(self.stores.bodies.iter().map(Body::hot));
        let clock = Instant::now();
        self.start_step(t0, s1);
        self.lap(clock, |s| &mut s.contact_step);
        self.stores.clock.prepared = Some((t0, s1));
    }

    /// Puts the bodies back as they were before the contact step prepared at this instant, if
    /// one is, and forgets it: it was solved for a step or states that are not the ones to come.
    fn undo_prepared(&mut self) {
        if self.stores.clock.prepared.take().is_some() {
            for (body, hot) in self
                .stores
                .bodies
                .iter_mut()
                .zip(&self.stores.clock.prepared_from)
            {
                body.restore(hot);
            }
        }
    }

    /// The impulses a step [t0, t1] starts with: the contact step (constraint mode) and the
    /// joints' hold over it.
    fn start_step(&mut self, t0: f64, t1: f64) {
        self.stores.clock.frame_end = t1;
        if self.stores.settings.resting_mode == RestingContactMode::Constraints {
            let device = self.stages.as_deref_mut();
            self.stores
                .resting_contact_step(t1 - t0, &mut self.scratch, device);
        }
        // The joints' impulses that hold them at the step's end (their bodies fly ballistic
        // trajectories within it, so the bounds below stay conservative).
        self.stores.hold_joints_over_step(t1 - t0);
    }

    /// One step over [t0, t1]: every body is at t0. The stages in order (see the module doc).
    fn step(&mut self, t0: f64, t1: f64) -> Result<(), SimError> {
        let clock = Instant::now();
        // 1. Contact step: resting contacts solved together as constraints, their pairs held;
        // and the joints' impulses. Done at the last frame's end if this is the step it
        // prepared; another step puts the bodies back first.
        if self.stores.clock.prepared == Some((t0, t1)) {
            self.stores.clock.prepared = None;
        } else {
            self.undo_prepared();
            self.start_step(t0, t1);
        }
        self.stores.clock.frame_end = t1;
        self.stores.take_geometry_failure()?;
        let clock = self.lap(clock, |s| &mut s.contact_step);
        // 2–3. Swept boxes, broad phase, and each pair's first bound into the heap.
        self.seed_step(t0, t1)?;
        let clock = self.lap(clock, |s| &mut s.broad_phase);
        // 4. The event loop: on threads, one group of islands each, where the step splits into
        // islands that cannot meet; else, or if a body left its island, here.
        if !self.parallel_event_loop(t0, t1)? {
            self.stores.run_event_loop(t1, &mut self.scratch)?;
        }
        self.stores.pairs.heap.clear();
        let clock = self.lap(clock, |s| &mut s.event_loop);
        // 5. Sync: every body at t1, for the next step or the output frame.
        self.stores.sync_bodies(t1)?;
        self.stores.project_joint_velocities();
        self.lap(clock, |s| &mut s.sync);
        Ok(())
    }

    /// Seeds the heap for step [t0, t1] (every body at t0): swept boxes and broad phase on the
    /// host or through the data-parallel stages, then each pair's bound. A pair whose bodies
    /// kept their trajectories since an earlier step keeps that step's bound (still a valid
    /// lower bound); only the others are bounded afresh.
    pub(super) fn seed_step(&mut self, t0: f64, t1: f64) -> Result<(), SimError> {
        self.stores.pairs.begin_seeding();
        if self.stages.is_some() {
            self.seed_frame_with_stages(t0, t1)?;
        } else {
            let mut pairs = std::mem::take(&mut self.scratch.step_pairs);
            self.stores.collect_pairs(t1 - t0, &mut pairs);
            self.stores.stats.counts.broad_phase_pairs += pairs.len() as u64;
            self.note_islands(&pairs);
            self.stores
                .seed_pairs(&pairs, None, t0, &mut self.scratch.seeding);
            self.scratch.step_pairs = pairs;
        }
        self.stores.pairs.bounds.earlier.clear();
        Ok(())
    }

    /// Adds the wall time since `since` to a stage's slot; returns now.
    fn lap(&mut self, since: Instant, slot: impl Fn(&mut StageTimes) -> &mut f64) -> Instant {
        let now = Instant::now();
        *slot(&mut self.stores.stats.stage_times) += (now - since).as_secs_f64();
        now
    }
}

/// Reading the world, and choices that change how fast it runs, never what it computes.
impl World {
    /// Current simulated time (s).
    pub fn time(&self) -> f64 {
        self.stores.clock.time
    }

    /// Whether the world's time is at `until` up to rounding: within 1e-9 of a frame period,
    /// the allowance with which frames end on their grid ([`World::step_frame`] does nothing
    /// then). A frame of a few ulps (`until` = 1.68 + 2e-16 at t = 1.68, which `t + 0.1` sums
    /// give) would be a contact step of that length, whose push-out and resting targets divide
    /// by it and throw the bodies out.
    pub fn reached(&self, until: f64) -> bool {
        until - self.stores.clock.time <= 1e-9 * self.stores.settings.frame_period
    }

    /// Number of bodies (all motions).
    pub fn body_count(&self) -> usize {
        self.stores.bodies.len()
    }

    /// Name of body `i`.
    pub fn body_name(&self, i: usize) -> &str {
        &self.stores.bodies[i].name
    }

    /// Motion of body `i`.
    pub fn body_motion(&self, i: usize) -> Motion {
        self.stores.bodies[i].motion
    }

    /// Body `i` (its state is at the world time between frames).
    pub fn body(&self, i: usize) -> &Body {
        &self.stores.bodies[i]
    }

    /// Index of the body called `name`.
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.stores.bodies.iter().position(|b| b.name == name)
    }

    /// State of body `i` at the current world time, in its user frame.
    pub fn body_state(&self, i: usize) -> BodyState {
        self.stores.bodies[i].reported_state(self.before_prepared(i))
    }

    /// Body `i` just before the impulses of a step prepared at this instant, if any (see
    /// [`Body::reported_motion`]).
    fn before_prepared(&self, i: usize) -> Option<&crate::body::BodyHot> {
        self.stores
            .clock
            .prepared
            .and(self.stores.clock.prepared_from.get(i))
    }

    /// Bodies in islands the switch rule steps as a whole over the present contact step
    /// (`[world] jammed_islands = "step"`; see `world/jam.rs`).
    pub fn jammed_bodies(&self) -> usize {
        self.stores.bodies.iter().filter(|b| b.jammed).count()
    }

    /// Counters so far.
    pub fn counts(&self) -> &Counts {
        &self.stores.stats.counts
    }

    /// Largest penetration depth seen at any event or frame (m, >= 0).
    pub fn max_penetration(&self) -> f64 {
        self.stores.stats.max_penetration
    }

    /// Where the largest penetration ([`Self::max_penetration`]) was seen, if any pair ever
    /// overlapped: its depth, the time and the two bodies, so a run whose quality figure is off
    /// names the place to look.
    pub fn deepest_overlap(&self) -> Option<DeepestOverlap> {
        let (time, a, b) = self.stores.stats.deepest_at;
        let stats = &self.stores.stats;
        let name = |i: u32| {
            self.stores
                .bodies
                .get(i as usize)
                .map_or(String::new(), |b| b.name.clone())
        };
        (stats.max_penetration > 0.0).then(|| DeepestOverlap {
            depth: stats.max_penetration,
            time,
            a: if a == u32::MAX {
                usize::MAX
            } else {
                a as usize
            },
            b: if b == u32::MAX {
                usize::MAX
            } else {
                b as usize
            },
            names: stats
                .deepest_names
                .clone()
                .unwrap_or_else(|| [name(a), name(b)]),
        })
    }

    /// Gravity (m/s²).
    pub fn gravity(&self) -> DVec3 {
        self.stores.settings.gravity
    }

    /// Total kinetic energy of the dynamic bodies (J).
    pub fn kinetic_energy(&self) -> f64 {
        (0..self.stores.bodies.len())
            .map(|i| self.stores.bodies[i].reported_kinetic_energy(self.before_prepared(i)))
            .sum()
    }

    /// Total gravitational potential energy of the dynamic bodies, `-m g·x` (J).
    pub fn potential_energy(&self) -> f64 {
        self.stores
            .bodies
            .iter()
            .filter(|b| b.is_dynamic())
            .map(|b| -self.stores.settings.gravity.dot(b.position) / b.inv_mass)
            .sum()
    }

    /// Total linear momentum of the dynamic bodies (kg m/s).
    pub fn momentum(&self) -> DVec3 {
        self.stores
            .bodies
            .iter()
            .enumerate()
            .filter(|(_, b)| b.is_dynamic())
            .map(|(i, b)| b.reported_motion(self.before_prepared(i)).0 / b.inv_mass)
            .sum()
    }

    /// Number of pairs whose last separating axis is stored (see `Stores::prune_last_axes`):
    /// at most about twice a step's broad-phase pairs plus a constant, however long the run.
    pub fn stored_axes(&self) -> usize {
        self.stores.pairs.bounds.last_axis.len()
    }

    /// Wall time per stage so far.
    pub fn stage_times(&self) -> &StageTimes {
        &self.stores.stats.stage_times
    }

    /// Runs the frame-start stages (swept boxes, broad phase, pair bounds) through `stages`
    /// instead of the host's f64 path; see [`crate::stages`]. The host still owns the event heap,
    /// the exact distances and the collision response.
    pub fn set_frame_stages(&mut self, stages: Box<dyn FrameStages>) {
        self.stages = Some(stages);
    }

    /// Tells the world where its run ends (s): the largest speed and spin its dynamic bodies may
    /// reach follow from it (`world/resolution.rs`), and a body that goes beyond them stops the
    /// run with [`SimError::OutOfRange`]. Until then nothing is checked.
    pub fn set_run_end(&mut self, end: f64) {
        let s = &mut self.stores.settings;
        let end = end.max(s.frame_period);
        s.motion_limits = (
            resolution::max_speed(s.epsilon, end),
            resolution::max_spin(s.frame_period),
        );
    }

    /// A wall-clock budget from now (`None`: none, the default): a frame still going when it
    /// runs out stops with [`SimError::OverBudget`], checked at every step and every few
    /// thousand events. For batch trials, so that one pathological draw cannot stall a batch.
    pub fn set_deadline(&mut self, budget: Option<std::time::Duration>) {
        self.stores.settings.deadline =
            budget.map(|b| (std::time::Instant::now() + b, b.as_secs_f64()));
    }

    /// Whether a step's event loop may run on threads, one group of islands each (default: on;
    /// the results are the same either way, bit for bit: see `world/islands.rs`).
    pub fn set_parallel_islands(&mut self, on: bool) {
        self.stores.settings.parallel_islands = on;
    }

    /// Scales the margin by which an island's limits exceed its bodies' swept boxes (default
    /// 1). Only the speed changes with it: 0 makes nearly every run void (each redone in one
    /// loop), which the tests use to check that path.
    pub fn set_island_margin(&mut self, scale: f64) {
        self.stores.settings.island_margin = scale.max(0.0);
    }

    /// With frame stages on a device ([`Self::set_frame_stages`]): a contact step of at least
    /// `points` contact points has its sweeps run there, and a jammed island's collision round
    /// of at least `rows` points is solved there; smaller ones stay on the host (defaults
    /// [`DEVICE_MIN_POINTS`] and [`DEVICE_MIN_ROWS`]; 0 sends every one to the device).
    pub fn set_device_minimums(&mut self, points: usize, rows: usize) {
        self.stores.settings.device_minimums = (points, rows);
    }

    /// Name of the frame stages in use ("host" when none were set).
    pub fn frame_stages_name(&self) -> String {
        self.stages
            .as_ref()
            .map_or_else(|| "host".to_string(), |s| s.name())
    }
}
