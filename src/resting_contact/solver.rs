//! [`Solver`]: one contact step from its contacts to the impulses applied to the bodies, and the
//! buffers it keeps between steps. [`Solver::solve`] builds the rows and patches (`patch`),
//! orders them bottom up, warm-starts them (`warm_start`), splits them into a tree of parts for
//! several threads (`split`), and sweeps them (`sweep`, `shock`).

use super::patch::{Patch, Row};
use super::shock::OneSided;
use super::slots::Vel;
use super::warm_start::{Solved, SolvedPatch};
use super::{ContactImpulse, RestingContact, StepReport, StepSettings};
use crate::body::Body;

/// Reusable buffers for [`Solver::solve`], and the previous step's impulses.
#[derive(Clone, Default)]
pub struct Solver {
    pub(super) rows: Vec<Row>,
    pub(super) patches: Vec<Patch>,
    /// Last step's contact points, sorted by pair.
    pub(super) previous: Vec<Solved>,
    /// Last step's patches, sorted by pair.
    pub(super) previous_patches: Vec<SolvedPatch>,
    /// Last step's length h (s).
    pub(super) previous_h: f64,
    /// The time over which last step's impulses carried their contact forces (s): see
    /// [`Solver::solve`]'s warm start.
    pub(super) previous_span: f64,
    /// Velocities of the bodies the step moves, by slot, and their body indices.
    pub(super) moving: Vec<Vel>,
    pub(super) moving_bodies: Vec<usize>,
    /// Velocities of the other bodies of the step (read-only slots).
    pub(super) still: Vec<Vel>,
    /// Slot of each body (u32::MAX: not in the step).
    pub(super) slot: Vec<u32>,
    /// The tree of parts the step is swept in (`split`), and scratch for
    /// [`Self::assign_slots`].
    pub(super) tree: super::split::Tree,
    pub(super) scratch: Vec<usize>,
    pub(super) keys: Vec<(f64, usize)>,
    pub(super) reordered: Vec<Row>,
    /// Scratch for ordering the patches: by height (with their index), by part, and the
    /// patches in their new order.
    pub(super) order: Vec<(f64, u32)>,
    pub(super) by_part: Vec<u32>,
    pub(super) gathered: Vec<Patch>,
    /// Shock propagation: level of each moving slot, the patches of each moving slot (CSR),
    /// the BFS queue, and the patches in level order with which of their bodies take impulses
    /// and their one-sided friction inverses.
    pub(super) level: Vec<u32>,
    pub(super) adjacency_start: Vec<u32>,
    pub(super) adjacency: Vec<u32>,
    pub(super) queue: Vec<u32>,
    pub(super) by_level: Vec<(u32, u32)>,
    pub(super) one_sided: Vec<OneSided>,
    /// The push-out's velocities by moving slot, and its impulses by row (`push_apart`).
    pub(super) pushes: Vec<Vel>,
    pub(super) push_impulses: Vec<f64>,
    /// The push-out's tangential and twisting impulses by patch.
    pub(super) push_friction: Vec<(glam::DVec3, f64)>,
    /// The push-outs the step's bodies carried in, by body (`push_apart`).
    pub(super) carried: Vec<(usize, Vel)>,
    /// Scratch for a pair's contacts regrouped by the rounded parts they touch.
    pub(super) regrouped: Vec<(u64, RestingContact)>,
}

impl Solver {
    /// Solves the contact step for `contacts` and applies the impulses to `bodies` (all at the
    /// step's start). Calls `pushed` once per contact that ended with a positive normal
    /// impulse (for the sleeping rule's support record). With `whole_step`, the
    /// contacts are all of a step's: warm-started from the previous step's impulses, and kept
    /// to warm-start the next; otherwise (a few contacts re-solved mid-step) neither. The
    /// contacts of one pair are expected next to each other (one patch per run of a pair).
    pub fn solve(
        &mut self,
        bodies: &mut [Body],
        contacts: &[RestingContact],
        settings: &StepSettings,
        whole_step: bool,
        mut pushed: impl FnMut(&ContactImpulse),
    ) -> StepReport {
        let h = settings.h;
        self.take_pushes(bodies, contacts);
        self.rows.clear();
        self.patches.clear();
        let mut k = 0;
        while k < contacts.len() {
            let (a, b) = (contacts[k].a, contacts[k].b);
            let run = contacts[k..]
                .iter()
                .take_while(|c| (c.a, c.b) == (a, b))
                .count();
            self.add_patches(bodies, &contacts[k..k + run], settings);
            k += run;
        }

        if whole_step {
            self.find_previous();
        }
        // Bottom up: in a pile the lower contacts carry the upper ones, so Gauss–Seidel
        // converges faster sweeping upwards (the idea behind shock propagation). Equal heights
        // keep pair order. The patches are large (over 400 bytes): sorting them in place moved
        // each one many times, so the keys are sorted and each patch is copied once, into its
        // place.
        let mut order = std::mem::take(&mut self.order);
        order.clear();
        order.extend(
            self.patches
                .iter()
                .enumerate()
                .map(|(k, p)| (p.height, k as u32)),
        );
        order.sort_unstable_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
        self.gather_patches(order.iter().map(|&(_, k)| k));
        self.order = order;
        self.assign_slots(bodies, settings.gravity);
        // A steady contact force F (a weight) is carried by an impulse of F times the time
        // from the middle of the last step to the middle of this one: a body starts the step
        // with the velocity the last step's second half of gravity gave it, and must end its
        // step-mean motion at rest. With steps of one length that span is h; where the length
        // changed, the warm start's impulses are scaled to the new span. (Without this, each
        // change of `World`'s step length would jolt a pile by the difference, which the few
        // sweeps of a step do not remove.)
        let span = if self.previous_h > 0.0 {
            0.5 * (self.previous_h + h)
        } else {
            h
        };
        if whole_step {
            // (Steps that split a frame evenly differ in length by rounding only: those keep
            // their impulses as they are.)
            let scale = match span / self.previous_span {
                r if r.is_finite() && (r - 1.0).abs() > 1e-6 => r,
                _ => 1.0,
            };
            self.warm_start(bodies, scale);
        }
        self.group_parts();
        let shock = settings.shock_iterations > 0 && !self.moving.is_empty();
        if shock {
            self.shock_levels();
        }
        let clock = std::time::Instant::now();
        let mut report = self.sweep_parts(settings, shock);
        report.sweep_seconds = clock.elapsed().as_secs_f64();
        for (i, v) in self.moving_bodies.iter().zip(&self.moving) {
            bodies[*i].velocity = v.v;
            bodies[*i].angular_velocity = v.w;
        }
        self.push_apart(bodies, settings);
        for patch in &self.patches {
            let rows = &self.rows[patch.first..patch.first + patch.count];
            // The patch's friction acts at the centroid; each pushing row is reported with
            // the share of it its normal impulse carries (within μ of its own, as the patch's
            // is within μ of their sum).
            let total: f64 = rows.iter().map(|r| r.impulse.max(0.0)).sum();
            let tangential = patch.tangential.length();
            for row in rows {
                if row.impulse > 0.0 {
                    pushed(&ContactImpulse {
                        a: patch.a,
                        b: patch.b,
                        point: bodies[patch.a].position + row.ra,
                        normal: row.normal,
                        normal_impulse: row.impulse,
                        tangent_impulse: tangential * row.impulse / total,
                    });
                }
            }
        }
        if whole_step {
            self.keep_for_warm_start(h, span);
        }
        report
    }

    /// Adds one pair's contacts (`run`) as patches: one for all of them, unless they lie on
    /// different balls or capsules of a compound (a tippe top leaning on its ball and its
    /// stem's end): each such part's contacts then make their own patch. One patch's twisting
    /// friction over two separate bearings 2 to 3 cm apart, most of the load on one, took the
    /// leaning top's spin from 105 to 14 rad/s within 0.2 s, where an independent integration
    /// keeps it (72 rad/s after 3 s at μ = 0.1). Faces, edges and flat parts keep one patch:
    /// a face resting on four corners is statically indeterminate (see `Patch`).
    fn add_patches(&mut self, bodies: &[Body], run: &[RestingContact], settings: &StepSettings) {
        let (a, b) = (run[0].a as usize, run[0].b as usize);
        // Only a compound with a curved part can touch at several (every pair of a pile of
        // cubes takes the first branch without a rotation per point).
        let compound = |i: usize| bodies[i].collider.is_rolling_compound();
        if run.len() < 2 || !(compound(a) || compound(b)) {
            self.add_patch(bodies, run, settings);
            return;
        }
        let key = |c: &RestingContact| {
            let part = |i: usize| {
                let body = &bodies[i];
                let local = body.orientation.inverse() * (c.position - body.position);
                body.collider
                    .rolling_part(local)
                    .map_or(u32::MAX, |k| k as u32)
            };
            ((part(a) as u64) << 32) | part(b) as u64
        };
        let mut regrouped = std::mem::take(&mut self.regrouped);
        regrouped.clear();
        regrouped.extend(run.iter().map(|c| (key(c), *c)));
        if regrouped.iter().all(|x| x.0 == regrouped[0].0) {
            self.add_patch(bodies, run, settings);
        } else {
            // Grouped by part, in the order each part first appears (stable within a part).
            let mut order: Vec<u64> = Vec::new();
            for &(k, _) in &regrouped {
                if !order.contains(&k) {
                    order.push(k);
                }
            }
            let mut group: Vec<RestingContact> = Vec::with_capacity(run.len());
            for (n, k) in order.into_iter().enumerate() {
                group.clear();
                group.extend(regrouped.iter().filter(|x| x.0 == k).map(|x| x.1));
                let before = self.patches.len();
                self.add_patch(bodies, &group, settings);
                if let Some(patch) = self.patches.get_mut(before) {
                    patch.group = n as u16;
                }
            }
        }
        self.regrouped = regrouped;
    }

    /// Puts the patches in the order `order` (each patch's present index, once each) by
    /// copying each once into a second buffer.
    pub(super) fn gather_patches(&mut self, order: impl Iterator<Item = u32>) {
        self.gathered.clear();
        self.gathered
            .extend(order.map(|k| self.patches[k as usize]));
        debug_assert_eq!(self.gathered.len(), self.patches.len());
        std::mem::swap(&mut self.patches, &mut self.gathered);
    }
}
