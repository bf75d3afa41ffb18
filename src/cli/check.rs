//! `tumble check`: a scene validated and described without running it.

use crate::Failure;
use std::path::Path;
use tumble::scene;
use tumble::world::World;

/// `tumble check`: parse, build the world (mass properties, initial overlaps), print a summary.
pub fn check(path: &Path) -> Result<(), Failure> {
    let scene = scene::load(path)?;
    World::new(&scene)?;
    let (w, duration) = (&scene.world.config, scene.world.duration);
    let (dynamic, fixed, kinematic) = scene.motion_counts();
    println!("{}: OK", path.display());
    println!(
        "  world: gravity [{}, {}, {}] m/s², duration {} s, frame period {} s, collision epsilon {} m",
        w.gravity.x, w.gravity.y, w.gravity.z, duration, w.frame_period, w.collision_epsilon
    );
    println!(
        "  bodies: {} ({dynamic} dynamic, {fixed} fixed, {kinematic} kinematic)",
        scene.bodies.len()
    );
    let materials: Vec<String> = scene
        .materials
        .iter()
        .map(|(name, m)| {
            let users = scene.bodies.iter().filter(|b| &b.material == name).count();
            format!(
                "{name} (restitution {}, friction {}; {users} bodies)",
                m.restitution, m.friction
            )
        })
        .collect();
    println!("  materials: {}", materials.join(", "));
    if !scene.material_pairs.is_empty() {
        let pairs: Vec<String> = scene
            .material_pairs
            .iter()
            .map(|p| format!("{}/{}", p.a, p.b))
            .collect();
        println!("  material pair overrides: {}", pairs.join(", "));
    }
    Ok(())
}
