//! The tippe top: Bender & Schmitt's experiment (2006 §4, figure 5). Spun fast on a table with
//! friction, a ball whose centre of mass lies below its centre turns over onto its stem; with a
//! smaller friction coefficient it spins longer on its ball before it turns over. The bundled
//! scene is `scenes/experiments/tippe-top.toml` (friction 0.3); the test runs it again at 0.1.

use crate::common::run;
use crate::figure::{self, Chart, Legend, Series};
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

fn scene_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/experiments/tippe-top.toml")
}

/// One run: the centre of mass's height at every frame, when it first rose above the ball's
/// centre (the symmetry axis past horizontal), and when the stem's end first came within ε_c of
/// the table.
struct Flip {
    height: Vec<(f64, f64)>,
    over: Option<f64>,
    touch: Option<f64>,
}

fn spin_at_friction(scene: &Scene, friction: f64) -> Flip {
    let mut scene = scene.clone();
    scene.materials.get_mut("default").unwrap().friction = friction;
    let eps = scene.world.collision_epsilon;
    let mut world = World::new(&scene).unwrap();
    let i = world.body_index("top").unwrap();
    let mut flip = Flip {
        height: vec![(0.0, world.body(i).position.z)],
        over: None,
        touch: None,
    };
    run(&mut world, scene.world.duration, |w| {
        let (t, com) = (w.time(), w.body(i).position);
        let shape = w.body_state(i);
        flip.height.push((t, com.z));
        if flip.over.is_none() && com.z > shape.position.z {
            flip.over = Some(t);
        }
        let stem_end = shape.position + shape.orientation * DVec3::new(0.0, 0.0, STEM_END);
        if flip.touch.is_none() && stem_end.z - STEM_RADIUS <= eps {
            flip.touch = Some(t);
        }
    });
    assert_eq!(world.max_penetration(), 0.0);
    flip
}

#[test]
fn tippe_top_turns_over_later_with_less_friction() {
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

    let wall = std::time::Instant::now();
    let high = spin_at_friction(&scene, high_friction);
    let low = spin_at_friction(&scene, LOW_FRICTION);
    let wall = wall.elapsed().as_secs_f64();
    for (mu, f) in [(high_friction, &high), (LOW_FRICTION, &low)] {
        let top_height = f.height.iter().map(|p| p.1).fold(f64::MIN, f64::max);
        println!(
            "tippe top at friction {mu}: centre of mass above the ball's centre at t = {:.2} s, \
             stem on the table at t = {:.2} s, highest centre of mass {:.2} mm (at rest {:.2} mm)",
            f.over.unwrap_or(f64::NAN),
            f.touch.unwrap_or(f64::NAN),
            1e3 * top_height,
            1e3 * f.height[0].1
        );
    }
    println!("({wall:.2} s wall for both)");
    for (mu, f) in [(high_friction, &high), (LOW_FRICTION, &low)] {
        let (over, touch) = (f.over, f.touch);
        let (Some(over), Some(touch)) = (over, touch) else {
            panic!("at friction {mu} the top did not turn over (over {over:?}, touch {touch:?})");
        };
        assert!(
            over < touch,
            "at friction {mu}: over {over} s, touch {touch} s"
        );
    }
    let (over_high, over_low) = (high.over.unwrap(), low.over.unwrap());
    assert!(
        over_low > over_high + 0.2,
        "less friction turned over at {over_low} s, more at {over_high} s"
    );
    assert!(low.touch.unwrap() > high.touch.unwrap());

    let rest = 1e3 * (RADIUS + 0.5 * scene.world.collision_epsilon);
    let t_end = high
        .height
        .last()
        .map_or(0.0, |p| p.0)
        .max(low.height.last().map_or(0.0, |p| p.0));
    figure::write(&Chart {
        name: "tippe-top",
        title: "Tippe top: height of the centre of mass",
        x_label: "time (s)",
        y_label: "centre of mass above the table (mm)",
        series: vec![
            Series::line(
                format!("friction {high_friction}"),
                millimetres(&high.height),
            )
            .color(0),
            Series::line(format!("friction {LOW_FRICTION}"), millimetres(&low.height)).color(3),
            Series::dashed(
                "the ball's centre at rest",
                vec![(0.0, rest), (t_end, rest)],
            )
            .color(7),
        ],
        equal_aspect: false,
        legend: Legend::LowerRight,
    });
}

/// Heights in millimetres, for the plot.
fn millimetres(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    points.iter().map(|&(t, z)| (t, 1e3 * z)).collect()
}
