//! The projected Gauss–Seidel sweeps of a contact step: one sweep over a part's patches
//! ([`sweep_patches`], each patch's normal rows then its friction rows), the order a sweep takes
//! the rows in ([`RowOrder`]), when to stop sweeping ([`StallWatch`]), and
//! [`Solver::sweep_parts`], which runs the sweeps and then the shock-propagation levels over the
//! step's tree of parts, each level's nodes at once.

use super::crew::{with_crew, Crew};
use super::patch::{Load, Patch};
use super::shock::sweep_one_sided;
use super::slots::{read, Slots, Vel, STILL};
use super::split::{Part, Shared, Tree};
use super::{Solver, StepReport, StepSettings};
use glam::{DMat3, DVec3};

/// Rounds of fewer patches than this run on the calling thread (see [`Solver::sweep_parts`]).
const SHARED_ROUND: usize = 128;

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

/// The order a sweep takes a patch's normal rows in: as stored on even sweeps, reversed on odd
/// ones (symmetric Gauss–Seidel), in the sweeps and in the shock-propagation pass alike. A face
/// resting on four corners is statically indeterminate, and a few sweeps always in one order
/// leave a residual spin towards the corner solved last: a stack then stands higher above its
/// target and slides further than with alternating orders.
#[derive(Clone, Copy)]
pub(super) enum RowOrder {
    Forward,
    Backward,
}

impl RowOrder {
    /// The order of sweep number `sweep` (from 0).
    pub(super) fn of_sweep(sweep: usize) -> RowOrder {
        if sweep.is_multiple_of(2) {
            RowOrder::Forward
        } else {
            RowOrder::Backward
        }
    }

    /// The index of the `k`-th row to take of `count`.
    #[inline(always)]
    pub(super) fn index(self, k: usize, count: usize) -> usize {
        match self {
            RowOrder::Forward => k,
            RowOrder::Backward => count - 1 - k,
        }
    }
}

/// A round of jobs for the crew (see [`crew`](super::crew)), each job one node of a level of
/// the step's tree: one sweep of the node's patches, or one shock-propagation sweep of its
/// patches among `by_level[from..to]` (one level of shock propagation).
#[derive(Clone, Copy)]
enum Job {
    Sweep(RowOrder),
    Shock {
        from: usize,
        to: usize,
        order: RowOrder,
    },
}

/// One projected Gauss–Seidel sweep over the patches of `part`, each patch's normal rows in
/// `order` (see [`RowOrder`]). Returns the largest change of a predicted end position.
fn sweep_patches(part: &mut Part<'_, impl Slots>, still: &[Vel], h: f64, order: RowOrder) -> f64 {
    let (rows, row_base, slots) = (&mut *part.rows, part.row_base, &mut part.slots);
    let mut residual_sq: f64 = 0.0;
    for patch in part.patches.iter_mut() {
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
        let first = patch.first - row_base;
        for k in 0..patch.count {
            let row = &mut rows[first + order.index(k, patch.count)];
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
            let r = friction_rows(patch, &mut va, &mut vb, moves, load, k_tt_inv, twist_inv, h);
            residual_sq = residual_sq.max(r);
        }
        if a_moves {
            slots.set(sa, va);
        }
        if b_moves {
            slots.set(sb, vb);
        }
    }
    // Kept squared over the sweep (one square root here, not one per patch).
    residual_sq.sqrt()
}

/// The friction rows of one patch, after its normal rows' impulses made `load`: the tangential
/// impulse at the centre of pressure inside the Coulomb disk `μ·Σp` (eq. 5–6), then the
/// twisting impulse about the normal inside μ times the loads' twisting moment about it, each
/// applied to the bodies that `moves`, with the tangent-plane inverse `k_tt_inv` and twisting
/// inverse `twist_inv` of those bodies (taken at the centroid: they set the step towards the
/// solution, not the solution).
/// Returns the square of the largest change of a predicted end position over a step of `h`
/// (squared: no square root for a residual that is only compared).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn friction_rows(
    patch: &mut Patch,
    va: &mut Vel,
    vb: &mut Vel,
    moves: [bool; 2],
    load: Load,
    k_tt_inv: DMat3,
    twist_inv: f64,
    h: f64,
) -> f64 {
    let mut residual_sq: f64 = 0.0;
    let n = patch.normal;
    let total = load.total;
    // The centre of pressure: a curved body modelled as a hull touches on its lowest vertex
    // while its neighbours within the margin carry nothing, and friction at their centroid
    // would resist its spin about that vertex as a slip.
    let at = patch.pressure_point(&load);
    let u = va.v + va.w.cross(at.0) - vb.v - vb.w.cross(at.1) + patch.drift;
    let ut = u - u.dot(n) * n;
    let mut pt = patch.tangential - k_tt_inv * ut;
    pt -= pt.dot(n) * n;
    // Compared squared: the square root is only taken where the impulse is clamped (a
    // sliding patch), not for every sticking one.
    let limit = patch.friction * total;
    let len_sq = pt.length_squared();
    if len_sq > limit * limit {
        pt *= limit / len_sq.sqrt();
    }
    let dpt = pt - patch.tangential;
    if dpt != DVec3::ZERO {
        residual_sq = residual_sq.max((patch.k * dpt).length_squared() * (h * h));
        patch.apply_at(va, vb, moves, at, dpt, 0.0);
        patch.tangential = pt;
    }
    if twist_inv > 0.0 {
        let spin = n.dot(va.w - vb.w);
        // Inside μ·M, M the loads' twisting moment; compared squared, so the square root is
        // only taken for a twist that slips.
        let tw = patch.twist - twist_inv * spin;
        let limit_sq = patch.friction * patch.friction * load.twist_moment_sq();
        let tw = if tw * tw > limit_sq {
            limit_sq.sqrt().copysign(tw)
        } else {
            tw
        };
        let dtw = tw - patch.twist;
        if dtw != 0.0 {
            let r = dtw / twist_inv * patch.radius * h;
            residual_sq = residual_sq.max(r * r);
            patch.apply_at(va, vb, moves, (patch.ra, patch.rb), DVec3::ZERO, dtw);
            patch.twist = tw;
        }
    }
    residual_sq
}

impl Solver {
    /// The step's Gauss–Seidel sweeps (until the residual is within the tolerance, stalls, or
    /// `max_iterations`), then, with `shock`, the shock-propagation levels' sweeps
    /// ([`Self::shock_levels`]). Each sweep takes the tree's levels leaves first (`split`), the
    /// nodes of a level at the same time on the crew's threads ([`crew`](super::crew): they
    /// share no moving body), so the result is that of taking the nodes one after the other,
    /// on any number of threads.
    pub(super) fn sweep_parts(&mut self, settings: &StepSettings, shock: bool) -> StepReport {
        let h = settings.h;
        let Solver {
            patches,
            rows,
            moving,
            still,
            by_level,
            one_sided,
            tree,
            ..
        } = self;
        let (still, by_level, one_sided, tree) = (&*still, &*by_level, &*one_sided, &*tree);
        let shared = Shared::new(patches, rows, moving);
        let work = |job: Job, k: usize| {
            let span = &tree.nodes[k];
            if span.patches.0 == span.patches.1 {
                return 0.0;
            }
            // SAFETY: the crew runs the nodes of one level at a time, and `patches`, `rows`
            // and `moving` stay borrowed here until it is done.
            let mut part = unsafe { shared.part(span) };
            match job {
                Job::Sweep(order) => sweep_patches(&mut part, still, h, order),
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
                Job::Sweep(_) => p1 - p0,
                Job::Shock { from, to, .. } => {
                    let entries = &by_level[from..to];
                    entries.partition_point(|e| (e.1 as usize) < p1)
                        - entries.partition_point(|e| (e.1 as usize) < p0)
                }
            }
        };
        // One round per level of the tree, leaves first; the largest residual. A round of
        // fewer than `SHARED_ROUND` patches runs on this thread (most shock-propagation
        // levels): handing it over would cost more than its sweep.
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
            let mut report = StepReport::default();
            let mut watch = StallWatch::new(settings.stall_window);
            for k in 0..settings.max_iterations {
                let residual = sweep(crew, Job::Sweep(RowOrder::of_sweep(k)));
                report.iterations = k + 1;
                report.residual = residual;
                if residual <= settings.tolerance || watch.stalled(k, residual) {
                    break;
                }
            }
            if !shock {
                return report;
            }
            let mut i = 0;
            while i < by_level.len() {
                let level = by_level[i].0;
                let j = i + by_level[i..].iter().take_while(|e| e.0 == level).count();
                for k in 0..settings.shock_iterations {
                    let order = RowOrder::of_sweep(k);
                    sweep(
                        crew,
                        Job::Shock {
                            from: i,
                            to: j,
                            order,
                        },
                    );
                }
                i = j;
            }
            report
        })
    }
}
