// Stage 2, broad_phase: all pairs (a < b) of overlapping swept boxes, except fixed-fixed pairs,
// by sort and sweep in columns (the sweep-and-prune of Mirtich & Canny 1994, §4, done once per
// frame over swept boxes). CPU twin: src/stages/broad_phase.rs (same function names with `_one`).
//
// A plain one-axis sweep costs N^(5/3) in a 3-D scene (each box scans every box whose start lies
// within its length along the axis: ~1000 boxes each at 100 000 bodies). So the space is also cut
// into columns along a second axis; boxes are sorted by (column, start along the sweep axis) and
// each scans its own column and the two next to it. A box spanning more than two columns, or very
// long along the sweep axis (a floor), goes to a separate large list tested against all boxes.
//
// Passes, in dispatch order (the host encodes them; see src/gpu/mod.rs):
//   broad_phase_reduce     one workgroup per 256 boxes: partial sums of centres (relative to box
//                          0's centre, against f32 cancellation), centres^2 and extents
//   broad_phase_setup      one workgroup: totals; sweep axis = largest centre variance, column
//                          axis = second largest; column width = COLUMN_FACTOR x mean extent;
//                          large along the sweep axis = longer than
//                          max(LARGE_FACTOR x mean extent, standard deviation of the centres)
//   broad_phase_classify   one thread per sort slot: entry (column, key, body, 0), key = start
//                          along the sweep axis as an order-preserving u32; large boxes and padding
//                          slots get KEY_MAX keys and sort last
//   broad_phase_sort_*     bitonic sort of the entries: 512-entry blocks in workgroup memory, then
//                          for each larger k the global steps j >= 512 and a workgroup-memory merge
//   broad_phase_gather     boxes copied into sorted order, so the scans read memory in sequence
//   broad_phase_sweep      one thread per small box: scan forward in its own column while the next
//                          box starts before this one ends, then the same in each neighbouring
//                          column from the first entry after its own (binary search). A pair in
//                          one column is found from the earlier box; a pair in adjacent columns
//                          from the box with the smaller (key, body) -- exactly once either way.
//                          Boxes two columns apart cannot overlap: the column of a coordinate is a
//                          monotone function of it (subtract, multiply, floor, clamp), and a small
//                          box's end lies at most one column after its start.
//   broad_phase_large      one thread per sorted position: test against every large box (they
//                          sort last, in body order); a large-large pair once, from the later one
//   broad_phase_finish     one thread: indirect dispatch size for pair_bounds
// Which axes, columns and large boxes are chosen changes only the cost, never the set of pairs, so
// the CPU twin may sum in another order and still produce the same pairs.
// Output: bump counter + overflow flag (shared/bump.wgsl); pairs past pair_capacity are counted,
// not stored, and the host grows the buffer and re-runs. No pair is ever dropped silently.

#import body
#import bump
#import dispatch

// Keep in sync with BroadPhaseStats in src/stages/mod.rs.
struct BroadPhaseStats {
    centre_sum: vec3<f32>,
    axis: u32,
    centre_sq_sum: vec3<f32>,
    count: u32,
    extent_sum: vec3<f32>,
    large_threshold: f32,
    column_axis: u32,
    column_scale: f32,
    column_origin: f32,
    pad: u32,
}

// Per-dispatch sort step, bound at a dynamic offset. Keep in sync with SortParams in
// src/gpu/mod.rs.
struct SortParams {
    k: u32,
    j: u32,
    len: u32,
    pad: u32,
}

const LARGE_FACTOR: f32 = 8.0;
const COLUMN_FACTOR: f32 = 4.0;
const MIN_COLUMN_WIDTH: f32 = 1e-6;
const COLUMN_CLAMP: f32 = 65536.0;
const REDUCE_WG: u32 = 256u;
const SORT_WG: u32 = 256u;
const SORT_BLOCK: u32 = 512u;
const KEY_MAX: u32 = 0xffffffffu;

@group(0) @binding(0) var<uniform> params: FrameParams;
@group(0) @binding(1) var<uniform> sort: SortParams;
@group(0) @binding(2) var<storage, read> boxes: array<StageAabb>;
@group(0) @binding(3) var<storage, read_write> bump: Bump;
@group(0) @binding(4) var<storage, read_write> stats: array<BroadPhaseStats>;
@group(0) @binding(5) var<storage, read_write> sorted: array<vec4<u32>>;
@group(0) @binding(6) var<storage, read_write> sorted_boxes: array<StageAabb>;
@group(0) @binding(7) var<storage, read_write> pairs: array<vec2<u32>>;
@group(0) @binding(8) var<storage, read_write> pair_dispatch: array<u32>;

var<workgroup> red_sum: array<vec3<f32>, REDUCE_WG>;
var<workgroup> red_sq: array<vec3<f32>, REDUCE_WG>;
var<workgroup> red_ext: array<vec3<f32>, REDUCE_WG>;
var<workgroup> sort_shared: array<vec4<u32>, SORT_BLOCK>;

fn box_centre(b: StageAabb) -> vec3<f32> {
    return 0.5 * (b.min + b.max);
}

// ---- statistics -------------------------------------------------------------------------------

fn reduce_tree(lid: u32) {
    for (var s = REDUCE_WG / 2u; s > 0u; s >>= 1u) {
        if lid < s {
            red_sum[lid] += red_sum[lid + s];
            red_sq[lid] += red_sq[lid + s];
            red_ext[lid] += red_ext[lid + s];
        }
        workgroupBarrier();
    }
}

@compute @workgroup_size(REDUCE_WG)
fn broad_phase_reduce(
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let group = wid.x + wid.y * nwg.x;
    let ix = group * REDUCE_WG + lid.x;
    var c = vec3<f32>(0.0);
    var e = vec3<f32>(0.0);
    if ix < params.body_count {
        let b = boxes[ix];
        c = box_centre(b) - box_centre(boxes[0]);
        e = b.max - b.min;
    }
    red_sum[lid.x] = c;
    red_sq[lid.x] = c * c;
    red_ext[lid.x] = e;
    workgroupBarrier();
    reduce_tree(lid.x);
    let groups = (params.body_count + REDUCE_WG - 1u) / REDUCE_WG;
    if lid.x == 0u && group < groups {
        let count = min(params.body_count - group * REDUCE_WG, REDUCE_WG);
        stats[1u + group] = BroadPhaseStats(red_sum[0], 0u, red_sq[0], count, red_ext[0], 0.0, 0u, 0.0, 0.0, 0u);
    }
}

fn broad_phase_choose(sum: vec3<f32>, sq: vec3<f32>, ext: vec3<f32>, count: u32, origin: vec3<f32>) -> BroadPhaseStats {
    let n = max(f32(count), 1.0);
    let mean = sum / n;
    let variance = sq / n - mean * mean;
    var axis = 0u;
    if variance.y > variance[axis] {
        axis = 1u;
    }
    if variance.z > variance[axis] {
        axis = 2u;
    }
    let other = (axis + 2u) % 3u;
    var column_axis = (axis + 1u) % 3u;
    if variance[other] > variance[column_axis] {
        column_axis = other;
    }
    let threshold = max(LARGE_FACTOR * ext[axis] / n, sqrt(max(variance[axis], 0.0)));
    let width = max(COLUMN_FACTOR * ext[column_axis] / n, MIN_COLUMN_WIDTH);
    return BroadPhaseStats(sum, axis, sq, count, ext, threshold, column_axis, 1.0 / width, origin[column_axis], 0u);
}

@compute @workgroup_size(REDUCE_WG)
fn broad_phase_setup(@builtin(local_invocation_id) lid: vec3<u32>) {
    let groups = (params.body_count + REDUCE_WG - 1u) / REDUCE_WG;
    var s = vec3<f32>(0.0);
    var q = vec3<f32>(0.0);
    var e = vec3<f32>(0.0);
    for (var g = lid.x; g < groups; g += REDUCE_WG) {
        let p = stats[1u + g];
        s += p.centre_sum;
        q += p.centre_sq_sum;
        e += p.extent_sum;
    }
    red_sum[lid.x] = s;
    red_sq[lid.x] = q;
    red_ext[lid.x] = e;
    workgroupBarrier();
    reduce_tree(lid.x);
    if lid.x == 0u {
        stats[0] = broad_phase_choose(red_sum[0], red_sq[0], red_ext[0], params.body_count, box_centre(boxes[0]));
    }
}

// ---- classification and sort ------------------------------------------------------------------

// Keep in sync with float_key in src/stages/math.rs.
fn float_key(f: f32) -> u32 {
    let bits = bitcast<u32>(f);
    if (bits & 0x80000000u) != 0u {
        return ~bits;
    }
    return bits | 0x80000000u;
}

// Column of a coordinate along the column axis: monotone in x (correctly rounded subtract and
// multiply, floor, clamp), which is all the sweep's correctness needs.
fn column_of(x: f32, st: BroadPhaseStats) -> u32 {
    let r = floor((x - st.column_origin) * st.column_scale);
    return u32(clamp(r, -COLUMN_CLAMP, COLUMN_CLAMP) + COLUMN_CLAMP);
}

fn broad_phase_classify_one(ix: u32) -> vec4<u32> {
    let st = stats[0];
    let b = boxes[ix];
    let first = column_of(b.min[st.column_axis], st);
    let last = column_of(b.max[st.column_axis], st);
    if b.max[st.axis] - b.min[st.axis] > st.large_threshold || last > first + 1u {
        atomicAdd(&bump.large, 1u);
        return vec4<u32>(KEY_MAX, KEY_MAX, ix, 0u);
    }
    return vec4<u32>(first, float_key(b.min[st.axis]), ix, 0u);
}

@compute @workgroup_size(WG_SIZE)
fn broad_phase_classify(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let ix = thread_index(gid, nwg);
    if ix >= sort.len {
        return;
    }
    if ix >= params.body_count {
        sorted[ix] = vec4<u32>(KEY_MAX, KEY_MAX, KEY_MAX, 0u);
        return;
    }
    sorted[ix] = broad_phase_classify_one(ix);
}

// Lexicographic order of (column, key, body); the fourth component is always 0.
fn sort_less(a: vec4<u32>, b: vec4<u32>) -> bool {
    return a.x < b.x || (a.x == b.x && (a.y < b.y || (a.y == b.y && a.z < b.z)));
}

// One compare-exchange of the bitonic network in workgroup memory: thread t orders elements
// i = 2t - (t mod j) and i + j, ascending where bit k of the global index is clear.
fn sort_step_shared(t: u32, base: u32, k: u32, j: u32) {
    let i = 2u * t - (t & (j - 1u));
    let a = sort_shared[i];
    let b = sort_shared[i + j];
    let ascending = ((base + i) & k) == 0u;
    if select(sort_less(a, b), sort_less(b, a), ascending) {
        sort_shared[i] = b;
        sort_shared[i + j] = a;
    }
}

fn sort_load(lid: u32, base: u32) {
    sort_shared[lid] = sorted[base + lid];
    sort_shared[lid + SORT_WG] = sorted[base + lid + SORT_WG];
    workgroupBarrier();
}

fn sort_store(lid: u32, base: u32) {
    sorted[base + lid] = sort_shared[lid];
    sorted[base + lid + SORT_WG] = sort_shared[lid + SORT_WG];
}

// Fully sorts each 512-element block (alternating directions, as the bitonic network wants).
@compute @workgroup_size(SORT_WG)
fn broad_phase_sort_local(
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let base = (wid.x + wid.y * nwg.x) * SORT_BLOCK;
    sort_load(lid.x, base);
    for (var k = 2u; k <= SORT_BLOCK; k <<= 1u) {
        for (var j = k >> 1u; j > 0u; j >>= 1u) {
            sort_step_shared(lid.x, base, k, j);
            workgroupBarrier();
        }
    }
    sort_store(lid.x, base);
}

// One global step (k, j) with j >= SORT_BLOCK: one thread per compared pair.
@compute @workgroup_size(WG_SIZE)
fn broad_phase_sort_global(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = thread_index(gid, nwg);
    if t >= sort.len / 2u {
        return;
    }
    let j = sort.j;
    let i = 2u * t - (t & (j - 1u));
    let a = sorted[i];
    let b = sorted[i + j];
    let ascending = (i & sort.k) == 0u;
    if select(sort_less(a, b), sort_less(b, a), ascending) {
        sorted[i] = b;
        sorted[i + j] = a;
    }
}

// The steps j = 256 .. 1 of stage k, in workgroup memory.
@compute @workgroup_size(SORT_WG)
fn broad_phase_sort_merge(
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let base = (wid.x + wid.y * nwg.x) * SORT_BLOCK;
    sort_load(lid.x, base);
    for (var j = SORT_BLOCK / 2u; j > 0u; j >>= 1u) {
        sort_step_shared(lid.x, base, sort.k, j);
        workgroupBarrier();
    }
    sort_store(lid.x, base);
}

// ---- sweep and large boxes --------------------------------------------------------------------

fn broad_phase_emit(a: u32, b: u32) {
    let slot = atomicAdd(&bump.pairs, 1u);
    if slot < params.pair_capacity {
        pairs[slot] = vec2<u32>(min(a, b), max(a, b));
    } else {
        atomicStore(&bump.overflow, 1u);
    }
}

fn boxes_overlap(a: StageAabb, b: StageAabb) -> bool {
    return all(a.min <= b.max) && all(b.min <= a.max);
}

fn broad_phase_test(i: u32, bi: StageAabb, j: u32, bj: StageAabb) {
    if boxes_overlap(bi, bj) && !(bi.motion == MOTION_FIXED && bj.motion == MOTION_FIXED) {
        broad_phase_emit(i, j);
    }
}

fn small_count() -> u32 {
    return params.body_count - atomicLoad(&bump.large);
}

@compute @workgroup_size(WG_SIZE)
fn broad_phase_gather(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let p = thread_index(gid, nwg);
    if p < params.body_count {
        sorted_boxes[p] = boxes[sorted[p].z];
    }
}

// First position in [lo_in, hi_in) whose entry is not below `probe`.
fn lower_bound(probe: vec4<u32>, lo_in: u32, hi_in: u32) -> u32 {
    var lo = lo_in;
    var hi = hi_in;
    while lo < hi {
        let mid = (lo + hi) / 2u;
        if sort_less(sorted[mid], probe) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// Scans column `col` from position `start` while its boxes start before box i ends.
fn sweep_column(start: u32, small: u32, col: u32, i: u32, bi: StageAabb, axis: u32) {
    let reach = bi.max[axis];
    for (var q = start; q < small; q += 1u) {
        let e = sorted[q];
        if e.x != col {
            break;
        }
        let bj = sorted_boxes[q];
        if bj.min[axis] > reach {
            break;
        }
        broad_phase_test(i, bi, e.z, bj);
    }
}

fn broad_phase_sweep_one(p: u32, small: u32) {
    let axis = stats[0].axis;
    let e = sorted[p];
    let bi = sorted_boxes[p];
    sweep_column(p + 1u, small, e.x, e.z, bi, axis);
    if e.x > 0u {
        let before = vec4<u32>(e.x - 1u, e.y, e.z, 0u);
        sweep_column(lower_bound(before, 0u, p), small, e.x - 1u, e.z, bi, axis);
    }
    let after = vec4<u32>(e.x + 1u, e.y, e.z, 0u);
    sweep_column(lower_bound(after, p + 1u, small), small, e.x + 1u, e.z, bi, axis);
}

@compute @workgroup_size(WG_SIZE)
fn broad_phase_sweep(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let p = thread_index(gid, nwg);
    let small = small_count();
    if p < small {
        broad_phase_sweep_one(p, small);
    }
}

// Sorted position p against every large box (positions small..N). A large-large pair is tested
// once, from the later position.
fn broad_phase_large_one(p: u32, small: u32) {
    let j = sorted[p].z;
    let bj = sorted_boxes[p];
    let end = select(params.body_count, p, p >= small);
    for (var l = small; l < end; l += 1u) {
        broad_phase_test(sorted[l].z, sorted_boxes[l], j, bj);
    }
}

@compute @workgroup_size(WG_SIZE)
fn broad_phase_large(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let p = thread_index(gid, nwg);
    if p < params.body_count {
        broad_phase_large_one(p, small_count());
    }
}

// Indirect dispatch size for pair_bounds (one thread per stored pair, folded like thread_index).
@compute @workgroup_size(1)
fn broad_phase_finish() {
    let n = min(atomicLoad(&bump.pairs), params.pair_capacity);
    let groups = (n + WG_SIZE - 1u) / WG_SIZE;
    pair_dispatch[0] = min(groups, 65535u);
    pair_dispatch[1] = max((groups + 65534u) / 65535u, 1u);
    pair_dispatch[2] = 1u;
}
