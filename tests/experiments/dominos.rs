//! Seven dominos (Mirtich & Canny 1995; Mirtich 1996, Table 1): all fall, in order, the lead
//! one on its rigid-pendulum schedule. Scene: `scenes/experiments/dominos.toml`.
use crate::figure::{self, Chart, Legend, Series};
use crate::gallery::{self, first_crossing, tilt};
use tumble::scene::{RestingContactMode, Scene};
use tumble::shape::Shape;

/// Time for a box of half extents `a` (thickness) and `b` (height), turning at `w0` about its
/// bottom edge from upright, to tilt to `theta`: I θ'' = m g (b sin θ − a cos θ) about the edge,
/// I = 4/3 m (a² + b²), by classical RK4 (steps of 10 µs).
fn pendulum_time(a: f64, b: f64, g: f64, w0: f64, theta: f64) -> f64 {
    let acc = |th: f64| g * (b * th.sin() - a * th.cos()) / (4.0 / 3.0 * (a * a + b * b));
    let (mut th, mut w, mut t, dt) = (0.0f64, w0, 0.0, 1e-5);
    while th < theta {
        let (k1t, k1w) = (w, acc(th));
        let (k2t, k2w) = (w + 0.5 * dt * k1w, acc(th + 0.5 * dt * k1t));
        let (k3t, k3w) = (w + 0.5 * dt * k2w, acc(th + 0.5 * dt * k2t));
        let (k4t, k4w) = (w + dt * k3w, acc(th + dt * k3t));
        let (th1, w1) = (
            th + dt / 6.0 * (k1t + 2.0 * k2t + 2.0 * k3t + k4t),
            w + dt / 6.0 * (k1w + 2.0 * k2w + 2.0 * k3w + k4w),
        );
        if th1 >= theta {
            return t + dt * (theta - th) / (th1 - th);
        }
        (th, w, t) = (th1, w1, t + dt);
    }
    t
}

/// The scene's domino half extents, the lead domino's initial spin about y and the contact
/// angle (degrees: the top edge meets the next domino's back face).
fn geometry(scene: &Scene) -> (glam::DVec3, f64, f64) {
    let body = |name: &str| scene.bodies.iter().find(|b| b.name == name).unwrap();
    let first = body("domino_0");
    let Shape::Box { half_extents: h } = first.shape else {
        panic!("domino_0 is not a box")
    };
    let spacing = body("domino_1").position.x - first.position.x;
    let contact = ((spacing - 2.0 * h.x) / (2.0 * h.z)).asin().to_degrees();
    (h, first.angular_velocity.y, contact)
}

#[test]
fn dominos_all_fall_in_order() {
    let scene = gallery::scene("dominos.toml");
    let g = -scene.world.config.gravity.z;
    let (h, w0, contact) = geometry(&scene);
    let rec = gallery::run(&scene, None);
    let n = 7;
    let idx: Vec<usize> = (0..n).map(|i| rec.index(&format!("domino_{i}"))).collect();
    let tilts: Vec<Vec<(f64, f64)>> = idx
        .iter()
        .map(|&i| rec.series(i, |s| tilt(s.orientation).to_degrees()))
        .collect();

    let falls: Vec<f64> = tilts
        .iter()
        .enumerate()
        .map(|(i, s)| {
            first_crossing(s, contact)
                .unwrap_or_else(|| panic!("domino_{i} never reached {contact:.1} deg"))
        })
        .collect();
    let starts: Vec<f64> = tilts[1..]
        .iter()
        .enumerate()
        .map(|(i, s)| {
            first_crossing(s, 1.0).unwrap_or_else(|| panic!("domino_{} never moved", i + 1))
        })
        .collect();
    let finals: Vec<f64> = tilts.iter().map(|s| s.last().unwrap().1).collect();
    let t_lead = pendulum_time(h.x, h.z, g, w0, contact.to_radians());
    let lead_err = (falls[0] - t_lead) / t_lead;
    let lags: Vec<f64> = starts.iter().zip(&falls).map(|(s, f)| s - f).collect();
    let intervals: Vec<f64> = falls.windows(2).map(|w| w[1] - w[0]).collect();
    eprintln!(
        "dominos: fall times (tilt {contact:.1} deg) {falls:.3?} s; lead domino {:.4} s, rigid \
         pendulum about its edge {t_lead:.4} s (err {:+.2} %); intervals {intervals:.3?} s; each \
         domino starts (1 deg) {lags:.4?} s after the one before reaches {contact:.1} deg; final \
         tilts {finals:.1?} deg; wall {:.3} s",
        falls[0],
        100.0 * lead_err,
        rec.wall
    );

    figure::write(&Chart {
        name: "dominos",
        title: "Seven dominos: tilt of each domino",
        x_label: "t (s)",
        y_label: "tilt (degrees)",
        series: tilts
            .iter()
            .enumerate()
            .map(|(i, s)| Series::line(format!("domino_{i}"), s.clone()))
            .chain([Series::dashed(
                "contact angle",
                vec![(0.0, contact), (rec.frames.last().unwrap().t, contact)],
            )
            .color(7)])
            .collect(),
        equal_aspect: false,
        legend: Legend::UpperLeft,
    });

    // The lead domino's schedule is asserted per resting-contact mode below, 2 degrees short of
    // the contact; at the contact angle the collision (fired ε_c early) has already slowed it.
    assert!(
        lead_err.abs() < 0.05,
        "lead domino at {} s, want {t_lead}",
        falls[0]
    );
    for (i, w) in falls.windows(2).enumerate() {
        assert!(w[1] > w[0], "domino_{} fell before domino_{i}", i + 1);
    }
    for (i, lag) in lags.iter().enumerate() {
        assert!(
            lag.abs() < 0.01,
            "domino_{} started {lag} s after domino_{i} reached the contact angle",
            i + 1
        );
    }
    for (i, f) in finals.iter().enumerate() {
        assert!(*f > contact, "domino_{i} ends at {f} deg");
    }
    assert!(
        finals[n - 1] > 85.0,
        "the last domino ends at {} deg",
        finals[n - 1]
    );
}

/// The lead domino turning about its front bottom edge towards the next, up to 2 degrees short
/// of the contact angle (at the contact angle itself the collision has already begun: it fires
/// when the gap is ε_c, about 1.6 ms earlier). Returns, as relative errors:
/// - the largest |ω/ω_E − 1| of its turning rate ω (central differences of the tilt between
///   frames) against the energy-conserving ω_E² = ω₀² − 2 g Δh / (4/3 (a² + b²)), Δh the rise
///   of its centre of mass over the edge;
/// - the largest |ω_r/ω − 1| of the angular velocity the world reports against that rate;
/// - its time to the angle against the pendulum's.
fn lead_domino(mode: RestingContactMode) -> (f64, f64, f64) {
    let scene = gallery::scene("dominos.toml");
    let g = -scene.world.config.gravity.z;
    let (h, w0, contact) = geometry(&scene);
    let free = contact - 2.0;
    let t_free = pendulum_time(h.x, h.z, g, w0, free.to_radians());
    let rec = gallery::run(&gallery::with_mode(scene, mode), Some(t_free + 0.02));
    let i = rec.index("domino_0");
    let tilts = rec.series(i, |s| tilt(s.orientation));
    let inertia = 4.0 / 3.0 * (h.x * h.x + h.z * h.z);
    let (mut energy_err, mut reported_err): (f64, f64) = (0.0, 0.0);
    for (k, w) in tilts.windows(3).enumerate() {
        let th = w[1].1;
        if th.to_degrees() >= free {
            break;
        }
        let rate = (w[2].1 - w[0].1) / (w[2].0 - w[0].0);
        let rise = h.z * (th.cos() - 1.0) + h.x * th.sin();
        let w_energy = (w0 * w0 - 2.0 * g * rise / inertia).sqrt();
        energy_err = energy_err.max((rate / w_energy - 1.0).abs());
        let reported = rec.frames[k + 1].states[i].angular_velocity.y;
        reported_err = reported_err.max((reported / rate - 1.0).abs());
    }
    let t = first_crossing(&rec.series(i, |s| tilt(s.orientation).to_degrees()), free)
        .expect("the lead domino never tipped");
    let time_err = (t - t_free) / t_free;
    eprintln!(
        "dominos, lead domino ({mode:?}) up to {free:.1} deg: turning rate within {:.2} % of the \
         energy-conserving value, reported angular velocity within {:.2} % of the turning rate; \
         reaches {free:.1} deg at {t:.4} s, pendulum {t_free:.4} s (err {:+.2} %)",
        100.0 * energy_err,
        100.0 * reported_err,
        100.0 * time_err
    );
    (energy_err, reported_err, time_err)
}

fn check_lead_domino(mode: RestingContactMode) {
    let (energy_err, reported_err, time_err) = lead_domino(mode);
    assert!(
        energy_err < 0.005,
        "turning rate off the energy-conserving value by {energy_err}"
    );
    assert!(
        reported_err < 0.005,
        "reported angular velocity off the turning rate by {reported_err}"
    );
    assert!(
        time_err.abs() < 0.01,
        "time to the contact angle off by {time_err}"
    );
}

#[test]
fn dominos_lead_domino_follows_the_pendulum_microcollisions() {
    check_lead_domino(RestingContactMode::Microcollisions);
}

#[test]
fn dominos_lead_domino_follows_the_pendulum_constraints() {
    check_lead_domino(RestingContactMode::Constraints);
}
