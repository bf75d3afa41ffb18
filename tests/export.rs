//! `tumble export RUN_DIR --gltf FILE.glb`: a known run exported and read back with the `gltf`
//! crate (which also validates the document). A ball falls and a box tumbles above a fixed
//! floor while a kinematic box slides by; the tests compare the file with `frames.csv`, parsed
//! here on its own, through the axis turn the export documents: glTF (x, y, z) = tumble
//! (x, z, −y).

use gltf::animation::util::ReadOutputs;
use gltf::animation::Property;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tumble::body::Motion;
use tumble::render::geometry::{body_colour, colour_of, Shading};

const SCENE: &str = r#"
[world]
duration = 0.4
frame_period = 0.02

[[bodies]]
name = "floor"
motion = "fixed"
shape = { type = "box", half_extents = [1.0, 1.0, 0.1] }
position = [0.0, 0.0, -0.1]

[[bodies]]
name = "ball"
shape = { type = "sphere", radius = 0.1 }
density = 1000.0
position = [0.0, 0.0, 1.0]

[[bodies]]
name = "spinner"
shape = { type = "box", half_extents = [0.1, 0.2, 0.05] }
density = 1000.0
position = [0.6, 0.0, 1.0]
angular_velocity = [3.0, 7.0, 11.0]

[[bodies]]
name = "slider"
motion = "kinematic"
shape = { type = "box", half_extents = [0.05, 0.05, 0.05] }
position = [-0.6, 0.0, 0.5]
velocity = [0.5, 0.0, 0.0]
angular_velocity = [0.0, 0.0, 2.0]
"#;

/// The bodies in scene order, and which move.
const BODIES: [(&str, bool); 4] = [
    ("floor", false),
    ("ball", true),
    ("spinner", true),
    ("slider", true),
];

fn tumble() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tumble"))
}

/// A fresh directory with the scene run by `tumble run`, and its export: (run dir, GLB bytes).
fn exported(name: &str) -> (PathBuf, Vec<u8>) {
    let dir = std::env::temp_dir().join(format!("tumble-export-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("bodies.toml"), SCENE).unwrap();
    let run = dir.join("run");
    let status = tumble()
        .args(["run", "--backend", "cpu", "--out"])
        .arg(&run)
        .arg(dir.join("bodies.toml"))
        .output()
        .unwrap();
    assert!(status.status.success(), "{status:?}");
    let glb = dir.join("out").join("bodies.glb");
    let out = export(&run, &glb);
    assert!(out.status.success(), "{out:?}");
    println!("{}", String::from_utf8_lossy(&out.stdout).trim());
    (run, std::fs::read(glb).unwrap())
}

fn export(run: &Path, glb: &Path) -> Output {
    tumble()
        .arg("export")
        .arg(run)
        .arg("--gltf")
        .arg(glb)
        .output()
        .unwrap()
}

/// A row of `frames.csv`: time, position, orientation (w, x, y, z).
#[derive(Clone, Copy, Debug)]
struct Row {
    t: f64,
    p: [f64; 3],
    q: [f64; 4],
}

/// `frames.csv` by body name.
fn frames_csv(run: &Path) -> HashMap<String, Vec<Row>> {
    let text = std::fs::read_to_string(run.join("frames.csv")).unwrap();
    let mut rows: HashMap<String, Vec<Row>> = HashMap::new();
    for line in text.lines().skip(1) {
        let c: Vec<&str> = line.split(',').collect();
        let n: Vec<f64> = c[2..9].iter().map(|v| v.parse().unwrap()).collect();
        rows.entry(c[1].to_string()).or_default().push(Row {
            t: c[0].parse().unwrap(),
            p: [n[0], n[1], n[2]],
            q: [n[3], n[4], n[5], n[6]],
        });
    }
    rows
}

/// tumble's position in glTF's axes.
fn turn(p: [f64; 3]) -> [f64; 3] {
    [p[0], p[2], -p[1]]
}

/// tumble's orientation (w, x, y, z) in glTF's axes and order (x, y, z, w).
fn turn_q(q: [f64; 4]) -> [f64; 4] {
    [q[1], q[3], -q[2], q[0]]
}

/// Largest difference, relative to the magnitude (at least 1).
fn off<const N: usize>(a: [f32; N], b: [f64; N]) -> f64 {
    (0..N)
        .map(|k| (a[k] as f64 - b[k]).abs() / b[k].abs().max(1.0))
        .fold(0.0, f64::max)
}

/// A rotation's difference from `b`, either sign of `b` being the same turn.
fn off_q(a: [f32; 4], b: [f64; 4]) -> f64 {
    off(a, b).min(off(a, b.map(|v| -v)))
}

fn parse(glb: &[u8]) -> gltf::Gltf {
    gltf::Gltf::from_slice(glb).expect("the GLB parses and validates")
}

#[test]
fn the_container_is_aligned_padded_and_exact() {
    let (_, glb) = exported("container");
    let word = |at: usize| u32::from_le_bytes(glb[at..at + 4].try_into().unwrap()) as usize;
    assert_eq!(&glb[0..4], b"glTF");
    assert_eq!(word(4), 2);
    assert_eq!(word(8), glb.len());
    let json_len = word(12);
    assert_eq!(&glb[16..20], b"JSON");
    let json = &glb[20..20 + json_len];
    let text = std::str::from_utf8(json).unwrap();
    let trailing = text.len() - text.trim_end_matches(' ').len();
    let bin_at = 20 + json_len;
    let bin_len = word(bin_at);
    assert_eq!(&glb[bin_at + 4..bin_at + 8], b"BIN\0");
    assert_eq!(bin_at + 8 + bin_len, glb.len());
    let doc: serde_json::Value = serde_json::from_str(text).unwrap();
    let buffer_len = doc["buffers"][0]["byteLength"].as_u64().unwrap() as usize;
    let offsets: Vec<u64> = doc["bufferViews"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["byteOffset"].as_u64().unwrap_or(0))
        .collect();
    println!(
        "GLB {} bytes: JSON chunk {json_len} ({trailing} spaces of padding), BIN chunk {bin_len}, \
         buffer byteLength {buffer_len}, buffer view offsets {offsets:?}",
        glb.len()
    );
    assert_eq!(json_len % 4, 0);
    assert!(trailing < 4);
    assert_eq!(bin_len % 4, 0);
    assert!(buffer_len <= bin_len && bin_len - buffer_len < 4);
    assert!(glb[bin_at + 8 + buffer_len..].iter().all(|&b| b == 0));
    assert!(offsets.iter().all(|o| o % 4 == 0));
    assert!(doc.get("buffers").unwrap()[0].get("uri").is_none());
}

#[test]
fn one_node_per_body_named_and_placed_at_the_first_frame() {
    let (run, glb) = exported("nodes");
    let gltf = parse(&glb);
    let names: Vec<&str> = gltf.nodes().map(|n| n.name().unwrap_or("")).collect();
    println!("nodes: {names:?}");
    assert_eq!(names, BODIES.map(|b| b.0));
    let scene = gltf.default_scene().unwrap();
    assert_eq!(scene.nodes().count(), BODIES.len());
    let csv = frames_csv(&run);
    for node in gltf.nodes() {
        let (t, q, _) = node.transform().decomposed();
        let name = node.name().unwrap();
        let (p0, q0) = match csv.get(name) {
            Some(rows) => (rows[0].p, rows[0].q),
            None => ([0.0, 0.0, -0.1], [1.0, 0.0, 0.0, 0.0]), // the floor's scene pose
        };
        println!("{name}: translation {t:?} rotation {q:?}");
        assert!(off(t, turn(p0)) <= f32::EPSILON as f64, "{name}: {t:?}");
        assert!(
            off_q(q, turn_q(q0)) <= 2.0 * f32::EPSILON as f64,
            "{name}: {q:?}"
        );
        assert!(node.mesh().is_some(), "{name} has no mesh");
    }
}

#[test]
fn the_animation_plays_the_frames_of_frames_csv() {
    let (run, glb) = exported("animation");
    let gltf = parse(&glb);
    let blob = gltf.blob.as_deref().unwrap();
    let csv = frames_csv(&run);
    let animations: Vec<_> = gltf.animations().collect();
    assert_eq!(animations.len(), 1);
    let animation = &animations[0];
    let channels: Vec<_> = animation.channels().collect();
    let moving = BODIES.iter().filter(|b| b.1).count();
    println!(
        "animation {:?}: {} channels for {moving} moving bodies",
        animation.name(),
        channels.len()
    );
    assert_eq!(animation.name(), Some("bodies"));
    assert_eq!(channels.len(), 2 * moving);
    let mut inputs = std::collections::HashSet::new();
    for ch in &channels {
        let name = ch.target().node().name().unwrap();
        let rows = &csv[name];
        let n = rows.len();
        let sampler = ch.sampler();
        assert_eq!(
            sampler.interpolation(),
            gltf::animation::Interpolation::Linear
        );
        inputs.insert(sampler.input().index());
        let reader = ch.reader(|_| Some(blob));
        let times: Vec<f32> = reader.read_inputs().unwrap().collect();
        assert_eq!(times.len(), n, "{name}: keyframes");
        for (t, row) in times.iter().zip(rows) {
            assert_eq!(*t, row.t as f32, "{name}: keyframe time");
        }
        let picks = [0, n / 2, n - 1];
        match reader.read_outputs().unwrap() {
            ReadOutputs::Translations(it) => {
                assert_eq!(ch.target().property(), Property::Translation);
                let out: Vec<[f32; 3]> = it.collect();
                assert_eq!(out.len(), n);
                for k in picks {
                    let want = turn(rows[k].p);
                    println!(
                        "{name} translation at t = {}: {:?}, frames.csv {want:?}",
                        rows[k].t, out[k]
                    );
                    assert!(off(out[k], want) <= f32::EPSILON as f64, "{name} at {k}");
                }
                if name == "ball" {
                    // Falling: tumble's z, glTF's y, goes down at every frame.
                    assert!(out.windows(2).all(|w| w[1][1] < w[0][1]), "{out:?}");
                    println!("ball height {} → {} m", out[0][1], out[n - 1][1]);
                }
            }
            ReadOutputs::Rotations(it) => {
                assert_eq!(ch.target().property(), Property::Rotation);
                let out: Vec<[f32; 4]> = it.into_f32().collect();
                assert_eq!(out.len(), n);
                for k in picks {
                    let want = turn_q(rows[k].q);
                    println!(
                        "{name} rotation at t = {}: {:?}, frames.csv {want:?}",
                        rows[k].t, out[k]
                    );
                    assert!(
                        off_q(out[k], want) <= 2.0 * f32::EPSILON as f64,
                        "{name} {k}"
                    );
                }
                let dot = |a: [f32; 4], b: [f32; 4]| (0..4).map(|i| a[i] * b[i]).sum::<f32>();
                let worst_unit = out
                    .iter()
                    .map(|q| (dot(*q, *q) - 1.0).abs())
                    .fold(0.0, f32::max);
                let least_dot = out.windows(2).map(|w| dot(w[0], w[1])).fold(1.0, f32::min);
                println!(
                    "{name}: |q|² off 1 by ≤ {worst_unit:e}, least dot of neighbours {least_dot}"
                );
                assert!(worst_unit < 1e-6);
                assert!(least_dot > 0.0, "{name}: slerp would take the long way");
            }
            _ => panic!("{name}: a channel that is neither translation nor rotation"),
        }
    }
    assert_eq!(inputs.len(), 1, "one shared input accessor");
}

#[test]
fn a_fixed_body_has_no_channel() {
    let (_, glb) = exported("fixed");
    let gltf = parse(&glb);
    let animated: Vec<&str> = gltf
        .animations()
        .flat_map(|a| a.channels())
        .map(|c| c.target().node().name().unwrap())
        .collect();
    println!("animated nodes: {animated:?}");
    assert!(!animated.contains(&"floor"));
    for (name, moves) in BODIES.iter().filter(|b| b.1) {
        assert_eq!(
            animated.iter().filter(|a| *a == name).count(),
            2,
            "{name} {moves}"
        );
    }
}

#[test]
fn meshes_have_the_shapes_extents_and_the_renderers_colours() {
    let (_, glb) = exported("meshes");
    let gltf = parse(&glb);
    let blob = gltf.blob.as_deref().unwrap();
    let node = |name: &str| gltf.nodes().find(|n| n.name() == Some(name)).unwrap();
    // The extent of each shape, in glTF's axes.
    let extents = [
        ("ball", [0.1, 0.1, 0.1]),
        ("spinner", [0.1, 0.05, 0.2]),
        ("floor", [1.0, 0.1, 1.0]),
    ];
    for (name, half) in extents {
        let mesh = node(name).mesh().unwrap();
        let prim = mesh.primitives().next().unwrap();
        let bb = prim.bounding_box();
        println!("{name}: POSITION min {:?} max {:?}", bb.min, bb.max);
        for (k, &h) in half.iter().enumerate() {
            let (lo, hi) = (-h as f32, h as f32);
            let tol = if name == "ball" { 0.02 } else { 1e-6 };
            assert!(
                (bb.max[k] - hi).abs() <= tol * hi,
                "{name} max {k}: {:?}",
                bb.max
            );
            assert!(
                (bb.min[k] - lo).abs() <= tol * hi,
                "{name} min {k}: {:?}",
                bb.min
            );
        }
        let reader = prim.reader(|_| Some(blob));
        let positions: Vec<[f32; 3]> = reader.read_positions().unwrap().collect();
        let normals: Vec<[f32; 3]> = reader.read_normals().unwrap().collect();
        assert_eq!(positions.len(), normals.len());
        let worst = normals
            .iter()
            .map(|n| ((n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt() - 1.0).abs())
            .fold(0.0, f32::max);
        assert!(
            worst < 1e-6,
            "{name}: a normal's length is off 1 by {worst}"
        );
        assert!(matches!(
            reader.read_indices().unwrap(),
            gltf::mesh::util::ReadIndices::U32(_)
        ));
        if name == "ball" {
            let r: Vec<f32> = positions
                .iter()
                .map(|p| (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt())
                .collect();
            let (rmin, rmax) = r
                .iter()
                .fold((f32::MAX, 0.0f32), |(a, b), &v| (a.min(v), b.max(v)));
            println!("ball: {} vertices at radius {rmin}..{rmax}", r.len());
            assert!(rmin >= 0.098 && rmax <= 0.102);
        }
    }
    // Colours: the renderer's, in linear light.
    let colours = [
        ("floor", body_colour(Motion::Fixed, 0)),
        ("ball", body_colour(Motion::Dynamic, 0)),
        ("spinner", body_colour(Motion::Dynamic, 1)),
        ("slider", body_colour(Motion::Kinematic, 0)),
    ];
    for (name, srgb) in colours {
        let material = node(name)
            .mesh()
            .unwrap()
            .primitives()
            .next()
            .unwrap()
            .material();
        let got = material.pbr_metallic_roughness().base_color_factor();
        let want = colour_of(srgb, Shading::Lit);
        println!("{name}: base colour {got:?}, renderer's sRGB {srgb:?}");
        assert_eq!(got[..3], want[..3], "{name}");
        assert_eq!(got[3], 1.0);
        assert_eq!(material.pbr_metallic_roughness().metallic_factor(), 0.0);
    }
}

#[test]
fn a_missing_run_dir_exits_2_naming_it() {
    let missing = std::env::temp_dir().join(format!("tumble-export-none-{}", std::process::id()));
    let out = export(&missing, &missing.join("x.glb"));
    let err = String::from_utf8_lossy(&out.stderr);
    println!("exit {:?}: {}", out.status.code(), err.trim());
    assert_eq!(out.status.code(), Some(2));
    assert!(err.contains(&missing.join("summary.json").display().to_string()));
}

#[test]
fn an_unwritable_output_exits_1() {
    let (run, _) = exported("unwritable");
    // A directory where a file is: fails even for root, unlike a read-only directory.
    let blocked = run.join("frames.csv").join("x.glb");
    let out = export(&run, &blocked);
    let err = String::from_utf8_lossy(&out.stderr);
    println!("exit {:?}: {}", out.status.code(), err.trim());
    assert_eq!(out.status.code(), Some(1));
    assert!(err.contains("x.glb"));
}
