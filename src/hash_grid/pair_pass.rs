//! One pass over the pairs of overlapping boxes, body by body, that its caller may stop at any
//! point: the overlap check at t = 0 stops at its eleventh overlapping pair, where listing every
//! pair first (the step's way, [`HashGrid::overlapping_pairs`]) would cost 5e7 pairs and
//! 5 GB in a scene of 10 000 bodies all overlapping each other.
//!
//! [`HashGrid::overlapping_pairs`]: super::HashGrid::overlapping_pairs

use super::fat_boxes::FatBoxes;
use super::lead_of;
use super::listing_order::ListingOrder;
use crate::swept_aabb::Aabb;

/// The pairs of `boxes` that overlap, handed out a body at a time in pair order: the same
/// pairs in the same order as [`HashGrid::overlapping_pairs`] lists them, from a grid of the
/// boxes built for the pass alone (cells as a rebuild sizes them, no neighbour lists).
///
/// [`HashGrid::overlapping_pairs`]: super::HashGrid::overlapping_pairs
pub struct PairPass<'a> {
    boxes: &'a [Aabb],
    grid: FatBoxes,
    /// The next body whose pairs are handed out.
    next: usize,
    /// A body's overlapping boxes (scratch).
    found: Vec<u32>,
}

impl<'a> PairPass<'a> {
    /// A pass over `boxes`, the cells sized from those with `sized(i)` true (moving bodies)
    /// as [`HashGrid::rebuild`](super::HashGrid::rebuild) sizes them.
    pub fn new(boxes: &'a [Aabb], sized: impl Fn(usize) -> bool + Sync) -> PairPass<'a> {
        let mut order = ListingOrder::default();
        order.reset(boxes, sized);
        let (cell, _) = order.cell_side();
        PairPass {
            boxes,
            grid: FatBoxes::unlisted(boxes, cell),
            next: 0,
            found: Vec::new(),
        }
    }

    /// The pairs `(i, j)`, `j > i`, of the next body `i` into `out` (cleared first), ascending
    /// in `j`: those whose boxes overlap, at least one of the two leading (`leads`), kept if
    /// `keep(lead, other)` says so (`lead` the lower index if both lead). `false` once every
    /// body has had its turn.
    pub fn next_body(
        &mut self,
        leads: impl Fn(usize) -> bool,
        keep: impl Fn(usize, usize) -> bool,
        out: &mut Vec<(usize, usize)>,
    ) -> bool {
        out.clear();
        let i = self.next;
        if i >= self.boxes.len() {
            return false;
        }
        self.next += 1;
        let boxes = self.boxes;
        self.grid.search(&boxes[i], i, &mut self.found);
        self.found.sort_unstable();
        let above = self.found.partition_point(|&j| j as usize <= i);
        let i_leads = leads(i);
        for &j in &self.found[above..] {
            let j = j as usize;
            let Some((lead, other)) = lead_of(i, j, i_leads, leads(j)) else {
                continue;
            };
            if keep(lead, other) {
                out.push((i, j));
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{scattered, stream};
    use super::super::HashGrid;
    use super::*;

    #[test]
    fn hands_out_the_pairs_the_step_lists_in_its_order() {
        // A large box (the floor slab, last) among many, some boxes far larger than the cells.
        let mut boxes = scattered(700, 20.0, &mut stream(4242));
        for b in boxes.iter_mut().step_by(50) {
            *b = b.grown(6.0);
        }
        let leads = |i: usize| !i.is_multiple_of(3);
        let keep = |i: usize, j: usize| !(i + 2 * j).is_multiple_of(7);
        let mut grid = HashGrid::default();
        grid.rebuild(&boxes, leads);
        let mut want = Vec::new();
        grid.overlapping_pairs(&boxes, leads, keep, &mut want);
        let mut pass = PairPass::new(&boxes, leads);
        let (mut got, mut body) = (Vec::new(), Vec::new());
        let mut turns = 0;
        while pass.next_body(leads, keep, &mut body) {
            turns += 1;
            got.extend_from_slice(&body);
        }
        assert_eq!(turns, boxes.len());
        assert!(want.len() > 1000, "{}", want.len());
        assert_eq!(got, want);
    }
}
