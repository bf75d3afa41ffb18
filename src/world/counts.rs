//! What a run reports besides the bodies: event and work counters, wall time per stage, where
//! the deepest overlap was seen, and the errors a step can fail with.

/// Where a world saw its largest penetration ([`World::deepest_overlap`](super::World::deepest_overlap)).
#[derive(Clone, Debug, PartialEq)]
pub struct DeepestOverlap {
    /// Penetration depth (m, > 0).
    pub depth: f64,
    /// Simulated time of the measurement (s).
    pub time: f64,
    /// The pair's bodies (indices in the world's order, a < b; `usize::MAX` where a body has
    /// since been removed from the world).
    pub a: usize,
    /// See `a`.
    pub b: usize,
    /// The two bodies' names.
    pub names: [String; 2],
}

/// Event and work counters (summary.json `counts`).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Counts {
    /// Contact impulses from the full integration of eq. 9.
    pub collisions: u64,
    /// Contact impulses from the velocity-reversing microcollision rule (§4.5).
    pub microcollisions: u64,
    /// Rounds of simultaneous impacts solved together (several pairs at one instant; each
    /// pair also counts in `collisions`; see `world/impacts.rs`).
    pub simultaneous_impacts: u64,
    /// Time-of-impact bounds computed (coarse and fine).
    pub toi_bounds: u64,
    /// Entries popped from the event heap (stale ones included).
    pub heap_pops: u64,
    /// Popped entries that were stale (a body had changed since the bound was computed).
    pub stale_pops: u64,
    /// Narrow-phase proximity queries.
    pub distance_queries: u64,
    /// Candidate pairs from the broad phase at frame starts.
    pub broad_phase_pairs: u64,
    /// Contacts still approaching after the per-event iteration cap (should stay 0).
    pub unresolved_contacts: u64,
    /// Bounds for pairs inside ε_c that took the "present distance less ε_c/16" target because
    /// no hop return could be bounded (see the module doc); a diagnostic of resting contact.
    pub band_steps: u64,
    /// Bodies put to sleep (Mirtich 1996, §4.2).
    pub sleeps: u64,
    /// Sleeping bodies woken by an impact (or by a support waking beneath them).
    pub wakes: u64,
    /// Frames completed.
    pub frames: u64,
    /// Contact steps done (resting contacts as constraints).
    pub contact_steps: u64,
    /// Resting contact points solved as constraints, summed over contact steps.
    pub resting_contacts: u64,
    /// Gauss–Seidel sweeps, summed over contact steps.
    pub contact_iterations: u64,
    /// Contact steps whose sweeps ran on the device (`--backend gpu`), and those that asked
    /// for it and were swept on the host because the device failed.
    pub device_contact_steps: u64,
    pub device_sweep_failures: u64,
    /// Jammed islands' collision rounds solved on the device, and those that asked for it and
    /// were solved on the host because the device failed.
    pub device_rounds: u64,
    pub device_round_failures: u64,
    /// Held pairs re-solved mid-step because they came within the held band after all.
    pub held_resolutions: u64,
    /// Of those, the re-solves done inside a cluster that the event loop would otherwise have
    /// done one by one: a re-solve's cluster's rounds after its first, and every round of a
    /// collision's cluster (held pairs pushed short of their target at the same instant; see
    /// `Stores::resolve_cluster`).
    pub cluster_resolutions: u64,
    /// Broad-phase pairs at a step start that kept a bound from an earlier step (both bodies
    /// unchanged since) instead of being bounded afresh.
    pub kept_bounds: u64,
    /// Pairs bounded along their last separating axis instead of by bounding spheres.
    pub axis_bounds: u64,
    /// Most awake dynamic bodies in one island at a step start (see `island_plans`).
    pub largest_island: u64,
    /// The largest island's size summed over steps (divide by `island_plans` for the mean).
    pub largest_island_sum: u64,
    /// Steps whose islands were counted (host broad phase only).
    pub island_plans: u64,
    /// Times an island the switch rule called jammed left the event loop to be stepped
    /// (`[world] jammed_islands = "step"`; see `world/jam.rs`).
    pub stepped_islands: u64,
    /// Jammed islands advanced by one simultaneous step, summed over contact steps.
    pub island_steps: u64,
    /// Contact points whose impacts the jammed islands' collision rounds resolved (Bender &
    /// Schmitt 2006 §3.1), summed over the rounds.
    pub step_collisions: u64,
    /// Steps whose event loop ran on threads, one group of islands each.
    pub parallel_loops: u64,
    /// Of those, the runs made void by a body leaving its island's limits and redone in one
    /// loop (the results are the one loop's either way).
    pub parallel_escapes: u64,
    /// Times the pairs' last separating axes were pruned to the current step's pairs (see
    /// `Stores::prune_last_axes`).
    pub pruned_axes: u64,
    /// Pairs whose contact points a contact step or a local re-solve took from the points
    /// tracked on their bodies (see [`TrackedPoint`]) instead of a proximity query.
    pub tracked_pairs: u64,
    /// Contact points times Gauss–Seidel sweeps, summed over contact steps: their work, in the
    /// units of `resolve_point_sweeps` (see `Stores::adapt_step_length`).
    pub step_point_sweeps: u64,
    /// Contact points times Gauss–Seidel sweeps, summed over local re-solves of held pairs.
    pub resolve_point_sweeps: u64,
    /// Contact steps longer than the shortest (`[world] contact_step`).
    pub long_contact_steps: u64,
    /// Pairs found approaching inside their contact band whose handling was moved to the
    /// instant their gap came down to half the band (see `world/band_crossing.rs`).
    pub band_crossings: u64,
    /// Dense solves of an articulation's joint rows: holding them over steps, projecting
    /// velocities and finding articulated collision matrices (see [`crate::joints`]).
    pub joint_solves: u64,
    /// `method = "lcp"`: time steps, LCPs solved (one per group of contacts sharing a moving
    /// body), their rows summed, the largest, and Lemke's pivots summed.
    pub lcp_steps: u64,
    pub lcp_problems: u64,
    pub lcp_rows: u64,
    pub lcp_largest: u64,
    pub lcp_pivots: u64,
    /// Bodies `[[sources]]` poured in (each placed where it overlapped nothing).
    #[serde(default)]
    pub inserted: u64,
    /// Bodies due from a source that found no free place in its region within its attempts.
    #[serde(default)]
    pub unplaced: u64,
    /// Bodies `[[sinks]]` took out.
    #[serde(default)]
    pub removed: u64,
}

impl Counts {
    /// Adds the event-loop counters of an island's stores (all of them: the others are 0 there).
    pub(super) fn accumulate(&mut self, other: &Counts) {
        // Destructured, so that a counter added later cannot be forgotten here.
        let Counts {
            collisions,
            microcollisions,
            simultaneous_impacts,
            toi_bounds,
            heap_pops,
            stale_pops,
            distance_queries,
            broad_phase_pairs,
            unresolved_contacts,
            band_steps,
            sleeps,
            wakes,
            frames,
            contact_steps,
            resting_contacts,
            contact_iterations,
            device_contact_steps,
            device_sweep_failures,
            device_rounds,
            device_round_failures,
            held_resolutions,
            cluster_resolutions,
            kept_bounds,
            axis_bounds,
            largest_island,
            largest_island_sum,
            island_plans,
            stepped_islands,
            island_steps,
            step_collisions,
            parallel_loops,
            parallel_escapes,
            pruned_axes,
            tracked_pairs,
            step_point_sweeps,
            resolve_point_sweeps,
            long_contact_steps,
            band_crossings,
            joint_solves,
            lcp_steps,
            lcp_problems,
            lcp_rows,
            lcp_largest,
            lcp_pivots,
            inserted,
            unplaced,
            removed,
        } = *other;
        self.collisions += collisions;
        self.microcollisions += microcollisions;
        self.simultaneous_impacts += simultaneous_impacts;
        self.toi_bounds += toi_bounds;
        self.heap_pops += heap_pops;
        self.stale_pops += stale_pops;
        self.distance_queries += distance_queries;
        self.broad_phase_pairs += broad_phase_pairs;
        self.unresolved_contacts += unresolved_contacts;
        self.band_steps += band_steps;
        self.sleeps += sleeps;
        self.wakes += wakes;
        self.frames += frames;
        self.contact_steps += contact_steps;
        self.resting_contacts += resting_contacts;
        self.contact_iterations += contact_iterations;
        self.device_contact_steps += device_contact_steps;
        self.device_sweep_failures += device_sweep_failures;
        self.device_rounds += device_rounds;
        self.device_round_failures += device_round_failures;
        self.held_resolutions += held_resolutions;
        self.cluster_resolutions += cluster_resolutions;
        self.kept_bounds += kept_bounds;
        self.axis_bounds += axis_bounds;
        self.largest_island = self.largest_island.max(largest_island);
        self.largest_island_sum += largest_island_sum;
        self.island_plans += island_plans;
        self.stepped_islands += stepped_islands;
        self.island_steps += island_steps;
        self.step_collisions += step_collisions;
        self.parallel_loops += parallel_loops;
        self.parallel_escapes += parallel_escapes;
        self.pruned_axes += pruned_axes;
        self.tracked_pairs += tracked_pairs;
        self.step_point_sweeps += step_point_sweeps;
        self.resolve_point_sweeps += resolve_point_sweeps;
        self.long_contact_steps += long_contact_steps;
        self.band_crossings += band_crossings;
        self.joint_solves += joint_solves;
        self.inserted += inserted;
        self.unplaced += unplaced;
        self.removed += removed;
        self.lcp_steps += lcp_steps;
        self.lcp_problems += lcp_problems;
        self.lcp_rows += lcp_rows;
        self.lcp_largest = self.lcp_largest.max(lcp_largest);
        self.lcp_pivots += lcp_pivots;
    }
}

/// A failure during simulation.
#[derive(Clone, Debug, thiserror::Error)]
pub enum SimError {
    /// A frame stage (GPU or CPU twin) failed.
    #[error("frame stage failed: {0}")]
    Stage(String),
    /// A body's state became NaN or infinite.
    #[error("body \"{body}\" has a non-finite state at t = {time} s")]
    NonFinite {
        /// The body's name.
        body: String,
        /// Simulated time (s).
        time: f64,
    },
    /// The stall guard: a body took part in more events within a window of simulated time (one
    /// instant, 1 ns, or 1 ms) than its budget, the contacts never parting and the simulated
    /// time no longer advancing, or crawling (see `world/event_loop.rs`).
    #[error(
        "bodies \"{a}\" and \"{b}\" are jammed at t = {time} s: \"{a}\" took part in {events} \
         events within {window:e} s, the simulated time {} (the budget is {budget} per body in \
         {window:e} s; docs/design.md, The stall guard): {}",
        if *window < 1e-6 { "no longer advancing" } else { "crawling" },
        if *crush {
            "a kinematic body presses bodies against each other or against a fixed body, which \
             no impulse can resolve"
        } else {
            "the impulses between them do not part them (a Zeno sequence of impacts, or bodies \
             deep inside each other)"
        }
    )]
    Jammed {
        /// The body past its budget, and the other body of its last event.
        a: String,
        b: String,
        /// Simulated time (s).
        time: f64,
        /// The body's events in the window, the most it may take, and the window (s).
        events: u64,
        budget: u32,
        window: f64,
        /// Whether the world has a kinematic body (a crush, the likely cause).
        crush: bool,
    },
    /// A geometry query of a pair failed inside the geometry library (parry panicked on a shape
    /// it could not handle); caught by [`crate::geometry_guard`].
    #[error(
        "the contact geometry of bodies \"{a}\" and \"{b}\" at t = {time} s could not be \
         computed: {message} (a shape too large, too thin or too far from the origin for f64 \
         geometry; see the sanity bounds in docs/scene-format.md)"
    )]
    Geometry {
        /// The pair's bodies.
        a: String,
        b: String,
        /// Simulated time (s).
        time: f64,
        /// What the library said.
        message: String,
    },
    /// A dynamic body moved faster or spun faster than the engine resolves (see
    /// `world/resolution.rs`), after an impulse that the scene's bounds could not foresee.
    #[error("body \"{body}\" at t = {time} s {what}; the run stops rather than lose it")]
    OutOfRange {
        /// The body's name.
        body: String,
        /// Simulated time (s).
        time: f64,
        /// What it exceeded, with the bound.
        what: String,
    },
    /// The wall-clock budget given with [`super::World::set_deadline`] ran out.
    #[error("over its budget of {seconds} s of wall time at t = {time} s")]
    OverBudget {
        /// The budget (s of wall time).
        seconds: f64,
        /// Simulated time reached (s).
        time: f64,
    },
    /// `method = "lcp"`: a step's LCP had no solution Lemke's method could find.
    #[error("the LCP of the step at t = {time} s: {message}")]
    Lcp {
        /// Simulated time (s).
        time: f64,
        /// Lemke's error.
        message: String,
    },
}

/// Wall time spent in each part of the frame loop (s), summed over all frames.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StageTimes {
    /// Contact steps: finding resting contacts and solving them as constraints.
    pub contact_step: f64,
    /// Of `contact_step`, finding the step's resting contacts: the bodies' boxes, the pairs
    /// they give, the pairs' measurement and the contacts and held pairs gathered from it.
    #[serde(default)]
    pub contact_gather: f64,
    /// Of `contact_step`, the solver's stages before its sweeps: the rows and patches, their
    /// order, the bodies' velocity slots and tree of parts, the warm start, the
    /// shock-propagation levels and the lanes' groups.
    #[serde(default)]
    pub contact_prepare: f64,
    /// Of `contact_step`, the solver's sweeps (Gauss–Seidel and shock propagation), the part
    /// that runs on every core.
    pub contact_sweeps: f64,
    /// Of `contact_sweeps`, the shock-propagation pass.
    #[serde(default)]
    pub shock_propagation: f64,
    /// Of `contact_step`, after the sweeps: the velocities stored, the push-out, the impulses
    /// reported and kept for the next step's warm start, and the touched bodies' new bounds.
    #[serde(default)]
    pub contact_store: f64,
    /// Of `contact_sweeps`, the Gauss–Seidel sweeps run on the device (packing, upload,
    /// dispatches, waiting, readback; 0 on the host path).
    pub device_sweeps: f64,
    /// Of `stepped_islands`, the collision rounds solved on the device (packing, upload,
    /// dispatches, waiting, readback; 0 on the host path).
    pub device_rounds: f64,
    /// Swept boxes, broad phase and the first (coarse) pair bounds at frame starts.
    pub broad_phase: f64,
    /// The event loop: heap pops, distances, collision response, re-bounding.
    pub event_loop: f64,
    /// Of `broad_phase`, the time inside the data-parallel stages' frame call (upload,
    /// dispatches, waiting, readback; 0 on the host path): what the GPU costs the host.
    pub frame_stages: f64,
    /// Advancing every body to the frame time at frame ends.
    pub sync: f64,
    /// The jammed islands' switch rule and collision rounds (beside `contact_step`, which
    /// solves their contacts with the rest).
    pub stepped_islands: f64,
}

/// A pair's geometry query that failed ([`SimError::Geometry`]), kept in the stores where it
/// happened until the frame loop can return it: the queries answer a number, and the pair is
/// then treated as apart (+∞, no points) so that the step reaches a point where it can stop.
#[derive(Clone, Debug)]
pub(super) struct GeometryFailure {
    pub(super) a: String,
    pub(super) b: String,
    pub(super) time: f64,
    pub(super) message: String,
}

impl GeometryFailure {
    /// The failure of the query of bodies `a` and `b` (both at their own time) with `message`.
    pub(super) fn new(a: &crate::body::Body, b: &crate::body::Body, message: String) -> Self {
        GeometryFailure {
            a: a.name.clone(),
            b: b.name.clone(),
            time: a.time,
            message,
        }
    }

    /// As the step's error.
    pub(super) fn into_error(self) -> SimError {
        SimError::Geometry {
            a: self.a,
            b: self.b,
            time: self.time,
            message: self.message,
        }
    }
}
