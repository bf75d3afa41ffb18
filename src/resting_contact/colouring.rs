//! The step's patches coloured so that a colour's patches share no moving body (Box2D v3's
//! graph colouring), and the Gauss–Seidel sweeps in that colour order ([`coloured_sweeps`]):
//! the f64 reference of the device's sweeps (`shaders/contact_sweep.wgsl`), which take a
//! colour's patches all at once. Sweeping a colour's patches at once gives the result of
//! sweeping them one after the other, since no two of them write one velocity; so the order
//! that matters is the colours', and both paths take the same one.

use super::patch::{Constraints, Patch};
use super::slots::{Vel, STILL};
use super::sweep::{gauss_seidel_sweeps, sweep_patch};
use super::{StepReport, StepSettings};

/// Colours per layer of the greedy colouring (one bit each in a slot's mask).
const LAYER: u32 = 64;

/// The colours of a step's patches: colour `c`'s patches are `order[starts[c]..starts[c + 1]]`,
/// each colour's in patch order.
#[derive(Clone, Default)]
pub(super) struct Colouring {
    pub(super) order: Vec<u32>,
    pub(super) starts: Vec<u32>,
    /// Scratch: each moving slot's colours taken in the present layer, and each patch's colour.
    masks: Vec<u64>,
    colour_of: Vec<u32>,
}

impl Colouring {
    /// Colours `patches` (whose moving slots are below `moving_slots`) greedily in their order:
    /// each takes the lowest colour neither of its moving bodies has yet. Still bodies (fixed,
    /// kinematic, asleep) are only read, so they constrain nothing: a floor under a thousand
    /// cubes does not make a thousand colours. Colours come in layers of 64 (one mask word per
    /// slot); a patch whose bodies have used all 64 of a layer waits for the next.
    pub(super) fn colour(&mut self, patches: &[Patch], moving_slots: usize) {
        self.colour_slots(patches.iter().map(|p| (p.sa, p.sb)), moving_slots);
    }

    /// [`Self::colour`] of patches given by their slot pairs.
    fn colour_slots(
        &mut self,
        patches: impl ExactSizeIterator<Item = (u32, u32)> + Clone,
        moving_slots: usize,
    ) {
        let Colouring {
            order,
            starts,
            masks,
            colour_of,
        } = self;
        colour_of.clear();
        colour_of.resize(patches.len(), u32::MAX);
        let mut left = patches.len();
        let mut layer = 0;
        let mut colours = 0;
        while left > 0 {
            masks.clear();
            masks.resize(moving_slots, 0);
            let mask = |masks: &[u64], s: u32| {
                if s & STILL == 0 {
                    masks[s as usize]
                } else {
                    0
                }
            };
            for (k, (sa, sb)) in patches.clone().enumerate() {
                if colour_of[k] != u32::MAX {
                    continue;
                }
                let used = mask(masks, sa) | mask(masks, sb);
                if used == u64::MAX {
                    continue;
                }
                let c = (!used).trailing_zeros();
                for s in [sa, sb] {
                    if s & STILL == 0 {
                        masks[s as usize] |= 1 << c;
                    }
                }
                colour_of[k] = layer * LAYER + c;
                colours = colours.max(colour_of[k] + 1);
                left -= 1;
            }
            layer += 1;
        }
        // Counting sort by colour, stable in patch order.
        starts.clear();
        starts.resize(colours as usize + 1, 0);
        for &c in colour_of.iter() {
            starts[c as usize + 1] += 1;
        }
        for c in 0..colours as usize {
            starts[c + 1] += starts[c];
        }
        order.clear();
        order.resize(patches.len(), 0);
        let mut cursor = starts.clone();
        for (k, &c) in colour_of.iter().enumerate() {
            order[cursor[c as usize] as usize] = k as u32;
            cursor[c as usize] += 1;
        }
    }

    /// Number of colours.
    pub(super) fn colours(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// The patches of colour `c`.
    pub(super) fn colour_patches(&self, c: usize) -> &[u32] {
        &self.order[self.starts[c] as usize..self.starts[c + 1] as usize]
    }
}

/// The step's Gauss–Seidel sweeps in colour order (`colouring` of `constraints.patches`), on
/// this thread, in f64: the reference the device's sweeps are held to. The same stopping rule
/// as the sweeps over the tree of parts.
pub(super) fn coloured_sweeps(
    constraints: &mut Constraints,
    colouring: &Colouring,
    moving: &mut Vec<Vel>,
    still: &[Vel],
    settings: &StepSettings,
) -> StepReport {
    let h = settings.h;
    let Constraints { rows, patches, .. } = constraints;
    gauss_seidel_sweeps(settings, |order| {
        let mut residual_sq: f64 = 0.0;
        for c in 0..colouring.colours() {
            for &k in colouring.colour_patches(c) {
                let patch = &mut patches[k as usize];
                let patch_rows = &mut rows[patch.first..patch.first + patch.count];
                let r = sweep_patch(patch, patch_rows, moving, still, h, order);
                residual_sq = residual_sq.max(r);
            }
        }
        residual_sq.sqrt()
    })
}

/// Whether no two patches of one colour of `colouring` share a moving slot (for tests).
#[cfg(test)]
pub(super) fn colours_are_independent(colouring: &Colouring, patches: &[Patch]) -> bool {
    let slots: Vec<(u32, u32)> = patches.iter().map(|p| (p.sa, p.sb)).collect();
    independent(colouring, &slots)
}

#[cfg(test)]
fn independent(colouring: &Colouring, slots: &[(u32, u32)]) -> bool {
    let every_patch_once = {
        let mut order = colouring.order.clone();
        order.sort_unstable();
        order.iter().copied().eq(0..slots.len() as u32)
    };
    every_patch_once
        && (0..colouring.colours()).all(|c| {
            let mut seen = std::collections::HashSet::new();
            colouring.colour_patches(c).iter().all(|&k| {
                let (sa, sb) = slots[k as usize];
                [sa, sb]
                    .into_iter()
                    .filter(|s| s & STILL == 0)
                    .all(|s| seen.insert(s))
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coloured(slots: &[(u32, u32)], moving: usize) -> Colouring {
        let mut c = Colouring::default();
        c.colour_slots(slots.iter().copied(), moving);
        assert!(independent(&c, slots));
        c
    }

    /// A body touching 100 others needs 100 colours: 64 in the first layer, 36 in the next.
    #[test]
    fn a_star_takes_a_colour_per_patch_across_layers() {
        let slots: Vec<(u32, u32)> = (1..=100).map(|k| (0, k)).collect();
        let c = coloured(&slots, 101);
        assert_eq!(c.colours(), 100);
        assert!((0..100).all(|k| c.colour_patches(k) == [k as u32]));
    }

    /// A chain alternates two colours in patch order, and a floor under every link (a still
    /// body) takes one more colour, not one per link.
    #[test]
    fn a_chain_takes_two_colours_and_still_bodies_none() {
        let mut slots: Vec<(u32, u32)> = (0..9).map(|k| (k, k + 1)).collect();
        slots.extend((0..10).map(|k| (k, STILL)));
        let c = coloured(&slots, 10);
        assert_eq!(c.colours(), 3);
        assert_eq!(c.colour_patches(0), [0, 2, 4, 6, 8]);
        assert_eq!(c.colour_patches(1), [1, 3, 5, 7, 9, 18]);
        assert_eq!(c.colour_patches(2), [10, 11, 12, 13, 14, 15, 16, 17]);
    }

    /// No patches, no colours.
    #[test]
    fn nothing_to_colour() {
        let c = coloured(&[], 0);
        assert_eq!(c.colours(), 0);
    }
}
