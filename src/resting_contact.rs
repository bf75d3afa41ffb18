//! Resting contact as constraints over a contact step (Bender & Schmitt 2006, §3.2; the
//! "paradigm shift" of Mirtich 1996, §4.2).
//!
//! Event-driven simulation resolves a resting contact as a train of microcollisions: a block on
//! a floor hops at every corner roughly every `2·sqrt(2ε_c/g)` seconds, and a pile of a thousand
//! blocks fills the event heap with them. Here the contacts that are resting at the start of a
//! contact step of length `h` (separation within a margin of ε_c, approach slower than the
//! microcollision speed plus what gravity adds over a step) are instead handled together, once
//! per step: impulses applied at the step's start so that, flying ballistically over the step,
//! every contact point ends the step at the target separation or farther, and sticking points
//! do not slide (Bender & Schmitt's contact handling, eq. 8 and their static-friction rule).
//!
//! ## The prediction
//! With impulses applied at `t₀`, the contact points' relative motion over the step is, to
//! second order, `d(t₀+h) = d₀ + h·ū` with the *step-mean* relative velocity
//! `ū = u(t₀) + ½·h·a`, where `a` is the relative acceleration of the two body points (gravity
//! on awake dynamic bodies and the centripetal terms `ω×(ω×r)`). The constraint for a contact
//! point with normal `n` is then linear in the impulses:
//!
//! - normal: `n·ū ≥ (d_target − d₀)/h`, with accumulated normal impulse ≥ 0 (eq. 2–3: bodies
//!   never stick together);
//! - tangential: `ū_t = 0` (static friction: the points end the step where they started, so a
//!   block on a slope within its friction angle does not creep), as long as the tangential
//!   impulse stays in the Coulomb cone `|p_t| ≤ μ·p_n` (eq. 6), else sliding with `|p_t| = μ·p_n`
//!   opposing the slip.
//!
//! All points of all pairs are solved together by projected Gauss–Seidel over accumulated
//! impulses (Bender & Schmitt's iteration "until d_n(t₀+h) is zero within a tolerance"), which
//! resolves the dependencies inside a pile: a normal row per point, and per pair one friction
//! patch — the tangential impulse at the points' centroid inside the disk `μ·Σp_n`, and a
//! twisting impulse about the normal — rather than a friction disk per point (see `Patch`
//! for why).
//!
//! ## Why this stays exact
//! The prediction is only a way to choose impulses. Every pair stays in the event heap with its
//! conservative time-of-impact bound: a contact point whose prediction was wrong (a new feature,
//! a fast spin) is caught by the ordinary event machinery before it penetrates, and collisions
//! faster than the resting threshold are never taken from it.

mod partner;

use crate::body::Body;
use crate::collision_impulse::collision_matrix;
use crate::narrow_phase::ContactPoint;
use glam::{DMat3, DVec3};
use partner::with_partner;
use std::sync::Mutex;

/// One resting contact point between bodies `a` and `b` at the start of a contact step.
#[derive(Clone, Copy, Debug)]
pub struct RestingContact {
    /// First body (the normal points from b to a).
    pub a: u32,
    /// Second body.
    pub b: u32,
    /// Contact point, world (m).
    pub position: DVec3,
    /// Unit normal from b to a.
    pub normal: DVec3,
    /// Separation at the step's start (m; negative: overlap).
    pub separation: f64,
    /// Coulomb friction coefficient of the pair.
    pub friction: f64,
}

impl RestingContact {
    /// The contact of bodies `a`, `b` at the narrow phase's point `p`, with the pair's friction.
    pub fn at(a: usize, b: usize, p: &ContactPoint, friction: f64) -> Self {
        RestingContact {
            a: a as u32,
            b: b as u32,
            position: p.position,
            normal: p.normal,
            separation: p.separation,
            friction,
        }
    }
}

/// A contact point carried through a contact step on the two bodies it joins: its point on
/// each body and its normal, in those bodies' frames (contact caching). A held pair's
/// neighbourhood is re-solved mid-step ([`crate::world`]'s local re-solves) from where these
/// material points are *now*, instead of a new proximity query for every pair of the ring.
///
/// That is a first-order estimate: a vertex sliding over a face keeps its separation exactly
/// (the face is a plane moving with its body), and the normal turns with b, off by the
/// relative turn since the step's start (a few mrad over a 2.5 ms step) times the slide. It is
/// only used to choose impulses: every pair keeps its conservative time-of-impact bound and is
/// measured exactly whenever it is processed, so no collision can be missed through it.
#[derive(Clone, Copy, Debug)]
pub struct TrackedPoint {
    /// The contact's point on a, in a's frame.
    on_a: DVec3,
    /// The contact's point on b, in b's frame.
    on_b: DVec3,
    /// The normal (from b to a) in b's frame.
    normal: DVec3,
    /// Separation when tracked (m).
    separation: f64,
}

impl TrackedPoint {
    /// Tracks contact `p` between `a` and `b` at their present poses: the narrow phase's point
    /// is the midpoint of the two closest points, `separation` apart along the normal.
    pub fn new(a: &Body, b: &Body, p: &ContactPoint) -> Self {
        let half = 0.5 * p.separation * p.normal;
        TrackedPoint {
            on_a: a.orientation.inverse() * (p.position + half - a.position),
            on_b: b.orientation.inverse() * (p.position - half - b.position),
            normal: b.orientation.inverse() * p.normal,
            separation: p.separation,
        }
    }

    /// The contact at the bodies' present poses (midpoint, separation of the two material
    /// points along the normal, the normal), and how far a's point moved relative to b since
    /// it was tracked (m): the slide and approach that the estimate extrapolates over.
    pub fn now(&self, a: &Body, b: &Body) -> (ContactPoint, f64) {
        let on_a = a.position + a.orientation * self.on_a;
        let on_b = b.position + b.orientation * self.on_b;
        let normal = b.orientation * self.normal;
        let then = self.on_b + self.separation * self.normal;
        let moved = (b.orientation.inverse() * (on_a - b.position) - then).length();
        let point = ContactPoint {
            position: 0.5 * (on_a + on_b),
            separation: normal.dot(on_a - on_b),
            normal,
        };
        (point, moved)
    }
}

/// The contacts of one pair from its tracked points at the bodies' present poses, appended to
/// `out` in order, if every point moved less than `slide` relative to the other body since it
/// was tracked; returns their least separation. Otherwise appends nothing and returns `None`
/// (the estimate extrapolates too far: the pair is to be measured).
pub fn tracked_contacts(
    points: &[TrackedPoint],
    a: &Body,
    b: &Body,
    slide: f64,
    out: &mut Vec<ContactPoint>,
) -> Option<f64> {
    let start = out.len();
    let mut least = f64::INFINITY;
    for tp in points {
        let (p, moved) = tp.now(a, b);
        if moved > slide {
            out.truncate(start);
            return None;
        }
        least = least.min(p.separation);
        out.push(p);
    }
    Some(least)
}

/// Settings of one contact step.
#[derive(Clone, Copy, Debug)]
pub struct StepSettings {
    /// Step length h (s).
    pub h: f64,
    /// Gravity (m/s²).
    pub gravity: DVec3,
    /// Separation every contact point should have at the step's end (m).
    pub target: f64,
    /// Stop iterating once no impulse changes a point's predicted end position by more than
    /// this (m).
    pub tolerance: f64,
    /// Most Gauss–Seidel sweeps.
    pub max_iterations: usize,
    /// Fraction of a contact's shortfall below the target restored over the step (see
    /// `bias`).
    pub push_out: f64,
    /// Sweeps per level of the shock-propagation pass after the Gauss–Seidel sweeps (0: none;
    /// see `Solver::shock_propagation`).
    pub shock_iterations: usize,
    /// Stop sweeping once the residual fell by less than a fifth over this many sweeps (from
    /// twice this many on; 0: never). Projected Gauss–Seidel with friction cones can stall or
    /// cycle short of the tolerance; then further sweeps up to `max_iterations` buy nothing.
    pub stall_window: usize,
}

/// A residual above this fraction of its value `stall_window` sweeps earlier is stalled.
const STALL_RATIO: f64 = 0.8;

/// Largest `stall_window` honoured.
const MAX_STALL_WINDOW: usize = 16;

/// Watches a run of sweeps' residuals for a stall (see [`StepSettings::stall_window`]).
struct StallWatch {
    window: usize,
    /// The last `window` residuals, by sweep number modulo the window.
    history: [f64; MAX_STALL_WINDOW],
}

impl StallWatch {
    /// A watch over `window` sweeps (0: never stalls).
    fn new(window: usize) -> Self {
        StallWatch {
            window: window.min(MAX_STALL_WINDOW),
            history: [f64::INFINITY; MAX_STALL_WINDOW],
        }
    }

    /// Records sweep `sweep`'s (from 0) residual; true once it is above `STALL_RATIO` times
    /// the residual `window` sweeps earlier, from sweep `2·window` on.
    fn stalled(&mut self, sweep: usize, residual: f64) -> bool {
        if self.window == 0 {
            return false;
        }
        let slot = sweep % self.window;
        let stalled = sweep >= 2 * self.window && residual > STALL_RATIO * self.history[slot];
        self.history[slot] = residual;
        stalled
    }
}

/// What one contact step did.
#[derive(Clone, Copy, Debug, Default)]
pub struct StepReport {
    /// Gauss–Seidel sweeps done.
    pub iterations: usize,
    /// Largest change of a predicted end position in the last sweep (m).
    pub residual: f64,
}

/// Normal row of one contact point.
#[derive(Clone, Copy)]
struct Row {
    ra: DVec3,
    rb: DVec3,
    normal: DVec3,
    /// Required minimum of the step-mean normal velocity (m/s).
    bias: f64,
    /// Step-mean normal velocity the bodies' accelerations add: n·½·h·a (m/s).
    drift: f64,
    /// n·K·n: the row's inverse effective mass.
    k_nn: f64,
    /// 1 / n·K·n, the row's effective mass: each update multiplies by it instead of
    /// dividing by `k_nn` (a division sat on the sweep's dependency chain from one row to the
    /// next, and was its hottest instruction).
    inv_k_nn: f64,
    /// The effective masses of the row with only a, or only b, taking impulses (the
    /// shock-propagation pass's one-sided rows): 1 / (1/m_a + (r_a×n)·I_a⁻¹(r_a×n)), and the
    /// same for b; 0 where that body does not yield.
    inv_k_a: f64,
    inv_k_b: f64,
    /// Velocity change of a per unit normal impulse: linear `n/m_a`, angular `I_a⁻¹(r_a × n)`
    /// (and of b, with the opposite sign): the impulse is applied without re-forming the
    /// world inertia at every Gauss–Seidel update.
    lin_a: DVec3,
    ang_a: DVec3,
    lin_b: DVec3,
    ang_b: DVec3,
    /// Accumulated normal impulse on a (−impulse·n on b).
    impulse: f64,
    /// The point in the frame of the body it is tracked on (for warm starting).
    local: DVec3,
}

/// The contact points of one pair in one step, with their friction as one patch: a tangential
/// impulse at the points' centroid bounded by `μ·Σp_n`, and a twisting impulse about the normal
/// bounded by `μ·ρ·Σp_n` with ρ the points' mean distance from the centroid.
///
/// Friction per point (each point's own Coulomb disk) is the literal reading of eq. 6, but a
/// face resting on four corners is statically indeterminate: Gauss–Seidel settles on one of
/// many normal load sets, generally lopsided, and per-point friction proportional to lopsided
/// loads twists a sliding block about the normal (measured: a block sliding down a 30° slope
/// spun up at 0.3 rad/s² and slid 2.5 % fast). The resultant of a pressure distribution acts at
/// its centre whatever the distribution, which is what the patch applies.
#[derive(Clone, Copy)]
struct Patch {
    a: usize,
    b: usize,
    /// Centroid of the points relative to each centre of mass.
    ra: DVec3,
    rb: DVec3,
    normal: DVec3,
    friction: f64,
    /// Step-mean relative velocity the accelerations add at the centroid: ½·h·a (m/s).
    drift: DVec3,
    /// Collision matrix K at the centroid.
    k: DMat3,
    /// Effective inverse masses and world inverse inertias of a and b (0 for bodies that do
    /// not yield).
    inv_mass_a: f64,
    inv_mass_b: f64,
    inv_inertia_a: DMat3,
    inv_inertia_b: DMat3,
    /// Inverse of K at the centroid restricted to the tangent plane.
    k_tt_inv: DMat3,
    /// Inverse of `n·(I_a⁻¹ + I_b⁻¹)·n`: the twisting row's effective inertia (0: no twist).
    twist_inv: f64,
    /// Mean distance of the points from the centroid (m): the twisting lever.
    radius: f64,
    /// Its normal rows: `rows[first..first + count]`.
    first: usize,
    count: usize,
    /// Accumulated tangential impulse on a at the centroid.
    tangential: DVec3,
    /// Accumulated twisting impulse on a about the normal (N·m·s).
    twist: f64,
    /// Height of the centroid along −gravity (sweep order: bottom up).
    height: f64,
    /// Velocity slots of a and b (see [`Solver::assign_slots`]).
    sa: u32,
    sb: u32,
    /// Part of the split: 0 or 1 (a half), 2 (cut, or a step too small to split).
    part: u8,
    /// Where the pair's entries of the previous step start in `Solver::previous` and
    /// `Solver::previous_patches` (u32::MAX: none), found for the warm start while the patches
    /// are still in pair order.
    previous_rows: u32,
    previous_patch: u32,
}

/// A solved contact point of the previous step, kept to warm-start the next one.
#[derive(Clone, Copy)]
struct Solved {
    a: u32,
    b: u32,
    local: DVec3,
    impulse: f64,
}

/// A solved patch of the previous step (friction impulses), kept to warm-start the next one.
#[derive(Clone, Copy)]
struct SolvedPatch {
    a: u32,
    b: u32,
    tangential: DVec3,
    twist: f64,
}

/// Reusable buffers for [`Solver::solve`], and the previous step's impulses.
#[derive(Clone, Default)]
pub struct Solver {
    rows: Vec<Row>,
    patches: Vec<Patch>,
    /// Last step's contact points, sorted by pair.
    previous: Vec<Solved>,
    /// Last step's patches, sorted by pair.
    previous_patches: Vec<SolvedPatch>,
    /// Last step's length h (s).
    previous_h: f64,
    /// The time over which last step's impulses carried their contact forces (s): see
    /// [`Solver::solve`]'s warm start.
    previous_span: f64,
    /// Velocities of the bodies the step moves, by slot, and their body indices.
    moving: Vec<Vel>,
    moving_bodies: Vec<usize>,
    /// Velocities of the other bodies of the step (read-only slots).
    still: Vec<Vel>,
    /// Slot of each body (u32::MAX: not in the step).
    slot: Vec<u32>,
    /// Scratch for [`Self::assign_slots`].
    side_of: Vec<u8>,
    scratch: Vec<usize>,
    keys: Vec<(f64, usize)>,
    reordered: Vec<Row>,
    /// Scratch for ordering the patches: by height (with their index), by part, and the
    /// patches in their new order.
    order: Vec<(f64, u32)>,
    by_part: Vec<u32>,
    gathered: Vec<Patch>,
    /// Shock propagation: level of each moving slot, the patches of each moving slot (CSR),
    /// the BFS queue, and the patches in level order with which of their bodies take impulses
    /// and their one-sided friction inverses.
    level: Vec<u32>,
    adjacency_start: Vec<u32>,
    adjacency: Vec<u32>,
    queue: Vec<u32>,
    by_level: Vec<(u32, u32)>,
    one_sided: Vec<OneSided>,
}

/// The body a contact point is tracked on between steps: b unless b does not move.
fn tracked(bodies: &[Body], a: usize, b: usize) -> usize {
    if bodies[b].is_awake_dynamic() {
        b
    } else {
        a
    }
}

/// Velocity of a body inside the solver.
#[derive(Clone, Copy, Default)]
struct Vel {
    v: DVec3,
    w: DVec3,
}

/// Slot flag of a body the step does not move (fixed, kinematic, asleep): read-only.
const STILL: u32 = 1 << 31;

/// Steps with at least this many patches are split in two halves swept on two threads.
const PARALLEL_PATCHES: usize = 256;

/// How [`Solver::assign_slots`] split the patches: `patches[0]`, `patches[1]` end half 0, half 1
/// (the cut ones follow), likewise `rows`; half 0's moving bodies are slots `0..bodies`.
struct Split {
    patches: [usize; 2],
    rows: [usize; 2],
    bodies: u32,
}

/// The order a sweep takes a patch's normal rows in: as stored on even sweeps, reversed on odd
/// ones (symmetric Gauss–Seidel), in the sweeps and in the shock-propagation pass alike. A face
/// resting on four corners is statically indeterminate, and a few sweeps always in one order
/// leave a residual spin towards the corner solved last. Measured with the default 8 sweeps
/// and 4 shock sweeps: a stack of twelve 0.2 m cubes after 1.5 s stood 0.112 mm above its
/// gaps' target and slid 3.1 mm in one order, 0.075 mm and 2.2 mm alternating; a stack of six
/// after 2 s drifted 0.20 mm against 0.13 mm.
#[derive(Clone, Copy)]
enum RowOrder {
    Forward,
    Backward,
}

impl RowOrder {
    /// The order of sweep number `sweep` (from 0).
    fn of_sweep(sweep: usize) -> RowOrder {
        if sweep.is_multiple_of(2) {
            RowOrder::Forward
        } else {
            RowOrder::Backward
        }
    }

    /// The index of the `k`-th row to take of `count`.
    #[inline(always)]
    fn index(self, k: usize, count: usize) -> usize {
        match self {
            RowOrder::Forward => k,
            RowOrder::Backward => count - 1 - k,
        }
    }
}

/// The velocity slots of the moving bodies a part of a step touches (see [`Part`]).
trait Slots {
    /// Velocity of moving slot `s`.
    fn get(&self, s: u32) -> Vel;
    /// Stores the velocity of moving slot `s`.
    fn set(&mut self, s: u32, v: Vel);
}

/// Every moving slot of the step, from 0.
impl Slots for Vec<Vel> {
    #[inline(always)]
    fn get(&self, s: u32) -> Vel {
        self[s as usize]
    }
    #[inline(always)]
    fn set(&mut self, s: u32, v: Vel) {
        self[s as usize] = v;
    }
}

/// Consecutive slots: `moving` holds slots from `base` on (a half, or a step not split).
struct Slice<'a> {
    moving: &'a mut [Vel],
    base: u32,
}

impl Slots for Slice<'_> {
    #[inline(always)]
    fn get(&self, s: u32) -> Vel {
        self.moving[(s - self.base) as usize]
    }
    #[inline(always)]
    fn set(&mut self, s: u32, v: Vel) {
        self.moving[(s - self.base) as usize] = v;
    }
}

/// Both halves' slots, for the cut patches: `lo` holds slots from 0, `hi` from `lo.len()`.
struct Both<'a> {
    lo: &'a mut [Vel],
    hi: &'a mut [Vel],
}

impl Slots for Both<'_> {
    #[inline(always)]
    fn get(&self, s: u32) -> Vel {
        let s = s as usize;
        match s.checked_sub(self.lo.len()) {
            None => self.lo[s],
            Some(k) => self.hi[k],
        }
    }
    #[inline(always)]
    fn set(&mut self, s: u32, v: Vel) {
        let s = s as usize;
        match s.checked_sub(self.lo.len()) {
            None => self.lo[s] = v,
            Some(k) => self.hi[k] = v,
        }
    }
}

/// Velocity of slot `s`: a read-only slot from `still`, a moving one from `slots`.
#[inline(always)]
fn read(s: u32, slots: &impl Slots, still: &[Vel]) -> Vel {
    if s & STILL != 0 {
        still[(s & !STILL) as usize]
    } else {
        slots.get(s)
    }
}

/// One part of a split step (a half, or the cut patches): its patches, which start at patch
/// `patch_base` of the step, their rows, which start at row `row_base`, and the velocity slots
/// of their moving bodies.
struct Part<'a, V> {
    patches: &'a mut [Patch],
    patch_base: usize,
    rows: &'a mut [Row],
    row_base: usize,
    slots: V,
}

/// A job for the partner thread (see [`partner`]): one sweep of half 1, or one shock-propagation
/// sweep of half 1's patches `by_level[from..to]`.
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
        let mut total = 0.0;
        let first = patch.first - row_base;
        for k in 0..patch.count {
            let row = &mut rows[first + order.index(k, patch.count)];
            let n = row.normal;
            let un = n.dot(va.v + va.w.cross(row.ra) - vb.v - vb.w.cross(row.rb)) + row.drift;
            let pn = (row.impulse + (row.bias - un) * row.inv_k_nn).max(0.0);
            let dp = pn - row.impulse;
            total += pn;
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
                patch, &mut va, &mut vb, moves, total, k_tt_inv, twist_inv, h,
            );
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

/// The friction rows of one patch, after its normal rows summed to `total`: the tangential
/// impulse at the centroid inside the Coulomb disk `μ·total` (eq. 5–6), then the twisting
/// impulse about the normal inside `μ·ρ·total`, each applied to the bodies that `moves`, with
/// the tangent-plane inverse `k_tt_inv` and twisting inverse `twist_inv` of those bodies.
/// Returns the square of the largest change of a predicted end position over a step of `h`
/// (squared: no square root for a residual that is only compared).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn friction_rows(
    patch: &mut Patch,
    va: &mut Vel,
    vb: &mut Vel,
    moves: [bool; 2],
    total: f64,
    k_tt_inv: DMat3,
    twist_inv: f64,
    h: f64,
) -> f64 {
    let [a_moves, b_moves] = moves;
    let mut residual_sq: f64 = 0.0;
    let n = patch.normal;
    let u = va.v + va.w.cross(patch.ra) - vb.v - vb.w.cross(patch.rb) + patch.drift;
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
        patch.apply_to(va, vb, a_moves, b_moves, dpt, 0.0);
        patch.tangential = pt;
    }
    if twist_inv > 0.0 {
        let spin = n.dot(va.w - vb.w);
        let limit = patch.friction * patch.radius * total;
        let tw = (patch.twist - twist_inv * spin).clamp(-limit, limit);
        let dtw = tw - patch.twist;
        if dtw != 0.0 {
            let r = dtw / twist_inv * patch.radius * h;
            residual_sq = residual_sq.max(r * r);
            patch.apply_to(va, vb, a_moves, b_moves, DVec3::ZERO, dtw);
            patch.twist = tw;
        }
    }
    residual_sq
}

/// One Gauss–Seidel update of `patch` in the shock-propagation pass: as in [`sweep_patches`],
/// but only the bodies marked `free` take impulses (the others are a lower, frozen level), so
/// each row's effective mass is that of the free bodies alone, and the friction rows use
/// `k_tt_inv` and `twist_inv` built from them.
#[allow(clippy::too_many_arguments)]
fn solve_patch_one_sided(
    patch: &mut Patch,
    rows: &mut [Row],
    row_base: usize,
    slots: &mut impl Slots,
    still: &[Vel],
    one_sided: &OneSided,
    order: RowOrder,
) {
    let (sa, sb) = (patch.sa, patch.sb);
    let (mut va, mut vb) = (read(sa, slots, still), read(sb, slots, still));
    let &(free, k_tt_inv, twist_inv) = one_sided;
    let [a_free, b_free] = free;
    let mut total = 0.0;
    let first = patch.first - row_base;
    for k in 0..patch.count {
        let row = &mut rows[first + order.index(k, patch.count)];
        let n = row.normal;
        // The effective mass of the free bodies alone.
        let inv_k = match free {
            [true, true] => row.inv_k_nn,
            [true, false] => row.inv_k_a,
            [false, true] => row.inv_k_b,
            [false, false] => 0.0,
        };
        total += row.impulse;
        if inv_k == 0.0 {
            continue;
        }
        let un = n.dot(va.v + va.w.cross(row.ra) - vb.v - vb.w.cross(row.rb)) + row.drift;
        let pn = (row.impulse + (row.bias - un) * inv_k).max(0.0);
        let dp = pn - row.impulse;
        total += dp;
        if dp != 0.0 {
            row.apply_to(&mut va, &mut vb, a_free, b_free, dp);
            row.impulse = pn;
        }
    }
    if patch.friction > 0.0 {
        friction_rows(
            patch, &mut va, &mut vb, free, total, k_tt_inv, twist_inv, 0.0,
        );
    }
    if a_free {
        slots.set(sa, va);
    }
    if b_free {
        slots.set(sb, vb);
    }
}

/// Which bodies of a patch take impulses in its shock-propagation level, with the friction
/// inverses built from those bodies alone (see [`solve_patch_one_sided`]).
type OneSided = ([bool; 2], DMat3, f64);

/// One one-sided Gauss–Seidel sweep (see [`solve_patch_one_sided`]) over the patches of `part`
/// that `entries` name (their `(level, index in the step)`), each with its `one_sided`
/// settings.
fn sweep_one_sided(
    entries: &[(u32, u32)],
    one_sided: &[OneSided],
    part: &mut Part<'_, impl Slots>,
    still: &[Vel],
    order: RowOrder,
) {
    for (&(_, k), sided) in entries.iter().zip(one_sided) {
        let patch = &mut part.patches[k as usize - part.patch_base];
        let (rows, row_base) = (&mut *part.rows, part.row_base);
        solve_patch_one_sided(patch, rows, row_base, &mut part.slots, still, sided, order);
    }
}

/// Half 1 of a split step, behind the lock the partner thread takes it with.
type Half<'a> = Mutex<Part<'a, Slice<'a>>>;

/// Half 1's part, locked (a panic on the other side fails the step anyway; the data is only
/// velocities and impulses).
fn lock<'g, 'a>(half: &'g Half<'a>) -> std::sync::MutexGuard<'g, Part<'a, Slice<'a>>> {
    half.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `f` on the cut patches `patches` (their rows `rows`; `bases`: the first's patch and row
/// index in the step) with both halves' slots: half 0's `lo` and half 1's, from its lock.
fn with_cut<R>(
    patches: &mut [Patch],
    rows: &mut [Row],
    bases: (usize, usize),
    lo: &mut [Vel],
    half1: &Half<'_>,
    f: impl FnOnce(&mut Part<'_, Both<'_>>) -> R,
) -> R {
    let mut other = lock(half1);
    let mut cut = Part {
        patches,
        patch_base: bases.0,
        rows,
        row_base: bases.1,
        slots: Both {
            lo,
            hi: &mut *other.slots.moving,
        },
    };
    f(&mut cut)
}

impl Row {
    /// Applies normal impulse `dp` (on a; −dp on b) to the velocities `va`, `vb` of a and b
    /// (each only if it moves).
    fn apply_to(&self, va: &mut Vel, vb: &mut Vel, a_moves: bool, b_moves: bool, dp: f64) {
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
    /// Applies tangential impulse `p` at the centroid and twisting impulse `twist` about the
    /// normal (on a; the opposite on b) to the velocities `va`, `vb` of a and b (each only if it
    /// moves).
    fn apply_to(
        &self,
        va: &mut Vel,
        vb: &mut Vel,
        a_moves: bool,
        b_moves: bool,
        p: DVec3,
        twist: f64,
    ) {
        let l = self.normal * twist;
        if a_moves {
            va.v += p * self.inv_mass_a;
            va.w += self.inv_inertia_a * (self.ra.cross(p) + l);
        }
        if b_moves {
            vb.v += -(p * self.inv_mass_b);
            vb.w += -(self.inv_inertia_b * (self.rb.cross(p) + l));
        }
    }
}

impl Solver {
    /// Solves the contact step for `contacts` and applies the impulses to `bodies` (all at the
    /// step's start). Calls `pushed(a, b, normal)` once per contact that ended with a positive
    /// normal impulse (for the sleeping rule's support record). With `whole_step`, the
    /// contacts are all of a step's: warm-started from the previous step's impulses, and kept
    /// to warm-start the next; otherwise (a few contacts re-solved mid-step) neither. The
    /// contacts of one pair are expected next to each other (one patch per run of a pair).
    pub fn solve(
        &mut self,
        bodies: &mut [Body],
        contacts: &[RestingContact],
        settings: &StepSettings,
        whole_step: bool,
        mut pushed: impl FnMut(usize, usize, DVec3),
    ) -> StepReport {
        let h = settings.h;
        self.rows.clear();
        self.patches.clear();
        let mut k = 0;
        while k < contacts.len() {
            let (a, b) = (contacts[k].a, contacts[k].b);
            let run = contacts[k..]
                .iter()
                .take_while(|c| (c.a, c.b) == (a, b))
                .count();
            self.add_patch(bodies, &contacts[k..k + run], settings);
            k += run;
        }

        if whole_step {
            self.find_previous();
        }
        // Bottom up: in a pile the lower contacts carry the upper ones, so Gauss–Seidel
        // converges faster sweeping upwards (the idea behind shock propagation). Equal heights
        // keep pair order. The patches are large (over 400 bytes): sorting them in place moved
        // each one many times (memmove was 4.4 % of the draining pile's profile), so the keys
        // are sorted and each patch is copied once, into its place.
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
        let left = self.assign_slots(bodies, settings.gravity);
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
        let split = self.group_parts(left);
        let shock = settings.shock_iterations > 0 && !self.moving.is_empty();
        if shock {
            self.shock_levels();
        }
        let report = self.sweep_parts(&split, settings, shock);
        for (i, v) in self.moving_bodies.iter().zip(&self.moving) {
            bodies[*i].velocity = v.v;
            bodies[*i].angular_velocity = v.w;
        }
        for patch in &self.patches {
            for row in &self.rows[patch.first..patch.first + patch.count] {
                if row.impulse > 0.0 {
                    pushed(patch.a, patch.b, row.normal);
                }
            }
        }
        if !whole_step {
            return report;
        }
        self.previous.clear();
        self.previous_patches.clear();
        self.previous_h = h;
        self.previous_span = span;
        for patch in &self.patches {
            let (a, b) = (patch.a as u32, patch.b as u32);
            self.previous.extend(
                self.rows[patch.first..patch.first + patch.count]
                    .iter()
                    .map(|r| Solved {
                        a,
                        b,
                        local: r.local,
                        impulse: r.impulse,
                    }),
            );
            self.previous_patches.push(SolvedPatch {
                a,
                b,
                tangential: patch.tangential,
                twist: patch.twist,
            });
        }
        self.previous.sort_by_key(|x| (x.a, x.b));
        self.previous_patches.sort_by_key(|x| (x.a, x.b));
        report
    }

    /// Gives every body of the step's patches a velocity slot and, for a large step, splits
    /// the patches into two halves that share no moving body, so the halves can be swept on
    /// two threads (see [`Self::sweep`]). The moving bodies are split at the median of their
    /// positions along the horizontal axis (across gravity) where they spread most; a patch
    /// whose moving bodies lie on both sides is cut and swept after both halves. The split
    /// depends only on the contacts, never on the thread count, so the step's result does not
    /// either. Copies the velocities in; returns the number of half 0's moving bodies.
    fn assign_slots(&mut self, bodies: &[Body], gravity: DVec3) -> u32 {
        self.moving.clear();
        self.moving_bodies.clear();
        self.still.clear();
        self.slot.clear();
        self.slot.resize(bodies.len(), u32::MAX);
        let large = self.patches.len() >= PARALLEL_PATCHES;
        // Side of each moving body: 0 or 1 (all 0 for a step too small to split).
        let mut side_of = std::mem::take(&mut self.side_of);
        side_of.clear();
        side_of.resize(bodies.len(), 0);
        let mut movers = std::mem::take(&mut self.scratch);
        movers.clear();
        for patch in &self.patches {
            for i in [patch.a, patch.b] {
                if bodies[i].is_awake_dynamic() && self.slot[i] == u32::MAX {
                    self.slot[i] = 0; // seen
                    movers.push(i);
                }
            }
        }
        if large && movers.len() >= 2 {
            // The spread of the moving bodies along a horizontal axis (not `vertical`).
            let spread = |axis: usize| {
                let (lo, hi) = movers
                    .iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |m, &i| {
                        let c = bodies[i].position[axis];
                        (m.0.min(c), m.1.max(c))
                    });
                hi - lo
            };
            // The axis closest to gravity's.
            let g = gravity.abs();
            let vertical = if g.x >= g.y && g.x >= g.z {
                0
            } else if g.y >= g.z {
                1
            } else {
                2
            };
            let axis = (0..3)
                .filter(|&k| k != vertical)
                .max_by(|&x, &y| spread(x).total_cmp(&spread(y)))
                .unwrap_or(0);
            let mut keys = std::mem::take(&mut self.keys);
            keys.clear();
            keys.extend(movers.iter().map(|&i| (bodies[i].position[axis], i)));
            // Ties broken by index, so the split is a total order.
            let mid = keys.len() / 2;
            keys.select_nth_unstable_by(mid, |x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
            for &(_, i) in &keys[mid..] {
                side_of[i] = 1;
            }
            self.keys = keys;
        }
        // Slots: side 0's bodies first, then side 1's, in order of first appearance.
        let mut left = 0u32;
        for side in 0..2u8 {
            for &i in &movers {
                if side_of[i] == side {
                    self.slot[i] = self.moving.len() as u32;
                    self.moving.push(Vel {
                        v: bodies[i].velocity,
                        w: bodies[i].angular_velocity,
                    });
                    self.moving_bodies.push(i);
                }
            }
            if side == 0 {
                left = self.moving.len() as u32;
            }
        }
        // Bodies that do not move in the step (fixed, kinematic, asleep): read-only slots.
        for patch in &self.patches {
            for i in [patch.a, patch.b] {
                if self.slot[i] == u32::MAX {
                    self.slot[i] = STILL | self.still.len() as u32;
                    self.still.push(Vel {
                        v: bodies[i].velocity,
                        w: bodies[i].angular_velocity,
                    });
                }
            }
        }
        // Part of each patch: 0 or 1 if all its moving bodies are on that side, else 2 (cut).
        let part = |p: &Patch| -> u8 {
            if !large {
                return 2;
            }
            let (ma, mb) = (
                bodies[p.a].is_awake_dynamic(),
                bodies[p.b].is_awake_dynamic(),
            );
            match (ma, mb) {
                (true, true) if side_of[p.a] != side_of[p.b] => 2,
                (true, _) => side_of[p.a],
                (false, true) => side_of[p.b],
                (false, false) => 2,
            }
        };
        for patch in self.patches.iter_mut() {
            patch.sa = self.slot[patch.a];
            patch.sb = self.slot[patch.b];
            patch.part = part(patch);
        }
        self.side_of = side_of;
        self.scratch = movers;
        left
    }

    /// The levels of shock propagation (Guendelman et al. 2003, as Bender & Schmitt 2006 §3.3
    /// describe it), swept after the Gauss–Seidel sweeps ([`Self::sweep_parts`]): the contact
    /// graph is layered from the bodies that do not move (level 0: fixed, kinematic, asleep) by
    /// breadth-first search; level by level, the patches of that level's bodies are swept
    /// `shock_iterations` times with every body of a lower level taken as immovable (infinite
    /// mass: only this level's bodies take impulses), then the level is frozen. The sweeps have
    /// already shared the load out; this pass settles what they left unconverged from the
    /// ground up, so a stack's lower bodies carry the upper ones instead of being pushed down by
    /// them while the iteration is still converging. Bodies not connected to a level-0 body keep
    /// the sweeps' result. Fills `by_level` (each patch's level and index, in that order) and
    /// `one_sided`; the levels depend only on the contacts, not on the velocities.
    fn shock_levels(&mut self) {
        let moving = self.moving.len();
        // The patches of each moving slot.
        let start = &mut self.adjacency_start;
        start.clear();
        start.resize(moving + 1, 0);
        for p in &self.patches {
            for s in [p.sa, p.sb] {
                if s & STILL == 0 {
                    start[s as usize + 1] += 1;
                }
            }
        }
        for k in 0..moving {
            start[k + 1] += start[k];
        }
        self.adjacency.clear();
        self.adjacency.resize(start[moving] as usize, 0);
        self.queue.clear();
        self.queue.extend_from_slice(&start[..moving]); // fill cursors
        for (k, p) in self.patches.iter().enumerate() {
            for s in [p.sa, p.sb] {
                if s & STILL == 0 {
                    let at = &mut self.queue[s as usize];
                    self.adjacency[*at as usize] = k as u32;
                    *at += 1;
                }
            }
        }
        // Levels by breadth-first search from the bodies that do not move.
        self.level.clear();
        self.level.resize(moving, u32::MAX);
        self.queue.clear();
        for p in &self.patches {
            for (s, other) in [(p.sa, p.sb), (p.sb, p.sa)] {
                if s & STILL != 0 && other & STILL == 0 && self.level[other as usize] == u32::MAX {
                    self.level[other as usize] = 1;
                    self.queue.push(other);
                }
            }
        }
        let mut head = 0;
        while head < self.queue.len() {
            let s = self.queue[head] as usize;
            head += 1;
            let (lo, hi) = (start[s] as usize, start[s + 1] as usize);
            for &k in &self.adjacency[lo..hi] {
                let p = &self.patches[k as usize];
                let other = if p.sa as usize == s { p.sb } else { p.sa };
                if other & STILL == 0 && self.level[other as usize] == u32::MAX {
                    self.level[other as usize] = self.level[s] + 1;
                    self.queue.push(other);
                }
            }
        }
        let level_of = |level: &[u32], s: u32| {
            if s & STILL != 0 {
                0
            } else {
                level[s as usize]
            }
        };
        // The patches by level (a patch belongs to its higher body's level), each with its
        // friction inverses for impulses on that level's bodies only.
        self.by_level.clear();
        self.one_sided.clear();
        for (k, p) in self.patches.iter().enumerate() {
            let (la, lb) = (level_of(&self.level, p.sa), level_of(&self.level, p.sb));
            if la == u32::MAX || lb == u32::MAX {
                continue;
            }
            self.by_level.push((la.max(lb), k as u32));
        }
        self.by_level.sort_unstable();
        for &(level, k) in &self.by_level {
            let p = &self.patches[k as usize];
            let a_free = level_of(&self.level, p.sa) == level && p.sa & STILL == 0;
            let b_free = level_of(&self.level, p.sb) == level && p.sb & STILL == 0;
            let zero = DMat3::ZERO;
            let k_free = collision_matrix(
                if a_free { p.inv_mass_a } else { 0.0 },
                if a_free { &p.inv_inertia_a } else { &zero },
                p.ra,
                if b_free { p.inv_mass_b } else { 0.0 },
                if b_free { &p.inv_inertia_b } else { &zero },
                p.rb,
            );
            let n = p.normal;
            let twist_k = if a_free {
                n.dot(p.inv_inertia_a * n)
            } else {
                0.0
            } + if b_free {
                n.dot(p.inv_inertia_b * n)
            } else {
                0.0
            };
            let twist_inv = if p.twist_inv > 0.0 && twist_k > 1e-300 {
                1.0 / twist_k
            } else {
                0.0
            };
            self.one_sided
                .push(([a_free, b_free], tangent_inverse(&k_free, n), twist_inv));
        }
    }

    /// Orders the patches by part (stable: bottom up within each part, as sorted before) and
    /// their rows with them, so each part is one slice of each; `left` is half 0's number of
    /// moving bodies ([`Self::assign_slots`]).
    fn group_parts(&mut self, left: u32) -> Split {
        // A stable partition by part, each patch copied once (see `Self::gather_patches`).
        let mut by_part = std::mem::take(&mut self.by_part);
        by_part.clear();
        for part in 0..3u8 {
            by_part.extend(
                self.patches
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| p.part == part)
                    .map(|(k, _)| k as u32),
            );
        }
        self.gather_patches(by_part.iter().copied());
        self.by_part = by_part;
        // Rows in patch order, so each part's rows are one slice.
        self.reordered.clear();
        for patch in self.patches.iter_mut() {
            let first = self.reordered.len();
            self.reordered
                .extend_from_slice(&self.rows[patch.first..patch.first + patch.count]);
            patch.first = first;
        }
        std::mem::swap(&mut self.rows, &mut self.reordered);
        let count = |k: u8| self.patches.iter().filter(|p| p.part == k).count();
        let (n0, n1) = (count(0), count(1));
        let rows_until = |n: usize| self.patches.get(n).map_or(self.rows.len(), |p| p.first);
        Split {
            patches: [n0, n0 + n1],
            rows: [rows_until(n0), rows_until(n0 + n1)],
            bodies: left,
        }
    }

    /// The step's Gauss–Seidel sweeps (until the residual is within the tolerance, stalls, or
    /// `max_iterations`), then, with `shock`, the shock-propagation levels' sweeps
    /// ([`Self::shock_levels`]). Each sweep takes half 0's patches here and half 1's on the
    /// partner thread at the same time ([`partner`]; they share no moving body, and a lower
    /// level's bodies are only read), then the cut patches here, so the result is that of
    /// taking the halves one after the other, on any number of threads.
    fn sweep_parts(&mut self, split: &Split, settings: &StepSettings, shock: bool) -> StepReport {
        let h = settings.h;
        let Solver {
            patches,
            rows,
            moving,
            still,
            by_level,
            one_sided,
            ..
        } = self;
        let (still, by_level, one_sided) = (&*still, &*by_level, &*one_sided);
        let (p01, p_cut) = patches.split_at_mut(split.patches[1]);
        let (p0, p1) = p01.split_at_mut(split.patches[0]);
        let (r01, r_cut) = rows.split_at_mut(split.rows[1]);
        let (r0, r1) = r01.split_at_mut(split.rows[0]);
        let (m0, m1) = moving.split_at_mut(split.bodies as usize);
        let mut half0 = Part {
            patches: p0,
            patch_base: 0,
            rows: r0,
            row_base: 0,
            slots: Slice {
                moving: m0,
                base: 0,
            },
        };
        let half1 = Mutex::new(Part {
            patches: p1,
            patch_base: split.patches[0],
            rows: r1,
            row_base: split.rows[0],
            slots: Slice {
                moving: m1,
                base: split.bodies,
            },
        });
        let work = |job: Job| {
            let mut part = lock(&half1);
            match job {
                Job::Sweep(order) => sweep_patches(&mut part, still, h, order),
                Job::Shock { from, to, order } => {
                    let (entries, sided) = (&by_level[from..to], &one_sided[from..to]);
                    sweep_one_sided(entries, sided, &mut part, still, order);
                    0.0
                }
            }
        };
        let bases = (split.patches[1], split.rows[1]);
        with_partner(split.patches[1] > 0, &work, |partner| {
            let mut report = StepReport::default();
            let mut watch = StallWatch::new(settings.stall_window);
            for sweep in 0..settings.max_iterations {
                let order = RowOrder::of_sweep(sweep);
                let (res0, res1) = partner.run(Job::Sweep(order), || {
                    sweep_patches(&mut half0, still, h, order)
                });
                let res_cut = with_cut(p_cut, r_cut, bases, half0.slots.moving, &half1, |cut| {
                    sweep_patches(cut, still, h, order)
                });
                let residual = res0.max(res1).max(res_cut);
                report.iterations = sweep + 1;
                report.residual = residual;
                if residual <= settings.tolerance || watch.stalled(sweep, residual) {
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
                // The level's patches of half 0, of half 1 and cut: they are in patch order,
                // and the patches in part order.
                let entries = &by_level[i..j];
                let c0 = i + entries.partition_point(|e| (e.1 as usize) < split.patches[0]);
                let c1 = i + entries.partition_point(|e| (e.1 as usize) < split.patches[1]);
                for sweep in 0..settings.shock_iterations {
                    let order = RowOrder::of_sweep(sweep);
                    let mut mine = || {
                        sweep_one_sided(
                            &by_level[i..c0],
                            &one_sided[i..c0],
                            &mut half0,
                            still,
                            order,
                        );
                        0.0
                    };
                    if c1 > c0 {
                        partner.run(
                            Job::Shock {
                                from: c0,
                                to: c1,
                                order,
                            },
                            mine,
                        );
                    } else {
                        mine();
                    }
                    with_cut(p_cut, r_cut, bases, half0.slots.moving, &half1, |cut| {
                        sweep_one_sided(&by_level[c1..j], &one_sided[c1..j], cut, still, order);
                        0.0
                    });
                }
                i = j;
            }
            report
        })
    }

    /// Puts the patches in the order `order` (each patch's present index, once each) by
    /// copying each once into a second buffer.
    fn gather_patches(&mut self, order: impl Iterator<Item = u32>) {
        self.gathered.clear();
        self.gathered
            .extend(order.map(|k| self.patches[k as usize]));
        debug_assert_eq!(self.gathered.len(), self.patches.len());
        std::mem::swap(&mut self.patches, &mut self.gathered);
    }

    /// Adds the rows of one pair's contact points and their patch.
    fn add_patch(&mut self, bodies: &[Body], points: &[RestingContact], settings: &StepSettings) {
        let h = settings.h;
        let (a, b) = (points[0].a as usize, points[0].b as usize);
        let (ba, bb) = (&bodies[a], &bodies[b]);
        let first = self.rows.len();
        let t = tracked(bodies, a, b);
        let (inv_inertia_a, inv_inertia_b) = (ba.inv_inertia_world(), bb.inv_inertia_world());
        // The collision matrix K of a point at r_a, r_b from the two centres of mass.
        let k_at = |ra: DVec3, rb: DVec3| {
            collision_matrix(
                ba.effective_inv_mass(),
                &inv_inertia_a,
                ra,
                bb.effective_inv_mass(),
                &inv_inertia_b,
                rb,
            )
        };
        let mut centroid = DVec3::ZERO;
        let mut normal = DVec3::ZERO;
        for c in points {
            let (ra, rb) = (c.position - ba.position, c.position - bb.position);
            let n = c.normal;
            let (ang_a, ang_b) = (inv_inertia_a * ra.cross(n), inv_inertia_b * rb.cross(n));
            // n·K·n without forming K: 1/m_a + (r_a×n)·I_a⁻¹(r_a×n), and the same for b.
            let k_a = ba.effective_inv_mass() + ra.cross(n).dot(ang_a);
            let k_b = bb.effective_inv_mass() + rb.cross(n).dot(ang_b);
            let k_nn = k_a + k_b;
            if k_nn.is_nan() || k_nn <= 1e-300 {
                continue; // neither body yields
            }
            let inverse = |k: f64| if k > 1e-300 { 1.0 / k } else { 0.0 };
            let acc = relative_acceleration(ba, bb, ra, rb, n, settings.gravity);
            self.rows.push(Row {
                ra,
                rb,
                normal: n,
                bias: bias(c.separation, settings.target, settings.push_out, h),
                drift: 0.5 * h * acc.dot(n),
                k_nn,
                inv_k_nn: 1.0 / k_nn,
                inv_k_a: inverse(k_a),
                inv_k_b: inverse(k_b),
                lin_a: n * ba.effective_inv_mass(),
                ang_a,
                lin_b: n * bb.effective_inv_mass(),
                ang_b,
                impulse: 0.0,
                local: bodies[t].orientation.inverse() * (c.position - bodies[t].position),
            });
            centroid += c.position;
            normal += c.normal;
        }
        let count = self.rows.len() - first;
        if count == 0 {
            return;
        }
        let centroid = centroid / count as f64;
        let normal = normal.normalize_or(points[0].normal);
        let radius = self.rows[first..]
            .iter()
            .map(|r| {
                let d = r.ra + ba.position - centroid;
                (d - d.dot(normal) * normal).length()
            })
            .sum::<f64>()
            / count as f64;
        let (ra, rb) = (centroid - ba.position, centroid - bb.position);
        let k = k_at(ra, rb);
        let twist_k = normal.dot(inv_inertia_a * normal) + normal.dot(inv_inertia_b * normal);
        self.patches.push(Patch {
            a,
            b,
            ra,
            rb,
            normal,
            friction: points[0].friction,
            drift: 0.5 * h * relative_acceleration(ba, bb, ra, rb, normal, settings.gravity),
            k,
            inv_mass_a: ba.effective_inv_mass(),
            inv_mass_b: bb.effective_inv_mass(),
            inv_inertia_a,
            inv_inertia_b,
            k_tt_inv: tangent_inverse(&k, normal),
            twist_inv: if twist_k > 1e-300 && radius > 0.0 {
                1.0 / twist_k
            } else {
                0.0
            },
            radius,
            first,
            count,
            tangential: DVec3::ZERO,
            twist: 0.0,
            height: -centroid.dot(settings.gravity),
            sa: u32::MAX,
            sb: u32::MAX,
            part: 2,
            previous_rows: u32::MAX,
            previous_patch: u32::MAX,
        });
    }

    /// Finds each patch's entries of the previous step (`Patch::previous_rows`,
    /// `Patch::previous_patch`). The step's pairs come in pair order, as the previous ones are
    /// kept: one merge walks both lists (two binary searches per patch were most of the warm
    /// start, 4 % of the draining pile's profile). A pair out of order is searched for.
    fn find_previous(&mut self) {
        let (rows, patches) = (&self.previous, &self.previous_patches);
        let (mut r, mut q) = (0, 0);
        let mut last = (0u32, 0u32);
        for patch in self.patches.iter_mut() {
            let key = (patch.a as u32, patch.b as u32);
            if key < last {
                r = rows.partition_point(|x| (x.a, x.b) < key);
                q = patches.partition_point(|x| (x.a, x.b) < key);
            } else {
                while r < rows.len() && (rows[r].a, rows[r].b) < key {
                    r += 1;
                }
                while q < patches.len() && (patches[q].a, patches[q].b) < key {
                    q += 1;
                }
            }
            last = key;
            patch.previous_rows = match rows.get(r) {
                Some(x) if (x.a, x.b) == key => r as u32,
                _ => u32::MAX,
            };
            patch.previous_patch = match patches.get(q) {
                Some(x) if (x.a, x.b) == key => q as u32,
                _ => u32::MAX,
            };
        }
    }

    /// Starts each row from the impulse its contact had at the end of the previous step (same
    /// pair, same point on the tracked body within a few percent of the body's size), and each
    /// patch from its pair's friction impulses, kept inside the new friction cone; applies
    /// them. A resting pile then needs only the change since the last step, not to rebuild its
    /// whole weight chain from zero. The previous impulses are multiplied by `scale`: the
    /// span of time this step's impulses carry the contact forces over, to the last one's
    /// (see [`Solver::solve`]).
    fn warm_start(&mut self, bodies: &[Body], scale: f64) {
        if self.previous.is_empty() {
            return;
        }
        for patch in self.patches.iter_mut() {
            let (a, b) = (patch.a, patch.b);
            let key = (a as u32, b as u32);
            let t = tracked(bodies, a, b);
            let reach = 0.05 * bodies[t].bounding_radius.min(1e3);
            let (sa, sb) = (patch.sa, patch.sb);
            let (mut va, mut vb) = (
                read(sa, &self.moving, &self.still),
                read(sb, &self.moving, &self.still),
            );
            let (a_moves, b_moves) = (sa & STILL == 0, sb & STILL == 0);
            let mut total = 0.0;
            let earlier = match patch.previous_rows {
                u32::MAX => &[][..],
                start => &self.previous[start as usize..],
            };
            for row in &mut self.rows[patch.first..patch.first + patch.count] {
                let mut best = None;
                let mut best_d = reach * reach;
                for old in earlier.iter().take_while(|x| (x.a, x.b) == key) {
                    let d = (old.local - row.local).length_squared();
                    if d <= best_d {
                        best_d = d;
                        best = Some(old.impulse);
                    }
                }
                let Some(pn) = best.map(|p| p * scale) else {
                    continue;
                };
                if pn <= 0.0 {
                    continue;
                }
                row.impulse = pn;
                total += pn;
                row.apply_to(&mut va, &mut vb, a_moves, b_moves, pn);
            }
            // `u32::MAX`: the pair had no patch last step (said outright, as for the rows, not
            // left to an index out of range).
            let old = match patch.previous_patch {
                u32::MAX => None,
                k => self.previous_patches.get(k as usize),
            };
            if let Some(old) = old {
                let n = patch.normal;
                let mut pt = (old.tangential - old.tangential.dot(n) * n) * scale;
                let limit = patch.friction * total;
                if pt.length() > limit {
                    pt *= limit / pt.length();
                }
                let tw_limit = patch.friction * patch.radius * total;
                let tw = if patch.twist_inv > 0.0 {
                    (old.twist * scale).clamp(-tw_limit, tw_limit)
                } else {
                    0.0
                };
                patch.tangential = pt;
                patch.twist = tw;
                patch.apply_to(&mut va, &mut vb, a_moves, b_moves, pt, tw);
            }
            if a_moves {
                self.moving[sa as usize] = va;
            }
            if b_moves {
                self.moving[sb as usize] = vb;
            }
        }
    }
}

/// The inverse of `K` on the tangent plane of `n`: with an orthonormal tangent basis `T`
/// (3×2), `T (Tᵀ K T)⁻¹ Tᵀ`, so that `p_t = −k_tt_inv · u_t` is the tangential impulse that
/// stops the tangential slip `u_t` (eq. 5 in both tangent directions at once).
fn tangent_inverse(k: &DMat3, n: DVec3) -> DMat3 {
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

/// Least step-mean normal velocity for a contact at separation `d0` (eq. 8 with a target): a
/// contact farther than the target may close to it over the step; one nearer may not close at
/// all and is pushed back the fraction `push_out` of the way. Pushing all the way at every step
/// (as eq. 8 does) can ask more of a jammed pile than its other contacts allow, and
/// Gauss–Seidel then trades one violated contact for another instead of converging.
fn bias(d0: f64, target: f64, push_out: f64, h: f64) -> f64 {
    if d0 >= target {
        (target - d0) / h
    } else {
        push_out * (target - d0) / h
    }
}

/// Relative acceleration of the two body points of a contact over a step: gravity, and the part
/// of the centripetal terms ω×(ω×r) that brings them together. Only that part: on a curved
/// surface (a rolling ball) the contact moves over the body, so the body point's centripetal
/// motion away from the contact says nothing about the separation, while a polytope's vertex
/// swinging towards the other body does close the gap.
fn relative_acceleration(
    ba: &Body,
    bb: &Body,
    ra: DVec3,
    rb: DVec3,
    normal: DVec3,
    gravity: DVec3,
) -> DVec3 {
    let (w_a, w_b) = (ba.angular_velocity, bb.angular_velocity);
    let spin = w_a.cross(w_a.cross(ra)) - w_b.cross(w_b.cross(rb));
    ba.acceleration(gravity) - bb.acceleration(gravity) + spin.dot(normal).min(0.0) * normal
}

/// Where contact `c`, flying ballistically from now, would be after a step of `settings.h` (m,
/// to second order): the test for whether a held pair needs its contacts solved again.
pub fn predicted_separation(bodies: &[Body], c: &RestingContact, settings: &StepSettings) -> f64 {
    let (ba, bb) = (&bodies[c.a as usize], &bodies[c.b as usize]);
    let (ra, rb) = (c.position - ba.position, c.position - bb.position);
    let u = ba.point_velocity(c.position) - bb.point_velocity(c.position)
        + 0.5 * settings.h * relative_acceleration(ba, bb, ra, rb, c.normal, settings.gravity);
    c.separation + settings.h * u.dot(c.normal)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first sweep (from 0) at which a watch over `window` sweeps calls `residuals` stalled.
    fn stall_at(window: usize, residuals: impl Iterator<Item = f64>) -> Option<usize> {
        let mut watch = StallWatch::new(window);
        residuals
            .take(64)
            .enumerate()
            .find_map(|(k, r)| watch.stalled(k, r).then_some(k))
    }

    /// A residual halving every sweep (Gauss–Seidel converging) never stalls; a flat one stalls
    /// at the first sweep the watch may judge, 2·window; one that cycles (up, down, up …) stalls
    /// too; one that falls by 10 % a sweep (34 % per window of four) goes on; no window never
    /// stalls.
    #[test]
    fn stall_watch_stops_flat_and_cycling_residuals_only() {
        assert_eq!(stall_at(4, (0..).map(|k| 0.5f64.powi(k))), None);
        assert_eq!(stall_at(4, (0..).map(|k| 0.9f64.powi(k))), None);
        assert_eq!(stall_at(4, std::iter::repeat(1e-5)), Some(8));
        assert_eq!(stall_at(3, std::iter::repeat(1e-5)), Some(6));
        let cycle = [1e-4, 3e-5, 2e-4, 5e-5];
        assert_eq!(stall_at(4, (0..).map(|k| cycle[k % 4])), Some(8));
        // Falling by 4 % a sweep is 15 % over four: stalled.
        assert_eq!(stall_at(4, (0..).map(|k| 0.96f64.powi(k))), Some(8));
        assert_eq!(stall_at(0, std::iter::repeat(1e-5)), None);
    }
}
