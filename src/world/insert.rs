//! Bodies added to a running world between frames (`[[sources]]`, see [`crate::flow`]): where
//! one may go without overlapping a body already there, and its insertion.
//!
//! A body is inserted only where every body is at the world time, between steps: the step the
//! last frame prepared ([`World::prepare_next_step`]) is put back first and done again with the
//! new body, as a frame that starts another step does. Every store sized per body grows with
//! the bodies when a stage next needs it, so the body takes part from the next step on.

use super::collide::body_proximity;
use super::World;
use crate::body::Body;

impl World {
    /// Whether `body` (at the world time) would overlap any body of the world: its box against
    /// theirs, then the narrow phase where the boxes overlap. A pair whose geometry query fails
    /// counts as overlapping: the body is not put where it cannot be measured.
    pub(crate) fn overlaps_any(&self, body: &Body) -> bool {
        let boxed = |b: &Body| {
            b.bounding_radius
                .is_finite()
                .then(|| b.collider.aabb(&b.pose()))
        };
        let own = boxed(body);
        let mut points = Vec::new();
        self.stores.bodies.iter().any(|other| {
            let near = match (own, boxed(other)) {
                (Some((lo, hi)), Some((olo, ohi))) => lo.cmple(ohi).all() && olo.cmple(hi).all(),
                _ => true,
            };
            near && body_proximity(body, other, 0.0, &mut points).map_or(true, |d| d <= 0.0)
        })
    }

    /// Adds `body` to the world at the world time (its clock is set to it); returns its index.
    pub(crate) fn insert_body(&mut self, mut body: Body) -> usize {
        self.undo_prepared();
        body.time = self.stores.clock.time;
        self.stores.bodies.push(body);
        self.stores.stats.counts.inserted += 1;
        self.stores.bodies.len() - 1
    }

    /// Counts a body a source could not place.
    pub(crate) fn note_unplaced(&mut self) {
        self.stores.stats.counts.unplaced += 1;
    }
}
