//! [`GpuStages`] behind [`FrameStages`]: each stage on its own (upload, one pass, readback), and
//! [`FrameStages::frame`], all three stages with one upload and one readback, re-running the
//! broad phase and the pair bounds once when the candidate pairs overflowed their buffer.

use super::buffers::size_of;
use super::encode::{dispatch_threads, WG_SIZE};
use super::readback::{bump_of, sorted_bounds, Readback};
use super::GpuStages;
use crate::stages::{
    BoxOverride, Bump, FrameOutput, FrameParams, FrameStages, PairBound, StageAabb, StageBody,
    StageError,
};

impl FrameStages for GpuStages {
    fn name(&self) -> String {
        self.ctx.adapter_name()
    }

    fn contact_sweeper(&mut self) -> Option<&mut dyn crate::stages::contact_sweep::ContactSweeps> {
        Some(self)
    }

    fn swept_aabb(
        &mut self,
        bodies: &[StageBody],
        overrides: &[BoxOverride],
        params: &FrameParams,
    ) -> Result<Vec<StageAabb>, StageError> {
        let n = bodies.len();
        if n == 0 {
            return Ok(Vec::new());
        }
        self.upload_bodies(bodies, overrides, params)?;
        self.ensure_bind_groups();
        let mut enc = self.encoder("tumble.swept_aabb");
        self.encode_swept_aabb(&mut enc, n as u32, overrides.len() as u32);
        let src = self.boxes.buffer.clone();
        let out = self.submit_and_read(
            enc,
            &[Readback {
                src: &src,
                bytes: n as u64 * size_of::<StageAabb>(),
            }],
        )?;
        Ok(bytemuck::pod_collect_to_vec(&out[0]))
    }

    fn broad_phase(
        &mut self,
        boxes: &[StageAabb],
        params: &FrameParams,
    ) -> Result<Vec<[u32; 2]>, StageError> {
        let n = boxes.len();
        if n < 2 {
            return Ok(Vec::new());
        }
        self.reserve(n, 0)?;
        self.ctx
            .queue
            .write_buffer(&self.boxes.buffer, 0, bytemuck::cast_slice(boxes));
        loop {
            self.write_params(params, n, 0);
            self.ensure_bind_groups();
            let mut enc = self.encoder("tumble.broad_phase");
            self.encode_broad_phase(&mut enc, n as u32, false);
            let (bump, pairs) = (self.bump.buffer.clone(), self.pairs.buffer.clone());
            let cap = u64::from(self.pair_capacity);
            let out = self.submit_and_read(
                enc,
                &[
                    Readback {
                        src: &bump,
                        bytes: size_of::<Bump>(),
                    },
                    Readback {
                        src: &pairs,
                        bytes: cap * 8,
                    },
                ],
            )?;
            let b = bump_of(&out[0]);
            if b.pairs > self.pair_capacity {
                self.overflow_reruns += 1;
                self.grow_pairs(b.pairs)?;
                continue;
            }
            let mut result: Vec<[u32; 2]> =
                bytemuck::pod_collect_to_vec(&out[1][..b.pairs as usize * 8]);
            result.sort_unstable();
            return Ok(result);
        }
    }

    fn pair_bounds(
        &mut self,
        bodies: &[StageBody],
        pairs: &[[u32; 2]],
        params: &FrameParams,
    ) -> Result<Vec<PairBound>, StageError> {
        let m = pairs.len();
        if m == 0 {
            return Ok(Vec::new());
        }
        self.reserve(bodies.len(), 0)?;
        if m as u64 > u64::from(self.pair_capacity) {
            self.grow_pairs(m as u32)?;
        }
        self.write_params(params, bodies.len(), 0);
        let q = &self.ctx.queue;
        q.write_buffer(&self.bodies.buffer, 0, bytemuck::cast_slice(bodies));
        q.write_buffer(&self.pairs.buffer, 0, bytemuck::cast_slice(pairs));
        let bump = Bump {
            pairs: m as u32,
            ..Default::default()
        };
        q.write_buffer(&self.bump.buffer, 0, bytemuck::bytes_of(&bump));
        self.ensure_bind_groups();
        let mut enc = self.encoder("tumble.pair_bounds");
        {
            let bg = &self.bgs().pair_bounds;
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("tumble.pair_bounds"),
                timestamp_writes: None,
            });
            pass.set_pipeline(self.pair_bounds.pipeline("pair_bounds"));
            pass.set_bind_group(0, bg, &[]);
            dispatch_threads(&mut pass, m as u32, WG_SIZE);
        }
        let src = self.bounds.buffer.clone();
        let out = self.submit_and_read(
            enc,
            &[Readback {
                src: &src,
                bytes: m as u64 * size_of::<PairBound>(),
            }],
        )?;
        Ok(bytemuck::pod_collect_to_vec(&out[0]))
    }

    fn frame(
        &mut self,
        bodies: &[StageBody],
        overrides: &[BoxOverride],
        params: &FrameParams,
    ) -> Result<FrameOutput, StageError> {
        let n = bodies.len();
        if n == 0 {
            return Ok(FrameOutput::default());
        }
        self.upload_bodies(bodies, overrides, params)?;
        self.ensure_bind_groups();
        let mut enc = self.encoder("tumble.frame");
        if n < 2 {
            // No pairs possible: the bump stays zero.
            enc.clear_buffer(&self.bump.buffer, 0, None);
        }
        self.encode_swept_aabb(&mut enc, n as u32, overrides.len() as u32);
        if n >= 2 {
            self.encode_broad_phase(&mut enc, n as u32, true);
        }
        let (b_boxes, b_bump, b_bounds) = (
            self.boxes.buffer.clone(),
            self.bump.buffer.clone(),
            self.bounds.buffer.clone(),
        );
        let cap = u64::from(self.pair_capacity);
        let out = self.submit_and_read(
            enc,
            &[
                Readback {
                    src: &b_boxes,
                    bytes: n as u64 * size_of::<StageAabb>(),
                },
                Readback {
                    src: &b_bump,
                    bytes: size_of::<Bump>(),
                },
                Readback {
                    src: &b_bounds,
                    bytes: cap * size_of::<PairBound>(),
                },
            ],
        )?;
        let boxes: Vec<StageAabb> = bytemuck::pod_collect_to_vec(&out[0]);
        let bump = bump_of(&out[1]);
        if bump.pairs <= self.pair_capacity {
            let bounds = sorted_bounds(&out[2], bump.pairs as usize);
            return Ok(FrameOutput { boxes, bounds });
        }
        // Overflow: the boxes are still on the device; grow and redo broad phase + bounds.
        self.overflow_reruns += 1;
        self.grow_pairs(bump.pairs)?;
        self.write_params(params, n, overrides.len());
        self.ensure_bind_groups();
        let mut enc = self.encoder("tumble.frame.rerun");
        self.encode_broad_phase(&mut enc, n as u32, true);
        let (b_bump, b_bounds) = (self.bump.buffer.clone(), self.bounds.buffer.clone());
        let cap = u64::from(self.pair_capacity);
        let out = self.submit_and_read(
            enc,
            &[
                Readback {
                    src: &b_bump,
                    bytes: size_of::<Bump>(),
                },
                Readback {
                    src: &b_bounds,
                    bytes: cap * size_of::<PairBound>(),
                },
            ],
        )?;
        let bump = bump_of(&out[0]);
        if bump.pairs > self.pair_capacity {
            return Err(StageError::Readback(format!(
                "pair count changed between identical runs ({} > {})",
                bump.pairs, self.pair_capacity
            )));
        }
        Ok(FrameOutput {
            boxes,
            bounds: sorted_bounds(&out[1], bump.pairs as usize),
        })
    }
}
