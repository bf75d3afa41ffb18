//! `tumble bench`: the table, the JSON report, `[bench] outlet_z`, and exit codes.

#[path = "cli_support/mod.rs"]
mod cli_support;

use cli_support::{temp_dir, text, tumble};

/// The JSON report printed after the table, on its one `JSON: ` line.
fn json_line(stdout: &str) -> serde_json::Value {
    let lines: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("JSON: "))
        .collect();
    assert_eq!(lines.len(), 1, "expected one JSON line in:\n{stdout}");
    serde_json::from_str(lines[0]).expect("the JSON line parses")
}

#[test]
fn bench_prints_the_table_and_a_json_line() {
    let out = tumble(&[
        "bench",
        "scenes/ramp.toml",
        "--duration",
        "0.2",
        "--repeat",
        "2",
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    for column in [
        "wall time (s)",
        "events/s",
        "peak memory (MiB)",
        "event-loop allocations",
        "time to first frame (s)",
        "max penetration (m)",
        "escaped",
        "fell off the floor's edge",
        "rate sweeps/step",
        "median",
    ] {
        assert!(stdout.contains(column), "no {column:?} in:\n{stdout}");
    }
    let report = json_line(&stdout);
    for key in [
        "scene",
        "bodies",
        "backend",
        "sim_time",
        "wall_time",
        "wall_per_sim",
        "events_per_second",
        "heap_pops_per_second",
        "time_to_first_frame",
        "counts",
        "stage_times",
        "max_penetration",
        "escaped",
        "fell_off_edge",
        "through_outlet",
        "rates",
        "peak_memory_mib",
        "event_loop_allocations",
        "runs",
    ] {
        assert!(report.get(key).is_some(), "no {key:?} in {report}");
    }
    assert_eq!(report["bodies"], 1);
    // `auto` (the default) keeps a scene of one moving body on the CPU.
    assert_eq!(report["backend"], "cpu");
    assert!((report["sim_time"].as_f64().unwrap() - 0.2).abs() < 1e-12);
    assert!(report["wall_time"].as_f64().unwrap() > 0.0);
    assert_eq!(report["escaped"], 0);
    assert_eq!(report["fell_off_edge"], 0);
    assert!(report["through_outlet"].is_null());
    assert!(report["counts"]["frames"].as_u64().unwrap() >= 10);
    // The binary installs the counter of its event loops' allocations, so there is a count.
    assert!(report["event_loop_allocations"]["count"].as_u64().is_some());
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    // The ball rolls down the ramp: the same events both times.
    assert_eq!(runs[0]["counts"], runs[1]["counts"]);
    assert_eq!(report["deterministic"], true);
}

#[test]
fn bench_writes_json_to_a_file_and_counts_bodies_through_the_outlet() {
    let dir = temp_dir("outlet");
    let scene = dir.join("drop.toml");
    // Two balls over a floor; the [bench] outlet sits between their resting heights' centres:
    // the low one rests with its centre at 0.1 m (below 0.5), the high one on a fixed shelf.
    std::fs::write(
        &scene,
        r#"
[world]
duration = 0.5

[bench]
outlet_z = 0.5

[[bodies]]
name = "floor"
motion = "fixed"
shape = { type = "box", half_extents = [5.0, 5.0, 0.5] }
position = [0.0, 0.0, -0.5]

[[bodies]]
name = "shelf"
motion = "fixed"
shape = { type = "box", half_extents = [0.5, 0.5, 0.5] }
position = [3.0, 0.0, 0.5]

[[bodies]]
name = "low"
shape = { type = "sphere", radius = 0.1 }
mass = 1.0
position = [0.0, 0.0, 0.3]

[[bodies]]
name = "high"
shape = { type = "sphere", radius = 0.1 }
mass = 1.0
position = [3.0, 0.0, 1.3]
"#,
    )
    .unwrap();
    let json = dir.join("report.json");
    let out = tumble(&[
        "bench",
        scene.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert!(stdout.contains("wall time (s)"), "{stdout}");
    assert!(!stdout.contains("JSON: "), "{stdout}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["bodies"], 2);
    assert_eq!(report["through_outlet"], 1);
    assert_eq!(report["escaped"], 0);
    assert!((report["sim_time"].as_f64().unwrap() - 0.5).abs() < 1e-12);
}

#[test]
fn bench_refuses_a_bad_scene_with_exit_code_2() {
    let dir = temp_dir("bad");
    let path = dir.join("bad.toml");
    std::fs::write(
        &path,
        "[[bodies]]\nname = \"ball\"\nshape = { type = \"sphere\", radius = 0.1 }\nmass = -1\n",
    )
    .unwrap();
    let out = tumble(&["bench", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    let expected = format!(
        "{}:4:8: bodies[0] \"ball\": mass must be > 0 (got -1)",
        path.display()
    );
    assert!(stderr.contains(&expected), "stderr: {stderr}");
    assert!(out.stdout.is_empty());

    // A bad [bench] table, and bad options, are refused the same way.
    std::fs::write(&path, "[bench]\noutlet = 1.0\n").unwrap();
    let out = tumble(&["bench", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("[bench]: unknown key \"outlet\""));
    let out = tumble(&["bench", "scenes/ramp.toml", "--duration", "-1"]);
    assert_eq!(out.status.code(), Some(2));
    let out = tumble(&["bench", "scenes/ramp.toml", "--repeat", "0"]);
    assert_eq!(out.status.code(), Some(2));
    let out = tumble(&["bench", "scenes/no-such-scene.toml"]);
    assert_eq!(out.status.code(), Some(2));
}

/// `--threads` and `--one-event-loop` change only how the work is spread, never the results:
/// the dice of `dice-drop.toml` in the microcollision mode (separate islands, so the event loop
/// splits on two threads) give the same counts, and the split is reported.
#[test]
fn bench_threads_and_one_event_loop_keep_the_counts() {
    let dir = temp_dir("bench-islands");
    let scene = dir.join("dice-micro.toml");
    let text_of = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/dice-drop.toml"),
    )
    .unwrap()
    .replace(
        "collision_epsilon = 0.001",
        "collision_epsilon = 0.001\nresting_contact = \"microcollisions\"",
    );
    std::fs::write(&scene, text_of).unwrap();
    let counts = |extra: &[&str]| {
        let mut args = vec![
            "bench",
            scene.to_str().unwrap(),
            "--backend",
            "cpu",
            "--duration",
            "0.5",
        ];
        args.extend_from_slice(extra);
        let out = tumble(&args);
        assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
        json_line(&text(&out.stdout))["counts"].clone()
    };
    let split = counts(&["--threads", "2"]);
    let one = counts(&["--threads", "2", "--one-event-loop"]);
    let single = counts(&["--threads", "1"]);
    assert!(split["parallel_loops"].as_u64().unwrap() > 0, "{split}");
    assert_eq!(one["parallel_loops"], 0);
    assert_eq!(single["parallel_loops"], 0);
    for key in [
        "collisions",
        "microcollisions",
        "heap_pops",
        "toi_bounds",
        "distance_queries",
    ] {
        assert_eq!(split[key], one[key], "{key}");
        assert_eq!(split[key], single[key], "{key}");
    }
    let bad = tumble(&["bench", "scenes/ramp.toml", "--threads", "0"]);
    assert_eq!(bad.status.code(), Some(2));
}

/// The report sums the frames per simulated second (table and JSON), `--timeline FILE` writes
/// a CSV row per frame whose last row holds the run's totals, and an unwritable timeline fails
/// the bench with exit code 1 and the file's name.
#[test]
fn bench_reports_each_simulated_second_and_writes_the_timeline() {
    let dir = temp_dir("timeline");
    let csv = dir.join("timeline.csv");
    let json = dir.join("report.json");
    let out = tumble(&[
        "bench",
        "scenes/small-funnel.toml",
        "--backend",
        "cpu",
        "--duration",
        "1.5",
        "--timeline",
        csv.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert!(stdout.contains("by simulated second"), "{stdout}");
    assert!(
        stdout.contains("1-1.5"),
        "the partial last second:\n{stdout}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let seconds = report["by_second"].as_array().unwrap();
    assert_eq!(seconds.len(), 2);
    let sum = |key: &str| {
        seconds
            .iter()
            .map(|s| s[key].as_u64().unwrap())
            .sum::<u64>()
    };
    assert_eq!(
        sum("collisions"),
        report["counts"]["collisions"].as_u64().unwrap()
    );
    assert_eq!(
        sum("held_resolutions"),
        report["counts"]["held_resolutions"].as_u64().unwrap()
    );
    // The pile has contact points, so each time has a finite, positive cost per contact
    // point-step, counted by the same counter; the table prints them.
    let per = &report["per_contact_point_step"];
    assert_eq!(
        per["contact_point_steps"],
        report["counts"]["resting_contacts"]
    );
    assert!(per["contact_point_steps"].as_u64().unwrap() > 0, "{per}");
    let positive = |v: &serde_json::Value| v.as_f64().is_some_and(|x| x.is_finite() && x > 0.0);
    assert!(positive(&per["wall_us"]), "{per}");
    for stage in [
        "contact_step",
        "contact_gather",
        "contact_prepare",
        "contact_sweeps",
        "shock_propagation",
        "contact_store",
        "broad_phase",
        "event_loop",
    ] {
        assert!(positive(&per["stages_us"][stage]), "{stage}: {per}");
    }
    // The contact step's parts are timed inside it, so they sum to at most its time (the
    // jammed islands' collision rounds are timed apart, `stepped_islands`), and shock
    // propagation is part of the sweeps.
    let time = |k: &str| report["stage_times"][k].as_f64().unwrap();
    let parts = time("contact_gather")
        + time("contact_prepare")
        + time("contact_sweeps")
        + time("contact_store");
    assert!(
        parts <= time("contact_step") * (1.0 + 1e-9) && parts > 0.5 * time("contact_step"),
        "{parts} s of parts, {} s of contact step",
        time("contact_step")
    );
    assert!(time("shock_propagation") <= time("contact_sweeps"));
    assert!(
        stdout.contains("wall per contact point-step (µs)")
            && stdout.contains("stage contact_step per contact point-step (µs)"),
        "{stdout}"
    );
    let timeline = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = timeline.lines().collect();
    // 75 frames of 0.02 s, after the header.
    assert_eq!(lines.len(), 76, "{timeline}");
    let header: Vec<&str> = lines[0].split(',').collect();
    let last: Vec<&str> = lines[75].split(',').collect();
    assert_eq!(header.len(), last.len());
    let column = |name: &str| last[header.iter().position(|h| *h == name).unwrap()];
    assert_eq!(column("sim_time").parse::<f64>().unwrap(), 1.5);
    assert_eq!(
        column("collisions"),
        report["counts"]["collisions"].to_string()
    );
    assert_eq!(
        column("contact_steps"),
        report["counts"]["contact_steps"].to_string()
    );
    assert_eq!(
        column("max_penetration").parse::<f64>().unwrap(),
        report["max_penetration"].as_f64().unwrap()
    );
    // No overlap on this run, so no place for one.
    assert_eq!(report["max_penetration"].as_f64().unwrap(), 0.0);
    assert!(report["deepest_overlap"].is_null());
    let asleep: usize = column("asleep").parse().unwrap();
    let awake: usize = column("awake").parse().unwrap();
    assert_eq!(asleep + awake, 50);

    let nowhere = dir.join("no such dir").join("timeline.csv");
    let out = tumble(&[
        "bench",
        "scenes/ramp.toml",
        "--backend",
        "cpu",
        "--duration",
        "0.1",
        "--timeline",
        nowhere.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("timeline.csv") && stderr.contains("cannot write the timeline"),
        "{stderr}"
    );
}
