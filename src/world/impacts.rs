//! Simultaneous impacts, resolved independently of the order the heap yields them.
//!
//! A fast impact of a popped pair at `t` is the start of an *impact set*: every pair of the
//! bodies involved whose gap at `t` is within its contact band (ε_c, or the held band) is in
//! contact at that instant, as the event loop would find it within the same instant; of the
//! popped pair, every point within ε_c is (a held pair is popped at its held band, but its
//! other points within ε_c are touching too: a rod slapping down on its pivot end). The set's
//! impulses are found in rounds:
//!
//! - a round takes the contact points approaching at least as fast as a collision (the resting
//!   speed in constraint mode, the microcollision speed otherwise) at the round's start;
//! - one active pair alone is resolved as an isolated collision (Mirtich & Canny §4, eq. 9, in
//!   [`Stores::resolve_contacts`]);
//! - several are solved together: Bender & Schmitt 2006 §3.1's collision loop (Newton's law
//!   u' = −e·u per point, targets fixed from the round's start velocities, accumulated normal
//!   impulses kept ≥ 0) iterated to convergence, then Coulomb friction, each point's tangential
//!   impulse within μ times its normal one, also iterated to convergence. Converged, both are
//!   the unique velocities of a convex problem, so the result does not depend on the points'
//!   order (to the tolerance): mirror-symmetric sets stay mirror-symmetric;
//! - the next round takes the points that approach after it, until none does.
//!
//! Rounds are the propagation of Smith, Kaufman, Vouga, Tamstorf & Grinspun 2012 ("Reflections
//! on simultaneous impact"): a point enters only once it approaches. Solving every touching point
//! of a Newton's cradle in one problem would make the resting contacts rigid and move the whole
//! row; in rounds, the impulse passes ball to ball and exactly one ball leaves.
//!
//! A joint round never adds energy: if Newton's law over the coupled points would (it can, for
//! points that share a body), the round is solved again with e = 0, a projection, which cannot.
//!
//! Impacts slower than `MIN_SET_SPEED` (1 mm/s) are resolved one pair at a time.
//!
//! Time tolerance: impacts are simultaneous when their gaps at the first one's instant are within
//! the contact band, i.e. impacts less than band / (approach speed) apart in time (ε_c = 1 mm at
//! 8 m/s: 0.125 ms). That is the event loop's own tolerance: a pair is resolved at any distance
//! in (0, ε_c].

use super::collide::{normal_speed, Response};
use super::contact_band::RESTING_MARGIN;
use super::round_sweeps::{Convergence, RoundSweeps, Row};
use super::stores::Stores;
use super::EventKind;
use super::RestingContactMode;
use crate::body::SavedVelocity;
use crate::narrow_phase::ContactPoint;
use crate::resting_contact::Colouring;
use crate::stages::collision_round::{CollisionRounds, RoundBody, RoundRow};
use glam::DVec3;
use rustc_hash::FxHashSet;

/// Points of a collision round whose normal speeds one thread takes at a time.
const PARALLEL_SPEEDS: usize = 1024;

/// Most rounds of one impact set; a longer cascade goes on through the event loop.
const MAX_ROUNDS: usize = 64;
/// Slowest approach (m/s) that starts or joins an impact set. Slower impacts are resolved one
/// pair at a time (their order changes velocities by less than 1 mm/s), which keeps a dense
/// pile in zero gravity, where every approach would count as an impact, from gathering the
/// whole pile at every event. Under gravity the resting speed, sqrt(2 g ε_c) and more, is the
/// larger floor.
const MIN_SET_SPEED: f64 = 0.001;
/// An event's impact set: converged to rounding, so its result does not depend on the order.
const EXACT: Convergence = Convergence {
    tolerance: 1e-13,
    max_sweeps: 2_000,
};

/// Reusable buffers of the impact sets (no allocation per event once grown).
#[derive(Default)]
pub(super) struct ImpactScratch {
    /// The set's pairs in contact, each with the range of its points in `points`.
    pairs: Vec<SetPair>,
    pair_set: FxHashSet<(usize, usize)>,
    points: Vec<ContactPoint>,
    /// Bodies whose neighbours were gathered.
    gathered: FxHashSet<usize>,
    frontier: Vec<usize>,
    pub(super) rows: Vec<Row>,
    /// The inelastic pass's impulses per row.
    pub(super) extra: Vec<f64>,
    /// Velocities before a round: to tell which bodies it moved and to undo it.
    pub(super) saved: Vec<SavedVelocity>,
    candidates: Vec<u32>,
    /// The jammed islands' touching points of the step (indices into its contacts) with the
    /// speed that makes each an impact ([`Stores::jammed_points`]), and their normal speeds
    /// in a round.
    island_points: Vec<(u32, f64)>,
    speeds: Vec<f64>,
    /// Whether `speeds` holds this step's speeds as of the last round; per body, the number of
    /// the last round whose rows it was in, and that number.
    speeds_current: bool,
    round_of: Vec<u32>,
    round: u32,
    /// A round packed for a device (`device_round.rs`).
    pub(super) device: DeviceRound,
    /// The host round's bodies and rows as its sweeps use them.
    sweeps: RoundSweeps,
}

/// A pair of an impact set in contact, with its points' range in the set's `points`.
#[derive(Clone, Copy)]
struct SetPair {
    a: usize,
    b: usize,
    points: (usize, usize),
}

impl SetPair {
    fn new(a: usize, b: usize, from: usize, to: usize) -> SetPair {
        SetPair {
            a,
            b,
            points: (from, to),
        }
    }
}

/// A round packed for a device (`device_round.rs`), kept between rounds so that a round
/// allocates nothing once grown.
#[derive(Default)]
pub(super) struct DeviceRound {
    pub(super) colouring: Colouring,
    /// Each pair's first row (in the rows' present order) and its slots, and the rows
    /// gathered in colour order.
    pub(super) runs: Vec<(u32, u32)>,
    pub(super) slots: Vec<(u32, u32)>,
    pub(super) gathered: Vec<Row>,
    /// The round's bodies (indices into the world's), and each world body's index among
    /// them (`u32::MAX`: not in the round).
    pub(super) bodies: Vec<usize>,
    pub(super) index: Vec<u32>,
    /// Each round body's colouring slot (moving ones numbered, still ones flagged).
    pub(super) slot_of: Vec<u32>,
    pub(super) rows: Vec<RoundRow>,
    pub(super) packed: Vec<RoundBody>,
    pub(super) pairs: Vec<u32>,
    pub(super) starts: Vec<u32>,
}

impl Stores {
    /// The approach speed at which a point of pair (x, y) is an impact rather than a resting
    /// contact or a microcollision.
    fn impact_speed(&self, x: usize, y: usize) -> f64 {
        let speed = match self.settings.resting_mode {
            RestingContactMode::Constraints => {
                let (bx, by) = (&self.bodies[x], &self.bodies[y]);
                let e = self
                    .settings
                    .materials
                    .pair(bx.material, by.material)
                    .restitution;
                self.resting_speed(e, self.clock.contact_step)
            }
            RestingContactMode::Microcollisions => self.settings.micro_speed,
        };
        speed.max(MIN_SET_SPEED)
    }

    /// Whether pair (a, b), just measured into `points` within `band`, has a point that
    /// approaches as fast as an impact.
    pub(super) fn is_impact(&self, a: usize, b: usize, band: f64, points: &[ContactPoint]) -> bool {
        let fast = self.impact_speed(a, b);
        points
            .iter()
            .filter(|p| p.separation <= band)
            .map(|p| self.normal_speed(a, b, p))
            .any(|un| un < -1e-12 && -un >= fast)
    }

    /// Resolves the impact set that pair (a, b) starts at `t` (see the module doc): (a, b) was
    /// just measured into `points` and [`Self::is_impact`] holds. Appends every body whose
    /// velocity changed to `moved` (sorted, each once) and refreshes their spin bounds;
    /// re-bounds nothing. Returns true if any velocity changed (an impulse, or a push-out ended).
    pub(super) fn resolve_impacts(
        &mut self,
        (a, b): (usize, usize),
        t: f64,
        moved: &mut Vec<usize>,
        set: &mut ImpactScratch,
        points: &mut Vec<ContactPoint>,
        response: &mut Response,
    ) -> bool {
        set.pairs.clear();
        set.pair_set.clear();
        set.points.clear();
        set.gathered.clear();
        set.frontier.clear();
        // The popped pair's points, then its bodies' neighbours in contact. A held pair is
        // popped within its held band, but every point within the contact band ε_c is in
        // contact at this instant: the pivot end of a rod slapping down (a few µm short of the
        // held band) must take its share of the impact, friction included, not be left to a
        // re-solve after it (the rod then kept twice its speed).
        let band = self.settings.epsilon;
        let from = set.points.len();
        set.points
            .extend(points.iter().filter(|p| p.separation <= band).copied());
        set.pairs.push(SetPair::new(a, b, from, set.points.len()));
        set.pair_set.insert((a, b));
        set.frontier.extend([a, b]);
        let mut any = false;
        for _ in 0..MAX_ROUNDS {
            self.gather_contacts(set, t, points);
            // The round's active points, and how many pairs they belong to.
            set.rows.clear();
            let mut active_pairs = 0;
            let mut last_active = 0;
            for (
                k,
                &SetPair {
                    a: x,
                    b: y,
                    points: (from, to),
                },
            ) in set.pairs.iter().enumerate()
            {
                // A collision acts on the bodies' own motion: their push-outs end here
                // (`resting_contact::push_apart`; an impulse computed with them would keep them).
                for i in [x, y] {
                    if self.bodies[i].take_push().is_some() {
                        moved.push(i);
                    }
                }
                let fast = self.impact_speed(x, y);
                let before = set.rows.len();
                for p in &set.points[from..to] {
                    let un = self.normal_speed(x, y, p);
                    // Approaching (beyond rounding: `resolve_contacts`' test), and as fast as
                    // an impact.
                    if un < -1e-12 && -un >= fast {
                        set.rows.push(self.impact_row(x, y, p, un));
                    }
                }
                if set.rows.len() > before {
                    active_pairs += 1;
                    last_active = k;
                }
            }
            if active_pairs == 0 {
                break;
            }
            // Save the velocities of the round's bodies.
            set.saved.clear();
            for r in &set.rows {
                for i in [r.a, r.b] {
                    if !set.saved.iter().any(|v| v.body == i) {
                        set.saved.push(SavedVelocity::of(i, &self.bodies[i]));
                    }
                }
            }
            if active_pairs == 1 {
                // An isolated collision: Mirtich & Canny's integration of eq. 9.
                let SetPair {
                    a: x,
                    b: y,
                    points: (from, to),
                } = set.pairs[last_active];
                // The pair's points within its band, and those beyond it (within ε_c) that
                // approach as fast as an impact: a held pair's slow points out there are
                // resting contacts, left to the contact step (as microcollisions they would
                // chatter), but a fast one is part of this impact.
                let (band, fast) = (self.band(x, y), self.impact_speed(x, y));
                points.clear();
                points.extend(
                    set.points[from..to]
                        .iter()
                        .filter(|p| p.separation <= band || -self.normal_speed(x, y, p) >= fast),
                );
                if !self.resolve_contacts(x, y, self.settings.epsilon, points, response) {
                    break;
                }
            } else {
                self.stats.counts.simultaneous_impacts += 1;
                self.stats.counts.collisions += active_pairs as u64;
                for r in &set.rows {
                    self.bodies[r.a].count_event();
                    self.bodies[r.b].count_event();
                }
                self.joint_round(set, 1.0, EXACT);
            }
            any = true;
            // The bodies the round moved: their neighbours in contact join the set.
            for saved in &set.saved {
                if saved.changed(&self.bodies) {
                    let i = saved.body;
                    moved.push(i);
                    if !set.gathered.contains(&i) {
                        set.frontier.push(i);
                    }
                }
            }
        }
        moved.sort_unstable();
        moved.dedup();
        for &i in moved.iter() {
            self.bodies[i].refresh_bounds();
        }
        any || !moved.is_empty()
    }

    /// Adds to the set every pair that an awake dynamic body of the frontier forms with a body
    /// near its box, whose gap at `t` is within the pair's band (their points within it).
    fn gather_contacts(&mut self, set: &mut ImpactScratch, t: f64, points: &mut Vec<ContactPoint>) {
        while let Some(i) = set.frontier.pop() {
            if !set.gathered.insert(i) || !self.bodies[i].is_awake_dynamic() {
                continue;
            }
            // The box to the step's end grown by the widest band: a body within the band of this
            // one now may have a swept box that does not meet its own.
            let bx = self.pairs.boxes[i].grown(self.settings.epsilon);
            self.pairs
                .grid
                .query(i, &bx, &self.pairs.boxes, &mut set.candidates);
            for &j in &set.candidates {
                let j = j as usize;
                let (x, y) = (i.min(j), i.max(j));
                if j == i || set.pair_set.contains(&(x, y)) || !self.pair_matters(x, y) {
                    continue;
                }
                if self.bodies[x].asleep || self.bodies[y].asleep {
                    continue; // waking is the event loop's (`process_pair`)
                }
                self.bodies[j].advance_to(t, self.settings.gravity);
                let band = self.band(x, y);
                // Apart by more than the band along the last separating axis: not in contact
                // (the gap along any axis is a lower bound on the distance).
                if self.axis_gap(x, y).is_some_and(|g| g > band) {
                    continue;
                }
                let d = self.measure_within(x, y, band, points);
                set.pair_set.insert((x, y));
                if d <= band {
                    let from = set.points.len();
                    set.points
                        .extend(points.iter().filter(|p| p.separation <= band).copied());
                    set.pairs.push(SetPair::new(x, y, from, set.points.len()));
                }
            }
        }
    }

    /// One collision round of the jammed islands' step (`island_step.rs`): every point
    /// [`Self::jammed_points`] listed that approaches as fast as an impact, solved
    /// together as a joint round (Newton's law, Coulomb friction, the inelastic pass and the
    /// energy guard) to `convergence`. Returns the round's points (0: none approached).
    ///
    /// `device`, where the frame stages run on one, solves the round there
    /// (`Stores::device_joint_round`).
    pub(super) fn collision_round(
        &mut self,
        set: &mut ImpactScratch,
        convergence: Convergence,
        device: Option<&mut (dyn CollisionRounds + '_)>,
    ) -> usize {
        use rayon::prelude::*;
        set.rows.clear();
        // The points' normal speeds are independent reads: on all cores for a large island.
        // After the first round only the points of bodies in the last round's rows are read
        // again: no time passes between rounds, and only a round's bodies change velocity.
        let (bodies, contacts) = (&self.bodies, &self.contacts.step.contacts);
        let speed = |&(k, _): &(u32, f64)| {
            let c = &contacts[k as usize];
            normal_speed(bodies, c.a as usize, c.b as usize, &c.point())
        };
        if set.speeds_current {
            let (round_of, round) = (&set.round_of, set.round);
            let moved = |k: u32| {
                let c = &contacts[k as usize];
                round_of[c.a as usize] == round || round_of[c.b as usize] == round
            };
            set.island_points
                .par_iter()
                .zip(set.speeds.par_iter_mut())
                .with_min_len(PARALLEL_SPEEDS)
                .filter(|(p, _)| moved(p.0))
                .for_each(|(p, un)| *un = speed(p));
        } else {
            set.island_points
                .par_iter()
                .with_min_len(PARALLEL_SPEEDS)
                .map(speed)
                .collect_into_vec(&mut set.speeds);
            set.speeds_current = true;
        }
        for (&(k, fast), &un) in set.island_points.iter().zip(&set.speeds) {
            if un < -1e-12 && -un >= fast {
                let c = self.contacts.step.contacts[k as usize];
                set.rows
                    .push(self.impact_row(c.a as usize, c.b as usize, &c.point(), un));
            }
        }
        if set.rows.is_empty() {
            return 0;
        }
        set.saved.clear();
        set.gathered.clear();
        for k in 0..set.rows.len() {
            let (a, b) = (set.rows[k].a, set.rows[k].b);
            // A pair's collision counts once for the switch rule however many of its points
            // collide, as one event would (a pair's points are next to each other).
            let first = k == 0 || (set.rows[k - 1].a, set.rows[k - 1].b) != (a, b);
            for i in [a, b] {
                let body = &mut self.bodies[i];
                if first {
                    body.count_event();
                }
                if set.gathered.insert(i) {
                    set.saved.push(SavedVelocity::of(i, body));
                }
            }
        }
        set.round = set.round.wrapping_add(1);
        set.round_of.resize(self.bodies.len(), 0);
        if set.round == 0 {
            set.round_of.fill(0);
            set.round = 1;
        }
        for saved in &set.saved {
            set.round_of[saved.body] = set.round;
        }
        // A round too small to repay a device call is solved on the host (`DEVICE_MIN_ROWS`).
        match device.filter(|_| set.rows.len() >= self.settings.device_minimums.1) {
            Some(device) => self.device_joint_round(set, convergence, device),
            None => self.joint_round(set, 1.0, convergence),
        }
        set.rows.len()
    }

    /// Lists in `set` the step's contact points that the jammed islands' collision rounds
    /// test ([`Self::collision_round`]): those of a jammed pair within the resting margin
    /// (speculative contacts, farther, are not touching yet: the contact solve stops them at
    /// the target instead), each with the approach speed that makes it an impact. Neither
    /// changes over the step's rounds, which only change velocities.
    pub(super) fn jammed_points(&self, set: &mut ImpactScratch) {
        set.island_points.clear();
        set.speeds_current = false;
        let margin = RESTING_MARGIN * self.settings.epsilon;
        for (k, c) in self.contacts.step.contacts.iter().enumerate() {
            let (x, y) = (c.a as usize, c.b as usize);
            if c.separation <= margin && self.jammed_pair(x, y) {
                set.island_points.push((k as u32, self.impact_speed(x, y)));
            }
        }
    }

    /// A joint round's row for point `p` of pair (x, y), approaching at normal speed `un` < 0.
    /// Keeps both bodies' world inverse inertia: the round's impulses read it again.
    pub(super) fn impact_row(&mut self, x: usize, y: usize, p: &ContactPoint, un: f64) -> Row {
        self.bodies[x].refresh_inertia();
        self.bodies[y].refresh_inertia();
        let (bx, by) = (&self.bodies[x], &self.bodies[y]);
        let material = self.settings.materials.pair(bx.material, by.material);
        let k = crate::collision_impulse::collision_matrix(
            bx.effective_inv_mass(),
            &bx.inv_inertia_world(),
            p.position - bx.position,
            by.effective_inv_mass(),
            &by.inv_inertia_world(),
            p.position - by.position,
        );
        Row {
            a: x,
            b: y,
            point: *p,
            target: -material.restitution * un,
            approach: un,
            k,
            mass: 1.0 / p.normal.dot(k * p.normal),
            friction: material.friction,
            normal: 0.0,
            tangent: DVec3::ZERO,
        }
    }

    /// The largest target speed of the round's rows (its scale for the tolerance).
    pub(super) fn round_scale(set: &ImpactScratch) -> f64 {
        set.rows
            .iter()
            .map(|r| r.target.abs())
            .fold(0.0, f64::max)
            .max(1e-300)
    }

    /// The kinetic energy of the bodies a round moves (those in `saved`).
    pub(super) fn round_energy(&self, saved: &[SavedVelocity]) -> f64 {
        saved
            .iter()
            .map(|s| self.bodies[s.body].kinetic_energy())
            .sum()
    }

    /// Whether a round gained energy (a NaN counts as a gain).
    pub(super) fn gained(before: f64, after: f64) -> bool {
        after.is_nan() || after > before * (1.0 + 1e-12) + 1e-15
    }

    /// Puts every body of the round back to its velocity before it.
    pub(super) fn restore_round(&mut self, set: &ImpactScratch) {
        for saved in &set.saved {
            saved.restore(&mut self.bodies);
        }
    }

    /// Logs the round's impulses (with `record_events`).
    pub(super) fn log_round(&mut self, set: &ImpactScratch) {
        if self.settings.record_events {
            for (r, extra) in set.rows.iter().zip(&set.extra) {
                let (p, jn, jt) = (r.point, r.normal + extra, r.tangent.length());
                let kind = EventKind::Collision;
                self.push_event(kind, (r.a, r.b), p.position, p.normal, (jn, jt), r.approach);
            }
        }
    }

    /// Solves the round's rows together (see the module doc) with restitution scaled by
    /// `restitution` (1: the materials'; 0: perfectly inelastic).
    pub(super) fn joint_round(
        &mut self,
        set: &mut ImpactScratch,
        restitution: f64,
        convergence: Convergence,
    ) {
        let before = self.round_energy(&set.saved);
        let scale = Self::round_scale(set);
        for r in &mut set.rows {
            r.target *= restitution;
            r.normal = 0.0;
            r.tangent = DVec3::ZERO;
        }
        // The sweeps run on the round's own bodies (`round_sweeps`), written back after.
        set.sweeps.gather(&self.bodies, &set.saved, &set.rows);
        let (rows, extra) = (&mut set.rows, &mut set.extra);
        extra.clear();
        extra.resize(rows.len(), 0.0);
        // Bender & Schmitt §3.1: impulses toward each point's target, their sum kept >= 0.
        set.sweeps
            .normal_sweeps(rows, extra, scale, false, convergence);
        // Coulomb friction: each point's tangential impulse toward sticking, within μ times its
        // normal impulse (the maximal dissipation of a fixed normal load, a convex problem).
        set.sweeps.friction_sweeps(rows, scale, convergence);
        // Friction turns the bodies, which may leave a point approaching again: a last
        // inelastic pass (targets 0, impulses only pushing) ends the round with none
        // approaching, so rounds end; a projection, it adds no energy.
        extra.fill(0.0);
        set.sweeps
            .normal_sweeps(rows, extra, scale, true, convergence);
        set.sweeps.scatter(&mut self.bodies, &set.saved);
        let after = self.round_energy(&set.saved);
        if Self::gained(before, after) && restitution > 0.0 {
            self.restore_round(set);
            self.joint_round(set, 0.0, convergence);
            return;
        }
        self.log_round(set);
    }
}
