//! `tumble view`: the page of a small run (two balls and a cube above a floor), checked three
//! ways. Its embedded poses decode back to `frames.csv`; it names no external URL; and headless
//! Chromium draws it: the first ball's colour shows, not with the moving bodies hidden, and
//! lower on the picture later in the fall.
//!
//! The screenshots need Chromium (`chromium` or `chromium-browser` on the PATH, or
//! `TUMBLE_CHROMIUM`), drawing WebGL with SwiftShader on the CPU. Without it they print
//! "SKIPPED: no chromium" and pass, unless CI=true, where they fail: CI installs it.

use image::RgbaImage;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tumble::body::Motion;
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
orientation = [0.9990482215818578, 0.0, 0.0, 0.043619387365336]

[[bodies]]
name = "ball"
shape = { type = "sphere", radius = 0.1 }
density = 1000.0
position = [0.0, 0.0, 1.0]

[[bodies]]
name = "twin"
shape = { type = "sphere", radius = 0.1 }
density = 1000.0
position = [0.5, 0.3, 0.15]

[[bodies]]
name = "cube"
shape = { type = "box", half_extents = [0.1, 0.1, 0.1] }
density = 500.0
position = [-0.5, 0.3, 0.15]
angular_velocity = [0.0, 0.0, 6.0]
"#;

/// Height of the page's control bar at the bottom (`#bar` in src/view/viewer.html): not part
/// of the picture, and its slider has the first ball's blue.
const BAR: u32 = 44;
const W: u32 = 640;
const H: u32 = 480;

fn tumble() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tumble"))
}

/// A fresh directory with the scene, run by `tumble run`.
fn run_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tumble-view-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("balls.toml"), SCENE).unwrap();
    let out = dir.join("run");
    let status = tumble()
        .args(["run", "--backend", "cpu", "--out"])
        .arg(&out)
        .arg(dir.join("balls.toml"))
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    out
}

/// Writes the page with `tumble view`, checking the exit code and the size it prints.
fn view(run: &Path, extra: &[&str]) -> String {
    let out = tumble().arg("view").arg(run).args(extra).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("Wrote") && stdout.contains(" MB)"),
        "{stdout}"
    );
    eprintln!("{}", stdout.trim());
    stdout.into_owned()
}

/// The chromium binary, or `None` (after a message) where the screenshots may skip.
fn chromium() -> Option<PathBuf> {
    if let Some(named) = std::env::var_os("TUMBLE_CHROMIUM") {
        let named = PathBuf::from(named);
        assert!(
            named.is_file(),
            "TUMBLE_CHROMIUM={} is not a file",
            named.display()
        );
        return Some(named);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path)
        .flat_map(|d| ["chromium", "chromium-browser"].map(|n| d.join(n)))
        .find(|p| p.is_file());
    if found.is_none() {
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("CI=true but no chromium (install the Debian package chromium, or set TUMBLE_CHROMIUM)");
        }
        eprintln!("SKIPPED: no chromium (install it or set TUMBLE_CHROMIUM)");
    }
    found
}

/// Runs headless Chromium on `url` with `what` (`--screenshot=FILE` or `--dump-dom`), WebGL on
/// SwiftShader, its own profile; stdout. Killed after a minute.
fn headless(chromium: &Path, url: &str, what: &str, profile: &Path) -> String {
    std::fs::create_dir_all(profile).unwrap();
    // To a file, not a pipe: a dumped page of a megabyte would fill the pipe while this waits.
    let stdout = profile.join("stdout.txt");
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            // As root (CI containers) Chromium refuses to start sandboxed.
            "--no-sandbox",
            "--use-angle=swiftshader",
            "--enable-unsafe-swiftshader",
            "--hide-scrollbars",
            "--mute-audio",
            "--no-first-run",
            &format!("--window-size={W},{H}"),
            // Runs the page's timers and frames until it is idle or 10 s of virtual time pass,
            // so the scene has drawn before the picture is taken.
            "--virtual-time-budget=10000",
            &format!("--user-data-dir={}", profile.display()),
            what,
            url,
        ])
        .stdout(std::fs::File::create(&stdout).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("chromium did not finish in 60 s on {url}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    String::from_utf8_lossy(&std::fs::read(&stdout).unwrap()).into_owned()
}

fn screenshot(chromium: &Path, page: &Path, hash: &str, name: &str) -> RgbaImage {
    let dir = page.parent().unwrap();
    let png = dir.join(format!("{name}.png"));
    let _ = std::fs::remove_file(&png);
    let url = format!("file://{}#{hash}", page.display());
    headless(
        chromium,
        &url,
        &format!("--screenshot={}", png.display()),
        &dir.join(format!("profile-{name}")),
    );
    let img = image::open(&png)
        .unwrap_or_else(|e| panic!("no screenshot {}: {e}", png.display()))
        .to_rgba8();
    assert_eq!(img.dimensions(), (W, H));
    img
}

/// Pixels of the picture (above the bar) in the first ball's hue: its blue, shaded darker or
/// lighter, far from the grey floor, the grey-blue sky and the other bodies' colours. Their
/// count and mean position.
fn blue_pixels(img: &RgbaImage) -> (usize, f64, f64) {
    let [r, g, b] = body_colour(Motion::Dynamic, 0);
    assert!(
        b as i32 > r as i32 + 60 && b > g,
        "the first palette colour is no longer blue"
    );
    let (mut n, mut sx, mut sy) = (0usize, 0.0, 0.0);
    for (x, y, p) in img.enumerate_pixels() {
        let [r, g, b] = [p[0] as i32, p[1] as i32, p[2] as i32];
        if y < H - BAR && b > r + 30 && b >= g {
            n += 1;
            sx += x as f64;
            sy += y as f64;
        }
    }
    let k = n.max(1) as f64;
    (n, sx / k, sy / k)
}

#[test]
#[cfg_attr(
    tumble_no_chromium,
    ignore = "no chromium on PATH when built: apt-get install chromium, or set TUMBLE_CHROMIUM"
)]
fn chromium_draws_the_bodies_where_they_are() {
    let Some(chromium) = chromium() else {
        return;
    };
    let run = run_dir("draw");
    view(&run, &[]);
    let page = run.join("view.html");

    // The page says it drew, and no error.
    let dom = headless(
        &chromium,
        &format!("file://{}#t=0", page.display()),
        "--dump-dom",
        &run.join("profile-dom"),
    );
    let body = dom
        .find("<body")
        .map_or("", |i| &dom[i..dom.len().min(i + 300)]);
    assert!(
        body.contains("data-ready=\"true\"") && !body.contains("data-error"),
        "the page did not draw: {body}"
    );

    let start = screenshot(&chromium, &page, "t=0", "start");
    let hidden = screenshot(&chromium, &page, "t=0&bodies=hidden", "hidden");
    let later = screenshot(&chromium, &page, "t=0.4", "later");
    let (n0, x0, y0) = blue_pixels(&start);
    let (nh, _, _) = blue_pixels(&hidden);
    let (n1, x1, y1) = blue_pixels(&later);
    let differ = start
        .pixels()
        .zip(hidden.pixels())
        .filter(|(a, b)| a != b)
        .count();
    eprintln!(
        "blue pixels of the ball: {n0} at t = 0 (mean at {x0:.0}, {y0:.0}), {nh} with the bodies \
         hidden, {n1} at t = 0.4 (mean at {x1:.0}, {y1:.0}); {differ} pixels differ from the \
         picture without bodies"
    );
    // A ball of radius 0.1 m in a picture framing its 1.1 m fall covers about two thousand
    // pixels; the sky, the floors and the other bodies none.
    assert!(n0 > 150, "the ball's colour is missing: {n0} pixels");
    assert!(
        nh < 10,
        "the ball's colour shows with the bodies hidden: {nh} pixels"
    );
    assert!(differ > 2 * n0, "the bodies change only {differ} pixels");
    assert!(
        n1 > 150,
        "the ball's colour is missing at t = 0.4: {n1} pixels"
    );
    // It fell 0.78 m: far down the picture, hardly sideways.
    assert!(
        y1 > y0 + 80.0,
        "the ball did not move down: {y0:.0} -> {y1:.0}"
    );
    assert!(
        (x1 - x0).abs() < 40.0,
        "the ball moved sideways: {x0:.0} -> {x1:.0}"
    );
}

/// The text between `<script type="application/json" id="tumble-data">` and `</script>`.
fn data_of(html: &str) -> serde_json::Value {
    let open = "<script type=\"application/json\" id=\"tumble-data\">";
    let start = html.find(open).expect("no data element") + open.len();
    let end = start + html[start..].find("</script>").unwrap();
    serde_json::from_str(&html[start..end]).unwrap()
}

/// Standard base64 decoding (written here, independent of the encoder under test).
fn unbase64(s: &str) -> Vec<u8> {
    let value = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a') as u32 + 26,
            b'0'..=b'9' => (c - b'0') as u32 + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let bytes = s.as_bytes();
    assert_eq!(bytes.len() % 4, 0);
    let mut out = Vec::new();
    for chunk in bytes.chunks(4) {
        let pad = chunk.iter().filter(|&&c| c == b'=').count();
        let n = chunk[..4 - pad]
            .iter()
            .enumerate()
            .fold(0u32, |n, (k, &c)| n | value(c) << (18 - 6 * k));
        out.extend_from_slice(&n.to_be_bytes()[1..4 - pad]);
    }
    out
}

fn floats(s: &str) -> Vec<f32> {
    unbase64(s)
        .chunks(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect()
}

#[test]
fn the_embedded_poses_are_frames_csv() {
    let run = run_dir("data");
    let csv = std::fs::read_to_string(run.join("frames.csv")).unwrap();
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    let csv_times: Vec<f64> =
        rows.iter()
            .map(|r| r[0].parse::<f64>().unwrap())
            .fold(Vec::new(), |mut v, t| {
                if v.last() != Some(&t) {
                    v.push(t);
                }
                v
            });
    assert_eq!(csv_times.len(), 21);
    for (every, kept) in [
        (1, (0..21).collect::<Vec<usize>>()),
        // Every 3rd, and the last so that the slider reaches the end.
        (3, vec![0, 3, 6, 9, 12, 15, 18, 20]),
    ] {
        let file = run.join(format!("every-{every}.html"));
        view(
            &run,
            &[
                "--every",
                &every.to_string(),
                "--out",
                file.to_str().unwrap(),
            ],
        );
        let data = data_of(&std::fs::read_to_string(&file).unwrap());
        let times: Vec<f64> = serde_json::from_value(data["times"].clone()).unwrap();
        let want: Vec<f64> = kept.iter().map(|&k| csv_times[k]).collect();
        assert_eq!(times, want, "--every {every}");
        let bodies = data["bodies"].as_array().unwrap();
        let slots = data["slots"].as_u64().unwrap() as usize;
        assert_eq!(slots, 3, "the three moving bodies");
        let poses = floats(data["poses"].as_str().unwrap());
        assert_eq!(poses.len(), times.len() * slots * 7);
        let mut compared = 0;
        for body in bodies.iter().filter(|b| !b["fixed"].as_bool().unwrap()) {
            let name = body["name"].as_str().unwrap();
            let slot = body["slot"].as_u64().unwrap() as usize;
            for (k, &t) in times.iter().enumerate() {
                let row = rows
                    .iter()
                    .find(|r| r[1] == name && r[0].parse::<f64>().unwrap() == t)
                    .unwrap();
                let csv: Vec<f64> = row[2..9].iter().map(|c| c.parse().unwrap()).collect();
                // frames.csv: x y z qw qx qy qz; the page: x y z qx qy qz qw.
                let want = [csv[0], csv[1], csv[2], csv[4], csv[5], csv[6], csv[3]];
                let got = &poses[(k * slots + slot) * 7..][..7];
                for (g, w) in got.iter().zip(want) {
                    assert!(
                        (*g as f64 - w).abs() <= 1e-6 * w.abs().max(1.0),
                        "{name} at t = {t}: {got:?} vs {want:?}"
                    );
                }
                compared += 1;
            }
        }
        assert_eq!(compared, 3 * times.len());
        // The fixed floor keeps its scene pose; the balls share one mesh, the cube has its own.
        let floor = &bodies[0];
        assert_eq!(floor["fixed"], true);
        assert_eq!(floor["position"], serde_json::json!([0.0, 0.0, -0.1]));
        let q: Vec<f64> = serde_json::from_value(floor["orientation"].clone()).unwrap();
        assert!(
            (q[3] - 0.9990482215818578).abs() < 1e-12 && (q[2] - 0.043619387365336).abs() < 1e-12
        );
        let mesh = |i: usize| bodies[i]["mesh"].as_u64().unwrap();
        assert_eq!(mesh(1), mesh(2));
        assert_ne!(mesh(1), mesh(3));
        assert_eq!(data["meshes"].as_array().unwrap().len(), 3);
        // The renderer's colours: the balls and the cube in palette order, the floor grey.
        for (i, motion, k) in [
            (1, Motion::Dynamic, 0),
            (3, Motion::Dynamic, 2),
            (0, Motion::Fixed, 0),
        ] {
            let [r, g, b] = body_colour(motion, k);
            assert_eq!(bodies[i]["colour"], format!("#{r:02x}{g:02x}{b:02x}"));
        }
        // A sphere's mesh: unit normals, vertices on the sphere.
        let sphere = &data["meshes"][mesh(1) as usize];
        let (p, n) = (
            floats(sphere["positions"].as_str().unwrap()),
            floats(sphere["normals"].as_str().unwrap()),
        );
        assert_eq!(p.len(), n.len());
        for v in p.chunks(3) {
            let r = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            assert!((r - 0.1).abs() < 1e-5, "{r}");
        }
        eprintln!(
            "--every {every}: {} frames, {} poses compared with frames.csv",
            times.len(),
            compared
        );
    }
}

#[test]
fn the_page_needs_no_network() {
    let run = run_dir("offline");
    view(&run, &[]);
    let html = std::fs::read_to_string(run.join("view.html")).unwrap();
    // No URL of any scheme that leaves the file: three.js travels as base64 data: URLs.
    for scheme in ["http://", "https://", "ftp://", "//cdn", "url("] {
        assert!(!html.contains(scheme), "the page names {scheme}");
    }
    let lower = html.to_ascii_lowercase();
    let mut attributes = 0;
    for attr in [" src=", " href=", " srcset="] {
        for (i, _) in lower.match_indices(attr) {
            attributes += 1;
            let value = lower[i + attr.len()..].trim_start_matches(['"', '\'']);
            assert!(
                value.starts_with("data:"),
                "{attr} {}",
                &value[..40.min(value.len())]
            );
        }
    }
    // Every import resolves to a data: URL.
    let open = "<script type=\"importmap\">";
    let start = html.find(open).unwrap() + open.len();
    let end = start + html[start..].find("</script>").unwrap();
    let map: serde_json::Value = serde_json::from_str(&html[start..end]).unwrap();
    let imports = map["imports"].as_object().unwrap();
    assert!(imports.contains_key("three"));
    for (name, url) in imports {
        assert!(
            url.as_str()
                .unwrap()
                .starts_with("data:text/javascript;base64,"),
            "{name}"
        );
    }
    eprintln!(
        "{} bytes, {} src/href attributes, {} imports, all data: URLs",
        html.len(),
        attributes,
        imports.len()
    );
}

#[test]
fn bad_runs_and_outputs_are_refused_with_their_exit_codes() {
    // A directory that is no run: exit 2, naming the file.
    let dir = std::env::temp_dir().join(format!("tumble-view-none-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = tumble().arg("view").arg(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("summary.json") && !err.contains("panicked"),
        "{err}"
    );

    // A malformed frames.csv: exit 2, naming its file and line.
    let run = run_dir("bad");
    let csv = std::fs::read_to_string(run.join("frames.csv")).unwrap();
    let mut lines: Vec<&str> = csv.lines().collect();
    lines[2] = "0,ghost,0,0,1,1,0,0,0";
    std::fs::write(run.join("frames.csv"), lines.join("\n")).unwrap();
    let out = tumble().arg("view").arg(&run).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("frames.csv:3") && err.contains("ghost"),
        "{err}"
    );
    std::fs::write(run.join("frames.csv"), csv).unwrap();

    // An output that cannot be written (under a file): exit 1, naming it.
    let blocked = run.join("frames.csv").join("view.html");
    let out = tumble()
        .arg("view")
        .arg(&run)
        .arg("--out")
        .arg(&blocked)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("frames.csv") && !err.contains("panicked"),
        "{err}"
    );

    // --every 0 is a usage error.
    let out = tumble()
        .args(["view", run.to_str().unwrap(), "--every", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
