//! Tests only: the hash grid rebuilt at every reset, as a reference for [`super::HashGrid`]'s
//! pairs and for the order its queries list their bodies in ([`super::listing_order`]).

use crate::swept_aabb::Aabb;
use rustc_hash::FxHashMap;

/// Boxes whose largest side exceeds this many cells go to the large list.
const LARGE_CELLS: f64 = 8.0;

/// A uniform hash grid with an overflow list for large boxes; a query lists each cell's bodies
/// in the order they were entered.
#[derive(Default)]
pub(super) struct Grid {
    inv_cell: f64,
    cells: FxHashMap<(i32, i32, i32), Vec<u32>>,
    large: Vec<u32>,
    in_large: Vec<bool>,
    /// Cells each body was last entered in: a re-insert inside them adds nothing (without this
    /// a body in a microcollision train would pile duplicates into its cells every event).
    entered: Vec<Option<([i32; 3], [i32; 3])>>,
    /// The lower cell of each body's entries (of `entered`; compact, for
    /// [`Grid::overlapping_pairs`]).
    lower_cell: Vec<[i32; 3]>,
    /// Per-body query stamp, for de-duplicating candidates without a set.
    seen: Vec<u32>,
    stamp: u32,
}

impl Grid {
    /// Empties the grid and sizes its cells for `boxes` (only those with `sized(i)` true count
    /// towards the size: moving bodies). Afterwards insert each box with [`Grid::insert`].
    pub(super) fn reset(&mut self, boxes: &[Aabb], sized: impl Fn(usize) -> bool) {
        let mut extents: Vec<f64> = (0..boxes.len())
            .filter(|&i| sized(i) && boxes[i].max_extent().is_finite())
            .map(|i| boxes[i].max_extent())
            .collect();
        let cell = if extents.is_empty() {
            1.0
        } else {
            let mid = extents.len() / 2;
            let (_, median, _) = extents.select_nth_unstable_by(mid, f64::total_cmp);
            (2.0 * *median).max(1e-6)
        };
        self.inv_cell = 1.0 / cell;
        if self.cells.len() > 64 * boxes.len().max(16) {
            self.cells.clear();
        } else {
            for v in self.cells.values_mut() {
                v.clear();
            }
        }
        self.large.clear();
        self.in_large.clear();
        self.in_large.resize(boxes.len(), false);
        self.entered.clear();
        self.entered.resize(boxes.len(), None);
        self.lower_cell.clear();
        self.lower_cell.resize(boxes.len(), [i32::MAX; 3]);
        self.seen.clear();
        self.seen.resize(boxes.len(), 0);
        self.stamp = 0;
    }

    fn cell_range(&self, b: &Aabb) -> Option<([i32; 3], [i32; 3])> {
        let lo = (b.min * self.inv_cell).floor();
        let hi = (b.max * self.inv_cell).floor();
        if !(lo.is_finite() && hi.is_finite()) {
            return None;
        }
        let span = hi - lo;
        if span.max_element() > LARGE_CELLS
            || (span.x + 1.0) * (span.y + 1.0) * (span.z + 1.0) > 512.0
        {
            return None;
        }
        Some((
            [lo.x as i32, lo.y as i32, lo.z as i32],
            [hi.x as i32, hi.y as i32, hi.z as i32],
        ))
    }

    /// Adds body `id` with box `b` (again, after its box changed: old entries become stale).
    pub(super) fn insert(&mut self, id: usize, b: &Aabb) {
        match self.cell_range(b) {
            Some((lo, hi)) => {
                if let Some((elo, ehi)) = self.entered[id] {
                    if (0..3).all(|k| elo[k] <= lo[k] && hi[k] <= ehi[k]) {
                        return;
                    }
                }
                self.entered[id] = Some((lo, hi));
                self.lower_cell[id] = lo;
                for x in lo[0]..=hi[0] {
                    for y in lo[1]..=hi[1] {
                        for z in lo[2]..=hi[2] {
                            self.cells.entry((x, y, z)).or_default().push(id as u32);
                        }
                    }
                }
            }
            None => {
                if !self.in_large[id] {
                    self.in_large[id] = true;
                    self.large.push(id as u32);
                }
            }
        }
    }

    /// Every body other than `me` whose current box (in `boxes`) overlaps `b`, each once, in
    /// `out` (cleared first).
    pub(super) fn query(&mut self, me: usize, b: &Aabb, boxes: &[Aabb], out: &mut Vec<u32>) {
        out.clear();
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.iter_mut().for_each(|s| *s = 0);
            self.stamp = 1;
        }
        let stamp = self.stamp;
        let mut seen = std::mem::take(&mut self.seen);
        seen[me] = stamp;
        self.for_each_entry(b, boxes.len(), |_, j| {
            let ju = j as usize;
            if seen[ju] != stamp {
                seen[ju] = stamp;
                if boxes[ju].overlaps(b) {
                    out.push(j);
                }
            }
        });
        self.seen = seen;
    }

    /// Calls `f(cell, j)` for every entry a query with box `b` looks at: each body of the
    /// large list (no cell), each entry of the cells `b` covers (with its cell), or, for a box
    /// too large for the grid (rare: a huge moving body), each of the `n` bodies not in the
    /// large list (no cell). A body entered in several of the cells comes once per cell.
    fn for_each_entry(&self, b: &Aabb, n: usize, mut f: impl FnMut(Option<[i32; 3]>, u32)) {
        for &j in &self.large {
            f(None, j);
        }
        match self.cell_range(b) {
            Some((lo, hi)) => {
                for x in lo[0]..=hi[0] {
                    for y in lo[1]..=hi[1] {
                        for z in lo[2]..=hi[2] {
                            if let Some(v) = self.cells.get(&(x, y, z)) {
                                for &j in v {
                                    f(Some([x, y, z]), j);
                                }
                            }
                        }
                    }
                }
            }
            None => {
                for j in (0..n).filter(|&j| !self.in_large[j]) {
                    f(None, j as u32);
                }
            }
        }
    }

    /// Every pair `(min, max)` of bodies whose boxes (in `boxes`, each inserted once since the
    /// last [`Grid::reset`], as they are now) overlap, queried from every body `i` with
    /// `leads(i)` and kept if `keep(i, j)`; a pair of two leading bodies is found once, from its
    /// higher index. Computed on all cores, into `out` (cleared first) in pair order, so the
    /// result does not depend on the thread count or the cell size.
    ///
    /// A query here cannot mark the bodies it has seen (that would be shared state): a pair
    /// met in several cells is kept only in the cell that holds the lower corner of the two
    /// boxes' overlap, which lies in both boxes' cell ranges (its coordinates are each box's
    /// own lower corner on some axis, and no higher than either box's upper corner). Each box
    /// must have been inserted as it is now (its cells are those it was entered in).
    pub(super) fn overlapping_pairs(
        &self,
        boxes: &[Aabb],
        leads: impl Fn(usize) -> bool + Sync,
        keep: impl Fn(usize, usize) -> bool + Sync,
        out: &mut Vec<(usize, usize)>,
    ) {
        use rayon::prelude::*;
        const CHUNK: usize = 128;
        let n = boxes.len();
        let lists: Vec<Vec<(usize, usize)>> = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let mut list = Vec::new();
                for i in (c * CHUNK..((c + 1) * CHUNK).min(n)).filter(|&i| leads(i)) {
                    self.pairs_from(i, boxes, &leads, &keep, &mut list);
                }
                list
            })
            .collect();
        out.clear();
        for list in &lists {
            out.extend_from_slice(list);
        }
        out.sort_unstable();
    }

    /// The pairs that body `i` finds (see [`Grid::overlapping_pairs`]), appended to `out`.
    fn pairs_from(
        &self,
        i: usize,
        boxes: &[Aabb],
        leads: &impl Fn(usize) -> bool,
        keep: &impl Fn(usize, usize) -> bool,
        out: &mut Vec<(usize, usize)>,
    ) {
        let b = &boxes[i];
        // Body i's own lower cell (an entry comes with a cell only when i's box is in the grid).
        let lo = self.lower_cell[i];
        self.for_each_entry(b, boxes.len(), |cell, j| {
            let j = j as usize;
            if let Some(cell) = cell {
                // Only in the cell of the overlap's lower corner: from the two boxes' lower
                // cells (the floor is monotonic), the greater on each axis.
                let jlo = self.lower_cell[j];
                if [lo[0].max(jlo[0]), lo[1].max(jlo[1]), lo[2].max(jlo[2])] != cell {
                    return;
                }
            }
            if j != i && boxes[j].overlaps(b) && !(j < i && leads(j)) && keep(i, j) {
                out.push((i.min(j), i.max(j)));
            }
        });
    }
}
