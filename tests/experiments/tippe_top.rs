//! The tippe top: Bender & Schmitt's experiment (2006 §4, figure 5). Spun fast on a table with
//! friction, a ball whose centre of mass lies below its centre turns over, touches the table
//! with its stem, lifts its ball off and spins on the stem; with a smaller friction coefficient
//! it spins longer on its ball before it turns over. The paper gives no times or parameters, so
//! the bundled body (`scenes/experiments/tippe-top.toml`, friction 0.3; run again at 0.1) is
//! checked against an independent integration of the same body with compliant contacts
//! ([`tippe_top_reference`](super::tippe_top_reference)).

use crate::common::run;
use crate::figure::{self, Chart, Legend, Series};
use crate::tippe_top_reference::{Run, Top};
use glam::DVec3;
use std::path::PathBuf;
use tumble::scene::{load, parse, Scene};
use tumble::world::World;

/// Radius of the ball (m).
const RADIUS: f64 = 0.02;
/// The lower friction coefficient the scene is run at besides its own.
const LOW_FRICTION: f64 = 0.1;
/// The scene's start: tilted by 0.2 rad about x.
const TILT: f64 = 0.2;
/// The last stretch of a run whose state is compared (s).
const SETTLED: f64 = 0.5;

/// A top: its scene, its spin at the start (rad/s about the vertical), and its stem's end in
/// the shape frame: the centre of the rounding ball and that ball's radius (m).
struct Body {
    scene: Scene,
    spin: f64,
    stem_end: f64,
    stem_radius: f64,
}

fn bundled() -> Body {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/experiments/tippe-top.toml");
    Body {
        scene: load(&path).unwrap(),
        spin: 250.0,
        stem_end: 0.025,
        stem_radius: 0.004,
    }
}

/// A top with a long stem (its end 17 mm past the ball) whose ball and stem meet the table
/// together at 120°: turned over at friction 0.1 it leans on both and keeps spinning, in the
/// reference as in the engine.
fn leaning() -> Body {
    let bundled = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/experiments/tippe-top.toml"),
    )
    .unwrap();
    let start = bundled.find("shape = { type = \"compound\"").unwrap();
    let end = start + bundled[start..].find("] }").unwrap() + 3;
    let parts = r#"shape = { type = "compound", parts = [
  { shape = { type = "sphere", radius = 0.02 }, density = 500.0 },
  { shape = { type = "sphere", radius = 0.008 }, position = [0.0, 0.0, -0.005], density = 7800.0 },
  { shape = { type = "cylinder", radius = 0.003, half_height = 0.008 }, position = [0.0, 0.0, 0.026], mass = 4e-5 },
  { shape = { type = "sphere", radius = 0.003 }, position = [0.0, 0.0, 0.034], mass = 1e-5 },
] }"#;
    let text = format!("{}{parts}{}", &bundled[..start], &bundled[end..])
        .replace("duration = 5.0", "duration = 3.0")
        .replace("[0.0, 0.0, 250.0]", "[0.0, 0.0, 150.0]");
    Body {
        scene: parse(&text, std::path::Path::new("leaning-top.toml")).unwrap(),
        spin: 150.0,
        stem_end: 0.034,
        stem_radius: 0.003,
    }
}

/// One run of the engine: the axis's tilt from the vertical (rad) and the ball's gap to the
/// table (m) at every frame, when the axis first passed horizontal (interpolated between
/// frames), when the stem's end first came within ε_c of the table, and the spin about the
/// vertical at every frame.
struct Flip {
    frames: Vec<(f64, f64, f64)>,
    spins: Vec<f64>,
    over: Option<f64>,
    touch: Option<f64>,
}

fn spin_at(top: &Body, friction: f64, tilt: f64) -> Flip {
    let mut scene = top.scene.clone();
    scene.materials.get_mut("default").unwrap().friction = friction;
    let i = scene.bodies.iter().position(|b| b.name == "top").unwrap();
    scene.bodies[i].orientation = glam::DQuat::from_rotation_x(tilt);
    let eps = scene.world.config.collision_epsilon;
    let mut world = World::new(&scene).unwrap();
    let i = world.body_index("top").unwrap();
    let axis_tilt = |w: &World| {
        let z = (w.body_state(i).orientation * DVec3::Z).z;
        z.clamp(-1.0, 1.0).acos()
    };
    let mut flip = Flip {
        frames: vec![(
            0.0,
            axis_tilt(&world),
            world.body_state(i).position.z - RADIUS,
        )],
        spins: Vec::new(),
        over: None,
        touch: None,
    };
    run(&mut world, scene.world.duration, |w| {
        let (t, shape) = (w.time(), w.body_state(i));
        let now = axis_tilt(w);
        let (t0, before, _) = *flip.frames.last().unwrap();
        let half = std::f64::consts::FRAC_PI_2;
        if flip.over.is_none() && now > half {
            flip.over = Some(t0 + (t - t0) * (half - before) / (now - before));
        }
        // The shape's origin is the ball's centre.
        flip.frames.push((t, now, shape.position.z - RADIUS));
        let stem_end = shape.position + shape.orientation * DVec3::new(0.0, 0.0, top.stem_end);
        if flip.touch.is_none() && stem_end.z - top.stem_radius <= eps {
            flip.touch = Some(t);
        }
        flip.spins.push(shape.angular_velocity.z);
    });
    assert_eq!(world.max_penetration(), 0.0);
    flip
}

/// The reference body: the world's mass properties, and the ball and the stem's end as seen
/// from the centre of mass along the symmetry axis.
fn reference_top(top: &Body) -> Top {
    let world = World::new(&top.scene).unwrap();
    let body = world.body(world.body_index("top").unwrap());
    let below = body.com_in_shape.z;
    Top {
        mass: 1.0 / body.inv_mass,
        transverse: body.inertia.max_element(),
        axial: body.inertia.min_element(),
        spheres: vec![(-below, RADIUS), (top.stem_end - below, top.stem_radius)],
    }
}

/// What a run of either kind says: when the axis passed horizontal, when the stem's end first
/// came within `eps` of the table, when the ball left the table for good (more than `eps`
/// above it from then on), and over the last [`SETTLED`] seconds the least and mean tilt
/// (degrees), the least gap under the ball (m) and the mean spin about the vertical (rad/s).
#[derive(Debug)]
struct Summary {
    over: f64,
    touch: Option<f64>,
    lift: Option<f64>,
    least_tilt: f64,
    mean_tilt: f64,
    least_gap: f64,
    spin: f64,
}

/// `frames`: (time, tilt, ball's gap, stem end's gap, spin about the vertical).
fn summarize(over: f64, frames: &[(f64, f64, f64, f64, f64)], eps: f64) -> Summary {
    let end = frames.last().unwrap().0;
    let last: Vec<_> = frames.iter().filter(|f| f.0 >= end - SETTLED).collect();
    let lift = frames
        .iter()
        .rposition(|f| f.2 <= eps)
        .and_then(|k| frames.get(k + 1))
        .map(|f| f.0);
    Summary {
        over,
        touch: frames.iter().find(|f| f.3 <= eps).map(|f| f.0),
        lift,
        least_tilt: last
            .iter()
            .map(|f| f.1)
            .fold(f64::INFINITY, f64::min)
            .to_degrees(),
        mean_tilt: (last.iter().map(|f| f.1).sum::<f64>() / last.len() as f64).to_degrees(),
        least_gap: last.iter().map(|f| f.2).fold(f64::INFINITY, f64::min),
        spin: last.iter().map(|f| f.4).sum::<f64>() / last.len() as f64,
    }
}

fn engine_summary(top: &Body, flip: &Flip, eps: f64) -> Summary {
    let frames: Vec<_> = flip
        .frames
        .iter()
        .skip(1)
        .zip(&flip.spins)
        .map(|(&(t, tilt, gap), &spin)| {
            let stem = gap + RADIUS + top.stem_end * tilt.cos() - top.stem_radius;
            (t, tilt, gap, stem, spin)
        })
        .collect();
    summarize(flip.over.expect("the top turns over"), &frames, eps)
}

fn reference_summary(top: &Body, reference: &Top, run: &Run, eps: f64) -> Summary {
    let (ball, stem) = (reference.spheres[0], reference.spheres[1]);
    let frames: Vec<_> = run
        .samples
        .iter()
        .zip(&run.spins)
        .map(|(&(t, tilt, com), &spin)| {
            let gap = com + ball.0 * tilt.cos() - ball.1;
            (
                t,
                tilt,
                gap,
                com + stem.0 * tilt.cos() - top.stem_radius,
                spin,
            )
        })
        .collect();
    summarize(run.over.expect("the reference turns over"), &frames, eps)
}

fn degrees(points: impl Iterator<Item = (f64, f64)>) -> Vec<(f64, f64)> {
    points.map(|(t, a)| (t, a.to_degrees())).collect()
}

#[test]
fn tippe_top_turns_over_and_rises_onto_its_stem_as_the_reference_integration_does() {
    let top = bundled();
    let high_friction = top.scene.materials["default"].friction;
    let world = World::new(&top.scene).unwrap();
    let body = world.body(world.body_index("top").unwrap());
    // The inversion condition on the moments about the centre of mass (axial I₃, transverse I₁)
    // and the offset α of the centre of mass below the ball's centre, in radii.
    let (i1, i3) = (body.inertia.max_element(), body.inertia.min_element());
    let alpha = body.com_in_shape.z.abs() / RADIUS;
    println!(
        "tippe top: mass {:.5} kg, centre of mass {:.3} mm below the centre (α = {alpha:.3}), \
         I₃/I₁ = {:.4}, inside (1 − α, 1 + α)",
        1.0 / body.inv_mass,
        1e3 * body.com_in_shape.z.abs(),
        i3 / i1
    );
    assert!(body.com_in_shape.z < 0.0);
    assert!((i3 / i1 - 1.0).abs() < alpha);
    let reference = reference_top(&top);
    let (duration, eps) = (
        top.scene.world.duration,
        top.scene.world.config.collision_epsilon,
    );

    let mut runs: Vec<(f64, Flip, Run, Summary, Summary)> = Vec::new();
    for mu in [high_friction, LOW_FRICTION] {
        let ours = spin_at(&top, mu, TILT);
        let theirs = reference.run(mu, TILT, top.spin, duration, 0.01);
        let (a, b) = (
            engine_summary(&top, &ours, eps),
            reference_summary(&top, &reference, &theirs, eps),
        );
        let pct = |x: f64, y: f64| 100.0 * (x / y - 1.0);
        println!(
            "tippe top at friction {mu}: axis past horizontal at {:.3} s, reference {:.3} s \
             ({:+.1} %); stem on the table at {:.3} s, reference {:.3} s; ball off the table \
             for good from {:.3} s, reference {:.3} s; over the last {SETTLED} s tilt \
             {:.1}° to {:.1}° (mean), reference {:.1}° to {:.1}°, gap under the ball at least \
             {:.2} mm, reference {:.2} mm, spin about the vertical {:.1} rad/s, reference {:.1} \
             ({:+.1} %)",
            a.over,
            b.over,
            pct(a.over, b.over),
            a.touch.unwrap_or(f64::NAN),
            b.touch.unwrap_or(f64::NAN),
            a.lift.unwrap_or(f64::NAN),
            b.lift.unwrap_or(f64::NAN),
            a.least_tilt,
            a.mean_tilt,
            b.least_tilt,
            b.mean_tilt,
            1e3 * a.least_gap,
            1e3 * b.least_gap,
            a.spin,
            b.spin,
            pct(a.spin, b.spin)
        );
        assert!(
            (a.over / b.over - 1.0).abs() < 0.06,
            "friction {mu}: {} s against {} s",
            a.over,
            b.over
        );
        // Both end up on the stem, the ball clear of the table, the axis near the vertical.
        for s in [&a, &b] {
            assert!(s.least_gap > 2e-3, "friction {mu}: {s:?}");
            assert!(s.least_tilt > 155.0, "friction {mu}: {s:?}");
        }
        let (ta, tb) = (a.touch.unwrap(), b.touch.unwrap());
        let (la, lb) = (a.lift.unwrap(), b.lift.unwrap());
        assert!(
            (ta / tb - 1.0).abs() < 0.08,
            "stem touches at {ta} s against {tb} s"
        );
        assert!(
            (la / lb - 1.0).abs() < 0.10,
            "ball lifts at {la} s against {lb} s"
        );
        assert!((a.mean_tilt - b.mean_tilt).abs() < 8.0);
        assert!((a.spin / b.spin - 1.0).abs() < 0.03);
        runs.push((mu, ours, theirs, a, b));
    }
    let (high, low) = (&runs[0], &runs[1]);
    // Less friction, later (the paper's observation), in both.
    assert!(low.3.over > high.3.over + 0.5 && low.4.over > high.4.over + 0.5);
    assert!(low.3.lift.unwrap() > high.3.lift.unwrap() + 0.5);

    figure::write(&Chart {
        name: "tippe-top",
        title: "Tippe top: tilt of the axis, engine and reference integration",
        x_label: "time (s)",
        y_label: "axis from the vertical (degrees)",
        series: vec![
            Series::line(
                format!("friction {}", high.0),
                degrees(high.1.frames.iter().map(|f| (f.0, f.1))),
            )
            .color(0),
            Series::dashed(
                "reference",
                degrees(high.2.samples.iter().map(|s| (s.0, s.1))),
            )
            .color(7),
            Series::line(
                format!("friction {}", low.0),
                degrees(low.1.frames.iter().map(|f| (f.0, f.1))),
            )
            .color(3),
            Series::dashed(
                "reference",
                degrees(low.2.samples.iter().map(|s| (s.0, s.1))),
            )
            .color(7),
        ],
        equal_aspect: false,
        legend: Legend::LowerRight,
    });
}

/// A top whose ball and long stem meet the table together at 120° leans on both at friction 0.1
/// once turned over, and keeps its spin as in the reference: two bearings 2 to 3 cm apart, a
/// friction patch each (as one patch, twisting friction across both took the spin from 72 to
/// 6.5 rad/s in 3 s).
#[test]
fn a_top_leaning_on_ball_and_stem_keeps_its_spin() {
    let top = leaning();
    let eps = top.scene.world.config.collision_epsilon;
    let ours = spin_at(&top, LOW_FRICTION, TILT);
    let reference = reference_top(&top);
    let theirs = reference.run(LOW_FRICTION, TILT, top.spin, top.scene.world.duration, 0.01);
    let (a, b) = (
        engine_summary(&top, &ours, eps),
        reference_summary(&top, &reference, &theirs, eps),
    );
    println!(
        "leaning top at friction {LOW_FRICTION}: stem on the table at {:.2} s (reference {:.2}); \
         after {} s tilt {:.1}° (reference {:.1}°), spin about the vertical {:.1} rad/s \
         (reference {:.1})",
        a.touch.unwrap_or(f64::NAN),
        b.touch.unwrap_or(f64::NAN),
        top.scene.world.duration,
        a.mean_tilt,
        b.mean_tilt,
        a.spin,
        b.spin
    );
    assert!(a.touch.is_some() && b.touch.is_some());
    // Leaning: the ball stays on the table, the axis at the angle where both touch.
    assert!(a.least_gap < eps && b.least_gap < eps);
    assert!((a.mean_tilt - b.mean_tilt).abs() < 3.0);
    assert!(
        (a.spin / b.spin - 1.0).abs() < 0.05,
        "{} against {}",
        a.spin,
        b.spin
    );
}

/// Spun nearly upright (0.05 rad) at friction 0.3, static friction holds the ball's contact
/// still: the top rolls and does not turn over, in the reference integration and the engine.
/// Asserts both tilt by less than 10° and the engine keeps its spin within 0.5 %. (A contact step that left out the slip a spinning body's own rotation makes over
/// the step dissipated it as sliding, and the long-stemmed top turned over within 0.6 s.)
fn rolls_without_turning_over(top: &Body) {
    let mu = top.scene.materials["default"].friction;
    let tilt = 0.05;
    let ours = spin_at(top, mu, tilt);
    let theirs = reference_top(top).run(mu, tilt, top.spin, top.scene.world.duration, 0.01);
    let most = |s: &mut dyn Iterator<Item = f64>| s.fold(0.0f64, f64::max).to_degrees();
    let (ours_most, theirs_most) = (
        most(&mut ours.frames.iter().map(|p| p.1)),
        most(&mut theirs.samples.iter().map(|p| p.1)),
    );
    let spin = *ours.spins.last().unwrap();
    println!(
        "top spun at {} rad/s tilted {tilt} rad: largest tilt {ours_most:.1}° (reference \
         {theirs_most:.1}°), spin at the end {spin:.2} rad/s (reference {:.2})",
        top.spin, theirs.final_spin.z
    );
    assert!(
        theirs_most < 10.0 && ours_most < 10.0,
        "{ours_most}° (reference {theirs_most}°)"
    );
    assert!((spin / top.spin - 1.0).abs() < 0.005);
}

#[test]
fn a_top_spun_nearly_upright_rolls_without_turning_over() {
    rolls_without_turning_over(&leaning());
}

#[test]
#[ignore = "defect: spun nearly upright at 250 rad/s, the bundled top's rolling contact creeps \
            into sliding and it turns over (past horizontal at 1.55 s; at 150 rad/s its tilt \
            grows 3° to 6.5° in 3 s, at 400 rad/s it turns over at once); the reference rolls \
            at 3° from μ = 0.25, the engine only from μ = 1. A shorter contact step makes it worse"]
fn the_bundled_tippe_top_spun_nearly_upright_rolls_without_turning_over() {
    rolls_without_turning_over(&bundled());
}
