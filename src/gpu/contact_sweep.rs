//! [`GpuStages`] as [`ContactSweeps`]: a contact step's coloured sweeps
//! (`shaders/contact_sweep.wgsl`) in one submission with one readback.
//!
//! The buffers persist between steps and grow (never shrink) as steps need; the pipelines are
//! built on the first step that asks (a run whose steps never reach the device never compiles
//! them). Every possible sweep is recorded up front, each colour one dispatch and each sweep
//! closed by the one-thread stopping pass; the device sets `done` when the host's rule says
//! stop, and the dispatches after it return at once. Each step's sizes are known before it is
//! recorded (the host prepared its rows), so nothing can overflow here.

use super::buffers::{pass_slots, size_of, solver_bind_group, GrowBuffer};
use super::encode::{dispatch_threads, WG_SIZE};
use super::pipeline::Stage;
use super::readback::Readback;
use super::GpuStages;
use crate::stages::contact_sweep::{
    ContactSweeps, SweepControl, SweepInput, SweepOutput, SweepParams, SweepPatch, SweepRow,
    SweepVel,
};
use crate::stages::StageError;

/// The sweeps' pipelines, buffers and bind group (rebuilt after a buffer grew).
pub(super) struct SweepState {
    stage: Stage,
    params: wgpu::Buffer,
    colours: GrowBuffer,
    rows: GrowBuffer,
    patches: GrowBuffer,
    order: GrowBuffer,
    starts: GrowBuffer,
    moving: GrowBuffer,
    still: GrowBuffer,
    control: GrowBuffer,
    bind_group: Option<wgpu::BindGroup>,
}

impl SweepState {
    fn new(device: &wgpu::Device) -> Result<SweepState, StageError> {
        use wgpu::BufferUsages as U;
        let storage = U::STORAGE | U::COPY_DST | U::COPY_SRC;
        let grow = |label, usage| GrowBuffer::new(device, label, usage, 256);
        Ok(SweepState {
            stage: Stage::contact_sweep(device)
                .map_err(|e| StageError::Readback(format!("contact sweep pipelines: {e}")))?,
            params: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("tumble.sweep_params"),
                size: size_of::<SweepParams>(),
                usage: U::UNIFORM | U::COPY_DST,
                mapped_at_creation: false,
            }),
            colours: grow("tumble.sweep_colours", U::UNIFORM | U::COPY_DST),
            rows: grow("tumble.sweep_rows", storage),
            patches: grow("tumble.sweep_patches", storage),
            order: grow("tumble.sweep_order", storage),
            starts: grow("tumble.sweep_starts", storage),
            moving: grow("tumble.sweep_moving", storage),
            still: grow("tumble.sweep_still", storage),
            control: grow("tumble.sweep_control", storage),
            bind_group: None,
        })
    }
}

impl GpuStages {
    /// Makes room for `input` in every sweep buffer (dropping the bind group if one grew) and
    /// uploads it.
    fn upload_sweeps(&mut self, input: &SweepInput<'_>) -> Result<(), StageError> {
        let (limit, align) = (self.limit, self.uniform_align);
        let device = &self.ctx.device;
        let queue = &self.ctx.queue;
        let state = self.sweeps.as_mut().expect("sweep state built");
        let colours = input.params.colours as usize;
        let bytes = |n: usize, each: u64| (n as u64 * each).max(4);
        let mut grew = false;
        grew |= state
            .colours
            .ensure(device, colours as u64 * align, limit)?;
        grew |= state.rows.ensure(
            device,
            bytes(input.rows.len(), size_of::<SweepRow>()),
            limit,
        )?;
        grew |= state.patches.ensure(
            device,
            bytes(input.patches.len(), size_of::<SweepPatch>()),
            limit,
        )?;
        grew |= state
            .order
            .ensure(device, bytes(input.order.len(), 4), limit)?;
        grew |= state
            .starts
            .ensure(device, bytes(input.starts.len(), 4), limit)?;
        grew |= state.moving.ensure(
            device,
            bytes(input.moving.len(), size_of::<SweepVel>()),
            limit,
        )?;
        grew |= state.still.ensure(
            device,
            bytes(input.still.len(), size_of::<SweepVel>()),
            limit,
        )?;
        grew |= state
            .control
            .ensure(device, size_of::<SweepControl>(), limit)?;
        if grew {
            state.bind_group = None;
        }
        queue.write_buffer(&state.params, 0, bytemuck::bytes_of(&input.params));
        // One colour number per dynamic-offset slot.
        let slots = pass_slots(colours, align, |c| [c as u32, 0]);
        queue.write_buffer(&state.colours.buffer, 0, &slots);
        queue.write_buffer(&state.rows.buffer, 0, bytemuck::cast_slice(input.rows));
        queue.write_buffer(
            &state.patches.buffer,
            0,
            bytemuck::cast_slice(input.patches),
        );
        queue.write_buffer(&state.order.buffer, 0, bytemuck::cast_slice(input.order));
        queue.write_buffer(&state.starts.buffer, 0, bytemuck::cast_slice(input.starts));
        queue.write_buffer(&state.moving.buffer, 0, bytemuck::cast_slice(input.moving));
        queue.write_buffer(&state.still.buffer, 0, bytemuck::cast_slice(input.still));
        queue.write_buffer(
            &state.control.buffer,
            0,
            bytemuck::bytes_of(&SweepControl::default()),
        );
        if state.bind_group.is_none() {
            state.bind_group = Some(solver_bind_group(
                device,
                "tumble.contact_sweep",
                &state.stage.layout,
                &state.params,
                &state.colours,
                &[
                    &state.rows,
                    &state.patches,
                    &state.order,
                    &state.starts,
                    &state.moving,
                    &state.still,
                    &state.control,
                ],
            ));
        }
        Ok(())
    }
}

impl ContactSweeps for GpuStages {
    fn contact_sweeps(&mut self, input: &SweepInput<'_>) -> Result<SweepOutput, StageError> {
        let colours = input.params.colours as usize;
        if colours == 0 || input.params.max_iterations == 0 {
            return Ok(SweepOutput {
                impulses: input.rows.iter().map(|r| r.impulse).collect(),
                friction: input
                    .patches
                    .iter()
                    .map(|p| [p.tangential[0], p.tangential[1], p.tangential[2], p.twist])
                    .collect(),
                moving: input.moving.to_vec(),
                iterations: 0,
                residual: 0.0,
            });
        }
        if self.sweeps.is_none() {
            self.sweeps = Some(SweepState::new(&self.ctx.device)?);
        }
        self.upload_sweeps(input)?;
        let align = self.uniform_align;
        let mut enc = self.encoder("tumble.contact_sweep");
        {
            let state = self.sweeps.as_ref().expect("sweep state built");
            let bg = state.bind_group.as_ref().expect("bind group built");
            let colour = state.stage.pipeline("contact_sweep_colour");
            let end = state.stage.pipeline("contact_sweep_end");
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("tumble.contact_sweep"),
                timestamp_writes: None,
            });
            for _ in 0..input.params.max_iterations {
                pass.set_pipeline(colour);
                for c in 0..colours {
                    let count = input.starts[c + 1] - input.starts[c];
                    pass.set_bind_group(0, bg, &[(c as u64 * align) as u32]);
                    dispatch_threads(&mut pass, count, WG_SIZE);
                }
                pass.set_pipeline(end);
                pass.set_bind_group(0, bg, &[0]);
                pass.dispatch_workgroups(1, 1, 1);
            }
        }
        let state = self.sweeps.as_ref().expect("sweep state built");
        let (rows, patches, moving, control) = (
            state.rows.buffer.clone(),
            state.patches.buffer.clone(),
            state.moving.buffer.clone(),
            state.control.buffer.clone(),
        );
        let out = self.submit_and_read(
            enc,
            &[
                Readback {
                    src: &rows,
                    bytes: input.rows.len() as u64 * size_of::<SweepRow>(),
                },
                Readback {
                    src: &patches,
                    bytes: input.patches.len() as u64 * size_of::<SweepPatch>(),
                },
                Readback {
                    src: &moving,
                    bytes: input.moving.len() as u64 * size_of::<SweepVel>(),
                },
                Readback {
                    src: &control,
                    bytes: size_of::<SweepControl>(),
                },
            ],
        )?;
        let rows: Vec<SweepRow> = bytemuck::pod_collect_to_vec(&out[0]);
        let patches: Vec<SweepPatch> = bytemuck::pod_collect_to_vec(&out[1]);
        let control: SweepControl = bytemuck::pod_read_unaligned(&out[3]);
        Ok(SweepOutput {
            impulses: rows.iter().map(|r| r.impulse).collect(),
            friction: patches
                .iter()
                .map(|p| [p.tangential[0], p.tangential[1], p.tangential[2], p.twist])
                .collect(),
            moving: bytemuck::pod_collect_to_vec(&out[2]),
            iterations: control.iterations,
            residual: control.residual,
        })
    }
}
