//! The projected Gauss–Seidel sweeps of a contact step: one sweep over a part's patches
//! ([`sweep_patches`], each patch's normal rows then its friction rows), when to stop sweeping
//! ([`StallWatch`]), and [`sweep_parts`], which runs the sweeps and then the shock-propagation
//! levels over the step's tree of parts, each level's nodes at once.

use super::crew::{with_crew, Crew};
use super::friction::friction_rows;
use super::lanes::{LaneKernel, SharedLanes};
use super::patch::{Constraints, Load, Patch, Row, RowOrder};
use super::shock::{shock_propagation, sweep_one_sided, ShockLevels};
use super::slots::{read, Slots, Vel, STILL};
use super::split::{Part, Shared, Tree};
use super::{StepReport, StepSettings};

/// Rounds of fewer patches than this run on the calling thread (see [`sweep_parts`]).
const SHARED_ROUND: usize = 24;

/// A residual above this fraction of its value `stall_window` sweeps earlier is stalled.
const STALL_RATIO: f64 = 0.8;

/// Largest `stall_window` honoured.
const MAX_STALL_WINDOW: usize = 16;

/// Watches a run of sweeps' residuals for a stall (see [`StepSettings::stall_window`]).
pub(super) struct StallWatch {
    window: usize,
    /// The last `window` residuals, by sweep number modulo the window.
    history: [f64; MAX_STALL_WINDOW],
}

impl StallWatch {
    /// A watch over `window` sweeps (0: never stalls).
    pub(super) fn new(window: usize) -> Self {
        StallWatch {
            window: window.min(MAX_STALL_WINDOW),
            history: [f64::INFINITY; MAX_STALL_WINDOW],
        }
    }

    /// Records sweep `sweep`'s (from 0) residual; true once it is above `STALL_RATIO` times
    /// the residual `window` sweeps earlier, from sweep `2·window` on.
    pub(super) fn stalled(&mut self, sweep: usize, residual: f64) -> bool {
        if self.window == 0 {
            return false;
        }
        let slot = sweep % self.window;
        let stalled = sweep >= 2 * self.window && residual > STALL_RATIO * self.history[slot];
        self.history[slot] = residual;
        stalled
    }
}

/// A round of jobs for the crew (see [`crew`](super::crew)), each job one node of a level of
/// the step's tree: one sweep of the node's patches, or one shock-propagation sweep of its
/// patches among `by_level[from..to]` (one level of shock propagation).
#[derive(Clone, Copy)]
enum Job {
    Sweep(RowOrder),
    /// The node's lanes packed from its patches and rows, or their impulses given back.
    Pack,
    Unpack,
    Shock {
        from: usize,
        to: usize,
        order: RowOrder,
    },
}

/// One projected Gauss–Seidel sweep over the patches of `part`, each patch's normal rows in
/// `order` (see [`RowOrder`]). Returns the largest change of a predicted end position.
fn sweep_patches(part: &mut Part<'_, impl Slots>, still: &[Vel], h: f64, order: RowOrder) -> f64 {
    let patches = part.patch_base..part.patch_base + part.patches.len();
    sweep_in_order(part, patches, still, h, order)
}

/// One scalar sweep over the patches of `part` in the order `patches` (step indices): the
/// lanes' twin. Returns the largest change of a predicted end position.
fn sweep_in_order(
    part: &mut Part<'_, impl Slots>,
    patches: impl Iterator<Item = usize>,
    still: &[Vel],
    h: f64,
    order: RowOrder,
) -> f64 {
    let (rows, row_base) = (&mut *part.rows, part.row_base);
    let mut residual_sq: f64 = 0.0;
    for k in patches {
        let patch = &mut part.patches[k - part.patch_base];
        let first = patch.first - row_base;
        let patch_rows = &mut rows[first..first + patch.count];
        let r = sweep_patch(patch, patch_rows, &mut part.slots, still, h, order);
        residual_sq = residual_sq.max(r);
    }
    residual_sq.sqrt()
}

/// One patch of a sweep: its normal rows (`rows`, the patch's own) in `order`, then its
/// friction rows. Returns the square of the largest change of a predicted end position.
#[inline(always)]
pub(super) fn sweep_patch(
    patch: &mut Patch,
    rows: &mut [Row],
    slots: &mut impl Slots,
    still: &[Vel],
    h: f64,
    order: RowOrder,
) -> f64 {
    let mut residual_sq: f64 = 0.0;
    let (sa, sb) = (patch.sa, patch.sb);
    // The two bodies' velocities stay in locals for the whole patch and are stored once at
    // its end: every row of a patch updates the same two bodies, and reading back a
    // velocity just stored stalls on store forwarding (the sweep's hottest instruction was
    // that load). Same arithmetic in the same order as updating them in place.
    let (mut va, mut vb) = (read(sa, slots, still), read(sb, slots, still));
    let (a_moves, b_moves) = (sa & STILL == 0, sb & STILL == 0);
    // Normal rows (eq. 8 with the clamp of eq. 3: the accumulated normal impulse never
    // pulls).
    let mut load = Load::default();
    for k in 0..patch.count {
        let row = &mut rows[order.index(k, patch.count)];
        let n = row.normal;
        let un = n.dot(va.v + va.w.cross(row.ra) - vb.v - vb.w.cross(row.rb)) + row.drift;
        let pn = (row.impulse + (row.bias - un) * row.inv_k_nn).max(0.0);
        let dp = pn - row.impulse;
        load.add(pn, row);
        if dp == 0.0 {
            continue;
        }
        let r = row.k_nn * dp * h;
        residual_sq = residual_sq.max(r * r);
        row.apply_to(&mut va, &mut vb, a_moves, b_moves, dp);
        row.impulse = pn;
    }
    if patch.friction > 0.0 {
        let (k_tt_inv, twist_inv) = (patch.k_tt_inv, patch.twist_inv);
        let moves = [a_moves, b_moves];
        let r = friction_rows(
            patch, rows, &mut va, &mut vb, moves, load, k_tt_inv, twist_inv, h,
        );
        residual_sq = residual_sq.max(r);
    }
    if a_moves {
        slots.set(sa, va);
    }
    if b_moves {
        slots.set(sb, vb);
    }
    residual_sq
}

/// The sweeps and shock-propagation stages: the step's Gauss–Seidel sweeps
/// ([`gauss_seidel_sweeps`]), then, given the shock-propagation `levels` ([`ShockLevels`]),
/// their sweeps (`shock::shock_propagation`), in the span of one crew (the helpers are claimed
/// once for both); given `swept`, the report of sweeps already done in colour order
/// (`colouring`), only the shock-propagation levels. Each sweep takes the tree's levels leaves first (`split`), the nodes of a
/// level at the same time on the crew's threads ([`crew`](super::crew): they share no moving
/// body), so the result is that of taking the nodes one after the other, on any number of
/// threads.
/// Given `lanes`, each node's Gauss–Seidel sweeps go over its groups (`lanes`) with that
/// kernel, in the groups' order.
/// Changes the impulses of `constraints` and the velocities `moving`; reads the velocities of
/// the still slots from `still`.
#[allow(clippy::too_many_arguments)]
pub(super) fn sweep_parts(
    constraints: &mut Constraints,
    moving: &mut [Vel],
    still: &[Vel],
    tree: &Tree,
    levels: Option<&ShockLevels>,
    settings: &StepSettings,
    swept: Option<StepReport>,
    lanes: Option<(SharedLanes<'_>, LaneKernel)>,
) -> StepReport {
    let h = settings.h;
    let (by_level, one_sided) = match levels {
        Some(levels) => (&levels.by_level[..], &levels.one_sided[..]),
        None => (&[][..], &[][..]),
    };
    let shared = Shared::new(&mut constraints.patches, &mut constraints.rows, moving);
    let work = |job: Job, k: usize| {
        let span = &tree.nodes[k];
        if span.patches.0 == span.patches.1 {
            return 0.0;
        }
        // SAFETY: the crew runs the nodes of one level at a time, and `patches`, `rows`
        // and `moving` stay borrowed here until it is done.
        let mut part = unsafe { shared.part(span) };
        // SAFETY: as above, the nodes' groups, one level at a time.
        let node = || lanes.map(|(l, kernel)| (unsafe { l.node(k) }, kernel));
        match job {
            Job::Sweep(order) => match node() {
                Some((mut node, LaneKernel::Lanes)) => node.sweep(&mut part, still, h, order),
                Some((node, LaneKernel::Scalar)) => {
                    sweep_in_order(&mut part, node.patch_order(), still, h, order)
                }
                None => sweep_patches(&mut part, still, h, order),
            },
            Job::Pack => {
                if let Some((mut node, _)) = node() {
                    node.pack(&part);
                }
                0.0
            }
            Job::Unpack => {
                if let Some((node, _)) = node() {
                    node.unpack(&mut part);
                }
                0.0
            }
            Job::Shock { from, to, order } => {
                // The level's entries are in patch order, and the patches in node order.
                let entries = &by_level[from..to];
                let lo = from + entries.partition_point(|e| (e.1 as usize) < span.patches.0);
                let hi = from + entries.partition_point(|e| (e.1 as usize) < span.patches.1);
                sweep_one_sided(
                    &by_level[lo..hi],
                    &one_sided[lo..hi],
                    &mut part,
                    still,
                    order,
                );
                0.0
            }
        }
    };
    let depth = tree.depth;
    // The patches of tree level `level`, and of them those among `by_level[from..to]`.
    let level_patches = |level: u32| {
        let nodes = Tree::level(level);
        (
            tree.nodes[nodes.start].patches.0,
            tree.nodes[nodes.end - 1].patches.1,
        )
    };
    let round_patches = |job: Job, level: u32| {
        let (p0, p1) = level_patches(level);
        match job {
            Job::Sweep(_) | Job::Pack | Job::Unpack => p1 - p0,
            Job::Shock { from, to, .. } => {
                let entries = &by_level[from..to];
                entries.partition_point(|e| (e.1 as usize) < p1)
                    - entries.partition_point(|e| (e.1 as usize) < p0)
            }
        }
    };
    // One round per level of the tree, leaves first; the largest residual. A round of
    // fewer than `SHARED_ROUND` patches runs on this thread: handing it over would cost
    // more than its sweep (at 128, most of shock propagation's rounds ran on one thread).
    let sweep = |crew: &Crew<'_, Job>, job: Job| {
        (0..=depth)
            .rev()
            .map(|level| {
                let share = round_patches(job, level) >= SHARED_ROUND;
                crew.run(job, Tree::level(level), share)
            })
            .fold(0.0, f64::max)
    };
    with_crew((1 << depth) - 1, &work, |crew| {
        let packed = matches!(lanes, Some((_, LaneKernel::Lanes)));
        let report = match swept {
            Some(report) => report,
            None => {
                if packed {
                    sweep(crew, Job::Pack);
                }
                let report = gauss_seidel_sweeps(settings, |order| sweep(crew, Job::Sweep(order)));
                if packed {
                    sweep(crew, Job::Unpack);
                }
                report
            }
        };
        if levels.is_some() {
            let clock = std::time::Instant::now();
            shock_propagation(by_level, settings, |from, to, order| {
                sweep(crew, Job::Shock { from, to, order });
            });
            return StepReport {
                shock_seconds: clock.elapsed().as_secs_f64(),
                ..report
            };
        }
        report
    })
}

/// The sweeps stage: Gauss–Seidel sweeps by `sweep` (one whole sweep of the step in the given
/// row order, returning its residual) until the residual is within the tolerance, stalls
/// ([`StallWatch`]), or `max_iterations`.
pub(super) fn gauss_seidel_sweeps(
    settings: &StepSettings,
    mut sweep: impl FnMut(RowOrder) -> f64,
) -> StepReport {
    let mut report = StepReport::default();
    let mut watch = StallWatch::new(settings.stall_window);
    for k in 0..settings.max_iterations {
        let residual = sweep(RowOrder::of_sweep(k));
        report.iterations = k + 1;
        report.residual = residual;
        if residual <= settings.tolerance || watch.stalled(k, residual) {
            break;
        }
    }
    report
}
