// Stage 1, integrate: advance every body from its own time to the frame start.
// CPU twin: src/stages/integrate.rs (integrate_one). One thread = one body.
//
// Between collisions a body moves ballistically and rotates torque-free (Mirtich & Canny 1994, §3):
//   dynamic:   x += v dt + g dt^2 / 2, v += g dt; rotation from Euler's equations
//   kinematic: x += v dt, q <- exp(w dt) q (no gravity)
//   fixed:     unchanged
// Spherical bodies (equal principal moments) keep w constant, so q <- exp(w dt) q is exact.
// Otherwise Euler's equations in the body frame, I dw/dt + w x (I w) = 0, i.e.
// dw/dt = I^-1 ((I w) x w), with dq/dt = q (w_b, 0) / 2, are integrated by RK4 with a fixed number
// of sub-steps (at most RK4_MAX_ANGLE radians each, capped at RK4_MAX_STEPS) and q renormalised.

#import body
#import dispatch
#import quat

const RK4_MAX_ANGLE: f32 = 0.05;
const RK4_MAX_STEPS: f32 = 64.0;

@group(0) @binding(0) var<uniform> params: FrameParams;
@group(0) @binding(1) var<storage, read_write> bodies: array<StageBody>;

// Body-frame angular momentum I w; an axis with infinite inertia (inv 0) contributes none (the
// host keeps w zero about such an axis).
fn body_momentum(inv_inertia: vec3<f32>, w: vec3<f32>) -> vec3<f32> {
    return select(vec3<f32>(0.0), w / inv_inertia, inv_inertia > vec3<f32>(0.0));
}

// Euler's equations: dw/dt = I^-1 ((I w) x w).
fn euler_rate(inv_inertia: vec3<f32>, w: vec3<f32>) -> vec3<f32> {
    return inv_inertia * cross(body_momentum(inv_inertia, w), w);
}

// dq/dt = q (w_b, 0) / 2 for a body-frame angular velocity w_b.
fn quat_rate(q: vec4<f32>, w: vec3<f32>) -> vec4<f32> {
    return 0.5 * quat_mul(q, vec4<f32>(w, 0.0));
}

fn rk4_steps(w: vec3<f32>, dt: f32) -> f32 {
    return clamp(ceil(length(w) * abs(dt) / RK4_MAX_ANGLE), 1.0, RK4_MAX_STEPS);
}

fn integrate_one(ix: u32) {
    var b = bodies[ix];
    let dt = params.frame_start - b.time;
    b.time = params.frame_start;
    if b.motion == MOTION_FIXED || dt == 0.0 {
        bodies[ix] = b;
        return;
    }
    // The own box described the body at its old time and pose.
    b.has_own_box = 0u;
    if b.motion == MOTION_KINEMATIC {
        b.position = b.position + b.velocity * dt;
        b.orientation = normalize(quat_mul(quat_exp(b.angular_velocity, dt), b.orientation));
        bodies[ix] = b;
        return;
    }
    // Dynamic: ballistic centre of mass.
    let g = params.gravity;
    b.position = b.position + b.velocity * dt + 0.5 * g * dt * dt;
    b.velocity = b.velocity + g * dt;
    let inv = b.inv_inertia;
    if inv.x == inv.y && inv.y == inv.z {
        b.orientation = normalize(quat_mul(quat_exp(b.angular_velocity, dt), b.orientation));
    } else {
        var q = b.orientation;
        var w = quat_rotate_inv(q, b.angular_velocity);
        let n = rk4_steps(w, dt);
        let h = dt / n;
        for (var s = 0.0; s < n; s += 1.0) {
            let kq1 = quat_rate(q, w);
            let kw1 = euler_rate(inv, w);
            let q2 = q + 0.5 * h * kq1;
            let w2 = w + 0.5 * h * kw1;
            let kq2 = quat_rate(q2, w2);
            let kw2 = euler_rate(inv, w2);
            let q3 = q + 0.5 * h * kq2;
            let w3 = w + 0.5 * h * kw2;
            let kq3 = quat_rate(q3, w3);
            let kw3 = euler_rate(inv, w3);
            let q4 = q + h * kq3;
            let w4 = w + h * kw3;
            let kq4 = quat_rate(q4, w4);
            let kw4 = euler_rate(inv, w4);
            q = normalize(q + (h / 6.0) * (kq1 + 2.0 * kq2 + 2.0 * kq3 + kq4));
            w = w + (h / 6.0) * (kw1 + 2.0 * kw2 + 2.0 * kw3 + kw4);
        }
        b.orientation = q;
        b.angular_velocity = quat_rotate(q, w);
    }
    bodies[ix] = b;
}

@compute @workgroup_size(WG_SIZE)
fn integrate(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let ix = thread_index(gid, nwg);
    if ix < params.body_count {
        integrate_one(ix);
    }
}
