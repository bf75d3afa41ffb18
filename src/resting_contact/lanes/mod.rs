//! The contact step's Gauss–Seidel sweeps in lanes: four patches that share no moving body
//! swept at once with vector instructions, structure of arrays (Box2D v3's `contact_solver.c`,
//! Rapier's SIMD contact constraints). Beside it stay its twins: the scalar sweep
//! (`sweep::sweep_patch`, the reference, which [`LaneKernel::Scalar`] runs in the lanes' own
//! order, bit for bit the same), and the WGSL sweeps of `device_sweep`.
//!
//! - `batch`: which patches go together, each node of the step's tree on its own, in an order
//!   close to the tree's bottom-up one;
//! - `store`: the groups' data, packed from the patches and rows and given back after;
//! - `kernel`: one sweep over a node's groups, compiled for the host's vector units at run time;
//! - `f64x4`: the lanes' arithmetic, each lane the scalar one.
//!
//! The groups of a node depend only on its patches, and the nodes of a level run on the crew's
//! threads as the scalar sweep's do (`sweep::sweep_parts`), so the result is the same on any
//! number of threads.

#[cfg(target_arch = "x86_64")]
mod avx2;
mod batch;
mod f64x4;
mod kernel;
mod store;

use super::patch::{Patch, RowOrder};
use super::slots::{Slice, Vel};
use super::split::{Part, Tree};
use batch::{batch_node, Batcher, Header, EMPTY};
use store::{pack_group, unpack_group, Group, LaneRow, LaneSlide, NodeData};

/// Steps of fewer patches than this are swept by the scalar sweep in the tree's order: grouping
/// and packing them would cost more than the lanes save.
pub(super) const LANE_MIN_PATCHES: usize = 32;

/// Which sweep runs over the groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LaneKernel {
    /// Four patches at once ([`kernel::sweep_groups`]).
    Lanes,
    /// The scalar sweep, patch by patch in the groups' order: the lanes' reference twin.
    Scalar,
}

/// A step's groups, their data, and scratch, kept so that a step allocates nothing once grown.
#[derive(Clone, Default)]
pub(crate) struct LaneStep {
    headers: Vec<Header>,
    groups: Vec<Group>,
    rows: Vec<LaneRow>,
    slides: Vec<LaneSlide>,
    /// The groups of each node of the tree, by heap number (0 unused): `headers[g0..g1]`.
    node_groups: Vec<(u32, u32)>,
    batcher: Batcher,
}

impl LaneStep {
    /// Deals the patches of every node of `tree` into groups (`batch`); `patches` are in node
    /// order (`split::group_parts`) with their slots below `moving_slots`.
    pub(super) fn build(&mut self, tree: &Tree, patches: &[Patch], moving_slots: usize) {
        self.headers.clear();
        self.node_groups.clear();
        self.node_groups.resize(tree.nodes.len(), (0, 0));
        self.batcher.reset(moving_slots);
        let mut next_row = 0;
        for (k, span) in tree.nodes.iter().enumerate().skip(1) {
            let g0 = self.headers.len() as u32;
            batch_node(
                &mut self.batcher,
                patches,
                span.patches.0..span.patches.1,
                &mut self.headers,
                &mut next_row,
            );
            self.node_groups[k] = (g0, self.headers.len() as u32);
        }
        // Grown only: every group and row slot in use is packed whole before it is read.
        if self.groups.len() < self.headers.len() {
            self.groups.resize(self.headers.len(), Group::default());
        }
        if self.rows.len() < next_row as usize {
            self.rows.resize(next_row as usize, LaneRow::default());
            self.slides.resize(next_row as usize, LaneSlide::default());
        }
    }

    /// Number of groups, and of lanes holding a patch.
    #[cfg(test)]
    pub(crate) fn occupancy(&self) -> (usize, usize) {
        let full = self
            .headers
            .iter()
            .map(|h| h.patch.iter().filter(|&&k| k != EMPTY).count())
            .sum();
        (self.headers.len(), full)
    }

    /// The step's groups for the threads that sweep its nodes.
    pub(super) fn shared(&mut self) -> SharedLanes<'_> {
        SharedLanes {
            headers: &self.headers,
            node_groups: &self.node_groups,
            groups: self.groups.as_mut_ptr(),
            rows: self.rows.as_mut_ptr(),
            slides: self.slides.as_mut_ptr(),
        }
    }
}

/// A step's groups, handed out node by node ([`SharedLanes::node`]).
#[derive(Clone, Copy)]
pub(super) struct SharedLanes<'a> {
    headers: &'a [Header],
    node_groups: &'a [(u32, u32)],
    groups: *mut Group,
    rows: *mut LaneRow,
    slides: *mut LaneSlide,
}

// SAFETY: `SharedLanes` only hands out the nodes' groups ([`SharedLanes::node`]), whose callers
// take the nodes of one level at a time: their groups and row slots are disjoint.
unsafe impl Send for SharedLanes<'_> {}
unsafe impl Sync for SharedLanes<'_> {}

/// One node's groups: their headers, data and row slots.
pub(super) struct NodeLanes<'a> {
    headers: &'a [Header],
    groups: &'a mut [Group],
    rows: &'a mut [LaneRow],
    slides: &'a mut [LaneSlide],
}

impl<'a> SharedLanes<'a> {
    /// The groups of node `k`.
    ///
    /// # Safety
    /// The [`LaneStep`] stays borrowed by the caller of [`LaneStep::shared`] while the result is
    /// used, and no other [`NodeLanes`] of node `k` is alive (take only nodes of one level at a
    /// time, as `sweep::sweep_parts` does).
    pub(super) unsafe fn node(&self, k: usize) -> NodeLanes<'a> {
        let (g0, g1) = self.node_groups[k];
        let headers = &self.headers[g0 as usize..g1 as usize];
        let (r0, r1) = match (headers.first(), headers.last()) {
            (Some(f), Some(l)) => (f.rows as usize, (l.rows + l.count) as usize),
            _ => (0, 0),
        };
        // SAFETY: within the arrays (`build` grew them to hold every node's groups and rows),
        // disjoint from every other node's (the caller's contract).
        unsafe {
            NodeLanes {
                headers,
                groups: std::slice::from_raw_parts_mut(
                    self.groups.add(g0 as usize),
                    (g1 - g0) as usize,
                ),
                rows: std::slice::from_raw_parts_mut(self.rows.add(r0), r1 - r0),
                slides: std::slice::from_raw_parts_mut(self.slides.add(r0), r1 - r0),
            }
        }
    }
}

impl NodeLanes<'_> {
    /// The row slots of group `g` (of this node).
    fn group_rows(&self, g: usize) -> std::ops::Range<usize> {
        let base = self.headers[0].rows as usize;
        let h = &self.headers[g];
        h.rows as usize - base..(h.rows + h.count) as usize - base
    }

    /// Packs the node's groups from its `part`'s patches and rows.
    pub(super) fn pack(&mut self, part: &Part<'_, Slice<'_>>) {
        let node = NodeData {
            patches: &*part.patches,
            patch_base: part.patch_base,
            rows: &*part.rows,
            row_base: part.row_base,
        };
        for g in 0..self.headers.len() {
            let range = self.group_rows(g);
            pack_group(
                &self.headers[g],
                &mut self.groups[g],
                &mut self.rows[range.clone()],
                &mut self.slides[range],
                &node,
            );
        }
    }

    /// Gives the node's impulses back to its `part`'s patches and rows.
    pub(super) fn unpack(&self, part: &mut Part<'_, Slice<'_>>) {
        let mut node = NodeData {
            patches: &mut *part.patches,
            patch_base: part.patch_base,
            rows: &mut *part.rows,
            row_base: part.row_base,
        };
        for g in 0..self.headers.len() {
            let range = self.group_rows(g);
            unpack_group(
                &self.headers[g],
                &self.groups[g],
                &self.rows[range],
                &mut node,
            );
        }
    }

    /// The node's patches (step indices) in the groups' order: the order the scalar twin
    /// sweeps them in.
    pub(super) fn patch_order(&self) -> impl Iterator<Item = usize> + '_ {
        self.headers
            .iter()
            .flat_map(|h| h.patch.iter().filter(|&&k| k != EMPTY).map(|&k| k as usize))
    }

    /// One lanes sweep of the node's packed groups. Returns the largest change of a predicted
    /// end position.
    pub(super) fn sweep(
        &mut self,
        part: &mut Part<'_, Slice<'_>>,
        still: &[Vel],
        h: f64,
        order: RowOrder,
    ) -> f64 {
        kernel::sweep_groups(self, &mut part.slots, still, h, order)
    }
}
