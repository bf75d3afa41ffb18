//! The subcommands of the `tumble` binary, one module each; `main.rs` holds what they share
//! (the backend and format choices, the failure type and exit codes).

pub mod batch;
pub mod bench;
pub mod check;
pub mod compare;
pub mod flag_values;
pub mod interrupt;
pub mod pictures;
pub mod progress;
pub mod resume;
pub mod run;
pub mod run_args;
