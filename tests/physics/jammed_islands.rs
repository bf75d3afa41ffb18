//! The switch rule of jammed islands (`world/jam.rs`, Mirtich 1996 §4.2): what is not jammed
//! stays on events, bit for bit; a jam switches to one simultaneous step per contact step and
//! keeps the penetration bound; an island that calms returns to events.

use crate::common::*;
use glam::DVec3;
use std::path::Path;
use tumble::scene::{JammedIslands, Scene};
use tumble::world::{BodyState, Counts, World};

/// Runs `sc` to `t` with `mode`; the counts, the end states, and each frame's jammed bodies.
fn run_mode(sc: &Scene, t: f64, mode: JammedIslands) -> (Counts, Vec<BodyState>, Vec<usize>) {
    let mut sc = sc.clone();
    sc.world.config.jammed_islands = mode;
    let mut w = World::new(&sc).expect("valid scene");
    let mut jammed = Vec::new();
    run(&mut w, t, |w| jammed.push(w.jammed_bodies()));
    let states = (0..w.body_count()).map(|i| w.body_state(i)).collect();
    (w.counts().clone(), states, jammed)
}

#[test]
fn a_ball_dropped_on_a_resting_pile_bounces_by_events() {
    // Two layers of 4 × 4 cubes of side 0.2 m, 1 mm apart (one island of 32 through their held
    // pairs), and a ball dropped from 1 m above them onto the pile.
    let mut bodies = vec![floor()];
    for k in 0..32 {
        let (i, j, l) = (k % 4, (k / 4) % 4, k / 16);
        let at = DVec3::new(
            0.201 * i as f64,
            0.201 * j as f64,
            0.1005 + 0.2005 * l as f64,
        );
        bodies.push(body(&format!("c{k}"), cuboid(0.1, 0.1, 0.1), 1.0, at));
    }
    bodies.push(body("ball", sphere(0.1), 0.5, DVec3::new(0.3, 0.3, 1.4)));
    let sc = scene(G, 0.5, 0.4, bodies);
    let ball = sc.bodies.len() - 1;
    let (step, step_states, jammed) = run_mode(&sc, 1.0, JammedIslands::Step);
    let (events, event_states, _) = run_mode(&sc, 1.0, JammedIslands::Events);
    println!(
        "pile and ball: collisions {} (step) / {} (events), island steps {}, ball at {:.4} m",
        step.collisions, events.collisions, step.island_steps, step_states[ball].position.z
    );
    let first = jammed
        .iter()
        .position(|&n| n > 0)
        .map(|k| 0.02 * (k + 1) as f64);
    println!("first jammed frame end: {first:?}");
    assert_eq!(step.island_steps, 0, "{step:?}");
    assert!(jammed.iter().all(|&n| n == 0));
    assert_eq!(step, events);
    assert_eq!(step_states, event_states);
    // The ball hit the pile as an event (a collision with restitution), not as a stepped contact.
    assert!(step.collisions > 0, "{step:?}");
}

/// The bundled 250-cube funnel: the first rows of the lattice jam in the funnel's narrowing
/// walls at about 1.4 s; the pile drains through the outlet and settles on the ground.
fn funnel_250() -> Scene {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/funnel-250.toml");
    tumble::scene::load(&path).unwrap_or_else(|e| panic!("{}", e.message))
}

#[test]
fn rows_crushed_in_the_funnels_narrowing_walls_switch_to_steps_and_return_to_events() {
    let sc = funnel_250();
    let eps = sc.world.config.collision_epsilon;
    let mut w = World::new(&sc).expect("valid scene");
    let mut jammed = Vec::new();
    run(&mut w, 6.0, |w| jammed.push((w.time(), w.jammed_bodies())));
    let every: Vec<String> = jammed
        .iter()
        .step_by(10)
        .map(|j| format!("{:.1}:{}", j.0, j.1))
        .collect();
    println!("jammed bodies by time (s:bodies): {}", every.join(" "));
    let counts = w.counts().clone();
    let first = jammed.iter().find(|j| j.1 > 0).copied();
    let most = jammed.iter().map(|j| j.1).max().unwrap_or(0);
    let last = jammed.iter().rev().find(|j| j.1 > 0).copied();
    println!(
        "funnel-250 6 s: stepped islands {}, island steps {}, step collisions {}, event \
         collisions {}; first jammed {first:?}, most {most}, last {last:?}; deepest {:.3e} m",
        counts.stepped_islands,
        counts.island_steps,
        counts.step_collisions,
        counts.collisions,
        w.max_penetration()
    );
    // The jam switches...
    assert!(counts.stepped_islands >= 1 && most >= 20, "{counts:?}");
    assert!(counts.step_collisions > 0);
    // ...keeps the penetration bound...
    assert!(w.max_penetration() <= eps, "{}", w.max_penetration());
    // ...and, calmed, is handed back to the events well before the run's end.
    let (t_last, _) = last.expect("jammed at some frame");
    assert!(t_last < 4.0, "still jammed at {t_last} s");
    assert_eq!(jammed.last().map(|j| j.1), Some(0));
}
