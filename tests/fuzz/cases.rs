//! Regression cases, each with the outcome it must have, quickly: the reliability cases of the
//! campaign behind issue 46 (`tests/fuzz/cases/`, README there: each used to panic, hang or pass
//! silently), the bounds and guards built for them, and the mutants the fuzzing found since.

use super::outcome::{is_located, run_briefly, tumble, Ended, COMMAND_BUDGET};
use super::scratch;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What a case must come to, within [`QUICK`] per command.
const QUICK: Duration = Duration::from_secs(10);

fn case(file: &str) -> PathBuf {
    Path::new("tests/fuzz/cases").join(file)
}

fn check(scene: &Path, dir: &Path) -> Ended {
    tumble(&["check", scene.to_str().unwrap()], dir, COMMAND_BUDGET)
}

fn run(scene: &Path, dir: &Path) -> Ended {
    run_briefly(scene, dir, COMMAND_BUDGET)
}

/// `check` and `run` both refuse `scene` quickly (exit 2), naming it with a line and saying
/// every one of `words`; the message is returned.
fn refused(scene: &Path, words: &[&str]) -> String {
    let dir = scratch(&format!(
        "refused-{}",
        scene.file_stem().unwrap().to_string_lossy()
    ));
    for ended in [check(scene, &dir), run(scene, &dir)] {
        assert_eq!(ended.code, Some(2), "{}: {}", scene.display(), ended.stderr);
        assert!(ended.wall < QUICK, "{}: {:?}", scene.display(), ended.wall);
        assert!(
            is_located(&ended.stderr, scene),
            "not located: {}",
            ended.stderr
        );
        for w in words {
            assert!(
                ended.stderr.contains(w),
                "expected {w:?} in {}",
                ended.stderr
            );
        }
    }
    check(scene, &dir).stderr
}

/// Refused as [`refused`] says, at `line` (and `col` if given) of the file.
fn refused_at(file: &str, line: usize, col: Option<usize>, words: &[&str]) {
    let scene = case(file);
    let message = refused(&scene, words);
    let at = match col {
        Some(col) => format!("error: {}:{line}:{col}: ", scene.display()),
        None => format!("error: {}:{line}: ", scene.display()),
    };
    assert!(message.starts_with(&at), "expected {at:?}: {message}");
}

/// `check` passes and the run of 0.05 s ends normally, quickly, with finite frames; the frames.
fn runs(scene: &Path) -> String {
    let dir = scratch(&format!(
        "runs-{}",
        scene.file_stem().unwrap().to_string_lossy()
    ));
    let checked = check(scene, &dir);
    assert_eq!(checked.code, Some(0), "{}", checked.stderr);
    let ran = run(scene, &dir);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(ran.wall < QUICK, "{:?}", ran.wall);
    let frames = std::fs::read_to_string(dir.join("out/frames.csv")).unwrap();
    assert!(
        !frames.contains("inf") && !frames.contains("NaN"),
        "{frames}"
    );
    frames
}

#[test]
fn p1_a_cylinder_of_1e300_m_is_refused_before_the_geometry_panics() {
    refused_at(
        "P1-epa-panic-huge-cylinder.toml",
        8,
        Some(39),
        &[
            "bodies[0]: shape.radius = 1e300 makes a body of bounding radius 1e300 m",
            "more than the 21222 m (2.1e7 times [world] collision_epsilon = 0.001 m)",
        ],
    );
}

#[test]
fn p1b_a_capsule_of_1e300_m_likewise() {
    refused_at(
        "P1b-epa-panic-huge-capsule.toml",
        4,
        Some(38),
        &["bodies[0]: shape.radius = 1e300", "bounding radius 1e300 m"],
    );
}

#[test]
fn h1_a_cylinder_of_1e50_m_is_refused_not_run_for_ever() {
    refused_at(
        "H1-huge-cylinder-check-passes-run-hangs.toml",
        4,
        Some(39),
        &[
            "shape.radius = 1e50",
            "bounding radius 1e50 m",
            "coarser than the contact band",
        ],
    );
}

#[test]
fn h2_a_denormal_contact_step_is_shorter_than_the_clock_resolves() {
    refused_at(
        "H2-contact-step-denormal.toml",
        4,
        Some(16),
        &["contact_step = 5e-324 s", "shorter than the clock resolves"],
    );
}

#[test]
fn h3_a_spin_of_1e9_rad_per_s_is_refused() {
    refused_at(
        "H3-fast-spin.toml",
        4,
        None,
        &["spins at 1.414e9 rad/s", "rad per frame"],
    );
}

#[test]
fn h3b_an_impact_at_1e10_m_per_s_is_refused() {
    refused_at(
        "H3b-impact-1e10-then-spin.toml",
        8,
        None,
        &[
            "body \"part\"",
            "moves at 1e10 m/s",
            "half the contact band",
        ],
    );
}

#[test]
fn h4_a_mass_ratio_of_1e11_is_refused() {
    refused_at(
        "H4-light-ball-between-heavy.toml",
        11,
        None,
        &["body \"light\"", "weighs 1e-12 kg", "\"b\""],
    );
}

#[test]
fn h5_a_collision_epsilon_of_1e6_m_is_refused_against_the_bodies() {
    refused_at(
        "H5-huge-collision-epsilon.toml",
        7,
        Some(40),
        &[
            "lattices[0]: shape.half_extents = [0.25, 0.25, 0.25]",
            "smaller than [world] collision_epsilon = 1e6 m",
        ],
    );
}

#[test]
fn h6_a_box_4e9_m_long_is_refused() {
    refused_at(
        "H6-long-box-on-tilted-board.toml",
        9,
        Some(40),
        &[
            "bodies[1]: shape.half_extents = [0.02, 4294967296, 0.02]",
            "bounding radius 4.295e9 m",
        ],
    );
}

#[test]
fn h7_a_compound_part_4e9_m_out_is_refused() {
    refused_at(
        "H7-far-compound-part-spinning-over-plane.toml",
        8,
        Some(85),
        &[
            "bodies[1]: shape.parts[0].position = [0.0, 0.0, 4294967296]",
            "bounding radius 2.147e9 m",
        ],
    );
}

#[test]
fn h8_a_denormal_collision_epsilon_is_refused_where_it_is_written() {
    refused_at(
        "H8-tiny-collision-epsilon.toml",
        5,
        Some(21),
        &["collision_epsilon = 5e-324 m"],
    );
}

#[test]
fn s1_a_slab_of_1e300_m_is_refused_not_missed() {
    refused_at(
        "S1-huge-box-overlap-missed.toml",
        4,
        Some(40),
        &[
            "bodies[0]: shape.half_extents = [1e300, 1e300, 0.005]",
            "bounding radius 1.414e300 m",
        ],
    );
}

#[test]
fn s2_a_body_at_1e155_m_per_s_is_refused_not_tunnelled() {
    refused_at(
        "S2-tunnel-at-1e155.toml",
        7,
        None,
        &["body \"part\"", "moves at 1e155 m/s", "between two ticks"],
    );
}

#[test]
fn s3_keys_that_place_a_body_1e300_m_out_are_refused() {
    refused_at(
        "S3-keyframe-inf-velocity-exit0.toml",
        2,
        None,
        &["body \"w\"", "reaches 1e300 m"],
    );
}

#[test]
fn s3b_keys_5e_324_s_apart_are_refused() {
    refused_at(
        "S3b-keyframes-5e-324-apart.toml",
        3,
        None,
        &["body \"w\"", "path keys 5e-324 s apart"],
    );
}

#[test]
fn stack20_without_sleep_runs_and_holds_for_its_first_frames() {
    // Its collapse at 1.1 s (README in cases/) is the contact solver's, not a reliability
    // failure; here the run must end normally with the column standing.
    let frames = runs(&case("stack20-nosleep-collapses.toml"));
    for row in frames.lines().skip(1) {
        let cols: Vec<&str> = row.split(',').collect();
        let (x, y): (f64, f64) = (cols[2].parse().unwrap(), cols[3].parse().unwrap());
        assert!(x.abs() < 1e-3 && y.abs() < 1e-3, "{row}");
    }
}

#[test]
fn b1_the_trial_drawn_at_7e153_m_per_s_fails_with_its_reason_and_the_batch_ends() {
    let scene = case("B1-batch-hangs-on-one-trial.toml");
    runs(&scene);
    let dir = scratch("b1");
    let out = dir.join("out");
    let args = [
        "batch",
        scene.to_str().unwrap(),
        "--shard",
        "10/20",
        "--out",
        out.to_str().unwrap(),
    ];
    let ended = tumble(&args, &dir, COMMAND_BUDGET);
    assert!(ended.wall < QUICK, "{:?}", ended.wall);
    assert!(
        ended.stderr.contains("trial 9") && ended.stderr.contains("moves at 7.217e153 m/s"),
        "{}",
        ended.stderr
    );
    let summary = std::fs::read_to_string(out.join("summary.json")).unwrap();
    assert!(summary.contains("moves at 7.217e153 m/s"), "{summary}");
}

#[test]
fn g1_a_kinematic_crush_stops_at_the_stall_guard_with_its_frames_so_far() {
    let scene = case("G1-kinematic-crush-stall.toml");
    let dir = scratch("g1");
    assert_eq!(check(&scene, &dir).code, Some(0));
    let out = dir.join("out");
    let args = [
        "run",
        scene.to_str().unwrap(),
        "--backend",
        "cpu",
        "--out",
        out.to_str().unwrap(),
    ];
    let ended = tumble(&args, &dir, COMMAND_BUDGET);
    assert_eq!(ended.code, Some(1), "{}", ended.stderr);
    // 100 000 events of a crush at a fraction of a millisecond each: about 12 s on two idle
    // cores; the command's budget is the bound.
    println!("the crush stopped after {:?}", ended.wall);
    for w in [
        "\"cube\"",
        "jammed at t = 0.05 s",
        "100001 events",
        "kinematic body presses",
    ] {
        assert!(
            ended.stderr.contains(w),
            "expected {w:?} in {}",
            ended.stderr
        );
    }
    let frames = std::fs::read_to_string(out.join("frames.csv")).unwrap();
    assert!(
        frames.lines().any(|l| l.starts_with("0.04,cube,")),
        "{frames}"
    );
    let summary = std::fs::read_to_string(out.join("summary.json")).unwrap();
    assert!(summary.contains("jammed at t = 0.05 s"), "{summary}");
}

/// A scene of one dynamic body whose shape is `shape`.
fn one_body(dir: &Path, shape: &str) -> PathBuf {
    let scene = dir.join("scene.toml");
    let text = format!("[[bodies]]\nname = \"part\"\nmass = 1.0\nshape = {shape}\n");
    std::fs::write(&scene, text).unwrap();
    scene
}

#[test]
fn mesh_paths_to_a_device_a_fifo_a_folder_or_a_huge_file_are_refused_at_once() {
    let dir = scratch("mesh-paths");
    let files = super::mutate::SpecialFiles::make(&dir.join("files"));
    let mut targets = vec![
        (files.zero.clone(), "not a regular file"),
        (files.folder.clone(), "is a directory"),
        (files.huge.clone(), "more than the 268435456 bytes"),
    ];
    if let Some(fifo) = &files.fifo {
        targets.push((fifo.clone(), "not a regular file"));
    }
    for (target, words) in targets {
        let shape = format!("{{ type = \"mesh\", file = \"{}\" }}", target.display());
        let scene = one_body(&dir, &shape);
        let message = refused(&scene, &[words, "shape.file"]);
        assert!(message.starts_with(&format!("error: {}:4:", scene.display())));
    }
}

#[test]
fn a_value_of_100_000_characters_is_quoted_short() {
    let dir = scratch("long-value");
    let scene = one_body(&dir, &format!("{{ type = \"{}\" }}", "x".repeat(100_000)));
    let message = refused(&scene, &["(100000 characters)", "shape.type"]);
    assert!(
        message.len() < 600,
        "{} characters: {message}",
        message.len()
    );
}

#[test]
fn overlapping_bodies_are_named_with_their_lines() {
    let dir = scratch("overlap");
    let scene = dir.join("scene.toml");
    let body = |name: &str, z: f64| {
        format!(
            "[[bodies]]\nname = \"{name}\"\nmass = 1.0\nposition = [0, 0, {z}]\n\
             shape = {{ type = \"box\", half_extents = [0.1, 0.1, 0.1] }}\n"
        )
    };
    std::fs::write(&scene, format!("{}{}", body("a", 0.0), body("b", 0.15))).unwrap();
    let file = scene.display();
    refused(
        &scene,
        &[&format!(
            "\"a\" ({file}:1) and \"b\" ({file}:6) overlap by 5.000e-2 m"
        )],
    );
}

#[test]
fn the_body_limit_counts_the_whole_scene_before_generating_any() {
    // Two lattices of 70 % of the limit each: either alone would do, together they may not.
    let each = tumble::scene::limits::MAX_BODIES * 7 / 10;
    let side = (each as f64).sqrt() as u64;
    let dir = scratch("body-limit");
    let scene = dir.join("scene.toml");
    let lattice = |name: &str, z: f64| {
        format!(
            "[[lattices]]\nname = \"{name}\"\nmass = 1.0\ncount = [{side}, {side}, 1]\n\
             spacing = [0.3, 0.3, 0.3]\ncenter = [0, 0, {z}]\n\
             shape = {{ type = \"box\", half_extents = [0.1, 0.1, 0.1] }}\n"
        )
    };
    std::fs::write(
        &scene,
        format!("{}{}", lattice("a", 0.0), lattice("b", 1.0)),
    )
    .unwrap();
    let message = refused(&scene, &["lattices[0] \"a\"", "count = ["]);
    println!("{message}");
    assert!(message.contains(&format!(
        "generates {} bodies, which, with the {} bodies of the scene's other entries, is more \
         than the 10000000 a scene may have",
        side * side,
        side * side
    )));
}

#[test]
fn m1_a_funnel_with_collision_epsilon_1e9_is_refused_not_run_for_ever() {
    refused_at(
        "M1-funnel-4000-epsilon-1e9.toml",
        80,
        Some(40),
        &[
            "lattices[0] \"cube\": shape.half_extents = [0.5, 0.5, 0.5]",
            "smaller than [world] collision_epsilon = 1e9 m",
        ],
    );
}

#[test]
fn m2_gravity_of_1e20_is_refused_where_it_is_written() {
    refused_at(
        "M2-dice-drop-gravity-1e20.toml",
        10,
        Some(11),
        &["gravity gives a falling body 2e18 m/s in one frame"],
    );
}

#[test]
fn m3_a_domino_spun_at_1e20_rad_per_s_is_refused() {
    refused_at(
        "M3-dominos-spin-1e20.toml",
        35,
        None,
        &["body \"domino_0\"", "spins at 1e20 rad/s"],
    );
}

#[test]
fn m4_a_drum_part_2e9_m_long_is_refused() {
    refused_at(
        "M4-drum-part-2e9.toml",
        44,
        Some(44),
        &[
            "bodies[0] \"drum\": shape.parts[7].shape.half_extents = [0x7fffffff, 0.07, 0.005]",
            "bounding radius 2.147e9 m",
        ],
    );
}

#[test]
fn m5_an_overlap_names_both_bodies_with_their_lines() {
    let file = case("M5-incline-overlap-lines.toml").display().to_string();
    refused_at(
        "M5-incline-overlap-lines.toml",
        120,
        None,
        &[&format!(
            "\"slope_e\" ({file}:120) and \"block_e\" ({file}:128) overlap by 2.478e-2 m"
        )],
    );
}

#[test]
fn m6_a_body_whose_given_inertia_is_far_below_its_reach_is_refused() {
    refused_at(
        "M6-rattleback-spike-inertia.toml",
        41,
        None,
        &[
            "body \"rattleback\"",
            "moment of inertia of 9.903e-6 kg m²",
            "1/1e4",
        ],
    );
}

#[test]
fn m7_a_lattice_name_of_100_000_characters_is_refused_at_once() {
    // Fuzz seed 2019456 on funnel-10k (a string mutant): 10 000 bodies named with 100 000
    // characters each ran 23 s for 0.05 s, writing a gigabyte of names per frame.
    let text = std::fs::read_to_string("scenes/funnel-10k.toml").unwrap();
    let long = format!("name = \"{}\"", "x".repeat(100_000));
    let dir = scratch("long-name");
    let scene = dir.join("scene.toml");
    std::fs::write(&scene, text.replacen("name = \"cube\"", &long, 1)).unwrap();
    let message = refused(
        &scene,
        &["lattices[0]", "name must have at most 256 characters"],
    );
    assert!(message.len() < 400, "{message}");
}

#[test]
fn m8_a_link_sunk_into_its_chain_stops_at_the_stall_guards_millisecond() {
    let scene = case("M8-chain-long-link-crawls.toml");
    let dir = scratch("m8");
    assert_eq!(check(&scene, &dir).code, Some(0));
    let ended = run(&scene, &dir);
    assert_eq!(ended.code, Some(1), "{}", ended.stderr);
    // Each of its 200 000 events is a deep EPA query: about 25 s on two idle cores, where it
    // crawled on for minutes before; the command's budget is the bound.
    println!("the crawl stopped after {:?}", ended.wall);
    for w in ["\"link_2\"", "200001 events within 1e-3 s", "crawling"] {
        assert!(
            ended.stderr.contains(w),
            "expected {w:?} in {}",
            ended.stderr
        );
    }
    let summary = std::fs::read_to_string(dir.join("out/summary.json")).unwrap();
    assert!(summary.contains("jammed"), "{summary}");
}

#[test]
fn m9_a_friction_of_1e300_is_refused_where_it_is_written() {
    refused_at(
        "M9-feeder-friction-1e300.toml",
        32,
        Some(12),
        &[
            "materials.default",
            "friction must be at most 100 (got 1e300)",
        ],
    );
}

#[test]
fn m10_a_frame_period_of_1e_6_s_on_4005_bodies_is_refused() {
    refused_at(
        "M10-funnel-4000-frame-1e-6.toml",
        9,
        Some(16),
        &["frame_period = 1e-6 s", "2.403e10 body-frames"],
    );
}

#[test]
fn m11_ten_thousand_overlapping_cubes_are_refused_without_measuring_every_pair() {
    let scene = case("M11-funnel-10k-overlapping-cubes.toml");
    let dir = scratch("m11");
    let ended = check(&scene, &dir);
    assert_eq!(ended.code, Some(2), "{}", ended.stderr);
    // The check lists and measures one body's pairs at a time and stops at the eleventh
    // overlap: not the 5e7 candidate pairs listed first (5 GB), nor 70 s of queries.
    assert!(ended.wall < QUICK, "{:?}", ended.wall);
    assert!(is_located(&ended.stderr, &scene), "{}", ended.stderr);
    assert!(
        ended
            .stderr
            .contains("more than 10 pairs of bodies overlap at t = 0"),
        "{}",
        ended.stderr
    );
}
