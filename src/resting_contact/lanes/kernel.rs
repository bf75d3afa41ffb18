//! One lanes sweep over a node's groups ([`sweep_groups`]): each group's four patches at once,
//! their normal rows (eq. 8 with the clamp of eq. 3) and then their friction rows (eq. 5–6 as a
//! patch, `friction`), lane by lane the arithmetic of the scalar sweep (`sweep::sweep_patch`),
//! which stays the reference. Branches of the scalar sweep become masks: a lane whose row or
//! friction does not change keeps its values, as the scalar sweep's skip does.
//!
//! Written once over [`Lane`]; run in AVX registers (`avx2::R4`) on x86-64 hosts that have
//! AVX2, chosen at run time so that the default build runs everywhere, and in arrays the
//! compiler vectorises as it can ([`F4`]) elsewhere. Every version computes the same bits.

use super::super::patch::RowOrder;
use super::super::slots::{read, Slice, Slots, Vel};
use super::batch::EMPTY;
use super::f64x4::{select3, Lane, F4, LANES, M3, V3};
use super::store::{Group, LaneRow, LaneSlide};
use super::NodeLanes;

/// One lanes sweep over a node's groups, updating the velocities `slots` (the node's
/// moving ones) and reading `still`'s. Returns the largest change of a predicted end position,
/// as `sweep::sweep_patches`.
pub(crate) fn sweep_groups(
    node: &mut NodeLanes<'_>,
    slots: &mut Slice<'_>,
    still: &[Vel],
    h: f64,
    order: RowOrder,
) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the host has AVX2 (and so AVX), checked just above.
        return unsafe { sweep_groups_avx2(node, slots, still, h, order) };
    }
    sweep_groups_in::<F4>(node, slots, still, h, order)
}

/// [`sweep_groups`] in AVX registers.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx")]
unsafe fn sweep_groups_avx2(
    node: &mut NodeLanes<'_>,
    slots: &mut Slice<'_>,
    still: &[Vel],
    h: f64,
    order: RowOrder,
) -> f64 {
    sweep_groups_in::<super::avx2::R4>(node, slots, still, h, order)
}

/// The velocities of a group's a or b bodies.
#[derive(Clone, Copy)]
struct LaneVel<L> {
    v: V3<L>,
    w: V3<L>,
}

/// [`sweep_groups`] in lanes of type `L`.
#[inline(always)]
fn sweep_groups_in<L: Lane>(
    node: &mut NodeLanes<'_>,
    slots: &mut Slice<'_>,
    still: &[Vel],
    h: f64,
    order: RowOrder,
) -> f64 {
    let NodeLanes {
        headers,
        groups,
        rows,
        slides,
    } = node;
    let Some(first) = headers.first() else {
        return 0.0;
    };
    let base = first.rows as usize;
    let mut residual_sq = L::zero();
    // The velocities pass through memory in lanes: gathered from the slots lane by lane, then
    // loaded whole.
    let (mut a, mut b) = ((V3::ZERO, V3::ZERO), (V3::ZERO, V3::ZERO));
    for (header, group) in headers.iter().zip(groups.iter_mut()) {
        let start = header.rows as usize - base;
        let range = start..start + header.count as usize;
        let (group_rows, group_slides) = (&mut rows[range.clone()], &slides[range]);
        for i in 0..LANES {
            if header.patch[i] != EMPTY {
                let (va, vb) = (
                    read(group.sa[i], &*slots, still),
                    read(group.sb[i], &*slots, still),
                );
                a.0.set_lane(i, va.v);
                a.1.set_lane(i, va.w);
                b.0.set_lane(i, vb.v);
                b.1.set_lane(i, vb.w);
            }
        }
        let mut va = LaneVel {
            v: V3::<L>::load(&a.0),
            w: V3::<L>::load(&a.1),
        };
        let mut vb = LaneVel {
            v: V3::<L>::load(&b.0),
            w: V3::<L>::load(&b.1),
        };
        let r = sweep_group(group, group_rows, group_slides, &mut va, &mut vb, h, order);
        residual_sq = residual_sq.max(r);
        va.v.store(&mut a.0);
        va.w.store(&mut a.1);
        vb.v.store(&mut b.0);
        vb.w.store(&mut b.1);
        for i in 0..LANES {
            if group.inv_mass_a.0[i] > 0.0 {
                let v = Vel {
                    v: a.0.lane(i),
                    w: a.1.lane(i),
                };
                slots.set(group.sa[i], v);
            }
            if group.inv_mass_b.0[i] > 0.0 {
                let v = Vel {
                    v: b.0.lane(i),
                    w: b.1.lane(i),
                };
                slots.set(group.sb[i], v);
            }
        }
    }
    residual_sq.reduce_max().sqrt()
}

/// The normal impulses of a group's rows as its friction sees them (`patch::Load`, lane by
/// lane).
#[derive(Clone, Copy)]
struct LaneLoad<L> {
    total: L,
    first: V3<L>,
    second: L,
}

/// One group of a sweep: its normal rows in `order`, then its friction rows. Returns the
/// square of the largest change of a predicted end position, lane by lane.
#[inline(always)]
fn sweep_group<L: Lane>(
    group: &mut Group,
    rows: &mut [LaneRow],
    slides: &[LaneSlide],
    va: &mut LaneVel<L>,
    vb: &mut LaneVel<L>,
    h: f64,
    order: RowOrder,
) -> L {
    let zero = L::zero();
    let mut residual_sq = zero;
    let (inv_mass_a, inv_mass_b) = (L::load(&group.inv_mass_a), L::load(&group.inv_mass_b));
    let (a_moves, b_moves) = (inv_mass_a.gt(zero), inv_mass_b.gt(zero));
    let h4 = L::splat(h);
    let mut load = LaneLoad {
        total: zero,
        first: V3::zero(),
        second: zero,
    };
    let count = rows.len();
    for k in 0..count {
        let row = &mut rows[order.index(k, count)];
        let n = V3::<L>::load(&row.normal);
        let (ra, rb) = (V3::<L>::load(&row.ra), V3::<L>::load(&row.rb));
        let impulse = L::load(&row.impulse);
        let un = n.dot(va.v + va.w.cross(ra) - vb.v - vb.w.cross(rb)) + L::load(&row.drift);
        let pn = (impulse + (L::load(&row.bias) - un) * L::load(&row.inv_k_nn)).max(zero);
        let dp = pn - impulse;
        load.total = load.total + pn;
        let spread = V3::<L>::load(&row.spread);
        load.first = load.first + spread.scale(pn);
        load.second = load.second + pn * spread.length_squared();
        let changed = dp.ne(zero);
        let r = L::load(&row.k_nn) * dp * h4;
        residual_sq = L::select(changed, residual_sq.max(r * r), residual_sq);
        let (on_a, on_b) = (L::and(changed, a_moves), L::and(changed, b_moves));
        // `Row::lin_a` and `lin_b`, `n/m_a` and `n/m_b`, by the product that made them.
        va.v = select3(on_a, va.v + n.scale(inv_mass_a).scale(dp), va.v);
        va.w = select3(on_a, va.w + V3::load(&row.ang_a).scale(dp), va.w);
        vb.v = select3(on_b, vb.v + -(n.scale(inv_mass_b).scale(dp)), vb.v);
        vb.w = select3(on_b, vb.w + -(V3::load(&row.ang_b).scale(dp)), vb.w);
        L::select(changed, pn, impulse).store(&mut row.impulse);
    }
    let rough = L::load(&group.friction).gt(zero);
    if L::any(rough) {
        let r = friction(group, rough, (rows, slides), va, vb, load, h4);
        residual_sq = residual_sq.max(r);
    }
    residual_sq
}

/// A group's friction rows after its normal rows made `load`, as `friction::friction_rows`
/// lane by lane (only in lanes with friction).
#[inline(always)]
fn friction<L: Lane>(
    group: &mut Group,
    rough: L::Mask,
    (rows, slides): (&[LaneRow], &[LaneSlide]),
    va: &mut LaneVel<L>,
    vb: &mut LaneVel<L>,
    load: LaneLoad<L>,
    h: L,
) -> L {
    let zero = L::zero();
    let mut residual_sq = zero;
    let n = V3::<L>::load(&group.normal);
    let (ra, rb) = (V3::<L>::load(&group.ra), V3::<L>::load(&group.rb));
    let tangential = V3::<L>::load(&group.tangential);
    let friction = L::load(&group.friction);
    let total = load.total;
    // The centre of pressure (`Load::centre`, `Patch::pressure_point`).
    let centre = select3(total.gt(zero), load.first.over(total), V3::zero());
    let at = (ra + centre, rb + centre);
    let u = va.v + va.w.cross(at.0) - vb.v - vb.w.cross(at.1) + V3::load(&group.drift);
    let ut = u - n.scale(u.dot(n));
    let mut pt = tangential - M3::<L>::load(&group.k_tt_inv).mul_vec(ut);
    pt = pt - n.scale(pt.dot(n));
    let (slide_share, twist_share) = sliding_shares::<L>(group, rows, slides);
    let limit = friction * slide_share * total;
    let len_sq = pt.length_squared();
    pt = select3(
        len_sq.gt(limit * limit),
        pt.scale(limit / len_sq.sqrt()),
        pt,
    );
    let dpt = pt - tangential;
    let slid = L::and(dpt.nonzero(), rough);
    let r = M3::<L>::load(&group.k).mul_vec(dpt).length_squared() * (h * h);
    residual_sq = L::select(slid, residual_sq.max(r), residual_sq);
    apply_at(group, va, vb, slid, at, dpt, zero);
    select3(slid, pt, tangential).store(&mut group.tangential);
    let twist_inv = L::load(&group.twist_inv);
    let twists = L::and(twist_inv.gt(zero), rough);
    if L::any(twists) {
        let twist = L::load(&group.twist);
        let spin = n.dot(va.w - vb.w);
        let tw = twist - twist_inv * spin;
        let mu = friction * twist_share;
        let moment_sq = (load.total * load.second - load.first.length_squared()).max(zero);
        let limit_sq = mu * mu * moment_sq;
        let tw = L::select((tw * tw).gt(limit_sq), limit_sq.sqrt().copysign(tw), tw);
        let dtw = tw - twist;
        let turned = L::and(dtw.ne(zero), twists);
        let r = dtw / twist_inv * L::load(&group.radius) * h;
        residual_sq = L::select(turned, residual_sq.max(r * r), residual_sq);
        apply_at(group, va, vb, turned, (ra, rb), V3::zero(), dtw);
        L::select(turned, tw, twist).store(&mut group.twist);
    }
    residual_sq
}

/// `friction::sliding_shares` lane by lane: whole (1) in lanes that do not slide.
#[inline(always)]
fn sliding_shares<L: Lane>(group: &Group, rows: &[LaneRow], slide: &[LaneSlide]) -> (L, L) {
    let (zero, one) = (L::zero(), L::splat(1.0));
    let slides = L::load_mask(&group.slides);
    if !L::any(slides) {
        return (one, one);
    }
    let (mut total, mut force, mut torque, mut lever) = (zero, V3::<L>::zero(), zero, zero);
    for (r, s) in rows.iter().zip(slide) {
        let p = L::load(&r.impulse).max(zero);
        total = total + p;
        force = force + V3::<L>::load(&s.slip).scale(p);
        torque = torque + L::load(&s.twist_arm) * p;
        lever = lever + L::load(&s.lever) * p;
    }
    let twist = L::select(lever.gt(zero), torque.abs() / lever, one);
    let slide = (force.length_squared().sqrt() / total).min(one);
    let shared = L::and(slides, total.not_le(zero));
    (
        L::select(shared, slide, one),
        L::select(shared, twist.min(one), one),
    )
}

/// `Patch::apply_at` lane by lane, in lanes `on` (and of them, to the bodies that move).
#[inline(always)]
fn apply_at<L: Lane>(
    group: &Group,
    va: &mut LaneVel<L>,
    vb: &mut LaneVel<L>,
    on: L::Mask,
    (ra, rb): (V3<L>, V3<L>),
    p: V3<L>,
    twist: L,
) {
    let l = V3::<L>::load(&group.normal).scale(twist);
    let (inv_mass_a, inv_mass_b) = (L::load(&group.inv_mass_a), L::load(&group.inv_mass_b));
    let on_a = L::and(on, inv_mass_a.gt(L::zero()));
    let on_b = L::and(on, inv_mass_b.gt(L::zero()));
    va.v = select3(on_a, va.v + p.scale(inv_mass_a), va.v);
    let dw = M3::<L>::load(&group.inv_inertia_a).mul_vec(ra.cross(p) + l);
    va.w = select3(on_a, va.w + dw, va.w);
    vb.v = select3(on_b, vb.v + -(p.scale(inv_mass_b)), vb.v);
    let dw = M3::<L>::load(&group.inv_inertia_b).mul_vec(rb.cross(p) + l);
    vb.w = select3(on_b, vb.w + -dw, vb.w);
}
