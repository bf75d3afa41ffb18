//! Small f32 helpers shared by the twins, written in the same order of operations as their WGSL
//! counterparts so the CPU and GPU round alike. Keep in sync with `shaders/pair_bounds.wgsl` and
//! `shaders/broad_phase.wgsl`.

use glam::Vec3;

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
