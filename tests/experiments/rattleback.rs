//! The rattleback (celt), an experiment of Mirtich & Canny's simulator Impulse: "rattleback
//! tops" in Mirtich 1996 §2.3, Table 1 (the results of Mirtich & Canny 1994, §5, do not include
//! it). A half-ellipsoid whose principal axes of inertia are turned a few degrees
//! against its long axis (the axes of its bottom's curvature) spins on when spun one way; spun
//! the other way its spin decays, it rattles (pitches), and the spin reverses.
//!
//! The bundled scene `scenes/experiments/rattleback.toml` is written by [`scene_text`] (rerun
//! with `TUMBLE_WRITE_SCENES=1` after changing it; a test checks that the file is what it
//! writes): the hull's vertices come from a formula and its inertia tensor is the hull's own,
//! computed by `tumble::mass_properties`, turned about the vertical.

use crate::common::run;
use crate::figure::{self, Chart, Legend, Series};
use glam::{DMat3, DVec3};
use std::f64::consts::{FRAC_PI_2, TAU};
use std::path::PathBuf;
use tumble::mass_properties::mass_properties;
use tumble::scene::{load, Scene};
use tumble::shape::Shape;
use tumble::world::World;

/// Semi-axes of the ellipsoid (m): long (x), wide (y), deep (z).
const SEMI_AXES: [f64; 3] = [0.1, 0.02, 0.02];
/// PMMA (kg/m³).
const DENSITY: f64 = 1200.0;
/// The angle of the principal axes of inertia against the long axis, about the vertical (deg).
const SKEW_DEG: f64 = 8.0;
/// Spin about the vertical at the start (rad/s); the scene spins at −SPIN.
const SPIN: f64 = 3.0;
/// Roll rate at the start (rad/s, about x): the tap that starts the rocking.
const ROLL: f64 = 0.2;
/// Coulomb friction with the floor.
const FRICTION: f64 = 0.3;
/// The collision epsilon (m): small against the height of the hull's vertices next to the
/// lowest one (25 µm across, 225 µm along), so that one vertex carries the contact.
const EPSILON: f64 = 1e-3;

fn scene_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/experiments/rattleback.toml")
}

/// Angles `0, ±step, …` up to `fine`, then `coarse` equal steps on each side up to π/2 − 0.05.
fn angles(step: f64, fine: f64, coarse: usize) -> Vec<f64> {
    let n = (fine / step).round() as i32;
    let mut g: Vec<f64> = (-n..=n).map(|k| k as f64 * step).collect();
    let top = FRAC_PI_2 - 0.05;
    for k in 1..=coarse {
        let y = fine + (top - fine) * k as f64 / coarse as f64;
        g.extend([y, -y]);
    }
    g.sort_by(f64::total_cmp);
    g
}

/// The hull's vertices: the points of the lower half of the ellipsoid x²/a² + y²/b² + z²/c² = 1
/// whose outward normals are `(tan β, tan α, −1)` on a grid of pitch angles β (steps of 0.03 rad
/// to ±0.24, where the rocking goes) and roll angles α (0.05 rad to ±0.5), coarse beyond; and 24
/// points on the rim, z = 0. The point with normal n is `(a² n_x, b² n_y, c² n_z) /
/// sqrt(a² n_x² + b² n_y² + c² n_z²)`.
fn vertices() -> Vec<DVec3> {
    let [a, b, c] = SEMI_AXES;
    let mut v = Vec::new();
    for roll in angles(0.05, 0.5, 3) {
        for pitch in angles(0.03, 0.24, 3) {
            let n = DVec3::new(pitch.tan(), roll.tan(), -1.0);
            let s = (a * a * n.x * n.x + b * b * n.y * n.y + c * c * n.z * n.z).sqrt();
            v.push(DVec3::new(a * a * n.x, b * b * n.y, c * c * n.z) / s);
        }
    }
    for k in 0..24 {
        let phi = TAU * k as f64 / 24.0;
        v.push(DVec3::new(a * phi.cos(), b * phi.sin(), 0.0));
    }
    v
}

/// The inertia tensor of the scene: the hull's own at [`DENSITY`] about its centre of mass,
/// turned by [`SKEW_DEG`] about the vertical (`R I Rᵀ`).
fn skewed_inertia(vertices: &[DVec3]) -> DMat3 {
    let shape = Shape::Convex {
        vertices: vertices.to_vec(),
    };
    let own = mass_properties(&shape, DENSITY).unwrap().inertia;
    let r = DMat3::from_rotation_z(SKEW_DEG.to_radians());
    r * own * r.transpose()
}

/// The bundled scene's text.
fn scene_text() -> String {
    let v = vertices();
    let t = skewed_inertia(&v);
    let row = |i: usize| {
        let r = t.row(i);
        format!("[{}, {}, {}]", r.x, r.y, r.z)
    };
    // Three vertices a line.
    let vertex_lines: Vec<String> = v
        .chunks(3)
        .map(|line| {
            let points: Vec<String> = line
                .iter()
                .map(|p| format!("[{}, {}, {}],", p.x, p.y, p.z))
                .collect();
            format!("  {}", points.join(" "))
        })
        .collect();
    let [a, b, c] = SEMI_AXES;
    format!(
        r#"# The rattleback (celt), an experiment of Mirtich & Canny's simulator Impulse ("rattleback
# tops" in Mirtich 1996 §2.3, Table 1). Written by tests/experiments/rattleback.rs
# (TUMBLE_WRITE_SCENES=1 rewrites it; a test checks that this file is what it writes).
#
# A half-ellipsoid, flat side up, with semi-axes {a} × {b} m and {c} m deep, of PMMA ({DENSITY} kg/m³):
# the convex hull of {n} points of its surface, those whose outward normals are (tan β, tan α, −1)
# on a grid of pitch angles β (0.03 rad steps to ±0.24, where it rocks) and roll angles α
# (0.05 rad steps to ±0.5), coarser beyond, and 24 on the rim. Its inertia tensor is the hull's
# own turned by {SKEW_DEG}° about the vertical: the principal axes of inertia are skewed against the
# long axis, which is an axis of the bottom's curvature, and that makes the direction of spin
# matter.
#
# Spun clockwise seen from above (ω_z = −{SPIN} rad/s) with a slight roll, its spin decays as it
# starts to pitch, and reverses within about 1.2 s; spun the other way (tests/experiments/
# rattleback.rs) it spins on.
#
# collision_epsilon = 1 mm, the default: the hull's vertices within 2 ε_c of the floor (up to
# 45 mm along and 9 mm across from the lowest) make one friction patch, which acts at their
# centre of pressure, the loaded lowest vertex, so the faceted hull turns on it as a smooth
# body on its point of contact.

[world]
duration = 3.0
frame_period = 0.01
collision_epsilon = {EPSILON:e}
sleep_time = 0.0
resting_contact = "constraints"

[materials.default]
restitution = 0.0
friction = {FRICTION:?}

[[bodies]]
name = "floor"
motion = "fixed"
shape = {{ type = "plane", normal = [0.0, 0.0, 1.0] }}

[[bodies]]
name = "rattleback"
density = {DENSITY:?}
inertia = [{}, {}, {}]
position = [0.0, 0.0, {}]
angular_velocity = [{ROLL:?}, 0.0, {}]
shape = {{ type = "convex", vertices = [
{}
] }}
"#,
        row(0),
        row(1),
        row(2),
        c + 0.5 * EPSILON,
        -SPIN,
        vertex_lines.join("\n"),
        n = v.len(),
    )
}

#[test]
fn bundled_scene_is_the_generated_one() {
    let text = scene_text();
    let path = scene_path();
    if std::env::var("TUMBLE_WRITE_SCENES").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &text).unwrap();
    }
    let file = std::fs::read_to_string(&path).unwrap();
    assert!(
        file == text,
        "{} is not what tests/experiments/rattleback.rs writes: rerun with TUMBLE_WRITE_SCENES=1",
        path.display()
    );
    // The built body's axis of least inertia is the long axis turned by the skew.
    let world = World::new(&load(&path).unwrap()).unwrap();
    let body = world.body(world.body_index("rattleback").unwrap());
    let long = body.principal_axes * DVec3::X;
    let angle = long.y.atan2(long.x).to_degrees();
    let angle = if angle.abs() > 90.0 {
        angle - 180f64.copysign(angle)
    } else {
        angle
    };
    println!(
        "rattleback: {} vertices, mass {:.5} kg, principal moments [{:.4e}, {:.4e}, {:.4e}] kg m², least-inertia axis at {angle:.6}° to the long axis",
        vertices().len(),
        1.0 / body.inv_mass,
        body.inertia.x,
        body.inertia.y,
        body.inertia.z
    );
    assert!((angle - SKEW_DEG).abs() < 1e-6, "{angle}");
}

/// The spin about the vertical, `(t, ω_z)` at every frame, of the scene's rattleback spun at
/// `spin` (rad/s) about the vertical.
fn spin_history(scene: &Scene, spin: f64) -> Vec<(f64, f64)> {
    let mut scene = scene.clone();
    let spec = scene
        .bodies
        .iter_mut()
        .find(|b| b.name == "rattleback")
        .unwrap();
    spec.angular_velocity.z = spin;
    let mut world = World::new(&scene).unwrap();
    let i = world.body_index("rattleback").unwrap();
    let mut history = vec![(0.0, world.body(i).angular_velocity.z)];
    run(&mut world, scene.world.duration, |w| {
        history.push((w.time(), w.body(i).angular_velocity.z));
    });
    assert_eq!(world.max_penetration(), 0.0);
    history
}

#[test]
fn spin_reverses_one_way_only() {
    let scene = load(&scene_path()).unwrap();
    let wall = std::time::Instant::now();
    // The two runs are independent: one thread each.
    let (reversing, onward) = std::thread::scope(|s| {
        let other = s.spawn(|| spin_history(&scene, SPIN));
        (spin_history(&scene, -SPIN), other.join().unwrap())
    });
    let wall = wall.elapsed().as_secs_f64();

    // Spun clockwise: the spin crosses zero and turns anticlockwise.
    let t_zero = reversing.iter().find(|&&(_, w)| w > 0.0).map(|p| p.0);
    let (t_peak, peak) =
        reversing
            .iter()
            .copied()
            .fold((0.0, f64::MIN), |m, p| if p.1 > m.1 { p } else { m });
    // Spun anticlockwise: it spins on the same way.
    let (t_low, low) = onward
        .iter()
        .copied()
        .fold((0.0, f64::MAX), |m, p| if p.1 < m.1 { p } else { m });
    let end = onward.last().unwrap().1;
    println!(
        "rattleback spun at ω_z = −{SPIN} rad/s: spin reverses at t = {:.2} s, reaching +{peak:.3} \
         rad/s at t = {t_peak:.2} s; spun at +{SPIN} rad/s: no reversal, ω_z ≥ {low:.3} rad/s \
         (lowest at t = {t_low:.2} s), {end:.3} rad/s at t = {:.1} s ({wall:.2} s wall for both)",
        t_zero.unwrap_or(f64::NAN),
        onward.last().unwrap().0
    );
    let t_zero = t_zero.expect("the clockwise spin never reversed");
    assert!(t_zero < 2.5, "reversed only at {t_zero} s");
    assert!(
        peak > 0.05 * SPIN,
        "the reversed spin peaks at {peak} rad/s only"
    );
    assert!(
        low > 0.3 * SPIN,
        "the anticlockwise spin fell to {low} rad/s"
    );

    let t_end = reversing
        .last()
        .map_or(0.0, |p| p.0)
        .max(onward.last().map_or(0.0, |p| p.0));
    figure::write(&Chart {
        name: "rattleback",
        title: "Rattleback: spin about the vertical",
        x_label: "time (s)",
        y_label: "spin about the vertical ω_z (rad/s)",
        series: vec![
            Series::line(format!("spun at −{SPIN} rad/s: reverses"), reversing).color(3),
            Series::line(format!("spun at +{SPIN} rad/s: spins on"), onward).color(0),
            Series::dashed("ω_z = 0", vec![(0.0, 0.0), (t_end, 0.0)]).color(7),
        ],
        equal_aspect: false,
        legend: Legend::UpperRight,
    });
}
