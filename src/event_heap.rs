//! The event heap: per-pair time-of-impact bounds, earliest first (Mirtich & Canny 1994, §3.1).
//!
//! Entries are never searched for or removed when a body changes: each carries the version
//! stamps its two bodies had when the bound was computed, and an entry whose stamps no longer
//! match is stale and skipped when popped (Box2D/Rapier handle style).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// How much is known about a pair when its entry was pushed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum BoundKind {
    /// From bounding spheres only: pop means "measure the true distance, then bound again".
    Coarse,
    /// From the true distance and closest-point normal.
    Fine,
    /// The instant a pair inside its contact band comes down to half the band, found on the
    /// ballistic trajectories: pop means "handle the pair now".
    Crossing,
}

/// One heap entry.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PairEvent {
    /// Earliest time the pair can come within the target distance (s).
    pub time: f64,
    /// First body (index).
    pub a: u32,
    /// Second body (index).
    pub b: u32,
    /// Version of `a` when the bound was computed.
    pub version_a: u32,
    /// Version of `b` when the bound was computed.
    pub version_b: u32,
    /// What the bound was computed from.
    pub kind: BoundKind,
}

impl Eq for PairEvent {}

impl Ord for PairEvent {
    fn cmp(&self, other: &Self) -> Ordering {
        // Min-heap on time; ties broken by the pair so the order is deterministic.
        other
            .time
            .total_cmp(&self.time)
            .then_with(|| other.a.cmp(&self.a))
            .then_with(|| other.b.cmp(&self.b))
    }
}

impl PartialOrd for PairEvent {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A binary min-heap of [`PairEvent`]s. Saved as its array and read back by pushing the entries
/// in that order, which leaves the array as it was (each entry is no greater than its parent),
/// so entries of equal time pop in the same order after a checkpoint.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub struct EventHeap {
    heap: BinaryHeap<PairEvent>,
}

impl EventHeap {
    /// Adds an entry.
    pub fn push(&mut self, e: PairEvent) {
        self.heap.push(e);
    }
    /// Removes and returns the earliest entry if it is before `until`.
    pub fn pop_before(&mut self, until: f64) -> Option<PairEvent> {
        if self.heap.peek()?.time < until {
            self.heap.pop()
        } else {
            None
        }
    }
    /// Drops every entry (keeps the allocation).
    pub fn clear(&mut self) {
        self.heap.clear();
    }
    /// Every entry, in no particular order.
    pub fn events(&self) -> impl Iterator<Item = &PairEvent> {
        self.heap.iter()
    }
    /// Number of entries, stale ones included.
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    /// True if there are no entries.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}
