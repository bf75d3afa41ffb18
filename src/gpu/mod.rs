//! The frame stages on a GPU through wgpu: headless device setup ([`GpuContext`]) and
//! [`GpuStages`], which runs `shaders/<stage>.wgsl` with the same methods as the CPU twins
//! ([`crate::stages::CpuStages`]) behind [`FrameStages`].
//!
//! Pipelines are built once; buffers are sized on first use and grown (never shrunk) when a frame
//! needs more; bind groups are rebuilt only after a buffer grew. [`FrameStages::frame`] runs all
//! four stages with one upload and one readback; only when the candidate pairs overflow the pair
//! buffer does it grow the buffer and re-run the broad phase and the pair bounds (the bump counter
//! keeps counting past the capacity, so one re-run always suffices).
//!
//! Adapter choice: Vulkan, Metal or DX12; `TUMBLE_ADAPTER=<substring>` picks the first adapter
//! whose name contains it (case-insensitive); otherwise a discrete GPU beats an integrated one, a
//! virtual one and a CPU implementation (Mesa's lavapipe/llvmpipe is accepted, so the comparison
//! tests run in CI without a GPU).

pub mod select;
pub mod shader;

pub use select::{select, Backend, BackendKind, SelectError, Selection, SharedGpuStages};

use crate::stages::broad_phase::SortEntry;

use crate::stages::{
    Aabb, BoxOverride, BroadPhaseStats, Bump, FrameOutput, FrameParams, FrameStages, PairBound,
    StageBody, StageError,
};
use bytemuck::{Pod, Zeroable};
use std::num::NonZeroU64;
use std::sync::mpsc;

/// Threads per workgroup of the per-item passes. Keep in sync with `WG_SIZE` in
/// `shaders/shared/dispatch.wgsl`.
pub const WG_SIZE: u32 = 64;
/// Threads per workgroup of the broad phase's reduction and block-sort passes (`REDUCE_WG`,
/// `SORT_WG` in `shaders/broad_phase.wgsl`).
const WIDE_WG: u32 = 256;
/// Elements sorted in workgroup memory by one block-sort workgroup (`SORT_BLOCK`).
const SORT_BLOCK: u32 = 512;
/// The per-dimension workgroup limit WebGPU guarantees.
const MAX_GROUPS: u32 = 65_535;

/// One bitonic-sort step, bound at a dynamic offset. 16 bytes. Keep in sync with `SortParams` in
/// `shaders/broad_phase.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SortParams {
    /// Bitonic stage (size of the sequences being merged); 0 for the non-sort passes.
    pub k: u32,
    /// Compare distance within the stage.
    pub j: u32,
    /// Number of sorted slots (a power of two ≥ 512).
    pub len: u32,
    /// Padding.
    pub pad: u32,
}

/// Workgroups (x, y) for `groups` workgroups: at most 65 535 along x, the rest folded into y
/// (the shaders' `thread_index` unfolds it). Keep in sync with `shaders/shared/dispatch.wgsl`.
pub fn dispatch_size(groups: u32) -> (u32, u32) {
    let x = groups.min(MAX_GROUPS);
    (x, if x == 0 { 0 } else { groups.div_ceil(x) })
}

/// Failure to set up a device.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// No adapter (or none matching `TUMBLE_ADAPTER`).
    #[error("no GPU adapter{}; available: [{}]", .wanted.as_ref().map(|w| format!(" matching \"{w}\"")).unwrap_or_default(), .available.join(", "))]
    NoAdapter {
        /// The `TUMBLE_ADAPTER` filter, if set.
        wanted: Option<String>,
        /// Names of the adapters found.
        available: Vec<String>,
    },
    /// The adapter refused to create a device.
    #[error("request_device failed: {0}")]
    Device(#[from] wgpu::RequestDeviceError),
    /// A shader's import could not be resolved.
    #[error(transparent)]
    Shader(#[from] shader::ShaderError),
}

/// A headless wgpu device and queue.
pub struct GpuContext {
    /// The adapter the device was created on.
    pub adapter: wgpu::Adapter,
    /// The device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// Adapter name, backend and type, for reports.
    pub info: wgpu::AdapterInfo,
}

impl GpuContext {
    /// Opens a device on the best adapter (see the module docs for the choice and
    /// `TUMBLE_ADAPTER`). Requests the adapter's own limits so large scenes fit.
    pub fn new() -> Result<GpuContext, GpuError> {
        let backends = wgpu::Backends::VULKAN | wgpu::Backends::METAL | wgpu::Backends::DX12;
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = backends;
        let instance = wgpu::Instance::new(desc);
        let adapters = pollster::block_on(instance.enumerate_adapters(backends));
        let wanted = std::env::var("TUMBLE_ADAPTER")
            .ok()
            .filter(|w| !w.is_empty());
        let available: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
        let rank = |t: wgpu::DeviceType| match t {
            wgpu::DeviceType::DiscreteGpu => 0,
            wgpu::DeviceType::IntegratedGpu => 1,
            wgpu::DeviceType::VirtualGpu => 2,
            wgpu::DeviceType::Cpu => 3,
            wgpu::DeviceType::Other => 4,
        };
        let adapter = adapters
            .into_iter()
            .filter(|a| match &wanted {
                Some(w) => a.get_info().name.to_lowercase().contains(&w.to_lowercase()),
                None => true,
            })
            .min_by_key(|a| rank(a.get_info().device_type))
            .ok_or(GpuError::NoAdapter { wanted, available })?;
        let info = adapter.get_info();
        let (device, queue) =
            pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
                label: Some("tumble"),
                required_features: wgpu::Features::empty(),
                required_limits: adapter.limits(),
                ..Default::default()
            }))?;
        Ok(GpuContext {
            adapter,
            device,
            queue,
            info,
        })
    }

    /// `"<name> (<backend>, <type>)"`, e.g. `"llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan, Cpu)"`.
    pub fn adapter_name(&self) -> String {
        format!(
            "{} ({:?}, {:?})",
            self.info.name, self.info.backend, self.info.device_type
        )
    }
}

/// A storage buffer that grows (to at least twice its size) when a frame needs more.
struct GrowBuffer {
    buffer: wgpu::Buffer,
    label: &'static str,
    usage: wgpu::BufferUsages,
}

impl GrowBuffer {
    fn new(
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
    fn ensure(&mut self, device: &wgpu::Device, size: u64, limit: u64) -> Result<bool, StageError> {
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

/// The pipelines of one `.wgsl` file, sharing one bind group layout (all its bindings).
struct Stage {
    layout: wgpu::BindGroupLayout,
    pipelines: Vec<(&'static str, wgpu::ComputePipeline)>,
}

impl Stage {
    fn new(
        device: &wgpu::Device,
        name: &'static str,
        entries: &[wgpu::BindGroupLayoutEntry],
        entry_points: &[&'static str],
    ) -> Result<Stage, GpuError> {
        let source = shader::stage_source(name)?;
        let label = format!("tumble.{name}");
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(&label),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(&label),
            entries,
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(&label),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipelines = entry_points
            .iter()
            .map(|ep| {
                let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(&format!("tumble.{ep}")),
                    layout: Some(&pipeline_layout),
                    module: &module,
                    entry_point: Some(ep),
                    compilation_options: Default::default(),
                    cache: None,
                });
                (*ep, pipeline)
            })
            .collect();
        Ok(Stage { layout, pipelines })
    }

    fn pipeline(&self, entry_point: &str) -> &wgpu::ComputePipeline {
        &self
            .pipelines
            .iter()
            .find(|(ep, _)| *ep == entry_point)
            .expect("pipeline built at start-up")
            .1
    }
}

fn uniform_entry(binding: u32, dynamic: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: dynamic,
            min_binding_size: None,
        },
        count: None,
    }
}

fn storage_entry(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// The step list of a bitonic sort of `len` slots: the block sort, then per stage k > 512 the
/// global steps j ≥ 512 and one workgroup-memory merge. Entry 0 (k = j = 0) serves every other
/// broad-phase pass.
#[derive(Clone, Copy, Debug, PartialEq)]
enum SortStep {
    Global { k: u32, j: u32 },
    Merge { k: u32 },
}

fn sort_steps(len: u32) -> Vec<SortStep> {
    let mut steps = Vec::new();
    let mut k = SORT_BLOCK * 2;
    while k <= len {
        let mut j = k / 2;
        while j >= SORT_BLOCK {
            steps.push(SortStep::Global { k, j });
            j /= 2;
        }
        steps.push(SortStep::Merge { k });
        k *= 2;
    }
    steps
}

/// Bind groups over the current buffers; dropped whenever a buffer grows.
struct BindGroups {
    integrate: wgpu::BindGroup,
    swept_aabb: wgpu::BindGroup,
    broad_phase: wgpu::BindGroup,
    pair_bounds: wgpu::BindGroup,
}

/// The frame stages on a GPU. See the module docs.
pub struct GpuStages {
    ctx: GpuContext,
    limit: u64,
    uniform_align: u64,
    integrate: Stage,
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
}

/// Where one readback copy lands in the staging buffer.
struct Readback<'a> {
    src: &'a wgpu::Buffer,
    bytes: u64,
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
        let integrate = Stage::new(
            device,
            "integrate",
            &[uniform_entry(0, false), storage_entry(1, false)],
            &["integrate"],
        )?;
        let swept_aabb = Stage::new(
            device,
            "swept_aabb",
            &[
                uniform_entry(0, false),
                storage_entry(1, true),
                storage_entry(2, true),
                storage_entry(3, false),
            ],
            &["swept_aabb", "swept_aabb_override"],
        )?;
        let broad_phase = Stage::new(
            device,
            "broad_phase",
            &[
                uniform_entry(0, false),
                uniform_entry(1, true),
                storage_entry(2, true),
                storage_entry(3, false),
                storage_entry(4, false),
                storage_entry(5, false),
                storage_entry(6, false),
                storage_entry(7, false),
                storage_entry(8, false),
            ],
            &[
                "broad_phase_reduce",
                "broad_phase_setup",
                "broad_phase_classify",
                "broad_phase_sort_local",
                "broad_phase_sort_global",
                "broad_phase_sort_merge",
                "broad_phase_gather",
                "broad_phase_sweep",
                "broad_phase_large",
                "broad_phase_finish",
            ],
        )?;
        let pair_bounds = Stage::new(
            device,
            "pair_bounds",
            &[
                uniform_entry(0, false),
                storage_entry(1, true),
                storage_entry(2, true),
                storage_entry(3, true),
                storage_entry(4, false),
            ],
            &["pair_bounds"],
        )?;
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
            integrate,
            swept_aabb,
            broad_phase,
            pair_bounds,
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

    /// Sizes every buffer for `n` bodies, `overrides` host boxes and the current pair capacity.
    fn reserve(&mut self, n: usize, overrides: usize) -> Result<(), StageError> {
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
        grew |= self.boxes.ensure(device, n64 * size_of::<Aabb>(), limit)?;
        let stats_len = 1 + n64.div_ceil(u64::from(WIDE_WG));
        grew |= self
            .stats
            .ensure(device, stats_len * size_of::<BroadPhaseStats>(), limit)?;
        grew |= self
            .sorted
            .ensure(device, sort_len * size_of::<SortEntry>(), limit)?;
        grew |= self
            .sorted_boxes
            .ensure(device, n64 * size_of::<Aabb>(), limit)?;
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
    fn ensure_bind_groups(&mut self) {
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
                integrate: make(
                    &self.integrate,
                    "tumble.integrate",
                    &[params.clone(), self.bodies.buffer.as_entire_binding()],
                ),
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

    fn bgs(&self) -> &BindGroups {
        self.bind_groups
            .as_ref()
            .expect("ensure_bind_groups before encoding")
    }

    /// Uploads the frame constants with the counts this call uses.
    /// Sizes the buffers for `bodies` and `overrides`, then uploads them with the frame
    /// parameters: the common start of the body stages and of the whole frame.
    fn upload_bodies(
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

    fn write_params(&self, params: &FrameParams, n: usize, overrides: usize) {
        let mut p = *params;
        p.body_count = n as u32;
        p.pair_capacity = self.pair_capacity;
        p.override_count = overrides as u32;
        self.ctx
            .queue
            .write_buffer(&self.params, 0, bytemuck::bytes_of(&p));
    }

    /// Uploads the sort step list for `n` boxes; returns it with its dynamic offsets.
    fn write_sort_params(&self, n: u32) -> (u32, Vec<(SortStep, u32)>) {
        let len = sort_len(n);
        let align = self.uniform_align as usize;
        let steps = sort_steps(len);
        let mut bytes = vec![0u8; (1 + steps.len()) * align];
        let entry = |k, j| SortParams { k, j, len, pad: 0 };
        bytes[..16].copy_from_slice(bytemuck::bytes_of(&entry(0, 0)));
        let mut out = Vec::with_capacity(steps.len());
        for (i, step) in steps.iter().enumerate() {
            let at = (i + 1) * align;
            let e = match *step {
                SortStep::Global { k, j } => entry(k, j),
                SortStep::Merge { k } => entry(k, 0),
            };
            bytes[at..at + 16].copy_from_slice(bytemuck::bytes_of(&e));
            out.push((*step, at as u32));
        }
        self.ctx
            .queue
            .write_buffer(&self.sort_params.buffer, 0, &bytes);
        (len, out)
    }

    fn encoder(&self, label: &str) -> wgpu::CommandEncoder {
        self.ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) })
    }

    fn encode_integrate(&self, enc: &mut wgpu::CommandEncoder, n: u32) {
        let bg = &self.bgs().integrate;
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("tumble.integrate"),
            timestamp_writes: None,
        });
        pass.set_pipeline(self.integrate.pipeline("integrate"));
        pass.set_bind_group(0, bg, &[]);
        dispatch_threads(&mut pass, n, WG_SIZE);
    }

    fn encode_swept_aabb(&self, enc: &mut wgpu::CommandEncoder, n: u32, overrides: u32) {
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
    fn encode_broad_phase(&self, enc: &mut wgpu::CommandEncoder, n: u32, with_bounds: bool) {
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

    /// Copies each source into the staging buffer, submits `enc`, waits, and returns the bytes.
    fn submit_and_read(
        &mut self,
        mut enc: wgpu::CommandEncoder,
        copies: &[Readback],
    ) -> Result<Vec<Vec<u8>>, StageError> {
        let mut offsets = Vec::with_capacity(copies.len());
        let mut total = 0u64;
        for c in copies {
            offsets.push(total);
            total += c.bytes.next_multiple_of(256);
        }
        let device = &self.ctx.device;
        // The staging buffer only ever needs the bytes of one readback; MAP_READ buffers have no
        // binding-size limit, so it is bounded by max_buffer_size alone.
        let staging_limit = device.limits().max_buffer_size;
        self.staging.ensure(device, total.max(4), staging_limit)?;
        for (c, &at) in copies.iter().zip(&offsets) {
            if c.bytes > 0 {
                enc.copy_buffer_to_buffer(c.src, 0, &self.staging.buffer, at, c.bytes);
            }
        }
        self.ctx.queue.submit([enc.finish()]);
        let total = total.max(4);
        let slice = self.staging.buffer.slice(..total);
        let (tx, rx) = mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| StageError::Readback(e.to_string()))?;
        rx.recv()
            .map_err(|e| StageError::Readback(e.to_string()))?
            .map_err(|e| StageError::Readback(e.to_string()))?;
        let out = {
            let view = slice
                .get_mapped_range()
                .map_err(|e| StageError::Readback(format!("{e:?}")))?;
            copies
                .iter()
                .zip(&offsets)
                .map(|(c, &at)| view[at as usize..(at + c.bytes) as usize].to_vec())
                .collect()
        };
        self.staging.buffer.unmap();
        Ok(out)
    }

    /// Grows the pair buffers to hold `needed` pairs (plus a quarter, so slowly growing scenes do
    /// not overflow every frame).
    fn grow_pairs(&mut self, needed: u32) -> Result<(), StageError> {
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

/// Slots sorted for `n` boxes: a power of two, at least one 512-element block.
fn sort_len(n: u32) -> u32 {
    n.next_power_of_two().max(SORT_BLOCK)
}

fn size_of<T>() -> u64 {
    std::mem::size_of::<T>() as u64
}

fn dispatch_groups(pass: &mut wgpu::ComputePass, groups: u32) {
    let (x, y) = dispatch_size(groups);
    if x > 0 {
        pass.dispatch_workgroups(x, y, 1);
    }
}

fn dispatch_threads(pass: &mut wgpu::ComputePass, threads: u32, wg: u32) {
    dispatch_groups(pass, threads.div_ceil(wg));
}

fn bump_of(bytes: &[u8]) -> Bump {
    bytemuck::pod_read_unaligned(&bytes[..std::mem::size_of::<Bump>()])
}

fn sorted_bounds(bytes: &[u8], count: usize) -> Vec<PairBound> {
    let mut bounds: Vec<PairBound> =
        bytemuck::pod_collect_to_vec(&bytes[..count * std::mem::size_of::<PairBound>()]);
    bounds.sort_unstable_by_key(|b| (b.a, b.b));
    bounds
}

impl FrameStages for GpuStages {
    fn name(&self) -> String {
        self.ctx.adapter_name()
    }

    fn integrate(
        &mut self,
        bodies: &mut [StageBody],
        params: &FrameParams,
    ) -> Result<(), StageError> {
        let n = bodies.len();
        if n == 0 {
            return Ok(());
        }
        self.upload_bodies(bodies, &[], params)?;
        self.ensure_bind_groups();
        let mut enc = self.encoder("tumble.integrate");
        self.encode_integrate(&mut enc, n as u32);
        let bytes = n as u64 * size_of::<StageBody>();
        let out = self.submit_and_read(
            enc,
            &[Readback {
                src: &self.bodies.buffer.clone(),
                bytes,
            }],
        )?;
        bodies.copy_from_slice(&bytemuck::pod_collect_to_vec::<u8, StageBody>(&out[0]));
        Ok(())
    }

    fn swept_aabb(
        &mut self,
        bodies: &[StageBody],
        overrides: &[BoxOverride],
        params: &FrameParams,
    ) -> Result<Vec<Aabb>, StageError> {
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
                bytes: n as u64 * size_of::<Aabb>(),
            }],
        )?;
        Ok(bytemuck::pod_collect_to_vec(&out[0]))
    }

    fn broad_phase(
        &mut self,
        boxes: &[Aabb],
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
        bodies: &mut [StageBody],
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
        self.encode_integrate(&mut enc, n as u32);
        self.encode_swept_aabb(&mut enc, n as u32, overrides.len() as u32);
        if n >= 2 {
            self.encode_broad_phase(&mut enc, n as u32, true);
        }
        let (b_bodies, b_boxes, b_bump, b_bounds) = (
            self.bodies.buffer.clone(),
            self.boxes.buffer.clone(),
            self.bump.buffer.clone(),
            self.bounds.buffer.clone(),
        );
        let cap = u64::from(self.pair_capacity);
        let out = self.submit_and_read(
            enc,
            &[
                Readback {
                    src: &b_bodies,
                    bytes: n as u64 * size_of::<StageBody>(),
                },
                Readback {
                    src: &b_boxes,
                    bytes: n as u64 * size_of::<Aabb>(),
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
        bodies.copy_from_slice(&bytemuck::pod_collect_to_vec::<u8, StageBody>(&out[0]));
        let boxes: Vec<Aabb> = bytemuck::pod_collect_to_vec(&out[1]);
        let bump = bump_of(&out[2]);
        if bump.pairs <= self.pair_capacity {
            let bounds = sorted_bounds(&out[3], bump.pairs as usize);
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
