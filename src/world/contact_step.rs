//! The contact step (Bender & Schmitt 2006 §3.2): at each step's start the resting contacts are
//! found, solved together as constraints over the step, and their pairs held; the step's length
//! adapts frame by frame to the work of the local re-solves. See `docs/design.md`, Resting
//! contact as constraints.

use super::collide::body_proximity;
use super::contact_band::{RESTING_MARGIN, RESTING_TARGET};
use super::counts::GeometryFailure;
use super::pair_bound::axis_gap;
use super::stores::Stores;
use super::swept_boxes::{fill_boxes, PARALLEL_BOXES};
use super::EventKind;
use super::Scratch;
use crate::body::Body;
use crate::narrow_phase::ContactPoint;
use crate::resting_contact::{
    tracked_contacts, RestingContact, StepSettings, Sweeps, TrackedPoint,
};
use crate::stages::contact_sweep::ContactSweeps;
use crate::stages::FrameStages;
use crate::swept_aabb::Aabb;
use glam::DVec3;

/// A pair the previous contact step held takes this step's contacts from its tracked points
/// while they moved less than this many ε_c relative to each other since they were measured
/// (see [`Stores::measure_pairs`]). Tighter than `TRACKED_SLIDE`: the step's contacts decide
/// which pairs are held for a whole step, where a local re-solve only chooses impulses.
pub(super) const REUSED_SLIDE: f64 = 0.25;

/// Floor of the restitution in [`Stores::resting_speed`]: contacts up to 10 microcollision speeds
/// (1.4 m/s at ε_c = 1 mm) may be held, never faster ones.
pub(super) const MIN_RESTING_RESTITUTION: f64 = 0.1;

/// Pairs per parallel task when the contact step measures its candidate pairs.
pub(super) const MEASURE_CHUNK: usize = 64;

impl Stores {
    /// The contact step (every body at its start): finds the contact points that are resting
    /// (within `RESTING_MARGIN`·ε_c, approaching slower than the microcollision speed plus what
    /// gravity adds over `h`), solves them together as constraints over the step
    /// ([`crate::resting_contact`]) and marks their pairs as held, so the event machinery only
    /// steps in for them within `HELD_BAND`·ε_c.
    ///
    /// With `jammed_islands = "step"`, the islands the switch rule calls jammed
    /// ([`Stores::decide_jams`]) take every contact point within the margin, colliding or not:
    /// their collisions are resolved first, in rounds over the whole island
    /// ([`Stores::collide_jammed`], Bender & Schmitt §3.1), then their contacts are solved with
    /// the rest (§3.2).
    ///
    /// `device`, where the frame stages run on one, solves the jammed islands' collision
    /// rounds (`device_round.rs`) and sweeps the step's contacts
    /// ([`crate::resting_contact::Sweeps::Device`]).
    pub(super) fn resting_contact_step(
        &mut self,
        h: f64,
        s: &mut Scratch,
        mut device: Option<&mut (dyn FrameStages + '_)>,
    ) {
        let clock = std::time::Instant::now();
        self.decide_jams(self.clock.time);
        let mut jam_time = clock.elapsed().as_secs_f64();
        let gathering = std::time::Instant::now();
        self.gather_resting_contacts(h, &mut s.step_pairs, &mut s.measured);
        self.stats.stage_times.contact_gather += gathering.elapsed().as_secs_f64();
        if self.contacts.step.contacts.is_empty() {
            self.note_jam_time(jam_time);
            return;
        }
        if self.contacts.step.fast > 0 {
            let clock = std::time::Instant::now();
            let rounds = device.as_deref_mut().and_then(|d| d.collision_rounder());
            self.collide_jammed(&mut s.impacts, rounds);
            jam_time += clock.elapsed().as_secs_f64();
        }
        // A step too small to repay a device call is swept on the host (`DEVICE_MIN_POINTS`).
        let large = self.contacts.step.contacts.len() >= self.settings.device_minimums.0;
        let sweeps = device.filter(|_| large).and_then(|d| d.contact_sweeper());
        self.solve_contact_step(h, &mut s.pushed, &mut s.touched, sweeps);
        self.note_jam_time(jam_time);
    }

    /// Moves `seconds` of the contact step's wall time to the stepped islands' (the contact
    /// step is timed as a whole by its caller).
    fn note_jam_time(&mut self, seconds: f64) {
        if self.jams.any {
            self.stats.stage_times.stepped_islands += seconds;
            self.stats.stage_times.contact_step -= seconds;
        }
    }

    /// The contact step's first half: the resting contacts of the step's pairs (`pairs`, a
    /// buffer), each pair that has one held from now on; last step's held pairs become the
    /// previous ones (a double buffer: their tracked points may be reused).
    fn gather_resting_contacts(
        &mut self,
        h: f64,
        pairs: &mut Vec<(usize, usize)>,
        measured: &mut Vec<MeasuredChunk>,
    ) {
        std::mem::swap(
            &mut self.contacts.held.pairs,
            &mut self.contacts.held.previous_pairs,
        );
        std::mem::swap(
            &mut self.contacts.held.points,
            &mut self.contacts.held.previous_points,
        );
        self.contacts.held.pairs.clear();
        self.contacts.held.points.clear();
        self.contacts.held.resolves.clear();
        self.contacts.step.contacts.clear();
        self.contacts.step.fast = 0;
        self.contacts
            .held
            .by_body
            .resize_with(self.bodies.len(), Vec::new);
        for list in &mut self.contacts.held.by_body {
            list.clear();
        }
        let eps = self.settings.epsilon;
        let margin = RESTING_MARGIN * eps;
        // How far a jammed island's bodies can move over the step: their pairs take the
        // contacts they could reach by its end (speculative contacts, bounded as the TOI
        // bounds are), so no pair of the island need collide mid-step.
        self.jams.reach.clear();
        if self.jams.any {
            let g = self.settings.gravity.length();
            self.jams
                .reach
                .extend(self.bodies.iter().map(|b| match b.jammed {
                    true => {
                        let speed =
                            b.velocity.length() + b.angular_velocity.length() * b.bounding_radius;
                        speed * h + 0.5 * g * h * h
                    }
                    false => 0.0,
                }));
        }
        // Present boxes grown by the margin (and the reach): the pairs that can have a point
        // that close.
        let (bodies, reach) = (&self.bodies, &self.jams.reach);
        let grown = |i: usize| {
            let (min, max) = bodies[i].collider.aabb(&bodies[i].pose());
            Aabb { min, max }.grown(margin + reach_of(reach, i))
        };
        fill_boxes(&mut self.pairs.boxes, bodies.len(), grown);
        self.pairs_of_boxes(Body::is_awake_dynamic, |_, _| true, pairs);
        if !self.joints.is_empty() {
            pairs.retain(|&(a, b)| !self.joints.joined(a, b));
        }
        // The proximity queries and what each pair's points make of the step are independent:
        // run on all cores, each chunk into its own buffers, and read back in pair order (so
        // the step is the same on any number of threads).
        let failed = std::sync::Mutex::new(None);
        let chunks = pairs.len().div_ceil(MEASURE_CHUNK);
        if measured.len() < chunks {
            measured.resize_with(chunks, MeasuredChunk::default);
        }
        self.measure_pairs(pairs, (margin, h), &mut measured[..chunks], &failed);
        if let Some((_, failure)) = failed.into_inner().unwrap_or_else(|e| e.into_inner()) {
            self.note_geometry_failure(failure);
        }
        for (chunk, m) in pairs.chunks(MEASURE_CHUNK).zip(&measured[..chunks]) {
            for (&(a, b), measured) in chunk.iter().zip(&m.measured) {
                match *measured {
                    Measured::Apart => {}
                    Measured::Queried { distance, points } => {
                        let normal = m.points[points.0..points.1].first().map(|p| p.normal);
                        self.note_measured(a, b, distance, normal);
                    }
                    Measured::Tracked => self.stats.counts.tracked_pairs += 1,
                }
            }
            self.contacts.step.contacts.extend_from_slice(&m.contacts);
            self.contacts.step.fast += m.fast;
            let base = self.contacts.held.points.len() as u32;
            self.contacts.held.points.extend_from_slice(&m.tracked);
            for held in &m.held {
                let (from, to) = held.tracked;
                self.hold(held.a, held.b, (base + from, base + to));
            }
        }
    }

    /// The contact step's second half: its contacts solved together over `h` (the impulses
    /// reported through `pushed`), and every body they touched (`touched`) given a new
    /// version and spin bound.
    fn solve_contact_step(
        &mut self,
        h: f64,
        pushed: &mut Vec<crate::resting_contact::ContactImpulse>,
        touched: &mut Vec<bool>,
        device: Option<&mut dyn ContactSweeps>,
    ) {
        self.stats.counts.contact_steps += 1;
        self.stats.counts.resting_contacts += self.contacts.step.contacts.len() as u64;
        // The whole step: `contact_sweeps` Gauss–Seidel sweeps share the load out, then shock
        // propagation settles it from the ground up (`resting_contact::shock`); a shortfall
        // is restored a quarter per step (see `resting_contact::bias`).
        // A step k times the shortest takes k times the sweeps: the solver's error per step
        // grows with the impulses it shares out, so the same sweep count would let a tall
        // stack slide k times faster (docs/design.md, Resting contact as constraints).
        let per = ((self.clock.contact_step / self.settings.contact_step_range.0).round() as usize)
            .max(1);
        let mut settings = self.step_settings(h, 1e-6, self.settings.contact_sweeps * per, 0.25);
        settings.shock_iterations = self.settings.shock_sweeps * per;
        pushed.clear();
        // The event log's velocities before the solve (only when it records).
        let before: Vec<(DVec3, DVec3)> = match self.settings.record_events {
            true => self
                .bodies
                .iter()
                .map(|b| (b.velocity, b.angular_velocity))
                .collect(),
            false => Vec::new(),
        };
        let asked = device.is_some();
        let sweeps = match device {
            Some(device) => Sweeps::Device(device),
            None => Sweeps::Tree,
        };
        let report = self.contacts.step.solver.solve_on(
            &mut self.bodies,
            &self.contacts.step.contacts,
            &settings,
            true,
            sweeps,
            |c| pushed.push(*c),
        );
        let stored = std::time::Instant::now();
        self.stats.counts.contact_iterations += report.iterations as u64;
        let times = &mut self.stats.stage_times;
        times.contact_prepare += report.prepare_seconds;
        times.contact_sweeps += report.sweep_seconds;
        times.shock_propagation += report.shock_seconds;
        if report.on_device {
            self.stats.counts.device_contact_steps += 1;
            self.stats.stage_times.device_sweeps += report.device_seconds;
        } else if asked {
            self.stats.counts.device_sweep_failures += 1;
        }
        self.stats.counts.step_point_sweeps +=
            (self.contacts.step.contacts.len() * report.iterations) as u64;
        for c in pushed.iter() {
            self.note_support(c.a, c.b, c.normal);
        }
        if self.settings.record_events {
            self.log_contact_impulses(EventKind::Resting, pushed, |i| before.get(i).copied());
        }
        // Every body of the step's contacts has a new trajectory: a new version (its bounds
        // are stale) and a new spin bound, once per body (each its own: a large world's on the
        // pool's threads).
        touched.clear();
        touched.resize(self.bodies.len(), false);
        for c in &self.contacts.step.contacts {
            touched[c.a as usize] = true;
            touched[c.b as usize] = true;
        }
        let renew = |(body, &touched): (&mut Body, &bool)| {
            if touched {
                body.version = body.version.wrapping_add(1);
                body.refresh_bounds();
            }
        };
        if self.bodies.len() < PARALLEL_BOXES {
            self.bodies.iter_mut().zip(touched.iter()).for_each(renew);
        } else {
            use rayon::prelude::*;
            let each = self.bodies.par_iter_mut().zip(touched.par_iter());
            each.with_min_len(64).for_each(renew);
        }
        self.stats.stage_times.contact_store +=
            report.store_seconds + stored.elapsed().as_secs_f64();
    }

    /// Proximity of every pair in `pairs` (bodies at their current states), `margin` as for
    /// [`Self::measure_within`], in parallel, each chunk of [`MEASURE_CHUNK`] pairs into its
    /// [`MeasuredChunk`] of `chunks`: the `(distance, first, end, reused)` of each pair's
    /// points in the chunk's point list, then what they make of a contact step `h` long (its
    /// resting contacts, the pairs it holds and their tracked points). A pair of convex bodies
    /// that is farther apart than `margin` along its last separating axis is not queried: the
    /// gap along any axis is a lower bound on the distance (separating-axis theorem), so the
    /// query would find no point within the margin either; its entry is that gap with
    /// `first == end == usize::MAX` (no query made). A pair the previous contact step held
    /// whose tracked points all moved less than `REUSED_SLIDE`·ε_c since they were measured
    /// takes its points from them (one per tracked point, in order; `reused` is the first
    /// one's index in `previous_points`, else `u32::MAX`), its distance the least of their
    /// separations: a feature that was beyond the margin then is still beyond the margin less
    /// that slide, 1.75 ε_c, too far to be a resting contact of this step (and every pair
    /// stays bounded and measured exactly by the event loop whatever the step holds).
    ///
    /// A query the geometry library fails reads as apart; the failure of the lowest such pair
    /// goes into `failed` (the lowest, so that it does not depend on the threads' order).
    pub(super) fn measure_pairs(
        &self,
        pairs: &[(usize, usize)],
        (margin, h): (f64, f64),
        chunks: &mut [MeasuredChunk],
        failed: &std::sync::Mutex<Option<((usize, usize), GeometryFailure)>>,
    ) {
        let reach = &self.jams.reach;
        let reach_ahead = |a: usize, b: usize| reach_of(reach, a) + reach_of(reach, b);
        use rayon::prelude::*;
        let (bodies, last_axis) = (&self.bodies, &self.pairs.bounds.last_axis);
        let (previous, tracked) = (
            &self.contacts.held.previous_pairs,
            &self.contacts.held.previous_points,
        );
        let slide = REUSED_SLIDE * self.settings.epsilon;
        // The pair's contacts from its tracked points, appended to `points`, if they all moved
        // less than the slide; returns the least separation and the first point's index.
        let reuse = |a: usize, b: usize, points: &mut Vec<ContactPoint>| {
            let &(from, to) = previous.get(&(a as u32, b as u32))?;
            if from == to {
                return None;
            }
            let range = &tracked[from as usize..to as usize];
            let d = tracked_contacts(range, &bodies[a], &bodies[b], slide, points)?;
            Some((d, from))
        };
        let axis_gap = |a: usize, b: usize| axis_gap(bodies, last_axis, a, b);
        chunks
            .par_iter_mut()
            .zip(pairs.par_chunks(MEASURE_CHUNK))
            .for_each(|(m, chunk)| {
                m.clear();
                for &(a, b) in chunk {
                    let margin = margin + reach_ahead(a, b);
                    if axis_gap(a, b).is_some_and(|g| g > margin) {
                        m.measured.push(Measured::Apart);
                        continue;
                    }
                    let from = m.points.len();
                    // Tracked points are the features within the resting margin: a pair that
                    // reaches ahead may have others within its own.
                    let tracked = match reach_ahead(a, b) > 0.0 {
                        true => None,
                        false => reuse(a, b, &mut m.points),
                    };
                    let (d, reused) = match tracked {
                        Some((d, first)) => (d, first),
                        None => {
                            let d = match body_proximity(&bodies[a], &bodies[b], margin, &mut m.out)
                            {
                                Ok(d) => d,
                                Err(failure) => {
                                    let mut first =
                                        failed.lock().unwrap_or_else(|e| e.into_inner());
                                    if first.as_ref().is_none_or(|(pair, _)| (a, b) < *pair) {
                                        *first = Some(((a, b), failure));
                                    }
                                    f64::INFINITY
                                }
                            };
                            m.points.extend_from_slice(&m.out);
                            (d, u32::MAX)
                        }
                    };
                    m.measured.push(match reused {
                        u32::MAX => Measured::Queried {
                            distance: d,
                            points: (from, m.points.len()),
                        },
                        _ => Measured::Tracked,
                    });
                    if d <= margin {
                        self.sort_points(m, (a, b), (from, reused), (margin, h));
                    }
                }
            });
    }

    /// The resting contacts of pair (a, b) among its points `m.points[from..]` (all of them
    /// from the query, or reused from the tracked points at `reused`), into `m`; if any is
    /// within the resting margin, the pair is held with its tracked points.
    fn sort_points(
        &self,
        m: &mut MeasuredChunk,
        (a, b): (usize, usize),
        (from, reused): (usize, u32),
        (margin, h): (f64, f64),
    ) {
        let eps = self.settings.epsilon;
        let (ba, bb) = (&self.bodies[a], &self.bodies[b]);
        let material = self.settings.materials.pair(ba.material, bb.material);
        let (friction, resting_speed) = (
            material.friction,
            self.resting_speed(material.restitution, h),
        );
        let mut any = false;
        let points = &m.points[from..];
        let near = || points.iter().filter(|p| p.separation <= margin);
        // A jammed island's pair takes its colliding points too: the step's collision rounds
        // resolve them before the contacts are solved.
        let jammed = self.jammed_pair(a, b);
        for p in near() {
            let un = (ba.point_velocity(p.position) - bb.point_velocity(p.position)).dot(p.normal);
            if -un < resting_speed || jammed {
                let touching = p.separation <= RESTING_MARGIN * eps;
                m.fast += usize::from(-un >= resting_speed && touching);
                // A pair is held for its points within the resting margin only: one with
                // speculative points alone is solved with the step but stays an ordinary pair
                // for the events.
                any |= touching;
                m.contacts.push(RestingContact::at(a, b, p, friction));
            }
        }
        if any {
            // A pair taken from its tracked points keeps them all, so their slide is still
            // counted from where they were measured.
            let first = m.tracked.len() as u32;
            if reused == u32::MAX {
                m.tracked.extend(
                    near()
                        .filter(|p| p.separation <= RESTING_MARGIN * eps)
                        .map(|p| TrackedPoint::new(ba, bb, p)),
                );
            } else {
                let (r, n) = (reused as usize, points.len());
                let previous = &self.contacts.held.previous_points;
                m.tracked.extend_from_slice(&previous[r..r + n]);
            }
            m.held.push(HeldRange {
                a,
                b,
                tracked: (first, m.tracked.len() as u32),
            });
        }
    }

    /// Contact-step settings with step `h`, the resting target, a tolerance of `tolerance`·ε_c,
    /// at most `max_iterations` sweeps and `push_out` (see [`StepSettings`]).
    pub(super) fn step_settings(
        &self,
        h: f64,
        tolerance: f64,
        max_iterations: usize,
        push_out: f64,
    ) -> StepSettings {
        StepSettings {
            h,
            gravity: self.settings.gravity,
            target: RESTING_TARGET * self.settings.epsilon,
            tolerance: tolerance * self.settings.epsilon,
            max_iterations,
            push_out,
            split_push: self.settings.split_push,
            shock_iterations: 0,
            stall_window: 0,
        }
    }

    /// The approach speed below which a contact point is resting rather than colliding, for a
    /// pair with restitution `e` and contact step `h`: a collision at speed v rebounds at e·v
    /// (Poisson's law at a single point), which rises less than ε_c while e·v is below the
    /// microcollision speed sqrt(2 g ε_c) (Mirtich & Canny §4.5): a bounce the contact band cannot
    /// tell from rest. So v < micro/e is resting, and at least micro + g·h, what gravity adds to
    /// a resting contact's approach over one step. e is floored at `MIN_RESTING_RESTITUTION` so a
    /// perfectly inelastic fast impact is still a collision, resolved with its own friction
    /// integration.
    pub(super) fn resting_speed(&self, e: f64, h: f64) -> f64 {
        (self.settings.micro_speed + self.settings.gravity.length() * h)
            .max(self.settings.micro_speed / e.max(MIN_RESTING_RESTITUTION))
    }

    /// Marks pair (a, b) as held for the rest of the contact step (once), with the range of
    /// its tracked points in `held_points` (empty: none tracked).
    pub(super) fn hold(&mut self, a: usize, b: usize, tracked: (u32, u32)) {
        if let std::collections::hash_map::Entry::Vacant(e) =
            self.contacts.held.pairs.entry((a as u32, b as u32))
        {
            e.insert(tracked);
            self.contacts.held.by_body[a].push((a as u32, b as u32));
            self.contacts.held.by_body[b].push((a as u32, b as u32));
        }
    }

    /// Chooses the next frame's contact step length from this frame's work: doubled (up to
    /// the longest) where the local re-solves of held pairs cost less than a quarter of the
    /// contact steps, halved (down to the shortest) where they cost more than the contact
    /// steps. Work is counted as contact points times Gauss–Seidel sweeps, the solver's unit
    /// cost in both, so the choice is the same on every machine and run.
    ///
    /// Why those thresholds: a longer step costs the same sweeps per simulated second but
    /// fewer per-step overheads, while the re-solves' rate roughly doubles with the length; the
    /// cost model is in `docs/design.md` and its measurements in `docs/measurements.md`, both
    /// under Resting contact as constraints.
    /// The length changes no exactness: every pair keeps its conservative bound and its band.
    pub(super) fn adapt_step_length(&mut self) {
        let (shortest, longest) = self.settings.contact_step_range;
        if !self.joints.is_empty() {
            // Joints are held at the steps' ends with an error of order (ω h)² (RATTLE): a
            // jointed world keeps the shortest step.
            return;
        }
        let (s0, r0) = self.contacts.step.work_at_frame_start;
        let (s1, r1) = (
            self.stats.counts.step_point_sweeps,
            self.stats.counts.resolve_point_sweeps,
        );
        self.contacts.step.work_at_frame_start = (s1, r1);
        let (steps, resolves) = (s1 - s0, r1 - r0);
        if 4 * resolves <= steps && 2.0 * self.clock.contact_step <= longest * (1.0 + 1e-9) {
            self.clock.contact_step *= 2.0;
        } else if resolves > steps && 0.5 * self.clock.contact_step >= shortest * (1.0 - 1e-9) {
            self.clock.contact_step *= 0.5;
        }
    }
}

/// Body `i`'s reach over the step in `reach` (0 where no island is jammed).
fn reach_of(reach: &[f64], i: usize) -> f64 {
    reach.get(i).copied().unwrap_or(0.0)
}

/// One chunk of a contact step's candidate pairs, measured on a pool thread and sorted into the
/// step's contacts there ([`Stores::measure_pairs`]); its buffers are kept from step to step.
#[derive(Default)]
pub(super) struct MeasuredChunk {
    /// How each pair was measured.
    measured: Vec<Measured>,
    points: Vec<ContactPoint>,
    /// One query's points.
    out: Vec<ContactPoint>,
    /// The chunk's resting contacts in pair order, and how many of them collide.
    contacts: Vec<RestingContact>,
    fast: usize,
    /// The pairs it holds, with their tracked points' range in `tracked`.
    held: Vec<HeldRange>,
    tracked: Vec<TrackedPoint>,
}

/// How one pair of a [`MeasuredChunk`] was measured.
#[derive(Clone, Copy)]
enum Measured {
    /// Apart by more than the margin along its last separating axis: not queried.
    Apart,
    /// Queried: its distance, and its points' range in the chunk's `points` (the closest pair
    /// first).
    Queried {
        distance: f64,
        points: (usize, usize),
    },
    /// Its points taken from the previous step's tracked points.
    Tracked,
}

/// A pair a [`MeasuredChunk`] holds, with its tracked points' range in the chunk's `tracked`.
#[derive(Clone, Copy)]
struct HeldRange {
    a: usize,
    b: usize,
    tracked: (u32, u32),
}

impl MeasuredChunk {
    /// Empties it for a new step.
    fn clear(&mut self) {
        self.measured.clear();
        self.points.clear();
        self.contacts.clear();
        self.fast = 0;
        self.held.clear();
        self.tracked.clear();
    }
}
