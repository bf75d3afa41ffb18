//! Recording the stages' compute passes: the workgroup sizes shared with the shaders, how a
//! thread or workgroup count becomes a dispatch, and the passes of the swept-box and broad-phase
//! (with pair bounds) stages.

use super::sort::{SortStep, SORT_BLOCK};
use super::GpuStages;

/// Threads per workgroup of the per-item passes. Keep in sync with `WG_SIZE` in
/// `shaders/shared/dispatch.wgsl`.
pub const WG_SIZE: u32 = 64;
/// Threads per workgroup of the broad phase's reduction and block-sort passes (`REDUCE_WG`,
/// `SORT_WG` in `shaders/broad_phase.wgsl`).
pub(super) const WIDE_WG: u32 = 256;
/// The per-dimension workgroup limit WebGPU guarantees.
const MAX_GROUPS: u32 = 65_535;

/// Workgroups (x, y) for `groups` workgroups: at most 65 535 along x, the rest folded into y
/// (the shaders' `thread_index` unfolds it). Keep in sync with `shaders/shared/dispatch.wgsl`.
pub fn dispatch_size(groups: u32) -> (u32, u32) {
    let x = groups.min(MAX_GROUPS);
    (x, if x == 0 { 0 } else { groups.div_ceil(x) })
}

fn dispatch_groups(pass: &mut wgpu::ComputePass, groups: u32) {
    let (x, y) = dispatch_size(groups);
    if x > 0 {
        pass.dispatch_workgroups(x, y, 1);
    }
}

pub(super) fn dispatch_threads(pass: &mut wgpu::ComputePass, threads: u32, wg: u32) {
    dispatch_groups(pass, threads.div_ceil(wg));
}

impl GpuStages {
    pub(super) fn encoder(&self, label: &str) -> wgpu::CommandEncoder {
        self.ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) })
    }

    pub(super) fn encode_swept_aabb(&self, enc: &mut wgpu::CommandEncoder, n: u32, overrides: u32) {
        let bg = &self.bgs().swept_aabb;
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("tumble.swept_aabb"),
            timestamp_writes: None,
        });
        pass.set_bind_group(0, bg, &[]);
        pass.set_pipeline(self.swept_aabb.pipeline("swept_aabb"));
        dispatch_threads(&mut pass, n, WG_SIZE);
        if overrides > 0 {
            pass.set_pipeline(self.swept_aabb.pipeline("swept_aabb_override"));
            dispatch_threads(&mut pass, overrides, WG_SIZE);
        }
    }

    /// Broad phase over the `n` boxes in `boxes` (n ≥ 2), then the pair bounds over the stored
    /// pairs by indirect dispatch when `with_bounds`.
    pub(super) fn encode_broad_phase(
        &self,
        enc: &mut wgpu::CommandEncoder,
        n: u32,
        with_bounds: bool,
    ) {
        let (len, steps) = self.write_sort_params(n);
        enc.clear_buffer(&self.bump.buffer, 0, None);
        let bp = &self.broad_phase;
        let bgs = self.bgs();
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("tumble.broad_phase"),
                timestamp_writes: None,
            });
            pass.set_bind_group(0, &bgs.broad_phase, &[0]);
            pass.set_pipeline(bp.pipeline("broad_phase_reduce"));
            dispatch_groups(&mut pass, n.div_ceil(WIDE_WG));
            pass.set_pipeline(bp.pipeline("broad_phase_setup"));
            pass.dispatch_workgroups(1, 1, 1);
            pass.set_pipeline(bp.pipeline("broad_phase_classify"));
            dispatch_threads(&mut pass, len, WG_SIZE);
            pass.set_pipeline(bp.pipeline("broad_phase_sort_local"));
            dispatch_groups(&mut pass, len / SORT_BLOCK);
            for (step, offset) in steps {
                pass.set_bind_group(0, &bgs.broad_phase, &[offset]);
                match step {
                    SortStep::Global { .. } => {
                        pass.set_pipeline(bp.pipeline("broad_phase_sort_global"));
                        dispatch_threads(&mut pass, len / 2, WG_SIZE);
                    }
                    SortStep::Merge { .. } => {
                        pass.set_pipeline(bp.pipeline("broad_phase_sort_merge"));
                        dispatch_groups(&mut pass, len / SORT_BLOCK);
                    }
                }
            }
            pass.set_bind_group(0, &bgs.broad_phase, &[0]);
            pass.set_pipeline(bp.pipeline("broad_phase_gather"));
            dispatch_threads(&mut pass, n, WG_SIZE);
            pass.set_pipeline(bp.pipeline("broad_phase_sweep"));
            dispatch_threads(&mut pass, n, WG_SIZE);
            pass.set_pipeline(bp.pipeline("broad_phase_large"));
            dispatch_threads(&mut pass, n, WG_SIZE);
            if with_bounds {
                pass.set_pipeline(bp.pipeline("broad_phase_finish"));
                pass.dispatch_workgroups(1, 1, 1);
            }
        }
        if with_bounds {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("tumble.pair_bounds"),
                timestamp_writes: None,
            });
            pass.set_pipeline(self.pair_bounds.pipeline("pair_bounds"));
            pass.set_bind_group(0, &bgs.pair_bounds, &[]);
            pass.dispatch_workgroups_indirect(&self.pair_dispatch.buffer, 0);
        }
    }
}
