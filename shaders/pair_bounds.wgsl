// Stage 3, pair_bounds: per candidate pair, conservative lower bounds on the distance at the frame
// start and on the time of impact within the frame. CPU twin: src/stages/pair_bounds.rs.
//
// Bounding spheres are rotation invariant, so only the centres matter. With dx = x_a - x_b and
// n = dx / |dx|, for any unit n and every t: |dx(t)| >= n . dx(t) (Cauchy-Schwarz), so
//   s(t) = d0 + n.(v_a - v_b) t + n.(g_a - g_b) t^2 / 2,   d0 = |dx| - r_a - r_b
// is a lower bound on the distance between the bodies while both fly ballistically
// (g = gravity for dynamic bodies, 0 otherwise) -- the separating-axis form of Mirtich & Canny's
// conservative time-of-impact bounds (1994, §3). The TOI bound is the first t >= 0 with
// s(t) <= epsilon/2 (0 if already, TOI_NONE if not within the frame).
//
// Conservative in f32: every coefficient is moved towards "closer, sooner" by ROUND_REL of the
// magnitudes it was computed from (C down, B down, A down); the discriminant is padded up; the
// root is taken as 2C / (sqrt(disc) - B) (no cancellation in the approaching case, and a larger
// disc can only give an earlier root), then shrunk by ROUND_REL. A lower curve crosses first, so
// the result never exceeds the exact f64 bound.

#import body
#import bump
#import dispatch

@group(0) @binding(0) var<uniform> params: FrameParams;
@group(0) @binding(1) var<storage, read> bodies: array<StageBody>;
@group(0) @binding(2) var<storage, read> pairs: array<vec2<u32>>;
@group(0) @binding(3) var<storage, read> bump: BumpView;
@group(0) @binding(4) var<storage, read_write> bounds: array<PairBound>;

// 2^-18: padding of the discriminant, whose square root amplifies relative error.
const ROUND_DISC: f32 = 3.814697265625e-6;

// A body's centre-of-mass motion from the frame start, and magnitudes for the rounding pads.
struct Flight {
    x: vec3<f32>,
    v: vec3<f32>,
    g: vec3<f32>,
    x_mag: f32,
    v_mag: f32,
    g_mag: f32,
}

fn l1(v: vec3<f32>) -> f32 {
    return abs(v.x) + abs(v.y) + abs(v.z);
}

// Moves the centre from the body's own time to the frame start (a no-op for the world's bodies,
// which it passes at the frame start).
fn flight(b: StageBody) -> Flight {
    let dt = params.frame_start - b.time;
    var v = b.velocity;
    var g = vec3<f32>(0.0);
    if b.motion == MOTION_FIXED {
        v = vec3<f32>(0.0);
    } else if b.motion == MOTION_DYNAMIC {
        g = params.gravity;
    }
    let x = b.position + v * dt + 0.5 * g * dt * dt;
    let vt = v + g * dt;
    let x_mag = l1(b.position) + l1(v) * abs(dt) + 0.5 * l1(g) * dt * dt;
    let v_mag = l1(vt) + l1(v) + l1(g) * abs(dt);
    return Flight(x, vt, g, x_mag, v_mag, l1(g));
}

fn pair_bound(a: u32, b: u32) -> PairBound {
    let ba = bodies[a];
    let bb = bodies[b];
    let fa = flight(ba);
    let fb = flight(bb);
    let radii = ba.bounding_radius + bb.bounding_radius;
    let dx = fa.x - fb.x;
    let len = length(dx);
    var n = vec3<f32>(1.0, 0.0, 0.0);
    if len > 0.0 {
        n = dx / len;
    }
    let d0 = len - radii;
    let pad_d = ROUND_REL * (fa.x_mag + fb.x_mag + radii);
    let distance_bound = d0 - pad_d;

    let eps = params.epsilon;
    let c = d0 - 0.5 * eps - pad_d - ROUND_REL * eps;
    var toi = 0.0;
    if c > 0.0 {
        let b1 = dot(n, fa.v - fb.v) - ROUND_REL * (fa.v_mag + fb.v_mag);
        let a2 = 0.5 * dot(n, fa.g - fb.g) - ROUND_REL * (fa.g_mag + fb.g_mag);
        toi = TOI_NONE;
        if b1 < 0.0 || a2 < 0.0 {
            let disc = b1 * b1 - 4.0 * a2 * c;
            let disc_hi = disc + ROUND_DISC * (b1 * b1 + 4.0 * abs(a2) * c);
            if disc_hi >= 0.0 {
                let den = sqrt(disc_hi) - b1;
                if den > 0.0 {
                    let t = (2.0 * c / den) * (1.0 - ROUND_REL);
                    if t <= params.frame_period {
                        toi = t;
                    }
                } else {
                    toi = 0.0;
                }
            }
        }
    }
    return PairBound(a, b, distance_bound, toi);
}

fn pair_bounds_one(ix: u32) -> PairBound {
    let p = pairs[ix];
    return pair_bound(p.x, p.y);
}

@compute @workgroup_size(WG_SIZE)
fn pair_bounds(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let ix = thread_index(gid, nwg);
    if ix < min(bump.pairs, params.pair_capacity) {
        bounds[ix] = pair_bounds_one(ix);
    }
}
