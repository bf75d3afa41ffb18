//! Small f32 helpers shared by the twins, written in the same order of operations as their WGSL
//! counterparts so the CPU and GPU round alike. Keep in sync with `shaders/shared/quat.wgsl` and
//! `shaders/shared/dispatch.wgsl`.

use glam::{Vec3, Vec4};

/// `a ⊗ b` for quaternions stored (x, y, z, w).
pub fn quat_mul(a: Vec4, b: Vec4) -> Vec4 {
    let (av, bv) = (a.truncate(), b.truncate());
    (a.w * bv + b.w * av + av.cross(bv)).extend(a.w * b.w - av.dot(bv))
}

/// Rotates `v` by the unit quaternion `q`: v + w t + u × t with t = 2 u × v (u = q.xyz).
pub fn quat_rotate(q: Vec4, v: Vec3) -> Vec3 {
    let u = q.truncate();
    let t = 2.0 * u.cross(v);
    v + q.w * t + u.cross(t)
}

/// Rotates `v` by the inverse of the unit quaternion `q`.
pub fn quat_rotate_inv(q: Vec4, v: Vec3) -> Vec3 {
    quat_rotate(Vec4::new(-q.x, -q.y, -q.z, q.w), v)
}

/// The rotation by angle |w| dt about w, as a quaternion (exp of the pure quaternion w dt / 2).
pub fn quat_exp(w: Vec3, dt: f32) -> Vec4 {
    let speed = w.length();
    if speed == 0.0 {
        return Vec4::new(0.0, 0.0, 0.0, 1.0);
    }
    let half_angle = 0.5 * speed * dt;
    (w * (half_angle.sin() / speed)).extend(half_angle.cos())
}

/// Sum of absolute values: a cheap upper bound on the length, used to size rounding pads.
pub fn l1(v: Vec3) -> f32 {
    v.x.abs() + v.y.abs() + v.z.abs()
}

/// Maps an f32 to a u32 whose unsigned order is the float order (negatives flipped, positives with
/// the sign bit set), so a radix or bitonic sort of keys sorts the floats.
pub fn float_key(f: f32) -> u32 {
    let bits = f.to_bits();
    if bits & 0x8000_0000 != 0 {
        !bits
    } else {
        bits | 0x8000_0000
    }
}
