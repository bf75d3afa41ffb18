//! [`Solver`]: one contact step from its contacts to the impulses applied to the bodies, and the
//! buffers it keeps between steps. [`Solver::solve`] runs the step's stages in order, each a
//! function over explicit data (as Box2D v3's `b2SolverStageType` stages or Rapier's
//! init/solve/sync): prepare the rows and patches (`prepare`), order them bottom up, give the
//! bodies velocity slots and split the step into a tree of parts for several threads (`split`),
//! warm-start them (`warm_start`), sweep them (`sweep`) and then the shock-propagation levels
//! (`shock`), store the velocities, push apart (`push_apart`), report the impulses, and keep them
//! for the next step's warm start.

use super::colouring::{coloured_sweeps, Colouring};
use super::device_sweep::{device_sweeps, Packed};
use super::lanes::{LaneKernel, LaneStep, LANE_MIN_PATCHES};
use super::patch::Constraints;
use super::prepare::{prepare_contacts, PrepareScratch};
use super::push_apart::PushApart;
use super::shock::ShockLevels;
use super::slots::Velocities;
use super::split::{assign_slots, group_parts, Tree};
use super::sweep::sweep_parts;
use super::warm_start::{warm_impulses, warm_start, WarmStartCache};
use super::{ContactImpulse, RestingContact, StepReport, StepSettings};
use crate::body::Body;

/// Reusable buffers for [`Solver::solve`], and the previous step's impulses. A checkpoint keeps
/// the impulses only: every buffer is cleared or rebuilt at the start of a solve before it is
/// read (the push-out's carried push-outs too, taken afresh from the bodies).
#[derive(Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Solver {
    /// The step's normal rows and friction patches.
    #[serde(skip)]
    constraints: Constraints,
    /// The velocities of the step's bodies by slot.
    #[serde(skip)]
    velocities: Velocities,
    /// The previous step's impulses.
    warm: WarmStartCache,
    /// The tree of parts the step is swept in (`split`).
    #[serde(skip)]
    tree: Tree,
    /// The shock-propagation levels (`shock`).
    #[serde(skip)]
    levels: ShockLevels,
    /// The push-out's carried push-outs and solve (`push_apart`).
    #[serde(skip)]
    push: PushApart,
    /// Scratch of the prepare stage.
    #[serde(skip)]
    prepare: PrepareScratch,
    /// The patches' colours and the step packed for a device ([`Sweeps::Coloured`],
    /// [`Sweeps::Device`]).
    #[serde(skip)]
    colouring: Colouring,
    #[serde(skip)]
    packed: Packed,
    /// The step's groups for the lanes sweeps (`lanes`).
    #[serde(skip)]
    lanes: LaneStep,
}

/// How a contact step's Gauss–Seidel sweeps run; shock propagation and the rest of the step
/// are the same for all of them.
pub enum Sweeps<'a> {
    /// Over the step's tree of parts, its nodes of a level on the crew's threads, each node's
    /// patches four at a time in lanes (the host path; a step of fewer than
    /// `LANE_MIN_PATCHES` patches as [`Sweeps::Plain`]).
    Tree,
    /// As [`Sweeps::Tree`], the patches one at a time by the scalar sweep in the lanes' order:
    /// the lanes' reference twin, bit for bit.
    Scalar,
    /// Over the tree of parts, the scalar sweep in the tree's own order (bottom up within a
    /// node), with no lanes.
    Plain,
    /// In colour order on this thread, in f64: the reference of [`Sweeps::Device`].
    Coloured,
    /// In colour order on a device, in f32, a colour's patches at once; if the device fails,
    /// the step is swept over the tree instead (`StepReport::on_device` is then false).
    Device(&'a mut dyn crate::stages::contact_sweep::ContactSweeps),
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
        pushed: impl FnMut(&ContactImpulse),
    ) -> StepReport {
        self.solve_on(bodies, contacts, settings, whole_step, Sweeps::Tree, pushed)
    }

    /// [`Self::solve`] with its Gauss–Seidel sweeps run as `sweeps` says.
    pub fn solve_on(
        &mut self,
        bodies: &mut [Body],
        contacts: &[RestingContact],
        settings: &StepSettings,
        whole_step: bool,
        sweeps: Sweeps<'_>,
        pushed: impl FnMut(&ContactImpulse),
    ) -> StepReport {
        let h = settings.h;
        let Solver {
            constraints,
            velocities,
            warm,
            tree,
            levels,
            push,
            prepare,
            colouring,
            packed,
            lanes,
        } = self;
        // Prepare: the carried push-outs off, the rows and patches built and matched with the
        // last step's, ordered bottom up, the bodies given velocity slots and the tree of parts.
        let prepared = std::time::Instant::now();
        push.take_pushes(bodies, contacts);
        prepare_contacts(constraints, prepare, bodies, contacts, settings);
        // The warm impulses are found while the patches are in pair order, their rows one
        // after the other (on all cores), and applied once the bodies have their slots.
        let span = warm.span(h);
        if whole_step {
            warm.find_previous(&mut constraints.patches);
            warm_impulses(warm, constraints, bodies, warm.scale(span));
        }
        constraints.order_bottom_up();
        assign_slots(tree, velocities, constraints, bodies, settings.gravity);
        // Sweeps, then shock propagation, over the tree of parts.
        group_parts(tree, constraints);
        let shock = settings.shock_iterations > 0 && !velocities.moving.is_empty();
        let kernel = match sweeps {
            _ if constraints.patches.len() < LANE_MIN_PATCHES => None,
            Sweeps::Tree => Some(LaneKernel::Lanes),
            Sweeps::Scalar => Some(LaneKernel::Scalar),
            _ => None,
        };
        // The warm start (bottom up, in the order the sweeps take), the shock levels and the
        // lanes' groups read the patches only, each writing its own store: a large step's are
        // run at once (each is serial, and the step's other threads wait for them).
        {
            let moving = velocities.moving.len();
            let (constraints, tree) = (&*constraints, &*tree);
            let patches = &constraints.patches;
            let mut warm_up = || {
                if whole_step {
                    warm_start(warm, constraints, &tree.placed, velocities);
                }
            };
            let mut build_levels = || {
                if shock {
                    levels.build(patches, moving);
                }
            };
            let mut build_lanes = || {
                if kernel.is_some() {
                    lanes.build(tree, patches, moving);
                }
            };
            if kernel.is_some() {
                rayon::join(warm_up, || rayon::join(build_levels, build_lanes));
            } else {
                warm_up();
                build_levels();
                build_lanes();
            }
        }
        let prepare_seconds = prepared.elapsed().as_secs_f64();
        let clock = std::time::Instant::now();
        let swept = match sweeps {
            Sweeps::Tree | Sweeps::Scalar | Sweeps::Plain => None,
            Sweeps::Coloured => {
                colouring.colour(&constraints.patches, velocities.moving.len());
                Some(coloured_sweeps(
                    constraints,
                    colouring,
                    &mut velocities.moving,
                    &velocities.still,
                    settings,
                ))
            }
            Sweeps::Device(device) => {
                colouring.colour(&constraints.patches, velocities.moving.len());
                device_sweeps(device, constraints, colouring, velocities, settings, packed)
                    .ok()
                    .map(|r| StepReport {
                        device_seconds: clock.elapsed().as_secs_f64(),
                        ..r
                    })
            }
        };
        let mut report = sweep_parts(
            constraints,
            &mut velocities.moving,
            &velocities.still,
            tree,
            shock.then_some(&*levels),
            settings,
            swept,
            kernel.map(|k| (lanes.shared(), k)),
        );
        report.sweep_seconds = clock.elapsed().as_secs_f64();
        report.prepare_seconds = prepare_seconds;
        // Store: the velocities, the push-out, the impulses reported and kept.
        let stored = std::time::Instant::now();
        velocities.store(bodies);
        push.push_apart(
            &mut constraints.patches,
            &constraints.rows,
            velocities,
            bodies,
            settings,
        );
        report_impulses(constraints, bodies, pushed);
        if whole_step {
            warm.store(constraints, h, span);
        }
        report.store_seconds = stored.elapsed().as_secs_f64();
        report
    }
}

/// Calls `pushed` once per contact of `constraints` that ended with a positive normal impulse.
fn report_impulses(
    constraints: &Constraints,
    bodies: &[Body],
    mut pushed: impl FnMut(&ContactImpulse),
) {
    for patch in &constraints.patches {
        let rows = &constraints.rows[patch.first..patch.first + patch.count];
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
}

impl Solver {
    /// Renumbers the bodies of the impulses kept for the warm start after bodies were removed
    /// (`new_of[i]`: body i's new index, `u32::MAX` if removed; see `WarmStartCache::renumber`).
    pub fn renumber_bodies(&mut self, new_of: &[u32]) {
        self.warm.renumber(new_of);
    }
}

#[cfg(test)]
impl Solver {
    /// The last step's lanes: groups, and lanes holding a patch.
    pub(crate) fn last_lanes(&self) -> (usize, usize) {
        self.lanes.occupancy()
    }

    /// The last coloured step's colour count, and whether no two patches of one colour share a
    /// moving body.
    pub(crate) fn last_colouring(&self) -> (usize, bool) {
        (
            self.colouring.colours(),
            super::colouring::colours_are_independent(&self.colouring, &self.constraints.patches),
        )
    }
}
