//! Sanity bounds: scene values that are valid numbers but far outside what the engine can resolve
//! (a cylinder of 1e300 m, a contact step of 5e-324 s, a body at 1e155 m/s) are refused with the
//! reason and the key or the body, before they can hang a run, crash the geometry library or
//! pass silently. The numbers behind them are the engine's, in `world/resolution.rs`; each bound
//! and its reason is listed in docs/scene-format.md, Sanity bounds.
//!
//! The `[world]` time steps are checked when the file is read (their keys' positions are known
//! then); the bodies when the world is built from them ([`check_bodies`], from `World::new`),
//! once their sizes and masses are computed, and again for the duration a run is given
//! (`tumble run --duration`), since the clock's resolution depends on it.

use super::{PathSpec, Scene, SceneError, WorldSettings};
use crate::body::{Body, Motion};
use crate::narrow_phase::Pose;
use crate::shape::Shape;
use crate::world::resolution::{
    clock_resolution, magnitude, max_speed, max_spin, shortest_interval, surface_speed,
    CLOCK_TICKS, GJK_TOLERANCE, MAX_COORDINATE_OVER_EPSILON, MAX_SIZE_OVER_EPSILON,
    MAX_TURN_PER_FRAME, SPEED_REASON,
};
use glam::{DQuat, DVec3};

/// Most steps (contact steps, LCP time steps) one frame may split into: each costs at least
/// about 0.5 µs with a single body (a frame of 1e5 steps, 50 ms), and the frame's step count
/// allows a relative rounding of 1e-9 (`World::frame_steps`). The bundled scenes take at most 16.
pub const MAX_STEPS_PER_FRAME: f64 = 1e5;

/// Most frames times bodies a run may take: every frame costs every body its bookkeeping (its
/// advance, the broad phase, a row of frames.csv of about 100 bytes), so 1e9 is 100 GB of frames
/// and minutes of work at the least. The bundled scenes reach 5e6 (funnel-100k: 50 frames of
/// 100 005 bodies). A fuzz mutant of funnel-4000 with frame_period = 1e-6 asked for 2.4e10.
pub const MAX_BODY_FRAMES: f64 = 1e9;

/// Most a friction coefficient may be: measured coefficients stay below about 3 (silicone
/// rubber), and a contact with μ = 100 sticks under any push a hundred times its load; beyond,
/// nothing changes but that μ times an impulse overflows (μ = 1e300 made NaN impulses that the
/// contact solver's clamp panicked on). The bundled scenes use at most 0.9.
pub const MAX_FRICTION: f64 = 100.0;

/// Most ε_c may exceed the smallest dynamic body's bounding radius: ε_c is the width of the band
/// in which a pair counts as touching, and a band wider than a body makes bodies a body's size
/// apart a contact. The bundled scenes reach 0.05.
pub const MAX_EPSILON_OVER_SIZE: f64 = 1.0;

/// Most the heaviest dynamic body may outweigh the lightest: a light body pressed between heavy
/// ones takes a number of impacts that grows as the ratio (measured: 5.5e5 in 0.05 s at 1.7e5,
/// half a second of work; at 1e12 it never ends). The bundled scenes reach 12.
pub const MAX_MASS_RATIO: f64 = 1e6;

/// Lightest a body (or a compound's part) may be (kg), and the heaviest, [`MAX_MASS`]: impulses,
/// momenta and energies are masses times speeds and velocity changes inverse masses times
/// impulses, and a mass within 1e±100 leaves them 200 orders of magnitude of f64 headroom. Far
/// from anything simulated (a grain of sand is 1e-9 kg, the Earth 6e24 kg); a density of 1e300
/// made a sphere's mass overflow and its inertia NaN.
pub const MIN_MASS: f64 = 1e-100;

/// Heaviest a body (or a compound's part) may be (kg); see [`MIN_MASS`].
pub const MAX_MASS: f64 = 1e100;

/// Smallest principal moment of inertia a dynamic body may have (kg m²), and the largest,
/// [`MAX_MOMENT`]: the solver divides impulses' torques by them and multiplies them by squared
/// spins. A moment is a mass times a squared size, hence twice the exponent of [`MIN_MASS`].
pub const MIN_MOMENT: f64 = 1e-200;

/// Largest principal moment of inertia (kg m²); see [`MIN_MOMENT`].
pub const MAX_MOMENT: f64 = 1e200;

/// Memory a body takes from the scene file to a world's first frame (bytes): its scene record,
/// body, collider, boxes and pair bounds. Measured on lattices of cubes (8 000 and 72 000): 2.4 kB
/// per body to build the world (`tumble check`), 3.2 kB after the first frame; a dense resting
/// pile holds its contacts too, up to 15 kB per body.
pub const BYTES_PER_BODY: u64 = 3_200;

/// Most bodies a scene may have, all its `[[bodies]]` and lattices together: 10 million take
/// 32 GB at [`BYTES_PER_BODY`] to reach their first frame, more than most machines that run
/// tumble have, and a lattice's `count` past it is a typing mistake far more often than a plan
/// (the bundled scenes reach 100 005). Fixed, not the memory free at the moment, so that a scene
/// is valid or not whatever else the machine is doing; far below the 2^32 the event heap's body
/// numbers hold.
pub const MAX_BODIES: u64 = 10_000_000;

/// Why a scene has at most [`MAX_BODIES`] bodies, for the message.
pub const BODY_LIMIT_REASON: &str =
    "10 million bodies take about 32 GB of memory to start, at 3.2 kB each";

/// Most a dynamic body's mass times the square of its reach from a principal axis may exceed its
/// moment about that axis (`m d² / I`): the effective mass of its farthest point, `I / d²`, is
/// then at least 1e-4 of its mass. Beyond, an impulse there spins it up as a far lighter body
/// would move, and its contacts take impacts without end, as a light body's between heavy ones.
/// A uniform solid stays below about 20, the bundled scenes below 93 (the falling rod). Measured
/// on a fuzz mutant (a rattleback given its own inertia with one hull vertex moved 1 m out):
/// 0.13 s for 0.05 s simulated at 7.6e3, 24 s at 2.5e4, 31 s at 7.6e4.
pub const MAX_INERTIA_RATIO: f64 = 1e4;

/// A number for a message: as written when it is short (0.0025, 5e-324, 1e300), else to four
/// significant digits (f64's `Display` writes 1e300 as 301 digits, and a computed bound to 17).
pub fn short_number(x: f64) -> String {
    let ordinary = (1e-4..1e6).contains(&x.abs());
    let plain = x.to_string();
    let exponent = format!("{x:e}");
    if x == 0.0 || !x.is_finite() || (ordinary && plain.len() <= 10) {
        plain
    } else if !ordinary && exponent.len() <= 8 {
        exponent
    } else if ordinary {
        let decimals = (3 - x.abs().log10().floor() as i32).max(0) as usize;
        format!("{x:.decimals$}")
    } else {
        format!("{x:.3e}")
    }
}

/// The run's end for the clock's bounds: the duration, or one frame if that is longer.
fn run_end(w: &WorldSettings) -> f64 {
    w.duration.max(w.config.frame_period)
}

/// The `[world]` steps against the clock of a run of `w.duration` and against the frame, and
/// gravity against the contact band: the first out of bounds as the keys that set it (the one
/// at fault first, then those that make it so: a step is too short only for so long a run) and
/// why.
pub(super) fn check_world(w: &WorldSettings) -> Result<(), (Vec<&'static str>, String)> {
    let c = &w.config;
    let end = run_end(w);
    let shortest = shortest_interval(end);
    let mut steps = vec![("frame_period", c.frame_period)];
    steps.push(("contact_step", c.contact_step));
    if let Some(max) = c.contact_step_max {
        steps.push(("contact_step_max", max));
    }
    steps.push(("time_step", c.time_step));
    for (key, h) in steps {
        if h < shortest {
            return Err((
                vec![key, "duration"],
                format!(
                    "= {} s is shorter than the clock resolves in a run of {} s: times near {} s \
                     are f64 numbers {} s apart, and every interval the engine tells apart must \
                     span {CLOCK_TICKS} of them ({} s); shorten the duration or lengthen the step",
                    short_number(h),
                    short_number(w.duration),
                    short_number(end),
                    short_number(clock_resolution(end)),
                    short_number(shortest)
                ),
            ));
        }
        if key != "frame_period" && c.frame_period / h > MAX_STEPS_PER_FRAME {
            return Err((
                vec![key, "frame_period"],
                format!(
                    "= {} s splits each frame of {} s into more than {MAX_STEPS_PER_FRAME:e} \
                     steps, which would take the run for ever; lengthen the step or shorten \
                     frame_period",
                    short_number(h),
                    short_number(c.frame_period)
                ),
            ));
        }
    }
    let fastest = max_speed(c.collision_epsilon, end);
    let gained = c.gravity.length() * c.frame_period;
    if gained > fastest {
        return Err((
            vec!["gravity", "collision_epsilon", "frame_period", "duration"],
            format!(
                "gives a falling body {} m/s in one frame, faster than the {} m/s the engine \
                 resolves with collision_epsilon = {} m over {} s ({SPEED_REASON})",
                short_number(gained),
                short_number(fastest),
                short_number(c.collision_epsilon),
                short_number(end)
            ),
        ));
    }
    Ok(())
}

/// The frames of a run of `w.duration` times its `bodies` against [`MAX_BODY_FRAMES`]: the keys
/// that set it and why not.
pub(super) fn check_frames(
    w: &WorldSettings,
    bodies: usize,
) -> Result<(), (Vec<&'static str>, String)> {
    let frames = (w.duration / w.config.frame_period).ceil();
    let work = frames * bodies as f64;
    if work > MAX_BODY_FRAMES {
        return Err((
            vec!["frame_period", "duration"],
            format!(
                "= {} s makes {} frames of {} in {} s: {} body-frames, more than \
                 {MAX_BODY_FRAMES:e} (each costs its body's bookkeeping and a row of frames.csv, \
                 about 100 bytes); lengthen frame_period or shorten the duration",
                short_number(w.config.frame_period),
                short_number(frames),
                crate::plural::count(bodies, "body", "bodies"),
                short_number(w.duration),
                short_number(work)
            ),
        ));
    }
    Ok(())
}

/// The same check for a built world, its errors located by the scene file (the keys' lines are
/// not known here: `World::new` is also given scenes built in code, and durations from the
/// command line).
pub(super) fn check_world_of(scene: &Scene) -> Result<(), SceneError> {
    check_world(&scene.world)
        .and_then(|()| check_frames(&scene.world, scene.bodies.len()))
        .map_err(|(keys, why)| {
            SceneError::new(format!(
                "{}: [world] {} {why}",
                scene.source.display(),
                keys[0]
            ))
        })
}

/// What a body may not exceed, from the world's settings.
struct Bounds {
    epsilon: f64,
    frame_period: f64,
    end: f64,
    speed: f64,
    spin: f64,
}

/// The bodies against the sanity bounds, in body order, then the scene-wide ones (ε_c against the
/// smallest dynamic body, the mass ratio). `bodies` are the built bodies of `scene.bodies`, in
/// its order; each error names the body by `error`.
pub(super) fn check_bodies(
    scene: &Scene,
    bodies: &[Body],
    error: impl Fn(usize, String) -> SceneError,
) -> Result<(), SceneError> {
    let w = &scene.world;
    let bounds = Bounds {
        epsilon: w.config.collision_epsilon,
        frame_period: w.config.frame_period,
        end: run_end(w),
        speed: max_speed(w.config.collision_epsilon, run_end(w)),
        spin: max_spin(w.config.frame_period),
    };
    for (i, body) in bodies.iter().enumerate() {
        if matches!(scene.bodies[i].shape, Shape::Plane { .. }) {
            continue;
        }
        check_body(body, scene.bodies[i].path.as_ref(), &bounds).map_err(|why| error(i, why))?;
    }
    let dynamic = || bodies.iter().enumerate().filter(|(_, b)| b.is_dynamic());
    let smallest = dynamic().min_by(|x, y| x.1.bounding_radius.total_cmp(&y.1.bounding_radius));
    if let Some((i, b)) = smallest {
        if bounds.epsilon > MAX_EPSILON_OVER_SIZE * b.bounding_radius {
            return Err(error(
                i,
                format!(
                    "is smaller (bounding radius {} m) than [world] collision_epsilon = {} m, the \
                     band in which a pair counts as touching: bodies this far apart would be in \
                     contact; make collision_epsilon smaller than the smallest dynamic body",
                    short_number(b.bounding_radius),
                    short_number(bounds.epsilon)
                ),
            ));
        }
    }
    let mass = |b: &Body| 1.0 / b.inv_mass;
    let lightest = dynamic().min_by(|x, y| mass(x.1).total_cmp(&mass(y.1)));
    let heaviest = dynamic().max_by(|x, y| mass(x.1).total_cmp(&mass(y.1)));
    if let (Some((i, light)), Some((_, heavy))) = (lightest, heaviest) {
        if mass(heavy) > MAX_MASS_RATIO * mass(light) {
            return Err(error(
                i,
                format!(
                    "weighs {} kg, less than 1/{MAX_MASS_RATIO:e} of \"{}\" ({} kg): a body this \
                     light pressed between heavy ones takes impacts in proportion to the ratio \
                     (more than a run can finish)",
                    short_number(mass(light)),
                    heavy.name,
                    short_number(mass(heavy))
                ),
            ));
        }
    }
    Ok(())
}

/// One body (not a plane) against the bounds of size, coordinates, speed and spin; why not.
fn check_body(body: &Body, path: Option<&PathSpec>, b: &Bounds) -> Result<(), String> {
    let r = body.bounding_radius;
    if r > MAX_SIZE_OVER_EPSILON * b.epsilon {
        return Err(format!(
            "its size (bounding radius {} m) is more than {:.1e} times [world] collision_epsilon \
             = {} m: the geometry decides contacts to {GJK_TOLERANCE:.1e} of a pair's size, \
             coarser than the contact band; make the body smaller or collision_epsilon larger",
            short_number(r),
            MAX_SIZE_OVER_EPSILON,
            short_number(b.epsilon)
        ));
    }
    let reach = body.position.abs().max_element() + r + path.map_or(0.0, path_reach);
    if reach > MAX_COORDINATE_OVER_EPSILON * b.epsilon {
        return Err(format!(
            "reaches {} m from the origin, more than 2^36 times [world] collision_epsilon = {} m: \
             coordinates that large are f64 numbers too coarse to resolve the contact band; move \
             the scene nearer the origin",
            short_number(reach),
            short_number(b.epsilon)
        ));
    }
    if body.is_dynamic() {
        let (axis, reach, ratio) = inertia_ratio(body);
        let moment = body.inertia[axis];
        if ratio > MAX_INERTIA_RATIO || ratio.is_nan() {
            return Err(format!(
                "has a moment of inertia of {} kg m² about a principal axis, less than \
                 1/{MAX_INERTIA_RATIO:e} of its mass ({} kg) times the square of its reach from \
                 that axis ({} m): an impulse at its far end would spin it up as if it weighed \
                 next to nothing, and its contacts would take impacts without end; give it a \
                 larger inertia (or none: its shape's own)",
                short_number(moment),
                short_number(1.0 / body.inv_mass),
                short_number(reach)
            ));
        }
    }
    let (speed, spin) = match (&body.path, body.motion) {
        (_, Motion::Fixed) => return Ok(()),
        (Some(p), _) => (
            p.max_speed() + p.max_angular_speed() * body.rotation_radius,
            p.max_angular_speed(),
        ),
        (None, _) => (surface_speed(body), magnitude(body.angular_velocity)),
    };
    if let Some(PathSpec::Keyframes { times, .. }) = path {
        let last = times.last().copied().unwrap_or(0.0).abs().max(b.end);
        let shortest = shortest_interval(last);
        if let Some(pair) = times.windows(2).find(|t| t[1] - t[0] < shortest) {
            return Err(format!(
                "has path keys {} s apart (at {} s and {} s), closer than the clock resolves in a \
                 run to {} s (at least {} s, {CLOCK_TICKS} ulps of its end)",
                short_number(pair[1] - pair[0]),
                short_number(pair[0]),
                short_number(pair[1]),
                short_number(last),
                short_number(shortest)
            ));
        }
    }
    // NaN is out of bounds too.
    if spin > b.spin || spin.is_nan() {
        return Err(format!(
            "spins at {} rad/s, more than {MAX_TURN_PER_FRAME:e} rad per frame of {} s ({} \
             rad/s): its rotation would take the run for ever to integrate",
            short_number(spin),
            short_number(b.frame_period),
            short_number(b.spin)
        ));
    }
    if speed > b.speed || speed.is_nan() {
        return Err(format!(
            "moves at {} m/s (its fastest point), faster than the {} m/s the engine resolves with \
             collision_epsilon = {} m over a run of {} s: {SPEED_REASON}",
            short_number(speed),
            short_number(b.speed),
            short_number(b.epsilon),
            short_number(b.end)
        ));
    }
    Ok(())
}

/// The largest `m d² / I` over a dynamic body's principal axes ([`MAX_INERTIA_RATIO`]): the axis
/// (0, 1, 2), its reach `d` (from the body's box in its principal frame, a bound) and the ratio.
fn inertia_ratio(body: &Body) -> (usize, f64, f64) {
    let (lo, hi) = body.collider.aabb(&Pose {
        position: DVec3::ZERO,
        orientation: DQuat::IDENTITY,
    });
    let h = lo.abs().max(hi.abs());
    let reach = [h.y.hypot(h.z), h.x.hypot(h.z), h.x.hypot(h.y)];
    let mass = 1.0 / body.inv_mass;
    (0..3)
        .map(|k| (k, reach[k], mass * reach[k] * reach[k] / body.inertia[k]))
        .max_by(|a, b| a.2.total_cmp(&b.2))
        .unwrap_or((0, 0.0, 0.0))
}

/// How far a path takes its body's origin from the scene position, at most (m).
fn path_reach(path: &PathSpec) -> f64 {
    match path {
        PathSpec::Oscillate { amplitude, .. } => 2.0 * amplitude.abs().max_element(),
        PathSpec::Rock { .. } => 0.0,
        PathSpec::Keyframes { positions, .. } => positions
            .iter()
            .map(|p| p.abs().max_element())
            .fold(0.0, f64::max),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_numbers_stay_as_written_and_long_ones_take_four_digits() {
        assert_eq!(short_number(0.0025), "0.0025");
        assert_eq!(short_number(-1.0), "-1");
        assert_eq!(short_number(1e300), "1e300");
        assert_eq!(short_number(5e-324), "5e-324");
        assert_eq!(short_number(0.4330127018922193), "0.4330");
        assert_eq!(short_number(6871947.6736), "6.872e6");
        assert_eq!(short_number(1.1102230246251565e-15), "1.110e-15");
    }

    #[test]
    fn the_default_world_is_within_bounds_and_a_denormal_step_is_not() {
        let mut w = WorldSettings::default();
        assert_eq!(check_world(&w), Ok(()));
        w.config.contact_step = 5e-324;
        let (keys, why) = check_world(&w).unwrap_err();
        assert_eq!(keys[0], "contact_step");
        assert!(why.contains("shorter than the clock resolves"), "{why}");
        w.config.contact_step = 1e-9;
        let (keys, why) = check_world(&w).unwrap_err();
        assert_eq!(keys[0], "contact_step");
        assert!(why.contains("more than 1e5 steps"), "{why}");
    }
}
