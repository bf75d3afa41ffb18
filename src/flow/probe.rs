//! The probes of a run ([`ProbeSpec`]): what they measure between steps and at each frame.
//!
//! A `flow` probe follows each dynamic body's centre of mass from step end to step end (every
//! body at one time there, before the sinks take bodies out and after the sources pour): a
//! centre that passes from behind the rectangle's plane to its front (along `normal`) through
//! the rectangle counts +1 body and + its mass, one that passes back −1 and − its mass. The
//! frame's totals are written at its end. A body is followed by its name, so the counts do not
//! depend on the renumbering that removals make.
//!
//! A `region` probe reads the world at the frame's end: the dynamic bodies whose centres of mass
//! are in the region, the sum of their volumes over the region's (`solid_fraction`: each body
//! counted whole where its centre is), the mean of their centre-of-mass velocities and the sum
//! of their kinetic energies, with the velocities frames.csv reports.

use crate::scene::{ProbeKind, ProbeSpec, Region};
use crate::world::{ProbeRow, World};
use glam::DVec3;
use rustc_hash::FxHashMap;

/// A body followed by the flow probes: its centre at the last step end, its mass, and the stamp
/// of the last step end that saw it.
struct Followed {
    centre: DVec3,
    mass: f64,
    seen: u64,
}

/// The probes of a run and what they have gathered since the last frame.
pub struct Probes {
    specs: Vec<ProbeSpec>,
    /// Per probe, the frame's net bodies and mass (flow probes).
    crossed: Vec<(f64, f64)>,
    /// The dynamic bodies by name (flow probes only).
    followed: FxHashMap<String, Followed>,
    stamp: u64,
    /// The volume of each dynamic body by name (region probes).
    volumes: FxHashMap<String, f64>,
}

/// Whether the segment from `p0` to `p1` crosses the rectangle of a flow probe: +1 along its
/// normal, −1 against it, 0 if not (a centre that ends on the plane has crossed it).
fn crossing(kind: &ProbeKind, p0: DVec3, p1: DVec3) -> f64 {
    let ProbeKind::Flow {
        center,
        half_extents: [hu, hv],
        normal,
        u,
        v,
    } = *kind
    else {
        return 0.0;
    };
    let (s0, s1) = ((p0 - center).dot(normal), (p1 - center).dot(normal));
    let sign = match (s0 < 0.0, s1 < 0.0) {
        (true, false) => 1.0,
        (false, true) => -1.0,
        _ => return 0.0,
    };
    let x = p0 + (p1 - p0) * (s0 / (s0 - s1));
    let d = x - center;
    if d.dot(u).abs() <= hu && d.dot(v).abs() <= hv {
        sign
    } else {
        0.0
    }
}

impl Probes {
    /// The probes of `specs`, with the dynamic bodies' volumes by name (`volumes`); `None`
    /// without probes.
    pub fn new(specs: &[ProbeSpec], volumes: FxHashMap<String, f64>) -> Option<Probes> {
        (!specs.is_empty()).then(|| Probes {
            specs: specs.to_vec(),
            crossed: vec![(0.0, 0.0); specs.len()],
            followed: FxHashMap::default(),
            stamp: 0,
            volumes,
        })
    }

    /// Records the volume of a body poured in.
    pub fn note_volume(&mut self, name: &str, volume: f64) {
        self.volumes.insert(name.to_string(), volume);
    }

    fn follows(&self) -> bool {
        self.specs
            .iter()
            .any(|s| matches!(s.kind, ProbeKind::Flow { .. }))
    }

    /// At a step's end: counts the crossings of every followed body since the last, and starts
    /// following the bodies not yet followed (`counting` false: only that, for bodies just
    /// poured in).
    pub fn observe(&mut self, world: &World, counting: bool) {
        if !self.follows() {
            return;
        }
        self.stamp += 1;
        for i in 0..world.body_count() {
            let body = world.body(i);
            if !body.is_dynamic() {
                continue;
            }
            let centre = body.position;
            match self.followed.get_mut(body.name.as_str()) {
                Some(f) => {
                    if counting {
                        for (spec, crossed) in self.specs.iter().zip(&mut self.crossed) {
                            let c = crossing(&spec.kind, f.centre, centre);
                            if c != 0.0 {
                                crossed.0 += c;
                                crossed.1 += c * f.mass;
                            }
                        }
                    }
                    f.centre = centre;
                    f.seen = self.stamp;
                }
                None => {
                    let mass = 1.0 / body.inv_mass;
                    let f = Followed {
                        centre,
                        mass,
                        seen: self.stamp,
                    };
                    self.followed.insert(body.name.clone(), f);
                }
            }
        }
        if counting {
            // Bodies taken out since: no longer followed.
            let stamp = self.stamp;
            self.followed.retain(|_, f| f.seen == stamp);
        }
    }

    /// The frame's values at the world's time, appended to `out`; the flow counts start again.
    pub fn frame_rows(&mut self, world: &World, out: &mut Vec<ProbeRow>) {
        let t = world.time();
        for (spec, crossed) in self.specs.iter().zip(&mut self.crossed) {
            let values = match &spec.kind {
                ProbeKind::Flow { .. } => {
                    let v = vec![crossed.0, crossed.1];
                    *crossed = (0.0, 0.0);
                    v
                }
                ProbeKind::Region(region) => region_values(world, region, &self.volumes),
            };
            for (quantity, value) in spec.quantities().iter().zip(values) {
                out.push(ProbeRow {
                    t,
                    probe: spec.name.clone(),
                    quantity,
                    value,
                });
            }
        }
    }
}

/// A region probe's values: bodies, solid fraction, mean velocity (x, y, z), kinetic energy.
fn region_values(world: &World, region: &Region, volumes: &FxHashMap<String, f64>) -> Vec<f64> {
    let (mut n, mut volume, mut v, mut energy) = (0usize, 0.0, DVec3::ZERO, 0.0);
    for i in 0..world.body_count() {
        let body = world.body(i);
        if !body.is_dynamic() || !region.contains(body.position) {
            continue;
        }
        n += 1;
        volume += volumes.get(body.name.as_str()).copied().unwrap_or(0.0);
        let (velocity, _) = world.body_reported_motion(i);
        v += velocity;
        energy += world.body_kinetic_energy(i);
    }
    let mean = if n > 0 { v / n as f64 } else { DVec3::ZERO };
    vec![
        n as f64,
        volume / region.volume(),
        mean.x,
        mean.y,
        mean.z,
        energy,
    ]
}
