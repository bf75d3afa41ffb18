//! Bulk flow: bodies poured into a running world by `[[sources]]` (LIGGGHTS' `fix
//! insert/rate/region`, Chrono's particle emitter, Yade's `BoxFactory`) and taken out by
//! `[[sinks]]` (Chrono's particle remover, Yade's `DomainLimiter`), in the regions they name
//! ([`Region`]).
//!
//! Both run at the end of every step, where every body is at one time ([`Flow`], the world's
//! [`BodyFlow`] that [`crate::simulation::Simulation`] installs): the sinks take out the bodies
//! whose centres are in them, then the sources insert every body due since; so `tumble run`,
//! `tumble bench`, batches and Python see the same bodies come and go.

mod probe;
mod sink;
mod source;
mod tables;

pub use crate::scene::Region;
pub use probe::Probes;
pub use sink::Sinks;
pub use source::{Sources, MAX_ATTEMPTS};
pub use tables::FlowTables;

use crate::mass_properties::mass_properties;
use crate::scene::{Motion, Scene, SceneError};
use crate::shape::Shape;
use crate::world::{BodyFlow, ProbeRow, World};
use rustc_hash::FxHashMap;

/// The volume of `shape` (m³): its mass at unit density; `None` where it cannot be computed.
fn unit_volume(shape: &Shape) -> Option<f64> {
    let unit = crate::geometry_guard::guarded(|| mass_properties(shape, 1.0));
    Some(unit.ok()?.ok()?.mass)
}

/// A scene's sources, sinks and probes, run at the end of every step.
pub struct Flow {
    sinks: Option<Sinks>,
    sources: Option<Sources>,
    probes: Option<Probes>,
}

impl Flow {
    /// The sources, sinks and probes of `scene`; `None` for a scene with none of them.
    pub fn new(scene: &Scene) -> Result<Option<Flow>, SceneError> {
        let (sinks, sources) = (Sinks::new(scene), Sources::new(scene)?);
        // The region probes' solid fraction: each dynamic body's volume (its shape's mass at
        // unit density), those poured in added as they come.
        let volumes: FxHashMap<String, f64> = match scene.probes.is_empty() {
            true => FxHashMap::default(),
            false => scene
                .bodies
                .iter()
                .filter(|b| b.motion == Motion::Dynamic)
                .filter_map(|b| Some((b.name.clone(), unit_volume(&b.shape)?)))
                .collect(),
        };
        let probes = Probes::new(&scene.probes, volumes);
        let any = sinks.is_some() || sources.is_some() || probes.is_some();
        Ok(any.then_some(Flow {
            sinks,
            sources,
            probes,
        }))
    }
}

impl BodyFlow for Flow {
    fn after_step(&mut self, world: &mut World) {
        // The probes see every body that flew this step, before the sinks take any out.
        if let Some(probes) = &mut self.probes {
            probes.observe(world, true);
        }
        // Out before in: a body poured in may take a place a removed one left.
        if let Some(sinks) = &mut self.sinks {
            sinks.drain(world);
        }
        if let Some(sources) = &mut self.sources {
            let probes = &mut self.probes;
            sources.pour(world, |name, volume| {
                if let Some(p) = probes.as_mut() {
                    p.note_volume(name, volume);
                }
            });
            // The bodies just poured in are followed from where they entered.
            if let Some(probes) = &mut self.probes {
                probes.observe(world, false);
            }
        }
    }

    fn frame_rows(&mut self, world: &World, out: &mut Vec<ProbeRow>) {
        if let Some(probes) = &mut self.probes {
            probes.frame_rows(world, out);
        }
    }
}
