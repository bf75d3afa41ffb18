//! `tumble render`: pictures of a known run checked pixel by pixel. A ball falls above a floor;
//! with the camera given, the test projects the ball with the renderer's own camera model and
//! asserts the body's colour where it projects, the background elsewhere, that successive
//! pictures differ only around the ball and its shadow, the GIF's frame count, and the contact
//! arrows of an events file.
//!
//! Skips (prints "SKIPPED: no GPU adapter") when wgpu finds no adapter, unless CI=true, where
//! it fails: CI renders on Mesa's lavapipe.

#[path = "gpu_support/mod.rs"]
mod gpu_support;

use glam::{DVec3, Vec4Swizzles};
use gpu_support::adapter_found;
use image::{AnimationDecoder, RgbaImage};
use std::path::{Path, PathBuf};
use std::process::Command;
use tumble::render::camera::{view, CameraSpec, Focus};
use tumble::render::geometry::body_colour;

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
"#;

/// The camera of the tests: from the front (−y), level with the ball's path, so the top of the
/// picture is sky.
const CAMERA: &str = "0,-3,0.6,0,0,0.6,40";
const W: u32 = 320;
const H: u32 = 240;

fn tumble() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tumble"))
}

/// A fresh directory with the scene, run by `tumble run`.
fn run_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tumble-render-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("ball.toml"), SCENE).unwrap();
    let out = dir.join("run");
    let status = tumble()
        .args(["run", "--backend", "cpu", "--out"])
        .arg(&out)
        .arg(dir.join("ball.toml"))
        .status()
        .unwrap();
    assert!(status.success());
    out
}

fn render(run: &Path, extra: &[&str]) -> std::process::Output {
    tumble()
        .arg("render")
        .arg(run)
        .args(["--width", &W.to_string(), "--height", &H.to_string()])
        .args(["--camera", CAMERA])
        .args(extra)
        .output()
        .unwrap()
}

/// Pixel (column, row) where the world point `p` projects with the tests' camera.
fn project(p: DVec3) -> (i64, i64) {
    let spec: CameraSpec = CAMERA.parse().unwrap();
    let focus = Focus {
        centre: DVec3::new(0.0, 0.0, 0.6),
        radius: 1.0,
        half: DVec3::ZERO,
    };
    let v = view(focus, Some(&spec), W as f64 / H as f64, 10.0);
    let c = v.view_proj * p.as_vec3().extend(1.0);
    let ndc = c.xy() / c.w;
    (
        ((ndc.x as f64 * 0.5 + 0.5) * W as f64) as i64,
        ((0.5 - ndc.y as f64 * 0.5) * H as f64) as i64,
    )
}

fn pixel(img: &RgbaImage, (x, y): (i64, i64)) -> [u8; 3] {
    let p = img.get_pixel(x as u32, y as u32);
    [p[0], p[1], p[2]]
}

/// The ball's height at time t (free fall from 1 m, from the run's own frames).
fn ball_z(run: &Path, t: f64) -> f64 {
    let text = std::fs::read_to_string(run.join("frames.csv")).unwrap();
    text.lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>())
        .find(|c| c[1] == "ball" && (c[0].parse::<f64>().unwrap() - t).abs() < 1e-9)
        .map(|c| c[4].parse().unwrap())
        .unwrap()
}

fn distance(a: [u8; 3], b: [u8; 3]) -> i32 {
    (0..3)
        .map(|i| (a[i] as i32 - b[i] as i32).abs())
        .max()
        .unwrap()
}

#[test]
#[cfg_attr(
    tumble_no_gpu,
    ignore = "no Vulkan driver when built: apt-get install mesa-vulkan-drivers (lavapipe), or a GPU's"
)]
fn a_falling_ball_is_drawn_where_it_projects() {
    if !adapter_found() {
        return;
    }
    let run = run_dir("ball");
    let out = render(&run, &["--every", "5"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = run.join("render");
    // 21 frames (0 to 0.4 s by 0.02), every 5th: frames 0, 5, 10, 15, 20.
    let pngs: Vec<RgbaImage> = (0..5)
        .map(|k| {
            image::open(dir.join(format!("frame_{k:05}.png")))
                .unwrap()
                .to_rgba8()
        })
        .collect();
    assert!(!dir.join("frame_00005.png").exists());
    let first = &pngs[0];
    assert_eq!((first.width(), first.height()), (W, H));

    // The ball's colour where its centre projects: the first dynamic body's palette colour,
    // shaded. Its hue must be that colour's (blue), far from the grey floor and the sky.
    let z0 = ball_z(&run, 0.0);
    let centre = project(DVec3::new(0.0, 0.0, z0));
    let seen = pixel(first, centre);
    let [r, g, b] = body_colour(tumble::body::Motion::Dynamic, 0);
    eprintln!(
        "ball at z = {z0} projects to {centre:?}: rgb {seen:?} (body colour {:?})",
        [r, g, b]
    );
    assert!(
        seen[2] as i32 > seen[0] as i32 + 30 && seen[2] >= seen[1],
        "not the ball's blue: {seen:?}"
    );
    // The sky at the top corners: the background colour, exactly the same in both.
    let sky = pixel(first, (2, 2));
    assert_eq!(sky, pixel(first, (W as i64 - 3, 2)));
    assert!(distance(sky, [207, 216, 228]) <= 3, "background {sky:?}");

    // Successive pictures differ where the ball moved, and nowhere far from it or its shadow.
    let last = &pngs[4];
    let z1 = ball_z(&run, 0.4);
    let (x0, y0) = centre;
    let (x1, y1) = project(DVec3::new(0.0, 0.0, z1));
    assert_ne!(
        pixel(last, (x0, y0)),
        seen,
        "the ball's old place still shows the ball"
    );
    let now = pixel(last, (x1, y1));
    assert!(
        now[2] as i32 > now[0] as i32 + 30,
        "the ball is not at its new place: {now:?}"
    );
    // Where the ball and its shadow on the floor (z = 0, along the light) were and are, as
    // boxes a ball's radius wider on the picture.
    let light = tumble::render::camera::LIGHT_FROM.normalize();
    let shadow = |z: f64| DVec3::new(0.0, 0.0, z) - light * (z / light.z);
    let radius = (project(DVec3::new(0.1, 0.0, z0)).0 - x0).abs() + 4;
    let spots = [
        (
            project(DVec3::new(0.0, 0.0, z0)),
            project(DVec3::new(0.0, 0.0, z1)),
        ),
        (project(shadow(z0)), project(shadow(z1))),
    ];
    let inside = |x: i64, y: i64| {
        spots.iter().any(|&((ax, ay), (bx, by))| {
            x >= ax.min(bx) - 2 * radius
                && x <= ax.max(bx) + 2 * radius
                && y >= ay.min(by) - 2 * radius
                && y <= ay.max(by) + 2 * radius
        })
    };
    let (mut near, mut far) = (0, 0);
    for (x, y, p) in first.enumerate_pixels() {
        if p == last.get_pixel(x, y) {
            continue;
        }
        if inside(x as i64, y as i64) {
            near += 1;
        } else {
            far += 1;
        }
    }
    eprintln!("pictures 0 and 4 differ in {near} pixels around the ball, {far} elsewhere");
    assert!(
        near > 100,
        "only {near} pixels changed where the ball moved"
    );
    assert_eq!(far, 0, "pixels changed far from the ball");

    // The GIF: one frame per picture.
    let gif = std::fs::File::open(dir.join("animation.gif")).unwrap();
    let decoder = image::codecs::gif::GifDecoder::new(std::io::BufReader::new(gif)).unwrap();
    let frames = decoder.into_frames().collect_frames().unwrap();
    assert_eq!(frames.len(), 5);
    assert_eq!(frames[0].buffer().dimensions(), (W, H));
}

#[test]
#[cfg_attr(
    tumble_no_gpu,
    ignore = "no Vulkan driver when built: apt-get install mesa-vulkan-drivers (lavapipe), or a GPU's"
)]
fn contact_arrows_show_the_events_impulses() {
    if !adapter_found() {
        return;
    }
    let run = run_dir("arrows");
    // Without an event log, --contacts is refused, naming the file.
    let out = render(&run, &["--contacts", "--every", "20"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("events.csv") && err.contains("--events"),
        "{err}"
    );
    // One collision impulse at the floor's middle, pointing up, in frame 20 (t = 0.4 s).
    std::fs::write(
        run.join("events.csv"),
        "t,kind,body_a,body_b,px,py,pz,nx,ny,nz,jn,jt,vn_before,vn_after\n\
         0.39,collision,ball,floor,0.5,0,0,0,0,1,2.0,0,-3,1.5\n",
    )
    .unwrap();
    let out = render(
        &run,
        &[
            "--contacts",
            "--every",
            "20",
            "--out",
            run.join("arrows").to_str().unwrap(),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let with = image::open(run.join("arrows/frame_00001.png"))
        .unwrap()
        .to_rgba8();
    let plain = render(
        &run,
        &[
            "--every",
            "20",
            "--out",
            run.join("plain").to_str().unwrap(),
        ],
    );
    assert!(plain.status.success());
    let without = image::open(run.join("plain/frame_00001.png"))
        .unwrap()
        .to_rgba8();
    // The arrow's shaft, a little above its foot: the collision red, flat.
    let (x, y) = project(DVec3::new(0.5, 0.0, 0.05));
    // The shaft is a few pixels wide: the reddest pixel within 3 of where it projects.
    let (red, at) = (-3..=3)
        .flat_map(|dx| (-3..=3).map(move |dy| (x + dx, y + dy)))
        .map(|p| (pixel(&with, p), p))
        .min_by_key(|(c, _)| distance(*c, [0xd6, 0x27, 0x28]))
        .unwrap();
    eprintln!(
        "arrow at {at:?}: {red:?}, without: {:?}",
        pixel(&without, at)
    );
    assert!(
        distance(red, [0xd6, 0x27, 0x28]) <= 4,
        "not the collision red: {red:?}"
    );
    assert!(distance(pixel(&without, at), red) > 40);
    // The first picture (t = 0, before the event) has no arrow.
    let a = image::open(run.join("arrows/frame_00000.png"))
        .unwrap()
        .to_rgba8();
    let b = image::open(run.join("plain/frame_00000.png"))
        .unwrap()
        .to_rgba8();
    assert!(a == b, "an arrow drawn before its event");
}

#[test]
fn a_missing_run_directory_is_refused_naming_the_file() {
    let dir = std::env::temp_dir().join(format!("tumble-render-none-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = tumble().arg("render").arg(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("summary.json"), "{err}");
    let bad = tumble()
        .args(["render", dir.to_str().unwrap(), "--camera", "1,2"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

/// The Vulkan loader pointed at no driver: a machine without one, as far as wgpu can tell.
#[cfg(target_os = "linux")]
fn without_drivers(mut command: Command) -> std::process::Output {
    command
        .env("VK_ICD_FILENAMES", "/nonexistent")
        .env("VK_DRIVER_FILES", "/nonexistent")
        .env_remove("TUMBLE_ADAPTER")
        .output()
        .unwrap()
}

/// Without a Vulkan driver, `render` and `run --backend gpu` (whose message comes from the same
/// device module) exit with code 2, say "no GPU adapter" once and what to install.
#[cfg(target_os = "linux")]
#[test]
fn without_a_driver_the_message_says_what_to_install() {
    let run = run_dir("no-driver");
    let mut render = tumble();
    render.arg("render").arg(&run);
    let mut gpu_run = tumble();
    gpu_run
        .args(["run", "--backend", "gpu", "--out"])
        .arg(run.join("gpu"))
        .arg(run.parent().unwrap().join("ball.toml"));
    for (what, command, start) in [
        ("render", render, "error: cannot render: no GPU adapter"),
        (
            "run --backend gpu",
            gpu_run,
            "error: --backend gpu: no GPU adapter",
        ),
    ] {
        let out = without_drivers(command);
        let err = String::from_utf8_lossy(&out.stderr);
        eprintln!("{what}: {err}");
        assert_eq!(out.status.code(), Some(2), "{what}: {err}");
        assert!(err.starts_with(start), "{what}: {err}");
        assert_eq!(err.matches("no GPU adapter").count(), 1, "{what}: {err}");
        assert!(
            err.contains("sudo apt-get install mesa-vulkan-drivers libvulkan1")
                && err.contains("the GPU vendor's Vulkan driver"),
            "{what}: {err}"
        );
    }
    assert!(!run.join("gpu").join("summary.json").exists());
}

/// Where it works, rendering and a `--backend gpu` run print nothing but their own lines, also
/// without `XDG_RUNTIME_DIR` (a headless session, where Mesa's device-select layer made
/// libwayland complain twice). `NODEVICE_SELECT` is removed from the children's environment:
/// this test process may have set it by opening a device itself.
#[test]
#[cfg_attr(
    tumble_no_gpu,
    ignore = "no Vulkan driver when built: apt-get install mesa-vulkan-drivers (lavapipe), or a GPU's"
)]
fn a_successful_render_and_gpu_run_are_quiet() {
    if !adapter_found() {
        return;
    }
    let run = run_dir("quiet");
    let out = tumble()
        .arg("render")
        .arg(&run)
        .args(["--width", "64", "--height", "48", "--every", "20"])
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("NODEVICE_SELECT")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(err, "", "render's stderr");
    let out = tumble()
        .args(["run", "--backend", "gpu", "--duration", "0.1", "--out"])
        .arg(run.join("gpu"))
        .arg(run.parent().unwrap().join("ball.toml"))
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("NODEVICE_SELECT")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert!(
        lines.len() == 1 && lines[0].starts_with("backend: gpu ("),
        "run --backend gpu's stderr: {err}"
    );
}
