//! Building a world from a scene: mass properties and principal frames, colliders, the
//! per-vertex bound's vertices, and the check that no two bodies overlap at the start.

use super::settings::Settings;
use super::stores::Stores;
use super::{Counts, World};
use crate::body::{Body, Motion};
use crate::mass_properties::{
    compound_mass_properties, mass_properties, principal_axes, MassProperties, PartMass,
};
use crate::narrow_phase::{box_corners, Collider, ContactPoint, Pose};
use crate::scene::{InertiaSpec, MassSpec, Scene, SceneError};
use crate::shape::Shape;
use glam::{DMat3, DQuat, DVec3};

/// Body-frame vertices of a polytope shape for the per-vertex TOI bound (see
/// [`crate::toi_bound::EnvelopeBound`]); empty for curved shapes and large hulls.
pub(super) fn bound_vertices(shape: &Shape, shape_to_body: &Pose) -> Vec<DVec3> {
    match shape {
        Shape::Box { half_extents } => box_corners(
            shape_to_body.position,
            shape_to_body.orientation,
            *half_extents,
        )
        .to_vec(),
        Shape::Convex { vertices }
        | Shape::Mesh {
            collision: crate::mesh::MeshCollision::Hull { vertices },
            ..
        } if vertices.len() <= crate::body::MAX_BOUND_VERTICES => vertices
            .iter()
            .map(|v| shape_to_body.position + shape_to_body.orientation * *v)
            .collect(),
        _ => Vec::new(),
    }
}

/// A dynamic body's mass, centre of mass and inertia tensor about it, in the shape's frame: the
/// shape's unit-density properties scaled to the body's mass or density, or the sum of a
/// compound's parts each at its own mass or density.
fn body_mass_properties(
    spec: &crate::scene::BodySpec,
) -> Result<(f64, DVec3, DMat3), crate::shape::ShapeError> {
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

pub(super) fn scene_error(
    scene: &Scene,
    body: &crate::scene::BodySpec,
    msg: impl std::fmt::Display,
) -> SceneError {
    let _ = scene;
    SceneError {
        message: format!("{}: body \"{}\": {}", body.origin, body.name, msg),
    }
}

impl World {
    /// Builds the world from a validated scene: mass properties, principal frames, colliders,
    /// and a check that no two bodies overlap at the start.
    pub fn new(scene: &Scene) -> Result<World, SceneError> {
        let materials = scene.material_table()?;
        let mut bodies = Vec::with_capacity(scene.bodies.len());
        for spec in &scene.bodies {
            let material = materials.index(&spec.material).ok_or_else(|| {
                scene_error(
                    scene,
                    spec,
                    format!("unknown material \"{}\"", spec.material),
                )
            })?;
            let is_plane = matches!(spec.shape, Shape::Plane { .. });
            if is_plane && spec.motion != Motion::Fixed {
                return Err(scene_error(scene, spec, "a plane must be a fixed body"));
            }
            // Body frame: centre of mass and principal axes for dynamic bodies; the shape frame
            // itself for fixed and kinematic ones (a kinematic body spins about its own origin).
            let (com, axes, inv_mass, inertia) = if spec.motion == Motion::Dynamic {
                let (mass, com, tensor) =
                    body_mass_properties(spec).map_err(|e| scene_error(scene, spec, e))?;
                let (moments, axes) = match spec.inertia {
                    // Moments along the axes of the shape's own tensor.
                    Some(InertiaSpec::Principal(given)) => (given, principal_axes(tensor).1),
                    // Moments and axes both from the given tensor (a rattleback's axes turned
                    // against its shape).
                    Some(InertiaSpec::Tensor(given)) => principal_axes(given),
                    None => principal_axes(tensor),
                };
                let valid = mass > 0.0
                    && mass.is_finite()
                    && moments.min_element() > 0.0
                    && moments.is_finite();
                if !valid {
                    return Err(scene_error(
                        scene,
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
            let collider = Collider::new(&spec.shape, shape_to_body)
                .map_err(|e| scene_error(scene, spec, e))?;
            let q_user = spec.orientation.normalize();
            let offset = q_user * com;
            let path = match &spec.path {
                None => None,
                Some(_) if spec.motion != Motion::Kinematic => {
                    return Err(scene_error(
                        scene,
                        spec,
                        "only a kinematic body may follow a path",
                    ));
                }
                Some(_) if spec.velocity != DVec3::ZERO || spec.angular_velocity != DVec3::ZERO => {
                    return Err(scene_error(
                        scene,
                        spec,
                        "a body on a path takes its velocities from the path: velocity and \
                         angular_velocity must be zero",
                    ));
                }
                // A kinematic body's body frame is its shape frame (com = 0, axes = identity).
                Some(p) => {
                    p.validate().map_err(|e| scene_error(scene, spec, e))?;
                    Some(std::sync::Arc::new(
                        crate::kinematic_path::KinematicPath::new(p.clone(), spec.position, q_user),
                    ))
                }
            };
            let mut body = Body {
                name: spec.name.clone(),
                motion: spec.motion,
                time: 0.0,
                position: spec.position + offset,
                orientation: (q_user * axes).normalize(),
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
                inv_inertia: if spec.motion == Motion::Dynamic {
                    1.0 / inertia
                } else {
                    DVec3::ZERO
                },
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
            };
            if let Some(path) = &body.path {
                let s = path.state_at(0.0);
                (body.position, body.orientation) = (s.position, s.orientation);
                (body.velocity, body.angular_velocity) = (s.velocity, s.angular_velocity);
            }
            body.rest_anchor = (body.position, body.orientation, 0.0);
            body.refresh_bounds();
            bodies.push(body);
        }
        let defs: Vec<crate::joints::JointDef> = scene.joints.iter().map(Into::into).collect();
        let joints = crate::joints::Joints::new(&defs, &bodies);
        let mut settings = Settings::new(&scene.world.config(), materials);
        if !joints.is_empty() {
            // A collision's impulse moves its whole articulation, which an island's stores
            // do not hold: jointed worlds run one event loop (same results, fewer threads).
            settings.parallel_islands = false;
        }
        let mut world = World {
            stores: Stores {
                bodies,
                settings,
                joints,
                clock: super::stores::Clock {
                    contact_step: scene.world.contact_step,
                    ..Default::default()
                },
                // Time 0, empty heap, grid and buffers.
                ..Stores::default()
            },
            stepper: super::Stepper::new(scene.world.method),
            // No stages, empty buffers.
            ..World::default()
        };
        world
            .stores
            .check_initial_overlaps(scene, &mut world.scratch.points)?;
        Ok(world)
    }
}

impl Stores {
    /// Reports the first pair of bodies that overlap at t = 0, by name.
    pub(super) fn check_initial_overlaps(
        &mut self,
        scene: &Scene,
        points: &mut Vec<ContactPoint>,
    ) -> Result<(), SceneError> {
        let pairs = self.collect_pairs(0.0);
        let mut overlaps = Vec::new();
        for (a, b) in pairs {
            let d = self.measure(a, b, points);
            if d < -1e-9 {
                overlaps.push(format!(
                    "\"{}\" and \"{}\" overlap by {:.3e} m",
                    self.bodies[a].name, self.bodies[b].name, -d
                ));
            }
        }
        self.stats.counts = Counts::default();
        if overlaps.is_empty() {
            Ok(())
        } else {
            let n = overlaps.len();
            overlaps.truncate(10);
            Err(SceneError {
                message: format!(
                    "{}: {} pair(s) of bodies overlap at t = 0: {}{}",
                    scene.source.display(),
                    n,
                    overlaps.join("; "),
                    if n > 10 { "; …" } else { "" }
                ),
            })
        }
    }
}
