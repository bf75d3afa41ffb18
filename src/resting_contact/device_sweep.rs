//! The step's sweeps on a device ([`device_sweeps`]): the rows, patches, colours and velocities
//! packed in f32 for [`ContactSweeps`] (`crate::stages::contact_sweep`), and the impulses and
//! velocities it returns put back. The device sweeps in the colour order of
//! [`coloured_sweeps`](super::colouring::coloured_sweeps), its f64 reference.

use super::colouring::Colouring;
use super::patch::Constraints;
use super::slots::Velocities;
use super::{StepReport, StepSettings};
use crate::stages::contact_sweep::{
    f32_change, mat3_f32, vec3_f32, ContactSweeps, SweepInput, SweepParams, SweepPatch, SweepRow,
    SweepVel, SWEEP_MAX_STALL_WINDOW,
};
use crate::stages::StageError;

/// The packed step, kept between steps so that a step allocates nothing once grown.
#[derive(Clone, Default)]
pub(super) struct Packed {
    rows: Vec<SweepRow>,
    patches: Vec<SweepPatch>,
    moving: Vec<SweepVel>,
    still: Vec<SweepVel>,
}

fn vel(v: &super::slots::Vel) -> SweepVel {
    SweepVel {
        v: vec3_f32(v.v),
        w: vec3_f32(v.w),
        ..SweepVel::default()
    }
}

/// Runs the step's sweeps on `device` in `colouring`'s order and puts the results back: each
/// row's normal impulse and each patch's friction impulses (as the device left them), and each
/// moving body's velocity changed by what the sweeps changed it by (the f64 velocity plus the
/// device's f32 difference, so a body the sweeps leave alone keeps its velocity bit for bit).
/// On an error nothing is changed.
pub(super) fn device_sweeps(
    device: &mut dyn ContactSweeps,
    constraints: &mut Constraints,
    colouring: &Colouring,
    velocities: &mut Velocities,
    settings: &StepSettings,
    packed: &mut Packed,
) -> Result<StepReport, StageError> {
    let Packed {
        rows,
        patches,
        moving,
        still,
    } = packed;
    rows.clear();
    rows.extend(constraints.rows.iter().map(|r| SweepRow {
        ra: vec3_f32(r.ra),
        bias: r.bias as f32,
        rb: vec3_f32(r.rb),
        drift: r.drift as f32,
        normal: vec3_f32(r.normal),
        k_nn: r.k_nn as f32,
        lin_a: vec3_f32(r.lin_a),
        inv_k_nn: r.inv_k_nn as f32,
        ang_a: vec3_f32(r.ang_a),
        impulse: r.impulse as f32,
        lin_b: vec3_f32(r.lin_b),
        spread_sq: r.spread_sq as f32,
        ang_b: vec3_f32(r.ang_b),
        lever: r.lever as f32,
        spread: vec3_f32(r.spread),
        twist_arm: r.twist_arm as f32,
        slip: vec3_f32(r.slip),
        pad: 0.0,
    }));
    patches.clear();
    patches.extend(constraints.patches.iter().map(|p| SweepPatch {
        sa: p.sa,
        sb: p.sb,
        first: p.first as u32,
        count: p.count as u32,
        ra: vec3_f32(p.ra),
        friction: p.friction as f32,
        rb: vec3_f32(p.rb),
        twist_inv: p.twist_inv as f32,
        normal: vec3_f32(p.normal),
        radius: p.radius as f32,
        drift: vec3_f32(p.drift),
        inv_mass_a: p.inv_mass_a as f32,
        tangential: vec3_f32(p.tangential),
        twist: p.twist as f32,
        k: mat3_f32(&p.k),
        k_tt_inv: mat3_f32(&p.k_tt_inv),
        inv_inertia_a: mat3_f32(&p.inv_inertia_a),
        inv_inertia_b: mat3_f32(&p.inv_inertia_b),
        inv_mass_b: p.inv_mass_b as f32,
        slides: u32::from(p.slides),
        pad: [0; 2],
    }));
    moving.clear();
    moving.extend(velocities.moving.iter().map(vel));
    still.clear();
    still.extend(velocities.still.iter().map(vel));
    let input = SweepInput {
        params: SweepParams {
            h: settings.h as f32,
            tolerance: settings.tolerance as f32,
            max_iterations: settings.max_iterations as u32,
            stall_window: settings.stall_window.min(SWEEP_MAX_STALL_WINDOW) as u32,
            colours: colouring.colours() as u32,
            pad: [0; 3],
        },
        rows,
        patches,
        order: &colouring.order,
        starts: &colouring.starts,
        moving,
        still,
    };
    let out = device.contact_sweeps(&input)?;
    let complete = out.impulses.len() == rows.len()
        && out.friction.len() == patches.len()
        && out.moving.len() == moving.len();
    if !complete {
        return Err(StageError::Readback(format!(
            "the contact sweeps returned {} impulses, {} patches and {} velocities for {}, {} and {}",
            out.impulses.len(),
            out.friction.len(),
            out.moving.len(),
            rows.len(),
            patches.len(),
            moving.len()
        )));
    }
    for (row, &p) in constraints.rows.iter_mut().zip(&out.impulses) {
        row.impulse = f64::from(p);
    }
    for (patch, f) in constraints.patches.iter_mut().zip(&out.friction) {
        patch.tangential = glam::DVec3::new(f[0].into(), f[1].into(), f[2].into());
        patch.twist = f64::from(f[3]);
    }
    for ((v, after), before) in velocities.moving.iter_mut().zip(&out.moving).zip(&*moving) {
        v.v += f32_change(after.v, before.v);
        v.w += f32_change(after.w, before.w);
    }
    Ok(StepReport {
        iterations: out.iterations as usize,
        residual: f64::from(out.residual),
        on_device: true,
        ..StepReport::default()
    })
}
