// The contact step's projected Gauss-Seidel sweeps in colour order (Bender & Schmitt 2006, §3.2;
// Box2D v3's graph colouring). f64 reference: `coloured_sweeps` in
// src/resting_contact/colouring.rs, over the same rows, patches, colours and order; the host
// packs them as src/stages/contact_sweep.rs says (keep the structs in sync).
//
// One thread sweeps one patch of a colour (`contact_sweep_colour`, one dispatch per colour): no
// two patches of a colour share a moving body, so they run at once with the result of running
// them one after the other. After each sweep `contact_sweep_end` (one thread) takes the sweep's
// residual and decides, by the host's rule, whether the sweeps stop: the residual within the
// tolerance, a stall (above 0.8 of the residual `window` sweeps earlier, from sweep 2·window
// on), or the most sweeps. The host records every possible sweep in one submission; once
// `control.done` is set the remaining dispatches return at once, so nothing is read back
// until the step's sweeps are over.

#import dispatch

struct SweepRow {
    ra: vec3<f32>,
    bias: f32,
    rb: vec3<f32>,
    drift: f32,
    normal: vec3<f32>,
    k_nn: f32,
    lin_a: vec3<f32>,
    inv_k_nn: f32,
    ang_a: vec3<f32>,
    impulse: f32,
    lin_b: vec3<f32>,
    spread_sq: f32,
    ang_b: vec3<f32>,
    lever: f32,
    spread: vec3<f32>,
    twist_arm: f32,
    slip: vec3<f32>,
    pad: f32,
}

struct SweepPatch {
    sa: u32,
    sb: u32,
    first: u32,
    count: u32,
    ra: vec3<f32>,
    friction: f32,
    rb: vec3<f32>,
    twist_inv: f32,
    normal: vec3<f32>,
    radius: f32,
    drift: vec3<f32>,
    inv_mass_a: f32,
    tangential: vec3<f32>,
    twist: f32,
    k: mat3x3<f32>,
    k_tt_inv: mat3x3<f32>,
    inv_inertia_a: mat3x3<f32>,
    inv_inertia_b: mat3x3<f32>,
    inv_mass_b: f32,
    slides: u32,
    pad0: u32,
    pad1: u32,
}

struct SweepVel {
    v: vec3<f32>,
    pad0: f32,
    w: vec3<f32>,
    pad1: f32,
}

struct SweepParams {
    h: f32,
    tolerance: f32,
    max_iterations: u32,
    stall_window: u32,
    colours: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

// The colour a dispatch sweeps (a dynamic offset into one small buffer per colour).
struct ColourParams {
    colour: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

struct SweepControl {
    residual_bits: atomic<u32>,
    done: u32,
    iterations: u32,
    residual: f32,
    history: array<f32, 16>,
}

@group(0) @binding(0) var<uniform> params: SweepParams;
@group(0) @binding(1) var<uniform> colour_params: ColourParams;
@group(0) @binding(2) var<storage, read_write> rows: array<SweepRow>;
@group(0) @binding(3) var<storage, read_write> patches: array<SweepPatch>;
@group(0) @binding(4) var<storage, read> order: array<u32>;
@group(0) @binding(5) var<storage, read> starts: array<u32>;
@group(0) @binding(6) var<storage, read_write> moving: array<SweepVel>;
@group(0) @binding(7) var<storage, read> still: array<SweepVel>;
@group(0) @binding(8) var<storage, read_write> control: SweepControl;

// Slot flag of a read-only body (src/stages/contact_sweep.rs `SLOT_STILL`).
const STILL: u32 = 0x80000000u;
// A stalled sweep's residual is above this fraction of the one `window` sweeps earlier.
const STALL_RATIO: f32 = 0.8;

struct Vel {
    v: vec3<f32>,
    w: vec3<f32>,
}

fn read_vel(s: u32) -> Vel {
    if (s & STILL) != 0u {
        let x = still[s & ~STILL];
        return Vel(x.v, x.w);
    }
    let x = moving[s];
    return Vel(x.v, x.w);
}

fn write_vel(s: u32, v: Vel) {
    moving[s] = SweepVel(v.v, 0.0, v.w, 0.0);
}

// The centre of pressure's offset from the centroid (zero without a load): `Load::centre`.
fn load_centre(total: f32, first: vec3<f32>) -> vec3<f32> {
    if total > 0.0 {
        return first / total;
    }
    return vec3<f32>(0.0);
}

// `friction::sliding_shares`: the shares of the sliding and twisting limits a patch that slides
// through the step may use.
fn sliding_shares(p: SweepPatch) -> vec2<f32> {
    if p.slides == 0u {
        return vec2<f32>(1.0, 1.0);
    }
    var total = 0.0;
    var force = vec3<f32>(0.0);
    var torque = 0.0;
    var lever = 0.0;
    for (var k = 0u; k < p.count; k++) {
        let r = rows[p.first + k];
        let pn = max(r.impulse, 0.0);
        total += pn;
        force += r.slip * pn;
        torque += r.twist_arm * pn;
        lever += r.lever * pn;
    }
    if total <= 0.0 {
        return vec2<f32>(1.0, 1.0);
    }
    var twist = 1.0;
    if lever > 0.0 {
        twist = abs(torque) / lever;
    }
    return vec2<f32>(min(length(force) / total, 1.0), min(twist, 1.0));
}

@compute @workgroup_size(WG_SIZE)
fn contact_sweep_colour(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let ix = thread_index(gid, nwg);
    let c = colour_params.colour;
    let begin = starts[c];
    if ix >= starts[c + 1u] - begin || control.done != 0u {
        return;
    }
    let k = order[begin + ix];
    var p = patches[k];
    let h = params.h;
    let a_moves = (p.sa & STILL) == 0u;
    let b_moves = (p.sb & STILL) == 0u;
    var va = read_vel(p.sa);
    var vb = read_vel(p.sb);
    var residual_sq = 0.0;
    // Normal rows, forward on even sweeps and backward on odd ones (`RowOrder`), clamped so
    // that the accumulated impulse never pulls (eq. 8 with eq. 3).
    let backward = (control.iterations & 1u) == 1u;
    var total = 0.0;
    var first_moment = vec3<f32>(0.0);
    var second_moment = 0.0;
    for (var j = 0u; j < p.count; j++) {
        var i = j;
        if backward {
            i = p.count - 1u - j;
        }
        let r = rows[p.first + i];
        let n = r.normal;
        let un = dot(n, va.v + cross(va.w, r.ra) - vb.v - cross(vb.w, r.rb)) + r.drift;
        let pn = max(r.impulse + (r.bias - un) * r.inv_k_nn, 0.0);
        let dp = pn - r.impulse;
        total += pn;
        first_moment += r.spread * pn;
        second_moment += pn * r.spread_sq;
        if dp == 0.0 {
            continue;
        }
        let res = r.k_nn * dp * h;
        residual_sq = max(residual_sq, res * res);
        if a_moves {
            va.v += r.lin_a * dp;
            va.w += r.ang_a * dp;
        }
        if b_moves {
            vb.v -= r.lin_b * dp;
            vb.w -= r.ang_b * dp;
        }
        rows[p.first + i].impulse = pn;
    }
    // The patch's friction (`friction::friction_rows`): the tangential impulse at the centre
    // of pressure inside the Coulomb disk (eq. 5-6), then the twist inside mu times the loads'
    // twisting moment about it.
    if p.friction > 0.0 {
        let n = p.normal;
        let centre = load_centre(total, first_moment);
        let at_a = p.ra + centre;
        let at_b = p.rb + centre;
        let u = va.v + cross(va.w, at_a) - vb.v - cross(vb.w, at_b) + p.drift;
        let ut = u - dot(u, n) * n;
        var pt = p.tangential - p.k_tt_inv * ut;
        pt -= dot(pt, n) * n;
        let shares = sliding_shares(p);
        let limit = p.friction * shares.x * total;
        let len_sq = dot(pt, pt);
        if len_sq > limit * limit {
            pt *= limit / sqrt(len_sq);
        }
        let dpt = pt - p.tangential;
        if any(dpt != vec3<f32>(0.0)) {
            let kd = p.k * dpt;
            residual_sq = max(residual_sq, dot(kd, kd) * (h * h));
            if a_moves {
                va.v += dpt * p.inv_mass_a;
                va.w += p.inv_inertia_a * cross(at_a, dpt);
            }
            if b_moves {
                vb.v -= dpt * p.inv_mass_b;
                vb.w -= p.inv_inertia_b * cross(at_b, dpt);
            }
            p.tangential = pt;
        }
        if p.twist_inv > 0.0 {
            let spin = dot(n, va.w - vb.w);
            var tw = p.twist - p.twist_inv * spin;
            let mu = p.friction * shares.y;
            let moment_sq = max(total * second_moment - dot(first_moment, first_moment), 0.0);
            let limit_sq = mu * mu * moment_sq;
            if tw * tw > limit_sq {
                tw = select(sqrt(limit_sq), -sqrt(limit_sq), tw < 0.0);
            }
            let dtw = tw - p.twist;
            if dtw != 0.0 {
                let res = dtw / p.twist_inv * p.radius * h;
                residual_sq = max(residual_sq, res * res);
                let l = n * dtw;
                if a_moves {
                    va.w += p.inv_inertia_a * l;
                }
                if b_moves {
                    vb.w -= p.inv_inertia_b * l;
                }
                p.twist = tw;
            }
        }
        patches[k].tangential = p.tangential;
        patches[k].twist = p.twist;
    }
    if a_moves {
        write_vel(p.sa, va);
    }
    if b_moves {
        write_vel(p.sb, vb);
    }
    // Non-negative floats order as their bits.
    atomicMax(&control.residual_bits, bitcast<u32>(residual_sq));
}

// After each sweep: its residual, and whether the sweeps stop (`gauss_seidel_sweeps` and
// `StallWatch` in src/resting_contact/sweep.rs).
@compute @workgroup_size(1)
fn contact_sweep_end() {
    if control.done != 0u {
        return;
    }
    let sweep = control.iterations;
    let residual = sqrt(bitcast<f32>(atomicLoad(&control.residual_bits)));
    atomicStore(&control.residual_bits, 0u);
    control.iterations = sweep + 1u;
    control.residual = residual;
    var stalled = false;
    let window = params.stall_window;
    if window > 0u {
        let slot = sweep % window;
        stalled = sweep >= 2u * window && residual > STALL_RATIO * control.history[slot];
        control.history[slot] = residual;
    }
    if residual <= params.tolerance || stalled || sweep + 1u >= params.max_iterations {
        control.done = 1u;
    }
}
