//! Building a world from bodies already made, and the pairs that overlap at the start.
//!
//! Where the bodies come from is not the engine's business: the scene module reads them from a
//! scene file (`World::new` lives there, in `scene/build_world.rs`), so that the file format
//! depends on the engine and never the reverse.

use super::settings::{Settings, WorldConfig};
use super::stores::{Clock, Stores};
use super::swept_boxes::fill_boxes;
use super::{Counts, Stepper, World};
use crate::body::Body;
use crate::hash_grid::PairPass;
use crate::joints::Joints;
use crate::material::MaterialTable;

impl World {
    /// A world at t = 0 of `bodies` (at their initial states, bounds refreshed) and `joints`
    /// between them, configured by `config` with the material table `materials`.
    pub(crate) fn from_bodies(
        bodies: Vec<Body>,
        joints: Joints,
        config: &WorldConfig,
        materials: MaterialTable,
    ) -> World {
        let mut settings = Settings::new(config, materials);
        if !joints.is_empty() {
            // A collision's impulse moves its whole articulation, which an island's stores
            // do not hold: jointed worlds run one event loop (same results, fewer threads).
            settings.parallel_islands = false;
        }
        World {
            stores: Stores {
                bodies,
                settings,
                joints,
                clock: Clock {
                    contact_step: config.contact_step,
                    ..Default::default()
                },
                // Time 0, empty heap, grid and buffers.
                ..Stores::default()
            },
            stepper: Stepper::new(config.method),
            // No stages, empty buffers.
            ..World::default()
        }
    }

    /// The first `most` pairs of bodies that overlap at t = 0, in the broad phase's order: their
    /// indices (a, b) and the depth (m, > 0); or the first pair whose query the geometry library
    /// failed on, with its message. It stops at `most`, and lists a body's pairs only after the
    /// previous body's are measured: a scene of 10 000 bodies all overlapping would otherwise
    /// measure 3 million pairs (70 s) or list 5e7 (5 GB). The measuring leaves the run's
    /// counters at zero.
    #[allow(clippy::type_complexity)]
    pub(crate) fn initial_overlaps(
        &mut self,
        most: usize,
    ) -> Result<Vec<(usize, usize, f64)>, (usize, usize, String)> {
        let stores = &mut self.stores;
        let mut boxes = std::mem::take(&mut stores.pairs.boxes);
        fill_boxes(&mut boxes, stores.bodies.len(), |i| stores.body_box(i, 0.0));
        // A body's pairs at a time, measured before the next body's are listed: a scene of
        // bodies all overlapping stops at the first body's.
        let mut pass = PairPass::new(&boxes, |i| stores.bodies[i].moves());
        let (mut pairs, mut overlaps) = (Vec::new(), Vec::new());
        let mut failed = None;
        'pass: while pass.next_body(
            |i| stores.bodies[i].moves(),
            |a, b| stores.pair_matters(a, b),
            &mut pairs,
        ) {
            for &(a, b) in &pairs {
                let d = stores.measure(a, b, &mut self.scratch.points);
                if let Some(failure) = stores.stats.geometry_failure.take() {
                    failed = Some((a, b, failure.message));
                    break 'pass;
                }
                if d < -1e-9 {
                    overlaps.push((a, b, -d));
                    if overlaps.len() == most {
                        break 'pass;
                    }
                }
            }
        }
        stores.pairs.boxes = boxes;
        stores.stats.counts = Counts::default();
        match failed {
            Some(failure) => Err(failure),
            None => Ok(overlaps),
        }
    }
}
