//! The world's stores: what the frame loop's stages read and write, each store one noun (after
//! Box2D v3's solver sets and Rapier's sets). The stages are functions in the files named for
//! them; this file holds only the data.
//!
//! - [`Clock`]: the world time, the present step's end and the contact step's length.
//! - [`Pairs`]: the event heap, the kept bounds and last axes, the swept boxes and their grid.
//! - [`Contacts`]: the contact step, the held pairs, the local re-solves' clusters and the
//!   impact sets.
//! - [`RunStats`]: what the run reports (counters, penetration, impulses, stage times).
//! - [`Scratch`]: reusable buffers of the event loop (no allocation once grown).
//!
//! [`Stores`] gathers them with the bodies, the settings and the joints: what an event loop runs
//! over, the world's own or an island's subset ([`super::islands`]). The scratch buffers stay
//! apart from them, so that a stage can hold a buffer while it calls another stage.

use super::counts::{Counts, StageTimes};
use super::event_log::ImpulseEvent;
use super::impacts::ImpactScratch;
use super::pair_bound::FirstBound;
use super::settings::Settings;
use crate::body::{Body, BodyHot};
use crate::event_heap::{EventHeap, PairEvent};
use crate::hash_grid::HashGrid;
use crate::joints::Joints;
use crate::narrow_phase::ContactPoint;
use crate::resting_contact::{RestingContact, Solver, TrackedPoint};
use crate::swept_aabb::Aabb;
use glam::DVec3;
use rustc_hash::{FxHashMap, FxHashSet};

/// What an event loop runs over: the world's stores, or an island's subset of them.
#[derive(Default)]
pub(super) struct Stores {
    pub(super) bodies: Vec<Body>,
    /// What the scene fixed for the whole run (cloned into island stores).
    pub(super) settings: Settings,
    pub(super) clock: Clock,
    /// Which pair is measured when: heap, kept bounds, last axes, swept boxes and their grid.
    pub(super) pairs: Pairs,
    /// The joints and their articulations ([`crate::joints`]).
    pub(super) joints: Joints,
    /// Resting contact as constraints: contact step, held pairs, clusters, impact sets.
    pub(super) contacts: Contacts,
    pub(super) stats: RunStats,
    /// Tests only: watches that every popped pair gets a new bound.
    #[cfg(test)]
    pub(super) watch: Option<super::tests::BoundWatch>,
}

/// The world's clock.
#[derive(Default)]
pub(super) struct Clock {
    /// The world time: every body is there between steps (s).
    pub(super) time: f64,
    /// End of the present step (s).
    pub(super) frame_end: f64,
    /// Present contact step length h (s), within `settings.contact_step_range` (see
    /// [`World::adapt_step_length`](super::World)).
    pub(super) contact_step: f64,
    /// The step [t₀, t₁] whose start (contact step, joints) was done at the end of the last
    /// frame, so that the frame reports the velocities its impulses leave, and the bodies as
    /// they were before it, for a next frame that starts another step (see
    /// `World::prepare_next_step`).
    pub(super) prepared: Option<(f64, f64)>,
    pub(super) prepared_from: Vec<BodyHot>,
    /// The `until` of the last `World::step_frame`: the next frame is assumed to go as far.
    pub(super) last_until: f64,
}

/// The pairs: which pair is measured when.
#[derive(Default)]
pub(super) struct Pairs {
    /// Each pair's conservative lower bound on its time of impact in the present step.
    pub(super) heap: EventHeap,
    /// The host's grid of the present swept boxes, queried after every impulse.
    pub(super) grid: HashGrid,
    /// Each body's swept box to the step's end.
    pub(super) boxes: Vec<Aabb>,
    /// Kept bounds and last separating axes ([`super::bounds`]).
    pub(super) bounds: BoundStore,
    /// In an island's world: per body, the box it must stay inside (empty elsewhere).
    pub(super) limits: Vec<Aabb>,
    /// In an island's world: a body's box left its limit, so the run is void.
    pub(super) escaped: bool,
}

/// The bounds kept across steps and the pairs' last separating axes.
#[derive(Default)]
pub(super) struct BoundStore {
    /// Bounds that fell beyond the current step's end, kept per pair for the next steps: a
    /// bound stays valid while both bodies keep the versions it was computed with (their
    /// trajectories are unchanged), so a pair the step left alone is not bounded afresh.
    pub(super) later: FxHashMap<(u32, u32), PairEvent>,
    /// The previous step's `later`, consumed while seeding the next step.
    pub(super) earlier: FxHashMap<(u32, u32), PairEvent>,
    /// Per pair (a < b), the normal of its last proximity query: a separating axis to bound
    /// the pair from when one of its bodies changes velocity (see [`World::push_bound`]).
    pub(super) last_axis: FxHashMap<(u32, u32), DVec3>,
    /// A step's pairs that need a first bound (with their place in the step's pairs), and
    /// those bounds ([`World::seed_pairs`]).
    pub(super) fresh_pairs: Vec<(usize, usize, usize)>,
    pub(super) fresh_bounds: Vec<FirstBound>,
}

/// The contact step's state.
#[derive(Default)]
pub(super) struct ContactStep {
    /// The present step's resting contacts, in pair order.
    pub(super) contacts: Vec<RestingContact>,
    /// Its solver (keeps the last step's impulses for the warm start).
    pub(super) solver: Solver,
    /// `(step_point_sweeps, resolve_point_sweeps)` at the present frame's start.
    pub(super) work_at_frame_start: (u64, u64),
}

/// The pairs the present contact step holds, and the previous step's.
#[derive(Default)]
pub(super) struct HeldPairs {
    /// Pairs (a < b) whose contacts the current contact step holds, each with the range of
    /// its tracked points in `points` (empty for a pair that came to rest mid-step).
    pub(super) pairs: FxHashMap<(u32, u32), (u32, u32)>,
    /// The held pairs' contact points within `RESTING_MARGIN`·ε_c at the contact step's start,
    /// tracked on their bodies (see [`TrackedPoint`]).
    pub(super) points: Vec<TrackedPoint>,
    /// The previous contact step's `pairs` and `points`: a pair held then whose points moved
    /// little since they were measured takes its contacts from them (see
    /// `contact_step::REUSED_SLIDE`).
    pub(super) previous_pairs: FxHashMap<(u32, u32), (u32, u32)>,
    pub(super) previous_points: Vec<TrackedPoint>,
    /// The held pairs of each body (this step).
    pub(super) by_body: Vec<Vec<(u32, u32)>>,
    /// Mid-step re-solves per held pair (this step).
    pub(super) resolves: FxHashMap<(u32, u32), u32>,
}

/// The local re-solves' state kept across events: their solver (its impulses warm-start the
/// next re-solve) and which bodies the present ring has listed.
#[derive(Default)]
pub(super) struct Cluster {
    /// Solver of the local re-solves.
    pub(super) solver: Solver,
    /// Per body, the stamp of the last local re-solve that listed it, and that stamp.
    pub(super) body_stamps: Vec<u32>,
    pub(super) ring_stamp: u32,
}

/// Resting contact as constraints: the contact step, the pairs it holds, and the local
/// re-solves and impact sets of the event loop.
#[derive(Default)]
pub(super) struct Contacts {
    pub(super) step: ContactStep,
    pub(super) held: HeldPairs,
    pub(super) cluster: Cluster,
}

/// What the run reports.
#[derive(Default)]
pub(super) struct RunStats {
    pub(super) counts: Counts,
    /// Largest penetration depth seen at any event or frame (m, >= 0).
    pub(super) max_penetration: f64,
    /// Where `max_penetration` was measured: the time and the pair (a < b).
    pub(super) deepest_at: (f64, u32, u32),
    /// Impulses recorded since the last `World::take_events` (when `settings.record_events`).
    pub(super) event_log: Vec<ImpulseEvent>,
    pub(super) stage_times: StageTimes,
}

/// Reusable buffers of the event loop and the contact step (no allocation once grown). Each
/// stage is handed the buffers it uses, so a stage can hold one while it calls another.
#[derive(Default)]
pub(super) struct Scratch {
    /// Contact points of the latest proximity query of the popped pair (or of the pair a
    /// stage measures).
    pub(super) points: Vec<ContactPoint>,
    /// A band-crossing search's trial points (the popped pair's stay in `points`).
    pub(super) crossing_points: Vec<ContactPoint>,
    /// The bodies an impulse changed and their grid neighbours, to re-bound.
    pub(super) rebound: Rebound,
    /// Buffers of one pair's collision response.
    pub(super) response: Response,
    /// The local re-solves and their clusters.
    pub(super) cluster: ClusterScratch,
    /// The impact sets ([`super::impacts`]) and the bodies one moved.
    pub(super) impacts: ImpactScratch,
    pub(super) impact_moved: Vec<usize>,
    /// The step's candidate pairs.
    pub(super) step_pairs: Vec<(usize, usize)>,
    /// Bodies a contact step touched, or a wake-up woke.
    pub(super) woken: Vec<usize>,
    /// Stack of `Stores::wake_up`, frontier of `Stores::solve_rings`.
    pub(super) wake_stack: Vec<usize>,
    /// The contact impulses a solve reports.
    pub(super) pushed: Vec<crate::resting_contact::ContactImpulse>,
}

/// Buffers of the local re-solves and their clusters ([`super::held`]).
#[derive(Default)]
pub(super) struct ClusterScratch {
    /// The next round's seed pairs with their try numbers.
    pub(super) seeds: Vec<(usize, usize, u32)>,
    /// Every body the cluster moved.
    pub(super) moved: Vec<usize>,
    /// The bodies a collision hit (whose held pairs may need re-solving).
    pub(super) hit: Vec<usize>,
    pub(super) ring: Ring,
}

/// Buffers of one local re-solve ([`Stores::solve_rings`]).
#[derive(Default)]
pub(super) struct Ring {
    /// The pairs of the ring being solved, in the solve's order; after the solve, the pairs
    /// it solved.
    pub(super) pairs: Vec<(usize, usize)>,
    /// The pairs of the ring being built, as a set.
    pub(super) listed: FxHashSet<(usize, usize)>,
    /// The bodies whose held pairs join the ring next, and those of the ring after.
    pub(super) frontier: Vec<usize>,
    pub(super) next: Vec<usize>,
    /// The ring's contacts.
    pub(super) contacts: Vec<RestingContact>,
    /// Velocities of the ring's bodies before the solve (to see which changed).
    pub(super) before: Vec<(usize, DVec3, DVec3)>,
    /// The contact impulses the solve reports.
    pub(super) pushed: Vec<crate::resting_contact::ContactImpulse>,
    /// Contact points of the pair being measured.
    pub(super) points: Vec<ContactPoint>,
    /// Buffers of the search for the next round's seeds.
    pub(super) near: Near,
}

/// Buffers of the search for held pairs a re-solve pushed ([`Stores::pushed_held_pairs`]).
#[derive(Default)]
pub(super) struct Near {
    /// The moved bodies' held pairs.
    pub(super) candidates: Vec<(usize, usize)>,
    /// The ring just solved, sorted.
    pub(super) solved: Vec<(usize, usize)>,
    /// Contact points of the pair being measured.
    pub(super) points: Vec<ContactPoint>,
}

/// The buffers of a re-bounding after an impulse ([`Stores::rebound_after_change`]).
#[derive(Default)]
pub(super) struct Rebound {
    /// The bodies whose trajectories changed (ascending).
    pub(super) changed: Vec<usize>,
    /// Grid query results.
    pub(super) candidates: Vec<u32>,
}

/// The buffers of one pair's collision response ([`super::collide`]).
#[derive(Default)]
pub(super) struct Response {
    /// Rows of `Stores::simultaneous_microcollision`.
    pub(super) micro_rows: Vec<super::collide::MicroRow>,
    /// Velocities saved while finding an articulated collision matrix.
    pub(super) joint_saved: Vec<(usize, DVec3, DVec3)>,
}
