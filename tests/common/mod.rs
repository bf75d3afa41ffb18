//! Builders for scenes in tests, independent of the TOML parser.
#![allow(dead_code)]

use glam::{DQuat, DVec3};
use std::collections::BTreeMap;
use std::path::PathBuf;
use tumble::body::Motion;
use tumble::material::Material;
use tumble::scene::{BodySpec, MassSpec, Scene, WorldSettings};
use tumble::shape::Shape;
use tumble::world::World;
use tumble::world::WorldConfig;

/// A scene with one default material.
pub fn scene(gravity: DVec3, restitution: f64, friction: f64, bodies: Vec<BodySpec>) -> Scene {
    let mut materials = BTreeMap::new();
    materials.insert(
        "default".to_string(),
        Material {
            restitution,
            friction,
        },
    );
    Scene {
        source: PathBuf::from("test.toml"),
        world: WorldSettings {
            duration: 1.0,
            config: WorldConfig {
                gravity,
                frame_period: 0.02,
                collision_epsilon: 1e-3,
                sleep_time: 0.0,
                ..WorldConfig::default()
            },
        },
        materials,
        material_pairs: Vec::new(),
        bodies,
        joints: Vec::new(),
        batch: None,
        sources: Vec::new(),
        sinks: Vec::new(),
        probes: Vec::new(),
        files: Vec::new(),
    }
}

/// A dynamic body.
pub fn body(name: &str, shape: Shape, mass: f64, position: DVec3) -> BodySpec {
    BodySpec {
        name: name.to_string(),
        motion: Motion::Dynamic,
        shape,
        mass: MassSpec::Mass(mass),
        inertia: None,
        position,
        orientation: DQuat::IDENTITY,
        velocity: DVec3::ZERO,
        angular_velocity: DVec3::ZERO,
        material: "default".to_string(),
        path: None,
        origin: format!("test.toml ({name})"),
    }
}

/// A fixed body.
pub fn fixed(name: &str, shape: Shape, position: DVec3, orientation: DQuat) -> BodySpec {
    BodySpec {
        motion: Motion::Fixed,
        orientation,
        ..body(name, shape, 1.0, position)
    }
}

/// A sphere shape.
pub fn sphere(r: f64) -> Shape {
    Shape::Sphere { radius: r }
}

/// A box shape from half extents.
pub fn cuboid(hx: f64, hy: f64, hz: f64) -> Shape {
    Shape::Box {
        half_extents: DVec3::new(hx, hy, hz),
    }
}

/// A fixed floor box whose top face is z = 0.
pub fn floor() -> BodySpec {
    fixed(
        "floor",
        cuboid(50.0, 50.0, 0.5),
        DVec3::new(0.0, 0.0, -0.5),
        DQuat::IDENTITY,
    )
}

/// Runs `world` to `t_end`, calling `each` after every frame.
pub fn run(world: &mut World, t_end: f64, mut each: impl FnMut(&World)) {
    while world.time() < t_end - 1e-12 {
        world.step_frame(t_end).expect("simulation failed");
        each(world);
    }
}

pub const G: DVec3 = DVec3::new(0.0, 0.0, -9.81);
