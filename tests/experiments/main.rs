//! The papers' experiments, reproduced: one module per experiment, each running a bundled scene
//! of `scenes/experiments/` and asserting the behaviour the paper reports. With
//! `TUMBLE_WRITE_FIGURES=1` each also writes its trajectory plot to `docs/images/experiments/`.
#[path = "../common/mod.rs"]
mod common;

mod figure;
mod rattleback;
mod tippe_top;
