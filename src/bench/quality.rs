//! The quality figures of a run ([`Quality`], measured by [`quality()`]; see the `bench` module
//! doc) and the test of whether a body has escaped through the fixed bodies ([`EscapeCheck`]).

use crate::body::Motion;
use crate::narrow_phase::{proximity, Collider, ContactPoint, Pose};
use crate::shape::Shape;
use crate::world::World;
use glam::{DQuat, DVec3};

/// Radius of the probe sphere placed at a body's centre to ask "is this point inside a fixed
/// body?" through the narrow phase: small enough not to matter, but a real shape, so that every
/// collider pair has a path.
const PROBE_RADIUS: f64 = 1e-6;

/// The quality figures of one run (see the module doc).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Quality {
    /// Largest penetration depth seen (m).
    pub max_penetration: f64,
    /// Where it was seen (`None` if no pair ever overlapped).
    pub deepest_overlap: Option<OverlapPlace>,
    /// Dynamic bodies inside a fixed body or fallen through the floor at the end.
    pub escaped: usize,
    /// Dynamic bodies that left the floor's footprint and fell below its top (over its edge).
    pub fell_off_edge: usize,
    /// Dynamic bodies below `[bench] outlet_z` at the end; `None` without an outlet.
    pub through_outlet: Option<usize>,
}

/// Where a run saw its largest penetration: when, and between which bodies (by name).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct OverlapPlace {
    /// Simulated time of the measurement (s).
    pub time: f64,
    /// The two bodies' names.
    pub bodies: [String; 2],
}

/// The quality figures of `world` now (see the module doc).
pub fn quality(world: &World, outlet_z: Option<f64>) -> Quality {
    let check = EscapeCheck::new(
        (0..world.body_count())
            .filter(|&i| world.body_motion(i) == Motion::Fixed)
            .map(|i| (world.body(i).collider.clone(), world.body(i).pose())),
    );
    let dynamic: Vec<usize> = (0..world.body_count())
        .filter(|&i| world.body_motion(i) == Motion::Dynamic)
        .collect();
    let (mut escaped, mut fell_off_edge) = (0, 0);
    for &i in &dynamic {
        let b = world.body(i);
        escaped += usize::from(check.escaped(b.position, b.bounding_radius));
        fell_off_edge += usize::from(check.fell_off_edge(b.position, b.bounding_radius));
    }
    let through_outlet = outlet_z.map(|z| {
        dynamic
            .iter()
            .filter(|&&i| world.body(i).position.z < z)
            .count()
    });
    let deepest_overlap = world.deepest_overlap().map(|o| OverlapPlace {
        time: o.time,
        bodies: o.names,
    });
    Quality {
        max_penetration: world.max_penetration(),
        deepest_overlap,
        escaped,
        fell_off_edge,
        through_outlet,
    }
}

/// The fixed bodies, and the test of whether a body's centre has escaped through them.
pub struct EscapeCheck {
    /// Each fixed body's collider, pose and world box.
    fixed: Vec<(Collider, Pose, (DVec3, DVec3))>,
    /// Top of the floor's box (m): the fixed body whose box reaches lowest. `None` without fixed
    /// bodies, or when that top is unbounded (a tilted plane), where "below the floor" means
    /// nothing.
    floor_top: Option<f64>,
    /// The floor's footprint: its box's corners (only x and y are used).
    floor_box: (DVec3, DVec3),
    probe: Collider,
}

impl EscapeCheck {
    /// The check against these fixed bodies (collider and pose).
    pub fn new(fixed: impl IntoIterator<Item = (Collider, Pose)>) -> EscapeCheck {
        let fixed: Vec<_> = fixed
            .into_iter()
            .map(|(collider, pose)| {
                let aabb = collider.aabb(&pose);
                (collider, pose, aabb)
            })
            .collect();
        let floor = fixed
            .iter()
            .map(|(_, _, aabb)| *aabb)
            .min_by(|a, b| a.0.z.total_cmp(&b.0.z).then(a.1.z.total_cmp(&b.1.z)));
        let floor_top = floor.map(|(_, max)| max.z).filter(|top| top.is_finite());
        let floor_box = floor.unwrap_or((DVec3::ZERO, DVec3::ZERO));
        // The probe is a valid sphere by construction; failing here would be a bug in Collider.
        let probe = Collider::new(
            &Shape::Sphere {
                radius: PROBE_RADIUS,
            },
            Pose::IDENTITY,
        )
        .expect("a sphere of positive radius is a valid shape");
        EscapeCheck {
            fixed,
            floor_top,
            floor_box,
            probe,
        }
    }

    /// True if a body centred at `centre` with bounding radius `radius` is below the floor's top
    /// by more than `radius`.
    fn below_floor(&self, centre: DVec3, radius: f64) -> bool {
        self.floor_top.is_some_and(|top| centre.z < top - radius)
    }

    /// True if `centre` is over the floor's footprint, grown by `radius`.
    fn over_floor(&self, centre: DVec3, radius: f64) -> bool {
        let (min, max) = self.floor_box;
        centre.x >= min.x - radius
            && centre.x <= max.x + radius
            && centre.y >= min.y - radius
            && centre.y <= max.y + radius
    }

    /// True if a body centred at `centre` with bounding radius `radius` fell off the floor's
    /// edge: below its top by more than `radius`, outside its footprint.
    pub fn fell_off_edge(&self, centre: DVec3, radius: f64) -> bool {
        self.below_floor(centre, radius) && !self.over_floor(centre, radius)
    }

    /// True if a body centred at `centre` with bounding radius `radius` has escaped: fallen below
    /// the floor's top by more than `radius` over the floor, or its centre is inside a fixed body.
    pub fn escaped(&self, centre: DVec3, radius: f64) -> bool {
        if self.below_floor(centre, radius) {
            return self.over_floor(centre, radius);
        }
        let probe_pose = Pose::new(centre, DQuat::IDENTITY);
        let mut points: Vec<ContactPoint> = Vec::new();
        self.fixed.iter().any(|(collider, pose, (min, max))| {
            // Only a box that contains the centre can have it inside: most fixed bodies are far.
            let contained = centre.cmpge(*min).all() && centre.cmple(*max).all();
            // The probe's separation is the centre's signed distance less the probe radius, so
            // the centre is strictly inside when it is below -PROBE_RADIUS.
            contained
                && proximity(&self.probe, &probe_pose, collider, pose, 0.0, &mut points)
                    < -PROBE_RADIUS
        })
    }
}
