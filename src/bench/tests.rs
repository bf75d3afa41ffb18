//! Unit tests of the bench: the escape test, the `[bench]` table, the rates and the medians.

use super::report::{self, median};
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

/// A run of `wall_time` seconds with `stage_times` and `resting_contacts` contact point-steps;
/// every other figure empty.
fn constructed_run(
    wall_time: f64,
    stage_times: serde_json::Value,
    resting_contacts: u64,
) -> RunReport {
    let counts = Counts {
        resting_contacts,
        contact_steps: 10,
        ..Counts::default()
    };
    RunReport {
        time_to_first_frame: 0.01,
        wall_time,
        sim_time: 2.0,
        wall_per_sim: Some(wall_time / 2.0),
        events_per_second: 0.0,
        heap_pops_per_second: 0.0,
        peak_memory_mib: None,
        event_loop_allocations: None,
        per_contact_point_step: PerContactPointStep::of(wall_time, &stage_times, &counts),
        stage_times,
        counts,
        quality: Quality {
            max_penetration: 0.0,
            deepest_overlap: None,
            escaped: 0,
            fell_off_edge: 0,
            through_outlet: None,
        },
        by_second: Vec::new(),
    }
}

#[test]
fn wall_and_stage_times_per_contact_point_step_are_medians_in_microseconds() {
    let scene = parse("[world]\nduration = 2.0\n", Path::new("t.toml"))
        .unwrap()
        .scene;
    let options = BenchOptions {
        backend: "cpu".into(),
        adapter: None,
        repeat: 3,
        duration: None,
        timeline: None,
    };
    // 250 000 contact point-steps: 1 s of wall time is 4 µs each.
    let run = |wall: f64, contact_step: f64| {
        constructed_run(
            wall,
            serde_json::json!({"contact_step": contact_step, "event_loop": 0.25}),
            250_000,
        )
    };
    let one = run(1.0, 0.5);
    let per = &one.per_contact_point_step;
    assert_eq!(per.contact_point_steps, 250_000);
    assert_eq!(per.wall_us, Some(4.0));
    assert_eq!(per.stages_us["contact_step"], Some(2.0));
    assert_eq!(per.stages_us["event_loop"], Some(1.0));

    // The bench's figures are the medians over the runs, as its other timing figures.
    let report = report::summarise(&scene, &options, vec![one, run(3.0, 0.75), run(2.0, 0.25)]);
    let per = &report.per_contact_point_step;
    assert_eq!(per.wall_us, Some(8.0));
    assert_eq!(per.stages_us["contact_step"], Some(2.0));
    assert_eq!(per.stages_us["event_loop"], Some(1.0));
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["per_contact_point_step"]["wall_us"], 8.0);
    assert_eq!(
        json["per_contact_point_step"]["stages_us"]["contact_step"],
        2.0
    );
    assert_eq!(
        json["per_contact_point_step"]["contact_point_steps"],
        250_000
    );
    assert_eq!(json["runs"][1]["per_contact_point_step"]["wall_us"], 12.0);
    let table = report.table();
    let line = |start: &str| {
        table
            .lines()
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no {start:?} in:\n{table}"))
            .split_whitespace()
            .last()
            .unwrap()
            .to_string()
    };
    assert_eq!(line("wall per contact point-step (µs)"), "8.000");
    assert_eq!(
        line("stage contact_step per contact point-step (µs)"),
        "2.000"
    );
    assert_eq!(line("median"), "8.000");

    // No contact points: no figure rather than a NaN or an infinity.
    let none = constructed_run(1.0, serde_json::json!({"contact_step": 0.0}), 0);
    let report = report::summarise(&scene, &options, vec![none]);
    let per = &report.per_contact_point_step;
    assert_eq!(per.wall_us, None);
    assert_eq!(per.stages_us["contact_step"], None);
    let json = serde_json::to_value(&report).unwrap();
    assert!(json["per_contact_point_step"]["wall_us"].is_null());
    assert!(json["per_contact_point_step"]["stages_us"]["contact_step"].is_null());
    let table = report.table();
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("wall per contact point-step (µs)") && l.ends_with("n/a")),
        "{table}"
    );
}
