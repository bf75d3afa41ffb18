//! Held pairs and their local re-solves: a pair the contact step holds is handed back to the
//! event machinery only within the held band, where its neighbourhood is solved again from that
//! instant, and a cascade of such re-solves at one instant is solved as one cluster (Bender &
//! Schmitt 2006 §3.1–3.2, locally). See `docs/design.md`, Held pairs and local re-solves, and
//! Clusters.

use super::collide::Rebound;
use super::contact_band::{HELD_BAND, RESTING_MARGIN};
use super::stores::Stores;
use super::EventKind;
use super::Scratch;
use crate::body::SavedVelocity;
use crate::narrow_phase::ContactPoint;
use crate::resting_contact::{tracked_contacts, RestingContact, StepSettings};
use rustc_hash::FxHashSet;

/// Most mid-step re-solves of one held pair in one contact step (see `Stores::resolve_held`).
pub(super) const MAX_RESOLVES: u32 = 4;

/// A held pair's tracked contact points stand in for a new query in a local re-solve while
/// they moved less than this many ε_c relative to each other since the contact step (see
/// [`Stores::resolve_held`]). A feature that was beyond `RESTING_MARGIN`·ε_c then is still
/// beyond `RESTING_MARGIN − TRACKED_SLIDE` = 1 ε_c, twice the target, where a resting approach
/// needs no impulse over a step. Without a limit, points far from where they started mislead
/// the solve (docs/design.md, Held pairs and local re-solves).
pub(super) const TRACKED_SLIDE: f64 = 1.0;

/// Most held pairs in one local re-solve ([`Stores::resolve_held`]).
pub(super) const MAX_LOCAL_PAIRS: usize = 256;

/// Most rounds of local re-solves in one cluster ([`Stores::resolve_cluster`]); a cascade longer
/// than that goes on through the event loop, as every cascade did before clusters.
pub(super) const MAX_CLUSTER_ROUNDS: usize = 16;

/// A pair a local re-solve starts from, with its try number this step: the solve takes that
/// many rings of held pairs around it ([`Stores::solve_rings`]).
#[derive(Clone, Copy)]
pub(super) struct SeedPair {
    pub(super) a: usize,
    pub(super) b: usize,
    pub(super) tries: u32,
}

/// Buffers of the local re-solves and their clusters ([`super::held`]).
#[derive(Default)]
pub(super) struct ClusterScratch {
    /// The next round's seed pairs with their try numbers.
    pub(super) seeds: Vec<SeedPair>,
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
    pub(super) before: Vec<SavedVelocity>,
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

impl Stores {
    /// A held pair that came within `HELD_BAND`·ε_c after all at time `t` (its step's
    /// prediction missed: a new feature, a spin, an unconverged pile, or a collision nearby that
    /// pushed a body into its neighbours). A point approaching faster than a resting contact is
    /// a collision ([`Self::resolve_contacts`]). Otherwise every held pair that shares a body
    /// with this one is measured now and solved together as a contact step of its own from `t`
    /// (Bender & Schmitt §3.2 again, locally), so the bodies move apart at the modest speed that
    /// restores the target separation over a step. Re-solving the pair alone would push a body
    /// wedged between two neighbours from one into the other and back, and reversing the tiny
    /// approach speed (a microcollision) would leave the pair at the band's edge, caught again
    /// and again. Re-bounds every body whose velocity changed; returns true if any did.
    pub(super) fn resolve_held(
        &mut self,
        a: usize,
        b: usize,
        t: f64,
        crossing: bool,
        s: &mut Scratch,
    ) -> bool {
        let eps = self.settings.epsilon;
        let band = self.band(a, b);
        let h = self.clock.contact_step;
        let material = self
            .settings
            .materials
            .pair(self.bodies[a].material, self.bodies[b].material);
        let resting_speed = self.resting_speed(material.restitution, h);
        if self.is_impact(a, b, band, &s.points) {
            // An impact, with every other at this instant that shares its bodies.
            let moved = &mut s.impact_moved;
            moved.clear();
            let (set, response) = (&mut s.impacts, &mut s.response);
            let any = self.resolve_impacts((a, b), t, moved, set, &mut s.points, response);
            if any {
                self.rebound_after_collision(
                    (a, b),
                    t,
                    moved,
                    (&mut s.cluster, &mut s.points, &mut s.rebound),
                );
            }
            return any;
        }
        if self.fast_point(a, b, band, resting_speed, &s.points) {
            // A collision too slow for an impact set: resolved on its own.
            return self.collide_alone(a, b, band, t, s);
        }
        if (self.bodies[a].path.is_some() || self.bodies[b].path.is_some())
            && self.fast_point(a, b, band, 1e-12, &s.points)
        {
            // A fixture on a path does not follow the step's parabola: a contact whose
            // prediction holds at the step's end may still dip into the body mid-step (a
            // plate shaken at 20 g sank parts 1.1 ε_c that way), so an approach inside the
            // band meets the collision rule now (docs/design.md, Prescribed motion).
            return self.collide_alone(a, b, band, t, s);
        }
        // A contact that came to rest during the step is held from now on, as if the step had
        // started with it.
        if band >= eps {
            self.hold(a, b, (0, 0));
        }
        let settings = self.resolve_settings();
        // Nothing to do if the pair's own step-mean motion keeps it apart: it is then bounded
        // like any other pair (this also ends any chain of re-solves).
        if !self.needs_resolve(a, b, material.friction, &settings, &s.points) {
            return false;
        }
        // A pile the local solve cannot settle (it would be solved again at once, forever) gets
        // at most `MAX_RESOLVES` re-solves per pair and step; after that the pair is left to
        // the event machinery's own collision rule, which always terminates.
        let tries = self.contacts.held.count_resolve(a, b);
        if tries > MAX_RESOLVES {
            return self.collide_alone(a, b, band, t, s);
        }
        // A cascade at one instant is resolved here, as one cluster (`resolve_cluster`), and
        // its bodies re-bounded once at its end.
        let c = &mut s.cluster;
        c.seeds.clear();
        c.seeds.push(SeedPair { a, b, tries });
        if crossing {
            // The pairs of its bodies at their own crossing now are handled with it.
            let (cand, points) = (&mut s.rebound.candidates, &mut s.points);
            self.gather_crossings(a, b, t, &mut c.seeds, cand, points);
        }
        let moved = &mut c.moved;
        moved.clear();
        let rounds = self.resolve_cluster(t, &settings, &mut c.seeds, moved, &mut c.ring);
        // The first round is this pair's own re-solve; the others were cascade links.
        self.stats.counts.cluster_resolutions += rounds.saturating_sub(1) as u64;
        let any = !moved.is_empty();
        if any {
            moved.sort_unstable();
            moved.dedup();
            for &i in moved.iter() {
                self.bodies[i].refresh_bounds();
            }
            self.rebound_bodies(moved, t, &mut s.rebound);
            if moved.binary_search(&a).is_err() && moved.binary_search(&b).is_err() {
                // The cluster moved only other bodies, so `rebound_bodies` bounded none of
                // (a, b)'s pairs, and the entry just popped was this pair's only one: without a
                // new bound it would go unwatched until the step's end (docs/design.md,
                // Clusters).
                let d = self.measure(a, b, &mut s.points);
                self.push_fine(a, b, d, t, &s.points);
            }
        }
        if !any {
            // The caller bounds (a, b) from `s.points` and its last axis: the crossings
            // gathered were measured into `s.points`, and the ring measured (a, b) with the
            // resting margin (its last axis with it). Measure (a, b) again: same states, same
            // points and axis as the caller's query.
            self.measure(a, b, &mut s.points);
        }
        any
    }

    /// Local re-solves at `t` from the seed pairs in `seeds`, as one cluster: the
    /// seeds' rings are solved together ([`Self::solve_rings`]), then the held pairs that
    /// solve pushed and the event loop would re-solve at this same instant
    /// ([`Self::pushed_held_pairs`]) are the next round's seeds, until a round pushes none (or
    /// after `MAX_CLUSTER_ROUNDS`, when the rest goes on through the event loop). Appends
    /// every body whose velocity changed to `moved` (unsorted, perhaps repeated) and returns
    /// the number of rounds that changed any; re-bounds nothing: the caller re-bounds them all
    /// from `t` at once.
    ///
    /// Why: most re-solves are set off by another at the same instant, and going link by link
    /// through the heap re-bounds every link's pairs (Bender & Schmitt 2006 §3.1 iterate a
    /// cluster's impulses together instead; docs/design.md, Clusters). No time passes inside a
    /// cluster and every body it moved is re-bounded from `t` after it, so no pair is left
    /// without a conservative bound.
    pub(super) fn resolve_cluster(
        &mut self,
        t: f64,
        settings: &StepSettings,
        seeds: &mut Vec<SeedPair>,
        moved: &mut Vec<usize>,
        ring: &mut Ring,
    ) -> usize {
        let mut rounds = 0;
        for round in 0..MAX_CLUSTER_ROUNDS {
            if seeds.is_empty() {
                break;
            }
            let from = moved.len();
            if self.solve_rings(seeds, t, settings, moved, ring) == 0 {
                break;
            }
            rounds += 1;
            if round + 1 == MAX_CLUSTER_ROUNDS {
                break;
            }
            let (pairs, near) = (&ring.pairs, &mut ring.near);
            self.pushed_held_pairs(&moved[from..], pairs, t, settings, seeds, near);
        }
        seeds.clear();
        rounds
    }

    /// One local re-solve at `t` of the held pairs around the `seeds` (each a pair and its try
    /// number this step) solved together: the ring of held pairs sharing a body with a seed,
    /// and on each further try of that seed one ring more (a wedge the first ring cannot settle
    /// pushes into the next). Only moving bodies pass an impulse on: the rings stop at fixed and
    /// sleeping bodies, which may hold hundreds of pairs that the solve cannot change. Leaves
    /// the solved pairs in `ring.pairs`, appends the bodies whose velocity changed to `moved`
    /// and returns how many there are. Re-bounds nothing.
    pub(super) fn solve_rings(
        &mut self,
        seeds: &[SeedPair],
        t: f64,
        settings: &StepSettings,
        moved: &mut Vec<usize>,
        ring: &mut Ring,
    ) -> usize {
        let eps = self.settings.epsilon;
        self.list_ring(seeds, ring);
        let Ring {
            pairs,
            contacts,
            before,
            pushed,
            points,
            ..
        } = ring;
        contacts.clear();
        let margin = RESTING_MARGIN * eps;
        for &(x, y) in pairs.iter() {
            self.bodies[x].advance_to(t, self.settings.gravity);
            self.bodies[y].advance_to(t, self.settings.gravity);
            // The ring's pairs held since the step's start are taken from their tracked points
            // while those moved less than `TRACKED_SLIDE`·ε_c relative to each other (a
            // prediction needs no new query; a feature that was not within the margin then is
            // still too far for the re-solve to act on). The seeds themselves, a pair that came
            // to rest mid-step, and a pair that moved more, are measured.
            let (bx, by) = (&self.bodies[x], &self.bodies[y]);
            let friction = self
                .settings
                .materials
                .pair(bx.material, by.material)
                .friction;
            let seed = seeds.iter().any(|s| (s.a, s.b) == (x, y));
            let tracked = match self.contacts.held.pairs.get(&(x as u32, y as u32)) {
                Some(&(from, to)) if !seed && from < to => {
                    points.clear();
                    let range = &self.contacts.held.points[from as usize..to as usize];
                    tracked_contacts(range, bx, by, TRACKED_SLIDE * eps, points).is_some()
                }
                _ => false,
            };
            if tracked {
                self.stats.counts.tracked_pairs += 1;
            } else {
                self.measure_within(x, y, margin, points);
            }
            for p in points.iter().filter(|p| p.separation <= margin) {
                contacts.push(RestingContact::at(x, y, p, friction));
            }
        }
        before.clear();
        // Each body once, in order of first appearance, marked by this solve's stamp.
        self.contacts.cluster.ring_stamp = self.contacts.cluster.ring_stamp.wrapping_add(1);
        if self.contacts.cluster.ring_stamp == 0 {
            self.contacts.cluster.body_stamps.fill(0);
            self.contacts.cluster.ring_stamp = 1;
        }
        self.contacts
            .cluster
            .body_stamps
            .resize(self.bodies.len(), 0);
        for &(x, y) in pairs.iter() {
            for i in [x, y] {
                if self.contacts.cluster.body_stamps[i] != self.contacts.cluster.ring_stamp {
                    self.contacts.cluster.body_stamps[i] = self.contacts.cluster.ring_stamp;
                    before.push(SavedVelocity::of(i, &self.bodies[i]));
                }
            }
        }
        pushed.clear();
        let report =
            self.contacts
                .cluster
                .solver
                .solve(&mut self.bodies, contacts, settings, false, |c| {
                    pushed.push(*c)
                });
        self.stats.counts.resolve_point_sweeps += (contacts.len() * report.iterations) as u64;
        for c in pushed.iter() {
            self.note_support(c.a, c.b, c.normal);
        }
        if self.settings.record_events {
            let saved = |i: usize| {
                let s = before.iter().find(|s| s.body == i)?;
                Some((s.velocity, s.angular_velocity))
            };
            self.log_contact_impulses(EventKind::ReSolve, pushed, saved);
        }
        let from = moved.len();
        for saved in before.iter() {
            if saved.changed(&self.bodies) {
                moved.push(saved.body);
            }
        }
        let count = moved.len() - from;
        if count > 0 {
            self.stats.counts.held_resolutions += 1;
            // The pairs that set the re-solve off, not every body it moved: the rule counts
            // events per body, which a large ring would otherwise multiply.
            for &SeedPair { a: x, b: y, .. } in seeds {
                self.bodies[x].count_event();
                self.bodies[y].count_event();
            }
        }
        count
    }

    /// The pairs of the rings around `seeds` into `ring.pairs`, in the solve's order: each
    /// seed, then on each of its tries the held pairs of the frontier's bodies, at most
    /// `MAX_LOCAL_PAIRS` in all (see [`Self::solve_rings`]).
    fn list_ring(&self, seeds: &[SeedPair], ring: &mut Ring) {
        let Ring {
            pairs,
            listed,
            frontier,
            next,
            ..
        } = ring;
        pairs.clear();
        // Which pairs are in already: a set beside the list, whose order is the solve's (a
        // linear search of up to `MAX_LOCAL_PAIRS` pairs per visit is too slow).
        listed.clear();
        for &SeedPair { a, b, tries } in seeds {
            if pairs.len() < MAX_LOCAL_PAIRS && listed.insert((a, b)) {
                pairs.push((a, b));
            }
            frontier.clear();
            frontier.extend(
                [a, b]
                    .into_iter()
                    .filter(|&i| self.bodies[i].is_awake_dynamic()),
            );
            for _ in 0..tries {
                next.clear();
                for &i in frontier.iter() {
                    for &(x, y) in &self.contacts.held.by_body[i] {
                        let (x, y) = (x as usize, y as usize);
                        if pairs.len() < MAX_LOCAL_PAIRS && listed.insert((x, y)) {
                            pairs.push((x, y));
                            let other = if x == i { y } else { x };
                            if self.bodies[other].is_awake_dynamic() {
                                next.push(other);
                            }
                        }
                    }
                }
                // The next ring's bodies become the frontier (a double buffer).
                std::mem::swap(frontier, next);
            }
        }
    }

    /// The held pairs a local re-solve at `t` pushed, which the event loop would re-solve at
    /// this same instant, as the next seeds of the cluster (in `seeds`, replacing them): pairs
    /// of an awake body of `moved` outside the `ring` just solved, both bodies
    /// awake or fixed, that are inside their band, have no point approaching as fast as a
    /// collision (left to the event loop's collision rule), and would end the step short of
    /// half the held band ([`resting_contact::predicted_separation`], as in
    /// [`Self::resolve_held`]), within their `MAX_RESOLVES` tries. A pair apart by more than
    /// its band along its last separating axis is ruled out without a query; the others'
    /// contacts are taken from their tracked points where those moved little, else measured.
    pub(super) fn pushed_held_pairs(
        &mut self,
        moved: &[usize],
        ring: &[(usize, usize)],
        t: f64,
        settings: &StepSettings,
        seeds: &mut Vec<SeedPair>,
        near: &mut Near,
    ) {
        let eps = self.settings.epsilon;
        let margin = RESTING_MARGIN * eps;
        let Near {
            candidates,
            solved,
            points,
        } = near;
        // The moved bodies' held pairs, each once, in pair order, less the ring's (sorted and
        // searched: a ring has up to `MAX_LOCAL_PAIRS` pairs, and a linear search per candidate
        // was most of this function's cost).
        candidates.clear();
        for &i in moved {
            if self.bodies[i].is_awake_dynamic() {
                let held = self.contacts.held.by_body[i].iter();
                candidates.extend(held.map(|&(x, y)| (x as usize, y as usize)));
            }
        }
        candidates.sort_unstable();
        candidates.dedup();
        solved.clear();
        solved.extend_from_slice(ring);
        solved.sort_unstable();
        candidates.retain(|pair| solved.binary_search(pair).is_err());
        seeds.clear();
        for &(x, y) in candidates.iter() {
            if self.bodies[x].asleep || self.bodies[y].asleep {
                continue; // waking is the event loop's (see `process_pair`)
            }
            self.bodies[x].advance_to(t, self.settings.gravity);
            self.bodies[y].advance_to(t, self.settings.gravity);
            let band = self.band(x, y);
            // Apart by more than the band along the pair's last separating axis: farther
            // than the band (the gap along any axis is a lower bound on the distance), so the
            // event loop would not re-solve it now. Most of a ring's neighbours rest near the
            // target, twice the held band, and are ruled out so without a query.
            if self.axis_gap(x, y).is_some_and(|g| g > band) {
                continue;
            }
            let (bx, by) = (&self.bodies[x], &self.bodies[y]);
            let material = self.settings.materials.pair(bx.material, by.material);
            let tracked = match self.contacts.held.pairs.get(&(x as u32, y as u32)) {
                Some(&(from, to)) if from < to => {
                    points.clear();
                    let range = &self.contacts.held.points[from as usize..to as usize];
                    tracked_contacts(range, bx, by, TRACKED_SLIDE * eps, points)
                }
                _ => None,
            };
            let d = match tracked {
                Some(d) => {
                    self.stats.counts.tracked_pairs += 1;
                    d
                }
                None => self.measure_within(x, y, margin, points),
            };
            if d > band {
                continue;
            }
            let resting_speed = self.resting_speed(material.restitution, settings.h);
            if self.fast_point(x, y, band, resting_speed, points)
                || !self.needs_resolve(x, y, material.friction, settings, points)
            {
                continue;
            }
            let tries = self
                .contacts
                .held
                .resolves
                .entry((x as u32, y as u32))
                .or_insert(0);
            if *tries < MAX_RESOLVES {
                *tries += 1;
                seeds.push(SeedPair {
                    a: x,
                    b: y,
                    tries: *tries,
                });
            }
        }
    }

    /// Held pair (a, b) at `t` by the event machinery's own collision rule alone
    /// ([`Self::resolve_contacts`] within `band`), then re-bounded; true if any impulse.
    fn collide_alone(&mut self, a: usize, b: usize, band: f64, t: f64, s: &mut Scratch) -> bool {
        // A collision acts on the bodies' own motion: their push-outs end here.
        let mut any = false;
        for i in [a, b] {
            if self.bodies[i].end_push() {
                any = true;
            }
        }
        let any = self.resolve_contacts(a, b, band, &mut s.points, &mut s.response) || any;
        if any {
            self.rebound_after_collision(
                (a, b),
                t,
                &[],
                (&mut s.cluster, &mut s.points, &mut s.rebound),
            );
        }
        any
    }

    /// After a collision of a and b at `t`, with the bodies `also` (ascending) that the impacts
    /// of the same instant moved (resting contacts as constraints): the held pairs of those
    /// bodies that they pushed and that the event loop would re-solve at this same instant
    /// are re-solved now, as a cluster ([`Self::resolve_cluster`]: most re-solves that are not
    /// set off by another follow a collision at its very instant), and then every body moved
    /// is re-bounded at once ([`Self::rebound_after_change`]).
    pub(super) fn rebound_after_collision(
        &mut self,
        (a, b): (usize, usize),
        t: f64,
        also: &[usize],
        (c, points, rebound): (&mut ClusterScratch, &mut Vec<ContactPoint>, &mut Rebound),
    ) {
        let moved = &mut c.moved;
        moved.clear();
        let settings = self.resolve_settings();
        let hit = &mut c.hit;
        hit.clear();
        hit.extend([a, b].into_iter().chain(also.iter().copied()));
        hit.sort_unstable();
        hit.dedup();
        let near = &mut c.ring.near;
        self.pushed_held_pairs(hit, &[(a, b)], t, &settings, &mut c.seeds, near);
        if !c.seeds.is_empty() {
            // Every re-solve of this cluster is one the event loop no longer does on its own.
            let rounds = self.resolve_cluster(t, &settings, &mut c.seeds, moved, &mut c.ring);
            self.stats.counts.cluster_resolutions += rounds as u64;
            moved.sort_unstable();
            moved.dedup();
            for &i in moved.iter() {
                self.bodies[i].refresh_bounds();
            }
        }
        moved.extend_from_slice(also);
        moved.sort_unstable();
        moved.dedup();
        self.rebound_after_change(a, b, t, moved, points, rebound);
    }

    /// Whether a contact point of pair (a, b) in `points` within `band` approaches at
    /// `resting_speed` or faster: a collision, not a resting contact.
    pub(super) fn fast_point(
        &self,
        a: usize,
        b: usize,
        band: f64,
        resting_speed: f64,
        points: &[ContactPoint],
    ) -> bool {
        points
            .iter()
            .filter(|p| p.separation <= band)
            .any(|p| -self.normal_speed(a, b, p) >= resting_speed)
    }

    /// Whether held pair (a, b), whose contacts are in `points`, needs a local re-solve
    /// with `settings`: a point within the resting margin whose own step-mean motion would
    /// end the step short of half the held band. Hysteresis: the re-solve aims at the full
    /// target, so a pair just re-solved is not caught again by the next small change of its
    /// closest features.
    pub(super) fn needs_resolve(
        &self,
        a: usize,
        b: usize,
        friction: f64,
        settings: &StepSettings,
        points: &[ContactPoint],
    ) -> bool {
        let eps = self.settings.epsilon;
        // Half the pair's own band: a jammed pair's is narrower (`JAMMED_BAND`).
        let floor = 0.5 * self.band(a, b).min(HELD_BAND * eps);
        points
            .iter()
            .filter(|p| p.separation <= RESTING_MARGIN * eps)
            .any(|p| {
                let c = RestingContact::at(a, b, p, friction);
                crate::resting_contact::predicted_separation(&self.bodies, &c, settings) < floor
            })
    }

    /// The settings of a local re-solve of held pairs ([`Self::resolve_held`]): looser than a
    /// contact step's, and restoring the whole shortfall over the step; a ring whose sweeps
    /// stall short of the tolerance is left as it is: more sweeps do not settle it, and the
    /// event loop catches it again if it must (docs/design.md, Held pairs and local re-solves).
    pub(super) fn resolve_settings(&self) -> StepSettings {
        let mut settings = self.step_settings(self.clock.contact_step, 1e-3, 32, 1.0);
        settings.stall_window = 4;
        settings
    }
}
