//! [`GpuStages`] as [`CollisionRounds`]: a jammed island's collision round
//! (`shaders/collision_round.wgsl`) in one submission with one readback: every possible sweep
//! of its three phases recorded up front, each colour one dispatch and each sweep closed by the
//! one-thread pass that stops its phase. Buffers persist between rounds and grow as rounds need;
//! the pipelines are built on the first round.

use super::buffers::{pass_slots, size_of, solver_bind_group, GrowBuffer};
use super::encode::{dispatch_threads, WG_SIZE};
use super::pipeline::Stage;
use super::readback::Readback;
use super::GpuStages;
use crate::stages::collision_round::{
    CollisionRounds, RoundBody, RoundControl, RoundInput, RoundOutput, RoundParams, RoundRow,
};
use crate::stages::StageError;

/// The phases in the order they run: normal (0), friction (1), inelastic (2).
const PHASES: [u32; 3] = [0, 1, 2];

/// The rounds' pipelines, buffers and bind group (rebuilt after a buffer grew).
pub(super) struct RoundState {
    stage: Stage,
    params: wgpu::Buffer,
    passes: GrowBuffer,
    rows: GrowBuffer,
    pairs: GrowBuffer,
    starts: GrowBuffer,
    bodies: GrowBuffer,
    control: GrowBuffer,
    bind_group: Option<wgpu::BindGroup>,
}

impl RoundState {
    fn new(device: &wgpu::Device) -> Result<RoundState, StageError> {
        use wgpu::BufferUsages as U;
        let storage = U::STORAGE | U::COPY_DST | U::COPY_SRC;
        let grow = |label, usage| GrowBuffer::new(device, label, usage, 256);
        Ok(RoundState {
            stage: Stage::collision_round(device)
                .map_err(|e| StageError::Readback(format!("collision round pipelines: {e}")))?,
            params: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("tumble.round_params"),
                size: size_of::<RoundParams>(),
                usage: U::UNIFORM | U::COPY_DST,
                mapped_at_creation: false,
            }),
            passes: grow("tumble.round_passes", U::UNIFORM | U::COPY_DST),
            rows: grow("tumble.round_rows", storage),
            pairs: grow("tumble.round_pairs", storage),
            starts: grow("tumble.round_starts", storage),
            bodies: grow("tumble.round_bodies", storage),
            control: grow("tumble.round_control", storage),
            bind_group: None,
        })
    }
}

impl GpuStages {
    /// Makes room for `input` in every round buffer (dropping the bind group if one grew) and
    /// uploads it, with one (colour, phase) slot per dispatch offset.
    fn upload_round(&mut self, input: &RoundInput<'_>) -> Result<(), StageError> {
        let (limit, align) = (self.limit, self.uniform_align);
        let device = &self.ctx.device;
        let queue = &self.ctx.queue;
        let state = self.rounds.as_mut().expect("round state built");
        let colours = input.params.colours as usize;
        let slots = 3 * colours;
        let bytes = |n: usize, each: u64| (n as u64 * each).max(4);
        let mut grew = false;
        grew |= state.passes.ensure(device, slots as u64 * align, limit)?;
        grew |= state.rows.ensure(
            device,
            bytes(input.rows.len(), size_of::<RoundRow>()),
            limit,
        )?;
        grew |= state
            .pairs
            .ensure(device, bytes(input.pairs.len(), 4), limit)?;
        grew |= state
            .starts
            .ensure(device, bytes(input.starts.len(), 4), limit)?;
        grew |= state.bodies.ensure(
            device,
            bytes(input.bodies.len(), size_of::<RoundBody>()),
            limit,
        )?;
        grew |= state
            .control
            .ensure(device, size_of::<RoundControl>(), limit)?;
        if grew {
            state.bind_group = None;
        }
        queue.write_buffer(&state.params, 0, bytemuck::bytes_of(&input.params));
        // Slot `phase · colours + c`: colour c of that phase.
        let passes = pass_slots(slots, align, |k| {
            [(k % colours) as u32, (k / colours) as u32]
        });
        queue.write_buffer(&state.passes.buffer, 0, &passes);
        queue.write_buffer(&state.rows.buffer, 0, bytemuck::cast_slice(input.rows));
        queue.write_buffer(&state.pairs.buffer, 0, bytemuck::cast_slice(input.pairs));
        queue.write_buffer(&state.starts.buffer, 0, bytemuck::cast_slice(input.starts));
        queue.write_buffer(&state.bodies.buffer, 0, bytemuck::cast_slice(input.bodies));
        queue.write_buffer(
            &state.control.buffer,
            0,
            bytemuck::bytes_of(&RoundControl::default()),
        );
        if state.bind_group.is_none() {
            state.bind_group = Some(solver_bind_group(
                device,
                "tumble.collision_round",
                &state.stage.layout,
                &state.params,
                &state.passes,
                &[
                    &state.rows,
                    &state.pairs,
                    &state.starts,
                    &state.bodies,
                    &state.control,
                ],
            ));
        }
        Ok(())
    }
}

impl CollisionRounds for GpuStages {
    fn collision_round(&mut self, input: &RoundInput<'_>) -> Result<RoundOutput, StageError> {
        let colours = input.params.colours as usize;
        if colours == 0 || input.params.max_sweeps == 0 {
            return Ok(crate::stages::collision_round::collision_round(
                &RoundInput {
                    params: RoundParams {
                        max_sweeps: 0,
                        ..input.params
                    },
                    ..*input
                },
            ));
        }
        if self.rounds.is_none() {
            self.rounds = Some(RoundState::new(&self.ctx.device)?);
        }
        self.upload_round(input)?;
        let align = self.uniform_align;
        let mut enc = self.encoder("tumble.collision_round");
        {
            let state = self.rounds.as_ref().expect("round state built");
            let bg = state.bind_group.as_ref().expect("bind group built");
            let end = state.stage.pipeline("collision_round_end");
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("tumble.collision_round"),
                timestamp_writes: None,
            });
            for phase in PHASES {
                let sweep = state.stage.pipeline(if phase == 1 {
                    "collision_round_friction"
                } else {
                    "collision_round_normal"
                });
                let slot = |c: usize| ((phase as usize * colours + c) as u64 * align) as u32;
                for _ in 0..input.params.max_sweeps {
                    pass.set_pipeline(sweep);
                    for c in 0..colours {
                        let count = input.starts[c + 1] - input.starts[c];
                        pass.set_bind_group(0, bg, &[slot(c)]);
                        dispatch_threads(&mut pass, count, WG_SIZE);
                    }
                    pass.set_pipeline(end);
                    pass.set_bind_group(0, bg, &[slot(0)]);
                    pass.dispatch_workgroups(1, 1, 1);
                }
            }
        }
        let state = self.rounds.as_ref().expect("round state built");
        let (rows, bodies, control) = (
            state.rows.buffer.clone(),
            state.bodies.buffer.clone(),
            state.control.buffer.clone(),
        );
        let out = self.submit_and_read(
            enc,
            &[
                Readback {
                    src: &rows,
                    bytes: input.rows.len() as u64 * size_of::<RoundRow>(),
                },
                Readback {
                    src: &bodies,
                    bytes: input.bodies.len() as u64 * size_of::<RoundBody>(),
                },
                Readback {
                    src: &control,
                    bytes: size_of::<RoundControl>(),
                },
            ],
        )?;
        let rows: Vec<RoundRow> = bytemuck::pod_collect_to_vec(&out[0]);
        let bodies: Vec<RoundBody> = bytemuck::pod_collect_to_vec(&out[1]);
        let control: RoundControl = bytemuck::pod_read_unaligned(&out[2]);
        Ok(RoundOutput {
            impulses: rows
                .iter()
                .map(|r| [r.impulse, r.extra, r.tangent[0], r.tangent[1], r.tangent[2]])
                .collect(),
            velocities: bodies.iter().map(|b| [b.v, b.w]).collect(),
            sweeps: [control.sweeps[0], control.sweeps[1], control.sweeps[2]],
        })
    }
}
