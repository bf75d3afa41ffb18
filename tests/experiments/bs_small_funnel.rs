//! Bender & Schmitt's (2006 §4) funnel, the small bundled version (`scenes/small-funnel.toml`:
//! 50 cubes of 0.5 m through a funnel with a 2 m outlet at z = 4). After its 4 s, nothing may
//! penetrate anything, no cube may have escaped through a wall or the ground, and every cube is
//! through the outlet (centre below `[bench] outlet_z`), at rest, or passing through it (part of
//! it below the outlet's plane, falling): when the last cube leaves is chaotic, and one may be
//! half-way through at 4 s.
use crate::figure_st::{self, Panel};
use plotters::prelude::SeriesLabelPosition;
use std::path::Path;
use tumble::world::World;

/// A cube above the outlet counts as at rest below this speed (m/s) and spin times its
/// half-diagonal (m/s).
const REST_SPEED: f64 = 1e-2;

#[test]
fn small_funnel_ends_without_penetration_and_every_cube_through_or_resting() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/small-funnel.toml");
    let bench = tumble::bench::load(&path).unwrap();
    let outlet = bench
        .outlet_z
        .expect("small-funnel.toml has [bench] outlet_z");
    let scene = &bench.scene;
    let mut world = World::new(scene).unwrap();
    let cubes: Vec<usize> = (0..world.body_count())
        .filter(|&i| world.body(i).is_dynamic())
        .collect();
    let mut heights: Vec<Vec<(f64, f64)>> = cubes
        .iter()
        .map(|&i| vec![(0.0, world.body(i).position.z)])
        .collect();
    let mut through = vec![(0.0, 0.0)];
    let t_end = scene.world.duration;
    let clock = std::time::Instant::now();
    while world.time() < t_end - 1e-12 {
        world.step_frame(t_end).expect("simulation failed");
        for (k, &i) in cubes.iter().enumerate() {
            heights[k].push((world.time(), world.body(i).position.z));
        }
        let n = cubes
            .iter()
            .filter(|&&i| world.body(i).position.z < outlet)
            .count();
        through.push((world.time(), n as f64));
    }
    let wall = clock.elapsed().as_secs_f64();
    let quality = tumble::bench::quality(&world, Some(outlet));
    let mut stuck = Vec::new();
    let mut resting_above = 0;
    let mut passing = 0;
    for &i in &cubes {
        let b = world.body(i);
        if b.position.z < outlet {
            continue;
        }
        // The frame's reported motion: a body's own velocity inside a contact step carries the
        // step's share of gravity (g·h) even in a jam at rest.
        let s = world.body_state(i);
        let speed = s.velocity.length() + s.angular_velocity.length() * b.bounding_radius;
        if speed < REST_SPEED {
            resting_above += 1;
        } else if b.position.z - b.bounding_radius < outlet && b.velocity.z < 0.0 {
            passing += 1;
        } else {
            stuck.push(format!(
                "{} at z = {:.3} moving at {speed:.3} m/s",
                b.name, b.position.z
            ));
        }
    }
    eprintln!(
        "small funnel after {t_end} s ({wall:.2} s wall): {} of {} cubes through the outlet, {resting_above} resting above it, {passing} falling through it, {} moving above it; max penetration {:.2e} m, escaped {}, fell off the edge {}; {} collisions",
        quality.through_outlet.unwrap(),
        cubes.len(),
        stuck.len(),
        quality.max_penetration,
        quality.escaped,
        quality.fell_off_edge,
        world.counts().collisions
    );
    let mut z = Panel::new("t (s)", "cube centre height (m)");
    for h in heights {
        z = z.line("", h);
    }
    let z = z
        .dashed("outlet", vec![(0.0, outlet), (t_end, outlet)])
        .legend_at(SeriesLabelPosition::UpperRight);
    let n = Panel::new("t (s)", "cubes through the outlet")
        .line("below the outlet", through)
        .legend_at(SeriesLabelPosition::UpperLeft);
    figure_st::write(
        "small-funnel",
        "Small funnel (50 cubes): heights of the cube centres and the count through the outlet",
        &[z, n],
    );
    assert!(
        quality.max_penetration <= 0.0,
        "penetration {:e} m",
        quality.max_penetration
    );
    assert_eq!(quality.escaped, 0);
    assert_eq!(quality.fell_off_edge, 0);
    assert!(
        stuck.is_empty(),
        "cubes neither through nor resting: {stuck:#?}"
    );
}
