//! `tumble run` stopped from outside: SIGINT and SIGTERM end it at a whole frame with
//! summary.json (`"status": "interrupted"`) and exit code 130; `kill -9` leaves the summary it
//! rewrites every few seconds and whole lines of whole frames; a summary left by an earlier run
//! in the same directory is replaced as the new run starts.

#[path = "cli_support/mod.rs"]
mod cli_support;

use cli_support::temp_dir;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A run long enough to be stopped mid-way (about 6 s of wall on two cores).
const SCENE: &str = "scenes/funnel-250.toml";

fn start(out: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_tumble"))
        .args(["run", SCENE, "--backend", "cpu", "--out"])
        .arg(out)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("failed to start tumble")
}

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill")
        .args([format!("-{name}"), child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill -{name} failed");
}

/// Waits (at most 60 s) until `ready` says so, checking every 20 ms.
fn wait_for(what: &str, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn summary(out: &Path) -> Option<serde_json::Value> {
    let text = std::fs::read_to_string(out.join("summary.json")).ok()?;
    Some(serde_json::from_str(&text).expect("summary.json is always whole JSON"))
}

/// frames.csv's rows, each checked whole (15 fields that parse), and the times of its frames.
fn frame_times(out: &Path) -> Vec<f64> {
    let frames = std::fs::read_to_string(out.join("frames.csv")).unwrap();
    assert!(frames.ends_with('\n'), "frames.csv ends in a torn line");
    let mut times: Vec<f64> = Vec::new();
    for (k, line) in frames.lines().enumerate().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells.len(), 15, "line {} is not whole: {line}", k + 1);
        for c in cells.iter().skip(2) {
            c.parse::<f64>()
                .unwrap_or_else(|_| panic!("line {}: {c:?} is not a number", k + 1));
        }
        let t: f64 = cells[0].parse().unwrap();
        if times.last() != Some(&t) {
            times.push(t);
        }
    }
    times
}

/// Rows per frame: every frame must have all of them (no frame cut in the middle).
fn assert_whole_frames(out: &Path) {
    let frames = std::fs::read_to_string(out.join("frames.csv")).unwrap();
    let mut per_frame: Vec<(String, usize)> = Vec::new();
    for line in frames.lines().skip(1) {
        let t = line.split(',').next().unwrap().to_string();
        match per_frame.last_mut() {
            Some((last, n)) if *last == t => *n += 1,
            _ => per_frame.push((t, 1)),
        }
    }
    let first = per_frame.first().expect("some frames").1;
    for (t, n) in &per_frame {
        assert_eq!(*n, first, "frame t = {t} has {n} rows, the first {first}");
    }
}

fn stopped_by(name: &str) {
    let out = temp_dir(&format!("sig{name}")).join("out");
    let mut child = start(&out);
    // Some frames first, so that the run is well under way.
    wait_for("frames", || {
        std::fs::metadata(out.join("frames.csv")).is_ok_and(|m| m.len() > 200_000)
    });
    signal(&child, name);
    let begun = Instant::now();
    let status = child.wait().unwrap();
    let stopped_in = begun.elapsed();
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    println!("SIG{name}: exit {status:?} after {stopped_in:?}; stderr: {stderr}");
    assert_eq!(status.code(), Some(130), "stderr: {stderr}");
    assert!(stderr.contains("interrupted at t = "), "{stderr}");
    let s = summary(&out).expect("summary.json written");
    assert_eq!(s["status"], "interrupted");
    assert_eq!(s["error"], "interrupted");
    let t = s["sim_time"].as_f64().unwrap();
    assert!(t > 0.0 && t < 6.0, "sim_time {t}");
    let times = frame_times(&out);
    assert_eq!(
        times.last().copied(),
        Some(t),
        "the last frame is the summary's"
    );
    assert_whole_frames(&out);
    assert_eq!(s["bodies"].as_array().unwrap().len(), 255);
}

#[test]
fn sigint_ends_the_run_at_a_whole_frame_with_its_summary() {
    stopped_by("INT");
}

#[test]
fn sigterm_ends_the_run_at_a_whole_frame_with_its_summary() {
    stopped_by("TERM");
}

#[test]
fn kill_9_leaves_a_whole_summary_and_whole_frames() {
    let out = temp_dir("kill9").join("out");
    std::fs::create_dir_all(&out).unwrap();
    // A stale summary of an earlier run here must not survive next to the new frames.
    std::fs::write(out.join("summary.json"), "{\"stale\": true}\n").unwrap();
    let mut child = start(&out);
    wait_for("the first summary", || {
        summary(&out).is_some_and(|s| s.get("stale").is_none())
    });
    let first = summary(&out).unwrap();
    assert_eq!(first["status"], "running");
    assert_eq!(first["sim_time"], 0.0);
    // The rewrite every few seconds of wall.
    wait_for("a rewritten summary", || {
        summary(&out).is_some_and(|s| s["sim_time"].as_f64().is_some_and(|t| t > 0.0))
    });
    signal(&child, "KILL");
    let status = child.wait().unwrap();
    assert_eq!(status.code(), None, "killed by a signal");
    let s = summary(&out).unwrap();
    println!(
        "kill -9 at about t = {}: summary status {}, error {}",
        s["sim_time"], s["status"], s["error"]
    );
    assert_eq!(s["status"], "running");
    assert!(s["error"].as_str().unwrap().starts_with("incomplete"));
    let t = s["sim_time"].as_f64().unwrap();
    let times = frame_times(&out);
    assert!(
        times.last().copied().unwrap() >= t,
        "frames.csv ends at {:?}, before the summary's {t}",
        times.last()
    );
    assert_whole_frames(&out);
    assert!(!out.join("summary.json.tmp").exists());
}
