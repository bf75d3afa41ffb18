//! Stewart & Trinkle (1996) §4.1, the falling rod (`scenes/experiments/falling-rod.toml`): a
//! capsule spinning in the xz-plane falls onto a table with zero restitution and μ = 0.6.
//!
//! The paper reports the first impact at t ≈ 0.383 s and the slap-down (both ends on the table)
//! at t ≈ 0.548 s, after which the rod slides left for about 0.02 s and stops. Beside the paper's
//! figures the test runs the paper's own method (`stewart_trinkle`: their implicit time stepping,
//! inelastic, Coulomb friction as a box in the plane, q⁺ = q + h v⁺) at their step
//! h = 2.5 ms and, as the converged reference, at h = 0.1 ms.
use crate::figure_st::{self, Panel};
use glam::DVec3;
use plotters::prelude::SeriesLabelPosition;
use std::path::Path;
use tumble::world::World;

/// The paper's data: half the length without the ends, radius, mass, moment of inertia,
/// friction, initial height, angle and spin.
const HALF: f64 = 0.25;
const RADIUS: f64 = 0.05;
const MASS: f64 = 1.0;
const INERTIA: f64 = 0.002;
const MU: f64 = 0.6;
const G: f64 = 9.81;
const Y0: f64 = 1.0;
const THETA0: f64 = std::f64::consts::FRAC_PI_6;
const OMEGA0: f64 = 4.0;

/// What the paper reports: impact, slap-down, and the slide after it (s).
const PAPER_IMPACT: f64 = 0.383;
const PAPER_FLAT: f64 = 0.548;
const PAPER_SLIDE: f64 = 0.02;
/// Tolerances against the paper: the paper's step (2.5 ms) and first-order position lag move its
/// events by a few milliseconds (its own method at h → 0 gives 0.3858 s and 0.5473 s).
const IMPACT_TOL: f64 = 0.005;
const FLAT_TOL: f64 = 0.005;
/// The slide after the slap-down: within 5 ms of the paper's 0.02 s.
const SLIDE_TOL: f64 = 0.005;
/// Both ends within this height (m) of the table: the rod lies flat.
const FLAT_GAP: f64 = 1e-4;

/// One sample of the planar motion: t, centre x and height, angle θ (from +x towards +z), vx,
/// vz, dθ/dt.
#[derive(Clone, Copy, Debug)]
struct Sample {
    t: f64,
    x: f64,
    z: f64,
    theta: f64,
    vx: f64,
    vz: f64,
    omega: f64,
}

/// The events of a run: first impact, slap-down (both ends on the table), end of the slide
/// after it (when the centre stops), final x.
#[derive(Clone, Copy, Debug)]
struct Events {
    impact: f64,
    flat: f64,
    stop: f64,
    final_x: f64,
}

/// Heights of the lowest points of the two ends above the table.
fn end_heights(z: f64, theta: f64) -> (f64, f64) {
    let s = HALF * theta.sin();
    (z + s - RADIUS, z - s - RADIUS)
}

/// The closed-form first contact: the lower end's height 1 − g t²/2 − (l/2) sin(θ₀ + ω t) − r
/// reaching zero (θ stays within (0, π) until then), by bisection.
fn closed_form_impact() -> f64 {
    let h = |t: f64| Y0 - 0.5 * G * t * t - HALF * (THETA0 + OMEGA0 * t).sin() - RADIUS;
    let (mut lo, mut hi) = (0.0, 0.6);
    assert!(h(lo) > 0.0 && h(hi) < 0.0);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if h(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Stewart & Trinkle's time stepping of the planar rod with step `h` to `t_end`: per step, the
/// impulses (normal ≥ 0 keeping each end's gap + h·u_n⁺ ≥ 0, friction within ±μ p_n, maximal
/// dissipation) by projected Gauss–Seidel to convergence, then q⁺ = q + h v⁺. The contact point is
/// the bottom of each end's circle. Returns the samples after every step and the events (an
/// event at the first step whose impulses involve it).
fn stewart_trinkle(h: f64, t_end: f64) -> (Vec<Sample>, Events) {
    let inv_m = [1.0 / MASS, 1.0 / MASS, 1.0 / INERTIA];
    let (mut x, mut y, mut th) = (0.0, Y0, THETA0);
    let mut v = [0.0, 0.0, OMEGA0];
    let steps = (t_end / h).round() as usize;
    let mut samples = Vec::with_capacity(steps);
    let (mut impact, mut flat, mut stop) = (None, None, None);
    let dot = |a: &[f64; 3], b: &[f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let k = |a: &[f64; 3]| a[0] * a[0] * inv_m[0] + a[1] * a[1] * inv_m[1] + a[2] * a[2] * inv_m[2];
    for step in 1..=steps {
        v[1] -= G * h;
        // (gap, normal row, tangent row) of each end near the table.
        let mut rows = Vec::new();
        for s in [1.0, -1.0] {
            let gap = y + s * HALF * th.sin() - RADIUS;
            if gap < 0.05 {
                let normal = [0.0, 1.0, s * HALF * th.cos()];
                let tangent = [1.0, 0.0, -(s * HALF * th.sin() - RADIUS)];
                rows.push((gap, normal, tangent, 0.0f64, 0.0f64));
            }
        }
        for _ in 0..500 {
            let mut change: f64 = 0.0;
            for (gap, n, tn, pn, pt) in rows.iter_mut() {
                let un = dot(n, &v);
                let next = (*pn + (-*gap / h - un) / k(n)).max(0.0);
                let d = next - *pn;
                *pn = next;
                for j in 0..3 {
                    v[j] += inv_m[j] * n[j] * d;
                }
                change = change.max(d.abs());
                let ut = dot(tn, &v);
                let next = (*pt - ut / k(tn)).clamp(-MU * *pn, MU * *pn);
                let d = next - *pt;
                *pt = next;
                for j in 0..3 {
                    v[j] += inv_m[j] * tn[j] * d;
                }
                change = change.max(d.abs());
            }
            if change < 1e-14 {
                break;
            }
        }
        x += h * v[0];
        y += h * v[1];
        th += h * v[2];
        let t = step as f64 * h;
        let active = rows.iter().filter(|r| r.3 > 0.0).count();
        if impact.is_none() && active > 0 {
            impact = Some(t);
        }
        if flat.is_none() && active == 2 {
            flat = Some(t);
        }
        if flat.is_some() && stop.is_none() && v[0].abs() < 1e-6 {
            stop = Some(t);
        }
        samples.push(Sample {
            t,
            x,
            z: y,
            theta: th,
            vx: v[0],
            vz: v[1],
            omega: v[2],
        });
    }
    let events = Events {
        impact: impact.expect("no impact"),
        flat: flat.expect("no slap-down"),
        stop: stop.expect("still sliding"),
        final_x: x,
    };
    (samples, events)
}

/// Runs the bundled scene to `t_end`, sampling every frame (1 ms). The impact is the frame in
/// which the first collision happened, the slap-down the first frame with both ends within
/// 0.1 mm of the table (the rod within 0.02° of flat; a resting end hovers within a few ε_c), the stop the first frame after it from which the centre moves less than
/// 1 µm per frame.
fn tumble_run(t_end: f64) -> (Vec<Sample>, Events, f64) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/experiments/falling-rod.toml");
    let scene = tumble::scene::load(&path).unwrap();
    let mut world = World::new(&scene).unwrap();
    let rod = world.body_index("rod").unwrap();
    let mut samples = Vec::new();
    let (mut impact, mut flat) = (None, None);
    while world.time() < t_end - 1e-12 {
        world.step_frame(t_end).expect("simulation failed");
        let s = world.body_state(rod);
        let axis = s.orientation * DVec3::Z;
        let sample = Sample {
            t: world.time(),
            x: s.position.x,
            z: s.position.z,
            theta: axis.z.atan2(axis.x),
            vx: s.velocity.x,
            vz: s.velocity.z,
            omega: -s.angular_velocity.y,
        };
        let c = world.counts();
        if impact.is_none() && c.collisions + c.microcollisions + c.held_resolutions > 0 {
            impact = Some(sample.t);
        }
        let (a, b) = end_heights(sample.z, sample.theta);
        if impact.is_some() && flat.is_none() && a.max(b) < FLAT_GAP {
            flat = Some(sample.t);
        }
        samples.push(sample);
    }
    let flat = flat.expect("the rod never lay flat");
    // The slide ends at the first frame after the slap-down from which x stays within 1 µm of
    // its final value.
    let final_x = samples.last().unwrap().x;
    let stop = samples
        .iter()
        .rev()
        .take_while(|s| (s.x - final_x).abs() < 1e-6)
        .last()
        .map(|s| s.t)
        .unwrap();
    let events = Events {
        impact: impact.expect("no impact"),
        flat,
        stop,
        final_x,
    };
    (samples, events, world.max_penetration())
}

/// Prints the three columns and writes the figure.
fn report(ours: &Events, coarse: &Events, fine: &Events, closed_form: f64) {
    eprintln!(
        "falling rod (Stewart & Trinkle 1996 §4.1)      paper   S&T h=2.5ms  S&T h=0.1ms   tumble"
    );
    eprintln!(
        "  first impact (s)                             {PAPER_IMPACT:.3}    {:.4}       {:.4}       {:.4}  (closed form {closed_form:.5})",
        coarse.impact, fine.impact, ours.impact
    );
    eprintln!(
        "  slap-down (s)                                {PAPER_FLAT:.3}    {:.4}       {:.4}       {:.4}",
        coarse.flat, fine.flat, ours.flat
    );
    eprintln!(
        "  slide after the slap-down (s)                {PAPER_SLIDE:.3}    {:.4}       {:.4}       {:.4}",
        coarse.stop - coarse.flat,
        fine.stop - fine.flat,
        ours.stop - ours.flat
    );
    eprintln!(
        "  final x (m)                                    -      {:.5}     {:.5}     {:.5}",
        coarse.final_x, fine.final_x, ours.final_x
    );
    eprintln!(
        "  errors vs paper: impact {:+.4} s, slap-down {:+.4} s, slide {:+.4} s",
        ours.impact - PAPER_IMPACT,
        ours.flat - PAPER_FLAT,
        (ours.stop - ours.flat) - PAPER_SLIDE
    );
    eprintln!(
        "  errors vs S&T h=0.1ms: impact {:+.4} s, slap-down {:+.4} s, slide {:+.4} s, final x {:+.5} m",
        ours.impact - fine.impact,
        ours.flat - fine.flat,
        (ours.stop - ours.flat) - (fine.stop - fine.flat),
        ours.final_x - fine.final_x
    );
}

fn figure(ours: &[Sample], coarse: &[Sample], fine: &[Sample], paper: (f64, f64)) {
    let pick = |s: &[Sample], window: (f64, f64), f: &dyn Fn(&Sample) -> f64| -> Vec<(f64, f64)> {
        s.iter()
            .filter(|p| p.t >= window.0 && p.t <= window.1)
            .map(|p| (p.t, f(p)))
            .collect()
    };
    let panel = |y: &str, window: (f64, f64), f: &dyn Fn(&Sample) -> f64| {
        Panel::new("t (s)", y)
            .line("tumble", pick(ours, window, f))
            .dashed("Stewart-Trinkle h = 2.5 ms", pick(coarse, window, f))
            .dashed("Stewart-Trinkle h = 0.1 ms", pick(fine, window, f))
            .mark("paper impact", paper.0)
            .mark("paper flat", paper.1)
    };
    let whole = (0.0, 0.7);
    figure_st::write(
        "falling-rod",
        "Stewart & Trinkle's falling rod: tumble against their time stepping",
        &[
            panel("angle (deg)", whole, &|s| {
                s.theta.to_degrees().rem_euclid(360.0)
            })
            .legend_at(SeriesLabelPosition::UpperLeft),
            panel("vertical velocity (m/s)", whole, &|s| s.vz)
                .legend_at(SeriesLabelPosition::LowerLeft),
            panel("spin dθ/dt (rad/s)", whole, &|s| s.omega)
                .legend_at(SeriesLabelPosition::UpperLeft),
            panel("horizontal velocity (m/s)", (0.3, 0.65), &|s| s.vx)
                .legend_at(SeriesLabelPosition::LowerLeft),
            panel("horizontal velocity (m/s)", (0.54, 0.62), &|s| s.vx)
                .legend_at(SeriesLabelPosition::LowerRight),
        ],
    );
}

/// The three runs: tumble, and Stewart & Trinkle's method at their step and converged.
fn runs() -> [(Vec<Sample>, Events); 3] {
    let (ours, events, penetration) = tumble_run(1.0);
    assert!(
        penetration <= 0.0,
        "the rod sank {penetration} m into the table"
    );
    let (coarse, coarse_events) = stewart_trinkle(0.0025, 1.0);
    let (fine, fine_events) = stewart_trinkle(1e-4, 1.0);
    report(&events, &coarse_events, &fine_events, closed_form_impact());
    figure(&ours, &coarse, &fine, (PAPER_IMPACT, PAPER_FLAT));
    [(ours, events), (coarse, coarse_events), (fine, fine_events)]
}

#[test]
fn falling_rod_hits_and_lies_flat_at_the_papers_times() {
    let [(ours, events), (_, coarse), (_, fine)] = runs();
    // The paper's own method reproduces its figures at its step (a check of our reading of the
    // set-up: the initial height of 1 m is not in the paper's text).
    assert!((coarse.impact - PAPER_IMPACT).abs() <= IMPACT_TOL);
    assert!((coarse.flat - PAPER_FLAT).abs() <= FLAT_TOL);
    assert!(((coarse.stop - coarse.flat) - PAPER_SLIDE).abs() <= 0.0025);
    // Event-driven: the first impact is in the frame that holds the closed-form time (less the
    // ε_c / 4 m/s it may come early).
    let t_cf = closed_form_impact();
    let frame = ours[1].t - ours[0].t;
    assert!(
        events.impact - frame <= t_cf && t_cf <= events.impact + 1e-5,
        "impact in the frame ending at {} s, closed form {t_cf} s",
        events.impact
    );
    assert!((events.impact - PAPER_IMPACT).abs() <= IMPACT_TOL);
    assert!(
        (events.flat - PAPER_FLAT).abs() <= FLAT_TOL,
        "slap-down at {} s, paper {PAPER_FLAT} s",
        events.flat
    );
    assert!((events.flat - fine.flat).abs() <= FLAT_TOL);
}

/// The slide after the slap-down: the slap's two points (the falling end and the pivot end a
/// few µm off the table) take the impact together, friction at both, so the rod keeps the
/// horizontal speed full Coulomb friction leaves it (0.112 m/s) and slides as in the paper.
#[test]
fn falling_rod_slides_as_long_as_in_the_paper() {
    let [(_, events), _, (_, fine)] = runs();
    let slide = events.stop - events.flat;
    assert!(
        (slide - PAPER_SLIDE).abs() <= SLIDE_TOL,
        "slid {slide} s after the slap-down, paper {PAPER_SLIDE} s"
    );
    assert!((events.final_x - fine.final_x).abs() < 2e-3);
}
