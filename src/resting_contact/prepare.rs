//! The prepare stage of a contact step ([`prepare_contacts`]): each pair's contacts become its
//! normal rows (one per point, eq. 8 with a target) and its friction patch or patches, with the
//! effective masses, biases and drifts the sweeps use, taken once at the step's start.

use super::parallel_append::append_pieces;
use super::patch::{tangent_inverse, tracked, Constraints, Patch, Row};
use super::prediction::{bias, flight_slip, push_bias, PairAcceleration};
use super::{RestingContact, StepSettings};
use crate::body::Body;
use crate::collision_impulse::collision_matrix;
use glam::DVec3;

/// Steps of fewer contacts than this are prepared on the calling thread: the event loop's
/// local re-solves are a few dozen, where handing chunks to the pool costs more than it saves.
pub(super) const PARALLEL_CONTACTS: usize = 512;

/// Pairs per chunk of a step prepared on the pool's threads (a few hundred rows each).
const PAIRS_PER_CHUNK: usize = 96;

/// Patches being built, and how many rows: the step's own, or one chunk's.
#[derive(Clone, Default)]
pub(super) struct Built {
    /// Rows written so far into the rows given (from their start).
    rows: usize,
    patches: Vec<Patch>,
    /// A pair's contacts regrouped by the rounded parts they touch.
    regrouped: Vec<(u64, RestingContact)>,
}

/// Scratch of [`prepare_contacts`], kept so that a step allocates nothing once grown.
#[derive(Clone, Default)]
pub(super) struct PrepareScratch {
    /// Where each pair's run of contacts starts (and, last, where the step's end is).
    runs: Vec<u32>,
    /// One per chunk of a large step.
    chunks: Vec<Built>,
    regrouped: Vec<(u64, RestingContact)>,
}

/// Builds the rows and patches of `contacts` into `constraints` (emptied first). The contacts
/// of one pair are expected next to each other (one patch per run of a pair).
///
/// Every pair's rows and patch are a function of its contacts and its two bodies alone, so a
/// large step builds chunks of pairs on all cores: each chunk's rows in place, in the part of
/// the step's rows its contacts would fill (a contact makes at most one row), its patches
/// into its own buffer, appended in pair order: the same arrays, bit for bit, as building
/// them one pair after the other.
pub(super) fn prepare_contacts(
    constraints: &mut Constraints,
    scratch: &mut PrepareScratch,
    bodies: &[Body],
    contacts: &[RestingContact],
    settings: &StepSettings,
) {
    constraints.patches.clear();
    let runs = &mut scratch.runs;
    runs.clear();
    for (k, c) in contacts.iter().enumerate() {
        if k == 0 || (contacts[k - 1].a, contacts[k - 1].b) != (c.a, c.b) {
            runs.push(k as u32);
        }
    }
    runs.push(contacts.len() as u32);
    let pairs = runs.len() - 1;
    // Room for a row per contact, grown only: every row read is written first (the patches
    // name theirs), and the rows are cut to those written below.
    let rows = &mut constraints.rows;
    if rows.len() < contacts.len() {
        rows.resize(contacts.len(), Row::default());
    }
    let runs = &*runs;
    let build = |built: &mut Built, rows: &mut [Row], pairs: std::ops::Range<usize>| {
        for p in pairs {
            let run = &contacts[runs[p] as usize..runs[p + 1] as usize];
            add_patches(built, rows, bodies, run, settings);
        }
    };
    if contacts.len() < PARALLEL_CONTACTS {
        let mut built = Built {
            rows: 0,
            patches: std::mem::take(&mut constraints.patches),
            regrouped: std::mem::take(&mut scratch.regrouped),
        };
        build(&mut built, rows, 0..pairs);
        rows.truncate(built.rows);
        constraints.patches = built.patches;
        scratch.regrouped = built.regrouped;
        return;
    }
    let chunks = pairs.div_ceil(PAIRS_PER_CHUNK);
    if scratch.chunks.len() < chunks {
        scratch.chunks.resize_with(chunks, Built::default);
    }
    let built = &mut scratch.chunks[..chunks];
    // The first contact of chunk `k` (and, for `k == chunks`, the end).
    let start = |k: usize| runs[(k * PAIRS_PER_CHUNK).min(pairs)] as usize;
    build_chunks(
        built,
        0,
        &mut rows[..contacts.len()],
        &start,
        &|k, built, rows| {
            built.rows = 0;
            built.patches.clear();
            build(
                built,
                rows,
                k * PAIRS_PER_CHUNK..((k + 1) * PAIRS_PER_CHUNK).min(pairs),
            );
        },
    );
    // Each chunk's patches count their rows and ranks from the chunk's first. A chunk that
    // wrote fewer rows than its contacts (a pair neither of whose bodies yields) leaves a gap,
    // closed by moving the later rows down.
    let (mut base, mut rank) = (0, 0);
    for (k, built) in built.iter_mut().enumerate() {
        let from = start(k);
        if base != from {
            rows.copy_within(from..from + built.rows, base);
        }
        for p in &mut built.patches {
            p.first += base;
            p.rank += rank;
        }
        base += built.rows;
        rank += built.patches.len() as u32;
    }
    rows.truncate(base);
    append_pieces(&mut constraints.patches, built, |b| &b.patches, 1);
}

/// Runs `build(k, chunk, rows)` for every chunk `first + k` of `chunks` on the pool's threads,
/// each with its own part of `rows` (which starts at chunk `first`'s first contact; chunk
/// `k`'s part runs from `start(k)` to `start(k + 1)`).
fn build_chunks(
    chunks: &mut [Built],
    first: usize,
    rows: &mut [Row],
    start: &(impl Fn(usize) -> usize + Sync),
    build: &(impl Fn(usize, &mut Built, &mut [Row]) + Sync),
) {
    if let [chunk] = chunks {
        build(first, chunk, rows);
        return;
    }
    let mid = chunks.len() / 2;
    let (left, right) = chunks.split_at_mut(mid);
    let (left_rows, right_rows) = rows.split_at_mut(start(first + mid) - start(first));
    rayon::join(
        || build_chunks(left, first, left_rows, start, build),
        || build_chunks(right, first + mid, right_rows, start, build),
    );
}

/// Adds one pair's contacts (`run`) as patches: one for all of them, unless they lie on
/// different balls or capsules of a compound (a tippe top leaning on its ball and its
/// stem's end): each such part's contacts then make their own patch. One patch's twisting
/// friction over two separate bearings 2 to 3 cm apart, most of the load on one, took the
/// leaning top's spin from 105 to 14 rad/s within 0.2 s, where an independent integration
/// keeps it (72 rad/s after 3 s at μ = 0.1). Faces, edges and flat parts keep one patch:
/// a face resting on four corners is statically indeterminate (see `Patch`).
fn add_patches(
    built: &mut Built,
    rows: &mut [Row],
    bodies: &[Body],
    run: &[RestingContact],
    settings: &StepSettings,
) {
    let (a, b) = (run[0].a as usize, run[0].b as usize);
    // Only a compound with a curved part can touch at several (every pair of a pile of
    // cubes takes the first branch without a rotation per point).
    let compound = |i: usize| bodies[i].collider.is_rolling_compound();
    if run.len() < 2 || !(compound(a) || compound(b)) {
        add_patch(built, rows, bodies, run, settings);
        return;
    }
    let key = |c: &RestingContact| {
        let part = |i: usize| {
            let body = &bodies[i];
            let local = body.orientation.inverse() * (c.position - body.position);
            body.collider
                .rolling_part(local)
                .map_or(u32::MAX, |k| k as u32)
        };
        ((part(a) as u64) << 32) | part(b) as u64
    };
    let mut regrouped = std::mem::take(&mut built.regrouped);
    regrouped.clear();
    regrouped.extend(run.iter().map(|c| (key(c), *c)));
    if regrouped.iter().all(|x| x.0 == regrouped[0].0) {
        add_patch(built, rows, bodies, run, settings);
    } else {
        // Grouped by part, in the order each part first appears (stable within a part).
        let mut order: Vec<u64> = Vec::new();
        for &(k, _) in regrouped.iter() {
            if !order.contains(&k) {
                order.push(k);
            }
        }
        let mut group: Vec<RestingContact> = Vec::with_capacity(run.len());
        for (n, k) in order.into_iter().enumerate() {
            group.clear();
            group.extend(regrouped.iter().filter(|x| x.0 == k).map(|x| x.1));
            let before = built.patches.len();
            add_patch(built, rows, bodies, &group, settings);
            if let Some(patch) = built.patches.get_mut(before) {
                patch.group = n as u16;
            }
        }
    }
    built.regrouped = regrouped;
}

/// Adds the rows of one pair's contact points, written into `rows` from `built.rows` on, and
/// their patch.
fn add_patch(
    built: &mut Built,
    rows: &mut [Row],
    bodies: &[Body],
    points: &[RestingContact],
    settings: &StepSettings,
) {
    let h = settings.h;
    let (a, b) = (points[0].a as usize, points[0].b as usize);
    let (ba, bb) = (&bodies[a], &bodies[b]);
    let first = built.rows;
    let t = tracked(bodies, a, b);
    // What every point of the pair shares, taken once: the bodies' inverse masses and world
    // inverse inertias, their accelerations, the tracked body's frame.
    let (inv_mass_a, inv_mass_b) = (ba.effective_inv_mass(), bb.effective_inv_mass());
    let (inv_inertia_a, inv_inertia_b) = (ba.inv_inertia_world(), bb.inv_inertia_world());
    let accelerations = PairAcceleration::new(ba, bb, settings.gravity);
    let (to_tracked, tracked_at) = (bodies[t].orientation.inverse(), bodies[t].position);
    // The collision matrix K of a point at r_a, r_b from the two centres of mass.
    let k_at = |ra: DVec3, rb: DVec3| {
        collision_matrix(
            inv_mass_a,
            &inv_inertia_a,
            ra,
            inv_mass_b,
            &inv_inertia_b,
            rb,
        )
    };
    let mut centroid = DVec3::ZERO;
    let mut normal = DVec3::ZERO;
    // Half the gap along the normal, summed: each body's own surface point is that far
    // from the contact's midpoint (a's towards a, b's towards b).
    let mut half_gap = DVec3::ZERO;
    for c in points {
        let (ra, rb) = (c.position - ba.position, c.position - bb.position);
        let n = c.normal;
        let (ang_a, ang_b) = (inv_inertia_a * ra.cross(n), inv_inertia_b * rb.cross(n));
        // n·K·n without forming K: 1/m_a + (r_a×n)·I_a⁻¹(r_a×n), and the same for b.
        let k_a = inv_mass_a + ra.cross(n).dot(ang_a);
        let k_b = inv_mass_b + rb.cross(n).dot(ang_b);
        let k_nn = k_a + k_b;
        if k_nn.is_nan() || k_nn <= 1e-300 {
            continue; // neither body yields
        }
        let inverse = |k: f64| if k > 1e-300 { 1.0 / k } else { 0.0 };
        let acc = accelerations.at(ra, rb, n, h);
        let shortfall = push_bias(c.separation, settings.target, settings.push_out, h);
        rows[built.rows] = Row {
            ra,
            rb,
            normal: n,
            // With split push-outs the row only stops a near contact from closing; the
            // push-out restores its shortfall (`push_apart`). Otherwise the row's own bias
            // does, as a velocity that stays.
            bias: if settings.split_push {
                bias(c.separation, settings.target, h)
            } else {
                bias(c.separation, settings.target, h) + shortfall
            },
            push: if settings.split_push { shortfall } else { 0.0 },
            drift: 0.5 * h * acc.dot(n),
            k_nn,
            inv_k_nn: 1.0 / k_nn,
            inv_k_a: inverse(k_a),
            inv_k_b: inverse(k_b),
            lin_a: n * inv_mass_a,
            ang_a,
            lin_b: n * inv_mass_b,
            ang_b,
            impulse: 0.0,
            one_sided: 0.0,
            local: to_tracked * (c.position - tracked_at),
            spread: DVec3::ZERO,
            spread_sq: 0.0,
            lever: 0.0,
            slip: DVec3::ZERO,
            twist_arm: 0.0,
        };
        built.rows += 1;
        centroid += c.position;
        normal += c.normal;
        half_gap += 0.5 * c.separation * c.normal;
    }
    let count = built.rows - first;
    if count == 0 {
        return;
    }
    let rows = &mut rows[first..built.rows];
    let centroid = centroid / count as f64;
    let normal = normal.normalize_or(points[0].normal);
    for r in rows.iter_mut() {
        let d = r.ra + ba.position - centroid;
        r.spread = d - d.dot(normal) * normal;
        r.spread_sq = r.spread.length_squared();
        r.lever = r.spread_sq.sqrt();
    }
    let radius = rows.iter().map(|r| r.lever).sum::<f64>() / count as f64;
    // A ball or capsule rolling on a body that takes no impulse (a floor, a kinematic
    // platter) has its friction act between the two bodies' own surface points, not at the
    // midpoint of the gap: there it would roll on r + gap/2 (2.5 % too fast for its spin
    // at r = 1 cm and a gap of ε_c/2 = 0.5 mm). Elsewhere at the midpoint: between two
    // bodies that both yield, equal and opposite impulses at two points a gap apart would
    // turn the pair (angular momentum must be kept), and a face resting on a face does not
    // roll (moving its friction off the midpoint only changed how a flat coin rocks).
    let rolls = |b: &Body, p: DVec3| {
        b.collider
            .rolling_core(b.orientation.inverse() * (p - b.position))
            .is_some()
    };
    let half_gap = half_gap / count as f64;
    let half_gap = match (inv_mass_a > 0.0, inv_mass_b > 0.0) {
        (true, false) if rolls(ba, centroid + half_gap) => half_gap,
        (false, true) if rolls(bb, centroid - half_gap) => half_gap,
        _ => DVec3::ZERO,
    };
    let (ra, rb) = (
        centroid + half_gap - ba.position,
        centroid - half_gap - bb.position,
    );
    let k = k_at(ra, rb);
    let twist_k = normal.dot(inv_inertia_a * normal) + normal.dot(inv_inertia_b * normal);
    // A slip the step could not move the points by more than the solve's tolerance is
    // left out: on a resting stack it is the sweeps' own residual spin, noise that would
    // only cost sweeps.
    let slip = flight_slip(ba, bb, ra, rb, normal, h);
    let slip = if slip.length() * h > settings.tolerance {
        slip
    } else {
        DVec3::ZERO
    };
    let drift = 0.5 * h * accelerations.at(ra, rb, normal, h) + slip;
    let friction = points[0].friction;
    let u =
        ba.velocity + ba.angular_velocity.cross(ra) - bb.velocity - bb.angular_velocity.cross(rb)
            + drift;
    let spin = normal.dot(ba.angular_velocity - bb.angular_velocity);
    // A patch slides through the step if friction cannot stop it within the step.
    let stoppable = friction * settings.gravity.length() * h + settings.tolerance / h;
    let slides = slip_directions(rows, normal, u, spin, stoppable);
    built.patches.push(Patch {
        a,
        b,
        ra,
        rb,
        normal,
        friction,
        drift,
        k,
        inv_mass_a,
        inv_mass_b,
        inv_inertia_a,
        inv_inertia_b,
        k_tt_inv: tangent_inverse(&k, normal),
        twist_inv: if twist_k > 1e-300 && radius > 0.0 {
            1.0 / twist_k
        } else {
            0.0
        },
        radius,
        first,
        count,
        slides,
        tangential: DVec3::ZERO,
        twist: 0.0,
        one_sided: (DVec3::ZERO, 0.0),
        height: -centroid.dot(settings.gravity),
        sa: u32::MAX,
        sb: u32::MAX,
        node: 1,
        previous_rows: u32::MAX,
        previous_patch: u32::MAX,
        group: 0,
        rank: built.patches.len() as u32,
    });
}

/// Sets the rows' slip directions for a patch whose points slip at `u_t + spin·n × sᵢ` (`u_t`
/// the tangential part of `u`, at the centroid; `sᵢ` each row's spread from it) and returns
/// true, if that slip, `|u_t| + |spin|·ρ` with ρ the points' mean distance from the centroid,
/// is more than `stoppable` (what the patch's friction can stop within the step); else leaves
/// them as they are (zero) and returns false: the patch may stick, and its friction keeps both
/// limits whole (see `friction::sliding_shares`).
fn slip_directions(rows: &mut [Row], n: DVec3, u: DVec3, spin: f64, stoppable: f64) -> bool {
    let ut = u - u.dot(n) * n;
    let lever: f64 = rows.iter().map(|r| r.lever).sum();
    if ut.length() + spin.abs() * lever / rows.len() as f64 <= stoppable {
        return false;
    }
    for r in rows.iter_mut() {
        let slip = ut + spin * n.cross(r.spread);
        r.slip = slip.normalize_or_zero();
        r.twist_arm = n.dot(r.spread.cross(r.slip));
    }
    true
}
