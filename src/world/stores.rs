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
//! The bodies (`Vec<Body>`), the settings and the joints are stores of their own, owned by the
//! world beside these.

use super::counts::{Counts, StageTimes};
use super::event_log::ImpulseEvent;
use super::impacts::ImpactScratch;
use super::pair_bound::FirstBound;
use crate::body::BodyHot;
use crate::event_heap::{EventHeap, PairEvent};
use crate::hash_grid::HashGrid;
use crate::narrow_phase::ContactPoint;
use crate::resting_contact::{RestingContact, Solver, TrackedPoint};
use crate::swept_aabb::Aabb;
use glam::DVec3;
use rustc_hash::{FxHashMap, FxHashSet};

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

/// Reusable buffers of the local re-solves and their clusters (no allocation per event).
#[derive(Default)]
pub(super) struct Cluster {
    /// Solver of the local re-solves.
    pub(super) solver: Solver,
    /// The pairs of the ring being solved, in the solve's order.
    pub(super) ring_pairs: Vec<(usize, usize)>,
    /// The bodies on the next ring.
    pub(super) ring_bodies: Vec<usize>,
    /// The ring's contacts.
    pub(super) contacts: Vec<RestingContact>,
    /// Velocities of the ring's bodies before the solve (to see which changed).
    pub(super) velocities_before: Vec<(usize, DVec3, DVec3)>,
    /// The next round's seed pairs with their try numbers.
    pub(super) seeds: Vec<(usize, usize, u32)>,
    /// Every body the cluster moved.
    pub(super) moved: Vec<usize>,
    /// The held pairs at a round's boundary.
    pub(super) candidates: Vec<(usize, usize)>,
    /// The round's ring in pair order.
    pub(super) ring: Vec<(usize, usize)>,
    /// The pairs of the ring being built, as a set.
    pub(super) ring_set: FxHashSet<(usize, usize)>,
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
    /// Buffers of the simultaneous impacts ([`super::impacts`]).
    pub(super) impacts: ImpactScratch,
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

/// Reusable buffers of the event loop and the contact step (no allocation once grown).
#[derive(Default)]
pub(super) struct Scratch {
    /// Contact points of the latest proximity query.
    pub(super) points: Vec<ContactPoint>,
    /// Grid query results.
    pub(super) candidates: Vec<u32>,
    /// The step's candidate pairs.
    pub(super) step_pairs: Vec<(usize, usize)>,
    /// Bodies a contact step touched, or a wake-up woke.
    pub(super) woken: Vec<usize>,
    /// Stack of `World::wake_up`, frontier of `World::solve_rings`.
    pub(super) wake_stack: Vec<usize>,
    /// The popped pair's points, kept while its band crossing is searched for.
    pub(super) crossing_points: Vec<ContactPoint>,
    /// The contact impulses a solve reports.
    pub(super) pushed: Vec<crate::resting_contact::ContactImpulse>,
    /// The bodies `World::rebound_after_change` re-bounds.
    pub(super) changed_bodies: Vec<usize>,
    /// Velocities saved while finding an articulated collision matrix.
    pub(super) joint_saved: Vec<(usize, DVec3, DVec3)>,
    /// Rows of `World::simultaneous_microcollision`.
    pub(super) micro_rows: Vec<super::collide::MicroRow>,
    /// The bodies an impact set moved.
    pub(super) impact_moved: Vec<usize>,
}
