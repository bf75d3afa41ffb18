//! Stage 3, `broad_phase`: all pairs (a < b) of overlapping swept boxes, except fixed–fixed pairs,
//! by sort and sweep — the sweep-and-prune of Mirtich & Canny 1994, §4, done once per frame over
//! swept boxes. Shader: `shaders/broad_phase.wgsl`; each pass's thread is one call of the
//! same-named `_one` function here.
//!
//! 1. statistics ([`broad_phase_reduce_one`] per 256 boxes, [`broad_phase_setup_one`]): sweep
//!    axis = largest variance of the box centres; a box is *large* when its extent along the axis
//!    exceeds max([`LARGE_FACTOR`] × mean extent, standard deviation of the centres);
//! 2. classification ([`broad_phase_classify_one`]): sort key = box min along the axis as an
//!    order-preserving u32 ([`float_key`]), [`KEY_MAX`] for large boxes, so they sort last in body
//!    order; then a sort of (key, body) — bitonic on the GPU, `par_sort_unstable` here, the same
//!    total order either way;
//! 3. sweep ([`broad_phase_sweep_one`], one per small box in sorted order): scan forward while the
//!    next box starts before this one ends. An overlapping pair is always found from the earlier
//!    of its two boxes, since every box sorted between them starts no later than the second;
//! 4. large boxes ([`broad_phase_large_one`], one per sorted position): test against every large
//!    box. A huge fixed floor overlaps everything along the sweep axis, and would otherwise make
//!    one sweep thread scan all N boxes (rejected: a plain all-pairs pass, O(N²)).
//!
//! The axis and the large set change only the cost, never the set of pairs, so this twin (which
//! sums in another order than the GPU's tree reduction) still finds exactly the GPU's pairs.
//! Boxes must be finite.

use super::math::float_key;
use super::{Aabb, BroadPhaseStats, MOTION_FIXED};
use rayon::prelude::*;

/// A box is large when longer along the sweep axis than this many mean extents (or than the
/// standard deviation of the centres, whichever is larger). Keep in sync with `LARGE_FACTOR` in
/// `shaders/broad_phase.wgsl`.
pub const LARGE_FACTOR: f32 = 8.0;
/// Boxes per statistics workgroup. Keep in sync with `REDUCE_WG` in `shaders/broad_phase.wgsl`.
pub const REDUCE_WG: usize = 256;
/// Sort key of large boxes (and of the GPU's padding slots); a finite float never maps to it.
pub const KEY_MAX: u32 = u32::MAX;

fn box_centre(b: &Aabb) -> [f32; 3] {
    std::array::from_fn(|k| 0.5 * (b.min[k] + b.max[k]))
}

/// Partial sums over boxes `group·256 .. (group+1)·256` (centres relative to box 0's, against f32
/// cancellation far from the origin). The GPU's `broad_phase_reduce` sums the same in a tree.
pub fn broad_phase_reduce_one(group: usize, boxes: &[Aabb]) -> BroadPhaseStats {
    let origin = box_centre(&boxes[0]);
    let mut st = BroadPhaseStats::default();
    let end = boxes.len().min((group + 1) * REDUCE_WG);
    for b in &boxes[group * REDUCE_WG..end] {
        let c = box_centre(b);
        for k in 0..3 {
            let ck = c[k] - origin[k];
            st.centre_sum[k] += ck;
            st.centre_sq_sum[k] += ck * ck;
            st.extent_sum[k] += b.max[k] - b.min[k];
        }
    }
    st.count = (end - group * REDUCE_WG) as u32;
    st
}

/// Totals of the partial sums, the sweep axis and the large-box threshold (the GPU's
/// `broad_phase_setup` + `broad_phase_choose`).
pub fn broad_phase_setup_one(partials: &[BroadPhaseStats], count: usize) -> BroadPhaseStats {
    let mut sum = [0.0f32; 3];
    let mut sq = [0.0f32; 3];
    let mut ext = [0.0f32; 3];
    for p in partials {
        for k in 0..3 {
            sum[k] += p.centre_sum[k];
            sq[k] += p.centre_sq_sum[k];
            ext[k] += p.extent_sum[k];
        }
    }
    let n = (count as f32).max(1.0);
    let variance: [f32; 3] = std::array::from_fn(|k| sq[k] / n - (sum[k] / n) * (sum[k] / n));
    let mut axis = 0;
    if variance[1] > variance[axis] {
        axis = 1;
    }
    if variance[2] > variance[axis] {
        axis = 2;
    }
    let threshold = (LARGE_FACTOR * ext[axis] / n).max(variance[axis].max(0.0).sqrt());
    BroadPhaseStats {
        centre_sum: sum,
        axis: axis as u32,
        centre_sq_sum: sq,
        count: count as u32,
        extent_sum: ext,
        large_threshold: threshold,
    }
}

/// Whether box `b` goes to the large list.
pub fn broad_phase_is_large(b: &Aabb, st: &BroadPhaseStats) -> bool {
    let axis = st.axis as usize;
    b.max[axis] - b.min[axis] > st.large_threshold
}

/// Sort entry (key, body) of box `ix`.
pub fn broad_phase_classify_one(ix: usize, st: &BroadPhaseStats, boxes: &[Aabb]) -> [u32; 2] {
    let b = &boxes[ix];
    if broad_phase_is_large(b, st) {
        return [KEY_MAX, ix as u32];
    }
    [float_key(b.min[st.axis as usize]), ix as u32]
}

fn broad_phase_test(i: u32, bi: &Aabb, j: u32, bj: &Aabb, out: &mut Vec<[u32; 2]>) {
    if bi.overlaps(bj) && !(bi.motion == MOTION_FIXED && bj.motion == MOTION_FIXED) {
        out.push([i.min(j), i.max(j)]);
    }
}

/// Pairs found from small box at sorted position `p` (of `small`), pushed to `out` (the GPU's
/// bump-allocated pair buffer).
pub fn broad_phase_sweep_one(
    p: usize,
    small: usize,
    st: &BroadPhaseStats,
    boxes: &[Aabb],
    sorted: &[[u32; 2]],
    out: &mut Vec<[u32; 2]>,
) {
    let axis = st.axis as usize;
    let i = sorted[p][1];
    let bi = &boxes[i as usize];
    let reach = bi.max[axis];
    for entry in &sorted[p + 1..small] {
        let j = entry[1];
        let bj = &boxes[j as usize];
        if bj.min[axis] > reach {
            break;
        }
        broad_phase_test(i, bi, j, bj, out);
    }
}

/// Pairs of the box at sorted position `p` with the large boxes (positions `small..`); a
/// large–large pair is tested once, from the later position.
pub fn broad_phase_large_one(
    p: usize,
    small: usize,
    boxes: &[Aabb],
    sorted: &[[u32; 2]],
    out: &mut Vec<[u32; 2]>,
) {
    let j = sorted[p][1];
    let bj = &boxes[j as usize];
    let end = if p >= small { p } else { sorted.len() };
    for entry in &sorted[small..end] {
        let i = entry[1];
        broad_phase_test(i, &boxes[i as usize], j, bj, out);
    }
}

/// The statistics, sorted entries and number of small boxes for `boxes` (steps 1–2), exposed so
/// tests can compare them with the GPU's.
pub fn broad_phase_prepare(boxes: &[Aabb]) -> (BroadPhaseStats, Vec<[u32; 2]>, usize) {
    let groups = boxes.len().div_ceil(REDUCE_WG);
    let partials: Vec<BroadPhaseStats> = (0..groups)
        .into_par_iter()
        .map(|g| broad_phase_reduce_one(g, boxes))
        .collect();
    let st = broad_phase_setup_one(&partials, boxes.len());
    let mut sorted: Vec<[u32; 2]> = (0..boxes.len())
        .into_par_iter()
        .with_min_len(1024)
        .map(|ix| broad_phase_classify_one(ix, &st, boxes))
        .collect();
    sorted.par_sort_unstable();
    let small = sorted.partition_point(|e| e[0] != KEY_MAX);
    (st, sorted, small)
}

/// All pairs (a < b) of overlapping boxes except fixed–fixed ones, sorted.
pub fn broad_phase(boxes: &[Aabb]) -> Vec<[u32; 2]> {
    if boxes.len() < 2 {
        return Vec::new();
    }
    let (st, sorted, small) = broad_phase_prepare(boxes);
    let mut pairs = (0..boxes.len())
        .into_par_iter()
        .with_min_len(64)
        .fold(Vec::new, |mut out, p| {
            if p < small {
                broad_phase_sweep_one(p, small, &st, boxes, &sorted, &mut out);
            }
            broad_phase_large_one(p, small, boxes, &sorted, &mut out);
            out
        })
        .reduce(Vec::new, |mut a, mut b| {
            if a.len() < b.len() {
                std::mem::swap(&mut a, &mut b);
            }
            a.extend(b);
            a
        });
    pairs.par_sort_unstable();
    pairs
}
