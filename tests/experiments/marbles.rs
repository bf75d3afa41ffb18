//! Marbles (Mirtich & Canny 1994, §5.1, figure 10): a rolling marble hits a touching line of
//! four; only the far one leaves. Scene: `scenes/experiments/marbles.toml`.
use crate::figure::{self, Chart, Legend, Series};
use crate::gallery;

#[test]
fn marbles_only_the_far_marble_leaves() {
    let scene = gallery::scene("marbles.toml");
    let e = scene.materials["default"].restitution;
    let mu = scene.materials["default"].friction;
    let g = -scene.world.config.gravity.z;
    let rec = gallery::run(&scene, None);
    let names = ["striker", "marble_0", "marble_1", "marble_2", "marble_3"];
    let idx: Vec<usize> = names.iter().map(|n| rec.index(n)).collect();
    let far = idx[4];
    let mass = 1.0 / rec.world.body(far).inv_mass;
    let v0 = rec.frames[0].states[idx[0]].velocity.x;

    // The chain: the first frame in which the far marble moves at half the striker's speed.
    let launch = rec
        .frames
        .iter()
        .position(|f| f.states[far].velocity.x > 0.5 * v0)
        .expect("the far marble never left");
    // The frames either side of it (5 ms apart: floor friction changes the speeds by μ g 5 ms =
    // 0.25 % of v0 in that time).
    let (before, after) = (&rec.frames[launch - 1], &rec.frames[launch]);
    let px = |f: &gallery::Frame| {
        idx.iter()
            .map(|&i| mass * f.states[i].velocity.x)
            .sum::<f64>()
    };

    // Sequential pairwise collisions of equal balls: each passes (1 + e)/2 of its velocity on.
    let pass = 0.5 * (1.0 + e);
    let want_far = pass.powi(4) * v0;
    let v_far = after.states[far].velocity.x;
    let far_err = (v_far - want_far) / want_far;
    let rest: Vec<f64> = idx[..4]
        .iter()
        .map(|&i| after.states[i].velocity.x / v0)
        .collect();
    let p_err = (px(after) - px(before)) / px(before);
    let p_share = mass * v_far / px(before);

    // The far marble leaves without spin and rolls after 2 v / (7 μ g) at 5/7 of its launch speed.
    let t_roll = after.t + 2.0 * v_far / (7.0 * mu * g);
    let end = rec.frames.last().unwrap();
    let v_roll = end.states[far].velocity.x;
    let roll_err = (v_roll - 5.0 / 7.0 * v_far) / (5.0 / 7.0 * v_far);
    eprintln!(
        "marbles: chain by t = {:.3} s; far marble {v_far:.4} m/s, closed form ((1+e)/2)^4 v0 = \
         {want_far:.4} (err {:+.2} %), carries {:.1} % of the momentum; others v/v0 = {rest:.4?}; \
         x-momentum through the chain {:+.3} %; far marble at {:.2} s (rolling from {t_roll:.2} s) \
         {v_roll:.4} m/s, 5/7 of launch = {:.4} (err {:+.2} %); wall {:.3} s",
        rec.frames[launch].t,
        100.0 * far_err,
        100.0 * p_share,
        100.0 * p_err,
        end.t,
        5.0 / 7.0 * v_far,
        100.0 * roll_err,
        rec.wall
    );

    figure::write(&Chart {
        name: "marbles",
        title: "Marbles: a rolling marble hits a line of four (x of each centre)",
        x_label: "t (s)",
        y_label: "x (m)",
        series: names
            .iter()
            .zip(&idx)
            .map(|(n, &i)| Series::line(*n, rec.series(i, |s| s.position.x)))
            .collect(),
        equal_aspect: false,
        legend: Legend::UpperLeft,
    });

    assert!(
        far_err.abs() < 0.02,
        "far marble {v_far} m/s, want {want_far}"
    );
    assert!(
        p_share > 0.85,
        "far marble carries {p_share} of the momentum"
    );
    for (n, r) in names.iter().zip(&rest) {
        assert!(r.abs() < 0.05, "{n} keeps v/v0 = {r} after the chain");
    }
    assert!(
        p_err.abs() < 0.01,
        "x-momentum changed by {p_err} through the chain"
    );
    assert!(
        end.t > t_roll + 0.1,
        "run too short to see the far marble roll"
    );
    assert!(roll_err.abs() < 0.015, "far marble rolls at {v_roll}");
}
