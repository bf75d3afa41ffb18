//! Building a world from a scene: each `[[bodies]]` record's mass properties and principal
//! frame, its collider and its initial state, the joints, and the check that no two bodies
//! overlap at the start, every error named by file, line and body.
//!
//! The world itself is built from what this makes ([`World::from_bodies`]): the engine knows
//! nothing of scene files, so this constructor of the world lives with the file format.

use super::limits;
use super::{BodySpec, InertiaSpec, MassSpec, Scene, SceneError};
use crate::body::{bound_vertices, Body, Motion, WorldInertia};
use crate::geometry_guard::guarded;
use crate::joints::{JointDef, Joints};
use crate::mass_properties::{
    compound_mass_properties, mass_properties, principal_axes, MassProperties, PartMass,
};
use crate::material::MaterialTable;
use crate::narrow_phase::{Collider, Pose};
use crate::shape::Shape;
use crate::world::World;
use glam::{DMat3, DQuat, DVec3};

/// A dynamic body's mass, centre of mass and inertia tensor about it, in the shape's frame: the
/// shape's unit-density properties scaled to the body's mass or density, or the sum of a
/// compound's parts each at its own mass or density.
fn body_mass_properties(spec: &BodySpec) -> Result<(f64, DVec3, DMat3), crate::shape::ShapeError> {
    let parts = |masses: &[PartMass]| match &spec.shape {
        Shape::Compound { parts } => compound_mass_properties(parts, masses),
        other => Err(crate::shape::ShapeError::NotAllowed(format!(
            "per-part masses are for compounds only (got a {})",
            other.type_name()
        ))),
    };
    let scaled = |unit: MassProperties, mass: f64| {
        let scale = mass / unit.mass;
        (mass, unit.center_of_mass, unit.inertia * scale)
    };
    Ok(match &spec.mass {
        MassSpec::Mass(m) => scaled(mass_properties(&spec.shape, 1.0)?, *m),
        MassSpec::Density(rho) => {
            let unit = mass_properties(&spec.shape, 1.0)?;
            let mass = rho * unit.mass;
            scaled(unit, mass)
        }
        MassSpec::Parts(masses) => {
            let mp = parts(masses)?;
            (mp.mass, mp.center_of_mass, mp.inertia)
        }
    })
}

/// An error of one body, named by where it was defined and its name.
fn body_error(body: &BodySpec, msg: impl std::fmt::Display) -> SceneError {
    SceneError::new(format!("{}: body \"{}\": {}", body.origin, body.name, msg))
}

/// The body of `spec` at t = 0: its mass properties and principal frame, its collider and its
/// state, or an error naming the body.
pub(crate) fn body_from_spec(
    spec: &BodySpec,
    materials: &MaterialTable,
) -> Result<Body, SceneError> {
    let material = materials
        .index(&spec.material)
        .ok_or_else(|| body_error(spec, format!("unknown material \"{}\"", spec.material)))?;
    let is_plane = matches!(spec.shape, Shape::Plane { .. });
    if is_plane && spec.motion != Motion::Fixed {
        return Err(body_error(spec, "a plane must be a fixed body"));
    }
    // Body frame: centre of mass and principal axes for dynamic bodies; the shape frame
    // itself for fixed and kinematic ones (a kinematic body spins about its own origin).
    let (com, axes, inv_mass, inertia) = if spec.motion == Motion::Dynamic {
        let (mass, com, tensor) = guarded(|| body_mass_properties(spec))
            .map_err(|e| body_error(spec, e))?
            .map_err(|e| body_error(spec, e))?;
        let (moments, axes) = match spec.inertia {
            // Moments along the axes of the shape's own tensor.
            Some(InertiaSpec::Principal(given)) => (given, principal_axes(tensor).1),
            // Moments and axes both from the given tensor (a rattleback's axes turned
            // against its shape).
            Some(InertiaSpec::Tensor(given)) => principal_axes(given),
            None => principal_axes(tensor),
        };
        let valid =
            mass > 0.0 && mass.is_finite() && moments.min_element() > 0.0 && moments.is_finite();
        if !valid {
            return Err(body_error(
                spec,
                format!("mass {mass} and inertia {moments} must be finite and > 0"),
            ));
        }
        (com, axes, 1.0 / mass, moments)
    } else {
        (DVec3::ZERO, DQuat::IDENTITY, 0.0, DVec3::INFINITY)
    };
    let shape_to_body = Pose {
        position: axes.inverse() * -com,
        orientation: axes.inverse(),
    };
    let collider = guarded(|| Collider::new(&spec.shape, shape_to_body))
        .map_err(|e| body_error(spec, e))?
        .map_err(|e| body_error(spec, e))?;
    let q_user = spec.orientation.normalize();
    let offset = q_user * com;
    let path = match &spec.path {
        None => None,
        Some(_) if spec.motion != Motion::Kinematic => {
            return Err(body_error(spec, "only a kinematic body may follow a path"));
        }
        Some(_) if spec.velocity != DVec3::ZERO || spec.angular_velocity != DVec3::ZERO => {
            return Err(body_error(
                spec,
                "a body on a path takes its velocities from the path: velocity and \
                 angular_velocity must be zero",
            ));
        }
        // A kinematic body's body frame is its shape frame (com = 0, axes = identity).
        Some(p) => {
            p.validate().map_err(|e| body_error(spec, e))?;
            Some(std::sync::Arc::new(
                crate::kinematic_path::KinematicPath::new(p.clone(), spec.position, q_user),
            ))
        }
    };
    let orientation = (q_user * axes).normalize();
    let inv_inertia = if spec.motion == Motion::Dynamic {
        1.0 / inertia
    } else {
        DVec3::ZERO
    };
    let mut body = Body {
        name: spec.name.clone(),
        motion: spec.motion,
        time: 0.0,
        position: spec.position + offset,
        orientation,
        velocity: if spec.motion == Motion::Fixed {
            DVec3::ZERO
        } else {
            spec.velocity + spec.angular_velocity.cross(offset)
        },
        angular_velocity: if spec.motion == Motion::Fixed {
            DVec3::ZERO
        } else {
            spec.angular_velocity
        },
        inv_mass,
        inertia,
        inv_inertia,
        world_inertia: WorldInertia::new(orientation, inv_inertia),
        version: 0,
        spin: crate::ballistic::SpinBound::speed_only(0.0),
        symmetry_axis: collider.symmetry_axis(),
        bounding_radius: collider.bounding_radius(),
        rotation_radius: collider.rotation_radius(),
        convex: spec.shape.is_one_convex(),
        vertices: bound_vertices(&spec.shape, &shape_to_body),
        collider,
        material,
        com_in_shape: com,
        principal_axes: axes,
        asleep: false,
        rest_anchor: (DVec3::ZERO, DQuat::IDENTITY, 0.0),
        supported_at: f64::NEG_INFINITY,
        push: Default::default(),
        path,
        activity: 0,
        jammed: false,
        instant: [(f64::NEG_INFINITY, 0); 2],
    };
    if let Some(path) = &body.path {
        let s = path.state_at(0.0);
        (body.position, body.orientation) = (s.position, s.orientation);
        (body.velocity, body.angular_velocity) = (s.velocity, s.angular_velocity);
    }
    body.rest_anchor = (body.position, body.orientation, 0.0);
    body.refresh_bounds();
    Ok(body)
}

/// `body` (made by [`body_from_spec`] for a dynamic body) moved to shape-frame position
/// `position` and orientation `orientation` at time `time`, with the shape frame's velocities
/// `velocity` and `angular_velocity`: what [`body_from_spec`] makes of a spec with these values,
/// without computing its mass properties and collider again.
pub(crate) fn body_placed(
    mut body: Body,
    (position, orientation): (DVec3, DQuat),
    (velocity, angular_velocity): (DVec3, DVec3),
    time: f64,
) -> Body {
    let q_user = orientation.normalize();
    let offset = q_user * body.com_in_shape;
    body.time = time;
    body.position = position + offset;
    body.orientation = (q_user * body.principal_axes).normalize();
    body.velocity = velocity + angular_velocity.cross(offset);
    body.angular_velocity = angular_velocity;
    body.world_inertia = WorldInertia::new(body.orientation, body.inv_inertia);
    body.rest_anchor = (body.position, body.orientation, time);
    body.refresh_bounds();
    body
}

impl World {
    /// Builds the world from a validated scene: mass properties, principal frames, colliders,
    /// and a check that no two bodies overlap at the start.
    pub fn new(scene: &Scene) -> Result<World, SceneError> {
        let materials = scene.material_table()?;
        let mut bodies = Vec::with_capacity(scene.bodies.len());
        for spec in &scene.bodies {
            bodies.push(body_from_spec(spec, &materials)?);
        }
        limits::check_world_of(scene)?;
        limits::check_bodies(scene, &bodies, |i, why| body_error(&scene.bodies[i], why))?;
        let joints: Vec<JointDef> = scene.joints.iter().map(JointDef::from).collect();
        let joints = Joints::new(&joints, &bodies);
        let mut world = World::from_bodies(bodies, joints, &scene.world.config, materials);
        world.set_run_end(scene.world.duration);
        // A body is named with the line that defined it.
        let named = |i: usize| {
            let b = &scene.bodies[i];
            format!("\"{}\" ({})", b.name, b.origin)
        };
        // Ten are named; an eleventh says there are more.
        let overlaps = world.initial_overlaps(11).map_err(|(a, b, why)| {
            SceneError::new(format!(
                "{}: the contact geometry of bodies {} and {} at t = 0 could not be computed: \
                 {why} (a shape too large, too thin or too far out for f64 geometry)",
                scene.bodies[a].origin,
                named(a),
                named(b)
            ))
        })?;
        let Some(&(a0, _, _)) = overlaps.first() else {
            return Ok(world);
        };
        let n = overlaps.len();
        let listed: Vec<String> = overlaps
            .iter()
            .take(10)
            .map(|&(a, b, depth)| format!("{} and {} overlap by {depth:.3e} m", named(a), named(b)))
            .collect();
        let count = if n > 10 {
            "more than 10 pairs".to_string()
        } else {
            crate::plural::count(n, "pair", "pairs")
        };
        Err(SceneError::new(format!(
            "{}: {count} of bodies {} at t = 0: {}{}",
            scene.bodies[a0].origin,
            if n == 1 { "overlaps" } else { "overlap" },
            listed.join("; "),
            if n > 10 { "; …" } else { "" }
        )))
    }
}
