//! Checkpoints: a world saved between frames and loaded into a world built again from its scene
//! goes on bit for bit as the saved one does (the library), and `tumble run --resume` continues a
//! run stopped at a checkpoint, or killed with SIGKILL, to the same frames.csv, events.csv and
//! summary.json counts as a run never stopped (the binary); bad checkpoints are refused with exit
//! code 2 and a message naming the file.

#[path = "cli_support/mod.rs"]
mod cli_support;

use cli_support::{temp_dir, text, tumble};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use tumble::checkpoint::{self, RunInfo, RunOptions, SceneRecord};
use tumble::output::FramesMark;
use tumble::scene::{self, Method, Scene};
use tumble::simulation::{FrameSink, Simulation, SinkError};
use tumble::world::{ImpulseEvent, World};

/// Everything a frame shows, as bits: the time, every body's state (frames.csv's 13 numbers and
/// the raw pose and velocities), the counters, the deepest overlap and the impulses recorded.
#[derive(Default)]
struct Trace {
    frames: Vec<Vec<u64>>,
    events: Vec<ImpulseEvent>,
}

impl FrameSink for Trace {
    fn frame(&mut self, world: &mut World) -> Result<ControlFlow<()>, SinkError> {
        let mut row = vec![world.time().to_bits()];
        for i in 0..world.body_count() {
            row.extend(world.body_state(i).to_array().map(f64::to_bits));
            let b = world.body(i);
            let raw = [b.position.to_array(), b.velocity.to_array()].concat();
            row.extend(raw.into_iter().map(f64::to_bits));
            row.push(u64::from(b.asleep));
            row.push(u64::from(b.version));
        }
        let counts = serde_json::to_value(world.counts())?;
        for v in counts.as_object().into_iter().flat_map(|m| m.values()) {
            row.push(v.as_u64().unwrap_or(u64::MAX));
        }
        row.push(world.max_penetration().to_bits());
        world.take_events(&mut self.events);
        self.frames.push(row);
        Ok(ControlFlow::Continue(()))
    }
}

/// A run's record for a checkpoint made in memory (the library tests do not run the binary).
fn info(scene: &Scene, world: &World) -> RunInfo {
    RunInfo {
        scene: SceneRecord {
            name: scene.source.display().to_string(),
            path: scene.source.clone(),
            text: String::new(),
        },
        options: RunOptions {
            duration: scene.world.duration,
            every: 1,
            record: Vec::new(),
            format: "csv".into(),
            events: true,
            backend: "cpu".into(),
            checkpoint_every: 0.1,
            threads: None,
        },
        frames: FramesMark {
            bytes: 0,
            offered: 0,
            last_written: None,
        },
        events: None,
        stored_scene: None,
        time: world.time(),
        wall_time: 0.0,
    }
}

/// Runs `scene` to `split`, checkpoints it in memory, loads the checkpoint into a world built
/// again from the scene, and runs both on to `end`: every frame after the split must be the
/// same bits in both, and the checkpoint of the loaded world the same bytes as the original's.
fn goes_on_bit_for_bit(scene: &Scene, split: f64, end: f64) {
    let label = scene.source.display().to_string();
    let mut first = Simulation::new(scene).unwrap();
    first.world_mut().record_events(true);
    let mut before = Trace::default();
    first.run(Some(split), &mut [&mut before]).unwrap();
    assert!(
        !before.frames.is_empty(),
        "{label}: no frame before the split"
    );
    let hash = [7u8; 32];
    let bytes = checkpoint::encode(&hash, &info(scene, first.world()), first.world()).unwrap();
    let read = checkpoint::decode(Path::new("memory"), &bytes).unwrap();
    assert_eq!(read.scene_hash, hash);
    assert_eq!(read.info.time, first.time());
    assert_eq!(read.world.time(), first.time());
    let mut world = read.into_world(scene).unwrap();
    world.record_events(true);
    let again = checkpoint::encode(&hash, &info(scene, &world), &world).unwrap();
    assert!(
        again == bytes,
        "{label}: the loaded world's checkpoint differs from the saved one's ({} against {} \
         bytes; first difference at byte {:?})",
        again.len(),
        bytes.len(),
        again.iter().zip(&bytes).position(|(x, y)| x != y)
    );
    let mut second = Simulation::from_world(world, scene).unwrap();
    let (mut a, mut b) = (Trace::default(), Trace::default());
    first.run(Some(end), &mut [&mut a]).unwrap();
    second.run(Some(end), &mut [&mut b]).unwrap();
    assert!(
        a.frames.len() > 1,
        "{label}: too few frames after the split"
    );
    assert_eq!(a.frames.len(), b.frames.len(), "{label}: frame counts");
    for (k, (x, y)) in a.frames.iter().zip(&b.frames).enumerate() {
        if x != y {
            let at = x.iter().zip(y).position(|(p, q)| p != q);
            panic!(
                "{label}: frame {k} after the split (t = {}) differs from the uninterrupted \
                 run's at value {at:?} of {}",
                f64::from_bits(x[0]),
                x.len()
            );
        }
    }
    assert!(a.events == b.events, "{label}: the impulses differ");
    println!(
        "{label}: {} frames after t = {split} identical, {} impulses, checkpoint {} bytes",
        a.frames.len(),
        a.events.len(),
        bytes.len()
    );
}

fn load(path: &str) -> Scene {
    scene::load(Path::new(path)).unwrap()
}

#[test]
fn a_pile_goes_on_bit_for_bit() {
    // Across the jammed islands' steps (from about 1.1 s on): the jam rule's averages are state.
    goes_on_bit_for_bit(&load("scenes/small-funnel.toml"), 1.3, 2.0);
}

#[test]
fn a_kinematic_path_goes_on_bit_for_bit() {
    goes_on_bit_for_bit(&load("scenes/machinery/hopper.toml"), 0.5, 0.9);
    goes_on_bit_for_bit(&load("scenes/machinery/feeder.toml"), 0.3, 0.6);
}

#[test]
fn joints_go_on_bit_for_bit() {
    goes_on_bit_for_bit(&load("scenes/joints/flap-feeder.toml"), 0.8, 1.5);
    goes_on_bit_for_bit(&load("scenes/joints/chain.toml"), 0.3, 0.6);
}

#[test]
fn other_modes_go_on_bit_for_bit() {
    // Microcollisions, split push-outs, a mesh, and sleeping bodies.
    goes_on_bit_for_bit(
        &load("scenes/experiments/newtons-cradle-floor.toml"),
        0.2,
        0.5,
    );
    goes_on_bit_for_bit(&load("scenes/experiments/chain-of-balls.toml"), 0.1, 0.3);
    goes_on_bit_for_bit(&load("scenes/mesh-parts.toml"), 0.4, 0.8);
    goes_on_bit_for_bit(&load("scenes/stacking/stack20.toml"), 1.0, 1.3);
    goes_on_bit_for_bit(&load("scenes/dice-drop.toml"), 1.4, 2.0);
    // Stewart & Trinkle's time-stepping: the steps begun are state.
    let mut lcp = load("scenes/experiments/four-balls.toml");
    lcp.world.config.method = Method::Lcp;
    lcp.world.config.time_step = 0.003;
    goes_on_bit_for_bit(&lcp, 0.3, 0.6);
}

#[test]
fn the_parallel_event_loop_goes_on_bit_for_bit() {
    // Enough bodies for the step's event loop to split into islands on threads.
    goes_on_bit_for_bit(&load("scenes/funnel-250.toml"), 1.24, 1.4);
}

/// A loaded state must fit its world: another scene's is refused, not loaded half way.
#[test]
fn a_state_of_another_world_is_refused() {
    let scene = load("scenes/small-funnel.toml");
    let mut sim = Simulation::new(&scene).unwrap();
    sim.run(Some(0.1), &mut []).unwrap();
    let bytes = checkpoint::encode(&[0; 32], &info(&scene, sim.world()), sim.world()).unwrap();
    let read = checkpoint::decode(Path::new("memory"), &bytes).unwrap();
    let other = load("scenes/ramp.toml");
    let err = match read.into_world(&other) {
        Ok(_) => panic!("a state of 55 bodies loaded into a world of 3"),
        Err(e) => e.to_string(),
    };
    assert!(
        err.contains("memory: does not fit its scene: the state has 55 bodies"),
        "{err}"
    );
}

// ---- The binary: `tumble run --checkpoint-every S` and `tumble run --resume DIR`. ----

/// `tumble run SCENE --out DIR --duration D` on the CPU with events and two threads (the
/// parallel event loop's counters depend on the thread count), and `extra`; must succeed.
fn run(scene: &str, dir: &Path, duration: f64, extra: &[&str]) {
    let d = duration.to_string();
    let mut args = vec![
        "run",
        scene,
        "--out",
        dir.to_str().unwrap(),
        "--duration",
        &d,
        "--backend",
        "cpu",
        "--events",
        "--threads",
        "2",
    ];
    args.extend_from_slice(extra);
    let out = tumble(&args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        text(&out.stderr)
    );
}

/// `tumble run --resume DIR` with `extra`; its output.
fn resume(dir: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["run", "--resume", dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    tumble(&args)
}

/// Fails naming the first line where two files differ (or where one ends).
fn same_bytes(label: &str, a: &Path, b: &Path) {
    let (x, y) = (std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
    if x == y {
        return;
    }
    let (xs, ys) = (String::from_utf8_lossy(&x), String::from_utf8_lossy(&y));
    let (mut xl, mut yl) = (xs.lines(), ys.lines());
    for line in 1.. {
        match (xl.next(), yl.next()) {
            (Some(p), Some(q)) if p == q => continue,
            (p, q) => panic!(
                "{label}: {} and {} differ at line {line} ({} against {} bytes):\n  {}\n  {}",
                a.display(),
                b.display(),
                x.len(),
                y.len(),
                p.unwrap_or("<end of file>"),
                q.unwrap_or("<end of file>")
            ),
        }
    }
}

/// summary.json without what may differ between two runs of one simulation: the wall time.
fn summary(dir: &Path) -> serde_json::Value {
    let path = dir.join("summary.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    v.as_object_mut().unwrap().remove("wall_time");
    v
}

/// The uninterrupted run's frames.csv, events.csv and summary.json (its counts, bodies,
/// status; all but the wall time) against the resumed run's.
fn same_run(label: &str, uninterrupted: &Path, resumed: &Path) {
    same_bytes(
        label,
        &uninterrupted.join("frames.csv"),
        &resumed.join("frames.csv"),
    );
    same_bytes(
        label,
        &uninterrupted.join("events.csv"),
        &resumed.join("events.csv"),
    );
    let (a, b) = (summary(uninterrupted), summary(resumed));
    assert_eq!(a["status"], "finished", "{label}");
    for key in a.as_object().unwrap().keys() {
        assert!(
            a[key] == b[key],
            "{label}: summary.json's {key} differs:\n{}\n{}",
            a[key],
            b[key]
        );
    }
}

/// A run of `scene` to `end` never stopped, against one stopped at `stop` (its end checkpoint,
/// after others every `every`) and resumed to `end`.
fn stopped_and_resumed(scene: &str, stop: f64, end: f64, every: &str) {
    let root = temp_dir(&scene.replace(['/', '.'], "-"));
    let (whole, parts) = (root.join("whole"), root.join("parts"));
    run(scene, &whole, end, &[]);
    run(scene, &parts, stop, &["--checkpoint-every", every]);
    let ck = checkpoint::read(&parts.join("checkpoint.bin")).unwrap();
    assert_eq!(
        ck.info.time, stop,
        "{scene}: the last checkpoint is at the run's end"
    );
    let out = resume(&parts, &["--duration", &end.to_string()]);
    assert_eq!(out.status.code(), Some(0), "{scene}: {}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains(&format!("from t = {stop} s")),
        "{}",
        text(&out.stderr)
    );
    same_run(scene, &whole, &parts);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_pile_stopped_and_resumed_writes_the_same_files() {
    stopped_and_resumed("scenes/small-funnel.toml", 1.2, 1.6, "0.5");
}

#[test]
fn a_kinematic_path_stopped_and_resumed_writes_the_same_files() {
    stopped_and_resumed("scenes/machinery/hopper.toml", 0.6, 1.0, "0.25");
}

#[test]
fn joints_stopped_and_resumed_write_the_same_files() {
    stopped_and_resumed("scenes/joints/flap-feeder.toml", 0.9, 1.6, "0.3");
}

/// A run sent `signal` (KILL, or TERM: it stops at a whole frame and writes a checkpoint there)
/// as soon as its first checkpoint exists, then resumed, against the run never stopped.
#[cfg(unix)]
fn killed_and_resumed(scene: &str, end: f64, every: &str, signal: &str) {
    use std::os::unix::process::ExitStatusExt;
    let root = temp_dir(&format!("{signal}-{}", scene.replace(['/', '.'], "-")));
    let (whole, killed) = (root.join("whole"), root.join("killed"));
    run(scene, &whole, end, &[]);
    let end_text = end.to_string();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tumble"))
        .args([
            "run",
            scene,
            "--out",
            killed.to_str().unwrap(),
            "--duration",
            &end_text,
        ])
        .args([
            "--backend",
            "cpu",
            "--events",
            "--threads",
            "2",
            "--checkpoint-every",
            every,
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let path = killed.join("checkpoint.bin");
    while !path.exists() {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("{scene}: the run ended ({status}) before its first checkpoint");
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let sent = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success(), "kill -{signal}");
    let status = child.wait().unwrap();
    let stopped = match signal {
        "KILL" => status.signal() == Some(9),
        _ => status.code() == Some(130),
    };
    assert!(
        stopped,
        "{scene}: the run was not stopped by SIG{signal} ({status}); it may have finished first: \
         make it longer"
    );
    let at = checkpoint::read(&path).unwrap().info.time;
    assert!(at < end, "{scene}: the checkpoint is at the end");
    let out = resume(&killed, &[]);
    assert_eq!(out.status.code(), Some(0), "{scene}: {}", text(&out.stderr));
    same_run(&format!("{scene} killed at t >= {at}"), &whole, &killed);
    let _ = std::fs::remove_dir_all(&root);
}

#[cfg(unix)]
#[test]
fn a_pile_killed_and_resumed_writes_the_same_files() {
    killed_and_resumed("scenes/small-funnel.toml", 4.0, "0.5", "KILL");
}

#[cfg(unix)]
#[test]
fn a_kinematic_path_killed_and_resumed_writes_the_same_files() {
    killed_and_resumed("scenes/machinery/hopper.toml", 3.0, "0.5", "KILL");
}

/// SIGTERM (a cluster's time limit): the run stops at a whole frame, writes a checkpoint there,
/// and the resume goes on from that frame.
#[cfg(unix)]
#[test]
fn a_run_stopped_by_sigterm_resumes_from_where_it_stopped() {
    killed_and_resumed("scenes/small-funnel.toml", 4.0, "0.5", "TERM");
}

/// A finished run with checkpoints, `--every 3` and two recorded bodies, resumed beyond its
/// end: the same as a run of the longer duration (the thinned run's last frame, always written,
/// is written after the checkpoint and cut off by the resume).
#[test]
fn a_thinned_run_goes_on_past_its_end() {
    let root = temp_dir("thinned");
    let (whole, parts) = (root.join("whole"), root.join("parts"));
    let extra = ["--every", "3", "--record", "cube_0,cube_7"];
    run("scenes/small-funnel.toml", &whole, 1.0, &extra);
    run(
        "scenes/small-funnel.toml",
        &parts,
        0.5,
        &[&extra[..], &["--checkpoint-every", "10"]].concat(),
    );
    let out = resume(&parts, &["--duration", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    same_run("thinned", &whole, &parts);
    let _ = std::fs::remove_dir_all(&root);
}

/// A run directory with a checkpoint of small-funnel stopped at 0.2 s, for the refusals.
fn checkpointed(test: &str) -> PathBuf {
    let dir = temp_dir(test).join("run");
    run(
        "scenes/small-funnel.toml",
        &dir,
        0.2,
        &["--checkpoint-every", "0.1"],
    );
    dir
}

/// `tumble run --resume DIR` is refused with exit code 2 and a message naming the checkpoint
/// and containing `what`; the tables are left as they were.
fn refused(dir: &Path, extra: &[&str], what: &str) {
    let frames = std::fs::read(dir.join("frames.csv")).unwrap();
    let out = resume(dir, extra);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
    assert!(stderr.contains(what), "expected {what:?} in: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(std::fs::read(dir.join("frames.csv")).unwrap(), frames);
}

#[test]
fn a_truncated_checkpoint_is_refused() {
    let dir = checkpointed("truncated");
    let path = dir.join("checkpoint.bin");
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let shown = path.display().to_string();
    refused(
        &dir,
        &[],
        &format!("{shown}: truncated or padded: the header announces"),
    );
    std::fs::write(&path, &bytes[..40]).unwrap();
    refused(&dir, &[], &format!("{shown}: truncated: 40 bytes"));
    std::fs::write(&path, &bytes[..4]).unwrap();
    refused(&dir, &[], &format!("{shown}: truncated: 4 bytes"));
}

#[test]
fn a_flipped_bit_is_refused() {
    let dir = checkpointed("flipped");
    let path = dir.join("checkpoint.bin");
    let bytes = std::fs::read(&path).unwrap();
    // In the payload, in the scene's hash, and in the magic.
    for (at, what) in [
        (
            bytes.len() - 100,
            "corrupt: the checksum does not match its contents",
        ),
        (
            checkpoint::HEADER_LEN + 10,
            "corrupt: the checksum does not match its contents",
        ),
        (20, "corrupt: the checksum does not match its contents"),
        (0, "not a tumble checkpoint"),
    ] {
        let mut flipped = bytes.clone();
        flipped[at] ^= 0x10;
        std::fs::write(&path, &flipped).unwrap();
        refused(&dir, &[], &format!("{}: {what}", path.display()));
    }
}

#[test]
fn another_format_version_is_refused() {
    let dir = checkpointed("version");
    let path = dir.join("checkpoint.bin");
    let mut bytes = std::fs::read(&path).unwrap();
    let at = checkpoint::VERSION_OFFSET;
    bytes[at..at + 4].copy_from_slice(&(checkpoint::FORMAT_VERSION + 1).to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    refused(
        &dir,
        &[],
        &format!(
            "{}: checkpoint format version {}, but this build of tumble reads version {} only",
            path.display(),
            checkpoint::FORMAT_VERSION + 1,
            checkpoint::FORMAT_VERSION
        ),
    );
}

#[test]
fn another_scene_is_refused() {
    let dir = checkpointed("scene");
    let path = dir.join("checkpoint.bin");
    // A SCENE given beside --resume must be the checkpoint's.
    refused(
        &dir,
        &["scenes/ramp.toml"],
        &format!(
            "scenes/ramp.toml: not the scene of the checkpoint {}",
            path.display()
        ),
    );
    let out = resume(&dir, &["scenes/small-funnel.toml", "--duration", "0.3"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // A mesh file changed since the checkpoint: the scene's hash covers it, and the run goes on
    // with the run directory's own copy; with that copy changed too, it is refused.
    let root = temp_dir("mesh");
    std::fs::create_dir_all(root.join("meshes")).unwrap();
    std::fs::copy("scenes/mesh-parts.toml", root.join("scene.toml")).unwrap();
    for mesh in ["dish.obj", "cube.stl", "cube-ascii.stl", "l-bracket.obj"] {
        std::fs::copy(
            format!("scenes/meshes/{mesh}"),
            root.join("meshes").join(mesh),
        )
        .unwrap();
    }
    let scene = root.join("scene.toml");
    let run_dir = root.join("run");
    run(
        scene.to_str().unwrap(),
        &run_dir,
        0.1,
        &["--checkpoint-every", "0.05"],
    );
    let edit = |obj: &Path| {
        let mut text_of = std::fs::read_to_string(obj).unwrap();
        text_of.push_str("\n# edited\n");
        std::fs::write(obj, text_of).unwrap();
    };
    edit(&root.join("meshes/dish.obj"));
    let copy = std::fs::read_dir(run_dir.join("meshes"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with("dish.obj"))
        .expect("the run directory's copy of dish.obj");
    let kept = std::fs::read(&copy).unwrap();
    let before = std::fs::read(run_dir.join("checkpoint.bin")).unwrap();
    let out = resume(&run_dir, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // Again from the same checkpoint, with the copy edited as well.
    std::fs::write(run_dir.join("checkpoint.bin"), before).unwrap();
    assert_eq!(std::fs::read(&copy).unwrap(), kept);
    edit(&copy);
    refused(&run_dir, &[], "a mesh file of");
    // Options that would change the frames cannot be given, and the end cannot come before it.
    let out = resume(&dir, &["--every", "2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("cannot be used with"),
        "{}",
        text(&out.stderr)
    );
    refused(&dir, &["--duration", "0.1"], "ends before the checkpoint");
}

#[test]
fn bad_checkpoint_options_are_refused() {
    let dir = temp_dir("options");
    for (args, what) in [
        (
            vec!["--checkpoint-every", "0"],
            "--checkpoint-every must be a finite number",
        ),
        (
            vec!["--checkpoint-every", "nan"],
            "--checkpoint-every must be a finite number",
        ),
        (
            vec!["--checkpoint-every", "1", "--format", "parquet"],
            "--checkpoint-every needs --format csv",
        ),
    ] {
        let out_dir = dir.join("out");
        let mut full = vec![
            "run",
            "scenes/ramp.toml",
            "--out",
            out_dir.to_str().unwrap(),
        ];
        full.extend(args);
        let out = tumble(&full);
        assert_eq!(out.status.code(), Some(2), "{full:?}");
        assert!(text(&out.stderr).contains(what), "{}", text(&out.stderr));
        assert!(!out_dir.exists());
    }
    let out = resume(&dir.join("nowhere"), &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("nowhere/checkpoint.bin: cannot read checkpoint"));
}
