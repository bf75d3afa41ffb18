//! The tippe top: Bender & Schmitt's experiment (2006 §4, figure 5). Spun fast on a table with
//! friction, a ball whose centre of mass lies below its centre turns over until its stem
//! touches the table; with a smaller friction coefficient it spins longer on its ball before it
//! turns over. The paper gives no times or parameters, so the bundled body
//! (`scenes/experiments/tippe-top.toml`, friction 0.3; run again at 0.1) is checked against an
//! independent integration of the same body with compliant contacts
//! ([`tippe_top_reference`](super::tippe_top_reference)).

use crate::common::run;
use crate::figure::{self, Chart, Legend, Series};
use crate::tippe_top_reference::{Run, Top};
use glam::DVec3;
use std::path::PathBuf;
use tumble::scene::{load, Scene};
use tumble::world::World;

/// Radius of the ball (m).
const RADIUS: f64 = 0.02;
/// The stem's end in the shape frame: the centre of its rounding ball (m) and that ball's
/// radius.
const STEM_END: f64 = 0.034;
const STEM_RADIUS: f64 = 0.003;
/// The lower friction coefficient the scene is run at besides its own.
const LOW_FRICTION: f64 = 0.1;
/// The scene's start: tilted by 0.2 rad about x, spun at 150 rad/s about the vertical.
const TILT: f64 = 0.2;
const SPIN: f64 = 150.0;

fn scene_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/experiments/tippe-top.toml")
}

/// One run of the engine: the axis's tilt from the vertical (rad) at every frame, when it first
/// passed horizontal (interpolated between frames), when the stem's end first came within ε_c
/// of the table, and the spin at the end.
struct Flip {
    tilt: Vec<(f64, f64)>,
    over: Option<f64>,
    touch: Option<f64>,
    spin: DVec3,
}

fn spin_at(scene: &Scene, friction: f64, tilt: f64) -> Flip {
    let mut scene = scene.clone();
    scene.materials.get_mut("default").unwrap().friction = friction;
    let i = scene.bodies.iter().position(|b| b.name == "top").unwrap();
    scene.bodies[i].orientation = glam::DQuat::from_rotation_x(tilt);
    let eps = scene.world.collision_epsilon;
    let mut world = World::new(&scene).unwrap();
    let i = world.body_index("top").unwrap();
    let axis_tilt = |w: &World| {
        let z = (w.body_state(i).orientation * DVec3::Z).z;
        z.clamp(-1.0, 1.0).acos()
    };
    let mut flip = Flip {
        tilt: vec![(0.0, axis_tilt(&world))],
        over: None,
        touch: None,
        spin: DVec3::ZERO,
    };
    run(&mut world, scene.world.duration, |w| {
        let (t, shape) = (w.time(), w.body_state(i));
        let now = axis_tilt(w);
        let (t0, before) = *flip.tilt.last().unwrap();
        let half = std::f64::consts::FRAC_PI_2;
        if flip.over.is_none() && now > half {
            flip.over = Some(t0 + (t - t0) * (half - before) / (now - before));
        }
        flip.tilt.push((t, now));
        let stem_end = shape.position + shape.orientation * DVec3::new(0.0, 0.0, STEM_END);
        if flip.touch.is_none() && stem_end.z - STEM_RADIUS <= eps {
            flip.touch = Some(t);
        }
        flip.spin = shape.angular_velocity;
    });
    assert_eq!(world.max_penetration(), 0.0);
    flip
}

/// The reference body: the world's mass properties, and the ball and the stem's end as seen
/// from the centre of mass along the symmetry axis.
fn reference_top(scene: &Scene) -> Top {
    let world = World::new(scene).unwrap();
    let top = world.body(world.body_index("top").unwrap());
    let below = top.com_in_shape.z;
    Top {
        mass: 1.0 / top.inv_mass,
        transverse: top.inertia.max_element(),
        axial: top.inertia.min_element(),
        spheres: vec![(-below, RADIUS), (STEM_END - below, STEM_RADIUS)],
    }
}

fn degrees(points: impl Iterator<Item = (f64, f64)>) -> Vec<(f64, f64)> {
    points.map(|(t, a)| (t, a.to_degrees())).collect()
}

#[test]
fn tippe_top_turns_over_as_the_reference_integration_does() {
    let scene = load(&scene_path()).unwrap();
    let high_friction = scene.materials["default"].friction;
    let world = World::new(&scene).unwrap();
    let top = world.body(world.body_index("top").unwrap());
    // The inversion condition on the moments about the centre of mass (axial I₃, transverse I₁)
    // and the offset α of the centre of mass below the ball's centre, in radii.
    let (i1, i3) = (top.inertia.max_element(), top.inertia.min_element());
    let alpha = top.com_in_shape.z.abs() / RADIUS;
    println!(
        "tippe top: mass {:.5} kg, centre of mass {:.3} mm below the centre (α = {alpha:.3}), \
         I₁/I₃ = {:.3}, inside (1 − α, 1 + α)",
        1.0 / top.inv_mass,
        1e3 * top.com_in_shape.z.abs(),
        i1 / i3
    );
    assert!(top.com_in_shape.z < 0.0);
    assert!((i1 / i3 - 1.0).abs() < alpha);
    let reference = reference_top(&scene);
    let duration = scene.world.duration;

    let mut runs: Vec<(f64, Flip, Run)> = Vec::new();
    for mu in [high_friction, LOW_FRICTION] {
        let ours = spin_at(&scene, mu, TILT);
        let theirs = reference.run(mu, TILT, SPIN, duration, 0.01);
        let (Some(over), Some(over_ref)) = (ours.over, theirs.over) else {
            panic!(
                "at friction {mu} the top did not turn over ({:?}, reference {:?})",
                ours.over, theirs.over
            );
        };
        let error = over / over_ref - 1.0;
        println!(
            "tippe top at friction {mu}: axis past horizontal at {over:.3} s, reference \
             {over_ref:.3} s (error {:+.1} %); stem on the table at {:.2} s; spin at the end \
             {:.1} rad/s about the vertical, reference {:.1}",
            100.0 * error,
            ours.touch.unwrap_or(f64::NAN),
            ours.spin.z,
            theirs.final_spin.z
        );
        assert!(
            error.abs() < 0.06,
            "friction {mu}: {over} s against {over_ref} s"
        );
        runs.push((mu, ours, theirs));
    }
    let (high, low) = (&runs[0], &runs[1]);
    // Less friction, later (the paper's observation), in both.
    assert!(low.1.over.unwrap() > high.1.over.unwrap() + 0.3);
    assert!(low.2.over.unwrap() > high.2.over.unwrap() + 0.3);
    // At the higher friction both end rolling on the ball, turned over (the stem clear of the
    // table) and keeping their spin; at the lower one both lean on ball and stem.
    let final_tilt = |r: &Run| r.samples.last().unwrap().1;
    let (ours, theirs) = (high.1.tilt.last().unwrap().1, final_tilt(&high.2));
    println!(
        "at friction {high_friction} after {duration} s: tilt {:.1}° (reference {:.1}°)",
        ours.to_degrees(),
        theirs.to_degrees()
    );
    assert!((ours - theirs).abs() < 3f64.to_radians());
    assert!((high.1.spin.z / high.2.final_spin.z - 1.0).abs() < 0.02);
    assert!(low.1.touch.is_some());
    // Leaning on ball and stem (two bearings, a patch of friction each), the spin lasts as
    // in the reference.
    assert!(
        (low.1.spin.z / low.2.final_spin.z - 1.0).abs() < 0.05,
        "leaning on ball and stem: {} rad/s against {}",
        low.1.spin.z,
        low.2.final_spin.z
    );

    figure::write(&Chart {
        name: "tippe-top",
        title: "Tippe top: tilt of the axis, engine and reference integration",
        x_label: "time (s)",
        y_label: "axis from the vertical (degrees)",
        series: vec![
            Series::line(
                format!("friction {}", high.0),
                degrees(high.1.tilt.iter().copied()),
            )
            .color(0),
            Series::dashed(
                "reference",
                degrees(high.2.samples.iter().map(|s| (s.0, s.1))),
            )
            .color(7),
            Series::line(
                format!("friction {}", low.0),
                degrees(low.1.tilt.iter().copied()),
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

/// Spun nearly upright (0.05 rad) at the scene's friction, static friction holds the ball's
/// contact still: the top rolls and does not turn over, as in the reference integration. (A
/// contact step that left out the slip a spinning body's own rotation makes over the step
/// dissipated it as sliding, and the top turned over within 0.6 s.)
#[test]
fn tippe_top_spun_nearly_upright_rolls_without_turning_over() {
    let scene = load(&scene_path()).unwrap();
    let mu = scene.materials["default"].friction;
    let tilt = 0.05;
    let ours = spin_at(&scene, mu, tilt);
    let theirs = reference_top(&scene).run(mu, tilt, SPIN, scene.world.duration, 0.01);
    let most = |s: &mut dyn Iterator<Item = f64>| s.fold(0.0f64, f64::max).to_degrees();
    let (ours_most, theirs_most) = (
        most(&mut ours.tilt.iter().map(|p| p.1)),
        most(&mut theirs.samples.iter().map(|p| p.1)),
    );
    println!(
        "tippe top spun at {tilt} rad: largest tilt {ours_most:.1}° (reference {theirs_most:.1}°), \
         spin at the end {:.2} rad/s (reference {:.2})",
        ours.spin.z, theirs.final_spin.z
    );
    assert!(theirs.over.is_none() && theirs_most < 10.0);
    assert!(ours.over.is_none() && ours_most < 10.0);
    assert!((ours.spin.z / SPIN - 1.0).abs() < 0.005);
}
