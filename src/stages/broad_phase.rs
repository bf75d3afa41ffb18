//! Stage 2, `broad_phase`: all pairs (a < b) of overlapping swept boxes, except fixed–fixed pairs,
//! by sort and sweep in columns — the sweep-and-prune of Mirtich & Canny 1994, §4, done once per
//! frame over swept boxes. Shader: `shaders/broad_phase.wgsl`; each pass's thread is one call of
//! the same-named `_one` function here.
//!
//! A plain one-axis sweep costs N^(5/3) in a 3-D scene: each box scans every box that starts
//! within its length along the axis (about 1 000 boxes each at 100 000 bodies in the benchmark
//! scene). So space is also cut into *columns* along a second axis, and each box scans only its
//! own column and the two next to it:
//!
//! 1. statistics ([`broad_phase_reduce_one`] per 256 boxes, [`broad_phase_setup_one`]): sweep axis
//!    = largest variance of the box centres, column axis = second largest; column width =
//!    [`COLUMN_FACTOR`] × mean extent along the column axis;
//! 2. classification ([`broad_phase_classify_one`]): entry (column, key, body, 0) with key = box
//!    start along the sweep axis as an order-preserving u32 ([`float_key`]). A box is *large* —
//!    entry ([`KEY_MAX`], [`KEY_MAX`], body, 0), sorted last in body order — when it spans more
//!    than two columns, or is longer along the sweep axis than max([`LARGE_FACTOR`] × mean extent,
//!    standard deviation of the centres): a huge fixed floor would otherwise make one thread scan
//!    everything. Then a sort of the entries (bitonic on the GPU, `par_sort_unstable` here: the
//!    same total order either way) and a gather of the boxes into sorted order, so the scans read
//!    memory in sequence;
//! 3. sweep ([`broad_phase_sweep_one`], one per small box): scan forward in its own column while
//!    the next box starts before this one ends, then the same in each neighbouring column from the
//!    first entry after its own (binary search). A pair in one column is found from the earlier
//!    box, a pair in adjacent columns from the box with the smaller (key, body): exactly once.
//!    Boxes two columns apart cannot overlap, because the column of a coordinate is a monotone
//!    function of it ([`column_of`]: subtract, multiply, floor, clamp — no division, whose GPU
//!    rounding is looser) and a small box ends at most one column after it starts;
//! 4. large boxes ([`broad_phase_large_one`], one per sorted position): test against every large
//!    box (rejected for everything: a plain all-pairs pass, O(N²)).
//!
//! Axes, columns and the large set change only the cost, never the set of pairs, so this twin
//! (which sums in another order than the GPU's tree reduction) still finds exactly the GPU's
//! pairs. Boxes must be finite.

pub use super::math::float_key;
use super::{BroadPhaseStats, StageAabb, MOTION_FIXED};
use rayon::prelude::*;

/// A box is large when longer along the sweep axis than this many mean extents (or than the
/// standard deviation of the centres, whichever is larger). Keep in sync with `LARGE_FACTOR` in
/// `shaders/broad_phase.wgsl`.
pub const LARGE_FACTOR: f32 = 8.0;
/// Column width in mean extents along the column axis (`COLUMN_FACTOR` in the shader).
pub const COLUMN_FACTOR: f32 = 4.0;
/// Narrowest column (m), for scenes of points (`MIN_COLUMN_WIDTH`).
pub const MIN_COLUMN_WIDTH: f32 = 1e-6;
/// Column indices are clamped to ±this (`COLUMN_CLAMP`); clamping keeps the column monotone.
pub const COLUMN_CLAMP: f32 = 65536.0;
/// Boxes per statistics workgroup. Keep in sync with `REDUCE_WG` in `shaders/broad_phase.wgsl`.
pub const REDUCE_WG: usize = 256;
/// Key of large boxes (and of the GPU's padding slots); no column or finite float maps to it.
pub const KEY_MAX: u32 = u32::MAX;

/// A sort entry: (column, key, body, 0), ordered lexicographically.
pub type SortEntry = [u32; 4];

fn box_centre(b: &StageAabb) -> [f32; 3] {
    std::array::from_fn(|k| 0.5 * (b.min[k] + b.max[k]))
}

/// Partial sums over boxes `group·256 .. (group+1)·256` (centres relative to box 0's, against f32
/// cancellation far from the origin). The GPU's `broad_phase_reduce` sums the same in a tree.
pub fn broad_phase_reduce_one(group: usize, boxes: &[StageAabb]) -> BroadPhaseStats {
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

/// Totals of the partial sums, and the axes, column width and large-box threshold derived from
/// them (the GPU's `broad_phase_setup` + `broad_phase_choose`). `origin` is box 0's centre.
pub fn broad_phase_setup_one(
    partials: &[BroadPhaseStats],
    count: usize,
    origin: [f32; 3],
) -> BroadPhaseStats {
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
    let other = (axis + 2) % 3;
    let mut column_axis = (axis + 1) % 3;
    if variance[other] > variance[column_axis] {
        column_axis = other;
    }
    let threshold = (LARGE_FACTOR * ext[axis] / n).max(variance[axis].max(0.0).sqrt());
    let width = (COLUMN_FACTOR * ext[column_axis] / n).max(MIN_COLUMN_WIDTH);
    BroadPhaseStats {
        centre_sum: sum,
        axis: axis as u32,
        centre_sq_sum: sq,
        count: count as u32,
        extent_sum: ext,
        large_threshold: threshold,
        column_axis: column_axis as u32,
        column_scale: 1.0 / width,
        column_origin: origin[column_axis],
        pad: 0,
    }
}

/// Column of coordinate `x` along the column axis: monotone in `x`, which is all the sweep's
/// correctness needs.
pub fn column_of(x: f32, st: &BroadPhaseStats) -> u32 {
    let r = ((x - st.column_origin) * st.column_scale).floor();
    (r.clamp(-COLUMN_CLAMP, COLUMN_CLAMP) + COLUMN_CLAMP) as u32
}

/// Sort entry of box `ix`.
pub fn broad_phase_classify_one(ix: usize, st: &BroadPhaseStats, boxes: &[StageAabb]) -> SortEntry {
    let b = &boxes[ix];
    let (axis, column_axis) = (st.axis as usize, st.column_axis as usize);
    let first = column_of(b.min[column_axis], st);
    let last = column_of(b.max[column_axis], st);
    if b.max[axis] - b.min[axis] > st.large_threshold || last > first + 1 {
        return [KEY_MAX, KEY_MAX, ix as u32, 0];
    }
    [first, float_key(b.min[axis]), ix as u32, 0]
}

fn broad_phase_test(i: u32, bi: &StageAabb, j: u32, bj: &StageAabb, out: &mut Vec<[u32; 2]>) {
    if bi.overlaps(bj) && !(bi.motion == MOTION_FIXED && bj.motion == MOTION_FIXED) {
        out.push([i.min(j), i.max(j)]);
    }
}

/// The sorted small entries, boxes in the same order, and the sweep axis: what the sweep reads.
pub struct Sorted<'a> {
    /// Sort entries, small ones first.
    pub entries: &'a [SortEntry],
    /// `boxes[entries[p][2]]` at position `p`.
    pub boxes: &'a [StageAabb],
    /// Number of small entries.
    pub small: usize,
    /// Sweep axis.
    pub axis: usize,
}

/// Scans column `col` from position `start` while its boxes start before box `i` ends.
fn sweep_column(
    s: &Sorted,
    start: usize,
    col: u32,
    i: u32,
    bi: &StageAabb,
    out: &mut Vec<[u32; 2]>,
) {
    let reach = bi.max[s.axis];
    for q in start..s.small {
        let e = &s.entries[q];
        if e[0] != col {
            break;
        }
        let bj = &s.boxes[q];
        if bj.min[s.axis] > reach {
            break;
        }
        broad_phase_test(i, bi, e[2], bj, out);
    }
}

/// Pairs found from the small box at sorted position `p`, pushed to `out` (the GPU's
/// bump-allocated pair buffer).
pub fn broad_phase_sweep_one(p: usize, s: &Sorted, out: &mut Vec<[u32; 2]>) {
    let e = s.entries[p];
    let bi = &s.boxes[p];
    sweep_column(s, p + 1, e[0], e[2], bi, out);
    if e[0] > 0 {
        let before = [e[0] - 1, e[1], e[2], 0];
        let start = s.entries[..p].partition_point(|x| *x < before);
        sweep_column(s, start, e[0] - 1, e[2], bi, out);
    }
    let after = [e[0] + 1, e[1], e[2], 0];
    let start = p + 1 + s.entries[p + 1..s.small].partition_point(|x| *x < after);
    sweep_column(s, start, e[0] + 1, e[2], bi, out);
}

/// Pairs of the box at sorted position `p` with the large boxes (positions `small..`); a
/// large–large pair is tested once, from the later position.
pub fn broad_phase_large_one(p: usize, s: &Sorted, out: &mut Vec<[u32; 2]>) {
    let j = s.entries[p][2];
    let bj = &s.boxes[p];
    let end = if p >= s.small { p } else { s.entries.len() };
    for l in s.small..end {
        broad_phase_test(s.entries[l][2], &s.boxes[l], j, bj, out);
    }
}

/// Steps 1–2: statistics, sorted entries, boxes gathered in sorted order, and the number of small
/// entries. Exposed so tests can inspect the classification.
pub fn broad_phase_prepare(
    boxes: &[StageAabb],
) -> (BroadPhaseStats, Vec<SortEntry>, Vec<StageAabb>, usize) {
    let groups = boxes.len().div_ceil(REDUCE_WG);
    let partials: Vec<BroadPhaseStats> = (0..groups)
        .into_par_iter()
        .map(|g| broad_phase_reduce_one(g, boxes))
        .collect();
    let st = broad_phase_setup_one(&partials, boxes.len(), box_centre(&boxes[0]));
    let mut entries: Vec<SortEntry> = (0..boxes.len())
        .into_par_iter()
        .with_min_len(1024)
        .map(|ix| broad_phase_classify_one(ix, &st, boxes))
        .collect();
    entries.par_sort_unstable();
    let gathered: Vec<StageAabb> = entries
        .par_iter()
        .with_min_len(1024)
        .map(|e| boxes[e[2] as usize])
        .collect();
    let small = entries.partition_point(|e| e[0] != KEY_MAX);
    (st, entries, gathered, small)
}

/// All pairs (a < b) of overlapping boxes except fixed–fixed ones, sorted.
pub fn broad_phase(boxes: &[StageAabb]) -> Vec<[u32; 2]> {
    if boxes.len() < 2 {
        return Vec::new();
    }
    let (st, entries, gathered, small) = broad_phase_prepare(boxes);
    let s = Sorted {
        entries: &entries,
        boxes: &gathered,
        small,
        axis: st.axis as usize,
    };
    let mut pairs = (0..boxes.len())
        .into_par_iter()
        .with_min_len(256)
        .fold(Vec::new, |mut out, p| {
            if p < small {
                broad_phase_sweep_one(p, &s, &mut out);
            }
            broad_phase_large_one(p, &s, &mut out);
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
