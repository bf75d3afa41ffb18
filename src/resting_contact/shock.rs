//! Shock propagation (Guendelman et al. 2003): [`ShockLevels::build`] layers the contact graph
//! up from the bodies that do not move, and [`sweep_one_sided`] sweeps a level's patches with
//! only that level's bodies taking impulses, after the Gauss–Seidel sweeps.

use super::friction::friction_rows;
use super::patch::{tangent_inverse, Load, Patch, Row, RowOrder};
use super::slots::{read, Slots, Vel, STILL};
use super::split::Part;
use super::StepSettings;
use crate::collision_impulse::collision_matrix;
use glam::DMat3;

/// One Gauss–Seidel update of `patch` in the shock-propagation pass: as in
/// `sweep::sweep_patches`, but only the bodies marked `free` take
/// impulses (the others are a lower, frozen level), so each row's effective mass is that of the
/// free bodies alone, and the friction rows use `k_tt_inv` and `twist_inv` built from them.
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
    let &OneSided {
        free,
        k_tt_inv,
        twist_inv,
    } = one_sided;
    let [a_free, b_free] = free;
    let mut load = Load::default();
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
        if inv_k == 0.0 {
            load.add(row.impulse, row);
            continue;
        }
        let un = n.dot(va.v + va.w.cross(row.ra) - vb.v - vb.w.cross(row.rb)) + row.drift;
        let pn = (row.impulse + (row.bias - un) * inv_k).max(0.0);
        let dp = pn - row.impulse;
        load.add(pn, row);
        if dp != 0.0 {
            row.apply_to(&mut va, &mut vb, a_free, b_free, dp);
            row.impulse = pn;
            row.one_sided += dp;
        }
    }
    if patch.friction > 0.0 {
        let (t0, w0) = (patch.tangential, patch.twist);
        let patch_rows = &rows[first..first + patch.count];
        friction_rows(
            patch, patch_rows, &mut va, &mut vb, free, load, k_tt_inv, twist_inv, 0.0,
        );
        patch.one_sided.0 += patch.tangential - t0;
        patch.one_sided.1 += patch.twist - w0;
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
#[derive(Clone, Copy)]
pub(super) struct OneSided {
    /// Whether a, and b, take impulses.
    free: [bool; 2],
    /// The inverse of the free bodies' collision matrix on the tangent plane, and of their
    /// twisting inertia about the normal (0: no twist), as `Patch::k_tt_inv`, `twist_inv`.
    k_tt_inv: DMat3,
    twist_inv: f64,
}

/// The shock-propagation stage: level by level of `by_level` (its entries `from..to` being one
/// level's), `shock_iterations` one-sided sweeps of the level's patches by `sweep(from, to,
/// order)`, lowest level first, each level frozen once swept (see [`ShockLevels::build`]).
pub(super) fn shock_propagation(
    by_level: &[(u32, u32)],
    settings: &StepSettings,
    sweep: impl Fn(usize, usize, RowOrder),
) {
    let mut i = 0;
    while i < by_level.len() {
        let level = by_level[i].0;
        let j = i + by_level[i..].iter().take_while(|e| e.0 == level).count();
        for k in 0..settings.shock_iterations {
            let order = RowOrder::of_sweep(k);
            sweep(i, j, order);
        }
        i = j;
    }
}

/// One one-sided Gauss–Seidel sweep (see [`solve_patch_one_sided`]) over the patches of `part`
/// that `entries` name (their `(level, index in the step)`), each with its `one_sided`
/// settings.
pub(super) fn sweep_one_sided(
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

/// Patches from which a step's shock levels are sorted and their one-sided inverses found on
/// the pool's threads (the event loop's small re-solves stay on this one).
const PARALLEL_LEVELS: usize = 512;

/// The levels of the shock-propagation pass ([`ShockLevels::build`]) and the scratch they are
/// found with.
#[derive(Clone, Default)]
pub(super) struct ShockLevels {
    /// Level of each moving slot.
    level: Vec<u32>,
    /// The patches of each moving slot (compressed rows: slot `s`'s are `adjacency` from
    /// `adjacency_start[s]` to `adjacency_start[s + 1]`), and the breadth-first search's queue.
    adjacency_start: Vec<u32>,
    adjacency: Vec<u32>,
    queue: Vec<u32>,
    /// The patches in level order (`(level, index in the step)`), with which of their bodies
    /// take impulses and their one-sided friction inverses.
    pub(super) by_level: Vec<(u32, u32)>,
    pub(super) one_sided: Vec<OneSided>,
}

impl ShockLevels {
    /// The levels of shock propagation (Guendelman et al. 2003, as Bender & Schmitt 2006 §3.3
    /// describe it), swept after the Gauss–Seidel sweeps ([`shock_propagation`]): the contact
    /// graph is layered from the bodies that do not move (level 0: fixed, kinematic, asleep) by
    /// breadth-first search; level by level, the patches of that level's bodies are swept
    /// `shock_iterations` times with every body of a lower level taken as immovable (infinite
    /// mass: only this level's bodies take impulses), then the level is frozen. The sweeps have
    /// already shared the load out; this pass settles what they left unconverged from the
    /// ground up, so a stack's lower bodies carry the upper ones instead of being pushed down by
    /// them while the iteration is still converging. Bodies not connected to a level-0 body keep
    /// the sweeps' result. Fills `by_level` (each patch's level and index, in that order) and
    /// `one_sided` from the step's `patches` and its number of `moving` slots; the levels
    /// depend only on the contacts, not on the velocities.
    pub(super) fn build(&mut self, patches: &[Patch], moving: usize) {
        // The patches of each moving slot.
        let start = &mut self.adjacency_start;
        start.clear();
        start.resize(moving + 1, 0);
        for p in patches {
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
        for (k, p) in patches.iter().enumerate() {
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
        for p in patches {
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
                let p = &patches[k as usize];
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
        for (k, p) in patches.iter().enumerate() {
            let (la, lb) = (level_of(&self.level, p.sa), level_of(&self.level, p.sb));
            if la == u32::MAX || lb == u32::MAX {
                continue;
            }
            self.by_level.push((la.max(lb), k as u32));
        }
        // Distinct keys (each has its index): a large step's are sorted on the pool's
        // threads, and each entry's friction inverses found there too (a 3×3 inverse each).
        use rayon::prelude::*;
        let large = self.by_level.len() >= PARALLEL_LEVELS;
        if large {
            self.by_level.par_sort_unstable();
        } else {
            self.by_level.sort_unstable();
        }
        let level = &self.level;
        let sided = |&(lv, k): &(u32, u32)| -> OneSided {
            let p = &patches[k as usize];
            let a_free = level_of(level, p.sa) == lv && p.sa & STILL == 0;
            let b_free = level_of(level, p.sb) == lv && p.sb & STILL == 0;
            if a_free && b_free {
                // Both bodies of the level: the patch's own inverses, which `prepare` found
                // from these same masses and inertias.
                return OneSided {
                    free: [true, true],
                    k_tt_inv: p.k_tt_inv,
                    twist_inv: p.twist_inv,
                };
            }
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
            OneSided {
                free: [a_free, b_free],
                k_tt_inv: tangent_inverse(&k_free, n),
                twist_inv,
            }
        };
        if large {
            let each = self.by_level.par_iter().with_min_len(PARALLEL_LEVELS / 4);
            self.one_sided.par_extend(each.map(sided));
        } else {
            self.one_sided.extend(self.by_level.iter().map(sided));
        }
    }
}
