//! Stewart & Trinkle (1996) §4.2, the four balls (`scenes/experiments/four-balls.toml`): a ball
//! thrown over a table lands at t = sqrt(1.8 / g), rolls, and hits the first of three resting
//! balls obliquely.
//!
//! The paper reports the landing at t = 0.42 s and the hit at t = 0.59 s (time stepping with
//! h = 1.25–20 ms). In closed form: the landing at sqrt(1.8 / g) = 0.42835 s; the landing's
//! friction (μ = 0.4 of a 4.2 N s normal impulse, 0.43 N s needed) leaves the ball rolling at
//! 5/7 of [1.5, 0.1] m/s, which brings its centre to 0.2 m of the first ball's at 0.58221 s.
//! Event-driven, the impacts happen when the gap closes to within ε_c (1 µm here): the times
//! read from the frames (1 ms) are refined with the motion on either side of the event.
use crate::figure_st::{self, Panel};
use glam::{DVec2, DVec3};
use plotters::prelude::SeriesLabelPosition;
use std::path::Path;
use tumble::world::World;

const G: f64 = 9.81;
const RADIUS: f64 = 0.1;
const PAPER_LANDING: f64 = 0.42;
const PAPER_HIT: f64 = 0.59;
/// Against the paper: it prints two digits, from steps of 1.25 ms and longer.
const PAPER_TOL: f64 = 0.01;
/// Against the closed forms: the event comes when the gap is within ε_c = 1 µm (1 µs at these
/// speeds), and the rolling speed is 5/7 of the landing speed to the contact solver's accuracy.
const LANDING_TOL: f64 = 1e-5;
const HIT_TOL: f64 = 2e-4;

/// The closed-form landing time and the time the rolling ball's centre comes to 0.2 m of the
/// first ball's centre.
fn closed_forms() -> (f64, f64) {
    let landing = (1.8 / G).sqrt();
    let p = DVec2::new(1.5, 0.1) * landing;
    let v = DVec2::new(1.5, 0.1) * (5.0 / 7.0);
    (
        landing,
        landing + reach(p, v, DVec2::new(1.0, 0.0), 2.0 * RADIUS),
    )
}

/// Time for a point at `p` moving at `v` to come within `d` of `target`.
fn reach(p: DVec2, v: DVec2, target: DVec2, d: f64) -> f64 {
    let r = p - target;
    let (a, b, c) = (v.dot(v), 2.0 * r.dot(v), r.dot(r) - d * d);
    (-b - (b * b - 4.0 * a * c).sqrt()) / (2.0 * a)
}

#[derive(Clone, Copy)]
struct Frame {
    t: f64,
    p: [DVec3; 4],
    v: [DVec3; 4],
}

#[test]
fn four_balls_land_and_hit_at_the_closed_form_times() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/experiments/four-balls.toml");
    let scene = tumble::scene::load(&path).unwrap();
    let mut world = World::new(&scene).unwrap();
    let ids: Vec<usize> = ["thrown", "ball1", "ball2", "ball3"]
        .iter()
        .map(|n| world.body_index(n).unwrap())
        .collect();
    let sample = |w: &World| {
        let s = |k: usize| w.body_state(ids[k]);
        Frame {
            t: w.time(),
            p: [0, 1, 2, 3].map(|k| s(k).position),
            v: [0, 1, 2, 3].map(|k| s(k).velocity),
        }
    };
    let mut frames = vec![sample(&world)];
    // The frames that hold the landing (the first collision) and the hit (ball1 set moving).
    let (mut landing, mut hit) = (None, None);
    while world.time() < 1.0 - 1e-12 {
        world.step_frame(1.0).expect("simulation failed");
        let f = sample(&world);
        if landing.is_none() && world.counts().collisions > 0 {
            landing = Some(frames.len());
        }
        if hit.is_none() && (f.v[1].x.abs() > 0.0 || f.v[1].y.abs() > 0.0) {
            hit = Some(frames.len());
        }
        frames.push(f);
    }
    let (landing, hit) = (landing.expect("never landed"), hit.expect("never hit"));
    let (cf_landing, cf_hit) = closed_forms();

    // The landing: at 1.5 m/s before, rolling at a constant speed after, so the frame's
    // horizontal travel places it.
    let (a, b) = (frames[landing - 1], frames[landing]);
    let (v0, v1) = (a.v[0].x, b.v[0].x);
    let t_landing = a.t + ((b.p[0].x - a.p[0].x) - v1 * (b.t - a.t)) / (v0 - v1);
    let rolling = DVec2::new(b.v[0].x, b.v[0].y);
    let want_rolling = DVec2::new(1.5, 0.1) * (5.0 / 7.0);
    // The hit: the rolling ball's state at the frame's start, carried on, reaches 0.2 m (plus
    // the first ball's height above the table) from the first ball.
    let (c, d) = (frames[hit - 1], frames[hit]);
    let gap = c.p[1] - c.p[0];
    let dz = gap.z;
    let t_hit = c.t
        + reach(
            DVec2::new(c.p[0].x, c.p[0].y),
            DVec2::new(c.v[0].x, c.v[0].y),
            DVec2::new(c.p[1].x, c.p[1].y),
            ((2.0 * RADIUS).powi(2) - dz * dz).sqrt(),
        );
    // Also from the first ball's travel in the hit's frame (its speed at the frame's end taken
    // as its speed since the hit: table friction and the cascade change it a little).
    let moved = DVec2::new(d.p[1].x - c.p[1].x, d.p[1].y - c.p[1].y).length();
    let t_hit_travel = d.t - moved / DVec2::new(d.v[1].x, d.v[1].y).length();
    eprintln!("four balls (Stewart & Trinkle 1996 §4.2)   paper   closed form   tumble (frame)          error vs closed form");
    eprintln!(
        "  thrown ball lands (s)                    {PAPER_LANDING:.2}    {cf_landing:.6}      {t_landing:.6} ({:.3}, {:.3}]   {:+.2e}",
        a.t,
        b.t,
        t_landing - cf_landing
    );
    eprintln!(
        "  hits the first ball (s)                  {PAPER_HIT:.2}    {cf_hit:.6}      {t_hit:.6} ({:.3}, {:.3}]   {:+.2e}",
        c.t,
        d.t,
        t_hit - cf_hit
    );
    eprintln!(
        "  the hit from the first ball's travel in its frame: {t_hit_travel:.6} s ({:+.2e})",
        t_hit_travel - cf_hit
    );
    eprintln!(
        "  rolling velocity after landing: [{:.6}, {:.6}] m/s, 5/7 of [1.5, 0.1] = [{:.6}, {:.6}] (rel. error {:.1e})",
        rolling.x,
        rolling.y,
        want_rolling.x,
        want_rolling.y,
        (rolling - want_rolling).length() / want_rolling.length()
    );
    eprintln!(
        "  errors vs paper: landing {:+.4} s, hit {:+.4} s",
        t_landing - PAPER_LANDING,
        t_hit - PAPER_HIT
    );
    let last = frames.last().unwrap();
    for (k, name) in ["thrown", "ball1", "ball2", "ball3"].iter().enumerate() {
        eprintln!(
            "  {name} at t = 1 s: position [{:.4}, {:.4}, {:.5}] velocity [{:+.4}, {:+.4}, {:+.4}]",
            last.p[k].x, last.p[k].y, last.p[k].z, last.v[k].x, last.v[k].y, last.v[k].z
        );
    }
    eprintln!(
        "  max penetration {:.2e} m, counts {:?}",
        world.max_penetration(),
        world.counts()
    );
    figure(&frames, (cf_landing, cf_hit));

    assert!(world.max_penetration() <= 0.0);
    assert!(a.t <= cf_landing && cf_landing <= b.t + 1e-6);
    assert!(
        (t_landing - cf_landing).abs() < LANDING_TOL,
        "landing at {t_landing} s, closed form {cf_landing} s"
    );
    assert!((rolling - want_rolling).length() < 1e-3 * want_rolling.length());
    assert!(c.t <= t_hit && t_hit <= d.t + 1e-5, "hit outside its frame");
    assert!(
        (t_hit - cf_hit).abs() < HIT_TOL,
        "hit at {t_hit} s, closed form {cf_hit} s"
    );
    assert!((t_landing - PAPER_LANDING).abs() <= PAPER_TOL);
    assert!((t_hit - PAPER_HIT).abs() <= PAPER_TOL);
    // The line is pushed to the right, every ball in its own direction.
    for k in 1..4 {
        assert!(
            last.p[k].x > frames[0].p[k].x + 0.01,
            "ball{k} did not move right"
        );
    }
}

fn figure(frames: &[Frame], (landing, hit): (f64, f64)) {
    let names = ["thrown ball", "ball 1", "ball 2", "ball 3"];
    let mut plan = Panel::new("x (m)", "y (m)").legend_at(SeriesLabelPosition::UpperLeft);
    plan.equal_aspect = true;
    let mut xs = Panel::new("t (s)", "x (m)")
        .mark("landing (closed form)", landing)
        .mark("hit (closed form)", hit)
        .mark("hit (paper)", PAPER_HIT)
        .legend_at(SeriesLabelPosition::UpperLeft);
    for (k, name) in names.iter().enumerate() {
        plan = plan.line(*name, frames.iter().map(|f| (f.p[k].x, f.p[k].y)).collect());
        xs = xs.line(*name, frames.iter().map(|f| (f.t, f.p[k].x)).collect());
    }
    let heights = Panel::new("t (s)", "height of the centre (m)")
        .line(
            "thrown ball",
            frames.iter().map(|f| (f.t, f.p[0].z)).collect(),
        )
        .mark("landing (paper)", PAPER_LANDING)
        .mark("landing (closed form)", landing)
        .mark("hit (closed form)", hit);
    figure_st::write(
        "four-balls",
        "Stewart & Trinkle's four balls: plan view, x(t), height of the thrown ball",
        &[plan, xs, heights],
    );
}
