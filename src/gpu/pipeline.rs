//! The compute pipelines: one [`Stage`] per `.wgsl` file (its entry points' pipelines and one
//! bind group layout over all its bindings), with a constructor per shader that states its
//! bindings. The buffers and their bind groups (`buffers`) are built against these layouts, so
//! that module imports this one and not the reverse.

use super::{shader, GpuError};

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

impl Stage {
    /// `shaders/swept_aabb.wgsl`: params; bodies, overrides; boxes.
    pub(super) fn swept_aabb(device: &wgpu::Device) -> Result<Stage, GpuError> {
        Stage::new(
            device,
            "swept_aabb",
            &[
                uniform_entry(0, false),
                storage_entry(1, true),
                storage_entry(2, true),
                storage_entry(3, false),
            ],
            &["swept_aabb", "swept_aabb_override"],
        )
    }

    /// `shaders/broad_phase.wgsl`: params, the sort step's parameters (dynamic offset); boxes;
    /// bump, stats, sorted, sorted boxes, pairs, the pair bounds' indirect dispatch.
    pub(super) fn broad_phase(device: &wgpu::Device) -> Result<Stage, GpuError> {
        Stage::new(
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
        )
    }

    /// `shaders/pair_bounds.wgsl`: params; bodies, pairs, bump; bounds.
    pub(super) fn pair_bounds(device: &wgpu::Device) -> Result<Stage, GpuError> {
        Stage::new(
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
        )
    }

    /// `shaders/contact_sweep.wgsl`: params, the colour (dynamic offset); rows, patches,
    /// order, starts, moving, still, control.
    pub(super) fn contact_sweep(device: &wgpu::Device) -> Result<Stage, GpuError> {
        Stage::new(
            device,
            "contact_sweep",
            &[
                uniform_entry(0, false),
                uniform_entry(1, true),
                storage_entry(2, false),
                storage_entry(3, false),
                storage_entry(4, true),
                storage_entry(5, true),
                storage_entry(6, false),
                storage_entry(7, true),
                storage_entry(8, false),
            ],
            &["contact_sweep_colour", "contact_sweep_end"],
        )
    }
}
