//! `--backend auto` through the binary: below 50 000 moving bodies it looks for no device and a
//! run says nothing; `tumble bench` says in one line what it chose and why; at funnel-100k's
//! 100 000 it looks, quietly, and takes only a real GPU (the rule itself: `src/gpu/auto.rs`).

#[path = "cli_support/mod.rs"]
mod cli_support;

use cli_support::{temp_dir, text, tumble, tumble_with_env};

/// stderr's lines that name the backend.
fn backend_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("backend:"))
        .collect()
}

#[test]
fn a_run_of_a_small_scene_by_default_writes_nothing_to_stderr() {
    let dir = temp_dir("run").join("out");
    let out = tumble(&[
        "run",
        "scenes/small-funnel.toml",
        "--duration",
        "0.02",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["backend"], "cpu");
}

#[test]
fn bench_auto_says_why_it_keeps_a_small_scene_on_the_cpu() {
    // An impossible adapter filter cannot matter: below the threshold wgpu is not asked.
    let out = tumble_with_env(
        &[
            "bench",
            "scenes/small-funnel.toml",
            "--backend",
            "auto",
            "--duration",
            "0.02",
        ],
        &[("TUMBLE_ADAPTER", "no-such-adapter")],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        backend_lines(&stderr),
        ["backend: cpu (auto: 50 moving bodies, below the 50 000 the GPU needs)"],
        "{stderr}"
    );
}

#[test]
fn bench_cpu_names_no_backend_on_stderr() {
    let out = tumble(&[
        "bench",
        "scenes/small-funnel.toml",
        "--backend",
        "cpu",
        "--duration",
        "0.02",
    ]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(backend_lines(&stderr).is_empty(), "{stderr}");
}

/// `tumble bench scenes/funnel-100k.toml --duration 0` (0.3 s to build the world), with `env`:
/// its stderr and the report's backend.
fn bench_100k(env: &[(&str, &str)]) -> (String, String) {
    let dir = temp_dir("bench-100k");
    let json = dir.join("report.json");
    let out = tumble_with_env(
        &[
            "bench",
            "scenes/funnel-100k.toml",
            "--duration",
            "0",
            "--json",
            json.to_str().unwrap(),
        ],
        env,
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (stderr, report["backend"].as_str().unwrap().to_string())
}

#[test]
fn at_100k_bodies_auto_looks_quietly_and_takes_only_a_real_gpu() {
    let (stderr, backend) = bench_100k(&[]);
    // One line for the backend and the bench's own progress line: nothing from the drivers.
    assert!(
        stderr
            .lines()
            .all(|l| l.starts_with("backend:") || l.starts_with("run 1 of 1:")),
        "{stderr}"
    );
    let line = backend_lines(&stderr);
    assert_eq!(line.len(), 1, "{stderr}");
    let gpu = "backend: gpu (auto: 100 000 moving bodies ≥ 50 000; ";
    if backend == "gpu" {
        assert!(line[0].starts_with(gpu), "{stderr}");
        assert!(
            line[0].ends_with("DiscreteGpu))") || line[0].ends_with("IntegratedGpu))"),
            "{stderr}"
        );
    } else {
        // No device node, or an adapter that is not a GPU (lavapipe, a virtual GPU).
        assert_eq!(backend, "cpu");
        assert!(
            line[0] == "backend: cpu (auto: no GPU device)"
                || line[0].starts_with("backend: cpu (auto: ")
                    && line[0].ends_with(" is not a GPU)"),
            "{stderr}"
        );
    }
    // An adapter filter that matches nothing leaves auto on the CPU, without failing.
    let (stderr, backend) = bench_100k(&[("TUMBLE_ADAPTER", "no-such-adapter")]);
    assert_eq!(backend, "cpu");
    let line = backend_lines(&stderr);
    assert!(
        line == ["backend: cpu (auto: no GPU device)"]
            || line[0]
                .starts_with("backend: cpu (auto: no GPU adapter matching \"no-such-adapter\""),
        "{stderr}"
    );
}
