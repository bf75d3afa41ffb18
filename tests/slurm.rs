//! `examples/slurm/` on a real, one-node Slurm: `submit.sh` runs `tumble batch` as an array job
//! of [`SHARDS`] shards and a merge job that waits for them, and the merged output must be the
//! unsharded run's: `trials.csv` in every column but `wall_time`, `poses.csv` byte for byte.
//!
//! The cluster is `tests/slurm/start-local-slurm.sh`'s (munged, slurmctld and slurmd on this
//! machine, configured under /tmp/tumble-slurm or `$TUMBLE_SLURM_DIR`); the script is idempotent,
//! so a cluster that is already up is reused, and it is left running afterwards for the next run
//! (`tests/slurm/stop-local-slurm.sh` stops it). It needs root (or `sudo` without a password)
//! and the Debian packages `slurm-wlm` and `munge`, which `.ci/run` installs.
//!
//! Skips (prints "SKIPPED: no Slurm") when `sbatch` is not on PATH, unless CI=true, where that
//! fails.

#[path = "cli_support/mod.rs"]
mod cli_support;

use cli_support::{temp_dir, text};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// The scene, relative to the crate root.
const SCENE: &str = "scenes/stable-poses.toml";
/// Trials in all, over [`SHARDS`] array tasks: small, so that the test takes seconds.
const TRIALS: u32 = 24;
const SHARDS: u32 = 3;
const SEED: u64 = 1;
/// How long the array and the merge may take together, from submission.
const TIMEOUT: Duration = Duration::from_secs(300);

/// Whether `program` is an executable file in a directory of PATH.
fn on_path(program: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| {
            std::fs::metadata(dir.join(program))
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    })
}

fn crate_path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

/// Runs `program args` from the crate root with SLURM_CONF set, and returns its output; panics
/// if it cannot be started.
fn run(program: &str, args: &[&str], slurm_conf: &str) -> Output {
    Command::new(program)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("SLURM_CONF", slurm_conf)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"))
}

/// Starts the local cluster (or finds it up) and returns the path of its slurm.conf, which the
/// script prints on stdout as `SLURM_CONF=PATH`. The daemons need root: when the tests run as
/// another user (.ci/run allows it, with sudo), the script runs through `sudo -n`; the jobs then
/// still run as this user.
fn start_local_slurm() -> String {
    let script = crate_path("tests/slurm/start-local-slurm.sh");
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| text(&o.stdout).trim() == "0");
    let mut cmd = if is_root {
        Command::new(&script)
    } else {
        // sudo resets the environment: hand TUMBLE_SLURM_DIR over explicitly.
        let mut cmd = Command::new("sudo");
        cmd.arg("-n").arg("env");
        if let Some(dir) = std::env::var_os("TUMBLE_SLURM_DIR") {
            let mut arg = std::ffi::OsString::from("TUMBLE_SLURM_DIR=");
            arg.push(dir);
            cmd.arg(arg);
        }
        cmd.arg(&script);
        cmd
    };
    let out = cmd
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{} failed ({}):\n{}",
        script.display(),
        out.status,
        text(&out.stderr)
    );
    let stdout = text(&out.stdout);
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("SLURM_CONF="))
        .unwrap_or_else(|| panic!("no SLURM_CONF=… line from the start script: {stdout}"))
        .to_string()
}

/// `key=value` from submit.sh's stdout.
fn job_id(stdout: &str, key: &str) -> String {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
        .unwrap_or_else(|| panic!("submit.sh printed no {key}=ID: {stdout}"))
        .trim()
        .to_string()
}

/// What Slurm knows about a job, one line per array task: the id, state, reason and exit code
/// fields of `scontrol show job -o`, or its error.
fn job_report(id: &str, slurm_conf: &str) -> String {
    const KEYS: [&str; 5] = [
        "JobId=",
        "ArrayTaskId=",
        "JobState=",
        "Reason=",
        "ExitCode=",
    ];
    let out = run("scontrol", &["show", "job", "-o", id], slurm_conf);
    let mut report = text(&out.stderr);
    for line in text(&out.stdout).lines() {
        let fields: Vec<&str> = line
            .split_whitespace()
            .filter(|f| KEYS.iter().any(|k| f.starts_with(k)))
            .collect();
        report += &format!("  {}\n", fields.join(" "));
    }
    report
}

/// The jobs' state and logs, for a failure message.
fn diagnostics(array_job: &str, merge_job: &str, out_dir: &Path, slurm_conf: &str) -> String {
    let mut s = format!(
        "array job {array_job}:\n{}\nmerge job {merge_job}:\n{}\n",
        job_report(array_job, slurm_conf),
        job_report(merge_job, slurm_conf)
    );
    let mut logs: Vec<PathBuf> = std::fs::read_dir(out_dir.join("logs"))
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    logs.sort();
    for log in logs {
        let content = std::fs::read_to_string(&log).unwrap_or_default();
        s += &format!("--- {}\n{content}\n", log.display());
    }
    s
}

/// Splits one CSV line into fields; a field in double quotes may contain commas and `""`.
fn csv_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                fields.last_mut().unwrap().push('"');
            }
            '"' => quoted = !quoted,
            ',' if !quoted => fields.push(String::new()),
            c => fields.last_mut().unwrap().push(c),
        }
    }
    fields
}

/// A CSV file's rows with the column `drop` removed (which the header must have).
fn csv_without(path: &Path, drop: &str) -> Vec<Vec<String>> {
    let content = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut rows: Vec<Vec<String>> = content.lines().map(csv_fields).collect();
    assert!(!rows.is_empty(), "{} is empty", path.display());
    let column = rows[0]
        .iter()
        .position(|name| name == drop)
        .unwrap_or_else(|| panic!("{} has no column {drop}: {:?}", path.display(), rows[0]));
    for (i, row) in rows.iter_mut().enumerate() {
        assert!(
            column < row.len(),
            "{} line {}: no {drop} field",
            path.display(),
            i + 1
        );
        row.remove(column);
    }
    rows
}

#[test]
#[cfg_attr(
    tumble_no_slurm,
    ignore = "no sbatch on PATH when built: apt-get install slurm-wlm munge"
)]
fn sharded_array_job_and_merge_equal_an_unsharded_batch() {
    if !on_path("sbatch") {
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("CI=true but no Slurm: sbatch is not on PATH (apt-get install slurm-wlm munge)");
        }
        eprintln!("SKIPPED: no Slurm (sbatch is not on PATH)");
        return;
    }
    let started = Instant::now();
    let slurm_conf = start_local_slurm();
    let cluster_up = started.elapsed();

    let dir = temp_dir("slurm");
    let sharded = dir.join("sharded");
    let trials = TRIALS.to_string();
    let seed = SEED.to_string();
    let shards = SHARDS.to_string();

    // Submit exactly as a user would, with this build's tumble.
    let submitted = Instant::now();
    let out = Command::new(crate_path("examples/slurm/submit.sh"))
        .args([SCENE, &shards, sharded.to_str().unwrap()])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("SLURM_CONF", &slurm_conf)
        .env("TUMBLE", env!("CARGO_BIN_EXE_tumble"))
        .env("TRIALS", &trials)
        .env("SEED", &seed)
        .output()
        .expect("cannot run examples/slurm/submit.sh");
    let stdout = text(&out.stdout);
    assert!(
        out.status.success(),
        "submit.sh failed ({}):\n{stdout}{}",
        out.status,
        text(&out.stderr)
    );
    let array_job = job_id(&stdout, "array_job");
    let merge_job = job_id(&stdout, "merge_job");

    // Wait for the merge to leave the queue: squeue lists pending, running and completing jobs
    // only. It leaves it when it completes, fails, or is cancelled because a shard failed
    // (--kill-on-invalid-dep), so a failure does not wait for the timeout.
    loop {
        let q = run("squeue", &["-h", "-j", &merge_job, "-o", "%T"], &slurm_conf);
        // Once finished jobs are purged (MinJobAge) squeue calls the id invalid: gone too.
        if text(&q.stdout).trim().is_empty() {
            break;
        }
        if submitted.elapsed() > TIMEOUT {
            let diag = diagnostics(&array_job, &merge_job, &sharded, &slurm_conf);
            let _ = run("scancel", &[&array_job, &merge_job], &slurm_conf);
            panic!("the jobs did not finish in {TIMEOUT:?}:\n{diag}");
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    let slurm_time = submitted.elapsed();
    let merged = sharded.join("merged");
    // Finished jobs stay known to scontrol for MinJobAge (5 minutes here); without accounting
    // there is no sacct. The merged files below are the check that holds after that too.
    let report = job_report(&merge_job, &slurm_conf);
    let completed = report.contains("JobState=COMPLETED ");
    let have_outputs = merged.join("trials.csv").is_file() && merged.join("poses.csv").is_file();
    assert!(
        completed && have_outputs,
        "the merge job did not complete with its output in {}:\n{}",
        merged.display(),
        diagnostics(&array_job, &merge_job, &sharded, &slurm_conf)
    );
    eprintln!(
        "Slurm: cluster up in {:.1} s; {SHARDS} shards and the merge in {:.1} s",
        cluster_up.as_secs_f64(),
        slurm_time.as_secs_f64()
    );

    // The same trials unsharded, here.
    let unsharded = dir.join("unsharded");
    let out = Command::new(env!("CARGO_BIN_EXE_tumble"))
        .args([
            "batch", SCENE, "--trials", &trials, "--seed", &seed, "--out",
        ])
        .arg(&unsharded)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("failed to start tumble");
    assert!(
        out.status.success(),
        "tumble batch failed ({}): {}",
        out.status,
        text(&out.stderr)
    );

    let (a, b) = (
        csv_without(&merged.join("trials.csv"), "wall_time"),
        csv_without(&unsharded.join("trials.csv"), "wall_time"),
    );
    assert!(a.len() > 1, "merged trials.csv has no rows");
    assert_eq!(a[0], b[0], "trials.csv headers differ");
    assert_eq!(
        a.len(),
        b.len(),
        "trials.csv: merged and unsharded row counts differ"
    );
    for (i, (ra, rb)) in a.iter().zip(&b).enumerate() {
        assert_eq!(
            ra,
            rb,
            "trials.csv line {} (wall_time aside) differs",
            i + 1
        );
    }
    let (pa, pb) = (
        std::fs::read(merged.join("poses.csv")).unwrap(),
        std::fs::read(unsharded.join("poses.csv")).unwrap(),
    );
    if pa != pb {
        let (ta, tb) = (text(&pa), text(&pb));
        let line = ta.lines().zip(tb.lines()).position(|(x, y)| x != y);
        panic!(
            "poses.csv: merged and unsharded differ ({} and {} bytes; first differing line: {})",
            pa.len(),
            pb.len(),
            line.map_or("none, one is longer".into(), |i| (i + 1).to_string())
        );
    }

    std::fs::remove_dir_all(&dir).unwrap();
}
