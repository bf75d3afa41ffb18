//! Unit tests of the bench: the escape test, the `[bench]` table, the rates and the medians.

use super::report::median;
use super::*;
use crate::narrow_phase::{Collider, Pose};
use crate::shape::Shape;
use crate::world::Counts;
use glam::{DQuat, DVec3};
use std::path::Path;

fn ground() -> (Collider, Pose) {
    let shape = Shape::Box {
        half_extents: DVec3::new(10.0, 10.0, 0.5),
    };
    let collider = Collider::new(&shape, Pose::IDENTITY).unwrap();
    (
        collider,
        Pose::new(DVec3::new(0.0, 0.0, -0.5), DQuat::IDENTITY),
    )
}

#[test]
fn a_centre_inside_the_floor_or_below_it_has_escaped() {
    let check = EscapeCheck::new([ground()]);
    // Resting on the floor, and barely touching it.
    assert!(!check.escaped(DVec3::new(0.0, 0.0, 0.25), 0.3));
    assert!(!check.escaped(DVec3::new(0.0, 0.0, 1e-3), 0.3));
    // Centre inside the slab (within its bounding radius of the top, so by the narrow phase).
    assert!(check.escaped(DVec3::new(0.0, 0.0, -0.1), 0.3));
    // Under the slab, below it.
    assert!(check.escaped(DVec3::new(0.0, 9.0, -2.0), 0.3));
    assert!(!check.fell_off_edge(DVec3::new(0.0, 9.0, -2.0), 0.3));
    // Beside the slab (outside its footprint) and below the floor's top by more than the
    // radius: fell off the edge, not through the floor.
    assert!(!check.escaped(DVec3::new(50.0, 0.0, -2.0), 0.3));
    assert!(check.fell_off_edge(DVec3::new(50.0, 0.0, -2.0), 0.3));
    assert!(check.fell_off_edge(DVec3::new(0.0, -10.5, -2.0), 0.3));
    // Beside the slab and above that depth.
    assert!(!check.escaped(DVec3::new(50.0, 0.0, -0.2), 0.3));
    assert!(!check.fell_off_edge(DVec3::new(50.0, 0.0, -0.2), 0.3));
}

#[test]
fn a_centre_inside_a_wall_has_escaped() {
    let wall = Collider::new(
        &Shape::Box {
            half_extents: DVec3::new(0.25, 5.0, 2.0),
        },
        Pose::IDENTITY,
    )
    .unwrap();
    let turned = Pose::new(
        DVec3::new(3.0, 0.0, 4.0),
        DQuat::from_rotation_y(std::f64::consts::FRAC_PI_4),
    );
    let check = EscapeCheck::new([ground(), (wall, turned)]);
    assert!(check.escaped(DVec3::new(3.0, 0.0, 4.0), 0.3));
    assert!(check.escaped(DVec3::new(3.1, 1.0, 4.1), 0.3));
    // In the wall's box but outside the tilted wall itself.
    assert!(!check.escaped(DVec3::new(4.2, 0.0, 3.0), 0.3));
}

#[test]
fn bench_table_is_stripped_and_read() {
    let text = "[world]\nduration = 1.0\n\n[bench]\noutlet_z = 8\n\n[[bodies]]\nname = \"ball\"\n\
                shape = { type = \"sphere\", radius = 0.1 }\nmass = 1.0\nposition = [0.0, 0.0, 1.0]\n";
    let b = parse(text, Path::new("t.toml")).unwrap();
    assert_eq!(b.outlet_z, Some(8.0));
    assert_eq!(b.scene.bodies.len(), 1);
    assert_eq!(b.scene.world.duration, 1.0);

    let plain = parse("[world]\nduration = 2.0\n", Path::new("t.toml")).unwrap();
    assert_eq!(plain.outlet_z, None);

    let bad = parse("[bench]\noutlet = 1.0\n", Path::new("t.toml")).unwrap_err();
    assert!(
        bad.message
            .contains("t.toml: [bench]: unknown key \"outlet\""),
        "{bad}"
    );
    let bad = parse("[bench]\noutlet_z = \"low\"\n", Path::new("t.toml")).unwrap_err();
    assert!(bad.message.contains("outlet_z must be a number"), "{bad}");
}

#[test]
fn rates_are_counts_per_body_second_and_per_event() {
    let counts = Counts {
        collisions: 600,
        microcollisions: 200,
        held_resolutions: 200,
        heap_pops: 5000,
        toi_bounds: 20000,
        distance_queries: 3000,
        contact_steps: 10,
        resting_contacts: 1234,
        contact_iterations: 640,
        largest_island_sum: 90,
        island_plans: 3,
        ..Counts::default()
    };
    let r = Rates::of(&counts, 100, 2.0);
    assert_eq!(r.collisions_per_body_second, 3.0);
    assert_eq!(r.microcollisions_per_body_second, 1.0);
    assert_eq!(r.resolves_per_body_second, 1.0);
    assert_eq!(r.heap_pops_per_event, Some(5.0));
    assert_eq!(r.toi_bounds_per_event, Some(20.0));
    assert_eq!(r.distance_queries_per_event, Some(3.0));
    assert_eq!(r.contact_points_per_step, Some(123.4));
    assert_eq!(r.sweeps_per_step, Some(64.0));
    assert_eq!(r.mean_largest_island, Some(30.0));
    // Wall-time rates from the stage times: 0.5 s of event loop over 1 000 events, 0.2 ms of
    // sweeps over 4 000 point-sweeps; none without a stage or without a count.
    let counts = Counts {
        step_point_sweeps: 4000,
        ..counts
    };
    let times = serde_json::json!({"event_loop": 0.5, "contact_sweeps": 0.0002});
    let timed = Rates::of(&counts, 100, 2.0).with_stage_times(&counts, &times);
    assert_eq!(timed.event_loop_us_per_event, Some(500.0));
    let ns = timed.sweep_ns_per_point.expect("a sweep rate");
    assert!((ns - 50.0).abs() < 1e-9, "{ns}");
    let untimed = r.clone().with_stage_times(&Counts::default(), &times);
    assert_eq!(untimed.event_loop_us_per_event, None);
    assert_eq!(
        r.with_stage_times(&counts, &serde_json::json!({}))
            .sweep_ns_per_point,
        None
    );
    // Nothing to divide by: no figure rather than a NaN or an infinity.
    let none = Rates::of(&Counts::default(), 0, 0.0);
    assert_eq!(none.collisions_per_body_second, 0.0);
    assert_eq!(none.heap_pops_per_event, None);
    assert_eq!(none.sweeps_per_step, None);
}

#[test]
fn medians() {
    assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
    assert_eq!(median(vec![4.0, 1.0]), 2.5);
    assert_eq!(median(vec![]), 0.0);
}
