//! Which patches a lanes sweep takes together ([`batch_node`]): a node's patches, in their
//! order, dealt into groups of [`LANES`] that share no moving body, Rapier's interaction groups
//! in spirit. A group's patches are swept at once, which is sweeping them one after the other
//! in any order, as no two of them write one velocity; so the Gauss–Seidel order a lanes sweep
//! follows is the groups' order, and the scalar twin follows the same one.
//!
//! A global colouring (Box2D v3's graph colouring, `colouring`) also gives such groups, but it
//! takes the whole step apart: a pile's bottom-up order, in which its contacts converge fastest,
//! becomes one colour's patches at every height before the next colour's. Here a patch waits
//! only until one of [`OPEN`] open groups has room without a shared body, so every patch is
//! swept within a few groups of its place bottom up.

use super::super::patch::Patch;
use super::super::slots::STILL;
use super::f64x4::LANES;

/// Groups open at once: a patch that fits none of them, when all are open, closes the oldest.
const OPEN: usize = 8;

/// A lane without a patch.
pub(crate) const EMPTY: u32 = u32::MAX;

/// One group of a lanes sweep: its patches (step indices, [`EMPTY`] lanes last), and where its
/// row slots start and how many it has (its longest patch's rows).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Header {
    pub(crate) patch: [u32; LANES],
    pub(crate) rows: u32,
    pub(crate) count: u32,
}

/// A group being filled.
#[derive(Clone, Copy)]
struct Open {
    patch: [u32; LANES],
    filled: usize,
    /// When it was opened (the oldest fitting group takes a patch).
    age: u64,
}

/// Scratch of [`batch_node`]: each moving slot's open groups (one bit each) and the groups.
#[derive(Clone, Default)]
pub(crate) struct Batcher {
    masks: Vec<u16>,
    open: Vec<Open>,
    in_use: u16,
    age: u64,
}

impl Batcher {
    /// Ready for a step of `moving_slots` moving slots.
    pub(crate) fn reset(&mut self, moving_slots: usize) {
        self.masks.clear();
        self.masks.resize(moving_slots, 0);
        self.open.clear();
        self.open.resize(
            OPEN,
            Open {
                patch: [EMPTY; LANES],
                filled: 0,
                age: 0,
            },
        );
        self.in_use = 0;
    }

    /// The moving slots of patch `p`.
    fn moving(p: &Patch) -> impl Iterator<Item = usize> {
        [p.sa, p.sb]
            .into_iter()
            .filter(|s| s & STILL == 0)
            .map(|s| s as usize)
    }

    /// Closes open group `b`: appends its header to `out` (its rows from `*next_row` on).
    fn close(&mut self, b: usize, patches: &[Patch], out: &mut Vec<Header>, next_row: &mut u32) {
        let group = self.open[b];
        let mut count = 0;
        for &k in &group.patch[..group.filled] {
            let p = &patches[k as usize];
            count = count.max(p.count as u32);
            for s in Self::moving(p) {
                self.masks[s] &= !(1 << b);
            }
        }
        out.push(Header {
            patch: group.patch,
            rows: *next_row,
            count,
        });
        *next_row += count;
        self.in_use &= !(1 << b);
    }
}

/// Deals the patches `range` of `patches` (one node's, whose moving slots are below the
/// `reset`'s count) into groups, appended to `out` in the order they close; their row slots are
/// numbered on from `*next_row`. Depends only on the patches and their order.
pub(crate) fn batch_node(
    batcher: &mut Batcher,
    patches: &[Patch],
    range: std::ops::Range<usize>,
    out: &mut Vec<Header>,
    next_row: &mut u32,
) {
    let full: u16 = (1 << OPEN) - 1;
    for k in range {
        let p = &patches[k];
        let used = Batcher::moving(p).fold(0, |m, s| m | batcher.masks[s]);
        let fits = batcher.in_use & !used;
        let oldest = |bits: u16, open: &[Open]| {
            (0..OPEN)
                .filter(|&b| bits & (1 << b) != 0)
                .min_by_key(|&b| open[b].age)
        };
        let b = match oldest(fits, &batcher.open) {
            Some(b) => b,
            None => {
                let b = if batcher.in_use != full {
                    (!batcher.in_use).trailing_zeros() as usize
                } else {
                    let b = oldest(batcher.in_use, &batcher.open).unwrap_or(0);
                    batcher.close(b, patches, out, next_row);
                    b
                };
                batcher.open[b] = Open {
                    patch: [EMPTY; LANES],
                    filled: 0,
                    age: batcher.age,
                };
                batcher.age += 1;
                batcher.in_use |= 1 << b;
                b
            }
        };
        let group = &mut batcher.open[b];
        group.patch[group.filled] = k as u32;
        group.filled += 1;
        for s in Batcher::moving(p) {
            batcher.masks[s] |= 1 << b;
        }
        if batcher.open[b].filled == LANES {
            batcher.close(b, patches, out, next_row);
        }
    }
    // The rest, oldest first.
    while batcher.in_use != 0 {
        let b = (0..OPEN)
            .filter(|&b| batcher.in_use & (1 << b) != 0)
            .min_by_key(|&b| batcher.open[b].age)
            .unwrap_or(0);
        batcher.close(b, patches, out, next_row);
    }
}
