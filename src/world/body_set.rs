//! Bodies added to and taken out of a running world between frames (`[[sources]]` and
//! `[[sinks]]`, see [`crate::flow`]): where a body may go without overlapping one already
//! there, its insertion, and the removal of bodies with every store renumbered.
//!
//! Both happen only where every body is at the world time: at the end of each step, through
//! the world's [`BodyFlow`] (before the frame's end prepares the next step), or from outside
//! between frames, where the step the last frame prepared ([`World::prepare_next_step`]) is put
//! back first and done again with the new set of bodies, as a frame that starts another step
//! does.
//!
//! An inserted body is appended: every store sized per body grows with the bodies when a stage
//! next needs it. A removal renumbers the bodies left in their order (body i becomes the number
//! of bodies kept before it), so every store keyed by body stays sorted as it was: the per-body
//! stores drop the removed bodies' entries, the per-pair ones (kept bounds, last axes, held
//! pairs, warm-start impulses, the last step's contacts) drop the pairs of a removed body and
//! renumber the others. The broad phase's grid is rebuilt at the next step, as after a
//! checkpoint is loaded (its pairs do not depend on what it kept).

use super::body_log::{Insertion, ProbeRow, Removal};
use super::collide::body_proximity;
use super::World;
use crate::body::{renumber_pair, Body};
use crate::event_heap::PairEvent;
use glam::DVec3;
use rustc_hash::FxHashMap;

/// A removed body's new index.
const GONE: u32 = u32::MAX;

/// What adds bodies to a running world and takes them out, and measures them ([`crate::flow`]):
/// called at the end of every step, every body at the world time.
pub trait BodyFlow: Send {
    /// Inserts and removes bodies at the world's time.
    fn after_step(&mut self, world: &mut World);

    /// The probes' values over the frame that ended at the world's time, appended to `out`.
    fn frame_rows(&mut self, _world: &World, _out: &mut Vec<ProbeRow>) {}
}

impl World {
    /// Installs what adds and removes bodies at each step's end.
    pub fn set_body_flow(&mut self, flow: Box<dyn BodyFlow>) {
        self.flow = Some(flow);
    }

    /// The probes' values over the last frame (empty without an installed [`BodyFlow`]).
    pub fn probe_rows(&self) -> &[ProbeRow] {
        &self.stores.stats.probe_rows
    }

    /// At a frame's end, once its next step is prepared (so that velocities read as frames
    /// report them): the probes' values over the frame, kept for [`Self::probe_rows`].
    pub(super) fn measure_frame(&mut self) {
        if let Some(mut flow) = self.flow.take() {
            let mut rows = std::mem::take(&mut self.stores.stats.probe_rows);
            rows.clear();
            flow.frame_rows(self, &mut rows);
            self.stores.stats.probe_rows = rows;
            self.flow = Some(flow);
        }
    }

    /// Body `i`'s centre-of-mass velocity and angular velocity as frames report them (see
    /// [`World::body_state`]).
    pub fn body_reported_motion(&self, i: usize) -> (DVec3, DVec3) {
        self.stores.bodies[i].reported_motion(self.before_prepared(i))
    }

    /// Body `i`'s kinetic energy with [`Self::body_reported_motion`] (J; 0 unless an awake
    /// dynamic body).
    pub fn body_kinetic_energy(&self, i: usize) -> f64 {
        self.stores.bodies[i].reported_kinetic_energy(self.before_prepared(i))
    }

    /// Runs the installed [`BodyFlow`], if any, at the world time.
    pub(super) fn run_body_flow(&mut self) {
        if let Some(mut flow) = self.flow.take() {
            flow.after_step(self);
            self.flow = Some(flow);
        }
    }

    /// Whether `body` (at the world time) would overlap any body of the world: its box against
    /// theirs, then the narrow phase where the boxes overlap. A pair whose geometry query fails
    /// counts as overlapping: the body is not put where it cannot be measured.
    pub(crate) fn overlaps_any(&self, body: &Body) -> bool {
        let boxed = |b: &Body| {
            b.bounding_radius
                .is_finite()
                .then(|| b.collider.aabb(&b.pose()))
        };
        let own = boxed(body);
        let mut points = Vec::new();
        self.stores.bodies.iter().any(|other| {
            let near = match (own, boxed(other)) {
                (Some((lo, hi)), Some((olo, ohi))) => lo.cmple(ohi).all() && olo.cmple(hi).all(),
                _ => true,
            };
            near && body_proximity(body, other, 0.0, &mut points).map_or(true, |d| d <= 0.0)
        })
    }

    /// Adds `body` to the world at the world time (its clock is set to it), recorded as kind
    /// `kind` of `by`; returns its index.
    pub(crate) fn insert_body(&mut self, mut body: Body, (by, kind): (&str, u32)) -> usize {
        self.undo_prepared();
        let t = self.stores.clock.time;
        body.time = t;
        self.stores.stats.insertions.push(Insertion {
            t,
            body: body.name.clone(),
            by: by.to_string(),
            kind,
        });
        self.stores.bodies.push(body);
        self.stores.stats.counts.inserted += 1;
        self.stores.bodies.len() - 1
    }

    /// Counts a body a source could not place.
    pub(crate) fn note_unplaced(&mut self) {
        self.stores.stats.counts.unplaced += 1;
    }

    /// Whether body `i` may be taken out of the world: a dynamic body without joints (a joint's
    /// articulation is built once for its bodies).
    pub(crate) fn removable(&self, i: usize) -> bool {
        self.stores.bodies[i].is_dynamic() && self.stores.joints.articulation(i).is_none()
    }

    /// The name of body `i` of an impulse taken by [`World::take_events`]: a body of the world,
    /// or one taken out of it since the impulse was recorded.
    pub fn event_body_name(&self, i: u32) -> &str {
        match self.stores.bodies.get(i as usize) {
            Some(b) => &b.name,
            None => self
                .stores
                .stats
                .departed_taken
                .get((u32::MAX - i) as usize)
                .map_or("", String::as_str),
        }
    }

    /// The bodies added since the last call, in the order they were, appended to `out`.
    pub fn take_insertions(&mut self, out: &mut Vec<Insertion>) {
        out.append(&mut self.stores.stats.insertions);
    }

    /// The bodies taken out since the last call, in the order they were, appended to `out`.
    pub fn take_removals(&mut self, out: &mut Vec<Removal>) {
        out.append(&mut self.stores.stats.removals);
    }

    /// Takes the bodies `remove` lists (ascending indices, each [`Self::removable`], with what
    /// takes it out) out of the world, and every store's entries of them; the others are
    /// renumbered in their order (see the module doc). Impulses recorded for a removed body and
    /// not yet taken ([`World::take_events`]) go with it.
    pub(crate) fn remove_bodies(&mut self, remove: &[(usize, String)]) {
        if remove.is_empty() {
            return;
        }
        self.undo_prepared();
        let n = self.stores.bodies.len();
        let mut new_of = vec![0u32; n];
        let t = self.stores.clock.time;
        for (i, by) in remove {
            new_of[*i] = GONE;
            let body = self.stores.bodies[*i].name.clone();
            let by = by.clone();
            self.stores.stats.removals.push(Removal { t, body, by });
        }
        let mut kept = 0u32;
        for slot in &mut new_of {
            if *slot != GONE {
                *slot = kept;
                kept += 1;
            }
        }
        let new_of = &new_of[..];
        let s = &mut self.stores;
        // The deepest overlap keeps its bodies' names once one of them is gone.
        let (time, da, db) = s.stats.deepest_at;
        if s.stats.max_penetration > 0.0 && (da as usize) < n && (db as usize) < n {
            let (mut a, mut b) = (da, db);
            if renumber_pair(new_of, &mut a, &mut b) {
                s.stats.deepest_at = (time, a, b);
            } else {
                let names = [da, db].map(|i| s.bodies[i as usize].name.clone());
                s.stats.deepest_names = Some(names);
                s.stats.deepest_at = (time, GONE, GONE);
            }
        }
        // Per body.
        let keep = |i: usize| new_of[i] != GONE;
        retain_indexed(&mut s.bodies, keep);
        retain_indexed(&mut s.jams.seen, keep);
        retain_indexed(&mut s.jams.smoothed, keep);
        retain_indexed(&mut s.jams.calm, keep);
        retain_indexed(&mut s.jams.reach, keep);
        retain_indexed(&mut s.contacts.cluster.body_stamps, keep);
        retain_indexed(&mut s.contacts.held.by_body, keep);
        for list in &mut s.contacts.held.by_body {
            list.retain_mut(|p| renumber_pair(new_of, &mut p.0, &mut p.1));
        }
        // Per pair.
        let bounds = &mut s.pairs.bounds;
        for kept in [&mut bounds.later, &mut bounds.earlier] {
            rekey(kept, new_of, |ev: &mut PairEvent, (a, b)| {
                (ev.a, ev.b) = (a, b)
            });
        }
        rekey(&mut bounds.last_axis, new_of, |_: &mut DVec3, _| {});
        let held = &mut s.contacts.held;
        rekey(&mut held.pairs, new_of, |_, _| {});
        rekey(&mut held.previous_pairs, new_of, |_, _| {});
        rekey(&mut held.resolves, new_of, |_, _| {});
        let step = &mut s.contacts.step;
        let fast = step.contacts[..step.fast.min(step.contacts.len())]
            .iter()
            .filter(|c| keep(c.a as usize) && keep(c.b as usize))
            .count();
        step.contacts
            .retain_mut(|c| renumber_pair(new_of, &mut c.a, &mut c.b));
        step.fast = fast;
        step.solver.renumber_bodies(new_of);
        s.contacts.cluster.solver.renumber_bodies(new_of);
        // Impulses not yet taken keep a removed body by its name (see `event_body_name`);
        // indices past the bodies are such names already.
        let departed = &mut s.stats.departed;
        let removals = &s.stats.removals[s.stats.removals.len() - remove.len()..];
        for e in &mut s.stats.event_log {
            for i in [&mut e.a, &mut e.b] {
                if (*i as usize) >= n {
                    continue;
                }
                match new_of[*i as usize] {
                    GONE => {
                        // `remove` is ascending, and its removals were recorded in its order.
                        let k = remove.partition_point(|&(j, _)| j < *i as usize);
                        departed.push(removals[k].body.clone());
                        *i = u32::MAX - (departed.len() as u32 - 1);
                    }
                    k => *i = k,
                }
            }
        }
        // Rebuilt for the next step's boxes.
        s.pairs.grid = Default::default();
        s.pairs.boxes.clear();
        s.stats.counts.removed += remove.len() as u64;
    }
}

/// Keeps the entries of `v` whose index `keep` accepts, in order.
fn retain_indexed<T>(v: &mut Vec<T>, keep: impl Fn(usize) -> bool) {
    let mut i = 0;
    v.retain(|_| {
        i += 1;
        keep(i - 1)
    });
}

/// Renumbers the keys of a map by `new_of` ([`renumber_pair`]; and the values' copies of them
/// by `fix`), dropping the pairs of removed bodies.
fn rekey<V>(map: &mut FxHashMap<(u32, u32), V>, new_of: &[u32], fix: impl Fn(&mut V, (u32, u32))) {
    let old = std::mem::take(map);
    map.reserve(old.len());
    for ((mut a, mut b), mut v) in old {
        if renumber_pair(new_of, &mut a, &mut b) {
            fix(&mut v, (a, b));
            map.insert((a, b), v);
        }
    }
}
