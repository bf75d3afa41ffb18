//! The frame stages and the contact step's sweeps on a GPU through wgpu: headless device setup ([`GpuContext`]) and
//! [`GpuStages`], which runs `shaders/<stage>.wgsl` with the same methods as the CPU twins
//! ([`crate::stages::CpuStages`]) behind [`FrameStages`](crate::stages::FrameStages).
//!
//! Pipelines are built once; buffers are sized on first use and grown (never shrunk) when a frame
//! needs more; bind groups are rebuilt only after a buffer grew.
//! [`FrameStages::frame`](crate::stages::FrameStages::frame) runs all three stages with one upload
//! and one readback; only when the candidate pairs overflow the pair buffer does it grow the
//! buffer and re-run the broad phase and the pair bounds (the bump counter keeps counting past the
//! capacity, so one re-run always suffices).
//!
//! Adapter choice: Vulkan, Metal or DX12; `TUMBLE_ADAPTER=<substring>` picks the first adapter
//! whose name contains it (case-insensitive); otherwise a discrete GPU beats an integrated one, a
//! virtual one and a CPU implementation (Mesa's lavapipe/llvmpipe is accepted, so the comparison
//! tests run in CI without a GPU). `--backend auto` looks at the same adapter (`TUMBLE_ADAPTER`
//! steers it too) and takes it only if it is a discrete or integrated GPU ([`auto`]).
//!
//! # Where it lives
//! - `device`: the headless device ([`GpuContext`]) and why one could not be opened;
//! - `pipeline`: each shader's pipelines and bind group layout, built once in
//!   [`GpuStages::with_context`] (here, with the initial buffers);
//! - `buffers`: the storage buffers, grown on demand, and the bind groups over them (built
//!   against `pipeline`'s layouts: buffers imports pipeline, never the reverse);
//! - `sort`: the broad phase's bitonic-sort step list and its per-step parameters;
//! - `encode`: workgroup sizes and the compute passes each stage records;
//! - `readback`: submitting a frame and copying results back through the staging buffer;
//! - `frame_stages`: [`GpuStages`] as `FrameStages`: each stage, and the whole frame;
//! - `contact_sweep`: [`GpuStages`] as `ContactSweeps`: a contact step's coloured sweeps
//!   (`shaders/contact_sweep.wgsl`), one submission and one readback per step;
//! - `collision_round`: [`GpuStages`] as `CollisionRounds`: a jammed island's collision round
//!   (`shaders/collision_round.wgsl`), one submission and one readback per round;
//! - [`select`](mod@select): which backend a command runs on, and [`auto`]: the rule `auto`
//!   picks by and its quiet look for a device; [`shader`]: the WGSL sources.

pub mod auto;
mod buffers;
mod collision_round;
mod contact_sweep;
mod device;
mod encode;
mod frame_stages;
mod pipeline;
mod readback;
pub mod select;
pub mod shader;
mod sort;

pub use auto::{auto_choice, AutoChoice, Found, AUTO_GPU_MIN_BODIES};
pub use device::{GpuContext, GpuError};
pub use encode::{dispatch_size, WG_SIZE};
pub use select::{select, Backend, BackendKind, SelectError, Selection, SharedGpuStages};
pub use sort::SortParams;

use crate::stages::{FrameParams, StageError};
use buffers::{BindGroups, GrowBuffer};
use pipeline::Stage;

/// The frame stages on a GPU. See the module docs.
pub struct GpuStages {
    ctx: GpuContext,
    limit: u64,
    uniform_align: u64,
    swept_aabb: Stage,
    broad_phase: Stage,
    pair_bounds: Stage,
    params: wgpu::Buffer,
    sort_params: GrowBuffer,
    bodies: GrowBuffer,
    overrides: GrowBuffer,
    boxes: GrowBuffer,
    bump: GrowBuffer,
    stats: GrowBuffer,
    sorted: GrowBuffer,
    sorted_boxes: GrowBuffer,
    pairs: GrowBuffer,
    pair_dispatch: GrowBuffer,
    bounds: GrowBuffer,
    staging: GrowBuffer,
    bind_groups: Option<BindGroups>,
    pair_capacity: u32,
    overflow_reruns: u64,
    /// The contact step's sweeps, built when a step first asks (`contact_sweep`).
    sweeps: Option<contact_sweep::SweepState>,
    /// The jammed islands' collision rounds, built when a step first asks (`collision_round`).
    rounds: Option<collision_round::RoundState>,
}

impl GpuStages {
    /// Opens a device ([`GpuContext::new`]) and builds the stages on it.
    pub fn new() -> Result<GpuStages, GpuError> {
        GpuStages::with_context(GpuContext::new()?)
    }

    /// Builds the pipelines and the initial (small) buffers on `ctx`.
    pub fn with_context(ctx: GpuContext) -> Result<GpuStages, GpuError> {
        let device = &ctx.device;
        let limits = device.limits();
        let limit = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        let uniform_align = u64::from(limits.min_uniform_buffer_offset_alignment);
        use wgpu::BufferUsages as U;
        let storage = U::STORAGE | U::COPY_DST | U::COPY_SRC;
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("tumble.params"),
            size: std::mem::size_of::<FrameParams>() as u64,
            usage: U::UNIFORM | U::COPY_DST,
            mapped_at_creation: false,
        });
        let grow = |label, usage| GrowBuffer::new(device, label, usage, 256);
        Ok(GpuStages {
            limit,
            uniform_align,
            swept_aabb: Stage::swept_aabb(device)?,
            broad_phase: Stage::broad_phase(device)?,
            pair_bounds: Stage::pair_bounds(device)?,
            params,
            sort_params: grow("tumble.sort_params", U::UNIFORM | U::COPY_DST),
            bodies: grow("tumble.bodies", storage),
            overrides: grow("tumble.overrides", storage),
            boxes: grow("tumble.boxes", storage),
            bump: grow("tumble.bump", storage),
            stats: grow("tumble.stats", storage),
            sorted: grow("tumble.sorted", storage),
            sorted_boxes: grow("tumble.sorted_boxes", storage),
            pairs: grow("tumble.pairs", storage),
            pair_dispatch: grow("tumble.pair_dispatch", storage | U::INDIRECT),
            bounds: grow("tumble.bounds", storage),
            staging: grow("tumble.staging", U::MAP_READ | U::COPY_DST),
            bind_groups: None,
            pair_capacity: 0,
            overflow_reruns: 0,
            sweeps: None,
            rounds: None,
            ctx,
        })
    }

    /// The device this runs on.
    pub fn context(&self) -> &GpuContext {
        &self.ctx
    }

    /// Current capacity of the candidate-pair buffer (0 until first sized).
    pub fn pair_capacity(&self) -> u32 {
        self.pair_capacity
    }

    /// Sets the pair buffer's capacity (at least 1). Later frames grow it again when needed; tests
    /// use a tiny capacity to exercise the overflow path.
    pub fn set_pair_capacity(&mut self, capacity: u32) -> Result<(), StageError> {
        self.pair_capacity = capacity.max(1);
        let device = &self.ctx.device;
        self.pairs = GrowBuffer::new(
            device,
            "tumble.pairs",
            self.pairs.usage,
            8 * u64::from(self.pair_capacity),
        );
        self.bounds = GrowBuffer::new(
            device,
            "tumble.bounds",
            self.bounds.usage,
            16 * u64::from(self.pair_capacity),
        );
        self.bind_groups = None;
        Ok(())
    }

    /// How many times a broad phase overflowed its pair buffer and was re-run.
    pub fn overflow_reruns(&self) -> u64 {
        self.overflow_reruns
    }
}
