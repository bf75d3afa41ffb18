//! Exact (f64) references for the stage tests, included by `stages_cpu.rs` and `gpu_compare.rs`
//! through `#[path]`; its own tests check the references themselves.
#![allow(dead_code)]

use glam::{DQuat, DVec3};
use tumble::stages::{FrameParams, StageBody, MOTION_DYNAMIC, MOTION_FIXED};

/// The f32 input promoted to f64: the references are exact for the inputs the stages saw.
pub fn v64(v: [f32; 3]) -> DVec3 {
    DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64)
}

/// Centre of body `b` at `t` seconds after the frame start (ballistic from its own time).
pub fn centre_at(params: &FrameParams, b: &StageBody, t: f64) -> DVec3 {
    let s = params.frame_start as f64 + t - b.time as f64;
    let x = v64(b.position);
    match b.motion {
        MOTION_FIXED => x,
        MOTION_DYNAMIC => x + v64(b.velocity) * s + 0.5 * v64(params.gravity) * s * s,
        _ => x + v64(b.velocity) * s,
    }
}

/// Velocity of body `b` at `t` seconds after the frame start.
pub fn velocity_at(params: &FrameParams, b: &StageBody, t: f64) -> DVec3 {
    let s = params.frame_start as f64 + t - b.time as f64;
    match b.motion {
        MOTION_FIXED => DVec3::ZERO,
        MOTION_DYNAMIC => v64(b.velocity) + v64(params.gravity) * s,
        _ => v64(b.velocity),
    }
}

/// Orientation at `t` after the frame start under constant world ω (exact for spherical and
/// kinematic bodies; for the bounding-sphere tests any orientation is as good).
pub fn orientation_at(params: &FrameParams, b: &StageBody, t: f64) -> DQuat {
    let s = params.frame_start as f64 + t - b.time as f64;
    let q0 = DQuat::from_xyzw(
        b.orientation[0] as f64,
        b.orientation[1] as f64,
        b.orientation[2] as f64,
        b.orientation[3] as f64,
    )
    .normalize();
    if b.motion == MOTION_FIXED {
        return q0;
    }
    let w = v64(b.angular_velocity);
    let speed = w.length();
    if speed == 0.0 {
        return q0;
    }
    (DQuat::from_axis_angle(w / speed, speed * s) * q0).normalize()
}

/// Distance between the bounding spheres at `t` after the frame start.
pub fn sphere_distance(params: &FrameParams, a: &StageBody, b: &StageBody, t: f64) -> f64 {
    (centre_at(params, a, t) - centre_at(params, b, t)).length()
        - a.bounding_radius as f64
        - b.bounding_radius as f64
}

/// First t in [0, frame_period] at which the spheres come within ε/2 (dense sampling then
/// bisection), or None.
pub fn first_touch(params: &FrameParams, a: &StageBody, b: &StageBody) -> Option<f64> {
    let target = 0.5 * params.epsilon as f64;
    let period = params.frame_period as f64;
    let f = |t: f64| sphere_distance(params, a, b, t) - target;
    if f(0.0) <= 0.0 {
        return Some(0.0);
    }
    let samples = 2000;
    let mut lo = 0.0;
    for k in 1..=samples {
        let hi = period * k as f64 / samples as f64;
        if f(hi) <= 0.0 {
            let (mut l, mut h) = (lo, hi);
            for _ in 0..80 {
                let m = 0.5 * (l + h);
                if f(m) <= 0.0 {
                    h = m;
                } else {
                    l = m;
                }
            }
            return Some(l);
        }
        lo = hi;
    }
    None
}

#[test]
fn first_touch_of_head_on_spheres() {
    let params = FrameParams::new([0.0; 3], 0.0, 1.0, 0.0);
    let a = StageBody {
        position: [0.0; 3],
        velocity: [1.0, 0.0, 0.0],
        bounding_radius: 0.5,
        motion: tumble::stages::MOTION_KINEMATIC,
        ..Default::default()
    };
    let b = StageBody {
        position: [2.0, 0.0, 0.0],
        bounding_radius: 0.5,
        motion: MOTION_FIXED,
        ..Default::default()
    };
    let t = first_touch(&params, &a, &b).unwrap();
    assert!((t - 1.0).abs() < 1e-9, "{t}");
}
