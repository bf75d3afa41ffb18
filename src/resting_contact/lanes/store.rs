//! The lanes sweep's data: each group's patches ([`Group`]) and row slots ([`LaneRow`]) as
//! structure of arrays over its four lanes, packed from the step's patches and rows before the
//! sweeps ([`pack_group`]) and their impulses given back after them ([`unpack_group`]). A
//! lane's row slot `k` is its patch's row `k`; slots past a patch's rows, and empty lanes, are
//! zero, which the sweep takes as rows that never push (their effective mass is zero).

use super::super::patch::{Patch, Row};
use super::super::slots::STILL;
use super::batch::{Header, EMPTY};
use super::f64x4::{F4, LANES, M3, M4, V3};

/// The patches of one group, lane by lane (the fields of [`Patch`] a sweep reads and writes).
#[derive(Clone, Copy, Default)]
pub(crate) struct Group {
    pub(crate) normal: V3,
    pub(crate) ra: V3,
    pub(crate) rb: V3,
    pub(crate) drift: V3,
    pub(crate) tangential: V3,
    pub(crate) k: M3,
    pub(crate) k_tt_inv: M3,
    pub(crate) inv_inertia_a: M3,
    pub(crate) inv_inertia_b: M3,
    pub(crate) friction: F4,
    pub(crate) inv_mass_a: F4,
    pub(crate) inv_mass_b: F4,
    pub(crate) twist_inv: F4,
    pub(crate) twist: F4,
    pub(crate) radius: F4,
    /// Velocity slots of a and b (see `split::assign_slots`). A body moves in the step
    /// exactly where its inverse mass here is positive (awake and dynamic), and a patch has
    /// friction where `friction` is: the sweep takes those masks from the values.
    pub(crate) sa: [u32; LANES],
    pub(crate) sb: [u32; LANES],
    /// Lanes that slide through the step (`Patch::slides`), whose rows' [`LaneSlide`] count.
    pub(crate) slides: M4,
}

/// Row slot `k` of a group's four patches (the fields of [`Row`] every sweep reads and
/// writes; `Row::lin_a`, `lin_b` and `spread_sq` are recomputed from them by the same
/// products that made them, so a slot is 22 numbers a lane where a `Row` is 42).
#[derive(Clone, Copy, Default)]
pub(crate) struct LaneRow {
    pub(crate) normal: V3,
    pub(crate) ra: V3,
    pub(crate) rb: V3,
    pub(crate) ang_a: V3,
    pub(crate) ang_b: V3,
    pub(crate) spread: V3,
    pub(crate) drift: F4,
    pub(crate) bias: F4,
    pub(crate) k_nn: F4,
    pub(crate) inv_k_nn: F4,
    pub(crate) impulse: F4,
}

/// The fields of row slot `k` only a sliding patch's friction reads (`friction::sliding_shares`),
/// apart so that the sweeps of patches that stick do not load them.
#[derive(Clone, Copy, Default)]
pub(crate) struct LaneSlide {
    pub(crate) slip: V3,
    pub(crate) twist_arm: F4,
    pub(crate) lever: F4,
}

/// Where a node's patches and rows lie: `patches[k - patch_base]` is the step's patch `k`,
/// `rows[j - row_base]` its row `j`.
pub(crate) struct NodeData<P, R> {
    pub(crate) patches: P,
    pub(crate) patch_base: usize,
    pub(crate) rows: R,
    pub(crate) row_base: usize,
}

/// Packs the group `header` into `group` and its row slots `rows`, from its node's patches
/// and rows.
pub(crate) fn pack_group(
    header: &Header,
    group: &mut Group,
    rows: &mut [LaneRow],
    slides: &mut [LaneSlide],
    node: &NodeData<&[Patch], &[Row]>,
) {
    *group = Group::default();
    for slot in rows.iter_mut() {
        *slot = LaneRow::default();
    }
    for slot in slides.iter_mut() {
        *slot = LaneSlide::default();
    }
    for (i, &k) in header.patch.iter().enumerate() {
        if k == EMPTY {
            group.sa[i] = EMPTY;
            group.sb[i] = EMPTY;
            continue;
        }
        let p = &node.patches[k as usize - node.patch_base];
        group.normal.set_lane(i, p.normal);
        group.ra.set_lane(i, p.ra);
        group.rb.set_lane(i, p.rb);
        group.drift.set_lane(i, p.drift);
        group.tangential.set_lane(i, p.tangential);
        group.k.set_lane(i, &p.k);
        group.k_tt_inv.set_lane(i, &p.k_tt_inv);
        group.inv_inertia_a.set_lane(i, &p.inv_inertia_a);
        group.inv_inertia_b.set_lane(i, &p.inv_inertia_b);
        group.friction.0[i] = p.friction;
        group.inv_mass_a.0[i] = p.inv_mass_a;
        group.inv_mass_b.0[i] = p.inv_mass_b;
        group.twist_inv.0[i] = p.twist_inv;
        group.twist.0[i] = p.twist;
        group.radius.0[i] = p.radius;
        group.sa[i] = p.sa;
        group.sb[i] = p.sb;
        debug_assert_eq!(p.sa & STILL == 0, p.inv_mass_a > 0.0);
        debug_assert_eq!(p.sb & STILL == 0, p.inv_mass_b > 0.0);
        group.slides.0[i] = (p.slides as u64).wrapping_neg();
        for (j, (slot, slide)) in rows
            .iter_mut()
            .zip(slides.iter_mut())
            .take(p.count)
            .enumerate()
        {
            let r = &node.rows[p.first + j - node.row_base];
            slot.normal.set_lane(i, r.normal);
            slot.ra.set_lane(i, r.ra);
            slot.rb.set_lane(i, r.rb);
            slot.ang_a.set_lane(i, r.ang_a);
            slot.ang_b.set_lane(i, r.ang_b);
            slot.spread.set_lane(i, r.spread);
            slide.slip.set_lane(i, r.slip);
            slot.drift.0[i] = r.drift;
            slot.bias.0[i] = r.bias;
            slot.k_nn.0[i] = r.k_nn;
            slot.inv_k_nn.0[i] = r.inv_k_nn;
            slot.impulse.0[i] = r.impulse;
            slide.twist_arm.0[i] = r.twist_arm;
            slide.lever.0[i] = r.lever;
        }
    }
}

/// Gives the impulses of `group` and its row slots `rows` back to its node's patches and rows.
pub(crate) fn unpack_group(
    header: &Header,
    group: &Group,
    rows: &[LaneRow],
    node: &mut NodeData<&mut [Patch], &mut [Row]>,
) {
    for (i, &k) in header.patch.iter().enumerate() {
        if k == EMPTY {
            continue;
        }
        let p = &mut node.patches[k as usize - node.patch_base];
        p.tangential = group.tangential.lane(i);
        p.twist = group.twist.0[i];
        for (j, slot) in rows.iter().take(p.count).enumerate() {
            node.rows[p.first + j - node.row_base].impulse = slot.impulse.0[i];
        }
    }
}
