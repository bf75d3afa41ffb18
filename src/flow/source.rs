//! The sources of a run: which bodies are due when, and where each is placed.
//!
//! Source `s` has its k-th body due at `start + k / rate` (k = 0, 1, … while before `stop`).
//! [`Sources::pour`] runs at the end of every step (time t, see [`super::Flow`]): each body due
//! at or before t is placed then, at a random point of the region and, unless the source gives one, a random
//! orientation; a place where it would overlap a body (the broad phase's boxes, then the narrow
//! phase) is drawn again, up to [`MAX_ATTEMPTS`] times, after which the body is counted as
//! unplaced. The draws come from one ChaCha8 stream per source, seeded by its `seed`, in the
//! order the bodies fall due, and the placement runs on one thread: the bodies poured are the
//! same for a seed whatever the thread count.

use crate::body::Body;
use crate::scene::Region;
use crate::scene::{Scene, SceneError, SourceSpec};
use crate::world::World;
use glam::{DQuat, DVec3};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Places drawn for one body before it is counted as unplaced (LIGGGHTS' `maxattempt`, whose
/// default is 50; a region two-thirds full of bodies still finds a place within this many).
pub const MAX_ATTEMPTS: u32 = 100;

/// A uniform `f64` in [0, 1) from the top 53 bits of one `next_u64` (the stream's own bits, not
/// a `rand` version's mapping of them).
fn unit(rng: &mut ChaCha8Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A rotation drawn uniformly (Shoemake 1992, "Uniform random rotations": a unit quaternion
/// from three uniform draws).
fn uniform_rotation(rng: &mut ChaCha8Rng) -> DQuat {
    let (u1, u2, u3) = (unit(rng), unit(rng), unit(rng));
    let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
    let (t2, t3) = (std::f64::consts::TAU * u2, std::f64::consts::TAU * u3);
    DQuat::from_xyzw(a * t2.sin(), a * t2.cos(), b * t3.sin(), b * t3.cos()).normalize()
}

/// A point drawn uniformly in `region`.
fn point_in(region: &Region, rng: &mut ChaCha8Rng) -> DVec3 {
    let u = DVec3::new(unit(rng), unit(rng), unit(rng)) * 2.0 - DVec3::ONE;
    region.point_at(u)
}

/// One kind of body of a source, built once: its body at the origin, and how to place it.
struct Kind {
    weight: f64,
    /// Its shape's volume (m³).
    volume: f64,
    body: Body,
    orientation: Option<DQuat>,
    velocity: DVec3,
    angular_velocity: DVec3,
}

/// One source while the run goes.
struct Source {
    spec: SourceSpec,
    kinds: Vec<Kind>,
    rng: ChaCha8Rng,
    /// The next body due (k).
    next: u64,
    /// Bodies placed so far: the next one is named `<name>_<placed>`.
    placed: u64,
}

/// The sources of a run (see the module doc).
pub struct Sources {
    sources: Vec<Source>,
}

impl Sources {
    /// The sources of `scene`, their bodies built (mass properties, colliders) once; `None`
    /// for a scene without sources.
    pub fn new(scene: &Scene) -> Result<Option<Sources>, SceneError> {
        if scene.sources.is_empty() {
            return Ok(None);
        }
        let materials = scene.material_table()?;
        let mut sources = Vec::with_capacity(scene.sources.len());
        for spec in &scene.sources {
            let mut kinds = Vec::with_capacity(spec.bodies.len());
            for (k, kind) in spec.bodies.iter().enumerate() {
                let mut body = kind.spec.clone();
                body.name = match spec.bodies.len() {
                    1 => format!("{}_<k>", spec.name),
                    _ => format!("{}_<k> (bodies[{k}])", spec.name),
                };
                body.origin = spec.origin.clone();
                body.orientation = DQuat::IDENTITY;
                body.velocity = DVec3::ZERO;
                body.angular_velocity = DVec3::ZERO;
                let volume = super::unit_volume(&body.shape).unwrap_or(0.0);
                kinds.push(Kind {
                    weight: kind.weight,
                    volume,
                    body: crate::scene::body_from_spec(&body, &materials)?,
                    orientation: kind.orientation,
                    velocity: kind.spec.velocity,
                    angular_velocity: kind.spec.angular_velocity,
                });
            }
            sources.push(Source {
                spec: spec.clone(),
                kinds,
                rng: ChaCha8Rng::seed_from_u64(spec.seed),
                next: 0,
                placed: 0,
            });
        }
        Ok(Some(Sources { sources }))
    }

    /// Inserts into `world` every body due at or before its time, source by source in the
    /// scene's order, each source's bodies in the order they fell due; `poured` is told each
    /// body's name and volume.
    pub fn pour(&mut self, world: &mut World, mut poured: impl FnMut(&str, f64)) {
        let t = world.time();
        for source in &mut self.sources {
            while source.next < source.spec.planned() && source.spec.due(source.next) <= t {
                source.next += 1;
                match source.place(world, t) {
                    Some((body, kind, volume)) => {
                        poured(&body.name, volume);
                        world.insert_body(body, (&source.spec.name, kind as u32));
                        source.placed += 1;
                    }
                    None => world.note_unplaced(),
                }
            }
        }
    }
}

impl Source {
    /// The next body drawn for a free place at time `t`, named, with its kind and volume;
    /// `None` if none was found in [`MAX_ATTEMPTS`] draws.
    fn place(&mut self, world: &World, t: f64) -> Option<(Body, usize, f64)> {
        let k = self.pick();
        let kind = &self.kinds[k];
        for _ in 0..MAX_ATTEMPTS {
            let position = point_in(&self.spec.region, &mut self.rng);
            let orientation = match kind.orientation {
                Some(q) => q,
                None => uniform_rotation(&mut self.rng),
            };
            let body = crate::scene::body_placed(
                kind.body.clone(),
                (position, orientation),
                (kind.velocity, kind.angular_velocity),
                t,
            );
            if !world.overlaps_any(&body) {
                let mut body = body;
                body.name = format!("{}_{}", self.spec.name, self.placed);
                return Some((body, k, kind.volume));
            }
        }
        None
    }

    /// Which kind of body comes next: by weight, one draw (none for a single kind).
    fn pick(&mut self) -> usize {
        if self.kinds.len() == 1 {
            return 0;
        }
        let total: f64 = self.kinds.iter().map(|k| k.weight).sum();
        let mut x = unit(&mut self.rng) * total;
        for (i, k) in self.kinds.iter().enumerate() {
            if x < k.weight {
                return i;
            }
            x -= k.weight;
        }
        self.kinds.len() - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shoemake's draw gives unit quaternions whose rotated z axes cover the sphere evenly: the
    /// mean of the rotated axis is near zero and a third of its squared components each.
    #[test]
    fn uniform_rotations_spread_the_axis_evenly() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let n = 20_000;
        let (mut mean, mut sq) = (DVec3::ZERO, DVec3::ZERO);
        for _ in 0..n {
            let q = uniform_rotation(&mut rng);
            assert!((q.length() - 1.0).abs() < 1e-12);
            let z = q * DVec3::Z;
            mean += z;
            sq += z * z;
        }
        mean /= n as f64;
        sq /= n as f64;
        println!("mean axis {mean}, mean squares {sq} (expected 0 and 1/3 each)");
        assert!(mean.abs().max_element() < 0.02, "{mean}");
        assert!(
            (sq - DVec3::splat(1.0 / 3.0)).abs().max_element() < 0.02,
            "{sq}"
        );
    }
}
