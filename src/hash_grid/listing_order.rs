//! The order in which a query lists the bodies it finds: the order of a uniform hash grid
//! rebuilt at every reset, whose cells are twice the median box (Mirtich & Canny 1994, §3.2).
//!
//! The event loop acts on a query's bodies in the order listed (an impact set's Gauss–Seidel
//! order, a re-solve's seeds), so the order is part of the results. It is that grid's: first
//! the bodies too large for its cells, in the order they were entered; then the cells the query
//! covers, x outermost, z innermost, each cell's bodies in the order they were entered in it;
//! each body where it comes first. The grid itself is not built: each body keeps the cell
//! ranges it was entered with since the reset, each with its place in the sequence of entries,
//! and a body's place in a query's list follows from them (its first cell in the query's range
//! and its entry there).
//!
//! A reset enters every body, in body order, with the boxes it is given; they are kept, and the
//! cells' side (a median) and a body's entry are worked out when first needed. A reset nothing
//! queries (the contact step's) costs a copy of the boxes and their sides.

use super::cell_index::{cell_range, CellRange};
use crate::swept_aabb::Aabb;

/// Not in the large list; the end of a body's list of entries.
const NONE: u32 = u32::MAX;

/// A query's list is in ascending order of places. A large body's place is its rank in the
/// large list: its index if it was large at the reset, else the body count plus the order in
/// which the others became large. A body first met in cell `c` of the query's cells (`lo` the
/// first) has `CELLS | (c - lo) << 36 | s`, the offsets 4 bits each (a query spans at most
/// [`LARGE_CELLS`](super::cell_index::LARGE_CELLS) + 1 cells per axis), x highest, and `s` its
/// entry's rank in the sequence of entries: the body's index for its entry at the reset, the body
/// count plus the entry's index in [`ListingOrder::entries`] for a later one. When the query is
/// itself too large for the cells, every other body comes by index, `CELLS | index`.
const CELLS: u64 = 1 << 63;

/// An entry of a body after the reset, in the cells of a range.
#[derive(Clone, Copy)]
struct Entry {
    range: CellRange,
    /// The body's previous entry after the reset (or [`NONE`]).
    next: u32,
}

/// What the grid of the last reset would hold, as each body's entries.
#[derive(Default)]
pub(super) struct ListingOrder {
    /// 1 / the cells' side; 0 until worked out from `extents`.
    inv_cell: f64,
    /// The sides of the boxes that size the cells (the median's scratch).
    extents: Vec<f64>,
    /// The boxes of the reset, each body's entry there worked out when first needed.
    at_reset: Vec<Aabb>,
    /// The reset number each body's state below belongs to (older: to be worked out again).
    epoch_of: Vec<u32>,
    epoch: u32,
    /// Each body's range entered at the reset (if it fitted the cells).
    first: Vec<Option<CellRange>>,
    /// Each body's last entered range: an entry inside it adds nothing.
    entered: Vec<Option<CellRange>>,
    /// Each body's latest entry in `entries` (or [`NONE`]).
    last: Vec<u32>,
    /// Each body's rank in the large list, or [`NONE`].
    large_at: Vec<u32>,
    /// Bodies that became large after the reset.
    later_large: u32,
    /// The entries since the reset, in order.
    entries: Vec<Entry>,
}

impl ListingOrder {
    /// Starts a grid for `boxes`, every body entered in order, its cells sized from the boxes
    /// with `sized(i)` true (moving bodies): twice their median largest side.
    pub(super) fn reset(&mut self, boxes: &[Aabb], sized: impl Fn(usize) -> bool + Sync) {
        let n = boxes.len();
        self.extents.clear();
        let extent = |i: usize| {
            let e = boxes[i].max_extent();
            (sized(i) && e.is_finite()).then_some(e)
        };
        // `sized` reads each body (a cache miss each in a large world): on all cores there,
        // in body order either way.
        if n >= super::PARALLEL_FLAGS {
            use rayon::prelude::*;
            let each = (0..n)
                .into_par_iter()
                .with_min_len(super::PARALLEL_FLAGS / 4);
            self.extents.par_extend(each.filter_map(extent));
        } else {
            self.extents.extend((0..n).filter_map(extent));
        }
        self.inv_cell = 0.0;
        self.at_reset.clear();
        self.at_reset.extend_from_slice(boxes);
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 || self.epoch_of.len() != n {
            self.epoch_of.clear();
            self.epoch_of.resize(n, 0);
            self.epoch = 1;
            self.first.resize(n, None);
            self.entered.resize(n, None);
            self.last.resize(n, NONE);
            self.large_at.resize(n, NONE);
        }
        self.later_large = 0;
        self.entries.clear();
    }

    /// The cells' side, worked out if this is its first use since the reset, and whether it was.
    pub(super) fn cell_side(&mut self) -> (f64, bool) {
        if self.inv_cell != 0.0 {
            return (1.0 / self.inv_cell, false);
        }
        let cell = if self.extents.is_empty() {
            1.0
        } else {
            let mid = self.extents.len() / 2;
            let (_, median, _) = self.extents.select_nth_unstable_by(mid, f64::total_cmp);
            (2.0 * *median).max(1e-6)
        };
        self.inv_cell = 1.0 / cell;
        (cell, true)
    }

    /// The cells box `b` covers, or `None` if it is too large for them (or not finite). Only
    /// after [`ListingOrder::cell_side`].
    pub(super) fn cell_range(&self, b: &Aabb) -> Option<CellRange> {
        debug_assert!(self.inv_cell != 0.0);
        cell_range(b, self.inv_cell)
    }

    /// Works out body `j`'s entry at the reset if it is not yet. Only after
    /// [`ListingOrder::cell_side`].
    #[inline(always)]
    fn settle(&mut self, j: usize) {
        if self.epoch_of[j] != self.epoch {
            self.enter_at_reset(j);
        }
    }

    /// Body `j`'s entry at the reset, in order: in the cells its box then covered, or in the
    /// large list at its index.
    #[inline(never)]
    fn enter_at_reset(&mut self, j: usize) {
        self.epoch_of[j] = self.epoch;
        let range = self.cell_range(&self.at_reset[j]);
        self.first[j] = range;
        self.entered[j] = range;
        self.last[j] = NONE;
        self.large_at[j] = if range.is_none() { j as u32 } else { NONE };
    }

    /// Enters body `id` with box `b` after the reset: in the cells it covers unless they are
    /// inside its last entered range, else in the large list unless it is there.
    pub(super) fn insert(&mut self, id: usize, b: &Aabb) {
        self.cell_side();
        self.settle(id);
        match self.cell_range(b) {
            Some((lo, hi)) => {
                if let Some((elo, ehi)) = self.entered[id] {
                    if (0..3).all(|k| elo[k] <= lo[k] && hi[k] <= ehi[k]) {
                        return;
                    }
                }
                self.entered[id] = Some((lo, hi));
                debug_assert!(self.at_reset.len() + self.entries.len() < NONE as usize);
                self.entries.push(Entry {
                    range: (lo, hi),
                    next: self.last[id],
                });
                self.last[id] = (self.entries.len() - 1) as u32;
            }
            None => {
                if self.large_at[id] == NONE {
                    self.large_at[id] = (self.at_reset.len() as u32) + self.later_large;
                    self.later_large += 1;
                }
            }
        }
    }

    /// Body `j`'s place in the list of a query too large for the cells (which lists every
    /// body). Only after [`ListingOrder::cell_side`].
    #[inline]
    pub(super) fn place_by_index(&mut self, j: usize) -> u64 {
        self.settle(j);
        match self.large_at[j] {
            NONE => CELLS | j as u64,
            k => u64::from(k),
        }
    }

    /// Body `j`'s place in the list of a query covering the cells from `qlo` to `qhi`, or
    /// `None` if that grid's query would not meet it (no entry there). Only after
    /// [`ListingOrder::cell_side`].
    #[inline]
    pub(super) fn place(&mut self, j: usize, (qlo, qhi): CellRange) -> Option<u64> {
        self.settle(j);
        if self.large_at[j] != NONE {
            return Some(u64::from(self.large_at[j]));
        }
        // The range's first cell in the query's (x outermost), its lower corner there, and the
        // place there with entry rank `rank`.
        let at = |(lo, hi): CellRange, rank: u64| {
            let (x, y, z) = (lo[0].max(qlo[0]), lo[1].max(qlo[1]), lo[2].max(qlo[2]));
            if x <= hi[0].min(qhi[0]) && y <= hi[1].min(qhi[1]) && z <= hi[2].min(qhi[2]) {
                let cell = ((x - qlo[0]) as u64) << 44
                    | ((y - qlo[1]) as u64) << 40
                    | ((z - qlo[2]) as u64) << 36;
                CELLS | cell | rank
            } else {
                u64::MAX
            }
        };
        let mut best = self.first[j].map_or(u64::MAX, |r| at(r, j as u64));
        let n = self.at_reset.len() as u64;
        let mut e = self.last[j];
        while let Some(entry) = self.entries.get(e as usize) {
            best = best.min(at(entry.range, n + u64::from(e)));
            e = entry.next;
        }
        (best != u64::MAX).then_some(best)
    }
}
