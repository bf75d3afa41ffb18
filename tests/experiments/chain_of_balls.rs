//! Chain of balls (Mirtich 1996, Table 1; the experiment is not described, and a chain of linked
//! balls would need joints): a chain of five touching balls struck by two, on a frictionless
//! floor. Two in, two out. Scene: `scenes/experiments/chain-of-balls.toml`.
use crate::figure::{self, Chart, Legend, Series};
use crate::gallery;
use tumble::scene::{ContactPush, RestingContactMode};

const NAMES: [&str; 7] = [
    "striker_0",
    "striker_1",
    "ball_0",
    "ball_1",
    "ball_2",
    "ball_3",
    "ball_4",
];

fn two_in_two_out(mode: RestingContactMode, push: ContactPush, figure_name: Option<&str>) {
    let mut scene = gallery::with_mode(gallery::scene("chain-of-balls.toml"), mode);
    scene.world.config.contact_push = push;
    let rec = gallery::run(&scene, None);
    let idx: Vec<usize> = NAMES.iter().map(|n| rec.index(n)).collect();
    let v0 = rec.frames[0].states[idx[0]].velocity.x;
    let mass = 1.0 / rec.world.body(idx[0]).inv_mass;
    // Along x only (the balls slide on a frictionless floor).
    let px = |f: &gallery::Frame| {
        idx.iter()
            .map(|&i| mass * f.states[i].velocity.x)
            .sum::<f64>()
    };
    let ex = |f: &gallery::Frame| {
        idx.iter()
            .map(|&i| 0.5 * mass * f.states[i].velocity.x.powi(2))
            .sum::<f64>()
    };
    let (p0, e0) = (px(&rec.frames[0]), ex(&rec.frames[0]));
    let p_err = rec
        .frames
        .iter()
        .map(|f| (px(f) - p0).abs() / p0)
        .fold(0.0, f64::max);
    let e_err = rec
        .frames
        .iter()
        .map(|f| (ex(f) - e0).abs() / e0)
        .fold(0.0, f64::max);
    let end = rec.frames.last().unwrap();
    let v: Vec<f64> = idx.iter().map(|&i| end.states[i].velocity.x / v0).collect();
    // Over the run after the strike, the largest speed of each ball that should be at rest.
    let strike = rec
        .frames
        .iter()
        .position(|f| f.states[idx[6]].velocity.x > 0.5 * v0)
        .expect("the far ball never left");
    let rest_max = idx[..5]
        .iter()
        .map(|&i| {
            rec.frames[strike..]
                .iter()
                .map(|f| f.states[i].velocity.x.abs() / v0)
                .fold(0.0, f64::max)
        })
        .fold(0.0, f64::max);
    eprintln!(
        "chain of balls ({mode:?}, {push:?} push-out): at {:.1} s v/v0 = {v:.4?} (two in, two out: 0 0 0 0 0 1 1); \
         the five left behind reach |v|/v0 {rest_max:.4} at most after the strike; momentum \
         within {:.2e}, energy within {:.2e} (relative) throughout; wall {:.3} s",
        end.t, p_err, e_err, rec.wall
    );
    if let Some(name) = figure_name {
        figure::write(&Chart {
            name,
            title: "Chain of balls: two strike five (x of each centre)",
            x_label: "t (s)",
            y_label: "x (m)",
            series: NAMES
                .iter()
                .zip(&idx)
                .map(|(n, &i)| Series::line(*n, rec.series(i, |s| s.position.x)))
                .collect(),
            equal_aspect: false,
            legend: Legend::UpperLeft,
        });
    }
    for (n, v) in NAMES.iter().zip(&v).skip(5) {
        assert!((v - 1.0).abs() < 0.01, "{n} leaves at v/v0 = {v}");
    }
    assert!(rest_max < 0.01, "a ball left behind moves at {rest_max} v0");
    assert!(p_err < 1e-3, "momentum changed by {p_err}");
    assert!(e_err < 1e-3, "energy changed by {e_err}");
}

#[test]
fn chain_of_balls_two_in_two_out() {
    two_in_two_out(
        RestingContactMode::Microcollisions,
        ContactPush::Velocity,
        Some("chain-of-balls"),
    );
}

/// With resting contacts as constraints and the default push-out (a velocity), the contact
/// step pushes the touching five apart for good on the frictionless floor.
#[test]
#[ignore = "known limit of contact_push = \"velocity\": the two leave at 0.985 and 1.015 v0 and \
            the five spread (up to 0.078 v0); contact_push = \"split\" is the next test"]
fn chain_of_balls_two_in_two_out_constraints() {
    two_in_two_out(RestingContactMode::Constraints, ContactPush::Velocity, None);
}

/// The touching five as resting contacts with split push-outs (`contact_push = "split"`): as
/// with microcollisions, two in, two out, the five left at rest.
#[test]
fn chain_of_balls_two_in_two_out_constraints_split() {
    two_in_two_out(RestingContactMode::Constraints, ContactPush::Split, None);
}
