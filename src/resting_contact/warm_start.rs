//! Warm starting: each step's impulses are kept by pair in a [`WarmStartCache`]
//! ([`WarmStartCache::store`], the store stage), and the next step starts each row and patch
//! from its pair's impulses of the last one ([`WarmStartCache::find_previous`], [`warm_start`]),
//! so a resting pile needs only the change since the last step, not to rebuild its whole weight
//! chain from zero.

use super::friction::sliding_shares;
use super::patch::{tracked, Constraints, Load, Patch, Row};
use super::slots::{read, Velocities, STILL};
use crate::body::{renumber_pair, Body};
use glam::DVec3;

/// A solved contact point of the previous step, kept to warm-start the next one.
#[derive(Clone, Copy, serde::Serialize, serde::Deserialize)]
struct Solved {
    a: u32,
    b: u32,
    local: DVec3,
    impulse: f64,
}

/// A solved patch of the previous step (friction impulses), kept to warm-start the next one.
#[derive(Clone, Copy, serde::Serialize, serde::Deserialize)]
struct SolvedPatch {
    a: u32,
    b: u32,
    /// Which of its pair's patches it was (`Patch::group`).
    group: u16,
    tangential: DVec3,
    twist: f64,
}

/// The previous step's impulses, kept between steps to warm-start the next one.
#[derive(Clone, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct WarmStartCache {
    /// Last step's contact points, sorted by pair.
    previous: Vec<Solved>,
    /// Last step's patches, sorted by pair.
    previous_patches: Vec<SolvedPatch>,
    /// Last step's length h (s).
    previous_h: f64,
    /// The step's patches by rank (`Patch::rank`), while they are stored.
    #[serde(skip)]
    by_rank: Vec<u32>,
    /// The time over which last step's impulses carried their contact forces (s): see
    /// [`Self::span`].
    previous_span: f64,
}

impl WarmStartCache {
    /// The span of time a step of length `h` carries its contact forces over with impulses at
    /// its start.
    pub(super) fn span(&self, h: f64) -> f64 {
        // A steady contact force F (a weight) is carried by an impulse of F times the time
        // from the middle of the last step to the middle of this one: a body starts the step
        // with the velocity the last step's second half of gravity gave it, and must end its
        // step-mean motion at rest. With steps of one length that span is h; where the length
        // changed, the warm start's impulses are scaled to the new span. (Without this, each
        // change of `World`'s step length would jolt a pile by the difference, which the few
        // sweeps of a step do not remove.)
        if self.previous_h > 0.0 {
            0.5 * (self.previous_h + h)
        } else {
            h
        }
    }

    /// What the last step's impulses are multiplied by to warm-start a step that carries its
    /// forces over `span` ([`Self::span`]).
    pub(super) fn scale(&self, span: f64) -> f64 {
        // (Steps that split a frame evenly differ in length by rounding only: those keep
        // their impulses as they are.)
        match span / self.previous_span {
            r if r.is_finite() && (r - 1.0).abs() > 1e-6 => r,
            _ => 1.0,
        }
    }

    /// Keeps the impulses of `constraints`, sorted by pair, to warm-start the next step: its
    /// length `h`, and `span`, the time its impulses carried the contact forces over
    /// ([`Self::span`]).
    ///
    /// Only the impulses that act on both bodies are kept: not what shock propagation added
    /// with the lower body frozen (Guendelman et al. 2003). That part is a velocity correction
    /// with no reaction; reapplied next step to both bodies as a warm start, its reaction
    /// would push the lower body every step, and a tall stack's sway grew by it until the
    /// stack fell (docs/design.md, Stacking without sleep).
    pub(super) fn store(&mut self, constraints: &Constraints, h: f64, span: f64) {
        self.previous.clear();
        self.previous_patches.clear();
        self.previous_h = h;
        self.previous_span = span;
        // In pair order (the patches' ranks), so that the sorts below find their input sorted
        // and only check it: a step's pairs are prepared in pair order.
        let by_rank = &mut self.by_rank;
        by_rank.clear();
        by_rank.resize(constraints.patches.len(), u32::MAX);
        for (k, patch) in constraints.patches.iter().enumerate() {
            if let Some(slot) = by_rank.get_mut(patch.rank as usize) {
                *slot = k as u32;
            }
        }
        for &k in by_rank.iter() {
            let Some(patch) = constraints.patches.get(k as usize) else {
                continue;
            };
            let (a, b) = (patch.a as u32, patch.b as u32);
            self.previous.extend(
                constraints.rows[patch.first..patch.first + patch.count]
                    .iter()
                    .map(|r| Solved {
                        a,
                        b,
                        local: r.local,
                        impulse: r.impulse - r.one_sided,
                    }),
            );
            self.previous_patches.push(SolvedPatch {
                a,
                b,
                group: patch.group,
                tangential: patch.tangential - patch.one_sided.0,
                twist: patch.twist - patch.one_sided.1,
            });
        }
        self.previous.sort_by_key(|x| (x.a, x.b));
        self.previous_patches.sort_by_key(|x| (x.a, x.b, x.group));
    }

    /// Renumbers the bodies of the kept impulses after bodies were removed from the world:
    /// `new_of[i]` is body i's new index, `u32::MAX` for a removed body, whose impulses go. The
    /// renumbering keeps the bodies' order, so the lists stay sorted by pair.
    pub(super) fn renumber(&mut self, new_of: &[u32]) {
        self.previous
            .retain_mut(|s| renumber_pair(new_of, &mut s.a, &mut s.b));
        self.previous_patches
            .retain_mut(|s| renumber_pair(new_of, &mut s.a, &mut s.b));
    }

    /// Finds each patch's entries of the previous step (`Patch::previous_rows`,
    /// `Patch::previous_patch`). The step's pairs come in pair order, as the previous ones are
    /// kept: one merge walks both lists (two binary searches per patch were most of the warm
    /// start's cost). A pair out of order is searched for.
    pub(super) fn find_previous(&self, patches_now: &mut [Patch]) {
        let (rows, patches) = (&self.previous, &self.previous_patches);
        let (mut r, mut q) = (0, 0);
        let mut last = (0u32, 0u32);
        for patch in patches_now.iter_mut() {
            let key = (patch.a as u32, patch.b as u32);
            if key < last {
                r = rows.partition_point(|x| (x.a, x.b) < key);
                q = patches.partition_point(|x| (x.a, x.b) < key);
            } else {
                while r < rows.len() && (rows[r].a, rows[r].b) < key {
                    r += 1;
                }
                while q < patches.len() && (patches[q].a, patches[q].b) < key {
                    q += 1;
                }
            }
            last = key;
            patch.previous_rows = match rows.get(r) {
                Some(x) if (x.a, x.b) == key => r as u32,
                _ => u32::MAX,
            };
            // A pair with several patches (see `prepare`) takes its previous ones
            // by their place among the pair's: the n-th its n-th.
            let n = q + patch.group as usize;
            patch.previous_patch = match patches.get(n) {
                Some(x) if (x.a, x.b, x.group) == (key.0, key.1, patch.group) => n as u32,
                _ => u32::MAX,
            };
        }
    }
}

/// Steps of fewer patches than this find their warm impulses on the calling thread.
const PARALLEL_PATCHES: usize = 256;

/// Starts each row from the impulse its contact had at the end of the previous step (same
/// pair, same point on the tracked body within a few percent of the body's size), and each
/// patch from its pair's friction impulses, kept inside the new friction cone: the impulses
/// only, which [`warm_start`] then applies. A resting pile then needs only the change since
/// the last step, not to rebuild its whole weight chain from zero. The previous impulses are
/// multiplied by `scale`: the span of time this step's impulses carry the contact forces
/// over, to the last one's ([`WarmStartCache::span`]).
///
/// Each patch's impulses depend on its own rows and the cache only, so a large step finds
/// them on all cores: called with the patches in pair order, whose rows follow one another,
/// halves of the patches each take their own part of the rows.
pub(super) fn warm_impulses(
    cache: &WarmStartCache,
    constraints: &mut Constraints,
    bodies: &[Body],
    scale: f64,
) {
    if cache.previous.is_empty() {
        return;
    }
    let Constraints { rows, patches, .. } = constraints;
    let row_base = patches.first().map_or(0, |p| p.first);
    warm_part(
        cache,
        patches,
        &mut rows[row_base..],
        row_base,
        bodies,
        scale,
    );
}

/// [`warm_impulses`] of `patches`, whose rows are `rows` from the step's row `row_base` on.
fn warm_part(
    cache: &WarmStartCache,
    patches: &mut [Patch],
    rows: &mut [Row],
    row_base: usize,
    bodies: &[Body],
    scale: f64,
) {
    if patches.len() > PARALLEL_PATCHES {
        let (left, right) = patches.split_at_mut(patches.len() / 2);
        let split = right[0].first;
        let (left_rows, right_rows) = rows.split_at_mut(split - row_base);
        rayon::join(
            || warm_part(cache, left, left_rows, row_base, bodies, scale),
            || warm_part(cache, right, right_rows, split, bodies, scale),
        );
        return;
    }
    for patch in patches.iter_mut() {
        let (a, b) = (patch.a, patch.b);
        let key = (a as u32, b as u32);
        let t = tracked(bodies, a, b);
        let reach = 0.05 * bodies[t].bounding_radius.min(1e3);
        let mut load = Load::default();
        let earlier = match patch.previous_rows {
            u32::MAX => &[][..],
            start => &cache.previous[start as usize..],
        };
        let first = patch.first - row_base;
        for row in &mut rows[first..first + patch.count] {
            let mut best = None;
            let mut best_d = reach * reach;
            for old in earlier.iter().take_while(|x| (x.a, x.b) == key) {
                let d = (old.local - row.local).length_squared();
                if d <= best_d {
                    best_d = d;
                    best = Some(old.impulse);
                }
            }
            let Some(pn) = best.map(|p| p * scale) else {
                continue;
            };
            if pn <= 0.0 {
                continue;
            }
            row.impulse = pn;
            load.add(pn, row);
        }
        if let Some(old) = previous_patch(cache, patch) {
            let n = patch.normal;
            let mut pt = (old.tangential - old.tangential.dot(n) * n) * scale;
            let rows = &rows[first..first + patch.count];
            let (slide_share, twist_share) = sliding_shares(patch, rows);
            let limit = patch.friction * slide_share * load.total;
            if pt.length() > limit {
                pt *= limit / pt.length();
            }
            let tw_limit = patch.friction * twist_share * load.twist_moment();
            // `max`/`min`, not `clamp`: the same for a limit ≥ 0, and a NaN limit (a state gone
            // non-finite, reported at the step's end) must not panic.
            #[allow(clippy::manual_clamp)]
            let tw = if patch.twist_inv > 0.0 {
                (old.twist * scale).max(-tw_limit).min(tw_limit)
            } else {
                0.0
            };
            patch.tangential = pt;
            patch.twist = tw;
        }
    }
}

/// The patch's entry of the previous step, if it had one (`u32::MAX`: the pair had no patch
/// last step, said outright, as for the rows, not left to an index out of range).
fn previous_patch<'c>(cache: &'c WarmStartCache, patch: &Patch) -> Option<&'c SolvedPatch> {
    match patch.previous_patch {
        u32::MAX => None,
        k => cache.previous_patches.get(k as usize),
    }
}

/// Applies the warm impulses [`warm_impulses`] gave the rows and patches, patch by patch bottom
/// up ([`Constraints::bottom_up`]): each row's normal impulse, then the patch's friction at the
/// centre of the warm loads' pressure, as the sweeps apply them. Changes the moving slots'
/// velocities. The patches are in the tree's node order: `placed` gives each one's place there
/// by its place in the bottom-up order's indices (`split::group_parts`).
pub(super) fn warm_start(
    cache: &WarmStartCache,
    constraints: &Constraints,
    placed: &[u32],
    velocities: &mut Velocities,
) {
    if cache.previous.is_empty() {
        return;
    }
    for k in constraints.bottom_up() {
        let k = placed[k] as usize;
        let (rows, patch) = (&constraints.rows, &constraints.patches[k]);
        let (sa, sb) = (patch.sa, patch.sb);
        let (mut va, mut vb) = (
            read(sa, &velocities.moving, &velocities.still),
            read(sb, &velocities.moving, &velocities.still),
        );
        let (a_moves, b_moves) = (sa & STILL == 0, sb & STILL == 0);
        let mut load = Load::default();
        // The rows given an impulse (all others are still at zero, as prepared).
        for row in &rows[patch.first..patch.first + patch.count] {
            if row.impulse != 0.0 {
                load.add(row.impulse, row);
                row.apply_to(&mut va, &mut vb, a_moves, b_moves, row.impulse);
            }
        }
        if previous_patch(cache, patch).is_some() {
            // At the centre of the warm loads' pressure, as the sweeps apply it.
            let at = patch.pressure_point(&load);
            let (pt, tw) = (patch.tangential, patch.twist);
            patch.apply_at(&mut va, &mut vb, [a_moves, b_moves], at, pt, tw);
        }
        if a_moves {
            velocities.moving[sa as usize] = va;
        }
        if b_moves {
            velocities.moving[sb as usize] = vb;
        }
    }
}
