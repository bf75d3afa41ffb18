//! A world's state, whole, for a checkpoint ([`crate::checkpoint`]): what a world built again
//! from the same scene needs to go on exactly as the saved one would have, bit for bit.
//!
//! Saved: per body the part that moves ([`BodyHot`], and whether it is in a jammed island), and
//! every store but the settings and the joints ([`Stores`]: clock with the prepared contact step,
//! event heap, kept bounds and last axes, swept boxes, contact step with the solver's
//! warm start, held pairs and their tracked points, the local re-solves' stamps, the jam rule's
//! averages, counters, penetration and stage times, impulses not yet taken), the stepper (the
//! LCP method's steps begun) and the parallel event loop's countdown to its next plan.
//!
//! Not saved, and why that changes nothing:
//! - the bodies' shapes, masses, materials and paths, the settings and the joints: the scene
//!   makes them again as they were (a kinematic path is a function of time: its progress is
//!   the body's time and state);
//! - the event loop's buffers (`Scratch`), the stages' buffers and the island stores: each is
//!   cleared or refilled before it is read, or holds stamps whose values only need to be new;
//! - the frame stages (`stages`): not state, the caller installs its backend again;
//! - the broad phase (`Pairs::grid`): each step's seeding resets its listing order before any
//!   query, and its pairs and queries do not depend on the fat boxes it keeps;
//! - capacities and addresses: nothing reads them.
//!
//! Hash maps are written sorted by key (`crate::sorted_map`), so one state makes one file.

use super::stores::Stores;
use super::{Stepper, World};
use crate::body::BodyHot;
use serde::{Deserialize, Serialize};

/// Why a saved state cannot be loaded into a world.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct StateError(pub String);

/// The moving part of one body.
#[derive(Clone, Copy, Serialize, Deserialize)]
struct BodyDynamics {
    hot: BodyHot,
    /// In an island the jam rule steps as a whole over the present contact step.
    jammed: bool,
}

/// A world's state to write ([`World::state`]): borrows the world's stores.
#[derive(Serialize)]
pub struct WorldStateRef<'a> {
    bodies: Vec<BodyDynamics>,
    stores: &'a Stores,
    stepper: &'a Stepper,
    island_skip: u32,
}

/// A world's state read back, to load with [`World::restore_state`]. Fields in the order of
/// [`WorldStateRef`]'s: the encoding is by position.
#[derive(Deserialize)]
pub struct WorldState {
    bodies: Vec<BodyDynamics>,
    stores: Stores,
    stepper: Stepper,
    island_skip: u32,
}

impl WorldState {
    /// The world time of the state (s).
    pub fn time(&self) -> f64 {
        self.stores.clock.time
    }

    /// Number of bodies.
    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }

    /// Checks that the state fits a world of `n` bodies: every per-body list of that length
    /// (or empty where a world starts empty), every body index below `n`, every range of
    /// tracked points inside its list; so that loading it cannot make a later step index out
    /// of bounds.
    fn check(&self, n: usize) -> Result<(), StateError> {
        let fail = |what: &str| Err(StateError(format!("{what} (the world has {n} bodies)")));
        if self.bodies.len() != n {
            return fail(&format!("the state has {} bodies", self.bodies.len()));
        }
        let s = &self.stores;
        let body = |i: u32| (i as usize) < n;
        let pair = |&(a, b): &(u32, u32)| body(a) && body(b);
        let whole = |len: usize| len == 0 || len == n;
        if !whole(s.clock.prepared_from.len())
            || (s.clock.prepared.is_some() && s.clock.prepared_from.len() != n)
        {
            return fail("the prepared step's bodies do not match");
        }
        if !whole(s.pairs.boxes.len()) || !s.pairs.limits.is_empty() {
            return fail("the swept boxes do not match");
        }
        let events_ok = |e: &crate::event_heap::PairEvent| body(e.a) && body(e.b);
        let b = &s.pairs.bounds;
        if !s.pairs.heap.events().all(events_ok)
            || !b.later.iter().all(|(k, e)| pair(k) && events_ok(e))
            || !b.earlier.iter().all(|(k, e)| pair(k) && events_ok(e))
            || !b.last_axis.keys().all(pair)
        {
            return fail("a pair bound names a body out of range");
        }
        let held = &s.contacts.held;
        let ranges = |map: &rustc_hash::FxHashMap<(u32, u32), (u32, u32)>, len: usize| {
            map.iter()
                .all(|(k, &(from, to))| pair(k) && from <= to && to as usize <= len)
        };
        if !ranges(&held.pairs, held.points.len())
            || !ranges(&held.previous_pairs, held.previous_points.len())
            || held.by_body.len() > n
            || !held.by_body.iter().flatten().all(pair)
            || !held.resolves.keys().all(pair)
        {
            return fail("a held pair names a body or tracked point out of range");
        }
        if !s
            .contacts
            .step
            .contacts
            .iter()
            .all(|c| body(c.a) && body(c.b))
            || s.contacts.cluster.body_stamps.len() > n
        {
            return fail("a resting contact names a body out of range");
        }
        let (_, da, db) = s.stats.deepest_at;
        let logged = s.stats.event_log.iter().all(|e| body(e.a) && body(e.b));
        if !(logged && body(da) && body(db)) {
            return fail("a recorded impulse names a body out of range");
        }
        Ok(())
    }
}

impl World {
    /// The world's state, for a checkpoint to write (see the module doc for what it holds).
    /// Between frames; the world is not changed.
    pub fn state(&self) -> WorldStateRef<'_> {
        WorldStateRef {
            bodies: self
                .stores
                .bodies
                .iter()
                .map(|b| BodyDynamics {
                    hot: b.hot(),
                    jammed: b.jammed,
                })
                .collect(),
            stores: &self.stores,
            stepper: &self.stepper,
            island_skip: self.islands.skip,
        }
    }

    /// Loads a state saved by [`World::state`] from a world built from the same scene: from
    /// here on this world computes what the saved one would have, bit for bit. The settings
    /// chosen by the caller (frame stages, event recording, parallel islands) are this world's.
    /// A state that does not fit this world (another body count, an index out of range) is
    /// refused and the world left as it was.
    pub fn restore_state(&mut self, state: WorldState) -> Result<(), StateError> {
        state.check(self.stores.bodies.len())?;
        let WorldState {
            bodies,
            stores,
            stepper,
            island_skip,
        } = state;
        for (body, saved) in self.stores.bodies.iter_mut().zip(&bodies) {
            body.restore(&saved.hot);
            body.jammed = saved.jammed;
        }
        // Destructured, so that a store added later cannot be forgotten here.
        let Stores {
            bodies: _,
            settings: _,
            joints: _,
            clock,
            pairs,
            contacts,
            jams,
            stats,
        } = stores;
        self.stores.clock = clock;
        self.stores.pairs = pairs;
        self.stores.contacts = contacts;
        self.stores.jams = jams;
        self.stores.stats = stats;
        self.stepper = stepper;
        self.islands.skip = island_skip;
        Ok(())
    }
}
