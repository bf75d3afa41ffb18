// A jammed island's collision round (Bender & Schmitt 2006, §3.1; the joint round of
// src/world/impacts.rs). f64 twin: `collision_round` in src/stages/collision_round.rs, whose
// structs these mirror (keep them in sync).
//
// Three phases, each projected Gauss-Seidel sweeps until no sweep changes a point's velocity by
// more than the tolerance or the most sweeps: 0 Newton's law toward each point's target with
// the accumulated normal impulse kept >= 0; 1 Coulomb friction along each point's slip within mu
// times its normal impulse; 2 a last inelastic pass (targets 0, impulses only pushing). One
// thread sweeps one pair's points in order (`collision_round_normal`, `collision_round_friction`,
// one dispatch per colour: no two pairs of a colour share a moving body); after each sweep
// `collision_round_end` (one thread) stops the phase. The host records every possible sweep of
// all three phases in one submission; a stopped phase's dispatches return at once.

#import dispatch

struct RoundRow {
    ra: vec3<f32>,
    target_speed: f32,
    rb: vec3<f32>,
    mass: f32,
    normal: vec3<f32>,
    friction: f32,
    k: mat3x3<f32>,
    tangent: vec3<f32>,
    impulse: f32,
    extra: f32,
    a: u32,
    b: u32,
    pad: u32,
}

struct RoundBody {
    v: vec3<f32>,
    inv_mass: f32,
    w: vec3<f32>,
    moves: u32,
    inv_inertia: mat3x3<f32>,
}

struct RoundParams {
    tolerance: f32,
    max_sweeps: u32,
    colours: u32,
    pad: u32,
}

// The colour and phase a dispatch sweeps (a dynamic offset into one small buffer).
struct PassParams {
    colour: u32,
    phase: u32,
    pad0: u32,
    pad1: u32,
}

struct RoundControl {
    change_bits: atomic<u32>,
    pad0: u32,
    pad1: u32,
    pad2: u32,
    done: array<u32, 4>,
    sweeps: array<u32, 4>,
}

@group(0) @binding(0) var<uniform> params: RoundParams;
@group(0) @binding(1) var<uniform> pass_params: PassParams;
@group(0) @binding(2) var<storage, read_write> rows: array<RoundRow>;
@group(0) @binding(3) var<storage, read> pairs: array<u32>;
@group(0) @binding(4) var<storage, read> starts: array<u32>;
@group(0) @binding(5) var<storage, read_write> bodies: array<RoundBody>;
@group(0) @binding(6) var<storage, read_write> control: RoundControl;

fn row_velocity(r: RoundRow) -> vec3<f32> {
    let a = bodies[r.a];
    let b = bodies[r.b];
    return a.v + cross(a.w, r.ra) - b.v - cross(b.w, r.rb);
}

// Impulse j on a at the row's point, -j on b (each only if it moves).
fn apply(r: RoundRow, j: vec3<f32>) {
    if bodies[r.a].moves != 0u {
        bodies[r.a].v += j * bodies[r.a].inv_mass;
        bodies[r.a].w += bodies[r.a].inv_inertia * cross(r.ra, j);
    }
    if bodies[r.b].moves != 0u {
        bodies[r.b].v -= j * bodies[r.b].inv_mass;
        bodies[r.b].w -= bodies[r.b].inv_inertia * cross(r.rb, j);
    }
}

// This thread's pair (rows first..end), or none.
fn pair_rows(gid: vec3<u32>, nwg: vec3<u32>) -> vec2<u32> {
    let ix = thread_index(gid, nwg);
    let c = pass_params.colour;
    let begin = starts[c];
    if ix >= starts[c + 1u] - begin || control.done[pass_params.phase] != 0u {
        return vec2<u32>(0u, 0u);
    }
    let p = begin + ix;
    return vec2<u32>(pairs[p], pairs[p + 1u]);
}

@compute @workgroup_size(WG_SIZE)
fn collision_round_normal(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let span = pair_rows(gid, nwg);
    let inelastic = pass_params.phase == 2u;
    var change = 0.0;
    for (var k = span.x; k < span.y; k++) {
        let r = rows[k];
        let un = dot(row_velocity(r), r.normal);
        var target_speed = r.target_speed;
        var acc = r.impulse;
        if inelastic {
            target_speed = 0.0;
            acc = r.extra;
        }
        let next = max(acc + r.mass * (target_speed - un), 0.0);
        let delta = next - acc;
        if delta != 0.0 {
            apply(r, delta * r.normal);
            if inelastic {
                rows[k].extra = next;
            } else {
                rows[k].impulse = next;
            }
            change = max(change, abs(delta / r.mass));
        }
    }
    if span.y > span.x {
        atomicMax(&control.change_bits, bitcast<u32>(change));
    }
}

@compute @workgroup_size(WG_SIZE)
fn collision_round_friction(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let span = pair_rows(gid, nwg);
    var change = 0.0;
    for (var k = span.x; k < span.y; k++) {
        let r = rows[k];
        if r.friction <= 0.0 || r.impulse <= 0.0 {
            continue;
        }
        let u = row_velocity(r);
        let ut = u - dot(u, r.normal) * r.normal;
        let speed = length(ut);
        if speed <= params.tolerance {
            continue;
        }
        let dir = ut / speed;
        let mass_t = 1.0 / dot(dir, r.k * dir);
        var next = r.tangent - mass_t * ut;
        let limit = r.friction * r.impulse;
        if length(next) > limit {
            next *= limit / length(next);
        }
        let delta = next - r.tangent;
        apply(r, delta);
        rows[k].tangent = next;
        change = max(change, length(delta) / mass_t);
    }
    if span.y > span.x {
        atomicMax(&control.change_bits, bitcast<u32>(change));
    }
}

// After each sweep of the phase in `pass_params`: its largest change, and whether the phase
// stops (within the tolerance, or the most sweeps).
@compute @workgroup_size(1)
fn collision_round_end() {
    let phase = pass_params.phase;
    if control.done[phase] != 0u {
        return;
    }
    let change = bitcast<f32>(atomicLoad(&control.change_bits));
    atomicStore(&control.change_bits, 0u);
    control.sweeps[phase] += 1u;
    if change <= params.tolerance || control.sweeps[phase] >= params.max_sweeps {
        control.done[phase] = 1u;
    }
}
