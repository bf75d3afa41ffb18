//! The two halves a large contact step is swept in on two threads: [`Solver::assign_slots`]
//! gives the bodies their velocity slots and splits the moving ones at a median across gravity,
//! [`Solver::group_parts`] orders the patches and rows by part, and a [`Part`] is one half, or
//! the cut patches that join the two, with the slots it sweeps.

use super::patch::{Patch, Row};
use super::slots::{Both, Slice, Vel, STILL};
use super::Solver;
use crate::body::Body;
use glam::DVec3;
use std::sync::Mutex;

/// Steps with at least this many patches are split in two halves swept on two threads.
const PARALLEL_PATCHES: usize = 256;

/// How [`Solver::assign_slots`] split the patches: `patches[0]`, `patches[1]` end half 0, half 1
/// (the cut ones follow), likewise `rows`; half 0's moving bodies are slots `0..bodies`.
pub(super) struct Split {
    pub(super) patches: [usize; 2],
    pub(super) rows: [usize; 2],
    pub(super) bodies: u32,
}

/// One part of a split step (a half, or the cut patches): its patches, which start at patch
/// `patch_base` of the step, their rows, which start at row `row_base`, and the velocity slots
/// of their moving bodies.
pub(super) struct Part<'a, V> {
    pub(super) patches: &'a mut [Patch],
    pub(super) patch_base: usize,
    pub(super) rows: &'a mut [Row],
    pub(super) row_base: usize,
    pub(super) slots: V,
}

/// Half 1 of a split step, behind the lock the partner thread takes it with.
pub(super) type Half<'a> = Mutex<Part<'a, Slice<'a>>>;

/// Half 1's part, locked (a panic on the other side fails the step anyway; the data is only
/// velocities and impulses).
pub(super) fn lock<'g, 'a>(half: &'g Half<'a>) -> std::sync::MutexGuard<'g, Part<'a, Slice<'a>>> {
    half.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `f` on the cut patches `patches` (their rows `rows`; `bases`: the first's patch and row
/// index in the step) with both halves' slots: half 0's `lo` and half 1's, from its lock.
pub(super) fn with_cut<R>(
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

impl Solver {
    /// Gives every body of the step's patches a velocity slot and, for a large step, splits
    /// the patches into two halves that share no moving body, so the halves can be swept on
    /// two threads (see [`Self::sweep_parts`]). The moving bodies are split at the median of their
    /// positions along the horizontal axis (across gravity) where they spread most; a patch
    /// whose moving bodies lie on both sides is cut and swept after both halves. The split
    /// depends only on the contacts, never on the thread count, so the step's result does not
    /// either. Copies the velocities in; returns the number of half 0's moving bodies.
    pub(super) fn assign_slots(&mut self, bodies: &[Body], gravity: DVec3) -> u32 {
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

    /// Orders the patches by part (stable: bottom up within each part, as sorted before) and
    /// their rows with them, so each part is one slice of each; `left` is half 0's number of
    /// moving bodies ([`Self::assign_slots`]).
    pub(super) fn group_parts(&mut self, left: u32) -> Split {
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
}
