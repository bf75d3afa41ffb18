//! `tumble render`'s automatic camera sees every moving body: it frames them, and no fixed body
//! drawn stands between the eye and any of them (the ones in the way are cut away).
//!
//! At the geometry level, for every bundled scene (`scenes/**/*.toml`, at its starting poses)
//! and for real runs of `scenes/walled-box.toml` (50 cubes in a box with walls) and
//! `scenes/small-funnel.toml`: the segment from the eye to each moving body's centre, in every
//! frame drawn, crosses none of the fixed triangles the picture draws (placed by the same
//! instance matrices the shader uses), and the centres project inside the picture. On a device
//! (lavapipe in CI): the walled box's last picture shows the cubes' colours in many pixels, and
//! several times more than the same camera given with `--camera`, which draws the walls.

mod gpu_support;

use glam::{DVec3, Mat4, Vec4Swizzles};
use std::path::{Path, PathBuf};
use std::process::Command;
use tumble::body::Motion;
use tumble::render::camera::automatic_eye;
use tumble::render::geometry::DETAIL;
use tumble::run_record::{RecordedBody, RecordedFrame, RunRecord};
use tumble::tessellate::shape_mesh;

const ASPECT: f64 = 4.0 / 3.0;

fn tumble() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tumble"))
}

/// The scene `path` as a run of one frame: every body at its scene pose.
fn at_scene_poses(path: &Path) -> RunRecord {
    let scene =
        tumble::scene::load(path).unwrap_or_else(|e| panic!("{}: {}", path.display(), e.message));
    let bodies = RecordedBody::all_of(&scene);
    let poses = scene
        .bodies
        .iter()
        .map(|b| (b.position, b.orientation))
        .collect();
    RunRecord {
        dir: PathBuf::new(),
        scene,
        bodies,
        frames: vec![RecordedFrame { t: 0.0, poses }],
    }
}

/// `scenes/` and its folders' scene files, sorted.
fn bundled() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "toml") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes"),
        &mut files,
    );
    files.sort();
    files
}

/// Whether the segment from `a` to `b` passes through the triangle `t` clearly inside it
/// (barycentric coordinates over 1e-6, so a sight line grazing the edge a cut face shares with
/// a drawn one does not count) and strictly between its ends.
fn passes_through(a: DVec3, b: DVec3, t: &[DVec3; 3]) -> bool {
    let n = (t[1] - t[0]).cross(t[2] - t[0]);
    let (da, db) = (n.dot(a - t[0]), n.dot(b - t[0]));
    if da * db >= 0.0 {
        return false; // both ends on one side (or on the plane)
    }
    let p = a + (b - a) * (da / (da - db));
    let area2 = n.length_squared();
    (0..3).all(|k| n.dot((t[(k + 1) % 3] - t[k]).cross(p - t[k])) > 1e-6 * area2)
}

/// What [`check`] found.
#[derive(Debug)]
struct Seen {
    sight_lines: usize,
    in_picture: usize,
    fixed_drawn: usize,
    cut: tumble::render::cutaway::CutReport,
}

/// The automatic camera's sight lines to every moving body in every `every`-th frame of `run`
/// miss every fixed triangle drawn; panics naming the body, the frame and the fixed body if one
/// does not.
fn check(name: &str, run: &RunRecord, every: usize) -> Seen {
    let frames: Vec<&RecordedFrame> = run.frames.iter().step_by(every).collect();
    let (picture, view, cut) = tumble::render::prepare(run, &frames, None, ASPECT);
    let eye = automatic_eye(picture.focus, ASPECT);
    assert!(
        (eye - view.eye.as_dvec3()).length() <= 1e-5 * eye.length().max(1.0),
        "{name}: the view's eye {} is not the automatic eye {eye}",
        view.eye
    );
    let n = run.bodies.len();
    // The ground square (instance n) is fixed too.
    let fixed = |instance: u32| {
        instance as usize >= n || run.bodies[instance as usize].motion == Motion::Fixed
    };
    let middles: Vec<DVec3> = run
        .bodies
        .iter()
        .map(|b| {
            shape_mesh(&b.shape, DETAIL, 1.0)
                .bounds()
                .map_or(DVec3::ZERO, |(lo, hi)| 0.5 * (lo + hi))
        })
        .collect();
    let mut seen = Seen {
        sight_lines: 0,
        in_picture: 0,
        fixed_drawn: 0,
        cut,
    };
    for frame in &frames {
        let instances = picture.instances(frame);
        let drawn: Vec<(u32, [DVec3; 3])> = picture.indices[..picture.drawn]
            .chunks(3)
            .map(|t| {
                let vertex = |i: u32| &picture.vertices[i as usize];
                let body = vertex(t[0]).body;
                let model = Mat4::from_cols_array_2d(&instances[body as usize].model);
                let world = |i: u32| {
                    (model * glam::Vec3::from(vertex(i).position).extend(1.0))
                        .xyz()
                        .as_dvec3()
                };
                (body, [world(t[0]), world(t[1]), world(t[2])])
            })
            .filter(|(body, _)| fixed(*body))
            .collect();
        seen.fixed_drawn = drawn.len();
        for (i, body) in run.bodies.iter().enumerate() {
            if body.motion == Motion::Fixed {
                continue;
            }
            let (p, q) = frame.poses[i];
            let centre = p + q * middles[i];
            seen.sight_lines += 1;
            let clip = view.view_proj * centre.as_vec3().extend(1.0);
            let ndc = clip.xyz() / clip.w;
            if clip.w > 0.0 && ndc.x.abs() <= 1.0 && ndc.y.abs() <= 1.0 {
                seen.in_picture += 1;
            }
            if let Some((other, _)) = drawn.iter().find(|(_, t)| passes_through(eye, centre, t)) {
                let other = run
                    .bodies
                    .get(*other as usize)
                    .map_or("the ground square", |b| b.name.as_str());
                panic!(
                    "{name}: at t = {} the fixed body {other} hides {} (centre {centre}) from \
                     the eye at {eye}",
                    frame.t, body.name
                );
            }
        }
    }
    seen
}

/// The share of centres in the picture: all of a few bodies; most of many (the focus box
/// leaves out the 2 % farthest along each axis, so that strays do not shrink the pile).
fn assert_framed(name: &str, run: &RunRecord, seen: &Seen) {
    let moving = run
        .bodies
        .iter()
        .filter(|b| b.motion != Motion::Fixed)
        .count();
    if moving == 0 {
        // Only a scene whose moving bodies are all poured in later has none at its start.
        assert!(!run.scene.sources.is_empty(), "{name}: nothing moves");
        return;
    }
    let share = seen.in_picture as f64 / seen.sight_lines.max(1) as f64;
    let least = if moving < 20 { 1.0 } else { 0.9 };
    assert!(
        share >= least,
        "{name}: only {} of {} centres in the picture",
        seen.in_picture,
        seen.sight_lines
    );
}

#[test]
fn every_bundled_scene_shows_its_moving_bodies_past_the_fixed_ones() {
    let files = bundled();
    assert!(files.len() >= 30, "{} scenes", files.len());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
    for path in files {
        let name = path.strip_prefix(&root).unwrap().display().to_string();
        let run = at_scene_poses(&path);
        let started = std::time::Instant::now();
        let seen = check(&name, &run, 1);
        assert_framed(&name, &run, &seen);
        eprintln!(
            "{name}: {} sight lines ({} in the picture) clear of {} fixed triangles drawn; \
             cut {:?}; {:.2} s",
            seen.sight_lines,
            seen.in_picture,
            seen.fixed_drawn,
            seen.cut,
            started.elapsed().as_secs_f64()
        );
    }
}

/// `tumble run SCENE` (CPU, `extra` arguments) into a fresh directory; the run read back.
fn run(scene: &str, tag: &str, extra: &[&str]) -> RunRecord {
    let dir = run_dir(scene, tag, extra);
    RunRecord::load(&dir).unwrap()
}

/// `tumble run SCENE` (CPU, `extra` arguments) into a fresh directory, returned.
fn run_dir(scene: &str, tag: &str, extra: &[&str]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tumble-cutaway-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = tumble()
        .args(["run", "--backend", "cpu", "--out"])
        .arg(&dir)
        .args(extra)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join(scene))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

#[test]
fn over_a_run_the_walls_and_the_funnel_hide_nothing() {
    for (scene, extra, every, least_cut) in [
        // The cubes end in a pile against the walls: the two walls facing the camera go.
        ("scenes/walled-box.toml", &[][..], 5, 2),
        // The cubes fall through the funnel onto the ground: its near walls go.
        ("scenes/small-funnel.toml", &["--duration", "2.5"][..], 5, 1),
    ] {
        let run = run(scene, "run", extra);
        let seen = check(scene, &run, every);
        assert_framed(scene, &run, &seen);
        eprintln!(
            "{scene}: {} sight lines over {} frames ({} in the picture), clear of {} fixed \
             triangles drawn; cut {:?}",
            seen.sight_lines,
            run.frames.len().div_ceil(every),
            seen.in_picture,
            seen.fixed_drawn,
            seen.cut
        );
        assert!(
            seen.cut.instances.len() >= least_cut,
            "{scene}: only {:?} cut away",
            seen.cut
        );
    }
}

/// Pixels of a moving body's colour: the palette's colours are saturated (their channels differ
/// by 85 or more, a third of that in deep shade), the fixed bodies, the ground, their shadows and
/// the sky are greys (channels within 21 of each other).
fn colourful(path: &Path) -> (usize, usize) {
    let img = image::open(path).unwrap().to_rgb8();
    let n = img
        .pixels()
        .filter(|p| {
            let (hi, lo) = (p.0.iter().max().unwrap(), p.0.iter().min().unwrap());
            hi - lo > 40
        })
        .count();
    (n, (img.width() * img.height()) as usize)
}

#[test]
#[cfg_attr(
    tumble_no_gpu,
    ignore = "no Vulkan driver when built: apt-get install mesa-vulkan-drivers (lavapipe), or a GPU's"
)]
fn the_walled_box_picture_shows_the_cubes() {
    if !gpu_support::adapter_found() {
        return;
    }
    let dir = run_dir("scenes/walled-box.toml", "picture", &[]);
    let (w, h) = (320, 240);
    let render = |out: &str, camera: Option<&str>| {
        let mut c = tumble();
        c.arg("render")
            .arg(&dir)
            .args(["--every", "100", "--width", &w.to_string(), "--height"])
            .arg(h.to_string())
            .arg("--out")
            .arg(dir.join(out));
        if let Some(camera) = camera {
            c.args(["--camera", camera]);
        }
        let out = c.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let said = render("automatic", None);
    // The same eye, target and field of view given on the command line: nothing cut away.
    let record = RunRecord::load(&dir).unwrap();
    let frames: Vec<&RecordedFrame> = record.frames.iter().step_by(100).collect();
    let aspect = w as f64 / h as f64;
    let (picture, _, _) = tumble::render::prepare(&record, &frames, None, aspect);
    let (e, c) = (automatic_eye(picture.focus, aspect), picture.focus.centre);
    let camera = format!("{},{},{},{},{},{},40", e.x, e.y, e.z, c.x, c.y, c.z);
    render("given", Some(&camera));
    // Frame 100 (t = 2 s, the last): the cubes at rest on the floor, against the walls.
    let (cut, total) = colourful(&dir.join("automatic/frame_00001.png"));
    let (walled, _) = colourful(&dir.join("given/frame_00001.png"));
    eprintln!(
        "{said}cube-coloured pixels: {cut} of {total} with the walls in the way cut away, \
         {walled} with them drawn (--camera {camera})"
    );
    assert!(
        said.contains(
            "not drawn, as they stood between the camera and the moving bodies: wall_px, \
             wall_ny (their shadows are; --camera draws everything)"
        ),
        "{said}"
    );
    // About 17 % and 8 % at 320x240 on lavapipe.
    assert!(
        cut * 8 >= total,
        "only {cut} of {total} pixels show the cubes"
    );
    assert!(
        4 * cut >= 7 * walled,
        "{cut} pixels show the cubes, {walled} with the walls drawn"
    );
}
