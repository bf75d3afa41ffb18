//! `tumble check`: a scene validated and described without running it.

use crate::Failure;
use glam::DVec3;
use std::path::Path;
use tumble::body::Motion;
use tumble::scene;
use tumble::scene::{JointEnd, Scene};
use tumble::world::World;

/// `tumble check`: parse, build the world (mass properties, initial overlaps), print a summary.
pub fn check(path: &Path, verbose: bool) -> Result<(), Failure> {
    let scene = scene::load(path)?;
    let world = World::new(&scene)?;
    crate::warn(scene.warnings());
    crate::warn(scene.batch_warnings());
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
                "{name} (restitution {}, friction {}; {})",
                m.restitution,
                m.friction,
                tumble::plural::count(users, "body", "bodies")
            )
        })
        .collect();
    println!("  materials: {}", materials.join(", "));
    for source in &scene.sources {
        println!("{}", source_line(source));
    }
    for sink in &scene.sinks {
        let region = region_text(&sink.region);
        println!("  sink {} ({}): {region}", sink.name, sink.origin);
    }
    if !scene.material_pairs.is_empty() {
        let pairs: Vec<String> = scene
            .material_pairs
            .iter()
            .map(|p| format!("{}/{}", p.a, p.b))
            .collect();
        println!("  material pair overrides: {}", pairs.join(", "));
    }
    if verbose {
        println!("{}", bodies_table(&world));
        if !scene.joints.is_empty() {
            println!("{}", joints_table(&scene));
        }
    }
    Ok(())
}

/// A region for `tumble check`: centre, half extents, orientation unless none, the world box it
/// spans and its volume.
fn region_text(r: &scene::Region) -> String {
    let q = r.orientation;
    let turned = match q == glam::DQuat::IDENTITY {
        true => String::new(),
        false => format!(", orientation [{}, {}, {}, {}]", q.w, q.x, q.y, q.z),
    };
    let (lo, hi) = r.bounds();
    format!(
        "region centre {} m, half extents {} m{turned} (spans {} to {} m, {} m³)",
        vec3(r.center),
        vec3(r.half_extents),
        vec3(lo),
        vec3(hi),
        num(r.volume())
    )
}

/// A source, its region and what it pours, for `tumble check`.
fn source_line(s: &scene::SourceSpec) -> String {
    let kinds = match s.bodies.len() {
        1 => "one kind of body".to_string(),
        n => format!("a mix of {n} kinds of body"),
    };
    format!(
        "  source {} ({}): {}; {} bodies/s from {} s to {} s ({}), seed {}, {kinds}",
        s.name,
        s.origin,
        region_text(&s.region),
        num(s.rate),
        num(s.start),
        num(s.stop),
        tumble::plural::count(s.planned(), "body due", "bodies due"),
        s.seed
    )
}

/// Each body's mass properties as the world holds them: a dynamic body's mass, its centre of
/// mass (world, at the start) and principal moments of inertia with their axes (world); a fixed
/// or kinematic body's motion only (its mass is infinite).
fn bodies_table(world: &World) -> String {
    let mut lines = vec!["  mass properties (world frame at t = 0):".to_string()];
    for i in 0..world.body_count() {
        let b = world.body(i);
        let line = match b.motion {
            Motion::Dynamic => {
                let q = b.orientation;
                // Rounding leaves 1e-17 where an axis has no component: shown as 0.
                let clean =
                    |v: DVec3| DVec3::select(v.abs().cmplt(DVec3::splat(1e-12)), DVec3::ZERO, v);
                let axes = [q * DVec3::X, q * DVec3::Y, q * DVec3::Z].map(clean);
                format!(
                    "    {}: mass {} kg, centre of mass {} m, principal moments {} kg·m² \
                     about axes {}, {}, {}",
                    b.name,
                    num(1.0 / b.inv_mass),
                    vec3(b.position),
                    vec3(b.inertia),
                    vec3(axes[0]),
                    vec3(axes[1]),
                    vec3(axes[2]),
                )
            }
            Motion::Fixed => format!("    {}: fixed", b.name),
            Motion::Kinematic => format!("    {}: kinematic", b.name),
        };
        lines.push(line);
    }
    lines.join("\n")
}

/// Each joint: its kind, its two ends, anchor, axis and limits as the scene gives them.
fn joints_table(scene: &Scene) -> String {
    let end = |e: &JointEnd| match e {
        JointEnd::World => "the world".to_string(),
        JointEnd::Body(i) => format!("\"{}\"", scene.bodies[*i].name),
    };
    let mut lines = vec!["  joints (world frame at t = 0):".to_string()];
    for j in &scene.joints {
        let mut line = format!(
            "    {}: {} between {} and {}, anchor {} m",
            j.name,
            j.kind.as_str(),
            end(&j.bodies[0]),
            end(&j.bodies[1]),
            vec3(j.anchor)
        );
        if let Some(axis) = j.axis {
            line += &format!(", axis {}", vec3(axis));
        }
        if let Some([lo, hi]) = j.limits {
            line += &format!(", limits [{}, {}]", num(lo), num(hi));
        }
        lines.push(line);
    }
    lines.join("\n")
}

/// Six significant digits: enough to compare with a CAD tool's figures, short enough to read.
fn num(x: f64) -> String {
    let s = format!("{x:.5e}");
    match s.parse::<f64>() {
        Ok(v) if v == 0.0 || (1e-4..1e7).contains(&v.abs()) => format!("{v}"),
        _ => s,
    }
}

fn vec3(v: DVec3) -> String {
    format!("[{}, {}, {}]", num(v.x), num(v.y), num(v.z))
}
