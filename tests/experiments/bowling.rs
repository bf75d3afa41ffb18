//! Bowling (Mirtich & Canny 1994, §5.1; Mirtich 1996, Table 1): the ball slides, hooks, rolls
//! from the closed-form time and knocks the pins down. Scene: `scenes/experiments/bowling.toml`.
use crate::figure::{self, Chart, Legend, Series};
use crate::gallery::{self, tilt};
use glam::{DVec2, DVec3};
use tumble::shape::Shape;

/// A pin is down when it leans more than this (rad) or has fallen off the deck.
const DOWN_TILT: f64 = std::f64::consts::FRAC_PI_4;

#[test]
fn bowling_ball_hooks_rolls_and_strikes() {
    let scene = gallery::scene("bowling.toml");
    let g = -scene.world.config.gravity.z;
    let spec = scene.bodies.iter().find(|b| b.name == "ball").unwrap();
    let Shape::Sphere { radius: r } = spec.shape else {
        panic!("the ball is not a sphere")
    };
    let mu = scene
        .material_table()
        .unwrap()
        .pair_by_name("ball", "lane")
        .unwrap()
        .friction;
    let rec = gallery::run(&scene, None);
    let ball = rec.index("ball");
    let slip = |v: DVec3, w: DVec3| (v + w.cross(DVec3::new(0.0, 0.0, -r))).truncate();

    // Closed form of a sliding uniform sphere: the slip u keeps its direction and shrinks at
    // (7/2) μ g; the centre accelerates at -μ g û until t_roll = 2 |u0| / (7 μ g), then rolls at
    // v0 - (2/7) u0.
    let (p0, v0, w0) = (
        spec.position.truncate(),
        spec.velocity,
        spec.angular_velocity,
    );
    let u0 = slip(v0, w0);
    let t_roll = 2.0 * u0.length() / (7.0 * mu * g);
    let a = -mu * g * u0.normalize();
    let closed = |t: f64| -> DVec2 {
        let ts = t.min(t_roll);
        p0 + v0.truncate() * ts + 0.5 * a * ts * ts + (v0.truncate() + a * t_roll) * (t - ts)
    };
    let v_roll = v0.truncate() - 2.0 / 7.0 * u0;

    // The slip's magnitude over the sliding phase: a straight line whose zero is t_roll.
    let slips: Vec<(f64, f64)> = rec
        .frames
        .iter()
        .map(|f| {
            let s = &f.states[ball];
            (f.t, slip(s.velocity, s.angular_velocity).length())
        })
        .collect();
    let fit: Vec<&(f64, f64)> = slips
        .iter()
        .take_while(|(_, u)| *u > 0.1 * u0.length())
        .filter(|(_, u)| *u < 0.9 * u0.length())
        .collect();
    let n = fit.len() as f64;
    let (mt, mu_) = (
        fit.iter().map(|p| p.0).sum::<f64>() / n,
        fit.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let slope = fit.iter().map(|p| (p.0 - mt) * (p.1 - mu_)).sum::<f64>()
        / fit.iter().map(|p| (p.0 - mt).powi(2)).sum::<f64>();
    let t_zero = mt - mu_ / slope;
    let slope_err = (-slope - 3.5 * mu * g) / (3.5 * mu * g);
    let t_err = (t_zero - t_roll) / t_roll;

    // Path and velocity once rolling, before the pins (the head pin's front at x = 18.23 m).
    let head_x = rec.frames[0].states[rec.index("pin_1")].position.x;
    let rolling = rec.at(t_roll + 0.05);
    let s = &rolling.states[ball];
    let v_err = (s.velocity.truncate() - v_roll).length() / v_roll.length();
    let path_err = rec
        .frames
        .iter()
        .take_while(|f| f.states[ball].position.x < head_x - 0.3)
        .map(|f| (f.states[ball].position.truncate() - closed(f.t)).length())
        .fold(0.0, f64::max);
    let at_pins = rec
        .frames
        .iter()
        .find(|f| f.states[ball].position.x >= head_x - 0.3)
        .expect("the ball never reached the pins");
    let hook = at_pins.states[ball].position.y - p0.y;
    let hook_closed = closed(at_pins.t).y - p0.y;

    // The pins.
    let end = rec.frames.last().unwrap();
    let pins: Vec<usize> = (1..=10).map(|k| rec.index(&format!("pin_{k}"))).collect();
    let down: Vec<bool> = pins
        .iter()
        .map(|&i| tilt(end.states[i].orientation) > DOWN_TILT || end.states[i].position.z < -0.05)
        .collect();
    let count = down.iter().filter(|d| **d).count();
    eprintln!(
        "bowling: slip |u0| = {:.3} m/s shrinks at {:.4} m/s^2, (7/2) mu g = {:.4} (err {:+.2} %); \
         rolling from {t_zero:.3} s, closed form 2|u0|/(7 mu g) = {t_roll:.3} s (err {:+.2} %); \
         velocity once rolling ({:.3}, {:.3}) m/s, v0 - (2/7) u0 = ({:.3}, {:.3}) (err {:.2} %); \
         path within {:.1} mm of the closed form up to the pins; hook {hook:+.3} m at x = {:.2} m \
         (closed form {hook_closed:+.3}); pins down {count}/10 {down:?}; max penetration {:.2e} m; \
         wall {:.3} s",
        u0.length(),
        -slope,
        3.5 * mu * g,
        100.0 * slope_err,
        100.0 * t_err,
        s.velocity.x,
        s.velocity.y,
        v_roll.x,
        v_roll.y,
        100.0 * v_err,
        1e3 * path_err,
        at_pins.states[ball].position.x,
        rec.world.max_penetration(),
        rec.wall
    );

    let path = |i: usize| -> Vec<(f64, f64)> {
        rec.frames
            .iter()
            .map(|f| (f.states[i].position.x, f.states[i].position.y))
            .collect()
    };
    figure::write(&Chart {
        name: "bowling",
        title: "Bowling: the ball's path (plan view; y stretched) and the pins",
        x_label: "x, down the lane (m)",
        y_label: "y (m)",
        series: vec![
            Series::line("ball", path(ball)),
            Series::dashed(
                "closed form: sliding parabola, then rolling",
                (0..=100)
                    .map(|k| {
                        let p = closed(at_pins.t * k as f64 / 100.0);
                        (p.x, p.y)
                    })
                    .collect(),
            )
            .color(3),
            Series::points(
                "rolling from here (closed form)",
                vec![(closed(t_roll).x, closed(t_roll).y)],
            )
            .color(3),
            Series::points(
                "pins at the start",
                pins.iter()
                    .map(|&i| {
                        let p = rec.frames[0].states[i].position;
                        (p.x, p.y)
                    })
                    .collect(),
            )
            .color(7),
            Series::points(
                "pins at the end",
                pins.iter()
                    .map(|&i| (end.states[i].position.x, end.states[i].position.y))
                    .collect(),
            )
            .color(1),
        ],
        equal_aspect: false,
        legend: Legend::LowerLeft,
    });

    assert!(slope_err.abs() < 0.02, "slip shrinks at {}", -slope);
    assert!(t_err.abs() < 0.02, "rolling from {t_zero} s, want {t_roll}");
    assert!(v_err < 0.01, "rolling velocity off by {v_err}");
    assert!(path_err < 0.05, "path {path_err} m off the closed form");
    assert!(hook.abs() > 0.4, "hook {hook} m");
    assert!(count >= 9, "{count} pins down");
}
