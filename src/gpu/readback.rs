//! Reading results back: a frame's command buffer is submitted with copies of its outputs into
//! one staging buffer, which is mapped once ([`GpuStages::submit_and_read`]), and the bytes are
//! turned back into the stages' types.

use super::GpuStages;
use crate::stages::{Bump, PairBound, StageError};
use std::sync::mpsc;

/// Where one readback copy lands in the staging buffer.
pub(super) struct Readback<'a> {
    pub(super) src: &'a wgpu::Buffer,
    pub(super) bytes: u64,
}

impl GpuStages {
    /// Copies each source into the staging buffer, submits `enc`, waits, and returns the bytes.
    pub(super) fn submit_and_read(
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
}

pub(super) fn bump_of(bytes: &[u8]) -> Bump {
    bytemuck::pod_read_unaligned(&bytes[..std::mem::size_of::<Bump>()])
}

pub(super) fn sorted_bounds(bytes: &[u8], count: usize) -> Vec<PairBound> {
    let mut bounds: Vec<PairBound> =
        bytemuck::pod_collect_to_vec(&bytes[..count * std::mem::size_of::<PairBound>()]);
    bounds.sort_unstable_by_key(|b| (b.a, b.b));
    bounds
}
