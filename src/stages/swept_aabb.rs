//! Stage 1, `swept_aabb`: per body, an axis-aligned box containing the body during the whole frame
//! (the broad phase's input; Mirtich & Canny 1994, §4 sweep-and-prune over bounding boxes).
//! Shader: `shaders/swept_aabb.wgsl`; one GPU thread = one call of [`swept_aabb_one`] (then
//! [`swept_aabb_override_one`] per host box).
//!
//! The centre follows p(s) = x + v s + ½ g s² (s from the body's own time, so a body behind the
//! frame start is swept too; kinematic: g = 0; fixed: v = g = 0), so per axis its range over the
//! frame is spanned by the two ends and, if it falls inside, the parabola's apex s = −v/g. The body
//! stays within `bounding_radius` of its centre whatever its rotation, so growing by the radius
//! covers rotation. Every side is then padded by ε/2 — two padded boxes that do not touch mean
//! bodies more than ε apart, the host's contact tolerance — plus [`ROUND_REL`] of the magnitudes
//! involved, so the f32 box contains the exact one.
//!
//! Where the host gives the body's own box at `time` ([`StageBody::has_own_box`]), the swept box
//! is also cut to that box carried along the same path and grown by `rotation_radius ×
//! max_angular_speed × s_max` — the furthest rotation can move any face since `time` — padded the
//! same way. A cube's own box is 1.0–1.7 m wide where its sphere's is 1.73 m, so in a pile it meets
//! about a third as many neighbours (the host's `World::body_box` is the f64 version).
//!
//! Fixed bodies get the bounding sphere's box. The host may pass exact boxes ([`BoxOverride`],
//! meant for fixed bodies such as a floor whose bounding sphere is much larger than the floor);
//! they replace the computed box after the main pass.

use super::{
    BoxOverride, FrameParams, StageAabb, StageBody, MOTION_DYNAMIC, MOTION_FIXED, ROUND_REL,
};
use rayon::prelude::*;

fn centre_at(x: f32, v: f32, g: f32, s: f32) -> f32 {
    x + v * s + 0.5 * g * s * s
}

/// Swept box of body `ix` over `[frame_start, frame_start + frame_period]`. Same statements as
/// `swept_aabb_one` in `shaders/swept_aabb.wgsl`.
pub fn swept_aabb_one(ix: usize, params: &FrameParams, bodies: &[StageBody]) -> StageAabb {
    let b = &bodies[ix];
    let s0 = params.frame_start - b.time;
    let s1 = s0 + params.frame_period;
    let mut v = b.velocity;
    let mut g = [0.0f32; 3];
    if b.motion == MOTION_FIXED {
        v = [0.0; 3];
    } else if b.motion == MOTION_DYNAMIC {
        g = params.gravity;
    }
    let s_max = s0.abs().max(s1.abs());
    let mut lo = [0.0f32; 3];
    let mut hi = [0.0f32; 3];
    for k in 0..3 {
        let p0 = centre_at(b.position[k], v[k], g[k], s0);
        let p1 = centre_at(b.position[k], v[k], g[k], s1);
        let mut l = p0.min(p1);
        let mut h = p0.max(p1);
        if g[k] != 0.0 {
            let apex = -v[k] / g[k];
            if apex > s0 && apex < s1 {
                let pa = centre_at(b.position[k], v[k], g[k], apex);
                l = l.min(pa);
                h = h.max(pa);
            }
        }
        let magnitude = b.position[k].abs()
            + v[k].abs() * s_max
            + 0.5 * g[k].abs() * s_max * s_max
            + b.bounding_radius;
        let pad =
            b.bounding_radius + 0.5 * params.epsilon + ROUND_REL * (magnitude + params.epsilon);
        lo[k] = l - pad;
        hi[k] = h + pad;
        if b.has_own_box != 0 {
            // The own box carried along the path, grown by the most rotation can move a face
            // since `time`, then cut to the sphere's box (both contain the body).
            let turn = b.rotation_radius * b.max_angular_speed * s_max;
            let own_pad =
                turn + 0.5 * params.epsilon + ROUND_REL * (magnitude + params.epsilon + turn);
            lo[k] = lo[k].max(l + b.own_min[k] - own_pad);
            hi[k] = hi[k].min(h + b.own_max[k] + own_pad);
        }
    }
    StageAabb::new(lo, hi, b.motion)
}

/// Applies host box `ix` to `boxes` (corners replaced, the body's motion tag kept). Same
/// statements as `swept_aabb_override` in `shaders/swept_aabb.wgsl`.
pub fn swept_aabb_override_one(ix: usize, overrides: &[BoxOverride], boxes: &mut [StageAabb]) {
    let o = &overrides[ix];
    if let Some(bx) = boxes.get_mut(o.body as usize) {
        *bx = StageAabb::new(o.aabb.min, o.aabb.max, bx.motion);
    }
}

/// Swept boxes of all `bodies`, then the host's `overrides` (at most one per body: with two, the
/// GPU's choice between them is unspecified).
pub fn swept_aabb(
    params: &FrameParams,
    bodies: &[StageBody],
    overrides: &[BoxOverride],
) -> Vec<StageAabb> {
    let mut boxes: Vec<StageAabb> = (0..bodies.len())
        .into_par_iter()
        .with_min_len(1024)
        .map(|ix| swept_aabb_one(ix, params, bodies))
        .collect();
    for ix in 0..overrides.len() {
        swept_aabb_override_one(ix, overrides, &mut boxes);
    }
    boxes
}
