//! The sinks of a run: at the end of every step (every body at one time), every dynamic body
//! without joints whose centre of mass is inside a sink's region is taken out of the world, by
//! the first such sink in the scene's order, and recorded ([`crate::world::Removal`]).

use crate::scene::{Scene, SinkSpec};
use crate::world::World;

/// The sinks of a run (see the module doc).
pub struct Sinks {
    sinks: Vec<SinkSpec>,
    /// The bodies found in a sink (scratch).
    found: Vec<(usize, String)>,
}

impl Sinks {
    /// The sinks of `scene`; `None` for a scene without sinks.
    pub fn new(scene: &Scene) -> Option<Sinks> {
        (!scene.sinks.is_empty()).then(|| Sinks {
            sinks: scene.sinks.clone(),
            found: Vec::new(),
        })
    }

    /// Takes out of `world` every body in a sink now.
    pub fn drain(&mut self, world: &mut World) {
        self.found.clear();
        for i in 0..world.body_count() {
            if !world.removable(i) {
                continue;
            }
            let centre = world.body(i).position;
            if let Some(sink) = self.sinks.iter().find(|s| s.region.contains(centre)) {
                self.found.push((i, sink.name.clone()));
            }
        }
        world.remove_bodies(&self.found);
    }
}
