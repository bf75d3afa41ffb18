// Stage 3, broad_phase: all pairs (a < b) of overlapping swept boxes, except fixed-fixed pairs,
// by sort and sweep (the sweep-and-prune of Mirtich & Canny 1994, §4, done once per frame over
// swept boxes). CPU twin: src/stages/broad_phase.rs (same function names with `_one`).
//
// Passes, in dispatch order (the host encodes them; see src/gpu/mod.rs):
//   broad_phase_reduce     one workgroup per 256 boxes: partial sums of centres (relative to box
//                          0's centre, against f32 cancellation), centres^2 and extents
//   broad_phase_setup      one workgroup: totals; sweep axis = largest centre variance; a box is
//                          "large" when its extent along the axis exceeds
//                          max(LARGE_FACTOR x mean extent, standard deviation of the centres)
//   broad_phase_classify   one thread per sort slot: key = box min along the axis (order-
//                          preserving u32), or KEY_MAX for large boxes and padding slots
//   broad_phase_sort_*     bitonic sort of (key, body) pairs: 512-element blocks in workgroup
//                          memory, then for each larger k the global steps j >= 512 and a
//                          workgroup-memory merge of the steps j < 512
//   broad_phase_sweep      one thread per small box (sorted position p): scan forward while
//                          min(q) <= max(p); a pair whose boxes overlap is always found from the
//                          earlier of the two, because everything between them starts no later
//   broad_phase_large      one thread per sorted position: test against every large box (they
//                          sort last, in body order). A huge fixed floor would otherwise make
//                          one sweep thread scan all N boxes.
//   broad_phase_finish     one thread: indirect dispatch size for pair_bounds
// Which boxes are large and which axis is swept change only the cost, never the set of pairs, so
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
const REDUCE_WG: u32 = 256u;
const SORT_WG: u32 = 256u;
const SORT_BLOCK: u32 = 512u;
const KEY_MAX: u32 = 0xffffffffu;

@group(0) @binding(0) var<uniform> params: FrameParams;
@group(0) @binding(1) var<uniform> sort: SortParams;
@group(0) @binding(2) var<storage, read> boxes: array<Aabb>;
@group(0) @binding(3) var<storage, read_write> bump: Bump;
@group(0) @binding(4) var<storage, read_write> stats: array<BroadPhaseStats>;
@group(0) @binding(5) var<storage, read_write> sorted: array<vec2<u32>>;
@group(0) @binding(6) var<storage, read_write> pairs: array<vec2<u32>>;
@group(0) @binding(7) var<storage, read_write> pair_dispatch: array<u32>;

var<workgroup> red_sum: array<vec3<f32>, REDUCE_WG>;
var<workgroup> red_sq: array<vec3<f32>, REDUCE_WG>;
var<workgroup> red_ext: array<vec3<f32>, REDUCE_WG>;
var<workgroup> sort_shared: array<vec2<u32>, SORT_BLOCK>;

fn box_centre(b: Aabb) -> vec3<f32> {
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
        stats[1u + group] = BroadPhaseStats(red_sum[0], 0u, red_sq[0], count, red_ext[0], 0.0);
    }
}

fn broad_phase_choose(sum: vec3<f32>, sq: vec3<f32>, ext: vec3<f32>, count: u32) -> BroadPhaseStats {
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
    let threshold = max(LARGE_FACTOR * ext[axis] / n, sqrt(max(variance[axis], 0.0)));
    return BroadPhaseStats(sum, axis, sq, count, ext, threshold);
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
        stats[0] = broad_phase_choose(red_sum[0], red_sq[0], red_ext[0], params.body_count);
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

fn broad_phase_is_large(b: Aabb, st: BroadPhaseStats) -> bool {
    return b.max[st.axis] - b.min[st.axis] > st.large_threshold;
}

fn broad_phase_classify_one(ix: u32) -> vec2<u32> {
    let st = stats[0];
    let b = boxes[ix];
    if broad_phase_is_large(b, st) {
        atomicAdd(&bump.large, 1u);
        return vec2<u32>(KEY_MAX, ix);
    }
    return vec2<u32>(float_key(b.min[st.axis]), ix);
}

@compute @workgroup_size(WG_SIZE)
fn broad_phase_classify(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let ix = thread_index(gid, nwg);
    if ix >= sort.len {
        return;
    }
    if ix >= params.body_count {
        sorted[ix] = vec2<u32>(KEY_MAX, KEY_MAX);
        return;
    }
    sorted[ix] = broad_phase_classify_one(ix);
}

fn sort_less(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.x < b.x || (a.x == b.x && a.y < b.y);
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

fn boxes_overlap(a: Aabb, b: Aabb) -> bool {
    return all(a.min <= b.max) && all(b.min <= a.max);
}

fn broad_phase_test(i: u32, bi: Aabb, j: u32, bj: Aabb) {
    if boxes_overlap(bi, bj) && !(bi.motion == MOTION_FIXED && bj.motion == MOTION_FIXED) {
        broad_phase_emit(i, j);
    }
}

fn small_count() -> u32 {
    return params.body_count - atomicLoad(&bump.large);
}

fn broad_phase_sweep_one(p: u32, small: u32) {
    let axis = stats[0].axis;
    let i = sorted[p].y;
    let bi = boxes[i];
    let reach = bi.max[axis];
    for (var q = p + 1u; q < small; q += 1u) {
        let j = sorted[q].y;
        let bj = boxes[j];
        if bj.min[axis] > reach {
            break;
        }
        broad_phase_test(i, bi, j, bj);
    }
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
    let j = sorted[p].y;
    let bj = boxes[j];
    let end = select(params.body_count, p, p >= small);
    for (var l = small; l < end; l += 1u) {
        let i = sorted[l].y;
        broad_phase_test(i, boxes[i], j, bj);
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
