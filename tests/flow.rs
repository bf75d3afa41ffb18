//! Bulk flow: `[[sources]]` pour bodies into a running world. Checked here: the bodies due by
//! each frame are there (rate and count), named `<source>_<k>`, placed inside their region
//! where they overlap nothing, counted `inserted` or `unplaced`, a weighted mix in its
//! proportions, the same bodies on any number of threads, and every bad source refused at the
//! key that is wrong.

#[path = "cli_support/mod.rs"]
mod cli_support;

use cli_support::{temp_dir, text, tumble};
use std::ops::ControlFlow;
use std::path::Path;
use tumble::scene::parse;
use tumble::simulation::{FrameSink, Simulation, SinkError};
use tumble::world::World;

const FLOOR: &str = r#"[world]
duration = 1.5
frame_period = 0.05

[[bodies]]
name = "floor"
motion = "fixed"
shape = { type = "box", half_extents = [2.0, 2.0, 0.1] }
position = [0.0, 0.0, -0.1]
"#;

/// A body as a frame shows it: its name, centre and inverse mass.
type Seen = (String, glam::DVec3, f64);

/// What a frame shows of the poured bodies: the time, every body, and the world's counts of
/// inserted and unplaced bodies.
#[derive(Default)]
struct Watch {
    frames: Vec<(f64, Vec<Seen>, u64, u64)>,
}

impl FrameSink for Watch {
    fn frame(&mut self, world: &mut World) -> Result<ControlFlow<()>, SinkError> {
        let bodies = (0..world.body_count())
            .map(|i| {
                let b = world.body(i);
                (b.name.clone(), world.body_state(i).position, b.inv_mass)
            })
            .collect();
        let c = world.counts();
        self.frames
            .push((world.time(), bodies, c.inserted, c.unplaced));
        Ok(ControlFlow::Continue(()))
    }
}

fn run(text: &str) -> (Simulation, Watch) {
    let scene = parse(text, Path::new("flow.toml")).unwrap();
    let mut sim = Simulation::new(&scene).unwrap();
    let mut watch = Watch::default();
    sim.run(None, &mut [&mut watch]).unwrap();
    (sim, watch)
}

/// A source at 40 bodies a second from 0.1 s to 0.6 s: after each frame the world holds the
/// floor and every body due by that frame's end (due at 0.1 + k/40), named feed_0, feed_1, …
/// in order, none overlapping another (the run's deepest overlap stays within the contact
/// band's), and 20 in all.
#[test]
fn a_source_pours_the_bodies_due_by_each_frame() {
    let text = format!(
        "{FLOOR}
[[sources]]
name = \"feed\"
region = {{ center = [0.0, 0.0, 1.0], half_extents = [0.4, 0.4, 0.2] }}
rate = 40
start = 0.1
stop = 0.6
seed = 11
body = {{ shape = {{ type = \"box\", half_extents = [0.04, 0.05, 0.06] }}, density = 800 }}
"
    );
    let (sim, watch) = run(&text);
    for (t, bodies, inserted, unplaced) in &watch.frames {
        // Each body enters at the end of the first contact step at or after its time; the
        // frame's last step ends with the frame.
        let due = (0..20)
            .filter(|k| 0.1 + *k as f64 / 40.0 <= t + 1e-9)
            .count();
        assert_eq!(bodies.len(), 1 + due, "t = {t}");
        assert_eq!((*inserted as usize, *unplaced), (due, 0), "t = {t}");
        for (k, (name, _, _)) in bodies[1..].iter().enumerate() {
            assert_eq!(name, &format!("feed_{k}"));
        }
    }
    let last = &watch.frames.last().unwrap().1;
    assert_eq!(last.len(), 21);
    let depth = sim.world().max_penetration();
    println!("20 bodies poured, deepest overlap {depth:.3e} m");
    assert!(depth <= 2e-6, "deepest overlap {depth} m");
    // They fell onto the floor and rest on it.
    for (name, p, _) in &last[1..] {
        assert!(p.z > 0.0 && p.z < 0.5, "{name} at {p}");
    }
}

/// Each poured body enters inside its region: the first frame a body appears in shows it
/// within the region grown by what it can fall in one frame.
#[test]
fn poured_bodies_enter_inside_their_region() {
    let text = format!(
        "{FLOOR}
[[sources]]
name = \"s\"
region = {{ center = [0.5, -0.5, 1.0], half_extents = [0.3, 0.2, 0.1], orientation = [0.9238795325112867, 0.0, 0.0, 0.3826834323650898] }}
count = 30
stop = 1.0
body = {{ shape = {{ type = \"sphere\", radius = 0.03 }}, mass = 0.1 }}
"
    );
    let (_, watch) = run(&text);
    let region = tumble::flow::Region {
        center: glam::DVec3::new(0.5, -0.5, 1.0),
        half_extents: glam::DVec3::new(0.3, 0.2, 0.1),
        orientation: glam::DQuat::from_xyzw(0.0, 0.0, 0.3826834323650898, 0.9238795325112867),
    };
    let mut seen = 1;
    for (_, bodies, _, _) in &watch.frames {
        for (name, p, _) in &bodies[seen..] {
            // Falling one frame (0.05 s) from rest moves a body 12.3 mm down.
            let back = *p + glam::DVec3::new(0.0, 0.0, 0.5 * 9.81 * 0.05 * 0.05);
            let inside =
                (0..=10).any(|i| region.contains(back - glam::DVec3::Z * 0.00123 * i as f64));
            assert!(inside, "{name} entered at {p}, outside its region");
        }
        seen = bodies.len();
    }
    assert_eq!(seen, 31);
}

/// A region with room for few bodies: the bodies that find no free place within the attempts
/// are counted unplaced, those placed overlap nothing, and placed + unplaced = due.
#[test]
fn a_full_region_counts_the_bodies_it_cannot_place() {
    let text = format!(
        "{FLOOR}
[[sources]]
name = \"crowd\"
region = {{ center = [0.0, 0.0, 0.3], half_extents = [0.12, 0.12, 0.02] }}
count = 20
stop = 0.01
body = {{ shape = {{ type = \"sphere\", radius = 0.05 }}, mass = 1, velocity = [0.0, 0.0, 0.0] }}
"
    );
    let scene = parse(&text, Path::new("flow.toml")).unwrap();
    let mut sim = Simulation::new(&scene).unwrap();
    // The first body enters at 0, the others (due before 0.01 s) at the second frame's start.
    sim.step_frame().unwrap();
    sim.step_frame().unwrap();
    let c = sim.world().counts().clone();
    println!("placed {}, unplaced {}", c.inserted, c.unplaced);
    assert_eq!(c.inserted + c.unplaced, 20);
    assert!(c.unplaced > 0 && c.inserted >= 4, "{c:?}");
    // The placed ones are pairwise apart (centres at least two radii apart).
    let n = sim.world().body_count();
    for i in 1..n {
        for j in i + 1..n {
            let (a, b) = (sim.world().body(i).position, sim.world().body(j).position);
            assert!(
                a.distance(b) >= 0.1 - 1e-3,
                "{i} and {j} {} apart",
                a.distance(b)
            );
        }
    }
}

/// A weighted mix pours each kind in proportion to its weight: 3 : 1 over 400 bodies, within
/// four standard deviations of the binomial draw.
#[test]
fn a_weighted_mix_pours_each_kind_by_its_weight() {
    let text = format!(
        "{FLOOR}
[[sources]]
name = \"mix\"
region = {{ center = [0.0, 0.0, 3.0], half_extents = [1.5, 1.5, 1.5] }}
count = 400
stop = 0.02
seed = 5
bodies = [
  {{ weight = 3, shape = {{ type = \"sphere\", radius = 0.02 }}, mass = 1 }},
  {{ weight = 1, shape = {{ type = \"box\", half_extents = [0.02, 0.02, 0.02] }}, mass = 2 }},
]
"
    );
    let scene = parse(&text, Path::new("flow.toml")).unwrap();
    let mut sim = Simulation::new(&scene).unwrap();
    sim.step_frame().unwrap();
    sim.step_frame().unwrap();
    let world = sim.world();
    let heavy = (1..world.body_count())
        .filter(|&i| world.body(i).inv_mass == 0.5)
        .count();
    let all = world.body_count() - 1;
    let sigma = (all as f64 * 0.25 * 0.75).sqrt();
    println!(
        "{heavy} of {all} are the kind of weight 1 (expected {}, σ {sigma:.1})",
        all / 4
    );
    assert_eq!(all, 400);
    assert!((heavy as f64 - 100.0).abs() < 4.0 * sigma, "{heavy}");
}

/// The same scene on one and on two threads pours the same bodies to the same frames.
#[test]
fn poured_bodies_are_the_same_on_any_thread_count() {
    let dir = temp_dir("flow_threads");
    let scene = dir.join("pour.toml");
    std::fs::write(
        &scene,
        format!(
            "{FLOOR}
[[sources]]
name = \"feed\"
region = {{ center = [0.0, 0.0, 0.8], half_extents = [0.3, 0.3, 0.2] }}
rate = 60
stop = 0.8
seed = 2
body = {{ shape = {{ type = \"box\", half_extents = [0.05, 0.05, 0.05] }}, density = 1000, velocity = [0.0, 0.0, -1.0] }}
"
        ),
    )
    .unwrap();
    let mut frames = Vec::new();
    for threads in ["1", "2"] {
        let out = dir.join(format!("t{threads}"));
        let o = tumble(&[
            "run",
            scene.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--threads",
            threads,
        ]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert!(text(&o.stdout).contains("48 bodies poured in by its sources (0 unplaced)"));
        frames.push(std::fs::read(out.join("frames.csv")).unwrap());
        let summary: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
        assert_eq!(summary["counts"]["inserted"], 48);
        assert_eq!(summary["counts"]["unplaced"], 0);
    }
    assert!(
        frames[0] == frames[1],
        "frames.csv differs between 1 and 2 threads"
    );
}

/// The error for a scene text that must be refused.
fn error(text: &str) -> String {
    match parse(text, Path::new("scenes/bad.toml")) {
        Ok(_) => panic!("scene was accepted:\n{text}"),
        Err(e) => e.message,
    }
}

/// Every bad source is refused at the key that is wrong, with its file, line and column.
#[test]
fn bad_sources_are_refused_at_their_keys() {
    let src = |lines: &str| format!("{FLOOR}\n[[sources]]\nname = \"feed\"\n{lines}\n");
    let body = "body = { shape = { type = \"sphere\", radius = 0.1 }, mass = 1 }";
    let region = "region = { center = [0, 0, 1], half_extents = [1, 1, 1] }";
    // The [[sources]] table starts on line 11; its lines after the name from 13.
    let cases: Vec<(String, &str, &[&str])> = vec![
        (
            src(&format!("{region}\n{body}")),
            "scenes/bad.toml:11:1:",
            &["sources[0] \"feed\"", "needs rate or count"],
        ),
        (
            src(&format!("{region}\nrate = 5\ncount = 3\nstop = 1\n{body}")),
            "scenes/bad.toml:15:9:",
            &["count", "either rate or count"],
        ),
        (
            src(&format!("{region}\nrate = -1\n{body}")),
            "scenes/bad.toml:14:8:",
            &["rate must be > 0"],
        ),
        (
            src(&format!(
                "region = {{ center = [0, 0, 1], half_extents = [1, -1, 1] }}\nrate = 5\n{body}"
            )),
            "scenes/bad.toml:13:",
            &["half_extents", "inverted"],
        ),
        (
            src(&format!(
                "region = {{ center = [0, 0, 1], half_extents = [1, 0, 1] }}\nrate = 5\n{body}"
            )),
            "scenes/bad.toml:13:",
            &["half_extents", "empty"],
        ),
        (
            src(&format!(
                "region = {{ center = [0, 0, 1e9], half_extents = [1, 1, 1] }}\nrate = 5\n{body}"
            )),
            "scenes/bad.toml:13:",
            &["center", "within 1e6 m"],
        ),
        (
            src(&format!("{region}\nrate = 5")),
            "scenes/bad.toml:11:1:",
            &["needs body"],
        ),
        (
            src(&format!(
                "{region}\nrate = 5\nbody = {{ shape = {{ type = \"sphere\", radius = 0.1 }}, mass = 1, motion = \"fixed\" }}"
            )),
            "scenes/bad.toml:15:",
            &["unknown key \"body.motion\""],
        ),
        (
            src(&format!("{region}\nrate = 5\nstart = 2\nstop = 1\n{body}")),
            "scenes/bad.toml:16:8:",
            &["stop must be >= start"],
        ),
        (
            src(&format!("{region}\nrate = 5\nbodies = [{{ shape = {{ type = \"sphere\", radius = 0.1 }}, mass = 1 }}]")),
            "scenes/bad.toml:15:",
            &["bodies[0]", "missing key bodies[0].weight"],
        ),
        (
            format!("{}\n[[sources]]\nname = \"feed\"\n{region}\nrate = 5\n{body}\n", src(&format!("{region}\nrate = 5\n{body}"))),
            "scenes/bad.toml:18:8:",
            &["duplicate source name \"feed\"", "first defined at scenes/bad.toml:11"],
        ),
        (
            format!("{FLOOR}\n[[bodies]]\nname = \"feed_3\"\nshape = {{ type = \"sphere\", radius = 0.1 }}\nmass = 1\nposition = [0, 0, 3]\n\n[[sources]]\nname = \"feed\"\n{region}\nrate = 5\n{body}\n"),
            "scenes/bad.toml:18:8:",
            &["feed_0, feed_1", "body \"feed_3\""],
        ),
    ];
    for (text, at, parts) in cases {
        let m = error(&text);
        println!("{m}");
        assert!(m.starts_with(at), "expected {at} in {m:?}\n{text}");
        for part in parts {
            assert!(m.contains(part), "expected {part:?} in {m:?}");
        }
    }
}

/// A run with sources cannot write checkpoints yet: refused before it starts, naming the source.
#[test]
fn checkpoints_of_a_run_with_sources_are_refused() {
    let dir = temp_dir("flow_checkpoint");
    let scene = dir.join("pour.toml");
    std::fs::write(
        &scene,
        format!(
            "{FLOOR}
[[sources]]
name = \"feed\"
region = {{ center = [0.0, 0.0, 0.8], half_extents = [0.3, 0.3, 0.2] }}
rate = 10
body = {{ shape = {{ type = \"sphere\", radius = 0.05 }}, mass = 1 }}
"
        ),
    )
    .unwrap();
    let o = tumble(&[
        "run",
        scene.to_str().unwrap(),
        "--out",
        dir.join("r").to_str().unwrap(),
        "--checkpoint-every",
        "0.5",
    ]);
    let err = text(&o.stderr);
    println!("{err}");
    assert!(!o.status.success());
    assert!(
        err.contains("pour.toml:11") && err.contains("cannot be checkpointed yet"),
        "{err}"
    );
}

/// A source above a ramp and a sink below it: the bodies taken out are listed in removed.csv
/// (each once, named, after it entered), frames.csv lists a body only while it is in the world,
/// the world holds the poured bodies less the removed ones, and their number levels off.
#[test]
fn a_sink_takes_out_the_bodies_that_reach_it() {
    let dir = temp_dir("flow_sink");
    let scene = dir.join("steady.toml");
    std::fs::write(
        &scene,
        "[world]\nduration = 4.0\n\n[[bodies]]\nname = \"ramp\"\nmotion = \"fixed\"\n\
         shape = { type = \"box\", half_extents = [1.0, 0.5, 0.05] }\n\
         orientation = [0.9659258262890683, 0.0, 0.25881904510252074, 0.0]\n\n\
         [[sources]]\nname = \"feed\"\n\
         region = { center = [-0.5, 0.0, 1.0], half_extents = [0.2, 0.3, 0.1] }\nrate = 30\n\
         body = { shape = { type = \"box\", half_extents = [0.04, 0.04, 0.04] }, density = 1000 }\n\n\
         [[sinks]]\nname = \"drain\"\n\
         region = { center = [0.0, 0.0, -2.0], half_extents = [5.0, 5.0, 1.0] }\n",
    )
    .unwrap();
    let out = dir.join("run");
    let o = tumble(&[
        "run",
        scene.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--events",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // The impulses name their bodies, those taken out within the frame too.
    let events = std::fs::read_to_string(out.join("events.csv")).unwrap();
    let named = |b: &str| {
        b == "ramp"
            || b.strip_prefix("feed_")
                .is_some_and(|k| k.parse::<u32>().is_ok())
    };
    for line in events.lines().skip(1) {
        let c: Vec<&str> = line.split(',').collect();
        assert!(named(c[2]) && named(c[3]), "{line}");
    }
    let removed = std::fs::read_to_string(out.join("removed.csv")).unwrap();
    let mut lines = removed.lines();
    assert_eq!(lines.next(), Some("t,sink,body"));
    let removed: Vec<(f64, String)> = lines
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            assert_eq!(c[1], "drain");
            (c[0].parse().unwrap(), c[2].to_string())
        })
        .collect();
    let frames = std::fs::read_to_string(out.join("frames.csv")).unwrap();
    let mut alive: std::collections::BTreeMap<String, (f64, f64)> = Default::default();
    let mut per_frame: std::collections::BTreeMap<u64, usize> = Default::default();
    for l in frames.lines().skip(1) {
        let c: Vec<&str> = l.split(',').collect();
        let t: f64 = c[0].parse().unwrap();
        let e = alive.entry(c[1].to_string()).or_insert((t, t));
        e.1 = t;
        *per_frame.entry(t.to_bits()).or_default() += 1;
    }
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    let (inserted, gone) = (
        summary["counts"]["inserted"].as_u64().unwrap(),
        summary["counts"]["removed"].as_u64().unwrap(),
    );
    println!("{inserted} poured, {gone} taken out");
    assert_eq!(gone as usize, removed.len());
    assert!(inserted == 120 && gone > 40, "{inserted} {gone}");
    // Each removed body was taken out at a contact step's end within the frame after the last
    // one that lists it (frames of 0.02 s).
    for (t, name) in &removed {
        let (first, last) = alive[name];
        assert!(
            first < *t && last < *t && *t <= last + 0.02 + 1e-9,
            "{name}: {first}..{last}, out at {t}"
        );
    }
    let names: std::collections::BTreeSet<&String> = removed.iter().map(|(_, n)| n).collect();
    assert_eq!(names.len(), removed.len(), "a body removed twice");
    let bodies = summary["bodies"].as_array().unwrap().len() as u64;
    assert_eq!(bodies, 1 + inserted - gone);
    // Steady: the last second holds about as many bodies as the second before.
    let counts: Vec<usize> = per_frame.values().copied().collect();
    let second = counts.len() / 4;
    let mean = |s: &[usize]| s.iter().sum::<usize>() as f64 / s.len() as f64;
    let (third, fourth) = (
        mean(&counts[2 * second..3 * second]),
        mean(&counts[3 * second..]),
    );
    println!("bodies in the third second {third:.1}, in the fourth {fourth:.1}");
    assert!((fourth - third).abs() < 0.15 * third, "{third} {fourth}");
}

/// Taking out a body numbered before a resting stack renumbers every body of the stack and
/// every store of its contacts (held pairs, warm-start impulses, kept bounds): the stack then
/// goes on bit for bit as in a run where that body stays (a ball falling far from it, taken out
/// by a sink 2 m below the floor in one run and left to fall in the other). A store left
/// unrenumbered hands the stack another pair's impulses: without the warm-start cache's
/// renumbering the poses differed by 1.0e-9 m.
#[test]
fn taking_a_body_out_renumbers_the_others() {
    let stack = "[world]\nduration = 1.5\nframe_period = 0.05\nsleep_time = 0\n\n[[bodies]]\nname = \"floor\"\n\
                 motion = \"fixed\"\nshape = { type = \"box\", half_extents = [1.0, 1.0, 0.1] }\n\
                 position = [0.0, 0.0, -0.1]\n\n[[bodies]]\nname = \"ball\"\n\
                 shape = { type = \"sphere\", radius = 0.05 }\nmass = 1\nposition = [5.0, 0.0, 0.5]\n\n\
                 [[lattices]]\nname = \"cube\"\n\
                 shape = { type = \"box\", half_extents = [0.1, 0.1, 0.1] }\nmass = 1\n\
                 count = [1, 1, 4]\nspacing = [0.2, 0.2, 0.203]\nlowest = 0.103\nmax_rotation = 0.01\nseed = 4\n";
    let sink = "\n[[sinks]]\nname = \"below\"\n\
                region = { center = [5.0, 0.0, -2.0], half_extents = [1.0, 1.0, 1.0] }\n";
    let mut ends = Vec::new();
    for text in [stack.to_string(), format!("{stack}{sink}")] {
        let scene = parse(&text, Path::new("stack.toml")).unwrap();
        let mut sim = Simulation::new(&scene).unwrap();
        let mut watch = Watch::default();
        sim.run(None, &mut [&mut watch]).unwrap();
        let world = sim.world();
        let cubes: Vec<[u64; 7]> = (0..world.body_count())
            .filter(|&i| world.body_name(i).starts_with("cube"))
            .map(|i| {
                let b = world.body(i);
                let (p, q) = (b.position, b.orientation);
                [p.x, p.y, p.z, q.w, q.x, q.y, q.z].map(f64::to_bits)
            })
            .collect();
        println!(
            "{} bodies, {} removed, top cube at z = {}",
            world.body_count(),
            world.counts().removed,
            f64::from_bits(cubes[3][2])
        );
        assert!(world.max_penetration() <= 2e-6);
        ends.push((cubes, world.body_count(), world.counts().removed));
    }
    assert_eq!((ends[0].1, ends[0].2), (6, 0));
    assert_eq!((ends[1].1, ends[1].2), (5, 1));
    let worst = ends[0]
        .0
        .iter()
        .zip(&ends[1].0)
        .flat_map(|(x, y)| {
            x.iter()
                .zip(y)
                .map(|(a, b)| (f64::from_bits(*a) - f64::from_bits(*b)).abs())
        })
        .fold(0.0, f64::max);
    println!("largest difference of the stack's poses: {worst:.3e}");
    assert!(
        worst == 0.0,
        "the stack moved differently once the ball was taken out: {worst}"
    );
}

/// Bad sinks are refused at their keys.
#[test]
fn bad_sinks_are_refused_at_their_keys() {
    let sink =
        "[[sinks]]\nname = \"out\"\nregion = { center = [0, 0, -1], half_extents = [1, 1, 1] }\n";
    let m = error(&format!("{FLOOR}\n{sink}\n{sink}"));
    println!("{m}");
    assert!(m.starts_with("scenes/bad.toml:16:8:"), "{m}");
    assert!(m.contains("duplicate sink name \"out\""), "{m}");
    let m = error(&format!("{FLOOR}\n[[sinks]]\nname = \"out\"\n"));
    println!("{m}");
    assert!(m.contains("sinks[0] \"out\": missing key region"), "{m}");
    let m = error(&format!(
        "{FLOOR}\n[[sinks]]\nname = \"out\"\nregion = {{ center = [0, 0, -1], half_extents = [1, 1, -1] }}\n"
    ));
    println!("{m}");
    assert!(
        m.starts_with("scenes/bad.toml:13:") && m.contains("inverted"),
        "{m}"
    );
    let m = error(&format!("{FLOOR}\n[[sinks]]\nname = \"out\"\nregion = {{ center = [0, 0, -1], half_extents = [1, 1, 1] }}\nrate = 3\n"));
    println!("{m}");
    assert!(m.contains("unknown key \"rate\""), "{m}");
}

/// Probes: a flow probe across the stream below a ramp counts every body that crossed it
/// (those taken out by the sink below, and those between it and the sink at the end), with
/// their masses, and a probe facing the other way counts them negative; a region probe around
/// a block of cubes falling freely reads their number, solid fraction, mean velocity −g t and
/// kinetic energy ½ N m (g t)² at every frame.
#[test]
fn probes_count_the_flow_and_read_a_region() {
    let dir = temp_dir("flow_probes");
    let scene = dir.join("probes.toml");
    std::fs::write(
        &scene,
        "[world]\nduration = 3.0\nframe_period = 0.05\n\n[[bodies]]\nname = \"ramp\"\nmotion = \"fixed\"\n\
         shape = { type = \"box\", half_extents = [1.0, 0.5, 0.05] }\n\
         orientation = [0.9659258262890683, 0.0, 0.25881904510252074, 0.0]\n\n\
         [[lattices]]\nname = \"block\"\nshape = { type = \"box\", half_extents = [0.1, 0.1, 0.1] }\n\
         density = 500\ncount = [2, 2, 2]\nspacing = [0.3, 0.3, 0.3]\ncenter = [20.0, 0.0, 0.0]\n\n\
         [[sources]]\nname = \"feed\"\n\
         region = { center = [-0.5, 0.0, 1.0], half_extents = [0.2, 0.3, 0.1] }\nrate = 30\n\
         body = { shape = { type = \"box\", half_extents = [0.04, 0.04, 0.04] }, density = 1000 }\n\n\
         [[sinks]]\nname = \"drain\"\n\
         region = { center = [0.0, 0.0, -3.0], half_extents = [5.0, 5.0, 1.0] }\n\n\
         [[probes]]\nname = \"down\"\nkind = \"flow\"\ncenter = [0.0, 0.0, -0.5]\n\
         half_extents = [4.0, 4.0]\nnormal = [0.0, 0.0, -1.0]\n\n\
         [[probes]]\nname = \"up\"\nkind = \"flow\"\ncenter = [0.0, 0.0, -0.5]\n\
         half_extents = [4.0, 4.0]\nnormal = [0.0, 0.0, 2.0]\n\n\
         [[probes]]\nname = \"block\"\nkind = \"region\"\n\
         region = { center = [20.0, 0.0, -100.0], half_extents = [1.0, 1.0, 200.0] }\n",
    )
    .unwrap();
    let out = dir.join("run");
    let o = tumble(&[
        "run",
        scene.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let probes = std::fs::read_to_string(out.join("probes.csv")).unwrap();
    let mut lines = probes.lines();
    assert_eq!(lines.next(), Some("t,probe,quantity,value"));
    let rows: Vec<(f64, String, String, f64)> = lines
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            (
                c[0].parse().unwrap(),
                c[1].into(),
                c[2].into(),
                c[3].parse().unwrap(),
            )
        })
        .collect();
    let total = |probe: &str, q: &str| -> f64 {
        rows.iter()
            .filter(|r| r.1 == probe && r.2 == q)
            .map(|r| r.3)
            .sum()
    };
    let removed = std::fs::read_to_string(out.join("removed.csv"))
        .unwrap()
        .lines()
        .count()
        - 1;
    let frames = std::fs::read_to_string(out.join("frames.csv")).unwrap();
    let last = frames
        .lines()
        .last()
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .to_string();
    let between = frames
        .lines()
        .skip(1)
        .filter(|l| {
            let c: Vec<&str> = l.split(',').collect();
            let z: f64 = c[4].parse().unwrap();
            c[0] == last && c[1].starts_with("feed_") && z < -0.5
        })
        .count();
    let (down, mass) = (total("down", "bodies"), total("down", "mass"));
    println!("crossed {down} ({mass} kg), removed {removed}, below the plane at the end {between}");
    assert!(removed > 20);
    assert_eq!(down, (removed + between) as f64);
    assert!((mass - down * 0.512).abs() < 1e-9 * down, "{mass}");
    assert_eq!(total("up", "bodies"), -down);
    // The block falls freely from rest: at every frame t, 8 cubes of 4 kg at −g t.
    let g = 9.81;
    let mut frames_seen = 0;
    for (t, _, q, v) in rows.iter().filter(|r| r.1 == "block") {
        let expected = match q.as_str() {
            "bodies" => 8.0,
            "solid_fraction" => 8.0 * 0.008 / (2.0 * 2.0 * 400.0),
            "vx" | "vy" => 0.0,
            "vz" => -g * t,
            "kinetic_energy" => 0.5 * 32.0 * (g * t) * (g * t),
            other => panic!("unexpected quantity {other}"),
        };
        assert!(
            (v - expected).abs() <= 1e-9 * (1.0 + expected.abs()),
            "t = {t}: {q} = {v}, expected {expected}"
        );
        frames_seen += 1;
    }
    assert_eq!(frames_seen, 60 * 6);
}

/// Bad probes are refused at their keys; a load probe is refused as not available yet.
#[test]
fn bad_probes_are_refused_at_their_keys() {
    let cases: Vec<(&str, &[&str])> = vec![
        (
            "[[probes]]\nname = \"p\"\nkind = \"flow\"\ncenter = [0, 0, 0]\nhalf_extents = [1, 0]\nnormal = [0, 0, 1]\n",
            &["scenes/bad.toml:15:16:", "half_extents", "empty"],
        ),
        (
            "[[probes]]\nname = \"p\"\nkind = \"flow\"\ncenter = [0, 0, 0]\nhalf_extents = [1, 1]\nnormal = [0, 0, 0]\n",
            &["scenes/bad.toml:16:10:", "normal must not be zero"],
        ),
        (
            "[[probes]]\nname = \"p\"\nkind = \"wind\"\n",
            &["scenes/bad.toml:13:8:", "kind must be \"flow\", \"region\" or \"load\""],
        ),
        (
            "[[probes]]\nname = \"p\"\nkind = \"load\"\nbody = \"floor\"\n",
            &["scenes/bad.toml:13:8:", "\"load\"", "not available yet"],
        ),
        (
            "[[probes]]\nname = \"p\"\nkind = \"region\"\nregion = { center = [0, 0, 0], half_extents = [1, 1, 1] }\n\n[[probes]]\nname = \"p\"\nkind = \"region\"\nregion = { center = [0, 0, 0], half_extents = [1, 1, 1] }\n",
            &["scenes/bad.toml:17:8:", "duplicate probe name \"p\""],
        ),
    ];
    for (probe, parts) in cases {
        let m = error(&format!("{FLOOR}\n{probe}"));
        println!("{m}");
        for part in parts {
            assert!(m.contains(part), "expected {part:?} in {m:?}");
        }
    }
}

/// The bundled steady flow (`scenes/flow/steady-funnel.toml`, 6 s of its 60): from 2 s on the
/// outlet passes what the source pours, 200 cubes a second within 10 % in every second, and from
/// 3 s the number of cubes in the world stays within 10 % of its mean.
#[test]
fn the_steady_funnel_runs_steady() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/flow/steady-funnel.toml");
    let scene = tumble::scene::load(&path).unwrap();
    let mut sim = Simulation::new(&scene).unwrap();
    let mut watch = Watch::default();
    let mut rows = Vec::new();
    struct Rows<'a>(&'a mut Vec<tumble::world::ProbeRow>);
    impl FrameSink for Rows<'_> {
        fn frame(&mut self, world: &mut World) -> Result<ControlFlow<()>, SinkError> {
            self.0.extend_from_slice(world.probe_rows());
            Ok(ControlFlow::Continue(()))
        }
    }
    sim.run(Some(6.0), &mut [&mut watch, &mut Rows(&mut rows)])
        .unwrap();
    let mut per_second = [0.0; 6];
    for r in rows
        .iter()
        .filter(|r| r.probe == "outlet" && r.quantity == "bodies")
    {
        per_second[((r.t - 1e-9).floor() as usize).min(5)] += r.value;
    }
    println!("cubes through the outlet per second: {per_second:?}");
    for (s, n) in per_second.iter().enumerate().skip(2) {
        assert!((n - 200.0).abs() <= 20.0, "second {s}: {n}");
    }
    let alive: Vec<usize> = watch
        .frames
        .iter()
        .filter(|f| f.0 >= 3.0)
        .map(|f| f.1.len())
        .collect();
    let mean = alive.iter().sum::<usize>() as f64 / alive.len() as f64;
    let (lo, hi) = (alive.iter().min().unwrap(), alive.iter().max().unwrap());
    println!("bodies from 3 s: {lo} to {hi}, mean {mean:.0}");
    assert!(*lo as f64 > 0.9 * mean && (*hi as f64) < 1.1 * mean);
    assert!(sim.world().max_penetration() <= 2e-6);
    assert_eq!(sim.world().counts().unplaced, 0);
}

/// A run directory with sources and sinks reads back with every body that came and went: each
/// poured body with its source's shape and the time it entered (inserted.csv), each removed one
/// with the time it left (removed.csv), standing where it entered in the frames before; the
/// glTF export hides them outside that time (a step scale channel), and the viewer's data
/// carries it.
#[test]
fn run_directories_show_bodies_coming_and_going() {
    let dir = temp_dir("flow_record");
    let scene = dir.join("pour.toml");
    std::fs::write(
        &scene,
        format!(
            "{FLOOR}
[[sources]]
name = \"feed\"
region = {{ center = [0.0, 0.0, 1.0], half_extents = [0.3, 0.3, 0.2] }}
rate = 20
stop = 0.5
bodies = [
  {{ weight = 1, shape = {{ type = \"sphere\", radius = 0.05 }}, mass = 1 }},
  {{ weight = 1, shape = {{ type = \"box\", half_extents = [0.05, 0.05, 0.05] }}, mass = 1 }},
]

[[sinks]]
name = \"hole\"
region = {{ center = [0.0, 0.0, 0.05], half_extents = [0.15, 0.15, 0.1] }}
"
        ),
    )
    .unwrap();
    let out = dir.join("run");
    let o = tumble(&[
        "run",
        scene.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let run = tumble::run_record::RunRecord::load(&out).unwrap();
    assert_eq!(run.bodies.len(), 11);
    let inserted = std::fs::read_to_string(out.join("inserted.csv")).unwrap();
    let removed = std::fs::read_to_string(out.join("removed.csv")).unwrap();
    println!("{removed}");
    assert!(removed.lines().count() > 1, "the sink took nothing");
    for line in inserted.lines().skip(1) {
        let c: Vec<&str> = line.split(',').collect();
        let i = run.index(c[2]).unwrap();
        let body = &run.bodies[i];
        assert_eq!(body.present.0, c[0].parse::<f64>().unwrap());
        let sphere = matches!(body.shape, tumble::shape::Shape::Sphere { .. });
        assert_eq!(sphere, c[3] == "0", "{line}");
        let gone = removed
            .lines()
            .find(|l| l.ends_with(&format!(",hole,{}", c[2])))
            .map(|l| l.split(',').next().unwrap().parse::<f64>().unwrap());
        assert_eq!(body.present.1, gone.unwrap_or(f64::INFINITY));
        // Before it entered, it stands where its first row puts it.
        let k = run
            .frames
            .iter()
            .position(|f| f.t >= body.present.0)
            .unwrap();
        for f in &run.frames[..k] {
            assert!(!body.present_at(f.t));
            assert_eq!(f.poses[i], run.frames[k].poses[i]);
        }
    }
    let glb = dir.join("run.glb");
    let o = tumble(&[
        "export",
        "--gltf",
        glb.to_str().unwrap(),
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let gltf = gltf::Gltf::from_slice(&std::fs::read(&glb).unwrap()).unwrap();
    let animation = gltf.animations().next().unwrap();
    let scales = animation
        .channels()
        .filter(|c| c.target().property() == gltf::animation::Property::Scale)
        .inspect(|c| {
            assert_eq!(
                c.sampler().interpolation(),
                gltf::animation::Interpolation::Step
            )
        })
        .count();
    assert_eq!(scales, 10);
    let html = dir.join("view.html");
    let o = tumble(&[
        "view",
        out.to_str().unwrap(),
        "--out",
        html.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(std::fs::read_to_string(&html)
        .unwrap()
        .contains("\"present\":["));
}

/// The same in a pile settling from a jumble: 216 cubes dropped in a block onto a floor (each
/// turned up to 0.5 rad) while a ball numbered before them falls far away into a sink. Every
/// frame of every cube is bit for bit that of the run without the sink, before and after the
/// ball goes (its removal renumbers all 216).
#[test]
fn a_far_body_taken_out_leaves_a_settling_pile_bit_for_bit() {
    let pile = "[world]\nduration = 2.0\nframe_period = 0.05\nsleep_time = 0\n\n\
                [[bodies]]\nname = \"ball\"\nshape = { type = \"sphere\", radius = 0.1 }\nmass = 1\n\
                position = [30.0, 0.0, 5.0]\n\n[[bodies]]\nname = \"floor\"\nmotion = \"fixed\"\n\
                shape = { type = \"box\", half_extents = [5.0, 5.0, 0.5] }\nposition = [0.0, 0.0, -0.5]\n\n\
                [[lattices]]\nname = \"cube\"\nshape = { type = \"box\", half_extents = [0.25, 0.25, 0.25] }\n\
                mass = 1\ncount = [6, 6, 6]\nspacing = [0.8, 0.8, 0.8]\nlowest = 0.6\nmax_rotation = 0.5\n\
                seed = 3\n";
    let sink = "\n[[sinks]]\nname = \"below\"\n\
                region = { center = [30.0, 0.0, -2.0], half_extents = [1.0, 1.0, 1.0] }\n";
    let mut runs = Vec::new();
    for text in [pile.to_string(), format!("{pile}{sink}")] {
        let scene = parse(&text, Path::new("pile.toml")).unwrap();
        let mut sim = Simulation::new(&scene).unwrap();
        let mut watch = Watch::default();
        sim.run(None, &mut [&mut watch]).unwrap();
        println!(
            "{} removed, {} collisions",
            sim.world().counts().removed,
            sim.world().counts().collisions
        );
        let cubes: Vec<Vec<(String, [u64; 3])>> = watch
            .frames
            .iter()
            .map(|(_, bodies, _, _)| {
                bodies
                    .iter()
                    .filter(|b| b.0.starts_with("cube"))
                    .map(|b| (b.0.clone(), b.1.to_array().map(f64::to_bits)))
                    .collect()
            })
            .collect();
        runs.push((cubes, sim.world().counts().removed));
    }
    assert_eq!((runs[0].1, runs[1].1), (0, 1));
    assert!(runs[0].0.iter().all(|f| f.len() == 216));
    let first = runs[0].0.iter().zip(&runs[1].0).position(|(a, b)| a != b);
    assert_eq!(first, None, "the pile differed from frame {first:?} on");
}

/// With `--format parquet` the flow's tables are Parquet files with the CSVs' rows (names as
/// text, numbers as float64), and the run reads back from them.
#[test]
fn the_flow_tables_in_parquet_hold_the_csv_rows() {
    let dir = temp_dir("flow_parquet");
    let scene = dir.join("pour.toml");
    std::fs::write(
        &scene,
        format!(
            "{FLOOR}
[[sources]]
name = \"feed\"
region = {{ center = [0.0, 0.0, 1.0], half_extents = [0.3, 0.3, 0.2] }}
rate = 20
stop = 0.5
body = {{ shape = {{ type = \"sphere\", radius = 0.05 }}, mass = 1 }}

[[sinks]]
name = \"hole\"
region = {{ center = [0.0, 0.0, 0.05], half_extents = [0.15, 0.15, 0.1] }}

[[probes]]
name = \"all\"
kind = \"region\"
region = {{ center = [0.0, 0.0, 1.0], half_extents = [2.0, 2.0, 2.0] }}
"
        ),
    )
    .unwrap();
    let (csv, parquet) = (dir.join("csv"), dir.join("parquet"));
    for (out, format) in [(&csv, "csv"), (&parquet, "parquet")] {
        let o = tumble(&[
            "run",
            scene.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--format",
            format,
        ]);
        assert!(o.status.success(), "{}", text(&o.stderr));
    }
    for table in ["inserted", "removed", "probes"] {
        let read =
            tumble::parquet_tables::read_as_csv(&parquet.join(format!("{table}.parquet"))).unwrap();
        let written = std::fs::read_to_string(csv.join(format!("{table}.csv"))).unwrap();
        let rows = |t: &str| {
            t.lines()
                .map(|l| l.split(',').map(str::to_string).collect::<Vec<_>>())
                .collect::<Vec<_>>()
        };
        let (a, b) = (rows(&read), rows(&written));
        assert_eq!(a.len(), b.len(), "{table}");
        for (x, y) in a.iter().zip(&b) {
            for (u, v) in x.iter().zip(y) {
                let same = u == v
                    || matches!((u.parse::<f64>(), v.parse::<f64>()), (Ok(p), Ok(q)) if p == q);
                assert!(same, "{table}: {x:?} against {y:?}");
            }
        }
        assert!(
            !csv.join(format!("{table}.parquet")).exists()
                && !parquet.join(format!("{table}.csv")).exists()
        );
    }
    let run = tumble::run_record::RunRecord::load(&parquet).unwrap();
    assert_eq!(run.bodies.len(), 11);
}
