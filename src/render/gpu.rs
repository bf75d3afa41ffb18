//! The wgpu side of `tumble render`: an offscreen 4× multisampled colour target, a depth
//! buffer and a shadow map; per picture a shadow pass and a shaded pass (`shade.wgsl`), then
//! the resolved picture copied back to the host as RGBA8 (sRGB).

use super::camera::View;
use super::geometry::{Instance, Vertex};
use crate::gpu::GpuContext;
use wgpu::util::DeviceExt;

/// Side of the square shadow map (texels).
const SHADOW_SIZE: u32 = 2048;
/// Samples per pixel of the colour target.
const SAMPLES: u32 = 4;
const COLOUR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// Background (linear rgb): a light grey-blue.
const CLEAR: wgpu::Color = wgpu::Color {
    r: 0.62,
    g: 0.68,
    b: 0.76,
    a: 1.0,
};

/// Why a picture could not be made.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// No device, or none could be opened (the device module's message says which, and what
    /// to install).
    #[error("cannot render: {0}")]
    Device(#[from] crate::gpu::GpuError),
    /// The device failed while rendering or reading back.
    #[error("rendering failed: {0}")]
    Failed(String),
}

/// The uniform block of `shade.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Globals {
    view_proj: [[f32; 4]; 4],
    light_view_proj: [[f32; 4]; 4],
    light_dir: [f32; 4],
    eye: [f32; 4],
}

/// An offscreen renderer of one size, with the run's static geometry uploaded.
pub struct Renderer {
    ctx: GpuContext,
    width: u32,
    height: u32,
    shadow_pipeline: wgpu::RenderPipeline,
    main_pipeline: wgpu::RenderPipeline,
    globals: wgpu::Buffer,
    instances: wgpu::Buffer,
    instance_capacity: usize,
    group0_layout: wgpu::BindGroupLayout,
    group1: wgpu::BindGroup,
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    /// All the static triangles' indices: the shadow pass draws them all.
    index_count: u32,
    /// The first `drawn_count` of them: the main pass leaves out what was cut away.
    drawn_count: u32,
    colour: wgpu::TextureView,
    resolved: wgpu::Texture,
    resolved_view: wgpu::TextureView,
    depth: wgpu::TextureView,
    shadow: wgpu::TextureView,
    readback: wgpu::Buffer,
    padded_row: u32,
}

fn vertex_layout() -> wgpu::VertexBufferLayout<'static> {
    const ATTRIBUTES: [wgpu::VertexAttribute; 3] =
        wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Uint32];
    wgpu::VertexBufferLayout {
        array_stride: std::mem::size_of::<Vertex>() as u64,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes: &ATTRIBUTES,
    }
}

impl Renderer {
    /// Opens a device (the best adapter, lavapipe included) and uploads the static geometry:
    /// `indices` and how many of them the picture draws (the rest only cast shadows).
    pub fn new(
        width: u32,
        height: u32,
        vertices: &[Vertex],
        (indices, drawn): (&[u32], usize),
        instance_count: usize,
    ) -> Result<Renderer, RenderError> {
        let ctx = GpuContext::new()?;
        let device = &ctx.device;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("render"),
            source: wgpu::ShaderSource::Wgsl(include_str!("shade.wgsl").into()),
        });
        let group0_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("render globals"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Storage { read_only: true },
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
            ],
        });
        let group1_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("render shadow map"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Depth,
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Comparison),
                    count: None,
                },
            ],
        });
        let shadow_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("render shadow"),
            bind_group_layouts: &[Some(&group0_layout)],
            immediate_size: 0,
        });
        let main_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("render main"),
            bind_group_layouts: &[Some(&group0_layout), Some(&group1_layout)],
            immediate_size: 0,
        });
        let depth_state = |bias: wgpu::DepthBiasState| wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::Less),
            stencil: wgpu::StencilState::default(),
            bias,
        };
        let shadow_pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("render shadow"),
            layout: Some(&shadow_layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_shadow"),
                compilation_options: Default::default(),
                buffers: &[Some(vertex_layout())],
            },
            // No culling: open fixtures (a funnel's walls) cast shadows from both sides.
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: Some(depth_state(wgpu::DepthBiasState {
                constant: 2,
                slope_scale: 2.0,
                clamp: 0.0,
            })),
            multisample: wgpu::MultisampleState::default(),
            fragment: None,
            multiview_mask: None,
            cache: None,
        });
        let main_pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("render main"),
            layout: Some(&main_layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &[Some(vertex_layout())],
            },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: Some(depth_state(wgpu::DepthBiasState::default())),
            multisample: wgpu::MultisampleState {
                count: SAMPLES,
                ..Default::default()
            },
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format: COLOUR_FORMAT,
                    blend: None,
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            multiview_mask: None,
            cache: None,
        });
        let texture = |label, size: (u32, u32), format, samples, usage| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size: wgpu::Extent3d {
                    width: size.0,
                    height: size.1,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: samples,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        };
        let attachment = wgpu::TextureUsages::RENDER_ATTACHMENT;
        let colour = texture(
            "render colour",
            (width, height),
            COLOUR_FORMAT,
            SAMPLES,
            attachment,
        )
        .create_view(&Default::default());
        let resolved = texture(
            "render resolved",
            (width, height),
            COLOUR_FORMAT,
            1,
            attachment | wgpu::TextureUsages::COPY_SRC,
        );
        let resolved_view = resolved.create_view(&Default::default());
        let depth = texture(
            "render depth",
            (width, height),
            DEPTH_FORMAT,
            SAMPLES,
            attachment,
        )
        .create_view(&Default::default());
        let shadow = texture(
            "render shadow map",
            (SHADOW_SIZE, SHADOW_SIZE),
            DEPTH_FORMAT,
            1,
            attachment | wgpu::TextureUsages::TEXTURE_BINDING,
        )
        .create_view(&Default::default());
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("render shadow"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            compare: Some(wgpu::CompareFunction::LessEqual),
            ..Default::default()
        });
        let group1 = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("render shadow map"),
            layout: &group1_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&shadow),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Sampler(&sampler),
                },
            ],
        });
        let globals = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("render globals"),
            size: std::mem::size_of::<Globals>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let vertex_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("render vertices"),
            contents: bytemuck::cast_slice(vertices),
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        });
        let index_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("render indices"),
            contents: bytemuck::cast_slice(indices),
            usage: wgpu::BufferUsages::INDEX | wgpu::BufferUsages::COPY_DST,
        });
        let padded_row = (width * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("render readback"),
            size: (padded_row * height) as u64,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let instances = Self::instance_buffer(device, instance_count);
        Ok(Renderer {
            width,
            height,
            shadow_pipeline,
            main_pipeline,
            globals,
            instances,
            instance_capacity: instance_count,
            group0_layout,
            group1,
            vertices: vertex_buffer,
            indices: index_buffer,
            index_count: indices.len() as u32,
            drawn_count: drawn.min(indices.len()) as u32,
            colour,
            resolved,
            resolved_view,
            depth,
            shadow,
            readback,
            padded_row,
            ctx,
        })
    }

    fn instance_buffer(device: &wgpu::Device, count: usize) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("render instances"),
            size: (count.max(1) * std::mem::size_of::<Instance>()) as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// The adapter's name, for reports.
    pub fn adapter_name(&self) -> String {
        self.ctx.adapter_name()
    }

    /// Renders the static geometry plus `extra` (world-space arrows, appended after it) with
    /// `instances` seen through `view`; returns the picture as tightly packed RGBA8 rows, top
    /// row first.
    pub fn draw(
        &mut self,
        view: &View,
        instances: &[Instance],
        extra: (&[Vertex], &[u32]),
    ) -> Result<Vec<u8>, RenderError> {
        let device = &self.ctx.device;
        let queue = &self.ctx.queue;
        if instances.len() > self.instance_capacity {
            self.instances = Self::instance_buffer(device, instances.len());
            self.instance_capacity = instances.len();
        }
        let globals = Globals {
            view_proj: view.view_proj.to_cols_array_2d(),
            light_view_proj: view.light_view_proj.to_cols_array_2d(),
            light_dir: view.light_dir.extend(1.0 / SHADOW_SIZE as f32).to_array(),
            eye: view.eye.extend(view.grid_spacing).to_array(),
        };
        queue.write_buffer(&self.globals, 0, bytemuck::bytes_of(&globals));
        queue.write_buffer(&self.instances, 0, bytemuck::cast_slice(instances));
        let group0 = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("render globals"),
            layout: &self.group0_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: self.globals.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: self.instances.as_entire_binding(),
                },
            ],
        });
        // Arrows change every picture: a small buffer of their own.
        let (extra_vertices, extra_indices) = extra;
        let arrows = (!extra_indices.is_empty()).then(|| {
            let v = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("render arrows"),
                contents: bytemuck::cast_slice(extra_vertices),
                usage: wgpu::BufferUsages::VERTEX,
            });
            let i = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("render arrow indices"),
                contents: bytemuck::cast_slice(extra_indices),
                usage: wgpu::BufferUsages::INDEX,
            });
            (v, i, extra_indices.len() as u32)
        });
        let mut enc = device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("render shadow"),
                color_attachments: &[],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &self.shadow,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(&self.shadow_pipeline);
            pass.set_bind_group(0, &group0, &[]);
            pass.set_vertex_buffer(0, self.vertices.slice(..));
            pass.set_index_buffer(self.indices.slice(..), wgpu::IndexFormat::Uint32);
            pass.draw_indexed(0..self.index_count, 0, 0..1);
        }
        {
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("render main"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &self.colour,
                    depth_slice: None,
                    resolve_target: Some(&self.resolved_view),
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(CLEAR),
                        store: wgpu::StoreOp::Discard,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &self.depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(&self.main_pipeline);
            pass.set_bind_group(0, &group0, &[]);
            pass.set_bind_group(1, &self.group1, &[]);
            pass.set_vertex_buffer(0, self.vertices.slice(..));
            pass.set_index_buffer(self.indices.slice(..), wgpu::IndexFormat::Uint32);
            pass.draw_indexed(0..self.drawn_count, 0, 0..1);
            if let Some((v, i, n)) = &arrows {
                pass.set_vertex_buffer(0, v.slice(..));
                pass.set_index_buffer(i.slice(..), wgpu::IndexFormat::Uint32);
                pass.draw_indexed(0..*n, 0, 0..1);
            }
        }
        enc.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &self.resolved,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &self.readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(self.padded_row),
                    rows_per_image: Some(self.height),
                },
            },
            wgpu::Extent3d {
                width: self.width,
                height: self.height,
                depth_or_array_layers: 1,
            },
        );
        queue.submit([enc.finish()]);
        let slice = self.readback.slice(..);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| RenderError::Failed(e.to_string()))?;
        rx.recv()
            .map_err(|e| RenderError::Failed(e.to_string()))?
            .map_err(|e| RenderError::Failed(e.to_string()))?;
        let mut rgba = Vec::with_capacity((self.width * self.height * 4) as usize);
        {
            let view = slice
                .get_mapped_range()
                .map_err(|e| RenderError::Failed(format!("{e:?}")))?;
            for row in view.chunks(self.padded_row as usize) {
                rgba.extend_from_slice(&row[..(self.width * 4) as usize]);
            }
        }
        self.readback.unmap();
        Ok(rgba)
    }
}
