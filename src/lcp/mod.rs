//! Stewart & Trinkle's implicit time-stepping with a linear complementarity problem per step
//! (1996), offered beside the event-driven method: [`step`] forms each step's LCP from its
//! contacts and [`lemke`] solves it.

pub mod lemke;
pub mod step;

pub use lemke::{LcpSolution, LemkeError};
pub use step::{apply_contact_impulses, LcpContact, LcpImpulse, LcpReport};
