//! A body's collision geometry ([`Collider`]: its convex parts or a half-space, in the body frame);
//! the collider's public queries (bounding and rotation radii, world AABB, support function)
//! combine its parts'.

use super::part::{BoxGeom, Part};
use super::part_tree::PartTree;
use super::pose::Pose;
use crate::mesh::MeshCollision;
use crate::shape::{Shape, ShapeError};
use glam::{DQuat, DVec3};

/// Collision geometry of one body, expressed in its body frame (origin at the centre of mass).
#[derive(Clone)]
pub struct Collider {
    /// The convex parts (one unless the shape is a compound); empty for a plane.
    pub(super) parts: Vec<Part>,
    /// `(unit normal, offset)` of the half-space `normal · x <= offset`, body frame.
    pub(super) plane: Option<(DVec3, f64)>,
    /// A tree over the parts when there are many (see `part_tree`).
    pub(super) tree: Option<PartTree>,
    /// The one part's geometry when the collider is a single box, kept here beside the body's
    /// pose: the bounds ask its support millions of times a run, and reading it through
    /// `parts` was a cache miss each (see [`Collider::support`]).
    single_box: Option<BoxGeom>,
    bounding_radius: f64,
    rotation_radius: f64,
    rolling_radius: f64,
}

impl std::fmt::Debug for Collider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Collider")
            .field(
                "parts",
                &self.parts.iter().map(|p| &p.geom).collect::<Vec<_>>(),
            )
            .field("plane", &self.plane)
            .field("bounding_radius", &self.bounding_radius)
            .field("rotation_radius", &self.rotation_radius)
            .finish()
    }
}

impl Collider {
    /// Builds the geometry of `shape` placed in the body frame by `shape_to_body` (the shape's
    /// origin and axes seen from the body frame). The orientation is normalised; a non-finite
    /// placement or an invalid shape (see [`Shape::validate`]) is an error.
    pub fn new(shape: &Shape, shape_to_body: Pose) -> Result<Collider, ShapeError> {
        shape.validate()?;
        let placement = checked_pose(shape_to_body)?;
        let mut parts = Vec::new();
        let mut plane = None;
        match shape {
            Shape::Plane { normal, offset } => {
                let len = normal.length();
                let n_shape = *normal / len;
                let d_shape = offset / len;
                // n·x ≤ d in the shape frame, x = R⁻¹ (y − t): (R n)·y ≤ d + (R n)·t.
                let n = placement.orientation * n_shape;
                plane = Some((n, d_shape + n.dot(placement.position)));
            }
            Shape::Compound { parts: list } => {
                for p in list {
                    let inner = Pose::new(p.position, p.orientation.normalize());
                    parts.push(Part::new(&p.shape, placement.compose(&inner))?);
                }
            }
            Shape::Mesh { mesh, collision } => match collision {
                MeshCollision::Hull { vertices } => {
                    let hull = Shape::Convex {
                        vertices: vertices.clone(),
                    };
                    parts.push(Part::new(&hull, placement)?);
                }
                MeshCollision::Decomposed { parts: pieces } => {
                    for vertices in pieces {
                        let piece = Shape::Convex {
                            vertices: vertices.clone(),
                        };
                        parts.push(Part::new(&piece, placement)?);
                    }
                }
                // A triangle without area touches nothing its neighbours do not.
                MeshCollision::Triangles => parts.extend(
                    (0..mesh.triangles.len())
                        .map(|k| mesh.corners(k))
                        .filter(|&c| crate::mesh::has_area(c))
                        .map(|c| Part::triangle(c, placement)),
                ),
            },
            _ => parts.push(Part::new(shape, placement)?),
        }
        let (bounding_radius, rotation_radius) = if plane.is_some() {
            (f64::INFINITY, f64::INFINITY)
        } else {
            parts.iter().fold((0.0f64, 0.0f64), |(b, r), p| {
                (b.max(p.bounding_radius()), r.max(p.rotation_radius()))
            })
        };
        let rolling_radius = parts.iter().map(Part::rolling_radius).fold(0.0, f64::max);
        let single_box = match (parts.as_slice(), plane) {
            ([part], None) => part.box_geom(),
            _ => None,
        };
        Ok(Collider {
            single_box,
            tree: PartTree::build(&parts),
            parts,
            plane,
            bounding_radius,
            rotation_radius,
            rolling_radius,
        })
    }

    /// Largest distance of any point of the body from the body-frame origin (∞ for a plane).
    pub fn bounding_radius(&self) -> f64 {
        self.bounding_radius
    }

    /// Bound on how fast the body's support function can change per unit angular speed: the
    /// largest distance from the origin of the body's "core" (0 for a ball centred on the origin,
    /// the half-length for a centred capsule, the bounding radius otherwise).
    ///
    /// Why it is a bound: the support function is `h(u) = max_p u · R p`, and by the envelope
    /// theorem `dh/dt = u · (ω × R p*) ≤ ω |p*|` at the support point `p*`. For a core dilated by a
    /// ball of radius ρ, `h = h_core + ρ` and only the core's points matter. For a compound, `h` is
    /// the largest of the parts' and so changes no faster than the fastest part. ∞ for a plane.
    pub fn rotation_radius(&self) -> f64 {
        self.rotation_radius
    }

    /// For a body that is one convex hull: the farthest any of its vertices within `slack` of its
    /// support along `direction` (body frame, unit) lies from the origin, where that is less than
    /// the rotation radius. While the body turns by at most θ, each vertex's extent along a fixed
    /// direction moves by at most θ times the rotation radius, so with `slack` twice that only
    /// those vertices can be extreme, and the support changes no faster than the spin across the
    /// direction times this radius (a rattleback's bottom, 4 cm from its centre, against its
    /// 10 cm ends). `None` for other bodies, or if every vertex qualifies.
    pub fn cap_radius(&self, direction: DVec3, slack: f64) -> Option<f64> {
        let [part] = self.parts.as_slice() else {
            return None;
        };
        let vertices = part.hull_vertices()?;
        let top = vertices
            .iter()
            .map(|v| direction.dot(*v))
            .fold(f64::NEG_INFINITY, f64::max);
        let radius = vertices
            .iter()
            .filter(|v| direction.dot(**v) >= top - slack)
            .map(|v| v.length())
            .fold(0.0, f64::max);
        (radius < self.rotation_radius).then_some(radius * (1.0 + 1e-12))
    }

    /// The body-frame line through the origin about which the whole body is symmetric (every
    /// part a ball centred on it, or a capsule or cylinder along it, and at least one of the
    /// latter), as a unit vector: turning the body about it moves none of its surface, so its
    /// support functions change only with the rest of its angular velocity. `None` otherwise
    /// (a polytope, a plane, balls alone).
    pub fn symmetry_axis(&self) -> Option<DVec3> {
        if self.plane.is_some() {
            return None;
        }
        let axis = self.parts.iter().find_map(|p| p.own_axis())?;
        self.parts
            .iter()
            .all(|p| p.symmetric_about(axis))
            .then_some(axis)
    }

    /// For a body that is one cylinder or capsule centred on its axis through the origin, its
    /// profile along that axis (see [`crate::toi_bound::axial_extent`]); `None` otherwise.
    pub fn axial_profile(&self) -> Option<crate::toi_bound::AxialProfile> {
        // A plane has no parts.
        let [part] = self.parts.as_slice() else {
            return None;
        };
        let axis = part.own_axis()?;
        if !part.symmetric_about(axis) {
            return None;
        }
        part.axial_profile(axis)
    }

    /// Largest radius of curvature of the body's surface (m; 0 for polytopes and planes): how
    /// far a contact moves over the surface per radian the body rolls on another.
    pub fn rolling_radius(&self) -> f64 {
        self.rolling_radius
    }

    /// Where a rolling contact is on this body: for a body point `p` (body frame) on the
    /// surface of a ball or a capsule part, that part's core point nearest `p` and its radius
    /// (the contact then lies at the core point plus the radius along the normal, wherever the
    /// body rolled); `None` if `p` is not within a tenth of a radius of such a surface.
    pub fn rolling_core(&self, p: DVec3) -> Option<(DVec3, f64)> {
        self.nearest_core(p).map(|(_, c, r)| (c, r))
    }

    /// The ball or capsule part (its index) whose surface a body point `p` (body frame) lies on,
    /// within a tenth of its radius, for a compound of several parts; `None` for a single part,
    /// or where the point is on no such part (as [`Collider::rolling_core`]).
    pub fn rolling_part(&self, p: DVec3) -> Option<usize> {
        if !self.is_rolling_compound() {
            return None;
        }
        self.nearest_core(p).map(|(k, _, _)| k)
    }

    /// Whether the body is a compound of several parts with a curved one among them: only then
    /// can its contacts lie on different balls or capsules ([`Collider::rolling_part`]).
    pub fn is_rolling_compound(&self) -> bool {
        self.parts.len() >= 2 && self.rolling_radius > 0.0
    }

    /// The ball or capsule part whose surface `p` (body frame) is nearest, within a tenth of
    /// its radius: its index, its core point nearest `p` and its radius. A body without a
    /// curved part has none.
    fn nearest_core(&self, p: DVec3) -> Option<(usize, DVec3, f64)> {
        if self.rolling_radius == 0.0 {
            return None;
        }
        self.parts
            .iter()
            .enumerate()
            .filter_map(|(k, part)| part.core_point(p).map(|(c, r)| (k, c, r)))
            .map(|(k, c, r)| ((p - c).length() - r, k, c, r))
            .filter(|&(off, _, _, r)| off.abs() <= 0.1 * r)
            .min_by(|x, y| x.0.abs().total_cmp(&y.0.abs()))
            .map(|(_, k, c, r)| (k, c, r))
    }

    /// World axis-aligned bounding box `(min, max)` at `pose` (infinite components for a plane).
    /// Exact (the smallest box) for every convex part.
    pub fn aabb(&self, pose: &Pose) -> (DVec3, DVec3) {
        if let Some(geom) = &self.single_box {
            // The general path below with its one part, bit for bit, without reading the
            // parts (a cache miss per body when a large world's boxes are found).
            let (lo, hi) = geom.aabb(pose);
            return (DVec3::INFINITY.min(lo), DVec3::NEG_INFINITY.max(hi));
        }
        if let Some((n, d)) = self.world_plane(pose) {
            // The half-space is bounded only along an axis it is perpendicular to.
            let mut min = DVec3::NEG_INFINITY;
            let mut max = DVec3::INFINITY;
            for i in 0..3 {
                let mut axis = DVec3::ZERO;
                axis[i] = 1.0;
                if n == axis {
                    max[i] = d;
                } else if n == -axis {
                    min[i] = -d;
                }
            }
            return (min, max);
        }
        if let (Some(tree), true) = (&self.tree, pose.orientation == DQuat::IDENTITY) {
            // Unturned (a fixed mesh, say): the parts' box in the body frame, moved. The same
            // box as the loop below, exactly (adding one position to every coordinate keeps
            // their order), without visiting thousands of triangles at every contact step.
            let (min, max) = tree.bounds();
            return (min + pose.position, max + pose.position);
        }
        self.parts.iter().fold(
            (DVec3::INFINITY, DVec3::NEG_INFINITY),
            |(min, max), part| {
                let (lo, hi) = part.aabb(pose);
                (min.min(lo), max.max(hi))
            },
        )
    }

    /// `Some((unit normal, offset))` if this is a plane: the solid half-space
    /// `normal · x <= offset` in the BODY frame (the caller maps it to the world with the body's
    /// pose; a fixed plane usually has the identity pose).
    pub fn plane(&self) -> Option<(DVec3, f64)> {
        self.plane
    }

    /// The support function `max_{x ∈ body} direction · x` in world terms with the body at `pose`
    /// (`direction` need not be unit). For a plane: its offset along its outward normal when
    /// `direction` is a positive multiple of it, else `+∞`.
    pub fn support(&self, pose: &Pose, direction: DVec3) -> f64 {
        if let Some(geom) = &self.single_box {
            // The general path below with its one part, bit for bit.
            let local = pose.orientation.inverse() * direction;
            let h = f64::NEG_INFINITY.max(geom.support(local));
            return h + direction.dot(pose.position);
        }
        if let Some((n, d)) = self.world_plane(pose) {
            let len = direction.length();
            return if direction == n * len {
                d * len
            } else {
                f64::INFINITY
            };
        }
        let local = pose.orientation.inverse() * direction;
        let h = self
            .parts
            .iter()
            .map(|p| p.support(local))
            .fold(f64::NEG_INFINITY, f64::max);
        h + direction.dot(pose.position)
    }

    /// The plane in world terms at `pose`.
    pub(super) fn world_plane(&self, pose: &Pose) -> Option<(DVec3, f64)> {
        self.plane.map(|(n, d)| {
            let nw = pose.orientation * n;
            (nw, d + nw.dot(pose.position))
        })
    }
}

/// Normalises the orientation of a placement; refuses non-finite ones.
fn checked_pose(pose: Pose) -> Result<Pose, ShapeError> {
    let q = pose.orientation;
    if !(pose.position.is_finite() && q.is_finite() && q.length_squared() > 0.0) {
        return Err(ShapeError::Degenerate(format!(
            "shape placement must be finite with a non-zero quaternion (got {pose:?})"
        )));
    }
    Ok(Pose::new(pose.position, q.normalize()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::Shape;

    /// A single box's inline geometry answers the support and the world box as the general
    /// path over its one part does, bit for bit (a turned box placed off the body's origin,
    /// at several poses).
    #[test]
    fn a_single_box_answers_as_its_part_does() {
        let shape = Shape::Box {
            half_extents: DVec3::new(0.5, 0.25, 1.5),
        };
        let placement = Pose::new(
            DVec3::new(0.1, -0.2, 0.3),
            DQuat::from_rotation_y(0.4).normalize(),
        );
        let single = Collider::new(&shape, placement).unwrap();
        assert!(single.single_box.is_some());
        let general = Collider {
            single_box: None,
            ..single.clone()
        };
        for k in 0..20 {
            let t = k as f64;
            let pose = Pose::new(
                DVec3::new(t.sin() * 3.0, t * 0.7, -t),
                DQuat::from_euler(glam::EulerRot::XYZ, t * 0.3, -t * 0.5, t * 1.1).normalize(),
            );
            let d = DVec3::new((t * 1.3).cos(), (t * 0.9).sin(), 0.5 - t * 0.01);
            let bits =
                |(lo, hi): (DVec3, DVec3)| [lo.x, lo.y, lo.z, hi.x, hi.y, hi.z].map(f64::to_bits);
            assert_eq!(
                bits(single.aabb(&pose)),
                bits(general.aabb(&pose)),
                "pose {k}"
            );
            assert_eq!(
                single.support(&pose, d).to_bits(),
                general.support(&pose, d).to_bits(),
                "pose {k}"
            );
        }
    }
}
