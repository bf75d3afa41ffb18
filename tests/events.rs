//! `tumble run --events`: the impulse log checked against closed forms. A ball dropped on a floor
//! is one collision with Newton's restitution and the momentum it reverses; a box resting on a
//! floor is carried by resting impulses that add up to its weight times the time; a box sliding
//! to rest is slowed by friction impulses that add up to its momentum; the log is the same on
//! one thread and two; a run without `--events` leaves no stale log behind.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const G: f64 = 9.81;

fn tumble() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tumble"))
}

/// Writes `scene` to a fresh directory and runs it with `extra` arguments; returns the run dir.
fn run(name: &str, scene: &str, extra: &[&str]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tumble-events-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("scene.toml"), scene).unwrap();
    let out = dir.join("run");
    let output = tumble()
        .args(["run", "--backend", "cpu", "--out"])
        .arg(&out)
        .args(extra)
        .arg(dir.join("scene.toml"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    out
}

/// One row of events.csv.
#[derive(Debug)]
struct Row {
    t: f64,
    kind: String,
    a: String,
    b: String,
    point: [f64; 3],
    normal: [f64; 3],
    jn: f64,
    jt: f64,
    vn_before: f64,
    vn_after: f64,
}

fn read(dir: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(dir.join("events.csv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("t,kind,body_a,body_b,px,py,pz,nx,ny,nz,jn,jt,vn_before,vn_after")
    );
    lines
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            assert_eq!(c.len(), 14, "{l}");
            let f = |k: usize| c[k].parse::<f64>().unwrap();
            Row {
                t: f(0),
                kind: c[1].to_string(),
                a: c[2].to_string(),
                b: c[3].to_string(),
                point: [f(4), f(5), f(6)],
                normal: [f(7), f(8), f(9)],
                jn: f(10),
                jt: f(11),
                vn_before: f(12),
                vn_after: f(13),
            }
        })
        .collect()
}

/// A 2 kg ball (radius 0.1 m) dropped from 1 m onto a floor, microcollision mode, e = 0.5.
const DROP: &str = r#"
[world]
duration = 1.2
frame_period = 0.01
resting_contact = "microcollisions"

[materials.default]
restitution = 0.5
friction = 0.3

[[bodies]]
name = "floor"
motion = "fixed"
shape = { type = "box", half_extents = [1.0, 1.0, 0.1] }
position = [0.0, 0.0, -0.1]

[[bodies]]
name = "ball"
shape = { type = "sphere", radius = 0.1 }
mass = 2.0
position = [0.0, 0.0, 1.1]
"#;

#[test]
fn a_dropped_ball_is_one_collision_with_newtons_restitution() {
    let dir = run("drop", DROP, &["--events"]);
    let rows = read(&dir);
    let first = rows.first().expect("at least the impact");
    // The ball falls 1 m to touch (within ε_c = 1 mm) at t = sqrt(2/g).
    let (t_hit, v_hit) = ((2.0 / G).sqrt(), (2.0 * G).sqrt());
    let sign = if first.a == "ball" { 1.0 } else { -1.0 };
    println!(
        "first event: {} at t = {:.6} s (closed form {:.6}), vn {:.5} -> {:.5} m/s \
         (closed form {:.5} -> {:.5}), jn = {:.5} N s (m(1+e)v = {:.5}), jt = {:.2e}",
        first.kind,
        first.t,
        t_hit,
        first.vn_before,
        first.vn_after,
        -v_hit,
        0.5 * v_hit,
        first.jn,
        2.0 * 1.5 * v_hit,
        first.jt
    );
    assert_eq!(first.kind, "collision");
    assert_eq!(
        [first.a.as_str(), first.b.as_str()].map(|s| s == "ball" || s == "floor"),
        [true, true]
    );
    assert!((first.t - t_hit).abs() < 1e-3 / v_hit + 1e-9);
    // Normal from b towards a: up when a is the ball.
    assert!(
        (first.normal[2] * sign - 1.0).abs() < 1e-9,
        "{:?}",
        first.normal
    );
    assert!(
        first.point[2].abs() < 1.1e-3,
        "contact on the floor: {:?}",
        first.point
    );
    assert!((first.vn_before + v_hit).abs() < 0.01 * v_hit);
    assert!((first.vn_after + 0.5 * first.vn_before).abs() < 1e-9 * v_hit);
    assert!((first.jn - 2.0 * (first.vn_after - first.vn_before)).abs() < 1e-9);
    assert!(first.jt < 1e-9, "a head-on impact has no friction");
    // The next impact: after a flight of 2·e·v/g, at half the speed again.
    let second = rows
        .iter()
        .find(|r| r.t > first.t + 1e-6 && r.kind == "collision")
        .expect("a second bounce");
    let flight = 2.0 * first.vn_after / G;
    println!(
        "second: t = {:.6} s (closed form {:.6}), vn_before {:.5} (closed form {:.5})",
        second.t,
        first.t + flight,
        second.vn_before,
        -first.vn_after
    );
    assert!((second.t - first.t - flight).abs() < 2e-3 / first.vn_after);
    assert!((second.vn_before + first.vn_after).abs() < 0.01 * first.vn_after);
    // Every impulse pushes and leaves its point separating.
    for r in &rows {
        assert!(r.jn >= 0.0 && r.vn_after >= -1e-9, "{r:?}");
    }
}

/// A 1 kg box resting on a floor, constraint mode, then one given a push along x.
fn box_scene(vx: f64) -> String {
    format!(
        r#"
[world]
duration = 1.0
frame_period = 0.01
sleep_time = 0.0   # a sleeping body takes no impulses: keep it awake to weigh it

[materials.default]
restitution = 0.2
friction = 0.4

[[bodies]]
name = "floor"
motion = "fixed"
shape = {{ type = "box", half_extents = [3.0, 3.0, 0.1] }}
position = [0.0, 0.0, -0.1]

[[bodies]]
name = "box"
shape = {{ type = "box", half_extents = [0.1, 0.1, 0.1] }}
mass = 1.0
position = [-1.0, 0.0, 0.1005]
velocity = [{vx}, 0.0, 0.0]
"#
    )
}

#[test]
fn resting_impulses_carry_the_weight_and_friction_stops_the_slide() {
    // At rest: the floor's impulses over 1 s add up to m g · 1 s.
    let dir = run("rest", &box_scene(0.0), &["--events"]);
    let rows = read(&dir);
    let kinds: BTreeMap<&str, usize> = rows.iter().fold(BTreeMap::new(), |mut m, r| {
        *m.entry(r.kind.as_str()).or_default() += 1;
        m
    });
    let up = |r: &Row| {
        if r.a == "box" {
            r.normal[2]
        } else {
            -r.normal[2]
        }
    };
    let lift: f64 = rows.iter().map(|r| r.jn * up(r)).sum();
    let span = 1.0;
    println!(
        "resting box: {} events {kinds:?}, normal impulses {lift:.5} N s against m g T = {:.5} \
         ({:+.3} %)",
        rows.len(),
        G * span,
        100.0 * (lift / (G * span) - 1.0)
    );
    assert!(kinds.get("resting").copied().unwrap_or(0) > 50);
    assert!((lift / (G * span) - 1.0).abs() < 0.02);
    // Nothing to resist: what friction there is is the solver's tolerance on a statically
    // indeterminate four-corner load, far inside the cone.
    let worst = rows.iter().map(|r| r.jt / r.jn).fold(0.0, f64::max);
    println!("resting box: largest jt/jn {worst:.2e} (μ = 0.4)");
    assert!(worst < 1e-3);

    // Pushed at 1 m/s: friction μ m g stops it after v/(μ g) = 0.255 s; the friction
    // impulses add up to its momentum, m v = 1 N s, each within μ of its normal impulse.
    let dir = run("slide", &box_scene(1.0), &["--events"]);
    let rows = read(&dir);
    let friction: f64 = rows.iter().map(|r| r.jt).sum();
    let stop = 1.0 / (0.4 * G);
    let sliding: f64 = rows
        .iter()
        .filter(|r| r.t < stop - 0.02)
        .map(|r| r.jt)
        .sum();
    println!(
        "sliding box: friction impulses {friction:.5} N s against m v = 1 ({:+.3} %), \
         {sliding:.5} N s before t = {:.3} s against μ m g t = {:.5}",
        100.0 * (friction - 1.0),
        stop - 0.02,
        0.4 * G * (stop - 0.02)
    );
    assert!((friction - 1.0).abs() < 0.03);
    assert!((sliding / (0.4 * G * (stop - 0.02)) - 1.0).abs() < 0.05);
    for r in &rows {
        assert!(
            r.jt <= 0.4 * r.jn * (1.0 + 1e-9) + 1e-12,
            "outside the cone: {r:?}"
        );
    }
}

#[test]
fn the_log_is_the_same_on_one_thread_and_two() {
    // funnel-250 splits its event loops into islands on two threads by 1.5 s: the island
    // worlds' logs are merged back.
    let scene = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/funnel-250.toml"),
    )
    .unwrap();
    let one = run(
        "one",
        &scene,
        &["--events", "--threads", "1", "--duration", "1.5"],
    );
    let two = run(
        "two",
        &scene,
        &["--events", "--threads", "2", "--duration", "1.5"],
    );
    let (a, b) = (
        std::fs::read(one.join("events.csv")).unwrap(),
        std::fs::read(two.join("events.csv")).unwrap(),
    );
    let summary = std::fs::read_to_string(two.join("summary.json")).unwrap();
    let summary: serde_json::Value = serde_json::from_str(&summary).unwrap();
    let loops = summary["counts"]["parallel_loops"].as_u64().unwrap();
    let rows = read(&one);
    println!(
        "funnel-250, 1.5 s: {} events, {loops} steps on island threads, logs identical: {}",
        rows.len(),
        a == b
    );
    assert!(rows.len() > 1000 && loops > 0);
    assert!(rows.windows(2).all(|w| w[0].t <= w[1].t), "in time order");
    assert!(a == b);
}

#[test]
fn a_run_without_events_leaves_no_stale_log() {
    let dir = run("stale", DROP, &["--events", "--duration", "0.1"]);
    assert!(dir.join("events.csv").exists());
    let again = tumble()
        .args(["run", "--backend", "cpu", "--duration", "0.1", "--out"])
        .arg(&dir)
        .arg(dir.parent().unwrap().join("scene.toml"))
        .status()
        .unwrap();
    assert!(again.success());
    assert!(!dir.join("events.csv").exists());
}
