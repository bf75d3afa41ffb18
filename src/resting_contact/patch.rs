//! A pair's constraints in one contact step: a normal [`Row`] per contact point and one friction
//! [`Patch`] per pair (built from the pair's contacts by `prepare`), the step's [`Constraints`]
//! and the orders they are swept in, and how an impulse on each is applied to the two bodies'
//! velocities.

use super::parallel_append::append_pieces;
use super::slots::Vel;
use crate::body::Body;
use glam::{DMat3, DVec3};

/// Normal row of one contact point.
#[derive(Clone, Copy, Default)]
pub(super) struct Row {
    pub(super) ra: DVec3,
    pub(super) rb: DVec3,
    pub(super) normal: DVec3,
    /// Required minimum of the step-mean normal velocity (m/s).
    pub(super) bias: f64,
    /// Required minimum of the step-mean normal push-out velocity (m/s; see `push_apart`).
    pub(super) push: f64,
    /// Step-mean normal velocity the bodies' accelerations add: n·½·h·a (m/s).
    pub(super) drift: f64,
    /// n·K·n: the row's inverse effective mass.
    pub(super) k_nn: f64,
    /// 1 / n·K·n, the row's effective mass: each update multiplies by it instead of
    /// dividing by `k_nn` (a division sat on the sweep's dependency chain from one row to the
    /// next, and was its hottest instruction).
    pub(super) inv_k_nn: f64,
    /// The effective masses of the row with only a, or only b, taking impulses (the
    /// shock-propagation pass's one-sided rows): 1 / (1/m_a + (r_a×n)·I_a⁻¹(r_a×n)), and the
    /// same for b; 0 where that body does not yield.
    pub(super) inv_k_a: f64,
    pub(super) inv_k_b: f64,
    /// Velocity change of a per unit normal impulse: linear `n/m_a`, angular `I_a⁻¹(r_a × n)`
    /// (and of b, with the opposite sign): the impulse is applied without re-forming the
    /// world inertia at every Gauss–Seidel update.
    pub(super) lin_a: DVec3,
    pub(super) ang_a: DVec3,
    pub(super) lin_b: DVec3,
    pub(super) ang_b: DVec3,
    /// Accumulated normal impulse on a (−impulse·n on b).
    pub(super) impulse: f64,
    /// The part of `impulse` the shock-propagation pass added with one body frozen (see
    /// `WarmStartCache::store`).
    pub(super) one_sided: f64,
    /// The point in the frame of the body it is tracked on (for warm starting).
    pub(super) local: DVec3,
    /// Its offset from its patch's centroid across the normal (m), and that offset's square
    /// length: where its load puts the patch's centre of pressure ([`Load`]).
    pub(super) spread: DVec3,
    pub(super) spread_sq: f64,
    /// Its distance from the centroid, `|spread|`.
    pub(super) lever: f64,
    /// In a patch that slides through the step, the direction of this point's slip at the
    /// step's start, and that direction's moment arm about the normal through the centroid,
    /// `(spread × slip)·n` (zero otherwise).
    pub(super) slip: DVec3,
    pub(super) twist_arm: f64,
}

/// The normal impulses of a patch's rows as its friction sees them: their total, and their
/// first and second moments of the points' offsets from the centroid across the normal
/// (Σ p, Σ p·s, Σ p·|s|²). The friction acts at the centre of pressure, where the moment of a
/// sliding pressure distribution's friction vanishes, and resists a twist by the loads' spread
/// about it.
#[derive(Clone, Copy, Default)]
pub(super) struct Load {
    pub(super) total: f64,
    first: DVec3,
    second: f64,
}

impl Load {
    /// Adds normal impulse `p` of `row`.
    #[inline(always)]
    pub(super) fn add(&mut self, p: f64, row: &Row) {
        self.add_point(p, row.spread, row.spread_sq);
    }

    /// Adds normal impulse `p` at offset `spread` from the centroid, whose square length is
    /// `spread_sq`.
    #[inline(always)]
    pub(super) fn add_point(&mut self, p: f64, spread: DVec3, spread_sq: f64) {
        self.total += p;
        self.first += spread * p;
        self.second += p * spread_sq;
    }

    /// The centre of pressure's offset from the centroid (zero without a load).
    #[inline(always)]
    pub(super) fn centre(&self) -> DVec3 {
        if self.total > 0.0 {
            self.first / self.total
        } else {
            DVec3::ZERO
        }
    }

    /// The loads' twisting lever about the centre of pressure, times their total: Σ p·ρ with
    /// ρ the root mean square distance from it (the mean distance for a face on its corners,
    /// 0 for a single loaded point).
    #[inline(always)]
    pub(super) fn twist_moment(&self) -> f64 {
        self.twist_moment_sq().sqrt()
    }

    /// The square of [`Self::twist_moment`].
    #[inline(always)]
    pub(super) fn twist_moment_sq(&self) -> f64 {
        (self.total * self.second - self.first.length_squared()).max(0.0)
    }
}

/// The contact points of one pair in one step, with their friction as one patch: a tangential
/// impulse at the points' centre of pressure bounded by `μ·Σp_n`, and a twisting impulse about
/// the normal bounded by `μ·Σp_n·ρ` with ρ the loads' RMS distance from that centre ([`Load`]).
///
/// Friction per point (each point's own Coulomb disk) is the literal reading of eq. 6, but a
/// face resting on four corners is statically indeterminate: Gauss–Seidel settles on one of
/// many normal load sets, generally lopsided, and per-point friction proportional to lopsided
/// loads twists a sliding block about the normal and makes it slide too fast. The friction of
/// a sliding pressure distribution has its resultant at the centre of pressure whatever the
/// distribution, which is what the patch applies; on a face the indeterminate part of the
/// loads moves neither that centre nor ρ. The centroid below is where the patch's effective
/// masses are taken.
#[derive(Clone, Copy)]
pub(super) struct Patch {
    pub(super) a: usize,
    pub(super) b: usize,
    /// Centroid of the points relative to each centre of mass.
    pub(super) ra: DVec3,
    pub(super) rb: DVec3,
    pub(super) normal: DVec3,
    pub(super) friction: f64,
    /// Step-mean relative velocity the accelerations add at the centroid: ½·h·a (m/s).
    pub(super) drift: DVec3,
    /// Collision matrix K at the centroid.
    pub(super) k: DMat3,
    /// Effective inverse masses and world inverse inertias of a and b (0 for bodies that do
    /// not yield).
    pub(super) inv_mass_a: f64,
    pub(super) inv_mass_b: f64,
    pub(super) inv_inertia_a: DMat3,
    pub(super) inv_inertia_b: DMat3,
    /// Inverse of K at the centroid restricted to the tangent plane.
    pub(super) k_tt_inv: DMat3,
    /// Inverse of `n·(I_a⁻¹ + I_b⁻¹)·n`: the twisting row's effective inertia (0: no twist).
    pub(super) twist_inv: f64,
    /// Mean distance of the points from the centroid (m): the scale of the twisting row's
    /// residual (its limit comes from the loads, [`Load::twist_moment`]).
    pub(super) radius: f64,
    /// Its normal rows: `rows[first..first + count]`.
    pub(super) first: usize,
    pub(super) count: usize,
    /// Whether the patch slides through the step (its rows' `slip` are set; see
    /// `friction::sliding_shares`).
    pub(super) slides: bool,
    /// Accumulated tangential impulse on a (at the centre of pressure).
    pub(super) tangential: DVec3,
    /// Accumulated twisting impulse on a about the normal (N·m·s).
    pub(super) twist: f64,
    /// The parts of `tangential` and `twist` the shock-propagation pass added with one body
    /// frozen (see `WarmStartCache::store`).
    pub(super) one_sided: (DVec3, f64),
    /// Height of the centroid along −gravity (sweep order: bottom up).
    pub(super) height: f64,
    /// Velocity slots of a and b (see `split::assign_slots`).
    pub(super) sa: u32,
    pub(super) sb: u32,
    /// Node of the step's tree of parts (heap numbering, root 1; see `split`).
    pub(super) node: u8,
    /// Where the pair's entries of the previous step start in the warm-start cache's points and
    /// patches (u32::MAX: none), found for the warm start while the patches
    /// are still in pair order (`WarmStartCache::find_previous`).
    pub(super) previous_rows: u32,
    pub(super) previous_patch: u32,
    /// Which of its pair's patches this is, in the order they were added (0 for a pair with
    /// one; see `prepare`).
    pub(super) group: u16,
    /// Its index as prepared, in the step's pair order: the order the warm-start cache keeps
    /// ([`super::warm_start::WarmStartCache::store`]) once the patches are reordered.
    pub(super) rank: u32,
}

/// The constraints of one contact step: the normal rows of all its contact points and the
/// friction patches of all its pairs, each patch's rows one slice of `rows`
/// (`rows[patch.first..patch.first + patch.count]`), and the buffers they are put in order
/// through.
#[derive(Clone, Default)]
pub(super) struct Constraints {
    pub(super) rows: Vec<Row>,
    pub(super) patches: Vec<Patch>,
    /// Scratch for ordering the patches: by height (with their index), and the patches and the
    /// rows in their new order.
    order: Vec<(f64, u32)>,
    gathered: Vec<Patch>,
    reordered: Vec<Row>,
}

impl Constraints {
    /// Finds the patches' bottom-up order (by height along −gravity, equal heights in pair
    /// order), [`Self::bottom_up`]; the patches stay where they are until
    /// [`Self::gather_patches`] puts them in their sweep order.
    pub(super) fn order_bottom_up(&mut self) {
        // Bottom up: in a pile the lower contacts carry the upper ones, so Gauss–Seidel
        // converges faster sweeping upwards (the idea behind shock propagation). Equal heights
        // keep pair order. The patches are large (over 400 bytes): the keys are sorted, and the
        // patches are copied once, by the node order that follows (`split::group_parts`).
        let order = &mut self.order;
        order.clear();
        order.extend(
            self.patches
                .iter()
                .enumerate()
                .map(|(k, p)| (p.height, k as u32)),
        );
        // The keys are distinct (each has its index): any sort gives the one order, and a
        // large step's is sorted on the pool's threads.
        let by_key = |x: &(f64, u32), y: &(f64, u32)| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1));
        if order.len() < 2 * PARALLEL_COPY {
            order.sort_unstable_by(by_key);
        } else {
            use rayon::prelude::*;
            order.par_sort_unstable_by(by_key);
        }
    }

    /// The patches' indices bottom up ([`Self::order_bottom_up`]).
    pub(super) fn bottom_up(&self) -> impl Iterator<Item = usize> + Clone + '_ {
        self.order.iter().map(|&(_, k)| k as usize)
    }

    /// Puts the patches in the order `order` (each patch's present index, once each) by
    /// copying each once into a second buffer.
    pub(super) fn gather_patches(&mut self, order: &[u32]) {
        gather(&mut self.patches, &mut self.gathered, order);
    }

    /// Puts the rows in the order of their patches, so that the rows of consecutive patches
    /// are one slice. A large step's rows (megabytes) are copied in halves on the pool's
    /// threads, each half of the patches into its own part of the new buffer.
    pub(super) fn gather_rows(&mut self) {
        self.reordered.clear();
        let rows = &self.rows;
        append_pieces(
            &mut self.reordered,
            &self.patches,
            |p| &rows[p.first..p.first + p.count],
            PARALLEL_COPY,
        );
        let mut first = 0;
        for patch in self.patches.iter_mut() {
            patch.first = first;
            first += patch.count;
        }
        // Double buffering: the old order's buffer is the next reorder's.
        std::mem::swap(&mut self.rows, &mut self.reordered);
    }
}

/// Patches a thread copies at a time in [`gather`] and [`Constraints::gather_rows`]: below it,
/// handing a part to another thread costs more than the copy.
const PARALLEL_COPY: usize = 256;

/// Puts `patches` in the order `order` (each patch's present index, once each) by copying each
/// once into `gathered`, on the pool's threads, then swaps the two buffers.
fn gather(patches: &mut Vec<Patch>, gathered: &mut Vec<Patch>, order: &[u32]) {
    use rayon::prelude::*;
    debug_assert_eq!(order.len(), patches.len());
    let from = &*patches;
    if order.len() < 2 * PARALLEL_COPY {
        // The event loop's small re-solves: no hand-over at all.
        gathered.clear();
        gathered.extend(order.iter().map(|&k| from[k as usize]));
        std::mem::swap(patches, gathered);
        return;
    }
    order
        .par_iter()
        .with_min_len(PARALLEL_COPY)
        .map(|&k| from[k as usize])
        .collect_into_vec(gathered);
    std::mem::swap(patches, gathered);
}

impl Row {
    /// Applies normal impulse `dp` (on a; −dp on b) to the velocities `va`, `vb` of a and b
    /// (each only if it moves).
    pub(super) fn apply_to(
        &self,
        va: &mut Vel,
        vb: &mut Vel,
        a_moves: bool,
        b_moves: bool,
        dp: f64,
    ) {
        if a_moves {
            va.v += self.lin_a * dp;
            va.w += self.ang_a * dp;
        }
        if b_moves {
            vb.v += -(self.lin_b * dp);
            vb.w += -(self.ang_b * dp);
        }
    }
}

impl Patch {
    /// Where the friction of `load` acts: its centre of pressure, from a's and from b's centre
    /// of mass.
    #[inline(always)]
    pub(super) fn pressure_point(&self, load: &Load) -> (DVec3, DVec3) {
        let centre = load.centre();
        (self.ra + centre, self.rb + centre)
    }

    /// Applies tangential impulse `p` at `ra`, `rb` from the centres of mass (the centre of
    /// pressure, [`Self::pressure_point`]) and twisting impulse `twist` about the normal (on a;
    /// the opposite on b) to the velocities `va`, `vb` of a and b (each only if it moves).
    #[inline(always)]
    pub(super) fn apply_at(
        &self,
        va: &mut Vel,
        vb: &mut Vel,
        [a_moves, b_moves]: [bool; 2],
        (ra, rb): (DVec3, DVec3),
        p: DVec3,
        twist: f64,
    ) {
        let l = self.normal * twist;
        if a_moves {
            va.v += p * self.inv_mass_a;
            va.w += self.inv_inertia_a * (ra.cross(p) + l);
        }
        if b_moves {
            vb.v += -(p * self.inv_mass_b);
            vb.w += -(self.inv_inertia_b * (rb.cross(p) + l));
        }
    }
}

/// The order a sweep takes a patch's normal rows in: as stored on even sweeps, reversed on odd
/// ones (symmetric Gauss–Seidel), in the sweeps, the shock-propagation pass and the push-out
/// alike. A face resting on four corners is statically indeterminate, and a few sweeps always in
/// one order leave a residual spin towards the corner solved last: a stack then stands higher
/// above its target and slides further than with alternating orders.
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

/// The body a contact point is tracked on between steps ([`Row::local`]): b unless b does not
/// move.
pub(super) fn tracked(bodies: &[Body], a: usize, b: usize) -> usize {
    if bodies[b].is_awake_dynamic() {
        b
    } else {
        a
    }
}

/// The inverse of `K` on the tangent plane of `n`: with an orthonormal tangent basis `T`
/// (3×2), `T (Tᵀ K T)⁻¹ Tᵀ`, so that `p_t = −k_tt_inv · u_t` is the tangential impulse that
/// stops the tangential slip `u_t` (eq. 5 in both tangent directions at once).
pub(super) fn tangent_inverse(k: &DMat3, n: DVec3) -> DMat3 {
    let (t1, t2) = n.any_orthonormal_pair();
    let (a, b, c, d) = (
        t1.dot(*k * t1),
        t1.dot(*k * t2),
        t2.dot(*k * t1),
        t2.dot(*k * t2),
    );
    let det = a * d - b * c;
    if det.is_nan() || det.abs() <= 1e-300 {
        return DMat3::ZERO;
    }
    // (TᵀKT)⁻¹ = [d −b; −c a] / det, mapped back to world vectors.
    let cols = |x: DVec3| {
        let (x1, x2) = (t1.dot(x), t2.dot(x));
        let (y1, y2) = ((d * x1 - b * x2) / det, (-c * x1 + a * x2) / det);
        t1 * y1 + t2 * y2
    };
    DMat3::from_cols(cols(DVec3::X), cols(DVec3::Y), cols(DVec3::Z))
}
