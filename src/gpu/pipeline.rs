//! The compute pipelines: one [`Stage`] per `.wgsl` file (its entry points' pipelines and one
//! bind group layout over all its bindings), and [`GpuStages::with_context`], which builds the
//! four stages and the initial buffers.

use super::buffers::GrowBuffer;
use super::{shader, GpuContext, GpuError, GpuStages};
use crate::stages::FrameParams;

/// The pipelines of one `.wgsl` file, sharing one bind group layout (all its bindings).
pub(super) struct Stage {
    pub(super) layout: wgpu::BindGroupLayout,
    pub(super) pipelines: Vec<(&'static str, wgpu::ComputePipeline)>,
}

impl Stage {
    pub(super) fn new(
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

    pub(super) fn pipeline(&self, entry_point: &str) -> &wgpu::ComputePipeline {
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
}
