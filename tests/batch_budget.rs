//! `tumble batch` against pathological trials and kills: a trial over its wall-clock budget
//! ends as a failed trial with its reason, and the files of the trials finished so far are
//! rewritten as the batch goes, so that a batch killed meanwhile keeps them.

#[path = "cli_support/mod.rs"]
mod cli_support;

use cli_support::{temp_dir, text, tumble};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn a_trial_over_its_budget_fails_alone_with_its_reason() {
    let out = temp_dir("budget").join("out");
    // Each trial simulates up to 4 s of a part bouncing to rest: far more than 1 µs of wall (a
    // trial can take under 1 ms on a fast core, so a millisecond's budget is not over for all).
    let run = tumble(&[
        "batch",
        "scenes/stable-poses.toml",
        "--trials",
        "3",
        "--trial-budget",
        "0.000001",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = text(&run.stderr);
    println!("{stderr}");
    assert_eq!(run.status.code(), Some(1), "every trial failed: {stderr}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["status"], "finished");
    let failed = summary["failed"].as_array().unwrap();
    assert_eq!(failed.len(), 3);
    for f in failed {
        let e = f["error"].as_str().unwrap();
        assert!(
            e.starts_with("over its budget of 0.000001 s of wall time at t = "),
            "{e}"
        );
    }
    // The default budget leaves the same trials alone.
    let out2 = temp_dir("budget-default").join("out");
    let run = tumble(&[
        "batch",
        "scenes/stable-poses.toml",
        "--trials",
        "3",
        "--out",
        out2.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    // A budget that is not a positive number is refused.
    let bad = tumble(&[
        "batch",
        "scenes/stable-poses.toml",
        "--trial-budget",
        "nan",
        "--out",
        out2.to_str().unwrap(),
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("--trial-budget must be a finite number of seconds > 0"));
}

#[test]
fn a_killed_batch_keeps_the_trials_it_finished() {
    // Far more trials than can finish before the first summary.json is written (4 000 can):
    // the kill must land mid-batch.
    let out = temp_dir("killed").join("out");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tumble"))
        .args(["batch", "scenes/stable-poses.toml", "--trials", "100000"])
        .arg("--out")
        .arg(&out)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let summary = out.join("summary.json");
    while !summary.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no summary.json while the batch runs"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    Command::new("kill")
        .args(["-KILL", &child.id().to_string()])
        .status()
        .unwrap();
    child.wait().unwrap();
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    assert_eq!(s["status"], "running");
    let done = s["trials"].as_u64().unwrap();
    println!(
        "killed after {:?} with {done} trials written",
        start.elapsed()
    );
    assert!(done > 0 && done < 100_000);
    let trials = std::fs::read_to_string(out.join("trials.csv")).unwrap();
    let rows: Vec<&str> = trials.lines().skip(1).collect();
    assert_eq!(
        rows.len() as u64,
        done,
        "trials.csv has the summary's trials"
    );
    let width = trials.lines().next().unwrap().split(',').count();
    let mut seen = std::collections::BTreeSet::new();
    for row in &rows {
        let cells: Vec<&str> = row.split(',').collect();
        assert_eq!(cells.len(), width, "a whole row: {row}");
        assert!(seen.insert(cells[0].parse::<u64>().unwrap()), "{row}");
    }
    // A shard left unfinished is not merged as if it were whole.
    let merged = temp_dir("killed-merge").join("out");
    let merge = tumble(&[
        "batch",
        "merge",
        merged.to_str().unwrap(),
        out.to_str().unwrap(),
    ]);
    assert_eq!(merge.status.code(), Some(2));
    assert!(
        text(&merge.stderr).contains("did not finish"),
        "{}",
        text(&merge.stderr)
    );
}
