//! Seeding a step through the data-parallel stages ([`crate::stages`], GPU or CPU twins): the
//! bodies packed as f32 (rounded outwards), the stages' pairs and bounds read back and kept where
//! the host's own f64 boxes overlap, so both paths seed and query the same pairs.

use super::{SimError, World};
use crate::body::Motion;
use crate::stages::{
    self, f32_above, f32_below, BoxOverride, FrameParams, FrameStages, FrameStagesHost, StageBody,
};

/// Reusable buffers of the stages' seeding.
#[derive(Default)]
pub(super) struct StageScratch {
    /// The bodies as the stages take them.
    pub(super) bodies: Vec<StageBody>,
    /// The stages' bound of each of a step's pairs.
    pub(super) bounds: Vec<f32>,
}

impl World {
    /// Seeds the heap for frame [t0, t1] from the data-parallel stages. Every body is at t0, so
    /// the stage bodies are given time 0 = frame start (f32 times stay exact). The stages' boxes
    /// are the f32 twins of [`Self::body_box`] (each awake dynamic body's own box is passed in,
    /// rounded outwards) padded by ε/2 and rounding, so they contain the host's; the host keeps,
    /// of their pairs, those whose own f64 boxes overlap, and a grid of those boxes for the
    /// queries after events, so both paths seed and query the same pairs.
    pub(super) fn seed_frame_with_stages(&mut self, t0: f64, t1: f64) -> Result<(), SimError> {
        let bodies = &mut self.stage_scratch.bodies;
        bodies.clear();
        let mut overrides = Vec::new();
        for (i, b) in self.stores.bodies.iter().enumerate() {
            let motion = match b.motion {
                Motion::Dynamic if b.asleep => stages::MOTION_FIXED,
                Motion::Dynamic => stages::MOTION_DYNAMIC,
                Motion::Fixed => stages::MOTION_FIXED,
                Motion::Kinematic => stages::MOTION_KINEMATIC,
            };
            let radius = if b.bounding_radius.is_finite() {
                b.bounding_radius
            } else {
                0.0
            };
            let q = b.orientation;
            let (down, up) = (f32_below, f32_above);
            // The own box, as in `body_box`, for the awake dynamic bodies.
            let (own_min, own_max, has_own_box) =
                if motion == stages::MOTION_DYNAMIC && b.bounding_radius.is_finite() {
                    let (min, max) = b.collider.aabb(&b.pose());
                    let (lo, hi) = (min - b.position, max - b.position);
                    (
                        [down(lo.x), down(lo.y), down(lo.z)],
                        [up(hi.x), up(hi.y), up(hi.z)],
                        1,
                    )
                } else {
                    ([0.0; 3], [0.0; 3], 0)
                };
            bodies.push(StageBody {
                position: b.position.as_vec3().to_array(),
                time: 0.0,
                orientation: [q.x as f32, q.y as f32, q.z as f32, q.w as f32],
                velocity: b.velocity.as_vec3().to_array(),
                bounding_radius: (radius * (1.0 + 1e-6)) as f32,
                angular_velocity: b.angular_velocity.as_vec3().to_array(),
                rotation_radius: up(b.rotation_radius),
                inv_inertia: b.inv_inertia.as_vec3().to_array(),
                motion,
                own_min,
                max_angular_speed: up(b.max_angular_speed()),
                own_max,
                has_own_box,
            });
            if b.path.is_some() {
                // A body on a path: the stages sweep constant velocities, so the host passes
                // its swept box over the path (rounded outwards); its pairs' stage bounds are
                // not used (`seed_pairs`).
                let bx = self.stores.body_box(i, t1 - t0);
                let aabb = stages::StageAabb::new(
                    [down(bx.min.x), down(bx.min.y), down(bx.min.z)],
                    [up(bx.max.x), up(bx.max.y), up(bx.max.z)],
                    motion,
                );
                overrides.push(BoxOverride::new(i as u32, aabb));
            } else if motion == stages::MOTION_FIXED || !b.bounding_radius.is_finite() {
                // Exact boxes for fixed bodies (a floor's bounding sphere would be useless),
                // rounded outwards to f32.
                let (min, max) = b.collider.aabb(&b.pose());
                let aabb = stages::StageAabb::new(
                    [down(min.x), down(min.y), down(min.z)],
                    [up(max.x), up(max.y), up(max.z)],
                    motion,
                );
                overrides.push(BoxOverride::new(i as u32, aabb));
            }
        }
        let g = self.stores.settings.gravity.as_vec3().to_array();
        let params = FrameParams::new(
            g,
            0.0,
            (t1 - t0) as f32,
            self.stores.settings.epsilon as f32,
        );
        let stages = self.stages.as_mut().expect("stages set");
        let clock = std::time::Instant::now();
        let out = stages
            .frame(bodies, &overrides, &params)
            .map_err(|e| SimError::Stage(e.to_string()))?;
        self.stores.stats.stage_times.frame_stages += clock.elapsed().as_secs_f64();
        // The host's own f64 boxes for the per-event queries (the same as on the host path,
        // so a query after an event finds the same neighbours on both paths: the f32 boxes are
        // padded outwards and would add pairs at the edges, each then measured and bounded
        // along its own axis, which moves later events by rounding amounts).
        self.stores.pairs.boxes.clear();
        for i in 0..self.stores.bodies.len() {
            let b = self.stores.body_box(i, t1 - t0);
            self.stores.pairs.boxes.push(b);
        }
        debug_assert_eq!(out.boxes.len(), self.stores.pairs.boxes.len());
        let bodies_ref = &self.stores.bodies;
        self.stores
            .pairs
            .grid
            .rebuild(&self.stores.pairs.boxes, |i| {
                bodies_ref[i].motion != Motion::Fixed
            });
        // The stages' boxes contain the host's (padded by ε/2 and rounding): their pairs
        // include every pair of the host's boxes, which keep exactly the host path's pairs.
        // A pair measured before is bounded along its last separating axis, as on the host
        // path: the seeds then differ from the host's only for pairs never measured.
        let pairs = &mut self.scratch.step_pairs;
        pairs.clear();
        let stage_bounds = &mut self.stage_scratch.bounds;
        stage_bounds.clear();
        for pb in &out.bounds {
            let (a, b) = (pb.a as usize, pb.b as usize);
            if self.stores.pairs.boxes[a].overlaps(&self.stores.pairs.boxes[b])
                && self.stores.pair_matters(a, b)
            {
                pairs.push((a, b));
                stage_bounds.push(pb.toi_bound);
            }
        }
        self.stores.stats.counts.broad_phase_pairs += pairs.len() as u64;
        self.stores
            .seed_pairs(pairs, Some(stage_bounds), t0, &mut self.scratch.seeding);
        Ok(())
    }
}

/// How `crate::gpu::Backend::install` hands a world its stages (the gpu module does not import
/// the world).
impl FrameStagesHost for World {
    fn set_frame_stages(&mut self, stages: Box<dyn FrameStages>) {
        World::set_frame_stages(self, stages);
    }
}
