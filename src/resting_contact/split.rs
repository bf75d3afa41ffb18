//! The tree of parts a large contact step is swept in on several threads (nested dissection):
//! [`assign_slots`] gives the bodies their velocity slots and splits the moving ones at
//! medians across gravity, level by level, into the leaves of a binary tree;
//! [`group_parts`] orders the patches and rows by node; a [`Part`] is one node's
//! patches with the slots it sweeps.
//!
//! A patch belongs to the deepest node that holds all its moving bodies: a leaf, or the node
//! where a split cut it. A sweep takes the levels leaves first, and the nodes of one level share
//! no moving body, so they run at the same time; a level's nodes only read the slots of bodies
//! that no other node of the level writes. The tree depends only on the contacts, never on the
//! thread count, so the step's result does not either.

use super::patch::{Constraints, Patch, Row};
use super::slots::{Slice, Vel, Velocities, STILL};
use crate::body::Body;
use glam::DVec3;
use std::ops::Range;

/// A step is split while its leaves keep at least this many patches each on average: 256
/// patches make two halves, 512 four leaves, and so on up to [`MAX_DEPTH`].
const LEAF_PATCHES: usize = 128;

/// The deepest tree: 16 leaves.
const MAX_DEPTH: u32 = 4;

/// The tree depth for a step of `patches` patches (0: not split).
fn depth_for(patches: usize) -> u32 {
    let leaves = patches / LEAF_PATCHES;
    if leaves < 2 {
        0
    } else {
        leaves.ilog2().min(MAX_DEPTH)
    }
}

/// The node of heap numbering (root 1, children 2k and 2k + 1) holding leaves `x` and `y` (both
/// of one level): their lowest common ancestor.
fn common_node(mut x: u32, mut y: u32) -> u32 {
    while x != y {
        x >>= 1;
        y >>= 1;
    }
    x
}

/// The level of node `k` (root 0).
fn level_of(k: usize) -> u32 {
    k.ilog2()
}

/// Where one node's patches, rows and moving slots lie in the step's arrays.
#[derive(Clone, Copy, Default)]
pub(super) struct Span {
    pub(super) patches: (usize, usize),
    pub(super) rows: (usize, usize),
    pub(super) slots: (u32, u32),
}

/// How [`assign_slots`] and [`group_parts`] split a step: `depth` levels below
/// the root, and each node's span by heap number (index 0 unused).
#[derive(Clone, Default)]
pub(super) struct Tree {
    pub(super) depth: u32,
    pub(super) nodes: Vec<Span>,
    /// Scratch, kept so that a step allocates nothing once grown (local re-solves run in the
    /// event loop): the moving bodies in slot order, their positions along a split's axis,
    /// the movers' ranges of a level's nodes and of the next level's, and the patches' counts
    /// and cursors by rank and their indices in node order.
    movers: Vec<usize>,
    keys: Vec<(f64, usize)>,
    ranges: Vec<(usize, usize)>,
    next: Vec<(usize, usize)>,
    count: Vec<usize>,
    cursor: Vec<usize>,
    by_part: Vec<u32>,
    /// Each patch's place in node order, by its place before [`group_parts`].
    pub(super) placed: Vec<u32>,
}

impl Tree {
    /// The heap numbers of the nodes of `level`.
    pub(super) fn level(level: u32) -> Range<usize> {
        (1 << level)..(1 << (level + 1))
    }
}

/// The place of node `k` in a sweep of a tree `depth` levels deep: every deeper level's nodes
/// first, then its own level's in order.
fn rank(depth: u32, k: usize) -> usize {
    let l = level_of(k);
    (1 << (depth + 1)) - (1 << (l + 1)) + (k - (1 << l))
}

/// One part of a split step (a node's patches), which start at patch `patch_base` of the step,
/// their rows, which start at row `row_base`, and the velocity slots of their moving bodies.
pub(super) struct Part<'a, V> {
    pub(super) patches: &'a mut [Patch],
    pub(super) patch_base: usize,
    pub(super) rows: &'a mut [Row],
    pub(super) row_base: usize,
    pub(super) slots: V,
}

/// The step's patches, rows and moving slots, for the threads that sweep its nodes.
#[derive(Clone, Copy)]
pub(super) struct Shared {
    patches: *mut Patch,
    rows: *mut Row,
    moving: *mut Vel,
}

// SAFETY: `Shared` only hands out the nodes' spans ([`Shared::part`]), whose callers take the
// nodes of one level at a time: their patches, rows and slots are disjoint.
unsafe impl Send for Shared {}
unsafe impl Sync for Shared {}

impl Shared {
    /// The arrays of a step, held mutably by the caller for as long as it uses the result.
    pub(super) fn new(patches: &mut [Patch], rows: &mut [Row], moving: &mut [Vel]) -> Self {
        Shared {
            patches: patches.as_mut_ptr(),
            rows: rows.as_mut_ptr(),
            moving: moving.as_mut_ptr(),
        }
    }

    /// Node `span`'s part.
    ///
    /// # Safety
    /// The arrays given to [`Shared::new`] are still held by its caller and used by nothing
    /// else, and no other part whose span overlaps this one is alive (at the same time, take
    /// only nodes of one level: see the module doc).
    pub(super) unsafe fn part<'a>(&self, span: &Span) -> Part<'a, Slice<'a>> {
        let (p0, p1) = span.patches;
        let (r0, r1) = span.rows;
        let (s0, s1) = span.slots;
        // SAFETY: within the arrays (the spans partition them), disjoint from every other
        // part alive (the caller's contract).
        unsafe {
            Part {
                patches: std::slice::from_raw_parts_mut(self.patches.add(p0), p1 - p0),
                patch_base: p0,
                rows: std::slice::from_raw_parts_mut(self.rows.add(r0), r1 - r0),
                row_base: r0,
                slots: Slice {
                    moving: std::slice::from_raw_parts_mut(
                        self.moving.add(s0 as usize),
                        (s1 - s0) as usize,
                    ),
                    base: s0,
                },
            }
        }
    }
}

/// Gives every body of the step's `patches` a velocity slot in `velocities` and, for a large
/// step, splits the moving bodies into the leaves of `tree` (see the module doc): each node's
/// bodies are split at the median of their positions along the horizontal axis (across
/// `gravity`) where they spread most, ties by body index, so stacks stay whole and the split is
/// a total order. Each node's slots are consecutive. Copies the velocities in and marks each
/// patch with its slots and its node; returns the tree's depth.
pub(super) fn assign_slots(
    tree: &mut Tree,
    velocities: &mut Velocities,
    constraints: &mut Constraints,
    bodies: &[Body],
    gravity: DVec3,
) -> u32 {
    // The bodies are met in the patches' bottom-up order (the sweep order within a node).
    let (patches, bottom_up) = (&constraints.patches, constraints.bottom_up());
    velocities.clear(bodies.len());
    let Velocities {
        moving,
        moving_bodies,
        still,
        still_bodies,
        slot,
    } = velocities;
    let movers = &mut tree.movers;
    movers.clear();
    for patch in bottom_up.clone().map(|k| &patches[k]) {
        for i in [patch.a, patch.b] {
            if bodies[i].is_awake_dynamic() && slot[i] == u32::MAX {
                slot[i] = 0; // seen
                movers.push(i);
            }
        }
    }
    let depth = if movers.len() >= 2 {
        depth_for(patches.len())
    } else {
        0
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
    // Level by level, each node's movers (a range of `movers`) split at their median.
    let keys = &mut tree.keys;
    let (ranges, next) = (&mut tree.ranges, &mut tree.next);
    ranges.clear();
    ranges.push((0, movers.len()));
    for _ in 0..depth {
        next.clear();
        for &(lo, hi) in ranges.iter() {
            let node = &movers[lo..hi];
            let spread = |axis: usize| {
                let (min, max) = node
                    .iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |m, &i| {
                        let c = bodies[i].position[axis];
                        (m.0.min(c), m.1.max(c))
                    });
                max - min
            };
            let axis = (0..3)
                .filter(|&k| k != vertical)
                .max_by(|&x, &y| spread(x).total_cmp(&spread(y)))
                .unwrap_or(0);
            keys.clear();
            keys.extend(node.iter().map(|&i| (bodies[i].position[axis], i)));
            let mid = keys.len() / 2;
            if mid < keys.len() {
                keys.select_nth_unstable_by(mid, |x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
            }
            for (slot, &(_, i)) in movers[lo..hi].iter_mut().zip(keys.iter()) {
                *slot = i;
            }
            next.push((lo, lo + mid));
            next.push((lo + mid, hi));
        }
        // Double buffering: this level's ranges become the next level's scratch.
        std::mem::swap(ranges, next);
    }
    // Slots in leaf order; the spans of the leaves, then of the nodes above them.
    tree.depth = depth;
    tree.nodes.clear();
    tree.nodes.resize(1 << (depth + 1), Span::default());
    let first_leaf = 1usize << depth;
    for (leaf, &(lo, hi)) in ranges.iter().enumerate() {
        for &i in &movers[lo..hi] {
            slot[i] = moving.len() as u32;
            moving.push(Vel {
                v: bodies[i].velocity,
                w: bodies[i].angular_velocity,
            });
            moving_bodies.push(i);
        }
        tree.nodes[first_leaf + leaf].slots = (lo as u32, hi as u32);
    }
    for k in (1..first_leaf).rev() {
        tree.nodes[k].slots = (tree.nodes[2 * k].slots.0, tree.nodes[2 * k + 1].slots.1);
    }
    // The leaf of each moving slot.
    let leaf_of = |s: u32| -> u32 {
        let k = ranges.partition_point(|&(_, hi)| hi as u32 <= s);
        (first_leaf + k) as u32
    };
    // Bodies that do not move in the step (fixed, kinematic, asleep): read-only slots.
    for patch in bottom_up.map(|k| &patches[k]) {
        for i in [patch.a, patch.b] {
            if slot[i] == u32::MAX {
                slot[i] = STILL | still.len() as u32;
                still.push(Vel {
                    v: bodies[i].velocity,
                    w: bodies[i].angular_velocity,
                });
                still_bodies.push(i);
            }
        }
    }
    // Node of each patch: the deepest holding all its moving bodies.
    for patch in constraints.patches.iter_mut() {
        patch.sa = slot[patch.a];
        patch.sb = slot[patch.b];
        let (ma, mb) = (patch.sa & STILL == 0, patch.sb & STILL == 0);
        patch.node = match (ma, mb) {
            (true, true) => common_node(leaf_of(patch.sa), leaf_of(patch.sb)),
            (true, false) => leaf_of(patch.sa),
            (false, true) => leaf_of(patch.sb),
            (false, false) => 1,
        } as u8;
    }
    depth
}

/// Orders the patches of `constraints` by node of `tree` in sweep order (every leaf, then each
/// level above; bottom up within a node, [`Constraints::bottom_up`]) and their rows with them, so
/// each node's patches and rows are one slice of each, and records the nodes' spans.
pub(super) fn group_parts(tree: &mut Tree, constraints: &mut Constraints) {
    let (nodes, depth) = (tree.nodes.len(), tree.depth);
    // A stable counting sort by rank, each patch copied once (see
    // `Constraints::gather_patches`).
    let (count, cursor, by_part) = (&mut tree.count, &mut tree.cursor, &mut tree.by_part);
    count.clear();
    count.resize(nodes + 1, 0);
    for p in &constraints.patches {
        count[rank(depth, p.node as usize) + 1] += 1;
    }
    for r in 0..nodes {
        count[r + 1] += count[r];
    }
    by_part.clear();
    by_part.resize(constraints.patches.len(), 0);
    let placed = &mut tree.placed;
    placed.clear();
    placed.resize(constraints.patches.len(), 0);
    cursor.clear();
    cursor.extend_from_slice(count);
    // Bottom up within each node: the patches are copied once, from their prepared places.
    for k in constraints.bottom_up() {
        let r = rank(depth, constraints.patches[k].node as usize);
        by_part[cursor[r]] = k as u32;
        placed[k] = cursor[r] as u32;
        cursor[r] += 1;
    }
    constraints.gather_patches(by_part);
    // Rows in patch order, so each node's rows are one slice.
    constraints.gather_rows();
    let rows_until = |n: usize| {
        constraints
            .patches
            .get(n)
            .map_or(constraints.rows.len(), |p| p.first)
    };
    for k in 1..nodes {
        let r = rank(depth, k);
        let (p0, p1) = (count[r], count[r + 1]);
        tree.nodes[k].patches = (p0, p1);
        tree.nodes[k].rows = (rows_until(p0), rows_until(p1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depths_and_ranks() {
        assert_eq!(depth_for(0), 0);
        assert_eq!(depth_for(255), 0);
        assert_eq!(depth_for(256), 1);
        assert_eq!(depth_for(511), 1);
        assert_eq!(depth_for(512), 2);
        assert_eq!(depth_for(1 << 20), MAX_DEPTH);
        assert_eq!(common_node(8, 9), 4);
        assert_eq!(common_node(8, 15), 1);
        assert_eq!(common_node(10, 10), 10);
        // Leaves 4..8 first, then 2 and 3, then the root.
        let ranks: Vec<usize> = (1..8).map(|k| rank(2, k)).collect();
        assert_eq!(ranks, vec![6, 4, 5, 0, 1, 2, 3]);
    }
}
