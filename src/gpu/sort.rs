//! The broad phase's bitonic sort: its step list for a number of boxes ([`sort_steps`]), and the
//! per-step parameters ([`SortParams`]) uploaded once per broad phase and bound at dynamic
//! offsets.

use super::GpuStages;
use bytemuck::{Pod, Zeroable};

/// Elements sorted in workgroup memory by one block-sort workgroup (`SORT_BLOCK`).
pub(super) const SORT_BLOCK: u32 = 512;

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

/// The step list of a bitonic sort of `len` slots: the block sort, then per stage k > 512 the
/// global steps j ≥ 512 and one workgroup-memory merge. Entry 0 (k = j = 0) serves every other
/// broad-phase pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum SortStep {
    Global { k: u32, j: u32 },
    Merge { k: u32 },
}

pub(super) fn sort_steps(len: u32) -> Vec<SortStep> {
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

/// Slots sorted for `n` boxes: a power of two, at least one 512-element block.
pub(super) fn sort_len(n: u32) -> u32 {
    n.next_power_of_two().max(SORT_BLOCK)
}

impl GpuStages {
    /// Uploads the sort step list for `n` boxes; returns it with its dynamic offsets.
    pub(super) fn write_sort_params(&self, n: u32) -> (u32, Vec<(SortStep, u32)>) {
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
}
