//! Simultaneous impacts (`world/impacts.rs`): the response to impacts at one instant does not
//! depend on the order the heap yields them, mirror-symmetric scenes stay symmetric, a Newton's
//! cradle still sends exactly one ball out, and no energy is created. In both resting modes.
use crate::common::*;
use glam::DVec3;
use tumble::scene::{RestingContactMode, Scene};
use tumble::world::World;

const MODES: [RestingContactMode; 2] = [
    RestingContactMode::Constraints,
    RestingContactMode::Microcollisions,
];

fn world(mut scene: Scene, mode: RestingContactMode) -> World {
    scene.world.config.resting_contact = mode;
    World::new(&scene).unwrap()
}

fn energy(w: &World) -> f64 {
    w.kinetic_energy()
}

/// A triangle rack of `rows` rows of balls of radius `r`, `gap` apart, apex at the origin,
/// pointing at −x, mirror-symmetric about y = 0; returns the bodies and, per ball, the index of
/// its mirror image.
fn rack(rows: usize, r: f64, gap: f64) -> (Vec<tumble::scene::BodySpec>, Vec<usize>) {
    let pitch = 2.0 * r + gap;
    let (mut bodies, mut at) = (Vec::new(), Vec::new());
    for row in 0..rows {
        for k in 0..=row {
            let x = row as f64 * pitch * 3f64.sqrt() / 2.0;
            let y = (k as f64 - row as f64 / 2.0) * pitch;
            bodies.push(body(
                &format!("ball_{row}_{k}"),
                sphere(r),
                0.17,
                DVec3::new(x, y, 0.0),
            ));
            at.push((row, k));
        }
    }
    let mirror = at
        .iter()
        .map(|&(row, k)| at.iter().position(|&q| q == (row, row - k)).unwrap())
        .collect();
    (bodies, mirror)
}

/// A cue ball head-on into a 15-ball rack 0.1 mm apart (no gravity, no table: the impacts
/// alone): every ball's velocity mirrors its image's, to rounding. Sequential resolution in
/// heap order broke this rack lopsided (mirror pairs leaving at very different speeds).
#[test]
fn a_symmetric_rack_breaks_symmetrically() {
    let r = 0.028575;
    for mode in MODES {
        let (mut bodies, mirror) = rack(5, r, 1e-4);
        let mut cue = body("cue", sphere(r), 0.17, DVec3::new(-0.5, 0.0, 0.0));
        cue.velocity = DVec3::new(8.0, 0.0, 0.0);
        bodies.push(cue);
        let mut w = world(scene(DVec3::ZERO, 0.95, 0.05, bodies), mode);
        let e0 = energy(&w);
        run(&mut w, 0.2, |_| {});
        let mut worst: f64 = 0.0;
        for (i, &j) in mirror.iter().enumerate() {
            let (vi, vj) = (w.body(i).velocity, w.body(j).velocity);
            let mismatch = (vi - DVec3::new(vj.x, -vj.y, vj.z)).length();
            worst = worst.max(mismatch);
        }
        let moving = (0..15)
            .filter(|&i| w.body(i).velocity.length() > 0.1)
            .count();
        eprintln!(
            "{mode:?}: worst mirror mismatch {worst:.2e} m/s, {moving} of 15 balls moving, energy \
             {:.6} of {e0:.6} J, {} simultaneous rounds, {} collisions",
            energy(&w),
            w.counts().simultaneous_impacts,
            w.counts().collisions
        );
        assert!(worst < 1e-6, "{mode:?}: mirror mismatch {worst}");
        assert!(w.counts().simultaneous_impacts > 0);
        assert!(moving >= 10, "{moving}");
        assert!(energy(&w) <= e0 * (1.0 + 1e-9));
        assert_eq!(w.max_penetration(), 0.0);
    }
}

/// Newton's cradle: five elastic balls 1 µm apart in a row, struck at 1 m/s: exactly one ball
/// leaves, at 1 m/s, and the others stay (a simultaneous solve of every touching pair would move
/// them all).
#[test]
fn a_newtons_cradle_sends_one_ball_out() {
    let r = 0.025;
    for mode in MODES {
        let mut bodies: Vec<_> = (0..5)
            .map(|k| {
                let x = k as f64 * (2.0 * r + 1e-6);
                body(&format!("ball{k}"), sphere(r), 0.2, DVec3::new(x, 0.0, 0.0))
            })
            .collect();
        let mut striker = body("striker", sphere(r), 0.2, DVec3::new(-0.2, 0.0, 0.0));
        striker.velocity = DVec3::X;
        bodies.push(striker);
        let mut w = world(scene(DVec3::ZERO, 1.0, 0.0, bodies), mode);
        run(&mut w, 0.5, |_| {});
        let speeds: Vec<f64> = (0..6).map(|i| w.body(i).velocity.x).collect();
        eprintln!("{mode:?}: speeds after (balls 0-4, striker) {speeds:?}");
        assert!((speeds[4] - 1.0).abs() < 1e-9, "{speeds:?}");
        for (i, s) in speeds.iter().enumerate().filter(|&(i, _)| i != 4) {
            assert!(s.abs() < 1e-9, "ball {i}: {s}");
        }
    }
}

/// Two balls strike a third at once, one along x and one along y (mirror images about the
/// diagonal), with gaps differing by less than the contact band: the impacts are simultaneous,
/// and the result is symmetric about the diagonal whichever strikes "first" by a few µm. With
/// the second gap 2 ε_c larger, the impacts are sequential and the result is not symmetric.
#[test]
fn impacts_within_the_band_are_simultaneous_and_beyond_it_sequential() {
    let r = 0.05;
    let eps = 1e-3;
    for mode in MODES {
        let run_with = |extra_gap: f64| {
            let target = body("target", sphere(r), 1.0, DVec3::ZERO);
            let mut a = body("from_x", sphere(r), 1.0, DVec3::new(-0.3, 0.0, 0.0));
            a.velocity = DVec3::new(2.0, 0.0, 0.0);
            let mut b = body(
                "from_y",
                sphere(r),
                1.0,
                DVec3::new(0.0, -0.3 - extra_gap, 0.0),
            );
            b.velocity = DVec3::new(0.0, 2.0, 0.0);
            let mut sc = scene(DVec3::ZERO, 0.8, 0.2, vec![target, a, b]);
            sc.world.config.collision_epsilon = eps;
            let mut w = world(sc, mode);
            let e0 = energy(&w);
            run(&mut w, 0.5, |_| {});
            let v = w.body(0).velocity;
            eprintln!(
                "  gap +{extra_gap}: target v {v}, {} simultaneous rounds, {} collisions",
                w.counts().simultaneous_impacts,
                w.counts().collisions
            );
            assert!(energy(&w) <= e0 * (1.0 + 1e-9));
            (v.x - v.y).abs() / v.length()
        };
        let within = run_with(0.3 * eps);
        let beyond = run_with(2.0 * eps);
        eprintln!(
            "{mode:?}: target's asymmetry |vx − vy|/|v|: gaps {} mm apart {within:.2e}, {} mm \
             apart {beyond:.2e}",
            0.3 * eps * 1e3,
            2.0 * eps * 1e3
        );
        assert!(within < 1e-9, "{within}");
        assert!(beyond > 1e-3, "{beyond}");
    }
}
