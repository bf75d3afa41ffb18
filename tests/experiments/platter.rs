//! Ball on a spinning platter (Mirtich & Canny 1994, §5.1; Mirtich 1996, Table 1): rolling
//! without slipping, its velocity turns at (2/7) Ω and its centre runs round a fixed circle.
//! Scene: `scenes/experiments/platter.toml`.
use crate::figure::{self, Chart, Legend, Series};
use crate::gallery::{self, Record};
use glam::DVec2;
use tumble::scene::{RestingContactMode, Scene};

/// What the run measured against the closed form.
struct Orbit {
    /// Rate at which the velocity turns (least-squares slope of its unwrapped angle), rad/s.
    rate: f64,
    /// The closed form (2/7) Ω.
    want: f64,
    /// Largest |‖v‖/‖v₀‖ − 1|.
    speed_err: f64,
    /// Largest distance (m) of the instantaneous centre p + ẑ × v / k from the closed form's.
    centre_err: f64,
    /// Radius of the closed-form circle (m).
    radius: f64,
    /// Largest |distance from the closed-form centre − radius| (m).
    radius_err: f64,
}

fn orbit(scene: &Scene, rec: &Record) -> Orbit {
    let omega = scene
        .bodies
        .iter()
        .find(|b| b.name == "platter")
        .unwrap()
        .angular_velocity
        .z;
    let k = 2.0 / 7.0 * omega;
    let ball = rec.index("ball");
    let s0 = &rec.frames[0].states[ball];
    let (p0, v0) = (s0.position.truncate(), s0.velocity.truncate());
    let centre = p0 + v0.perp() / k;
    let radius = v0.length() / k;
    let (mut angles, mut last, mut turns) = (Vec::new(), 0.0f64, 0.0);
    let (mut speed_err, mut centre_err, mut radius_err): (f64, f64, f64) = (0.0, 0.0, 0.0);
    for f in &rec.frames {
        let s = &f.states[ball];
        let (p, v) = (s.position.truncate(), s.velocity.truncate());
        let a = v.y.atan2(v.x);
        if a - last > std::f64::consts::PI {
            turns -= 1.0;
        } else if last - a > std::f64::consts::PI {
            turns += 1.0;
        }
        last = a;
        angles.push((f.t, a + turns * std::f64::consts::TAU));
        speed_err = speed_err.max((v.length() / v0.length() - 1.0).abs());
        centre_err = centre_err.max((p + v.perp() / k - centre).length());
        radius_err = radius_err.max(((p - centre).length() - radius).abs());
    }
    let n = angles.len() as f64;
    let (mt, ma) = (
        angles.iter().map(|a| a.0).sum::<f64>() / n,
        angles.iter().map(|a| a.1).sum::<f64>() / n,
    );
    let rate = angles.iter().map(|a| (a.0 - mt) * (a.1 - ma)).sum::<f64>()
        / angles.iter().map(|a| (a.0 - mt).powi(2)).sum::<f64>();
    Orbit {
        rate,
        want: k,
        speed_err,
        centre_err,
        radius,
        radius_err,
    }
}

fn check(mode: RestingContactMode) -> Record {
    let scene = gallery::with_mode(gallery::scene("platter.toml"), mode);
    let rec = gallery::run(&scene, None);
    let o = orbit(&scene, &rec);
    let rate_err = (o.rate - o.want) / o.want;
    eprintln!(
        "platter ({mode:?}): over {:.0} s the velocity turns at {:.5} rad/s, (2/7) Omega = {:.5} \
         (err {:+.3} %); speed within {:.2} % of the initial; centre within {:.2} mm and distance \
         from it within {:.2} mm of the closed-form circle (radius {:.1} mm); max penetration \
         {:.2e} m; wall {:.3} s",
        rec.frames.last().unwrap().t,
        o.rate,
        o.want,
        100.0 * rate_err,
        100.0 * o.speed_err,
        1e3 * o.centre_err,
        1e3 * o.radius_err,
        1e3 * o.radius,
        rec.world.max_penetration(),
        rec.wall
    );
    assert!(rate_err.abs() < 0.01, "velocity turns at {} rad/s", o.rate);
    assert!(o.speed_err < 0.02, "speed changed by {}", o.speed_err);
    assert!(
        o.centre_err < 0.003,
        "circle centre moved {} m",
        o.centre_err
    );
    assert!(o.radius_err < 0.003, "off the circle by {} m", o.radius_err);
    rec
}

/// The figure: the ball's path in both modes against the closed-form circle.
fn write_figure() {
    let path = |mode| {
        let scene = gallery::with_mode(gallery::scene("platter.toml"), mode);
        let rec = gallery::run(&scene, None);
        let ball = rec.index("ball");
        let points: Vec<(f64, f64)> = rec
            .frames
            .iter()
            .map(|f| (f.states[ball].position.x, f.states[ball].position.y))
            .collect();
        (orbit(&scene, &rec), rec.frames[0].states[ball], points)
    };
    let (o, s0, micro) = path(RestingContactMode::Microcollisions);
    let (_, _, constraints) = path(RestingContactMode::Constraints);
    let centre = s0.position.truncate() + s0.velocity.truncate().perp() / o.want;
    let circle = (0..=200)
        .map(|i| {
            let a = std::f64::consts::TAU * i as f64 / 200.0;
            let p = centre + o.radius * DVec2::new(a.cos(), a.sin());
            (p.x, p.y)
        })
        .collect();
    figure::write(&Chart {
        name: "platter",
        title: "Ball on a spinning platter: path of the ball's centre over 40 s (plan view)",
        x_label: "x (m)",
        y_label: "y (m)",
        series: vec![
            Series::line("constraints (first order, h = 5 ms)", constraints).color(1),
            Series::line("microcollisions", micro).color(0),
            Series::dashed("closed form: turning at (2/7) Omega", circle).color(3),
            Series::points("platter axis", vec![(0.0, 0.0)]).color(7),
        ],
        equal_aspect: true,
        legend: Legend::UpperRight,
    });
}

#[test]
fn platter_ball_circles_at_two_sevenths_omega() {
    if figure::enabled() {
        write_figure();
    }
    check(RestingContactMode::Microcollisions);
}

/// With resting contacts as constraints the contact step is a first-order time-stepping
/// method (Bender & Schmitt 2006 §3.2: the friction impulse at a step's start sets the velocity
/// for the whole step): the ball's velocity turns by explicit Euler steps, each growing the
/// speed by a factor sqrt(1 + ((2/7) Omega h)^2), so the speed drifts by about
/// (2/7 Omega)^2 h T / 2 over T, proportional to the step h. The test runs three step lengths
/// and asserts the rate, and that the drift halves with the step (first order) and stays within
/// that closed-form Euler growth, instead of a hidden gain.
#[test]
fn platter_ball_circles_at_two_sevenths_omega_constraints_converges_at_first_order() {
    let mut errors = Vec::new();
    for h in [0.005, 0.0025, 0.00125] {
        let mut scene = gallery::with_mode(
            gallery::scene("platter.toml"),
            RestingContactMode::Constraints,
        );
        scene.world.config.contact_step = h;
        scene.world.config.contact_step_max = Some(h);
        let rec = gallery::run(&scene, None);
        let o = orbit(&scene, &rec);
        let rate_err = (o.rate - o.want) / o.want;
        let t = rec.frames.last().unwrap().t;
        let euler = (1.0 + (o.want * h).powi(2)).powf(0.5 * t / h) - 1.0;
        eprintln!(
            "platter (Constraints, h = {h} s): velocity turns at {:.5} rad/s (err {:+.3} %); \
             speed within {:.2} % of the initial (explicit Euler's growth over {t:.0} s: \
             {:.2} %); off the circle by {:.2} mm",
            o.rate,
            100.0 * rate_err,
            100.0 * o.speed_err,
            100.0 * euler,
            1e3 * o.radius_err
        );
        assert!(rate_err.abs() < 0.01, "velocity turns at {} rad/s", o.rate);
        assert!(
            o.speed_err < 1.25 * euler,
            "speed changed by {} (Euler {euler})",
            o.speed_err
        );
        errors.push(o.speed_err);
    }
    for w in errors.windows(2) {
        let ratio = w[0] / w[1];
        assert!(
            (1.6..2.5).contains(&ratio),
            "halving the step divides the speed drift by {ratio}, not about 2"
        );
    }
}

/// The degenerate case Ω = 0: the platter stands still and the ball, rolling without slipping,
/// keeps its velocity. Returns the largest relative change of the velocity over 2 s.
fn still_platter(mode: RestingContactMode) -> f64 {
    let mut scene = gallery::with_mode(gallery::scene("platter.toml"), mode);
    for b in &mut scene.bodies {
        if b.name == "platter" {
            b.angular_velocity = glam::DVec3::ZERO;
        }
    }
    let ball = scene.bodies.iter_mut().find(|b| b.name == "ball").unwrap();
    let tumble::shape::Shape::Sphere { radius } = ball.shape else {
        panic!("the ball is not a sphere")
    };
    ball.angular_velocity = glam::DVec3::new(-ball.velocity.y, ball.velocity.x, 0.0) / radius;
    let v0 = ball.velocity;
    let rec = gallery::run(&scene, Some(2.0));
    let i = rec.index("ball");
    let worst = rec
        .frames
        .iter()
        .map(|f| (f.states[i].velocity.truncate() - v0.truncate()).length() / v0.length())
        .fold(0.0, f64::max);
    let end = rec.frames.last().unwrap().states[i].velocity;
    eprintln!(
        "platter standing still ({mode:?}): the ball rolls from {:.4} m/s to {:.4} m/s in 2 s \
         (largest change of its velocity {:.2} %)",
        v0.length(),
        end.truncate().length(),
        100.0 * worst
    );
    worst
}

#[test]
fn platter_standing_still_ball_keeps_rolling() {
    let worst = still_platter(RestingContactMode::Microcollisions);
    assert!(worst < 0.01, "velocity changed by {worst}");
}

#[test]
fn platter_standing_still_ball_keeps_rolling_constraints() {
    let worst = still_platter(RestingContactMode::Constraints);
    assert!(worst < 0.01, "velocity changed by {worst}");
}
