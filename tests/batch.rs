//! `tumble batch`: stable-pose statistics against closed forms and probability bounds, and the
//! contract that a trial's result depends only on the scene, the seed and its index (not on the
//! thread count or the shard layout).

use std::path::{Path, PathBuf};
use std::process::Command;
use tumble::batch::{self, BatchOptions, Shard};
use tumble::gpu::Backend;
use tumble::scene::{self, Scene};

/// A scene that drops `part` (a TOML shape table) from a random orientation onto a floor.
fn drop_scene(part: &str, trials: u64, extra_world: &str) -> Scene {
    let text = format!(
        r#"
[world]
gravity = [0.0, 0.0, -9.81]
duration = 4.0
frame_period = 0.01
collision_epsilon = 0.0005
sleep_time = 0.3
{extra_world}
[materials.default]
restitution = 0.3
friction = 0.4

[[bodies]]
name = "floor"
motion = "fixed"
shape = {{ type = "box", half_extents = [2.0, 2.0, 0.1] }}
position = [0.0, 0.0, -0.1]

[[bodies]]
name = "part"
density = 1000.0
position = [0.0, 0.0, 0.5]
shape = {part}

[batch]
trials = {trials}
seed = 11
classify = "part"

[[batch.vary]]
body = "part"
key = "orientation"

[[batch.vary]]
body = "part"
key = "position.z"
uniform = [0.3, 0.5]

[[batch.vary]]
body = "part"
key = "angular_velocity.x"
normal = [0.0, 3.0]
"#
    );
    scene::parse(&text, Path::new("drop.toml")).expect("a valid scene")
}

fn options() -> BatchOptions {
    BatchOptions {
        trials: None,
        seed: None,
        shard: Shard::ALL,
        backend: Backend::Cpu,
        on_trial: None,
        partial: None,
    }
}

/// Counts per pose id of a run.
fn pose_counts(run: &batch::BatchRun) -> Vec<u64> {
    let table = run.poses.as_ref().expect("a classified body");
    let poses = table.pose_of_face.iter().flatten().count();
    let mut counts = vec![0; poses];
    for r in &run.results {
        if let Ok(o) = &r.outcome {
            if let Some(p) = o.pose {
                counts[p] += 1;
            }
        }
    }
    counts
}

/// A fair die: each of its six faces within the 99.9 % chi-square bound (5 degrees of freedom:
/// 20.515) over 600 trials.
#[test]
fn a_fair_die_lands_on_each_face_alike() {
    let scene = drop_scene(
        r#"{ type = "box", half_extents = [0.05, 0.05, 0.05] }"#,
        600,
        "",
    );
    let run = batch::run(&scene, &options()).unwrap();
    let failed = run.results.iter().filter(|r| r.outcome.is_err()).count();
    assert_eq!(failed, 0, "failed trials");
    let counts = pose_counts(&run);
    assert_eq!(counts.len(), 6);
    let n: u64 = counts.iter().sum();
    assert!(n >= 590, "only {n} of 600 trials came to rest on a face");
    let expected = n as f64 / 6.0;
    let chi2: f64 = counts
        .iter()
        .map(|&c| (c as f64 - expected).powi(2) / expected)
        .sum();
    eprintln!("die: counts {counts:?} over {n}, chi-square {chi2:.3} (99.9 % bound 20.515)");
    assert!(chi2 < 20.515, "chi-square {chi2}");
}

/// A thin coin (a 24-gon prism, 40 mm across, 3 mm thick) lands heads and tails alike: |H − T|
/// within 3.29 standard deviations of a fair binomial (99.9 %), and nearly always flat.
#[test]
fn a_thin_coin_lands_heads_and_tails_alike() {
    let sides = 24;
    let (r, h) = (0.02, 0.0015);
    let mut vertices = Vec::new();
    for k in 0..sides {
        let a = std::f64::consts::TAU * k as f64 / sides as f64;
        for z in [-h, h] {
            vertices.push(format!("[{}, {}, {z}]", r * a.cos(), r * a.sin()));
        }
    }
    let coin = format!(
        "{{ type = \"convex\", vertices = [{}] }}",
        vertices.join(", ")
    );
    let scene = drop_scene(&coin, 400, "");
    let run = batch::run(&scene, &options()).unwrap();
    let table = run.poses.as_ref().unwrap();
    let (mut heads, mut tails, mut edge) = (0u64, 0u64, 0u64);
    for r in &run.results {
        let Ok(o) = &r.outcome else { continue };
        let Some(n) = o.normal else { continue };
        if o.pose.is_none() {
            continue;
        }
        if n.z > 0.99 {
            heads += 1;
        } else if n.z < -0.99 {
            tails += 1;
        } else {
            edge += 1;
        }
    }
    let flat = heads + tails;
    let z = (heads as f64 - tails as f64).abs() / (flat as f64).sqrt();
    eprintln!(
        "coin: {heads} heads, {tails} tails, {edge} on edge, z = {z:.3} (99.9 % bound 3.29); \
         {} faces, {} stable",
        table.faces.len(),
        table.stable.iter().filter(|s| **s).count()
    );
    assert!(flat >= 380, "{flat} of 400 flat");
    assert!(z < 3.29, "heads {heads} tails {tails}");
}

/// A brick (60 × 40 × 20 mm): its `quasi_static` column is the closed-form solid angle of each
/// face seen from the centre over 4π, and its faces come up more often the larger they are.
#[test]
fn a_brick_rests_by_face_size_and_its_quasi_static_column_is_the_solid_angles() {
    let (a, b, c) = (0.03, 0.02, 0.01);
    let scene = drop_scene(
        &format!("{{ type = \"box\", half_extents = [{a}, {b}, {c}] }}"),
        400,
        "",
    );
    let run = batch::run(&scene, &options()).unwrap();
    let dir = tempdir("brick");
    batch::write(&dir, &scene, &run, 1).unwrap();
    let poses = std::fs::read_to_string(dir.join("poses.csv")).unwrap();
    // Solid angle of a centred s × t rectangle at distance d: 4 asin(s t / √((s² + 4d²)(t² + 4d²))).
    let omega = |s: f64, t: f64, d: f64| {
        4.0 * (s * t / ((s * s + 4.0 * d * d) * (t * t + 4.0 * d * d)).sqrt()).asin()
    };
    // Count per face pair, by the axis of the normal: x faces 2b × 2c at a, and so on.
    let mut by_axis = [0u64; 3];
    let mut rows = 0;
    for line in poses.lines().skip(1) {
        let f: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
        let n = [f[1], f[2], f[3]];
        let axis = (0..3)
            .max_by(|&i, &j| n[i].abs().total_cmp(&n[j].abs()))
            .unwrap();
        let (s, t, d) = match axis {
            0 => (2.0 * b, 2.0 * c, a),
            1 => (2.0 * a, 2.0 * c, b),
            _ => (2.0 * a, 2.0 * b, c),
        };
        let expected = omega(s, t, d) / (4.0 * std::f64::consts::PI);
        eprintln!(
            "brick face {:?}: quasi_static {} closed form {expected} (error {:.1e}), count {}",
            n,
            f[8],
            (f[8] - expected).abs(),
            f[4]
        );
        assert!((f[8] - expected).abs() < 1e-12);
        by_axis[axis] += f[4] as u64;
        rows += 1;
    }
    assert_eq!(rows, 6, "every stable face has a row");
    eprintln!(
        "brick: resting on x faces {}, y {}, z {}",
        by_axis[0], by_axis[1], by_axis[2]
    );
    // Face areas: z (2a × 2b) > y (2a × 2c) > x (2b × 2c).
    assert!(
        by_axis[2] > by_axis[1] && by_axis[1] > by_axis[0],
        "{by_axis:?}"
    );
}

fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tumble-batch-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn tumble(args: &[&str]) -> std::process::Output {
    let out = Command::new(env!("CARGO_BIN_EXE_tumble"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "tumble {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `trials.csv` without its `wall_time` column (the last).
fn without_wall_time(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .map(|l| l.rsplit_once(',').unwrap().0.to_string() + "\n")
        .collect()
}

/// Three shards merged equal one run, and 1 and 2 threads give the same trials: every column of
/// `trials.csv` but `wall_time`, and `poses.csv` byte for byte.
#[test]
fn shards_merged_and_thread_counts_give_the_same_trials() {
    let dir = tempdir("shards");
    let d = |s: &str| dir.join(s).display().to_string();
    let scene = "scenes/stable-poses.toml";
    let common = ["--trials", "30", "--seed", "5"];
    let run = |out: &str, extra: &[&str]| {
        let mut args = vec!["batch", scene, "--out", out];
        args.extend_from_slice(&common);
        args.extend_from_slice(extra);
        tumble(&args);
    };
    run(&d("one"), &["--threads", "1"]);
    run(&d("two"), &["--threads", "2"]);
    for i in 1..=3 {
        run(&d(&format!("shard{i}")), &["--shard", &format!("{i}/3")]);
    }
    tumble(&[
        "batch",
        "merge",
        &d("merged"),
        &d("shard1"),
        &d("shard2"),
        &d("shard3"),
    ]);
    let one = dir.join("one");
    let trials = without_wall_time(&one.join("trials.csv"));
    assert_eq!(trials.lines().count(), 31);
    let poses = std::fs::read_to_string(one.join("poses.csv")).unwrap();
    for other in ["two", "merged"] {
        let o = dir.join(other);
        assert_eq!(trials, without_wall_time(&o.join("trials.csv")), "{other}");
        assert_eq!(
            poses,
            std::fs::read_to_string(o.join("poses.csv")).unwrap(),
            "{other}"
        );
        assert!(o.join("poses.svg").exists());
    }
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("merged/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["trials"], 30);
    // A shard missing: the merge refuses.
    let out = Command::new(env!("CARGO_BIN_EXE_tumble"))
        .args(["batch", "merge", &d("partial"), &d("shard1"), &d("shard3")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing"));
}

/// A bad `[[batch.vary]]` entry is refused with its file, line and key: a body that does not
/// exist, an unknown component, a reversed range.
#[test]
fn a_bad_vary_entry_is_an_error_with_its_place() {
    let good =
        "[[bodies]]\nname = \"a\"\nshape = { type = \"sphere\", radius = 1.0 }\nmass = 1.0\n\
                [batch]\ntrials = 3\n[[batch.vary]]\nbody = \"a\"\nkey = \"position.z\"\n\
                uniform = [0.0, 1.0]\n";
    let spec = scene::parse(good, Path::new("v.toml"))
        .unwrap()
        .batch
        .unwrap();
    assert_eq!(spec.trials, 3);
    assert_eq!(spec.vary[0].columns(), ["a.position.z"]);
    let error = |from: &str, to: &str| {
        let text = good.replace(from, to);
        scene::parse(&text, Path::new("v.toml"))
            .unwrap_err()
            .message
    };
    let err = error("body = \"a\"", "body = \"b\"");
    assert!(
        err.starts_with("v.toml:8:") && err.contains("\"b\""),
        "{err}"
    );
    let err = error("position.z", "position.w");
    assert!(
        err.starts_with("v.toml:9:") && err.contains("position.w"),
        "{err}"
    );
    let err = error("[0.0, 1.0]", "[1.0, 0.0]");
    assert!(
        err.starts_with("v.toml:10:") && err.contains("low <= high"),
        "{err}"
    );
    let err = error(
        "key = \"position.z\"\nuniform = [0.0, 1.0]",
        "key = \"orientation\"\nuniform = [0.0, 1.0]",
    );
    assert!(err.contains("takes no range"), "{err}");
    let err = error("trials = 3", "trials = 0");
    assert!(
        err.starts_with("v.toml:6:") && err.contains("trials"),
        "{err}"
    );
}

/// A trial that fails (here: drawn into an overlap with the floor) is recorded and the batch
/// goes on.
#[test]
fn a_failing_trial_does_not_stop_the_batch() {
    let mut scene = drop_scene(
        r#"{ type = "box", half_extents = [0.05, 0.05, 0.05] }"#,
        20,
        "",
    );
    // Heights from 0 (deep in the floor) to 0.5 m: some trials start overlapping.
    if let Some(b) = scene.batch.as_mut() {
        b.vary[1].key = tumble::scene::VaryKey::Component {
            vector: tumble::scene::StateVector::Position,
            axis: 2,
            distribution: tumble::scene::Distribution::Uniform(0.0, 0.5),
        };
    }
    let run = batch::run(&scene, &options()).unwrap();
    let failed = run.results.iter().filter(|r| r.outcome.is_err()).count();
    let ok = run.results.len() - failed;
    eprintln!("{failed} failed, {ok} ran");
    assert!(failed > 0 && ok > 0);
    let dir = tempdir("failing");
    batch::write(&dir, &scene, &run, 1).unwrap();
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["failed"].as_array().unwrap().len(), failed);
    assert!(summary["failed"][0]["error"]
        .as_str()
        .unwrap()
        .contains("overlap"));
}

/// A block launched along a floor at 2 m/s, the material's friction drawn per trial, its final
/// state recorded: it slides v₀²/(2μg) (Coulomb, closed form), and a drawn negative friction
/// fails its trial only.
fn sliding_block(vary: &str, trials: u64) -> Scene {
    let text = format!(
        r#"
[world]
duration = 3.0
frame_period = 0.01
sleep_time = 0.2

[materials.default]
restitution = 0.0
friction = 0.5

[[bodies]]
name = "floor"
motion = "fixed"
shape = {{ type = "plane", normal = [0.0, 0.0, 1.0] }}

[[bodies]]
name = "block"
shape = {{ type = "box", half_extents = [0.05, 0.05, 0.05] }}
mass = 1.0
position = [0.0, 0.0, 0.0505]
velocity = [2.0, 0.0, 0.0]

[batch]
trials = {trials}
record = ["block"]

[[batch.vary]]
material = "default"
key = "friction"
{vary}
"#
    );
    scene::parse(&text, Path::new("slide.toml")).expect("a valid scene")
}

#[test]
fn a_friction_sweep_slides_each_block_its_closed_form_distance() {
    let scene = sliding_block("uniform = [0.2, 0.8]", 16);
    let run = batch::run(&scene, &options()).expect("runs");
    let dir = tempdir("friction-sweep");
    batch::write(&dir, &scene, &run, 1).expect("writes");
    let text = std::fs::read_to_string(dir.join("trials.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let (mu_col, x_col, vx_col) = (
        col("materials.default.friction"),
        col("block.x"),
        col("block.vx"),
    );
    assert_eq!(header.len(), col("wall_time") + 1 + 13);
    let mut worst: f64 = 0.0;
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        let mu: f64 = cells[mu_col].parse().unwrap();
        let x: f64 = cells[x_col].parse().unwrap();
        let vx: f64 = cells[vx_col].parse().unwrap();
        let expected = 2.0f64.powi(2) / (2.0 * mu * 9.81);
        let error = (x - expected).abs() / expected;
        println!("μ = {mu:.4}: slid {x:.5} m, closed form {expected:.5} m, error {error:.2e}");
        assert!(vx.abs() < 1e-3, "still sliding: {vx}");
        worst = worst.max(error);
    }
    println!("largest relative error {worst:.2e} (limit 1e-3)");
    assert!(worst < 1e-3, "{worst}");
}

#[test]
fn a_drawn_friction_below_zero_fails_that_trial_only() {
    let scene = sliding_block("normal = [0.1, 0.3]", 12);
    let run = batch::run(&scene, &options()).expect("runs");
    let failed: Vec<_> = run.results.iter().filter(|r| r.outcome.is_err()).collect();
    let ran = run.results.len() - failed.len();
    println!("{} failed, {ran} ran", failed.len());
    assert!(!failed.is_empty() && ran > 0);
    for r in failed {
        let e = r.outcome.as_ref().unwrap_err();
        assert!(
            e.contains("materials.default.friction") && e.contains("must be >= 0"),
            "{e}"
        );
        assert!(r.values[0] < 0.0);
    }
}
