//! The device buffers: [`GrowBuffer`], a storage buffer grown (never shrunk) when a frame needs
//! more, the sizes [`GpuStages`] reserves for a frame, the pair buffers' growth on overflow, the
//! bind groups rebuilt after a buffer grew, and the upload of bodies and frame parameters.

use super::encode::WIDE_WG;
use super::pipeline::Stage;
use super::sort::{sort_len, sort_steps, SortParams};
use super::GpuStages;
use crate::stages::broad_phase::SortEntry;
use crate::stages::{
    BoxOverride, BroadPhaseStats, Bump, FrameParams, PairBound, StageAabb, StageBody, StageError,
};
use std::num::NonZeroU64;

/// A storage buffer that grows (to at least twice its size) when a frame needs more.
pub(super) struct GrowBuffer {
    pub(super) buffer: wgpu::Buffer,
    pub(super) label: &'static str,
    pub(super) usage: wgpu::BufferUsages,
}

impl GrowBuffer {
    pub(super) fn new(
        device: &wgpu::Device,
        label: &'static str,
        usage: wgpu::BufferUsages,
        size: u64,
    ) -> Self {
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: size.max(256).next_multiple_of(256),
            usage,
            mapped_at_creation: false,
        });
        GrowBuffer {
            buffer,
            label,
            usage,
        }
    }

    /// Makes room for `size` bytes; returns whether the buffer was replaced.
    pub(super) fn ensure(
        &mut self,
        device: &wgpu::Device,
        size: u64,
        limit: u64,
    ) -> Result<bool, StageError> {
        if size <= self.buffer.size() {
            return Ok(false);
        }
        if size > limit {
            return Err(StageError::TooLarge {
                what: self.label,
                bytes: size,
                limit,
            });
        }
        let grown = (self.buffer.size() * 2).max(size).min(limit);
        *self = GrowBuffer::new(device, self.label, self.usage, grown);
        Ok(true)
    }
}

/// Bind groups over the current buffers; dropped whenever a buffer grows.
pub(super) struct BindGroups {
    pub(super) swept_aabb: wgpu::BindGroup,
    pub(super) broad_phase: wgpu::BindGroup,
    pub(super) pair_bounds: wgpu::BindGroup,
}

impl GpuStages {
    /// Sizes every buffer for `n` bodies, `overrides` host boxes and the current pair capacity.
    pub(super) fn reserve(&mut self, n: usize, overrides: usize) -> Result<(), StageError> {
        if self.pair_capacity == 0 {
            self.pair_capacity = (4 * n as u32).max(1024);
        }
        let n64 = n as u64;
        let sort_len = u64::from(sort_len(n as u32));
        let steps = 1 + sort_steps(sort_len as u32).len() as u64;
        let cap = u64::from(self.pair_capacity);
        let device = &self.ctx.device;
        let limit = self.limit;
        let mut grew = false;
        grew |= self
            .sort_params
            .ensure(device, steps * self.uniform_align, limit)?;
        grew |= self
            .bodies
            .ensure(device, n64 * size_of::<StageBody>(), limit)?;
        grew |=
            self.overrides
                .ensure(device, overrides as u64 * size_of::<BoxOverride>(), limit)?;
        grew |= self
            .boxes
            .ensure(device, n64 * size_of::<StageAabb>(), limit)?;
        let stats_len = 1 + n64.div_ceil(u64::from(WIDE_WG));
        grew |= self
            .stats
            .ensure(device, stats_len * size_of::<BroadPhaseStats>(), limit)?;
        grew |= self
            .sorted
            .ensure(device, sort_len * size_of::<SortEntry>(), limit)?;
        grew |= self
            .sorted_boxes
            .ensure(device, n64 * size_of::<StageAabb>(), limit)?;
        grew |= self.pairs.ensure(device, cap * 8, limit)?;
        grew |= self
            .bounds
            .ensure(device, cap * size_of::<PairBound>(), limit)?;
        if grew {
            self.bind_groups = None;
        }
        Ok(())
    }

    /// Builds the bind groups if a buffer grew since they were last built.
    pub(super) fn ensure_bind_groups(&mut self) {
        if self.bind_groups.is_none() {
            let device = &self.ctx.device;
            let make = |stage: &Stage, name: &str, resources: &[wgpu::BindingResource]| {
                let entries: Vec<wgpu::BindGroupEntry> = resources
                    .iter()
                    .enumerate()
                    .map(|(i, r)| wgpu::BindGroupEntry {
                        binding: i as u32,
                        resource: r.clone(),
                    })
                    .collect();
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some(name),
                    layout: &stage.layout,
                    entries: &entries,
                })
            };
            let params = self.params.as_entire_binding();
            let sort = wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &self.sort_params.buffer,
                offset: 0,
                size: NonZeroU64::new(size_of::<SortParams>()),
            });
            let bump_view = wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &self.bump.buffer,
                offset: 0,
                size: NonZeroU64::new(size_of::<Bump>()),
            });
            self.bind_groups = Some(BindGroups {
                swept_aabb: make(
                    &self.swept_aabb,
                    "tumble.swept_aabb",
                    &[
                        params.clone(),
                        self.bodies.buffer.as_entire_binding(),
                        self.overrides.buffer.as_entire_binding(),
                        self.boxes.buffer.as_entire_binding(),
                    ],
                ),
                broad_phase: make(
                    &self.broad_phase,
                    "tumble.broad_phase",
                    &[
                        params.clone(),
                        sort,
                        self.boxes.buffer.as_entire_binding(),
                        bump_view.clone(),
                        self.stats.buffer.as_entire_binding(),
                        self.sorted.buffer.as_entire_binding(),
                        self.sorted_boxes.buffer.as_entire_binding(),
                        self.pairs.buffer.as_entire_binding(),
                        self.pair_dispatch.buffer.as_entire_binding(),
                    ],
                ),
                pair_bounds: make(
                    &self.pair_bounds,
                    "tumble.pair_bounds",
                    &[
                        params,
                        self.bodies.buffer.as_entire_binding(),
                        self.pairs.buffer.as_entire_binding(),
                        bump_view,
                        self.bounds.buffer.as_entire_binding(),
                    ],
                ),
            });
        }
    }

    pub(super) fn bgs(&self) -> &BindGroups {
        self.bind_groups
            .as_ref()
            .expect("ensure_bind_groups before encoding")
    }

    /// Uploads the frame constants with the counts this call uses.
    /// Sizes the buffers for `bodies` and `overrides`, then uploads them with the frame
    /// parameters: the common start of the body stages and of the whole frame.
    pub(super) fn upload_bodies(
        &mut self,
        bodies: &[StageBody],
        overrides: &[BoxOverride],
        params: &FrameParams,
    ) -> Result<(), StageError> {
        let n = bodies.len();
        self.reserve(n, overrides.len())?;
        self.write_params(params, n, overrides.len());
        let q = &self.ctx.queue;
        q.write_buffer(&self.bodies.buffer, 0, bytemuck::cast_slice(bodies));
        if !overrides.is_empty() {
            q.write_buffer(&self.overrides.buffer, 0, bytemuck::cast_slice(overrides));
        }
        Ok(())
    }

    pub(super) fn write_params(&self, params: &FrameParams, n: usize, overrides: usize) {
        let mut p = *params;
        p.body_count = n as u32;
        p.pair_capacity = self.pair_capacity;
        p.override_count = overrides as u32;
        self.ctx
            .queue
            .write_buffer(&self.params, 0, bytemuck::bytes_of(&p));
    }

    /// Grows the pair buffers to hold `needed` pairs (plus a quarter, so slowly growing scenes do
    /// not overflow every frame).
    pub(super) fn grow_pairs(&mut self, needed: u32) -> Result<(), StageError> {
        self.pair_capacity = needed.saturating_add(needed / 4).max(self.pair_capacity);
        let cap = u64::from(self.pair_capacity);
        let device = &self.ctx.device;
        let mut grew = self.pairs.ensure(device, cap * 8, self.limit)?;
        grew |= self
            .bounds
            .ensure(device, cap * size_of::<PairBound>(), self.limit)?;
        if grew {
            self.bind_groups = None;
        }
        Ok(())
    }
}

pub(super) fn size_of<T>() -> u64 {
    std::mem::size_of::<T>() as u64
}

/// A bind group of a solver stage (`contact_sweep`, `collision_round`): `uniform` at binding 0,
/// one 16-byte slot of `passes` at a dynamic offset at binding 1 (which colour, or phase, a
/// dispatch sweeps), and `storage` whole at bindings 2, 3, … in order.
pub(super) fn solver_bind_group(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    uniform: &wgpu::Buffer,
    passes: &GrowBuffer,
    storage: &[&GrowBuffer],
) -> wgpu::BindGroup {
    let mut entries = vec![
        wgpu::BindGroupEntry {
            binding: 0,
            resource: uniform.as_entire_binding(),
        },
        wgpu::BindGroupEntry {
            binding: 1,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &passes.buffer,
                offset: 0,
                size: NonZeroU64::new(16),
            }),
        },
    ];
    entries.extend(
        storage
            .iter()
            .enumerate()
            .map(|(k, b)| wgpu::BindGroupEntry {
                binding: 2 + k as u32,
                resource: b.buffer.as_entire_binding(),
            }),
    );
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout,
        entries: &entries,
    })
}

/// The bytes of a solver stage's dispatch slots: slot `k` (at `k·align`) holds `words(k)`, the
/// rest of it zeros.
pub(super) fn pass_slots(slots: usize, align: u64, words: impl Fn(usize) -> [u32; 2]) -> Vec<u8> {
    let mut bytes = vec![0u8; slots * align as usize];
    for k in 0..slots {
        let at = k * align as usize;
        let [x, y] = words(k);
        bytes[at..at + 4].copy_from_slice(&x.to_le_bytes());
        bytes[at + 4..at + 8].copy_from_slice(&y.to_le_bytes());
    }
    bytes
}
