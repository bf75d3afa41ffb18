//! The event loop on threads, one group of islands each.
//!
//! Bodies whose boxes cannot meet within a step cannot interact in it, so each connected group
//! ("island") could run its own heap. But the swept boxes of the broad phase bound *ballistic*
//! motion only: an impulse sends a body along a new path, whose box may reach a body of another
//! island. So the islands here are built from *limits* — each moving body's swept box grown by
//! a margin (as far as a reversal of its present motion could take it over the step, plus ε_c
//! and g·h²) — and an island's run stays valid only while every box its bodies get after an
//! impulse or a wake-up lies inside that body's limit ([`Stores::set_box`]). Limits of different
//! islands do not overlap, so then no body of one island can come near a body of another, and
//! each island's events are exactly those the one loop would have processed, in the same order:
//! the heap orders equal times by body index, and the island stores number their bodies in the
//! world's order. A run in which any body leaves its limit is void: every body is put back as
//! it was and the one loop runs the step (`Counts::parallel_escapes`). Either way the results
//! are the one loop's, on any number of threads (tested bit for bit).
//!
//! An island's stores hold its islands' moving bodies (moved in, not copied: each body is in one
//! island), copies of the fixed bodies their limits touch, their heap entries, held pairs and
//! last separating axes, renumbered in the world's order. Islands are grouped by their heap
//! entries (largest first, each to the least loaded group), two groups per thread.

use super::settings::Settings;
use super::stores::Stores;
use super::Scratch;
use super::{Aabb, Counts, ImpulseEvent, Motion, SimError, World};
use crate::body::{read_each, Body, BodyHot};
use crate::event_heap::PairEvent;
use crate::hash_grid::HashGrid;
use crate::union_find::UnionFind;
use rayon::prelude::*;

/// Below this many heap entries at a step start, the step stays in one loop.
const MIN_PARALLEL_EVENTS: usize = 64;
/// After a step whose events one island dominated, the steps planned again only after this many
/// more (planning costs a grid over all limits: ~3 ms at 10 000 bodies).
const PLAN_RETRY: u32 = 8;
/// If one island holds more than this share of a step's heap entries, threads cannot gain
/// much: the step stays in one loop.
const MAX_ISLAND_SHARE: f64 = 0.75;
/// Groups of islands per thread (more groups even out the load).
const GROUPS_PER_THREAD: usize = 2;
/// No group (an island without heap entries).
const NONE: u32 = u32::MAX;

/// Buffers of the parallel event loop, kept between steps.
#[derive(Default)]
pub(super) struct IslandScratch {
    /// Per body: fixed (also read while the members are moved out of the world).
    fixed: Vec<bool>,
    /// A grid over the limits.
    grid: HashGrid,
    limits: Vec<Aabb>,
    /// Each body's island (its root, once flattened); also the step's island count
    /// ([`World::note_islands`]).
    sets: UnionFind,
    /// Awake dynamic bodies per island root, and whether each body is one
    /// ([`World::note_islands`]).
    sizes: Vec<u32>,
    awake: Vec<bool>,
    /// Pairs (a < b) of overlapping limits, at least one body not fixed.
    pairs: Vec<(u32, u32)>,
    overlapping: Vec<(usize, usize)>,
    /// Heap entries per island (by root).
    events: Vec<u32>,
    /// Group of each island (by root), or `NONE`.
    group_of: Vec<u32>,
    groups: Vec<Group>,
    /// The stores of each group, with their own buffers.
    islands: Vec<Island>,
    /// Steps left before the next plan (see `PLAN_RETRY`). The only buffer here that carries
    /// over from one step to the next (a checkpoint keeps it): the rest is refilled per step.
    pub(super) skip: u32,
}

/// The bodies and pairs of one group of islands.
#[derive(Default)]
struct Group {
    /// Indices in the world of the group's bodies, ascending: its islands' members and the
    /// fixed bodies their limits touch. A body's index in the group's world is its position
    /// here, so the group's world numbers them in the world's order.
    bodies: Vec<usize>,
    /// Pairs of overlapping limits in the group (world indices), for the last axes to copy.
    pairs: Vec<(u32, u32)>,
    /// The members' states before the run, to undo a void run.
    hot: Vec<BodyHot>,
    /// Heap entries of the group's islands.
    load: u64,
    /// Bodies to swap in where the members were moved out (any body will do: unused).
    spares: Vec<crate::body::Body>,
}

/// A group of islands' subset of the world's stores, and its event loop's buffers.
#[derive(Default)]
struct Island {
    stores: Stores,
    scratch: Scratch,
}

/// Position of world index `x` in a group's ascending list.
fn local(bodies: &[usize], x: u32) -> Option<u32> {
    bodies.binary_search(&(x as usize)).ok().map(|k| k as u32)
}

impl World {
    /// Runs the step's event loop on threads, one group of islands each, if the step splits
    /// into islands worth it; returns false if it did not (or the run was void), and the one
    /// loop must run. See the module doc.
    pub(super) fn parallel_event_loop(&mut self, t0: f64, t1: f64) -> Result<bool, SimError> {
        if !self.stores.settings.parallel_islands
            || !self.stores.pairs.limits.is_empty()
            || self.stores.pairs.heap.len() < MIN_PARALLEL_EVENTS
            || rayon::current_num_threads() < 2
        {
            return Ok(false);
        }
        let s = &mut self.islands;
        if s.skip > 0 {
            s.skip -= 1;
            return Ok(false);
        }
        run_islands(&mut self.stores, s, t0, t1)
    }

    /// Records the largest island of the step: awake dynamic bodies joined by broad-phase pairs
    /// of two such bodies (fixed, kinematic and sleeping bodies pass no impulse on, so they join
    /// nothing). Bodies of different islands cannot touch before the step ends, so each island
    /// could run its own event loop; the largest one bounds what that could gain.
    pub(super) fn note_islands(&mut self, pairs: &[(usize, usize)]) {
        let n = self.stores.bodies.len();
        let s = &mut self.islands;
        // Which bodies are awake and dynamic, read once (a cache miss each in a large world).
        read_each(&self.stores.bodies, &mut s.awake, Body::is_awake_dynamic);
        s.sets.reset(n);
        for &(a, b) in pairs {
            if s.awake[a] && s.awake[b] {
                s.sets.union(a as u32, b as u32);
            }
        }
        s.sizes.clear();
        s.sizes.resize(n, 0);
        let mut largest = 0;
        for i in 0..n {
            if s.awake[i] {
                let r = s.sets.find(i as u32) as usize;
                s.sizes[r] += 1;
                largest = largest.max(s.sizes[r]);
            }
        }
        self.stores.stats.counts.largest_island =
            self.stores.stats.counts.largest_island.max(largest as u64);
        self.stores.stats.counts.largest_island_sum += largest as u64;
        self.stores.stats.counts.island_plans += 1;
    }
}

/// Runs the step's event loop on threads if it splits into groups of islands worth it (see
/// [`World::parallel_event_loop`]); false if it did not or the run was void.
fn run_islands(
    stores: &mut Stores,
    s: &mut IslandScratch,
    t0: f64,
    t1: f64,
) -> Result<bool, SimError> {
    let group_count = plan_groups(stores, s, t1 - t0);
    if group_count < 2 {
        // One island dominates; it will for a while (a jam lasts): plan again later.
        s.skip = PLAN_RETRY;
        return Ok(false);
    }
    while s.islands.len() < group_count {
        s.islands.push(blank_like(stores));
    }
    let mut ready = true;
    for (group, island) in s.groups.iter_mut().zip(&mut s.islands).take(group_count) {
        ready &= move_in(stores, group, island, &s.fixed, &s.limits, (t0, t1));
    }
    ready &= hand_out_events(stores, s);
    let results: Vec<Result<(), SimError>> = if ready {
        s.islands[..group_count]
            .par_iter_mut()
            .map(|island| island.stores.run_event_loop(t1, &mut island.scratch))
            .collect()
    } else {
        Vec::new()
    };
    let void = !ready
        || results.iter().any(Result::is_err)
        || s.islands[..group_count]
            .iter()
            .any(|island| island.stores.pairs.escaped);
    for (group, island) in s.groups.iter_mut().zip(&mut s.islands).take(group_count) {
        move_back(stores, group, island, &s.fixed, void);
    }
    if void {
        stores.stats.counts.parallel_escapes += 1;
        return Ok(false);
    }
    for (group, island) in s.groups.iter().zip(&s.islands).take(group_count) {
        merge_island(stores, group, &island.stores);
    }
    stores.stats.counts.parallel_loops += 1;
    Ok(true)
}

/// Gives a group's island stores its bodies for step `(t0, t1)`: the members moved in (their
/// places get spares), the fixed bodies copied, and their boxes, limits, grid, held pairs and
/// last axes renumbered in the group's order. False if a held pair crosses islands (cannot
/// happen: a held pair's limits overlap).
fn move_in(
    stores: &mut Stores,
    group: &mut Group,
    island: &mut Island,
    fixed: &[bool],
    limits: &[Aabb],
    (t0, t1): (f64, f64),
) -> bool {
    let mut ready = true;
    let w = &mut island.stores;
    w.bodies.clear();
    group.hot.clear();
    for &x in &group.bodies {
        if fixed[x] {
            w.bodies.push(stores.bodies[x].clone());
        } else {
            group.hot.push(stores.bodies[x].hot());
            let spare = match group.spares.pop() {
                Some(b) => b,
                None => stores.bodies[x].clone(),
            };
            // Moved, not copied: each member is in one island.
            w.bodies
                .push(std::mem::replace(&mut stores.bodies[x], spare));
        }
    }
    let m = group.bodies.len();
    let pairs = &mut w.pairs;
    pairs.boxes.clear();
    pairs
        .boxes
        .extend(group.bodies.iter().map(|&x| stores.pairs.boxes[x]));
    pairs.limits.clear();
    pairs.limits.extend(group.bodies.iter().map(|&x| limits[x]));
    let bodies = &w.bodies;
    pairs.grid.rebuild(&pairs.boxes, |k| bodies[k].moves());
    pairs.heap.clear();
    let held = &mut w.contacts.held;
    let world_held = &stores.contacts.held;
    held.pairs.clear();
    held.points.clone_from(&world_held.points);
    held.by_body.resize_with(m, Vec::new);
    held.by_body.truncate(m);
    for (k, &x) in group.bodies.iter().enumerate() {
        held.by_body[k].clear();
        for &(p, q) in world_held.by_body.get(x).map_or(&[][..], |v| &v[..]) {
            match (local(&group.bodies, p), local(&group.bodies, q)) {
                (Some(lp), Some(lq)) => {
                    held.by_body[k].push((lp, lq));
                    // The tracked points are in the bodies' own frames: the same ranges hold
                    // in the island's copy of `held_points` (none tracked if the pair were
                    // somehow missing: it is then measured).
                    let tracked = world_held.pairs.get(&(p, q)).copied().unwrap_or((0, 0));
                    held.pairs.insert((lp, lq), tracked);
                }
                // A fixed body's pairs with other islands' bodies (the local re-solves never
                // start from a fixed body, so its list need not be whole).
                _ if fixed[x] => {}
                // Cannot happen: a held pair's limits overlap, so it is in one island.
                _ => ready = false,
            }
        }
    }
    held.resolves.clear();
    let pairs = &mut w.pairs;
    pairs.bounds.last_axis.clear();
    for &(a, b) in &group.pairs {
        if let Some(&n) = stores.pairs.bounds.last_axis.get(&(a, b)) {
            if let (Some(la), Some(lb)) = (local(&group.bodies, a), local(&group.bodies, b)) {
                pairs.bounds.last_axis.insert((la, lb), n);
            }
        }
    }
    pairs.bounds.later.clear();
    pairs.escaped = false;
    // The contact step's length adapts frame by frame (`Stores::adapt_step_length`) and sets
    // the local re-solves' h: the pooled stores must use this step's, not the one they were
    // made with.
    w.clock.contact_step = stores.clock.contact_step;
    w.clock.time = t0;
    w.clock.frame_end = t1;
    w.stats.counts = Counts::default();
    w.stats.event_log.clear();
    w.stats.max_penetration = 0.0;
    ready
}

/// The world's heap entries, each to its island's stores, renumbered; false if an entry has
/// no island (cannot happen: every island with entries has a group).
fn hand_out_events(stores: &Stores, s: &mut IslandScratch) -> bool {
    let mut ready = true;
    for ev in stores.pairs.heap.events() {
        // Moved-out members are spares now: read what they were from the scratch.
        let owner = if s.fixed[ev.a as usize] { ev.b } else { ev.a };
        let g = s.group_of[s.sets.root(owner as usize) as usize];
        if g == NONE {
            ready = false;
            continue;
        }
        let group = &s.groups[g as usize];
        match (local(&group.bodies, ev.a), local(&group.bodies, ev.b)) {
            (Some(la), Some(lb)) => s.islands[g as usize].stores.pairs.heap.push(PairEvent {
                a: la,
                b: lb,
                ..*ev
            }),
            _ => ready = false,
        }
    }
    ready
}

/// Moves a group's members back into the world's stores: as the island's run left them, or
/// as they were before it if the run is `void`.
fn move_back(
    stores: &mut Stores,
    group: &mut Group,
    island: &mut Island,
    fixed: &[bool],
    void: bool,
) {
    let w = &mut island.stores;
    let mut hot = group.hot.iter();
    for (k, &x) in group.bodies.iter().enumerate() {
        if fixed[x] {
            continue;
        }
        std::mem::swap(&mut stores.bodies[x], &mut w.bodies[k]);
        let before = hot.next().expect("a snapshot per member");
        if void {
            stores.bodies[x].restore(before);
        } else {
            stores.pairs.boxes[x] = w.pairs.boxes[k];
        }
    }
    group.spares.append(&mut w.bodies);
    // As many spares as members (the fixed bodies' copies would pile up otherwise).
    group.spares.truncate(group.hot.len());
}

/// Adds what a group's island run found to the world's stores, in the world's numbering: its
/// counts, deepest overlap, impulses, last axes and the bounds kept for later steps.
fn merge_island(stores: &mut Stores, group: &Group, w: &Stores) {
    stores.stats.counts.accumulate(&w.stats.counts);
    let at = |k: u32| group.bodies[k as usize] as u32;
    if w.stats.max_penetration > stores.stats.max_penetration {
        stores.stats.max_penetration = w.stats.max_penetration;
        let (time, la, lb) = w.stats.deepest_at;
        let (a, b) = (at(la), at(lb));
        stores.stats.deepest_at = (time, a.min(b), a.max(b));
        stores.stats.deepest_names = None;
    }
    stores
        .stats
        .event_log
        .extend(w.stats.event_log.iter().map(|e| ImpulseEvent {
            a: at(e.a),
            b: at(e.b),
            ..*e
        }));
    let bounds = &mut stores.pairs.bounds;
    for (&(la, lb), &n) in &w.pairs.bounds.last_axis {
        bounds.last_axis.insert((at(la), at(lb)), n);
    }
    for (&(la, lb), ev) in &w.pairs.bounds.later {
        let (a, b) = (at(la), at(lb));
        bounds.later.insert((a, b), PairEvent { a, b, ..*ev });
    }
}

/// Limits, islands and groups for a step of length `h` (bodies at its start, heap seeded);
/// returns the number of groups (< 2: not worth threads).
fn plan_groups(stores: &Stores, s: &mut IslandScratch, h: f64) -> usize {
    let n = stores.bodies.len();
    // A body's limit: its swept box grown by as far as a reversal of its present motion
    // could take it over the step, plus ε_c and g·h² (scaled by `island_margin`).
    let g = stores.settings.gravity.length();
    s.fixed.clear();
    s.fixed
        .extend(stores.bodies.iter().map(|b| b.motion == Motion::Fixed));
    s.limits.clear();
    for ((b, bx), &fixed) in stores.bodies.iter().zip(&stores.pairs.boxes).zip(&s.fixed) {
        if fixed {
            s.limits.push(*bx);
        } else {
            let speed = b.velocity.length() + b.rotation_radius * b.max_angular_speed();
            let margin = 2.0 * h * speed + stores.settings.epsilon + g * h * h;
            s.limits
                .push(bx.grown(stores.settings.island_margin * margin));
        }
    }
    // Islands: moving and sleeping bodies joined through overlapping limits.
    let fixed = &s.fixed;
    s.grid.rebuild(&s.limits, |i| !fixed[i]);
    s.sets.reset(n);
    s.pairs.clear();
    // The grid's pairs are read on all cores; the sets joined are the same in any order (a
    // set's root is its least member), and the pairs' order only lists the last axes to copy.
    let overlapping = &mut s.overlapping;
    s.grid
        .overlapping_pairs(&s.limits, |i| !fixed[i], |_, _| true, overlapping);
    for &(a, b) in overlapping.iter() {
        s.pairs.push((a as u32, b as u32));
        if !fixed[a] && !fixed[b] {
            s.sets.union(a as u32, b as u32);
        }
    }
    s.sets.flatten();
    // Heap entries per island; one island with most of them is not worth threads.
    s.events.clear();
    s.events.resize(n, 0);
    let mut total = 0u64;
    for ev in stores.pairs.heap.events() {
        let owner = if s.fixed[ev.a as usize] { ev.b } else { ev.a };
        s.events[s.sets.root(owner as usize) as usize] += 1;
        total += 1;
    }
    let mut islands: Vec<(u32, u32)> = (0..n as u32)
        .filter(|&r| s.events[r as usize] > 0)
        .map(|r| (s.events[r as usize], r))
        .collect();
    let largest = islands.iter().map(|e| e.0).max().unwrap_or(0);
    if islands.len() < 2 || largest as f64 > MAX_ISLAND_SHARE * total as f64 {
        return 0;
    }
    // Largest first, each to the least loaded group.
    islands.sort_unstable_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
    let group_count = (GROUPS_PER_THREAD * rayon::current_num_threads()).min(islands.len());
    s.groups
        .resize_with(group_count.max(s.groups.len()), Group::default);
    for group in &mut s.groups {
        group.bodies.clear();
        group.pairs.clear();
        group.load = 0;
    }
    s.group_of.clear();
    s.group_of.resize(n, NONE);
    for &(count, root) in &islands {
        let g = (0..group_count)
            .min_by_key(|&g| (s.groups[g].load, g))
            .expect("at least two groups");
        s.groups[g].load += u64::from(count);
        s.group_of[root as usize] = g as u32;
    }
    for i in 0..n {
        if !s.fixed[i] {
            let g = s.group_of[s.sets.root(i) as usize];
            if g != NONE {
                s.groups[g as usize].bodies.push(i);
            }
        }
    }
    for &(a, b) in &s.pairs {
        let a_fixed = s.fixed[a as usize];
        let mover = if a_fixed { b } else { a };
        let g = s.group_of[s.sets.root(mover as usize) as usize];
        if g == NONE {
            continue;
        }
        let group = &mut s.groups[g as usize];
        group.pairs.push((a, b));
        if a_fixed {
            group.bodies.push(a as usize);
        } else if s.fixed[b as usize] {
            group.bodies.push(b as usize);
        }
    }
    for group in &mut s.groups[..group_count] {
        group.bodies.sort_unstable();
        group.bodies.dedup();
    }
    group_count
}

/// Empty stores with this world's settings, for a group of islands.
fn blank_like(stores: &Stores) -> Island {
    Island {
        stores: Stores {
            // Never split again; empty stores and buffers.
            settings: Settings {
                parallel_islands: false,
                ..stores.settings.clone()
            },
            clock: super::stores::Clock {
                contact_step: stores.clock.contact_step,
                ..Default::default()
            },
            ..Stores::default()
        },
        scratch: Scratch::default(),
    }
}
