//! The bound policy: which bound each pair gets and when it is measured again. Seeding a
//! step's pairs (a bound kept from an earlier step while both trajectories are unchanged, else a
//! first bound from [`super::pair_bound`]), the bound after a proximity query (the contact band's
//! targets and hop returns), and the heap pushes. See `docs/design.md`, The contact band.

use super::collide::normal_speed;
use super::contact_band::{BAND_STEP, HELD_BAND, ZENO_GAP};
use super::counts::Counts;
use super::pair_bound::pair_axis_extents;
use super::pair_bound::{axis_gap, first_bound, pair_band, pair_matters, AxisExtents, FirstBound};
use super::settings::Settings;
use super::stores::{Pairs, Stores};
use crate::body::Body;
use crate::joints::Joints;
use crate::narrow_phase::ContactPoint;

use crate::event_heap::{BoundKind, PairEvent};
use crate::stages;
use crate::toi_bound::DistanceBound;
use glam::DVec3;
use rustc_hash::{FxHashMap, FxHashSet};

/// Last axes kept beyond twice a step's pairs before they are pruned (see
/// [`Stores::prune_last_axes`]).
pub(super) const AXIS_SLACK: usize = 1024;

/// Buffers of a step's seeding ([`Stores::seed_pairs`]).
#[derive(Default)]
pub(super) struct Seeding {
    /// Each of the step's pairs' bound, in the step's pair order.
    pub(super) bounds: Vec<Seed>,
}

/// A pair's bound at a step's start: kept from an earlier step, or a first bound.
#[derive(Clone, Copy)]
pub(super) enum Seed {
    Kept(PairEvent),
    Fresh(FirstBound),
}

/// What the bound policy reads and never writes: the bodies, the settings, the pairs a contact
/// step holds (their band is narrower), the joints (a jointed pair is never bounded) and the
/// step's end. The policy writes only the pairs store and the counters.
pub(super) struct BoundInputs<'a> {
    pub(super) bodies: &'a [Body],
    pub(super) settings: &'a Settings,
    pub(super) held: &'a FxHashMap<(u32, u32), (u32, u32)>,
    pub(super) joints: &'a Joints,
    /// End of the present step (s).
    pub(super) frame_end: f64,
}

impl BoundInputs<'_> {
    /// The contact band of pair (a, b): ε_c, or `HELD_BAND`·ε_c while a contact step holds it.
    fn band(&self, a: usize, b: usize) -> f64 {
        pair_band(self.held, self.bodies, self.settings.epsilon, (a, b))
    }

    /// Normal relative velocity of the contact point (negative: approaching).
    fn normal_speed(&self, a: usize, b: usize, p: &ContactPoint) -> f64 {
        normal_speed(self.bodies, a, b, p)
    }

    /// The extents of a (from below) and b (from above) along the axis `n` (from b to a).
    fn axis_extents(&self, a: usize, b: usize, n: DVec3, horizon: f64) -> AxisExtents {
        pair_axis_extents(
            &self.bodies[a],
            &self.bodies[b],
            self.settings.gravity,
            n,
            horizon,
        )
    }
}

impl Stores {
    /// The contact band of pair (a, b): ε_c, or `HELD_BAND`·ε_c while a contact step holds it.
    pub(super) fn band(&self, a: usize, b: usize) -> f64 {
        let held = &self.contacts.held.pairs;
        pair_band(held, &self.bodies, self.settings.epsilon, (a, b))
    }

    /// The gap of pair (a, b) along its last separating axis at the bodies' present states, if
    /// both are convex and the pair has one (see the free function `axis_gap`).
    pub(super) fn axis_gap(&self, a: usize, b: usize) -> Option<f64> {
        axis_gap(&self.bodies, &self.pairs.bounds.last_axis, a, b)
    }

    /// The extents of a (from below) and b (from above) along the axis `n` (from b to a), for
    /// an [`EnvelopeBound`].
    pub(super) fn axis_extents(&self, a: usize, b: usize, n: DVec3, horizon: f64) -> AxisExtents {
        pair_axis_extents(
            &self.bodies[a],
            &self.bodies[b],
            self.settings.gravity,
            n,
            horizon,
        )
    }

    /// A pair needs bounds if one of its bodies moves and one can be pushed or woken.
    pub(super) fn pair_matters(&self, i: usize, j: usize) -> bool {
        pair_matters(&self.bodies[i], &self.bodies[j]) && !self.joints.joined(i, j)
    }

    /// The pairs store and the counters, which the bound policy writes, and what it reads.
    pub(super) fn bound_parts(&mut self) -> (&mut Pairs, &mut Counts, BoundInputs<'_>) {
        let inputs = BoundInputs {
            bodies: &self.bodies,
            settings: &self.settings,
            held: &self.contacts.held.pairs,
            joints: &self.joints,
            frame_end: self.clock.frame_end,
        };
        (&mut self.pairs, &mut self.stats.counts, inputs)
    }

    /// [`Pairs::push_bound`] for pair (a, b) at `t`.
    pub(super) fn push_bound(&mut self, a: usize, b: usize, t: f64) {
        let (pairs, counts, inputs) = self.bound_parts();
        pairs.push_bound(&inputs, counts, (a, b), t);
    }

    /// [`Pairs::push`] for pair (a, b).
    pub(super) fn push(&mut self, a: usize, b: usize, time: f64, kind: BoundKind) {
        let (pairs, _, inputs) = self.bound_parts();
        pairs.push(&inputs, a, b, time, kind);
    }

    /// [`Pairs::push_fine`] for pair (a, b) just measured at distance `d` with `points`.
    pub(super) fn push_fine(
        &mut self,
        a: usize,
        b: usize,
        d: f64,
        t: f64,
        points: &[ContactPoint],
    ) {
        let (pairs, counts, inputs) = self.bound_parts();
        pairs.push_fine(&inputs, counts, (a, b), (d, t), points);
    }

    /// [`Pairs::seed_pairs`] for the step's `pairs` from `t0`.
    pub(super) fn seed_pairs(
        &mut self,
        pairs: &[(usize, usize)],
        stage_bounds: Option<&[f32]>,
        t0: f64,
        seeding: &mut Seeding,
    ) {
        let (store, counts, inputs) = self.bound_parts();
        store.seed_pairs(pairs, stage_bounds, t0, (&inputs, counts, seeding));
    }
}

/// The bound policy over the pairs store: each push reads [`BoundInputs`] and counts in `counts`.
impl Pairs {
    /// Pushes a bound for pair (a, b), both at time `t`, without a proximity query: along the
    /// pair's last separating axis when both are convex and that far apart along it (the gap
    /// along any axis never exceeds the distance, by the separating-axis theorem, so the
    /// envelope bound of [`Self::push_fine`] from that gap is conservative), else from the
    /// bounding spheres. After an impulse every pair around the body needs a new bound; most
    /// of them are still well apart along the axis they were last measured on, and are spared
    /// the query the sphere bound would trigger at once.
    pub(super) fn push_bound(
        &mut self,
        inputs: &BoundInputs<'_>,
        counts: &mut Counts,
        (a, b): (usize, usize),
        t: f64,
    ) {
        let axis = self.bounds.last_axis.get(&(a as u32, b as u32)).copied();
        let band = inputs.band(a, b);
        let bound = first_bound(
            &inputs.bodies[a],
            &inputs.bodies[b],
            axis,
            inputs.settings.gravity,
            inputs.settings.epsilon,
            band,
            inputs.frame_end - t,
        );
        self.push_first_bound(inputs, counts, (a, b), t, bound);
    }

    /// Pushes pair (a, b)'s first bound `bound`, computed at time `t`, and counts it.
    pub(super) fn push_first_bound(
        &mut self,
        inputs: &BoundInputs<'_>,
        counts: &mut Counts,
        (a, b): (usize, usize),
        t: f64,
        bound: FirstBound,
    ) {
        let (dt, keep) = match bound {
            FirstBound::Axis(dt, keep) => {
                counts.axis_bounds += 1;
                (dt, keep)
            }
            FirstBound::Spheres(dt) | FirstBound::Stage(dt) => (dt, true),
            FirstBound::None => return,
        };
        counts.toi_bounds += 1;
        self.push_kept(inputs, (a, b), t + dt, BoundKind::Coarse, keep);
    }

    /// Pushes a bound that holds from now until `time`, kept across steps if beyond this one.
    pub(super) fn push(
        &mut self,
        inputs: &BoundInputs<'_>,
        a: usize,
        b: usize,
        time: f64,
        kind: BoundKind,
    ) {
        self.push_kept(inputs, (a, b), time, kind, true);
    }

    /// Pushes a bound that holds from now until `time`; one beyond the step's end is kept for
    /// the next steps if `keep`.
    pub(super) fn push_kept(
        &mut self,
        inputs: &BoundInputs<'_>,
        (a, b): (usize, usize),
        time: f64,
        kind: BoundKind,
        keep: bool,
    ) {
        if inputs.joints.joined(a, b) {
            return; // jointed bodies do not collide with each other
        }
        #[cfg(test)]
        self.watch_pushed(inputs.bodies, a, b);
        let event = PairEvent {
            time,
            a: a as u32,
            b: b as u32,
            version_a: inputs.bodies[a].version,
            version_b: inputs.bodies[b].version,
            kind,
        };
        if time < inputs.frame_end {
            self.heap.push(event);
        } else if keep {
            self.bounds.later.insert((a as u32, b as u32), event);
        }
    }

    /// Pushes a bound for (a, b) from the proximity just measured (`d`, `points`).
    pub(super) fn push_fine(
        &mut self,
        inputs: &BoundInputs<'_>,
        counts: &mut Counts,
        (a, b): (usize, usize),
        (d, t): (f64, f64),
        points: &[ContactPoint],
    ) {
        counts.toi_bounds += 1;
        let eps = inputs.band(a, b);
        let within = d <= eps;
        // Inside its band a jammed pair steps by the whole ε_c's band step (to contact at
        // most): its contacts are solved as a whole at every step's start, and the band's
        // small steps would measure a pile sinking under its own load over and over.
        let full = inputs.settings.epsilon;
        let target = |d: f64| match eps < HELD_BAND * full {
            true => jammed_band_target(d, full),
            false => band_target(d, eps),
        };
        // A held pair approaching inside its band was just re-solved (or found to need no
        // impulse: its step-mean motion keeps it apart); it is bounded like any other.
        if within && eps >= inputs.settings.epsilon {
            let approaching = points
                .iter()
                .filter(|p| p.separation <= eps)
                .any(|p| inputs.normal_speed(a, b, p) < -1e-12);
            if approaching {
                self.push(inputs, a, b, t, BoundKind::Fine);
                return;
            }
        }
        let n = points.first().map_or(DVec3::Z, |p| p.normal);
        let mut lasting = true;
        let dt = if inputs.bodies[a].convex && inputs.bodies[b].convex {
            let extents = inputs.axis_extents(a, b, n, inputs.frame_end - t);
            lasting = extents.lasting();
            // The envelope's own value now; it may differ from the measured distance by the
            // rounding of the two geometric routes, so targets are set relative to it.
            let gap = extents.envelope().gap();
            Self::schedule(
                counts,
                inputs.settings.min_return_time,
                (d, eps),
                target,
                |x| extents.time_to(gap + (x - d)),
                || extents.return_time(gap),
            )
        } else {
            let (ma, mb) = (
                inputs.bodies[a].motion_bound(inputs.settings.gravity),
                inputs.bodies[b].motion_bound(inputs.settings.gravity),
            );
            let bound = DistanceBound::isotropic(d, &ma, &mb);
            Self::schedule(
                counts,
                inputs.settings.min_return_time,
                (d, eps),
                target,
                |x| bound.time_to(x),
                || bound.return_time(),
            )
        };
        // Only a bound from outside the band is kept across steps: a pair inside it is
        // measured afresh at every step start, as when no bound was kept at all (the band's
        // small steps track a resting contact, and re-measuring it then costs little).
        self.push_kept(inputs, (a, b), t + dt, BoundKind::Fine, d > eps && lasting);
    }

    /// When to measure a pair at distance `d` again, given its bound as `reach(x)` (the first
    /// time the distance can be down to `x`) and `back` (when it can first come back down to
    /// `d`, evaluated only when needed): farther than the band `eps`, when it could reach half
    /// of it; inside the band, at the hop's landing if that is not implausibly soon, else at
    /// the band step's `target(d)` (see the module doc).
    pub(super) fn schedule(
        counts: &mut Counts,
        min_return_time: f64,
        (d, eps): (f64, f64),
        target: impl FnOnce(f64) -> f64,
        reach: impl Fn(f64) -> f64,
        back: impl FnOnce() -> f64,
    ) -> f64 {
        if d > eps {
            return reach(eps / 2.0);
        }
        // Only inside the band is the return time needed (it costs as much as `reach`).
        let back = back();
        if back > 0.0 && back >= min_return_time {
            back
        } else {
            counts.band_steps += 1;
            reach(target(d))
        }
    }

    /// Starts seeding a step: last step's kept bounds become the ones to draw from.
    pub(super) fn begin_seeding(&mut self) {
        std::mem::swap(&mut self.bounds.earlier, &mut self.bounds.later);
        self.bounds.later.clear();
    }

    /// Seeds the heap with the step's pairs (every body at `t0`): a pair whose bodies kept their
    /// trajectories since an earlier step keeps that step's bound (still a valid lower bound);
    /// the others get a first bound ([`Stores::push_bound`]'s), computed on all cores (they are
    /// independent) and pushed in pair order, so the heap is the same on any number of threads.
    ///
    /// With `stage_bounds` (the GPU or CPU-twin stages' f32 bound of each pair, from now), a
    /// pair never measured takes its stage bound instead of the bounding spheres'.
    pub(super) fn seed_pairs(
        &mut self,
        pairs: &[(usize, usize)],
        stage_bounds: Option<&[f32]>,
        t0: f64,
        (inputs, counts, seeding): (&BoundInputs<'_>, &mut Counts, &mut Seeding),
    ) {
        use rayon::prelude::*;
        self.prune_last_axes(counts, pairs);
        let bounds = &mut seeding.bounds;
        bounds.clear();
        let (bodies, last_axis, held) = (inputs.bodies, &self.bounds.last_axis, inputs.held);
        let earlier = &self.bounds.earlier;
        let (gravity, epsilon) = (inputs.settings.gravity, inputs.settings.epsilon);
        let horizon = inputs.frame_end - t0;
        // Each pair's kept bound or first bound, on all cores. The kept bounds are only read
        // here (the caller empties them once the step is seeded), so no lookup waits on a
        // removal.
        let seed = |(k, &(a, b)): (usize, &(usize, usize))| {
            let key = (a as u32, b as u32);
            if let Some(ev) = earlier.get(&key) {
                if ev.version_a == bodies[a].version && ev.version_b == bodies[b].version {
                    return Seed::Kept(*ev);
                }
            }
            let axis = last_axis.get(&key).copied();
            // The stages bound constant velocities: a body on a path gets the host's bound.
            let path = bodies[a].path.is_some() || bodies[b].path.is_some();
            Seed::Fresh(match (axis, stage_bounds) {
                (None, Some(_)) if path => {
                    let band = pair_band(held, bodies, epsilon, (a, b));
                    first_bound(
                        &bodies[a], &bodies[b], None, gravity, epsilon, band, horizon,
                    )
                }
                (None, Some(stage)) if stage[k] == stages::TOI_NONE => FirstBound::None,
                // The f32 bound is already padded; shave a relative 1e-6 more for the f64 add.
                (None, Some(stage)) => {
                    FirstBound::Stage((f64::from(stage[k]) * (1.0 - 1e-6)).max(0.0))
                }
                _ => {
                    let band = pair_band(held, bodies, epsilon, (a, b));
                    first_bound(
                        &bodies[a], &bodies[b], axis, gravity, epsilon, band, horizon,
                    )
                }
            })
        };
        bounds.par_extend(pairs.par_iter().enumerate().with_min_len(256).map(seed));
        // Pushed in pair order, the kept bounds first: the heap is the same on any number of
        // threads.
        for (&(a, b), seed) in pairs.iter().zip(bounds.iter()) {
            if let Seed::Kept(ev) = *seed {
                counts.kept_bounds += 1;
                self.push(inputs, a, b, ev.time, ev.kind);
            }
        }
        for (&(a, b), seed) in pairs.iter().zip(bounds.iter()) {
            if let Seed::Fresh(bound) = *seed {
                self.push_first_bound(inputs, counts, (a, b), t0, bound);
            }
        }
    }

    /// Forgets the last axes of pairs that are not among a step's broad-phase `pairs`, once
    /// the axes outnumber those pairs twice over (plus `AXIS_SLACK`): bodies that parted far
    /// would otherwise keep an entry each for the rest of the run, a store that grows without
    /// bound in a long run of a flowing scene. Amortised, this costs O(1) per measurement; a
    /// pair that meets again starts from its bounding spheres, as a pair never measured does
    /// (any axis gives a conservative bound, so which one a pair has changes no exactness).
    pub(super) fn prune_last_axes(&mut self, counts: &mut Counts, pairs: &[(usize, usize)]) {
        if self.bounds.last_axis.len() <= 2 * pairs.len() + AXIS_SLACK {
            return;
        }
        let current: FxHashSet<(u32, u32)> =
            pairs.iter().map(|&(a, b)| (a as u32, b as u32)).collect();
        self.bounds
            .last_axis
            .retain(|pair, _| current.contains(pair));
        counts.pruned_axes += 1;
    }
}

/// Where a pair inside the contact band may be allowed to get before it is measured again:
/// ε_c/16 closer, but never more than half way to contact while apart, so no sequence of
/// such steps can push a pair into overlap. Within `ZENO_GAP`·ε_c of contact the target is
/// that much closer instead (an overlap of at most 1 µm at ε_c = 1 mm): halving the gap
/// there is Zeno's sequence, while a fixed step takes at least sqrt(2·ZENO_GAP·ε_c/g)
/// (0.45 ms). An overlapping pair steps by the same amount, so the target is continuous
/// across contact (a larger step let microcollision-held piles ratchet down by it at every
/// hop). See `docs/design.md`, The contact band.
pub(super) fn band_target(gap: f64, eps: f64) -> f64 {
    if gap > eps * ZENO_GAP {
        (gap - eps * BAND_STEP).max(0.5 * gap)
    } else if gap > 0.0 {
        gap - eps * ZENO_GAP
    } else {
        // Already touching (rounding) or overlapping and not approaching: a small step
        // that still guarantees progress.
        gap - eps * ZENO_GAP
    }
}

/// [`band_target`] for a pair of a jammed island, whose band (`JAMMED_BAND`) is narrower than one
/// band step of ε_c: as far as contact, then by `ZENO_GAP`·ε_c as any pair there.
pub(super) fn jammed_band_target(gap: f64, eps: f64) -> f64 {
    if gap > eps * ZENO_GAP {
        (gap - eps * BAND_STEP).max(0.0)
    } else {
        gap - eps * ZENO_GAP
    }
}
