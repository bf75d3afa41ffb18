//! Bulk flow: bodies poured into a running world by `[[sources]]` (LIGGGHTS' `fix
//! insert/rate/region`, Chrono's particle emitter, Yade's `BoxFactory`) and taken out by
//! `[[sinks]]` (Chrono's particle remover, Yade's `DomainLimiter`), in the regions they name
//! ([`Region`]).
//!
//! Both run at the end of every step, where every body is at one time ([`Flow`], the world's
//! [`BodyFlow`] that [`crate::simulation::Simulation`] installs): the sinks take out the bodies
//! whose centres are in them, then the sources insert every body due since; so `tumble run`,
//! `tumble bench`, batches and Python see the same bodies come and go.

mod removed_csv;
mod sink;
mod source;

pub use crate::scene::Region;
pub use removed_csv::RemovedWriter;
pub use sink::Sinks;
pub use source::{Sources, MAX_ATTEMPTS};

use crate::scene::{Scene, SceneError};
use crate::world::{BodyFlow, World};

/// A scene's sources and sinks, run at the end of every step.
pub struct Flow {
    sinks: Option<Sinks>,
    sources: Option<Sources>,
}

impl Flow {
    /// The sources and sinks of `scene`; `None` for a scene with neither.
    pub fn new(scene: &Scene) -> Result<Option<Flow>, SceneError> {
        let (sinks, sources) = (Sinks::new(scene), Sources::new(scene)?);
        Ok((sinks.is_some() || sources.is_some()).then_some(Flow { sinks, sources }))
    }
}

impl BodyFlow for Flow {
    fn after_step(&mut self, world: &mut World) {
        // Out first: a body poured in may take a place a removed one left.
        if let Some(sinks) = &mut self.sinks {
            sinks.drain(world);
        }
        if let Some(sources) = &mut self.sources {
            sources.pour(world);
        }
    }
}
