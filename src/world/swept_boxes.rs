//! Swept boxes over a step (Mirtich & Canny 1994 §3.2) and the host's broad phase: each body's
//! box from its present state to the step's end, and the pairs whose boxes overlap, from the
//! fat boxes kept across steps ([`crate::hash_grid`]).

use super::pair_bound::pair_matters;
use super::stores::{Pairs, Stores};
use crate::body::{Body, Motion};
use crate::kinematic_path::KinematicPath;
use crate::swept_aabb::{swept_aabb, Aabb};
use glam::DVec3;

/// Bodies from which a step's boxes are found on the pool's threads (fewer: on this one; an
/// island's world in the event loop has a few dozen).
pub(super) const PARALLEL_BOXES: usize = 512;

/// Fills `boxes` (emptied first) with `body_box(i)` of each of `n` bodies, in body order; on
/// the pool's threads from [`PARALLEL_BOXES`] bodies (each body's box is its own).
pub(super) fn fill_boxes(boxes: &mut Vec<Aabb>, n: usize, body_box: impl Fn(usize) -> Aabb + Sync) {
    use rayon::prelude::*;
    boxes.clear();
    if n < PARALLEL_BOXES {
        boxes.extend((0..n).map(body_box));
    } else {
        let each = (0..n).into_par_iter().with_min_len(PARALLEL_BOXES / 4);
        boxes.par_extend(each.map(&body_box));
    }
}

impl Stores {
    /// Swept box of body `i` from its current state over `dt`: for an awake dynamic body, its
    /// own present box carried along its centre's parabola and grown by the most rotation can
    /// move its support over `dt` (rotation radius × angular speed bound × dt), cut down to the
    /// bounding-sphere box of [`Self::sphere_box`] (both contain the body over the interval, so
    /// their intersection does). A cube's own box is 1.0–1.7 m wide where its sphere's is
    /// 1.73 m, so in a pile it meets about a third as many neighbours, and each neighbour costs
    /// a bound at every step start and after every impulse. (The data-parallel stages compute
    /// the same boxes in f32, padded; the host keeps, of their pairs, those whose boxes here
    /// overlap.)
    // Inlined into the per-body loops that fill a step's boxes (`fill_boxes`): left to the
    // compiler, whether it is depends on how the crate happens to be split into codegen units
    // (docs/measurements.md, "A pair's shared values taken once").
    #[inline]
    pub(super) fn body_box(&self, i: usize, dt: f64) -> Aabb {
        let b = &self.bodies[i];
        if let Some(path) = &b.path {
            return Self::path_box(b, path, dt);
        }
        let sphere = self.sphere_box(i, dt);
        if !b.is_awake_dynamic() || !b.bounding_radius.is_finite() {
            return sphere;
        }
        let (min, max) = b.collider.aabb(&b.pose());
        let path = swept_aabb(b.position, b.velocity, self.settings.gravity, dt, 0.0);
        let turn = b.rotation_radius * b.max_angular_speed() * dt;
        let own = Aabb {
            min: path.min + (min - b.position),
            max: path.max + (max - b.position),
        }
        .grown(turn + 1e-12 * (1.0 + b.position.abs().max_element() + b.bounding_radius));
        Aabb {
            min: own.min.max(sphere.min),
            max: own.max.min(sphere.max),
        }
    }

    /// Swept box over `dt` of body `b` on a prescribed path: the box its path keeps its origin
    /// in over the interval ([`KinematicPath::position_range`], exact up to rounding), grown by
    /// the body's own present box when the path never turns it, else by its bounding sphere. It
    /// follows the path, not the present velocity: a vibrating plate reverses within a step.
    fn path_box(b: &Body, path: &KinematicPath, dt: f64) -> Aabb {
        let (lo, hi) = path.position_range(b.time, b.time + dt);
        let pad = 1e-12 * (1.0 + b.position.abs().max_element() + b.bounding_radius);
        if path.rotates() {
            let r = DVec3::splat(b.bounding_radius);
            return Aabb {
                min: lo - r,
                max: hi + r,
            }
            .grown(pad);
        }
        let (min, max) = b.collider.aabb(&b.pose());
        Aabb {
            min: min + (lo - b.position),
            max: max + (hi - b.position),
        }
        .grown(pad)
    }

    /// Swept box of body `i` from its current state over `dt` from its bounding sphere (exact
    /// for fixed and sleeping bodies).
    pub(super) fn sphere_box(&self, i: usize, dt: f64) -> Aabb {
        let b = &self.bodies[i];
        match b.motion {
            Motion::Fixed => {
                let (min, max) = b.collider.aabb(&b.pose());
                Aabb { min, max }
            }
            Motion::Dynamic if b.asleep => {
                let (min, max) = b.collider.aabb(&b.pose());
                Aabb { min, max }.grown(self.settings.epsilon)
            }
            Motion::Kinematic => {
                swept_aabb(b.position, b.velocity, DVec3::ZERO, dt, b.bounding_radius)
            }
            Motion::Dynamic => swept_aabb(
                b.position,
                b.velocity,
                self.settings.gravity,
                dt,
                b.bounding_radius,
            ),
        }
    }

    /// Rebuilds all swept boxes over `dt` and puts the overlapping pairs (at least one dynamic
    /// body in each) into `pairs` (cleared first), in pair order.
    pub(super) fn collect_pairs(&mut self, dt: f64, pairs: &mut Vec<(usize, usize)>) {
        let mut boxes = std::mem::take(&mut self.pairs.boxes);
        fill_boxes(&mut boxes, self.bodies.len(), |i| self.body_box(i, dt));
        self.pairs.boxes = boxes;
        self.pairs_of_boxes(Body::moves, pair_matters, pairs);
        if !self.joints.is_empty() {
            // Jointed bodies do not collide with each other.
            pairs.retain(|&(a, b)| !self.joints.joined(a, b));
        }
    }

    /// The pairs `(min, max)` whose boxes in `self.pairs.boxes` overlap, into `out` (cleared first)
    /// in pair order: the grid starts over with the boxes ([`HashGrid::rebuild`]: a body whose
    /// box stays inside its fat box costs one test), then the pairs of at least one body that
    /// `leads` are read from the fat boxes' neighbour lists ([`HashGrid::overlapping_pairs`]),
    /// and a pair is kept if `keep` says so. In pair order, not the grid's: what follows (the
    /// contact step's Gauss–Seidel order, the seeding) then depends neither on the cell size nor
    /// on the thread count.
    ///
    /// [`HashGrid::rebuild`]: crate::hash_grid::HashGrid::rebuild
    /// [`HashGrid::overlapping_pairs`]: crate::hash_grid::HashGrid::overlapping_pairs
    pub(super) fn pairs_of_boxes(
        &mut self,
        leads: impl Fn(&Body) -> bool + Sync,
        keep: impl Fn(&Body, &Body) -> bool + Sync,
        out: &mut Vec<(usize, usize)>,
    ) {
        let bodies = &self.bodies;
        self.pairs
            .grid
            .rebuild(&self.pairs.boxes, |i| bodies[i].moves());
        self.pairs.grid.overlapping_pairs(
            &self.pairs.boxes,
            |i| leads(&bodies[i]),
            |i, j| keep(&bodies[i], &bodies[j]),
            out,
        );
    }
}

impl Pairs {
    /// Body `i`'s swept box changed mid-step (an impulse, a wake-up): stores it and enters it in
    /// the grid. In an island's stores, a box that is not inside the body's limit could reach
    /// another island: the island's run is then void (`escaped`).
    pub(super) fn set_box(&mut self, i: usize, bx: Aabb) {
        if let Some(limit) = self.limits.get(i) {
            if !limit.contains(&bx) {
                self.escaped = true;
            }
        }
        self.boxes[i] = bx;
        self.grid.insert(i, &bx);
    }
}
