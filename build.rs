//! Finds, when the crate is built, which system facilities the test suite needs are present,
//! and sets `tumble_no_gpu`, `tumble_no_slurm` and `tumble_no_chromium` for those that are not:
//! the tests that need them are then reported as ignored with the package to install, never as
//! passed. With `CI=true` nothing is set: CI installs them all, and a missing one must fail.

use std::path::{Path, PathBuf};

fn main() {
    // Not PATH itself: pip's isolated build of the Python package prepends its own directory, and
    // a rerun would rebuild the engine that `cargo build --release` made; installs are watched
    // instead (`watch_installs`).
    for var in [
        "CI",
        "VK_ICD_FILENAMES",
        "VK_DRIVER_FILES",
        "TUMBLE_CHROMIUM",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    for cfg in ["tumble_no_gpu", "tumble_no_slurm", "tumble_no_chromium"] {
        println!("cargo:rustc-check-cfg=cfg({cfg})");
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        return;
    }
    watch_installs();
    if !vulkan_driver() {
        println!("cargo:rustc-cfg=tumble_no_gpu");
    }
    if !on_path(&["sbatch"]) {
        println!("cargo:rustc-cfg=tumble_no_slurm");
    }
    if std::env::var_os("TUMBLE_CHROMIUM").is_none() && !on_path(&["chromium", "chromium-browser"])
    {
        println!("cargo:rustc-cfg=tumble_no_chromium");
    }
}

/// A Vulkan driver manifest (an ICD), which is what wgpu needs for an adapter on Linux: a real
/// GPU's or Mesa's lavapipe.
fn vulkan_driver() -> bool {
    if std::env::var_os("VK_ICD_FILENAMES").is_some()
        || std::env::var_os("VK_DRIVER_FILES").is_some()
    {
        return true;
    }
    let mut dirs: Vec<PathBuf> = ["/usr/share", "/usr/local/share", "/etc"]
        .iter()
        .map(|d| Path::new(d).join("vulkan/icd.d"))
        .collect();
    if let Some(data) = std::env::var_os("XDG_DATA_DIRS") {
        dirs.extend(std::env::split_paths(&data).map(|d| d.join("vulkan/icd.d")));
    }
    let mut found = false;
    for dir in dirs.iter().filter(|d| d.is_dir()) {
        // Rebuilt when a driver is installed or removed.
        println!("cargo:rerun-if-changed={}", dir.display());
        found |= std::fs::read_dir(dir).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.path().extension().is_some_and(|x| x == "json"))
        });
    }
    found || cfg!(not(target_os = "linux"))
}

/// Reruns this script when a tool or driver is installed: dpkg's package list (any `apt-get
/// install`, a first Vulkan driver whose directory did not exist yet among them) and
/// /usr/local/bin for tools installed by hand. Not every directory on PATH: `cargo install` and
/// `pip install` write into theirs, and each would rebuild the engine for nothing.
fn watch_installs() {
    for watched in ["/var/lib/dpkg/status", "/usr/local/bin"] {
        if Path::new(watched).exists() {
            println!("cargo:rerun-if-changed={watched}");
        }
    }
}

fn on_path(names: &[&str]) -> bool {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).any(|d| names.iter().any(|n| d.join(n).is_file()))
}
