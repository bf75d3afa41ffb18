//! The GPU tests' one skip rule: where wgpu finds no adapter a test prints "SKIPPED" and passes,
//! except with CI=true, where a missing adapter is a failure (lavapipe is installed there).

#![allow(dead_code)]

use tumble::gpu::{GpuContext, GpuStages};

/// Panics with CI=true, else prints why the test is skipped.
fn no_adapter(e: impl std::fmt::Display) {
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("CI=true but no GPU adapter: {e}");
    }
    println!("SKIPPED: no GPU adapter ({e})");
}

/// Whether wgpu finds an adapter (see the module docs).
pub fn adapter_found() -> bool {
    match GpuContext::new() {
        Ok(_) => true,
        Err(e) => {
            no_adapter(e);
            false
        }
    }
}

/// The device's stages, or `None` where a missing adapter is allowed (see the module docs).
pub fn gpu_stages() -> Option<GpuStages> {
    match GpuStages::new() {
        Ok(g) => {
            eprintln!("adapter: {}", g.context().adapter_name());
            Some(g)
        }
        Err(e) => {
            no_adapter(e);
            None
        }
    }
}
