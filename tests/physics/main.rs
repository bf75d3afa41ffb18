//! Physics validation against closed forms (one module per behaviour, one test binary).
#[path = "../common/mod.rs"]
mod common;

mod closed_box;
mod clusters;
mod collisions;
mod free_fall;
mod impacts;
mod islands;
mod jammed_islands;
mod resting_constraints;
mod rolling;
mod sliding_spinning;
mod slope;
mod stacking;
mod tunneling;
