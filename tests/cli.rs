//! The `tumble` binary: exit codes, messages and output files.

#[path = "cli_support/mod.rs"]
mod cli_support;

use cli_support::{temp_dir, text, tumble, tumble_with_env};
use std::path::{Path, PathBuf};
use std::process::Command;

fn bad_scene(dir: &Path) -> PathBuf {
    let path = dir.join("bad.toml");
    std::fs::write(
        &path,
        "[[bodies]]\nname = \"ball\"\nshape = { type = \"sphere\", radius = 0.1 }\nmass = -1\n",
    )
    .unwrap();
    path
}

#[test]
fn check_refuses_a_bad_scene_with_exit_code_2() {
    let dir = temp_dir("check-bad");
    let path = bad_scene(&dir);
    let out = tumble(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    let expected = format!(
        "{}:4:8: bodies[0] \"ball\": mass must be > 0 (got -1)",
        path.display()
    );
    assert!(stderr.contains(&expected), "stderr: {stderr}");
    assert!(out.stdout.is_empty());
    // `run` refuses it the same way, before creating any output.
    let out_dir = dir.join("out");
    let out = tumble(&[
        "run",
        path.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains(&expected));
    assert!(!out_dir.exists());
}

#[test]
fn check_accepts_a_good_scene() {
    let out = tumble(&["check", "scenes/ramp.toml"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("scenes/ramp.toml: OK"), "{stdout}");
    assert!(
        stdout.contains("bodies: 3 (1 dynamic, 2 fixed, 0 kinematic)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("default (restitution 0.3, friction 0.5; 3 bodies)"),
        "{stdout}"
    );
}

#[test]
fn a_run_directory_works_from_anywhere_with_its_own_scene_and_meshes() {
    let root = temp_dir("self-contained");
    let first = root.join("first");
    let out = tumble(&[
        "run",
        "scenes/mesh-parts.toml",
        "--duration",
        "0.1",
        "--backend",
        "cpu",
        "--out",
        first.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(first.join("summary.json")).unwrap())
            .unwrap();
    let stored = &summary["stored_scene"];
    assert_eq!(stored["file"], "scene.toml");
    assert!(stored["original"]
        .as_str()
        .unwrap()
        .ends_with("scenes/mesh-parts.toml"));
    assert_eq!(stored["sha256"].as_str().unwrap().len(), 64);
    let files = stored["files"].as_array().unwrap();
    assert!(files.len() >= 2, "{files:?}");
    for f in files {
        assert!(first.join(f["stored"].as_str().unwrap()).is_file(), "{f}");
    }
    assert_eq!(
        std::fs::read(first.join("scene.toml")).unwrap(),
        std::fs::read("scenes/mesh-parts.toml").unwrap()
    );
    // Moved elsewhere and read from another working directory, it needs nothing else.
    let moved = root.join("elsewhere/run");
    std::fs::create_dir_all(moved.parent().unwrap()).unwrap();
    std::fs::rename(&first, &moved).unwrap();
    let view = Command::new(env!("CARGO_BIN_EXE_tumble"))
        .args(["view", moved.to_str().unwrap()])
        .current_dir(&root)
        .output()
        .unwrap();
    assert_eq!(view.status.code(), Some(0), "{}", text(&view.stderr));
    assert!(moved.join("view.html").is_file());
    let glb = root.join("run.glb");
    let export = Command::new(env!("CARGO_BIN_EXE_tumble"))
        .args(["export", "run", "--gltf", glb.to_str().unwrap()])
        .current_dir(moved.parent().unwrap())
        .output()
        .unwrap();
    assert_eq!(export.status.code(), Some(0), "{}", text(&export.stderr));
    assert!(glb.is_file());
}

#[test]
fn check_verbose_lists_mass_properties_and_joints() {
    let dir = temp_dir("check-verbose");
    let path = dir.join("plank.toml");
    // A 6 kg box of half extents a, b, c: I = m/3 (b² + c²), … about its centre.
    std::fs::write(
        &path,
        "[[bodies]]\nname = \"plank\"\nshape = { type = \"box\", half_extents = [0.5, 0.25, 0.1] }\n\
         mass = 6\nposition = [1, 2, 3]\n",
    )
    .unwrap();
    let out = tumble(&["check", path.to_str().unwrap(), "--verbose"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let stdout = text(&out.stdout);
    println!("{stdout}");
    assert!(
        stdout.contains(
            "plank: mass 6 kg, centre of mass [1, 2, 3] m, principal moments [0.145, 0.52, 0.625] \
             kg·m² about axes [1, 0, 0], [0, 1, 0], [0, 0, 1]"
        ),
        "{stdout}"
    );
    let out = tumble(&["check", "scenes/joints/double-pendulum.toml", "--verbose"]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("shoulder: hinge between the world and \"upper_rod\", anchor [0, 0, 0] m, axis [0, 1, 0]"),
        "{stdout}"
    );
    assert!(stdout.contains("elbow: hinge between \"upper_rod\" and \"lower_rod\""));
    // Without --verbose, none of it.
    let out = tumble(&["check", path.to_str().unwrap()]);
    assert!(!text(&out.stdout).contains("principal moments"));
}

#[test]
fn check_reports_initial_overlaps() {
    let dir = temp_dir("check-overlap");
    let path = dir.join("overlap.toml");
    std::fs::write(
        &path,
        "[[bodies]]\nname = \"a\"\nshape = { type = \"sphere\", radius = 1 }\nmass = 1\n\n\
         [[bodies]]\nname = \"b\"\nshape = { type = \"sphere\", radius = 1 }\nmass = 1\nposition = [1, 0, 0]\n",
    )
    .unwrap();
    let out = tumble(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("\"a\"") && stderr.contains("\"b\"") && stderr.contains("overlap"),
        "{stderr}"
    );
}

#[test]
fn gpu_backend_without_an_adapter_exits_2() {
    // An adapter filter nothing matches stands for a machine without a GPU; the GPU backend
    // itself is tested in tests/gpu_backend.rs.
    let dir = temp_dir("gpu");
    let out = tumble_with_env(
        &[
            "run",
            "scenes/ramp.toml",
            "--backend",
            "gpu",
            "--out",
            dir.join("out").to_str().unwrap(),
        ],
        &[("TUMBLE_ADAPTER", "no-such-adapter")],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("--backend gpu: no GPU adapter matching \"no-such-adapter\""),
        "{err}"
    );
    assert!(!dir.join("out").exists());
}

#[test]
fn bad_command_lines_exit_2() {
    let out = tumble(&["run", "scenes/ramp.toml", "--backend", "tpu"]);
    assert_eq!(out.status.code(), Some(2));
    let out = tumble(&["run", "scenes/ramp.toml", "--duration", "-1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--duration must be a finite number >= 0 (got -1)"));
    let out = tumble(&["check", "scenes/no-such-scene.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("scenes/no-such-scene.toml: cannot read scene file"));
}

#[test]
fn unwritable_output_exits_1_naming_the_path() {
    let dir = temp_dir("unwritable");
    // A file where the output directory should be.
    let blocker = dir.join("blocker");
    std::fs::write(&blocker, "not a directory").unwrap();
    let out_dir = blocker.join("out");
    let out = tumble(&[
        "run",
        "scenes/ramp.toml",
        "--duration",
        "0.02",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!("cannot write {}", out_dir.display())),
        "{stderr}"
    );
}

#[test]
fn run_writes_frames_and_summary() {
    let dir = temp_dir("run");
    let out_dir = dir.join("ramp");
    let out = tumble(&[
        "run",
        "scenes/ramp.toml",
        "--duration",
        "0.2",
        "--backend",
        "cpu",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("0.2 s of scenes/ramp.toml"), "{stdout}");
    assert!(
        stdout.contains("frames.csv") && stdout.contains("summary.json"),
        "{stdout}"
    );

    let frames = std::fs::read_to_string(out_dir.join("frames.csv")).unwrap();
    let mut lines = frames.lines();
    assert_eq!(
        lines.next(),
        Some("t,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz")
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    // Only the ball moves: one row per frame, t = 0 then every 0.02 s up to 0.2.
    assert_eq!(rows.len(), 11);
    assert!(rows.iter().all(|r| r.len() == 15 && r[1] == "ball"));
    assert_eq!(
        rows[0],
        [
            "0",
            "ball",
            "-1.0756440831575884",
            "0",
            "1.1532574503502606",
            "1",
            "0",
            "0",
            "0",
            "0",
            "0",
            "0",
            "0",
            "0",
            "0"
        ]
    );
    let times: Vec<f64> = rows.iter().map(|r| r[0].parse().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[1] > w[0]));
    assert!((times[10] - 0.2).abs() < 1e-12);
    // The ball has moved downhill (towards +x) by the end.
    let x_end: f64 = rows[10][2].parse().unwrap();
    assert!(x_end > -1.0756440831575884, "{x_end}");

    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("summary.json")).unwrap())
            .unwrap();
    for key in [
        "bodies",
        "counts",
        "max_penetration",
        "sim_time",
        "wall_time",
        "backend",
        "scene",
        "error",
    ] {
        assert!(summary.get(key).is_some(), "summary.json lacks {key}");
    }
    assert_eq!(summary["backend"], "cpu");
    assert_eq!(summary["adapter"], serde_json::Value::Null);
    assert_eq!(summary["scene"], "scenes/ramp.toml");
    assert_eq!(summary["error"], serde_json::Value::Null);
    assert!((summary["sim_time"].as_f64().unwrap() - 0.2).abs() < 1e-12);
    assert!(summary["wall_time"].as_f64().unwrap() >= 0.0);
    assert!(summary["counts"]["collisions"].is_u64());
    assert!(summary["counts"]["frames"].as_u64().unwrap() >= 10);
    let bodies = summary["bodies"].as_array().unwrap();
    assert_eq!(bodies.len(), 3);
    let ball = bodies.iter().find(|b| b["name"] == "ball").unwrap();
    assert_eq!(ball["motion"], "dynamic");
    assert_eq!(ball["orientation"].as_array().unwrap().len(), 4);
    // The summary's end state is the last frame's.
    assert_eq!(ball["position"][0].as_f64().unwrap(), x_end);
    let floor = bodies.iter().find(|b| b["name"] == "floor").unwrap();
    assert_eq!(floor["motion"], "fixed");
    assert_eq!(floor["position"], serde_json::json!([0.0, 0.0, -0.5]));
    assert_eq!(
        floor["orientation"],
        serde_json::json!([1.0, 0.0, 0.0, 0.0])
    );
}

#[test]
fn default_output_directory_is_out_slash_stem() {
    let dir = temp_dir("default-out");
    let scene = dir.join("tiny.toml");
    std::fs::write(
        &scene,
        "[world]\nduration = 0.04\n[[bodies]]\nname = \"ball\"\nshape = { type = \"sphere\", radius = 0.1 }\nmass = 1\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_tumble"))
        .args(["run", "tiny.toml"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let frames = std::fs::read_to_string(dir.join("out/tiny/frames.csv")).unwrap();
    // Free fall: t = 0, 0.02, 0.04.
    assert_eq!(frames.lines().count(), 4);
    assert!(dir.join("out/tiny/summary.json").exists());
}

#[test]
fn a_simulation_error_exits_1_and_keeps_the_frames_so_far() {
    let dir = temp_dir("sim-error");
    let scene = dir.join("rocket.toml");
    // Accelerated at 3.5e5 m/s² along x: 3.5e5 m/s at t = 1 s is within the speed the engine
    // resolves with ε_c = 1 mm (5e5 m/s: half the band crossed at most 1e9 times a second),
    // 5e5 m/s at t = 1.43 s is not, which the world reports as an error.
    std::fs::write(
        &scene,
        "[world]\nduration = 4\nframe_period = 1\ngravity = [3.5e5, 0, 0]\n[[bodies]]\nname = \"rocket\"\n\
         shape = { type = \"sphere\", radius = 1 }\nmass = 1\n",
    )
    .unwrap();
    let out_dir = dir.join("out");
    let out = tumble(&[
        "run",
        scene.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("simulation failed") && stderr.contains("rocket"),
        "{stderr}"
    );
    let frames = std::fs::read_to_string(out_dir.join("frames.csv")).unwrap();
    let times: Vec<&str> = frames
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert_eq!(times, ["0", "1"]);
    // x = ½ g t² = 1.75e5 at t = 1, up to the rounding of the contact steps the frame is split
    // into.
    let row: Vec<&str> = frames.lines().nth(2).unwrap().split(',').collect();
    assert_eq!(&row[..2], ["1", "rocket"]);
    let x: f64 = row[2].parse().unwrap();
    assert!((x / 1.75e5 - 1.0).abs() < 1e-9, "x = {x}");
    assert_eq!(&row[3..5], ["0", "0"]);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("summary.json")).unwrap())
            .unwrap();
    let error = summary["error"].as_str().unwrap();
    assert!(
        error.contains("moves at") && error.contains("rocket"),
        "{error}"
    );
    assert!(summary["sim_time"].as_f64().unwrap() < 4.0);
}

#[test]
fn run_every_and_record_thin_frames_csv_to_the_full_runs_rows() {
    let dir = temp_dir("every-record");
    let (full, thin) = (dir.join("full"), dir.join("thin"));
    let scene = "scenes/small-funnel.toml";
    let out = tumble(&[
        "run",
        scene,
        "--out",
        full.to_str().unwrap(),
        "--backend",
        "cpu",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = tumble(&[
        "run",
        scene,
        "--out",
        thin.to_str().unwrap(),
        "--backend",
        "cpu",
        "--every",
        "7",
        "--record",
        "cube_3,cube_40",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let rows = |p: &Path| -> Vec<String> {
        std::fs::read_to_string(p.join("frames.csv"))
            .unwrap()
            .lines()
            .map(String::from)
            .collect()
    };
    let (all, kept) = (rows(&full), rows(&thin));
    assert_eq!(all[0], kept[0]);
    // Frames 0, 7, 14, ... and the last (200 frames of 0.02 s), each with the two bodies.
    let times: Vec<String> = all[1..]
        .iter()
        .map(|r| r.split(',').next().unwrap().to_string())
        .collect();
    let mut frames: Vec<&String> = times.iter().collect();
    frames.dedup();
    // The full run's rows of frame time `t` for the two bodies kept.
    let rows_at = |t: &String| -> Vec<String> {
        all[1..]
            .iter()
            .filter(|r| {
                r.starts_with(&format!("{t},cube_3,")) || r.starts_with(&format!("{t},cube_40,"))
            })
            .cloned()
            .collect()
    };
    let mut expected: Vec<String> = frames.iter().step_by(7).flat_map(|t| rows_at(t)).collect();
    if !(frames.len() - 1).is_multiple_of(7) {
        expected.extend(rows_at(frames.last().unwrap()));
    }
    assert_eq!(&kept[1..], &expected[..]);
    // A lattice's name keeps all its bodies; an unknown name is refused before any output.
    let out = tumble(&[
        "run",
        scene,
        "--out",
        dir.join("none").to_str().unwrap(),
        "--record",
        "nobody",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--record nobody: names no body or lattice"));
    assert!(!dir.join("none").exists());
}
