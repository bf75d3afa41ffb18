//! The step's event loop split into groups of islands on threads (`world/islands.rs`) ends bit
//! for bit where the one loop ends: same states, same counts, in both resting-contact modes,
//! and also when runs are made void (a body leaving its island's limits) and redone.

use crate::common::*;
use glam::{DQuat, DVec3};
use tumble::scene::{BodySpec, RestingContactMode, Scene};
use tumble::world::{BodyState, Counts, World};

/// The floor and `side`² sites 1 m apart (nothing from one site reaches another), each with
/// `stack` cubes of side 0.2 m one above the other, dropped from 0.3 m, tilted differently.
fn sites(side: usize, stack: usize) -> Vec<BodySpec> {
    let mut bodies = vec![floor()];
    for k in 0..side * side {
        let (x, y) = ((k % side) as f64, (k / side) as f64);
        for level in 0..stack {
            let mut b = body(
                &format!("c{k}_{level}"),
                cuboid(0.1, 0.1, 0.1),
                1.0,
                DVec3::new(x, y, 0.3 + 0.25 * level as f64),
            );
            let tilt = 0.05 + 0.3 * ((k * 7 + level * 3) % 11) as f64 / 11.0;
            b.orientation = DQuat::from_axis_angle(DVec3::new(1.0, 0.5, 0.2).normalize(), tilt);
            bodies.push(b);
        }
    }
    bodies
}

/// Runs `sc` for `t` seconds on two threads; `islands`: whether the event loop may split.
fn run_split(sc: &Scene, t: f64, islands: bool, margin: f64) -> (Counts, Vec<BodyState>) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(|| {
        let mut w = World::new(sc).expect("valid scene");
        w.set_parallel_islands(islands);
        w.set_island_margin(margin);
        run(&mut w, t, |_| {});
        let states: Vec<_> = (0..w.body_count()).map(|i| w.body_state(i)).collect();
        (w.counts().clone(), states)
    })
}

/// The counts less the split's own.
fn physics_counts(c: &Counts) -> Counts {
    Counts {
        parallel_loops: 0,
        parallel_escapes: 0,
        ..c.clone()
    }
}

fn assert_same_as_one_loop(sc: &Scene, t: f64, margin: f64) -> Counts {
    let (one, one_states) = run_split(sc, t, false, margin);
    let (split, split_states) = run_split(sc, t, true, margin);
    assert_eq!(one.parallel_loops + one.parallel_escapes, 0);
    assert!(one.collisions + one.microcollisions > 100, "{one:?}");
    assert_eq!(physics_counts(&one), physics_counts(&split));
    assert_eq!(one_states, split_states);
    split
}

/// 64 single cubes dropped at their sites, resting contacts as microcollisions.
fn microcollision_sites() -> Scene {
    let mut sc = scene(G, 0.5, 0.3, sites(8, 1));
    sc.world.config.resting_contact = RestingContactMode::Microcollisions;
    sc
}

#[test]
fn microcollision_sites_split_into_islands_and_end_bit_for_bit_as_one_loop() {
    let split = assert_same_as_one_loop(&microcollision_sites(), 0.8, 1.0);
    assert!(split.parallel_loops > 0, "{split:?}");
}

#[test]
fn constraint_sites_with_held_stacks_split_and_end_bit_for_bit_as_one_loop() {
    let sc = scene(G, 0.5, 0.3, sites(8, 2));
    let split = assert_same_as_one_loop(&sc, 0.5, 1.0);
    assert!(split.parallel_loops > 0, "{split:?}");
    assert!(
        split.held_resolutions + split.resting_contacts > 0,
        "{split:?}"
    );
}

/// With no margin, nearly every bounce takes a body out of its limit: each such run is void,
/// every body is put back and the one loop redoes the step, with the same result.
#[test]
fn void_island_runs_are_undone_exactly() {
    let split = assert_same_as_one_loop(&microcollision_sites(), 0.8, 0.0);
    assert!(split.parallel_escapes > 0, "{split:?}");
}

/// The contact step lengthens over a quiet stretch (`contact_step_max` 8× the shortest) while
/// the stacks still settle, so island runs re-solve held pairs after the length changed: the
/// pooled island worlds must re-solve with the present length, not the one they were made
/// with (they did not, and funnel.toml's results depended on the number of threads).
#[test]
fn island_runs_follow_the_adapted_contact_step() {
    let mut sc = scene(G, 0.5, 0.3, sites(8, 3));
    sc.world.config.contact_step_max = Some(8.0 * sc.world.config.contact_step);
    let split = assert_same_as_one_loop(&sc, 1.2, 1.0);
    assert!(split.parallel_loops > 0, "{split:?}");
    assert!(split.long_contact_steps > 0, "{split:?}");
    assert!(split.held_resolutions > 0, "{split:?}");
}
