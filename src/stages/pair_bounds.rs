//! Stage 3, `pair_bounds`: per candidate pair, conservative lower bounds on the distance at the
//! frame start and on the time of impact within the frame. Shader: `shaders/pair_bounds.wgsl`;
//! one GPU thread = one call of [`pair_bounds_one`].
//!
//! Bounding spheres are rotation invariant, so only the centres matter. With Δx = x_a − x_b and
//! n = Δx/|Δx|, for any unit n and all t, |Δx(t)| ≥ n·Δx(t) (Cauchy–Schwarz), so while both bodies
//! fly ballistically
//!
//! s(t) = d₀ + n·(v_a − v_b) t + ½ n·(g_a − g_b) t²,  d₀ = |Δx| − r_a − r_b
//!
//! bounds their distance from below (g = gravity for dynamic bodies, 0 otherwise): the
//! separating-axis form of Mirtich & Canny's conservative time-of-impact bounds (1994, §3). The
//! TOI bound is the first t ≥ 0 with s(t) ≤ ε/2: 0 if already so, [`TOI_NONE`] if not within the
//! frame.
//!
//! Conservative in f32: each coefficient of A t² + B t + C (C = d₀ − ε/2) is moved towards
//! "closer, sooner" by [`ROUND_REL`] of the magnitudes it came from; the discriminant is padded up
//! by [`ROUND_DISC`]; the root is 2C / (√disc − B), which has no cancellation when approaching
//! (B < 0) and only gets earlier as disc grows (the textbook (−B − √disc)/2A cancels and moves the
//! wrong way); the root is finally shrunk by `ROUND_REL`. A lower curve crosses ε/2 first, so
//! both results stay below the exact f64 values — checked in `tests/stages_cpu.rs` and
//! `tests/gpu_compare.rs`.

use super::math::l1;
use super::{FrameParams, PairBound, StageBody, MOTION_DYNAMIC, MOTION_FIXED, ROUND_REL, TOI_NONE};
use glam::Vec3;
use rayon::prelude::*;

/// 2⁻¹⁸: padding of the discriminant, whose square root amplifies relative error. Keep in sync
/// with `ROUND_DISC` in `shaders/pair_bounds.wgsl`.
pub const ROUND_DISC: f32 = 1.0 / 262_144.0;

/// A body's centre-of-mass motion from the frame start, with magnitudes for the rounding pads.
struct Flight {
    x: Vec3,
    v: Vec3,
    g: Vec3,
    x_mag: f32,
    v_mag: f32,
    g_mag: f32,
}

/// Moves the centre from the body's own time to the frame start (a no-op for the world's bodies,
/// which it passes at the frame start).
fn flight(params: &FrameParams, b: &StageBody) -> Flight {
    let dt = params.frame_start - b.time;
    let mut v = Vec3::from(b.velocity);
    let mut g = Vec3::ZERO;
    if b.motion == MOTION_FIXED {
        v = Vec3::ZERO;
    } else if b.motion == MOTION_DYNAMIC {
        g = Vec3::from(params.gravity);
    }
    let p = Vec3::from(b.position);
    let x = p + v * dt + 0.5 * g * dt * dt;
    let vt = v + g * dt;
    let x_mag = l1(p) + l1(v) * dt.abs() + 0.5 * l1(g) * dt * dt;
    let v_mag = l1(vt) + l1(v) + l1(g) * dt.abs();
    Flight {
        x,
        v: vt,
        g,
        x_mag,
        v_mag,
        g_mag: l1(g),
    }
}

/// Bounds for bodies `a` and `b`. Same statements as `pair_bound` in `shaders/pair_bounds.wgsl`.
pub fn pair_bound(params: &FrameParams, bodies: &[StageBody], a: u32, b: u32) -> PairBound {
    let ba = &bodies[a as usize];
    let bb = &bodies[b as usize];
    let fa = flight(params, ba);
    let fb = flight(params, bb);
    let radii = ba.bounding_radius + bb.bounding_radius;
    let dx = fa.x - fb.x;
    let len = dx.length();
    let mut n = Vec3::X;
    if len > 0.0 {
        n = dx / len;
    }
    let d0 = len - radii;
    let pad_d = ROUND_REL * (fa.x_mag + fb.x_mag + radii);
    let distance_bound = d0 - pad_d;

    let eps = params.epsilon;
    let c = d0 - 0.5 * eps - pad_d - ROUND_REL * eps;
    let mut toi = 0.0;
    if c > 0.0 {
        let b1 = n.dot(fa.v - fb.v) - ROUND_REL * (fa.v_mag + fb.v_mag);
        let a2 = 0.5 * n.dot(fa.g - fb.g) - ROUND_REL * (fa.g_mag + fb.g_mag);
        toi = TOI_NONE;
        if b1 < 0.0 || a2 < 0.0 {
            let disc = b1 * b1 - 4.0 * a2 * c;
            let disc_hi = disc + ROUND_DISC * (b1 * b1 + 4.0 * a2.abs() * c);
            if disc_hi >= 0.0 {
                let den = disc_hi.sqrt() - b1;
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
    PairBound {
        a,
        b,
        distance_bound,
        toi_bound: toi,
    }
}

/// Bounds for candidate pair `ix`.
pub fn pair_bounds_one(
    ix: usize,
    params: &FrameParams,
    bodies: &[StageBody],
    pairs: &[[u32; 2]],
) -> PairBound {
    let [a, b] = pairs[ix];
    pair_bound(params, bodies, a, b)
}

/// Bounds for every pair, in the order given.
pub fn pair_bounds(
    params: &FrameParams,
    bodies: &[StageBody],
    pairs: &[[u32; 2]],
) -> Vec<PairBound> {
    (0..pairs.len())
        .into_par_iter()
        .with_min_len(1024)
        .map(|ix| pair_bounds_one(ix, params, bodies, pairs))
        .collect()
}
