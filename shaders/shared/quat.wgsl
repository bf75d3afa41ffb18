// Quaternion helpers, (x, y, z, w) with w the scalar part. Keep in sync with src/stages/math.rs.

fn quat_mul(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(a.w * b.xyz + b.w * a.xyz + cross(a.xyz, b.xyz), a.w * b.w - dot(a.xyz, b.xyz));
}

// Rotates v by the unit quaternion q: v + w t + u x t with t = 2 u x v (u = q.xyz).
fn quat_rotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

// Rotates v by the inverse of the unit quaternion q.
fn quat_rotate_inv(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    return quat_rotate(vec4<f32>(-q.xyz, q.w), v);
}

// exp(w dt / 2) as a quaternion: the rotation by angle |w| dt about w.
fn quat_exp(w: vec3<f32>, dt: f32) -> vec4<f32> {
    let speed = length(w);
    if speed == 0.0 {
        return vec4<f32>(0.0, 0.0, 0.0, 1.0);
    }
    let half_angle = 0.5 * speed * dt;
    return vec4<f32>(w * (sin(half_angle) / speed), cos(half_angle));
}
