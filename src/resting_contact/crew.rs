//! Pool threads kept awake for the span of one contact step's solve.
//!
//! A large contact step is swept as a tree of parts (`split`): every sweep takes the tree's
//! levels leaves first, and the parts of one level share no moving body, so they run at the same
//! time. That is dozens of rounds per step (the Gauss–Seidel sweeps, then every
//! shock-propagation level's sweeps) of a few hundred microseconds or less each. `rayon::join`
//! hands work to whichever pool thread steals it; between contact steps the event loop runs
//! alone for milliseconds and the other workers go to sleep, so most parts ran on the thread
//! that posted them and more threads were no faster than one.
//!
//! [`with_crew`] instead claims pool threads for the whole solve: they spin, waiting for the
//! rounds [`Crew::run`] posts, and claim the round's jobs one at a time, as the caller does
//! too. A job is claimed by exactly one thread, so the caller only ever waits for a job already
//! running; where no helper was scheduled (one thread, a busy pool) the caller runs them all.
//! The jobs of a round touch disjoint data and each job's arithmetic is the same on whichever
//! thread runs it, so the result does not depend on the thread count.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Spins of a waiting thread between yields. A yield lets another thread on the same core run
/// (a helper and the caller can be placed on one core for a while): without it, a waiting
/// thread would hold the core the other needs for a whole time slice.
const SPINS_PER_YIELD: u32 = 64;

/// Bits of the claim word ([`Shared::claim`]): the round's number above, the end of its
/// unclaimed jobs and its first unclaimed job below.
const JOB_BITS: u32 = 16;
const JOB_MASK: u64 = (1 << JOB_BITS) - 1;

/// The caller's side of a solve with a crew (see [`with_crew`]).
pub struct Crew<'w, J> {
    work: &'w (dyn Fn(J, usize) -> f64 + Sync),
    shared: &'w Shared<J>,
}

/// What the caller and the helpers share. `claim` packs the round number (upper 32 bits), the
/// end of the round's unclaimed jobs and its first unclaimed one (16 bits each): a thread
/// claims job k of round r
/// by one compare-and-swap that also checks r, so a helper late from the last round cannot
/// claim a job of this one with the last round's job description. `done` counts the round's
/// finished jobs, `result` holds the largest result's bits (results are non-negative, whose
/// bits order as their values), `failed` says a helper's job panicked.
struct Shared<J> {
    round: Mutex<Option<J>>,
    claim: AtomicU64,
    done: AtomicUsize,
    result: AtomicU64,
    failed: AtomicBool,
    stop: AtomicBool,
}

impl<J: Copy + Send> Shared<J> {
    /// Claims the next job of round `number`, from the round's front (the caller) or its back
    /// (the helpers): its index, or None when the round has no job left (or a newer round
    /// began). Taking the two ends, each thread tends to take the same nodes from sweep to
    /// sweep, whose data is then still in its core's cache.
    fn claim(&self, number: u64, from_back: bool) -> Option<usize> {
        let mut word = self.claim.load(Ordering::Acquire);
        loop {
            let (r, end, next) = (word >> 32, (word >> JOB_BITS) & JOB_MASK, word & JOB_MASK);
            if r != number || next >= end {
                return None;
            }
            let (taken, k) = match from_back {
                true => (word - (1 << JOB_BITS), end - 1),
                false => (word + 1, next),
            };
            match self
                .claim
                .compare_exchange_weak(word, taken, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return Some(k as usize),
                Err(now) => word = now,
            }
        }
    }

    /// Runs job `k` of the present round with `work` and records its result.
    fn run_job(&self, work: &(dyn Fn(J, usize) -> f64 + Sync), k: usize) {
        let job = self
            .round
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .expect("a posted round");
        let r = work(job, k);
        self.result
            .fetch_max(r.max(0.0).to_bits(), Ordering::AcqRel);
        self.done.fetch_add(1, Ordering::AcqRel);
    }
}

impl<J: Copy + Send> Crew<'_, J> {
    /// Runs `work(job, k)` for every k in `jobs`, on this thread and, if `share`, the crew's at
    /// once, and returns the largest result (all non-negative; 0 for no job). The jobs must
    /// touch disjoint data. Whether a round is shared changes only who runs its jobs, never
    /// their results: a round too small to repay the hand-over runs here.
    pub fn run(&self, job: J, jobs: std::ops::Range<usize>, share: bool) -> f64 {
        let shared = self.shared;
        let count = jobs.len();
        if count == 0 {
            return 0.0;
        }
        if count == 1 || !share {
            // Largest by bits, as the shared path takes it (the same for non-negative results).
            let most = jobs
                .map(|k| (self.work)(job, k).to_bits())
                .fold(0, u64::max);
            return f64::from_bits(most);
        }
        assert!(jobs.end as u64 <= JOB_MASK, "too many jobs in one round");
        *shared.round.lock().unwrap_or_else(|e| e.into_inner()) = Some(job);
        shared.done.store(0, Ordering::Release);
        shared.result.store(0, Ordering::Release);
        let number = (shared.claim.load(Ordering::Acquire) >> 32) + 1;
        shared.claim.store(
            (number << 32) | ((jobs.end as u64) << JOB_BITS) | jobs.start as u64,
            Ordering::Release,
        );
        while let Some(k) = shared.claim(number, false) {
            shared.run_job(self.work, k);
        }
        wait_until(|| {
            shared.done.load(Ordering::Acquire) == count || shared.failed.load(Ordering::Acquire)
        });
        if shared.failed.load(Ordering::Acquire) {
            // The helper's panic is re-raised by the scope; stop here rather than wait.
            panic!("a contact-step helper thread panicked");
        }
        f64::from_bits(shared.result.load(Ordering::Acquire))
    }
}

/// Runs `main` on this thread with a [`Crew`] of up to `helpers` pool threads (rayon's, never
/// more than the pool has beside this one) that spin between rounds until `main` returns, each
/// round's jobs running `work`. With no helper wanted, or on a pool of one thread, every job
/// runs here.
pub fn with_crew<J: Copy + Send, R: Send>(
    helpers: usize,
    work: &(dyn Fn(J, usize) -> f64 + Sync),
    main: impl FnOnce(&Crew<'_, J>) -> R + Send,
) -> R {
    let shared = Shared {
        round: Mutex::new(None),
        claim: AtomicU64::new(0),
        done: AtomicUsize::new(0),
        result: AtomicU64::new(0),
        failed: AtomicBool::new(false),
        stop: AtomicBool::new(false),
    };
    let crew = Crew {
        work,
        shared: &shared,
    };
    let helpers = helpers.min(rayon::current_num_threads().saturating_sub(1));
    if helpers == 0 {
        return main(&crew);
    }
    // In place: the caller keeps its thread and core, and the helpers' tasks wake workers,
    // which the system places on idle cores. (From `rayon::scope` entered outside the pool,
    // the caller's work moved to a worker and a woken helper often shared its core.)
    rayon::in_place_scope(|s| {
        let shared = &shared;
        for _ in 0..helpers {
            s.spawn(move |_| helper_loop(shared, work));
        }
        // Dismissed when `main` returns or unwinds (a scope waits for its tasks, so a helper
        // left spinning would hang a panicking caller).
        let _dismiss = Dismiss(shared);
        main(&crew)
    })
}

/// Ends the helpers' part when dropped: a helper that starts from then on returns at once; one
/// that runs is told to stop.
struct Dismiss<'s, J>(&'s Shared<J>);

impl<J> Drop for Dismiss<'_, J> {
    fn drop(&mut self) {
        self.0.stop.store(true, Ordering::Release);
    }
}

/// A helper: waits for a round it has not seen, claims and runs its jobs until none is left,
/// and again, until told to stop.
fn helper_loop<J: Copy + Send>(shared: &Shared<J>, work: &(dyn Fn(J, usize) -> f64 + Sync)) {
    let mut seen = 0u64;
    loop {
        let mut number = 0;
        wait_until(|| {
            number = shared.claim.load(Ordering::Acquire) >> 32;
            number != seen || shared.stop.load(Ordering::Acquire)
        });
        if shared.stop.load(Ordering::Acquire) {
            return;
        }
        seen = number;
        while let Some(k) = shared.claim(number, true) {
            let run =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| shared.run_job(work, k)));
            if let Err(panic) = run {
                // Tell the waiting caller, then let the scope carry the panic.
                shared.failed.store(true, Ordering::Release);
                std::panic::resume_unwind(panic);
            }
        }
    }
}

/// Spins until `ready`, yielding the core every [`SPINS_PER_YIELD`] spins.
fn wait_until(mut ready: impl FnMut() -> bool) {
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

    /// Every job of every round runs once, with its round's description, and the caller gets
    /// the round's largest result, on any number of threads and helpers.
    #[test]
    fn every_job_runs_once_per_round() {
        for (threads, helpers) in [(1, 3), (2, 1), (3, 2), (4, 7)] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let log = Mutex::new(Vec::new());
            let work = |round: u32, k: usize| {
                log.lock().unwrap().push((round, k));
                f64::from(round) + k as f64
            };
            let maxima = pool.install(|| {
                with_crew(helpers, &work, |crew| {
                    (0..300u32)
                        .map(|round| {
                            let jobs =
                                (round as usize % 5)..(round as usize % 5 + 1 + round as usize % 9);
                            crew.run(round, jobs, round % 3 != 0)
                        })
                        .collect::<Vec<_>>()
                })
            });
            let mut log = log.into_inner().unwrap();
            log.sort_unstable();
            let mut want = Vec::new();
            for round in 0..300u32 {
                let r = round as usize;
                want.extend(((r % 5)..(r % 5 + 1 + r % 9)).map(|k| (round, k)));
            }
            assert_eq!(log, want, "{threads} threads");
            for (round, m) in maxima.iter().enumerate() {
                let last = round % 5 + round % 9;
                assert_eq!(
                    *m,
                    (round + last) as f64,
                    "{threads} threads, round {round}"
                );
            }
        }
    }

    /// A job that panics fails the caller instead of leaving it waiting for ever, whether a
    /// helper ran it or the caller did.
    #[test]
    fn a_panicking_job_fails_the_caller() {
        for (threads, helpers) in [(1, 1), (2, 1), (4, 3)] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let work = |round: u32, k: usize| {
                assert!(round < 50 || k != 3, "round {round}");
                0.0
            };
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.install(|| {
                    with_crew(helpers, &work, |crew| {
                        for round in 0..100u32 {
                            std::hint::black_box(crew.run(round, 0..8, true));
                        }
                    })
                })
            }));
            assert!(outcome.is_err(), "{threads} threads: the panic was lost");
        }
    }
}
