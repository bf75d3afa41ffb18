//! Bulk flow: bodies poured into a running world by `[[sources]]` (LIGGGHTS' `fix
//! insert/rate/region`, Chrono's particle emitter, Yade's `BoxFactory`) and taken out by
//! `[[sinks]]` (Chrono's particle remover, Yade's `DomainLimiter`), in the regions they name
//! ([`Region`]).
//!
//! Both are driven by the frame loop ([`crate::simulation::Simulation`]): at each frame's start
//! the sinks take out the bodies in them, then the sources insert every body due since the last
//! frame, so `tumble run`, `tumble bench`, batches and Python see the same bodies come and go.

mod removed_csv;
mod sink;
mod source;

pub use crate::scene::Region;
pub use removed_csv::RemovedWriter;
pub use sink::Sinks;
pub use source::{Sources, MAX_ATTEMPTS};
