//! Bulk flow: bodies poured into a running world by `[[sources]]` (LIGGGHTS' `fix
//! insert/rate/region`, Chrono's particle emitter, Yade's `BoxFactory`), in the regions they
//! name ([`Region`]).
//!
//! [`Sources`] is driven by the frame loop ([`crate::simulation::Simulation`]): at each frame's
//! start it inserts every body due since the last, so `tumble run`, `tumble bench`, batches and
//! Python pour the same bodies.

mod source;

pub use crate::scene::Region;
pub use source::{Sources, MAX_ATTEMPTS};
