//! An impact on a resting pile: the held pairs it pushes are re-solved at the impact's instant
//! as one cluster (`World::resolve_held`, `World::rebound_after_collision`; Bender & Schmitt
//! 2006 §3.1) instead of link by link through the event heap. The cluster only chooses
//! impulses: the pile must stay free of penetration, gain no energy, settle, and end the same
//! on any number of threads.
use crate::common::*;
use glam::DVec3;
use tumble::scene::{BodySpec, RestingContactMode, Scene};
use tumble::world::{BodyState, Counts, World};

/// The floor, a 4 × 4 × 2 pile of 0.2 m cubes 0.5 mm apart (every neighbour within the
/// contact margin, so held side by side and on top of each other; at the contact step's target
/// separation, ε_c/2, so the steps do not lift the pile and its energy can only fall), and a
/// cube 0.5 m above the pile's middle, turned so that it lands on an edge.
fn pile_and_falling_cube() -> Scene {
    let mut bodies: Vec<BodySpec> = vec![floor()];
    let gap = 5e-4;
    let pitch = 0.2 + gap;
    for k in 0..32 {
        let (x, y, z) = ((k % 4) as f64, ((k / 4) % 4) as f64, (k / 16) as f64);
        let at = DVec3::new((x - 1.5) * pitch, (y - 1.5) * pitch, 0.1 + gap + z * pitch);
        bodies.push(body(&format!("c{k}"), cuboid(0.1, 0.1, 0.1), 1.0, at));
    }
    let mut falling = body(
        "falling",
        cuboid(0.1, 0.1, 0.1),
        1.0,
        DVec3::new(0.05, -0.03, 0.9),
    );
    falling.orientation = glam::DQuat::from_rotation_x(0.3) * glam::DQuat::from_rotation_z(0.2);
    bodies.push(falling);
    let mut sc = scene(G, 0.48, 0.5, bodies);
    sc.world.config.resting_contact = RestingContactMode::Constraints;
    sc
}

/// Runs the scene to `t` on a pool of `threads` threads: counts, final states, the largest
/// total energy seen after the impact began, the energy at the start, and the lowest body
/// bottom seen (centre height less the half side).
fn run_pile(t: f64, threads: usize) -> (Counts, Vec<BodyState>, f64, f64, f64) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let mut w = World::new(&pile_and_falling_cube()).unwrap();
        let energy = |w: &World| w.kinetic_energy() + w.potential_energy();
        let start = energy(&w);
        let (mut highest, mut lowest) = (f64::NEG_INFINITY, f64::INFINITY);
        run(&mut w, t, |w| {
            highest = highest.max(energy(w));
            for i in 1..w.body_count() {
                lowest = lowest.min(w.body(i).position.z - 0.1);
            }
        });
        let states = (0..w.body_count()).map(|i| w.body_state(i)).collect();
        (w.counts().clone(), states, highest, start, lowest)
    })
}

#[test]
fn an_impact_on_a_resting_pile_is_resolved_as_a_cluster() {
    let (counts, states, highest, start, lowest) = run_pile(1.2, 2);
    eprintln!(
        "pile hit by a cube: {} collisions, {} re-solves ({} inside clusters), energy {start:.6} \
         J at the start, at most {highest:.6} J, lowest bottom {lowest:.2e} m",
        counts.collisions, counts.held_resolutions, counts.cluster_resolutions
    );
    assert!(counts.collisions > 0, "the cube never hit the pile");
    assert!(
        counts.cluster_resolutions > 0,
        "no held pair was re-solved inside a cluster: {counts:?}"
    );
    // Every body a cluster moved is bounded again from the impact's instant on: nothing
    // overlaps and nothing sinks into the floor.
    assert_eq!(counts.unresolved_contacts, 0);
    assert!(lowest > -1e-3, "a cube sank {lowest} m into the floor");
    // Collision impulses only remove energy; the contact steps' push-out may do positive work
    // restoring a shortfall below the target separation, at most lifting the pile by ε_c: so
    // no frame's end may have more than the start plus M·g·ε_c (0.32 J here, against the
    // falling cube's 4.9 J of impact).
    let slack = 33.0 * G.length() * 1e-3;
    assert!(
        highest <= start + slack,
        "energy rose from {start} J to {highest} J (allowed {slack} J)"
    );
    // The pile settled: after the impact, nothing is still moving fast.
    for s in &states[1..] {
        assert!(
            s.velocity.length() < 0.05,
            "a body still moves at {} m/s",
            s.velocity.length()
        );
    }
    // And the cluster is the same on one thread as on two, bit for bit.
    let (one, one_states, ..) = run_pile(1.2, 1);
    assert_eq!(counts, one);
    assert_eq!(states, one_states);
}
