//! Heap allocations made inside the event loop, counted.
//!
//! The event loop handles tens of thousands of events per simulated second in a pile (the
//! funnel: ~30 000 collisions and re-solves a second), and each event touches only the few
//! bodies and pairs around it. Its buffers are kept in the world and reused, so that it does
//! no allocation of its own once they have grown to the scene's needs. This module lets a
//! program check that promise, rather than take it on trust: [`CountingAllocator`] wraps the
//! system allocator and counts the allocations (and reallocations) a thread makes while it runs
//! an event loop, which the world marks with [`InsideEventLoop`]; [`count`] reads the totals.
//!
//! The `tumble` binary installs it, and `tumble bench` reports the count. A program that does
//! not install it gets `None` from [`count`]. The cost is an atomic load and a thread-local read
//! per allocation, and two atomic adds per allocation inside the loop.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Allocations and reallocations made inside event loops, over the process.
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
/// Bytes those asked for (a reallocation counts its new size).
static BYTES: AtomicU64 = AtomicU64::new(0);
/// Whether [`CountingAllocator`] is the global allocator (it has allocated at least once).
static INSTALLED: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// How many event loops this thread is inside: 0 or 1 (a step runs its one loop here, or
    /// its islands' loops one at a time on each pool thread); a count, not a flag, so that a
    /// loop entered inside another would still leave the mark right.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// What the event loops have allocated so far (see [`count`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Allocations {
    /// Allocations and reallocations made inside event loops.
    pub count: u64,
    /// Bytes they asked for.
    pub bytes: u64,
}

impl Allocations {
    /// What was allocated between `earlier` and `self`.
    pub fn since(self, earlier: Allocations) -> Allocations {
        Allocations {
            count: self.count - earlier.count,
            bytes: self.bytes - earlier.bytes,
        }
    }
}

/// The event loops' allocations so far, on every thread, or `None` where
/// [`CountingAllocator`] is not the global allocator.
pub fn count() -> Option<Allocations> {
    INSTALLED.load(Ordering::Relaxed).then(|| Allocations {
        count: ALLOCATIONS.load(Ordering::Relaxed),
        bytes: BYTES.load(Ordering::Relaxed),
    })
}

/// Marks this thread as inside an event loop until dropped.
pub(crate) struct InsideEventLoop(());

impl InsideEventLoop {
    /// Enters: allocations on this thread count from now until the guard drops.
    pub(crate) fn enter() -> Self {
        DEPTH.with(|d| d.set(d.get() + 1));
        InsideEventLoop(())
    }
}

impl Drop for InsideEventLoop {
    fn drop(&mut self) {
        DEPTH.with(|d| d.set(d.get() - 1));
    }
}

/// The system allocator, counting what event loops allocate (see the module doc). Install it in
/// a program with `#[global_allocator] static A: CountingAllocator = CountingAllocator;`.
pub struct CountingAllocator;

impl CountingAllocator {
    /// Counts an allocation of `bytes` if this thread is inside an event loop.
    #[inline]
    fn note(bytes: usize) {
        if !INSTALLED.load(Ordering::Relaxed) {
            INSTALLED.store(true, Ordering::Relaxed);
        }
        // `try_with`: a thread being torn down has no thread-locals left, and allocates
        // outside any event loop.
        if DEPTH.try_with(|d| d.get() > 0).unwrap_or(false) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
            BYTES.fetch_add(bytes as u64, Ordering::Relaxed);
        }
    }
}

// SAFETY: every call is passed on unchanged to `System`, which upholds `GlobalAlloc`'s
// contract; the counting only reads a const-initialised thread-local (no allocation, no
// destructor) and adds to atomics.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        Self::note(layout.size());
        // SAFETY: the caller's `layout` is passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        Self::note(layout.size());
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` through this allocator, with this `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        Self::note(new_size);
        // SAFETY: as for `dealloc`; `new_size` is the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}
