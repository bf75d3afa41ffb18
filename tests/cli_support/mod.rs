//! Helpers shared by the test binaries that run the `tumble` executable (cli, bench_cli,
//! gpu_backend): each includes this module with `#[path]`.
#![allow(dead_code)] // each test binary uses its own subset

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs `tumble` with `args` from the crate root.
pub fn tumble(args: &[&str]) -> Output {
    tumble_with_env(args, &[])
}

/// Runs `tumble` with `args` from the crate root, with the extra environment variables `env`.
pub fn tumble_with_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tumble"));
    cmd.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("failed to start tumble")
}

/// A fresh, empty directory for one test, named after the test binary, the process and `test`.
pub fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "tumble-{}-{}-{test}",
        env!("CARGO_CRATE_NAME"),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Process output as text (lossy).
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
