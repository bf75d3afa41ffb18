// Stage 1, swept_aabb: per body, an axis-aligned box containing the body during the whole frame.
// CPU twin: src/stages/swept_aabb.rs (swept_aabb_one, swept_aabb_override_one).
//
// The centre follows p(s) = x + v s + g s^2 / 2 (s from the body's own time; kinematic: g = 0;
// fixed: v = g = 0), so per axis its range over [s0, s1] is spanned by the two ends and, if it
// falls inside, the parabola's apex s = -v/g. The body stays within bounding_radius of its centre
// whatever its rotation, so growing by the radius covers rotation. Then every side is padded by
// epsilon/2 (two boxes that stay apart mean bodies more than epsilon apart, the host's contact
// tolerance) plus ROUND_REL of the magnitudes involved, so the f32 box contains the exact one.
// Where the host gives the body's own box at `time` (has_own_box), the box is also cut to that box
// carried along the path and grown by rotation_radius * max_angular_speed * s_max (the furthest
// rotation can move a face since `time`), padded the same way: a cube's own box is 1.0-1.7 m
// wide where its sphere's is 1.73 m, so it meets about a third as many neighbours.
// A second entry point then applies the host's boxes (exact ones for fixed bodies).

#import body
#import dispatch

@group(0) @binding(0) var<uniform> params: FrameParams;
@group(0) @binding(1) var<storage, read> bodies: array<StageBody>;
@group(0) @binding(2) var<storage, read> overrides: array<BoxOverride>;
@group(0) @binding(3) var<storage, read_write> boxes: array<StageAabb>;

fn centre_at(x: f32, v: f32, g: f32, s: f32) -> f32 {
    return x + v * s + 0.5 * g * s * s;
}

fn swept_aabb_one(ix: u32) -> StageAabb {
    let b = bodies[ix];
    let s0 = params.frame_start - b.time;
    let s1 = s0 + params.frame_period;
    var v = b.velocity;
    var g = vec3<f32>(0.0);
    if b.motion == MOTION_FIXED {
        v = vec3<f32>(0.0);
    } else if b.motion == MOTION_DYNAMIC {
        g = params.gravity;
    }
    let s_max = max(abs(s0), abs(s1));
    var lo = vec3<f32>(0.0);
    var hi = vec3<f32>(0.0);
    for (var k = 0u; k < 3u; k += 1u) {
        let p0 = centre_at(b.position[k], v[k], g[k], s0);
        let p1 = centre_at(b.position[k], v[k], g[k], s1);
        var l = min(p0, p1);
        var h = max(p0, p1);
        if g[k] != 0.0 {
            let apex = -v[k] / g[k];
            if apex > s0 && apex < s1 {
                let pa = centre_at(b.position[k], v[k], g[k], apex);
                l = min(l, pa);
                h = max(h, pa);
            }
        }
        let magnitude = abs(b.position[k]) + abs(v[k]) * s_max + 0.5 * abs(g[k]) * s_max * s_max
            + b.bounding_radius;
        let pad = b.bounding_radius + 0.5 * params.epsilon + ROUND_REL * (magnitude + params.epsilon);
        lo[k] = l - pad;
        hi[k] = h + pad;
        if b.has_own_box != 0u {
            // The own box carried along the path, grown by the most rotation can move a face
            // since `time`, then cut to the sphere's box (both contain the body).
            let turn = b.rotation_radius * b.max_angular_speed * s_max;
            let own_pad = turn + 0.5 * params.epsilon + ROUND_REL * (magnitude + params.epsilon + turn);
            lo[k] = max(lo[k], l + b.own_min[k] - own_pad);
            hi[k] = min(hi[k], h + b.own_max[k] + own_pad);
        }
    }
    return StageAabb(lo, b.motion, hi, 0u);
}

@compute @workgroup_size(WG_SIZE)
fn swept_aabb(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let ix = thread_index(gid, nwg);
    if ix < params.body_count {
        boxes[ix] = swept_aabb_one(ix);
    }
}

// One thread per host box: replaces the corners, keeps the body's motion tag.
@compute @workgroup_size(WG_SIZE)
fn swept_aabb_override(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let ix = thread_index(gid, nwg);
    if ix < params.override_count {
        let o = overrides[ix];
        if o.body < params.body_count {
            boxes[o.body] = StageAabb(o.aabb.min, boxes[o.body].motion, o.aabb.max, 0u);
        }
    }
}
