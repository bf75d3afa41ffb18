//! A scene run through the release binary as a child process, as a user would (`tumble check`,
//! then `tumble run --duration 0.05 --backend cpu`), each command under a wall-time limit, and
//! what came of it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Wall time a command may take before it counts as a hang: a case takes 11 ms on average, the
/// 0.05 s run of funnel-10k (the largest mutated scene) about 0.25 s, and the slowest valid
/// mutant seen (a drum part moved 1 km out along its axis: its turning reach makes every pair
/// bound near it short) 8.6 s; a minute leaves room for a loaded machine and still ends a spin.
pub const COMMAND_BUDGET: Duration = Duration::from_secs(60);

/// How a command ended.
pub struct Ended {
    /// Exit code; `None` when it was killed past the budget or by a signal.
    pub code: Option<i32>,
    pub stderr: String,
    pub wall: Duration,
    /// Killed past [`COMMAND_BUDGET`].
    pub over_budget: bool,
}

/// The binary under test: this build's, or `TUMBLE_FUZZ_BIN` (to see what the mutants do to
/// another build, an older one say).
fn binary() -> PathBuf {
    std::env::var_os("TUMBLE_FUZZ_BIN").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_tumble")),
        PathBuf::from,
    )
}

/// The budget of a mutant's command: [`COMMAND_BUDGET`], or `TUMBLE_FUZZ_BUDGET` seconds.
pub fn mutant_budget() -> Duration {
    std::env::var("TUMBLE_FUZZ_BUDGET")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(COMMAND_BUDGET, Duration::from_secs_f64)
}

/// Runs `tumble ARGS` in `dir` (for its output files), killed past `budget`.
pub fn tumble(args: &[&str], dir: &Path, budget: Duration) -> Ended {
    std::fs::create_dir_all(dir).unwrap();
    // Files, not pipes: a child that writes a lot would block on a full pipe.
    let (out_path, err_path) = (dir.join("stdout"), dir.join("stderr"));
    // (stdout is kept in the case's folder for a look by hand; the outcome reads stderr.)
    let mut child = Command::new(binary())
        .args(args)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("the tumble binary starts");
    let start = Instant::now();
    let (status, over_budget) = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break (Some(status), false);
        }
        if start.elapsed() > budget {
            let _ = child.kill();
            let _ = child.wait();
            break (None, true);
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let read = |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into();
    Ended {
        code: status.and_then(|s| s.code()),
        stderr: read(&err_path),
        wall: start.elapsed(),
        over_budget,
    }
}

/// What a case came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    /// Refused (exit 2) with a message naming the file and a line (and column, or the body).
    Located,
    /// `check` passed and the run of 0.05 s ended normally.
    Ran,
    /// Refused without a location.
    Unlocated,
    /// `check` passed and the run stopped with a clear error (exit 1).
    RunError,
    /// A panic (exit 101 or a "panicked at" report) or a death by signal.
    Panic,
    /// Killed past the budget.
    OverBudget,
}

impl Outcome {
    /// Every outcome, in the order the reports list them.
    pub const ALL: [Outcome; 6] = [
        Outcome::Located,
        Outcome::Ran,
        Outcome::Unlocated,
        Outcome::RunError,
        Outcome::Panic,
        Outcome::OverBudget,
    ];

    /// Whether the case is what the issue allows: a located refusal, a run, or a run-time error.
    pub fn is_good(self) -> bool {
        matches!(self, Outcome::Located | Outcome::Ran | Outcome::RunError)
    }

    pub fn name(self) -> &'static str {
        match self {
            Outcome::Located => "refused with location",
            Outcome::Ran => "ran",
            Outcome::Unlocated => "refused without location",
            Outcome::RunError => "run-time error",
            Outcome::Panic => "panic",
            Outcome::OverBudget => "over budget",
        }
    }
}

/// A command's outcome, given the scene file it was about.
fn judge(ended: &Ended, scene: &Path) -> Option<Outcome> {
    if ended.over_budget {
        return Some(Outcome::OverBudget);
    }
    if ended.code == Some(101) || ended.code.is_none() || ended.stderr.contains("panicked at") {
        return Some(Outcome::Panic);
    }
    match ended.code {
        Some(0) => None,
        Some(2) if is_located(&ended.stderr, scene) => Some(Outcome::Located),
        Some(2) => Some(Outcome::Unlocated),
        _ => Some(Outcome::RunError),
    }
}

/// Whether an error names `scene` with a line: `FILE:LINE:COL: …` or, for a body found after
/// parsing, `FILE:LINE: body "NAME": …` (or `FILE:LINE: N pairs …` for overlaps).
pub fn is_located(stderr: &str, scene: &Path) -> bool {
    let prefix = format!("error: {}:", scene.display());
    let Some(rest) = stderr.lines().find_map(|l| l.strip_prefix(&prefix)) else {
        return false;
    };
    fn digits(s: &str) -> Option<&str> {
        let n = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        (n > 0).then(|| &s[n..])
    }
    let Some(after_line) = digits(rest) else {
        return false;
    };
    after_line.starts_with(": ")
        || after_line
            .strip_prefix(':')
            .and_then(digits)
            .is_some_and(|r| r.starts_with(": "))
}

/// The scene at `scene` through `check` and, if it passes, a run of 0.05 s into `dir/out`.
pub fn run_case(scene: &Path, dir: &Path) -> (Outcome, Ended) {
    let path = scene.to_str().unwrap();
    let check = tumble(&["check", path], dir, mutant_budget());
    if let Some(outcome) = judge(&check, scene) {
        return (outcome, check);
    }
    let run = run_briefly(scene, dir, mutant_budget());
    let outcome = judge(&run, scene).unwrap_or(Outcome::Ran);
    (outcome, run)
}

/// `tumble run` of the scene at `scene` for 0.05 s on the CPU into `dir/out`, within `budget`.
pub fn run_briefly(scene: &Path, dir: &Path, budget: Duration) -> Ended {
    let out = dir.join("out");
    let args = [
        "run",
        scene.to_str().unwrap(),
        "--duration",
        "0.05",
        "--backend",
        "cpu",
        "--out",
        out.to_str().unwrap(),
    ];
    tumble(&args, dir, budget)
}
