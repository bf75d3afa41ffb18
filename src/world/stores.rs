//! The world's stores: what the frame loop's stages read and write, each store one noun (after
//! Box2D v3's solver sets and Rapier's sets). The stages are functions in the files named for
//! them; this file holds only the data.
//!
//! - [`Clock`]: the world time, the present step's end and the contact step's length.
//! - [`Pairs`]: the event heap, the kept bounds and last axes, the swept boxes and their grid.
//! - [`Contacts`]: the contact step, the held pairs, the local re-solves' clusters and the
//!   impact sets.
//! - [`Jams`]: which islands the switch rule steps as a whole.
//! - [`RunStats`]: what the run reports (counters, penetration, impulses, stage times).
//!
//! [`Stores`] gathers them with the bodies, the settings and the joints: what an event loop runs
//! over, the world's own or an island's subset ([`super::islands`]). The reusable buffers
//! ([`super::Scratch`]) stay apart from them, so that a stage can hold a buffer while it calls
//! another stage.

use super::counts::{Counts, StageTimes};
use super::event_log::ImpulseEvent;
use super::settings::Settings;
use crate::body::{Body, BodyHot};
use crate::event_heap::{EventHeap, PairEvent};
use crate::hash_grid::HashGrid;
use crate::joints::Joints;
use crate::resting_contact::{RestingContact, Solver, TrackedPoint};
use crate::swept_aabb::Aabb;
use glam::DVec3;
use rustc_hash::FxHashMap;

/// What an event loop runs over: the world's stores, or an island's subset of them.
///
/// A checkpoint ([`super::saved_state`]) writes them all but the bodies (of which it keeps
/// what changes, [`crate::body::BodyHot`]), the settings and the joints, which the scene makes
/// again as they were.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Stores {
    #[serde(skip)]
    pub(super) bodies: Vec<Body>,
    /// What the scene fixed for the whole run (cloned into island stores).
    #[serde(skip)]
    pub(super) settings: Settings,
    pub(super) clock: Clock,
    /// Which pair is measured when: heap, kept bounds, last axes, swept boxes and their grid.
    pub(super) pairs: Pairs,
    /// The joints and their articulations ([`crate::joints`]).
    #[serde(skip)]
    pub(super) joints: Joints,
    /// Resting contact as constraints: contact step, held pairs, clusters, impact sets.
    pub(super) contacts: Contacts,
    /// Which islands are jammed this contact step (the world's stores only).
    pub(super) jams: Jams,
    pub(super) stats: RunStats,
}

/// The jammed-island switch rule's state, per body (see `world/jam.rs`).
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Jams {
    /// Each body's `activity` when the rule last read it.
    pub(super) seen: Vec<u32>,
    /// Each body's activity per contact step, smoothed (`jam::SMOOTHING`).
    pub(super) smoothed: Vec<f64>,
    /// Contact steps its island has been calm while stepped.
    pub(super) calm: Vec<u8>,
    /// Whether any body is jammed over the present contact step.
    pub(super) any: bool,
    /// Start of the contact step the rule last decided: a step redone from the same instant
    /// (`World::step` putting back a prepared step) keeps the decision.
    pub(super) decided_at: Option<f64>,
    /// How far each body of a jammed island can move over the present contact step (m; 0 for
    /// the others), by which its pairs' contacts reach ahead (speculative contacts).
    pub(super) reach: Vec<f64>,
    /// Union–find parents of the islands (scratch, refilled before use: not saved).
    #[serde(skip)]
    pub(super) parent: Vec<u32>,
    /// Per island root, what the jam rule reads of its bodies (scratch).
    #[serde(skip)]
    pub(super) tally: Vec<IslandTally>,
    /// Per body, what the jam rule reads of it (scratch).
    #[serde(skip)]
    pub(super) state: Vec<BodyJam>,
}

/// What the jam rule (`world/jam.rs`) reads of a body.
#[derive(Clone, Copy)]
pub(super) struct BodyJam {
    pub(super) awake: bool,
    pub(super) jammed: bool,
    pub(super) activity: u32,
}

/// What the jam rule (`world/jam.rs`) reads of an island's awake bodies.
#[derive(Clone, Copy, Default)]
pub(super) struct IslandTally {
    /// How many there are.
    pub(super) bodies: u32,
    /// The sum of their smoothed activities (events per contact step).
    pub(super) activity: f64,
    /// Whether any was jammed over the last contact step.
    pub(super) was_jammed: bool,
    /// The most contact steps any of them has been calm while stepped.
    pub(super) calm: u8,
}

/// The world's clock.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Clock {
    /// The world time: every body is there between steps (s).
    pub(super) time: f64,
    /// End of the present step (s).
    pub(super) frame_end: f64,
    /// Present contact step length h (s), within `settings.contact_step_range` (see
    /// [`Stores::adapt_step_length`](super::World)).
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
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Pairs {
    /// Each pair's conservative lower bound on its time of impact in the present step.
    pub(super) heap: EventHeap,
    /// The host's broad phase over the present swept boxes, queried after every impulse. Not
    /// in a checkpoint: the step's seeding resets it before any query, and its pairs and
    /// queries do not depend on what it kept from earlier steps.
    #[serde(skip)]
    pub(super) grid: HashGrid,
    /// Each body's swept box to the step's end.
    pub(super) boxes: Vec<Aabb>,
    /// Kept bounds and last separating axes ([`super::bounds`]).
    pub(super) bounds: BoundStore,
    /// In an island's stores: per body, the box it must stay inside (empty elsewhere).
    pub(super) limits: Vec<Aabb>,
    /// In an island's stores: a body's box left its limit, so the run is void.
    pub(super) escaped: bool,
    /// Tests only: watches that every popped pair gets a new bound.
    #[cfg(test)]
    #[serde(skip)]
    pub(super) watch: Option<BoundWatch>,
}

/// The bounds kept across steps and the pairs' last separating axes.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(super) struct BoundStore {
    /// Bounds that fell beyond the current step's end, kept per pair for the next steps: a
    /// bound stays valid while both bodies keep the versions it was computed with (their
    /// trajectories are unchanged), so a pair the step left alone is not bounded afresh.
    #[serde(with = "crate::sorted_map")]
    pub(super) later: FxHashMap<(u32, u32), PairEvent>,
    /// The previous step's `later`, consumed while seeding the next step.
    #[serde(with = "crate::sorted_map")]
    pub(super) earlier: FxHashMap<(u32, u32), PairEvent>,
    /// Per pair (a < b), the normal of its last proximity query: a separating axis to bound
    /// the pair from when one of its bodies changes velocity (see [`Stores::push_bound`]).
    #[serde(with = "crate::sorted_map")]
    pub(super) last_axis: FxHashMap<(u32, u32), DVec3>,
}

/// The contact step's state.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(super) struct ContactStep {
    /// The present step's resting contacts, in pair order.
    pub(super) contacts: Vec<RestingContact>,
    /// Its solver (keeps the last step's impulses for the warm start).
    pub(super) solver: Solver,
    /// `(step_point_sweeps, resolve_point_sweeps)` at the present frame's start.
    pub(super) work_at_frame_start: (u64, u64),
    /// Of `contacts`, the points of jammed islands that approach as fast as a collision: the
    /// step's collision rounds take them first (`world/island_step.rs`).
    pub(super) fast: usize,
}

/// The pairs the present contact step holds, and the previous step's.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(super) struct HeldPairs {
    /// Pairs (a < b) whose contacts the current contact step holds, each with the range of
    /// its tracked points in `points` (empty for a pair that came to rest mid-step).
    #[serde(with = "crate::sorted_map")]
    pub(super) pairs: FxHashMap<(u32, u32), (u32, u32)>,
    /// The held pairs' contact points within `RESTING_MARGIN`·ε_c at the contact step's start,
    /// tracked on their bodies (see [`TrackedPoint`]).
    pub(super) points: Vec<TrackedPoint>,
    /// The previous contact step's `pairs` and `points`: a pair held then whose points moved
    /// little since they were measured takes its contacts from them (see
    /// `contact_step::REUSED_SLIDE`).
    #[serde(with = "crate::sorted_map")]
    pub(super) previous_pairs: FxHashMap<(u32, u32), (u32, u32)>,
    pub(super) previous_points: Vec<TrackedPoint>,
    /// The held pairs of each body (this step).
    pub(super) by_body: Vec<Vec<(u32, u32)>>,
    /// Mid-step re-solves per held pair (this step).
    #[serde(with = "crate::sorted_map")]
    pub(super) resolves: FxHashMap<(u32, u32), u32>,
}

impl HeldPairs {
    /// Counts one more mid-step re-solve of pair (a < b) this step; returns its number.
    pub(super) fn count_resolve(&mut self, a: usize, b: usize) -> u32 {
        let tries = self.resolves.entry((a as u32, b as u32)).or_insert(0);
        *tries += 1;
        *tries
    }
}

/// The local re-solves' state kept across events: their solver (its impulses warm-start the
/// next re-solve) and which bodies the present ring has listed.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Cluster {
    /// Solver of the local re-solves.
    pub(super) solver: Solver,
    /// Per body, the stamp of the last local re-solve that listed it, and that stamp.
    pub(super) body_stamps: Vec<u32>,
    pub(super) ring_stamp: u32,
}

/// Resting contact as constraints: the contact step, the pairs it holds, and the local
/// re-solves and impact sets of the event loop.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Contacts {
    pub(super) step: ContactStep,
    pub(super) held: HeldPairs,
    pub(super) cluster: Cluster,
}

/// What the run reports.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(super) struct RunStats {
    pub(super) counts: Counts,
    /// Largest penetration depth seen at any event or frame (m, >= 0).
    pub(super) max_penetration: f64,
    /// Where `max_penetration` was measured: the time and the pair (a < b).
    pub(super) deepest_at: (f64, u32, u32),
    /// The names of `deepest_at`'s bodies once one of them has been removed from the world
    /// (its indices then `u32::MAX`).
    pub(super) deepest_names: Option<[String; 2]>,
    /// Bodies taken out of the world since [`super::World::take_removals`] last took them. Not in
    /// a checkpoint: a run that removes bodies is not checkpointed.
    #[serde(skip)]
    pub(super) removals: Vec<super::body_log::Removal>,
    /// Bodies added since [`super::World::take_insertions`] last took them (not in a checkpoint,
    /// as `removals`).
    #[serde(skip)]
    pub(super) insertions: Vec<super::body_log::Insertion>,
    /// The probes' values over the last frame ([`super::World::probe_rows`]).
    #[serde(skip)]
    pub(super) probe_rows: Vec<super::body_log::ProbeRow>,
    /// Names of removed bodies that impulses of `event_log` name (index `u32::MAX - k` for
    /// entry k), and those of the impulses last taken ([`super::World::event_body_name`]).
    #[serde(skip)]
    pub(super) departed: Vec<String>,
    #[serde(skip)]
    pub(super) departed_taken: Vec<String>,
    /// Impulses recorded since the last `World::take_events` (when `settings.record_events`).
    pub(super) event_log: Vec<ImpulseEvent>,
    pub(super) stage_times: StageTimes,
    /// The first geometry query that failed since the frame loop last looked
    /// ([`Stores::take_geometry_failure`]). Not in a checkpoint: the frame loop takes it before
    /// the frame ends, where checkpoints are written.
    #[serde(skip)]
    pub(super) geometry_failure: Option<super::counts::GeometryFailure>,
}

/// Tests only: the pairs whose latest bound is not yet popped, with the bodies' versions it was
/// computed with (see `world/tests.rs`, every_popped_pair_gets_a_new_bound).
#[cfg(test)]
#[derive(Default)]
pub(super) struct BoundWatch {
    pub(super) unpopped: FxHashMap<(u32, u32), (u32, u32)>,
}
