//! A second pool thread kept awake for the span of one contact step's solve.
//!
//! The contact step sweeps its patches in two halves that share no moving body, dozens of times
//! per step (the Gauss–Seidel sweeps, then every shock-propagation level's sweeps), each half a
//! few hundred microseconds or less. `rayon::join` hands the second half to whichever pool
//! thread steals it; between contact steps the event loop runs alone for milliseconds and the
//! other worker goes to sleep, so most second halves ran on the same thread as the first and
//! two threads were no faster than one.
//!
//! [`with_partner`] instead claims one pool thread for the whole solve: it spins, waiting for
//! the jobs [`Partner::run`] posts, one at a time, and takes each at once. A job the partner has
//! not taken by the time the caller's own share is done, the caller takes back and runs itself
//! (the partner may not have been scheduled, or none claimed the partner's task: one thread, a
//! busy pool), so waiting is only ever for a job already running. Either way the arithmetic and
//! its order on each half are the same, and the result does not depend on the thread count.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::Mutex;

/// Spins of a waiting thread between yields. A yield lets another thread on the same core run
/// (the partner and the caller can be placed on one core for a while): without it, a waiting
/// thread would hold the core the other needs for a whole time slice.
const SPINS_PER_YIELD: u32 = 64;

/// The job slot's states.
const EMPTY: u8 = 0;
const POSTED: u8 = 1;
const TAKEN: u8 = 2;
const DONE: u8 = 3;
/// The partner's job panicked (a bug): the main thread must not wait for it.
const FAILED: u8 = 4;

/// The main side of a solve with a partner thread (see [`with_partner`]).
pub struct Partner<'w, J> {
    work: &'w (dyn Fn(J) -> f64 + Sync),
    shared: &'w Shared<J>,
}

/// What the main thread and the partner share: the job, its state (`EMPTY` → `POSTED` by the
/// main thread; → `TAKEN` → `DONE` by the partner, or back to `EMPTY` by the main thread taking
/// it back), the partner's result (f64 bits), and whether a partner runs (`claimed`) or must
/// stop.
struct Shared<J> {
    job: Mutex<Option<J>>,
    state: AtomicU8,
    result: AtomicU64,
    claimed: AtomicBool,
    stop: AtomicBool,
}

impl<J: Copy + Send> Partner<'_, J> {
    /// Runs `mine` here and the partner's work on `job` on the partner thread at the same time
    /// (or both here, `mine` first, where the partner does not take the job in time); returns
    /// both results. The two must touch disjoint data (the partner's is behind the work's own
    /// lock).
    pub fn run(&self, job: J, mine: impl FnOnce() -> f64) -> (f64, f64) {
        let shared = self.shared;
        if !shared.claimed.load(Ordering::Acquire) {
            let a = mine();
            return (a, (self.work)(job));
        }
        *shared.job.lock().unwrap_or_else(|e| e.into_inner()) = Some(job);
        shared.state.store(POSTED, Ordering::Release);
        let a = mine();
        if shared
            .state
            .compare_exchange(POSTED, EMPTY, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            // Not taken: run it here.
            shared.job.lock().unwrap_or_else(|e| e.into_inner()).take();
            return (a, (self.work)(job));
        }
        wait_until(|| shared.state.load(Ordering::Acquire) >= DONE);
        if shared.state.load(Ordering::Acquire) == FAILED {
            // The partner's panic is re-raised by the scope; stop here rather than wait.
            panic!("the contact step's partner thread panicked");
        }
        let b = f64::from_bits(shared.result.load(Ordering::Acquire));
        shared.state.store(EMPTY, Ordering::Release);
        (a, b)
    }
}

/// Runs `main` on this thread with a [`Partner`] whose jobs run `work` on a second pool thread
/// (rayon's), which spins between jobs until `main` returns. Without `wanted`, or on a pool of
/// one thread, no partner is started and every job runs here.
pub fn with_partner<J: Copy + Send, R: Send>(
    wanted: bool,
    work: &(dyn Fn(J) -> f64 + Sync),
    main: impl FnOnce(&Partner<'_, J>) -> R + Send,
) -> R {
    let shared = Shared {
        job: Mutex::new(None),
        state: AtomicU8::new(EMPTY),
        result: AtomicU64::new(0),
        claimed: AtomicBool::new(false),
        stop: AtomicBool::new(false),
    };
    let partner = Partner {
        work,
        shared: &shared,
    };
    if !wanted || rayon::current_num_threads() < 2 {
        return main(&partner);
    }
    // In place: the caller keeps its thread and core, and the partner's task wakes a worker,
    // which the system places on an idle core. (From `rayon::scope` entered outside the pool,
    // the caller's work moved to a worker and the woken partner often shared its core.)
    rayon::in_place_scope(|s| {
        let shared = &shared;
        s.spawn(move |_| partner_loop(shared, work));
        // Dismissed when `main` returns or unwinds (a scope waits for its tasks, so a partner
        // left spinning would hang a panicking caller).
        let _dismiss = Dismiss(shared);
        main(&partner)
    })
}

/// Ends the partner's part when dropped: a partner that starts from then on finds the claim
/// taken and returns at once; one that runs is told to stop.
struct Dismiss<'s, J>(&'s Shared<J>);

impl<J> Drop for Dismiss<'_, J> {
    fn drop(&mut self) {
        if self.0.claimed.swap(true, Ordering::AcqRel) {
            self.0.stop.store(true, Ordering::Release);
        }
    }
}

/// The partner thread: claims the partner's place (unless the main side finished first), then
/// takes and runs each posted job, until told to stop.
fn partner_loop<J: Copy + Send>(shared: &Shared<J>, work: &(dyn Fn(J) -> f64 + Sync)) {
    if shared.claimed.swap(true, Ordering::AcqRel) {
        return;
    }
    loop {
        wait_until(|| {
            shared.state.load(Ordering::Acquire) == POSTED || shared.stop.load(Ordering::Acquire)
        });
        if shared
            .state
            .compare_exchange(POSTED, TAKEN, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            if shared.stop.load(Ordering::Acquire) {
                return;
            }
            continue; // taken back by the main thread
        }
        let job = shared.job.lock().unwrap_or_else(|e| e.into_inner()).take();
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job.map_or(0.0, work)));
        match run {
            Ok(result) => {
                shared.result.store(result.to_bits(), Ordering::Release);
                shared.state.store(DONE, Ordering::Release);
            }
            Err(panic) => {
                // Tell the waiting main thread, then let the scope carry the panic.
                shared.state.store(FAILED, Ordering::Release);
                std::panic::resume_unwind(panic);
            }
        }
    }
}

/// Spins until `ready`, yielding the core every [`SPINS_PER_YIELD`] spins.
fn wait_until(ready: impl Fn() -> bool) {
    let mut spins = 0u32;
    while !ready() {
        spins = spins.wrapping_add(1);
        if spins.is_multiple_of(SPINS_PER_YIELD) {
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every job runs once, in order, with its result returned to the poster, on any number of
    /// threads (a pool of one never starts a partner; a pool of two runs it beside the main
    /// side).
    #[test]
    fn every_job_runs_once_in_order() {
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let log = Mutex::new(Vec::new());
            let work = |j: u32| {
                log.lock().unwrap().push(j);
                f64::from(j) * 2.0
            };
            let sums = pool.install(|| {
                with_partner(true, &work, |p| {
                    (0..200u32)
                        .map(|j| {
                            let (a, b) = p.run(j, || f64::from(j));
                            a + b
                        })
                        .collect::<Vec<_>>()
                })
            });
            assert_eq!(*log.lock().unwrap(), (0..200).collect::<Vec<_>>());
            let want: Vec<f64> = (0..200).map(|j| 3.0 * f64::from(j)).collect();
            assert_eq!(sums, want, "{threads} threads");
        }
    }

    /// A job that panics fails the caller instead of leaving it waiting for ever, whether the
    /// partner ran it (the caller's share is slow, so the partner takes the jobs) or the caller
    /// took it back (its share is instant).
    #[test]
    fn a_panicking_job_fails_the_caller() {
        for (threads, share) in [(1, 0), (2, 0), (2, 200_000)] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let work = |j: u32| {
                assert!(j < 50, "job {j}");
                0.0
            };
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.install(|| {
                    with_partner(true, &work, |p| {
                        for j in 0..100u32 {
                            let mine = || (0..share).map(f64::from).sum::<f64>();
                            std::hint::black_box(p.run(j, || std::hint::black_box(mine())));
                        }
                    })
                })
            }));
            assert!(outcome.is_err(), "{threads} threads: the panic was lost");
        }
    }
}
