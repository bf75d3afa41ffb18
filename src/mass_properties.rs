//! Exact mass properties of shapes: volume, mass, centre of mass and inertia tensor at uniform
//! density, and the principal axes of an inertia tensor.
//!
//! - Sphere, box, cylinder and capsule: closed forms (the capsule's hemispherical caps shifted by
//!   the parallel-axis theorem, see `capsule_unit`).
//! - Convex: the hull of the vertices (parry's quickhull), then Mirtich's exact polyhedral
//!   mass-properties method (B. Mirtich, "Fast and Accurate Computation of Polyhedral Mass
//!   Properties", J. Graphics Tools 1(2), 1996): the volume integrals reduce by the divergence
//!   theorem to face integrals, which reduce by projection onto a coordinate plane and Green's
//!   theorem to line integrals along the face edges. Exact up to rounding for any closed polyhedron.
//! - Mesh: a closed mesh's own solid by the same method over its triangles (also when it
//!   collides as a hull or as convex pieces), an open mesh's hull when it collides as one.
//! - Compound: the parts summed, each rotated into the compound's frame and shifted to the common
//!   centre of mass by the parallel-axis theorem. At one density the parts are assumed not to
//!   overlap (a convex decomposition; an overlap is counted twice). With a mass or density per
//!   part ([`compound_mass_properties`]) overlapping parts simply add: a dense ball inside a light
//!   shell is the shell's mass plus the ball's.
//! - [`principal_axes`]: cyclic Jacobi rotations on the symmetric 3×3 tensor.

use crate::mesh::{MeshCollision, TriangleMesh};
use crate::shape::{CompoundPart, Shape, ShapeError};
use glam::{DMat3, DQuat, DVec3};
use std::f64::consts::PI;

/// Mass, centre of mass and inertia tensor of a solid of uniform density, in the shape's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProperties {
    /// Mass (kg).
    pub mass: f64,
    /// Centre of mass in the shape's frame (m).
    pub center_of_mass: DVec3,
    /// Inertia tensor about the centre of mass, axes of the shape's frame (kg m²).
    pub inertia: DMat3,
}

/// Volume (m³) of a shape. Errors for planes (infinite) and degenerate shapes.
pub fn volume(shape: &Shape) -> Result<f64, ShapeError> {
    Ok(unit_density(shape)?.mass)
}

/// Mass properties of `shape` at uniform `density` (kg/m³). Errors for planes and degenerate shapes,
/// and for a density that is not finite and positive.
pub fn mass_properties(shape: &Shape, density: f64) -> Result<MassProperties, ShapeError> {
    if !(density.is_finite() && density > 0.0) {
        return Err(ShapeError::BadDimension {
            what: "density",
            value: density,
        });
    }
    let unit = unit_density(shape)?;
    Ok(MassProperties {
        mass: unit.mass * density,
        center_of_mass: unit.center_of_mass,
        inertia: unit.inertia * density,
    })
}

/// How much one part of a compound weighs: its own total mass or its own uniform density.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PartMass {
    /// The part's mass (kg).
    Mass(f64),
    /// The part's uniform density (kg/m³).
    Density(f64),
}

/// Mass properties of a compound whose parts each carry their own [`PartMass`] (`masses[i]` for
/// `parts[i]`), in the compound's frame: the sum of the parts' masses, their mass-weighted centre,
/// and each part's tensor rotated into the compound's frame and shifted to that centre by the
/// parallel-axis theorem. Overlapping parts add. Errors when the lengths differ, for a value that
/// is not finite and positive, and for a part that cannot be built.
pub fn compound_mass_properties(
    parts: &[CompoundPart],
    masses: &[PartMass],
) -> Result<MassProperties, ShapeError> {
    if parts.is_empty() || parts.len() != masses.len() {
        return Err(ShapeError::NotAllowed(format!(
            "a compound of {} parts needs one mass or density per part (got {})",
            parts.len(),
            masses.len()
        )));
    }
    let placed: Vec<(MassProperties, DVec3, DQuat)> = parts
        .iter()
        .zip(masses)
        .map(|(p, m)| {
            let unit = unit_density(&p.shape)?;
            let (mass, scale) = match *m {
                PartMass::Mass(m) => (m, m / unit.mass),
                PartMass::Density(rho) => (unit.mass * rho, rho),
            };
            if !(mass.is_finite() && mass > 0.0 && scale.is_finite() && scale > 0.0) {
                return Err(ShapeError::BadDimension {
                    what: "part mass",
                    value: mass,
                });
            }
            let mp = MassProperties {
                mass,
                center_of_mass: unit.center_of_mass,
                inertia: unit.inertia * scale,
            };
            Ok((mp, p.position, p.orientation.normalize()))
        })
        .collect::<Result<_, ShapeError>>()?;
    Ok(combine(&placed))
}

/// Mass properties at density 1, so that `mass` is the volume.
fn unit_density(shape: &Shape) -> Result<MassProperties, ShapeError> {
    shape.validate()?;
    Ok(match shape {
        Shape::Plane { .. } => {
            return Err(ShapeError::NotAllowed(
                "a plane is an infinite half-space: it has no volume nor mass".into(),
            ))
        }
        Shape::Sphere { radius } => {
            let m = 4.0 / 3.0 * PI * radius.powi(3);
            centred(m, DVec3::splat(0.4 * m * radius * radius))
        }
        Shape::Box { half_extents: h } => {
            let m = 8.0 * h.x * h.y * h.z;
            // m (b² + c²) / 12 with full sides b = 2 h_y, c = 2 h_z.
            let h2 = *h * *h;
            centred(
                m,
                DVec3::new(h2.y + h2.z, h2.z + h2.x, h2.x + h2.y) * (m / 3.0),
            )
        }
        Shape::Cylinder {
            radius: r,
            half_height: h,
        } => {
            let m = PI * r * r * 2.0 * h;
            // m (3 r² + H²) / 12 with H = 2h across the axis, m r² / 2 about it.
            let across = m * (3.0 * r * r + 4.0 * h * h) / 12.0;
            centred(m, DVec3::new(across, across, 0.5 * m * r * r))
        }
        Shape::Capsule {
            radius,
            half_length,
        } => capsule_unit(*radius, *half_length),
        Shape::Convex { vertices } => convex_unit(vertices)?,
        Shape::Mesh { mesh, collision } => mesh_unit(mesh, collision)?,
        Shape::Compound { parts } => {
            let placed: Vec<(MassProperties, DVec3, DQuat)> = parts
                .iter()
                .map(|p| {
                    Ok((
                        unit_density(&p.shape)?,
                        p.position,
                        p.orientation.normalize(),
                    ))
                })
                .collect::<Result<_, ShapeError>>()?;
            combine(&placed)
        }
    })
}

/// A solid centred on the origin with a diagonal inertia tensor.
fn centred(mass: f64, moments: DVec3) -> MassProperties {
    MassProperties {
        mass,
        center_of_mass: DVec3::ZERO,
        inertia: DMat3::from_diagonal(moments),
    }
}

/// Unit-density capsule along z: a cylinder of radius `r`, length `2 l`, and two hemispheres.
///
/// Each hemisphere (mass `m_h`) has, about a diameter of its flat face, the same moment as the full
/// ball, `2/5 m_h r²`; its centre of mass lies `3r/8` from that face, so about its own centre it has
/// `m_h r² (2/5 − 9/64) = 83/320 m_h r²`, and shifted by `l + 3r/8` to the capsule's centre
/// `m_h (83/320 r² + (l + 3r/8)²) = m_h (2/5 r² + l² + 3/4 l r)`. Shifting `2/5 m_h r²` straight by
/// `l` (the tempting shortcut) misses the `3/4 l r` term.
fn capsule_unit(r: f64, l: f64) -> MassProperties {
    let m_cyl = PI * r * r * 2.0 * l;
    let m_caps = 4.0 / 3.0 * PI * r.powi(3); // both hemispheres
    let axial = m_cyl * r * r / 2.0 + m_caps * 0.4 * r * r;
    let across =
        m_cyl * (r * r / 4.0 + l * l / 3.0) + m_caps * (0.4 * r * r + l * l + 0.75 * l * r);
    centred(m_cyl + m_caps, DVec3::new(across, across, axial))
}

/// Relative volume under which a hull counts as flat: `V <= FLAT_VOLUME * L³` with `L` the hull's
/// extent. Matches the linear tolerance of [`Shape::validate`] (1e-9) times the extent squared.
const FLAT_VOLUME: f64 = 1e-9;

/// Unit-density convex hull of `vertices`, by Mirtich's method over the hull's triangles.
fn convex_unit(vertices: &[DVec3]) -> Result<MassProperties, ShapeError> {
    let (points, triangles) = parry3d_f64::transformation::try_convex_hull(vertices)
        .map_err(|e| ShapeError::Degenerate(format!("convex hull failed: {e}")))?;
    if points.len() < 4 || triangles.len() < 4 {
        return Err(ShapeError::Degenerate("the convex hull is flat".into()));
    }
    // Integrate about the mean of the hull vertices, an interior point: the integrals of x², x³ …
    // then stay of the size of the body instead of its distance from the origin, which keeps the
    // final shift to the centre of mass free of cancellation.
    let reference = points.iter().sum::<DVec3>() / points.len() as f64;
    let local: Vec<DVec3> = points.iter().map(|p| *p - reference).collect();
    let extent = local.iter().map(|p| p.length()).fold(0.0, f64::max);

    let mut integrals = VolumeIntegrals::default();
    for tri in &triangles {
        let mut face = [
            local[tri[0] as usize],
            local[tri[1] as usize],
            local[tri[2] as usize],
        ];
        let normal = (face[1] - face[0]).cross(face[2] - face[1]);
        if normal.length_squared() == 0.0 {
            continue; // a sliver triangle has no area and contributes nothing
        }
        // Mirtich needs counter-clockwise faces seen from outside; the reference is inside.
        if normal.dot(face[0]) < 0.0 {
            face.swap(1, 2);
        }
        integrals.add_face(&face);
    }
    let v = integrals.t0;
    if v.is_nan() || v <= FLAT_VOLUME * extent.powi(3) {
        return Err(ShapeError::Degenerate(format!(
            "the convex hull has no volume (volume {v:e}, extent {extent:e})"
        )));
    }
    let mut mp = integrals.mass_properties(1.0);
    mp.center_of_mass += reference;
    Ok(mp)
}

/// Unit-density mesh shape: the closed mesh's own solid (whatever it collides as: a hull or a
/// decomposition only approximates it, and their volumes would count the hull's bulges or the
/// pieces' overlaps), or the hull's for an open mesh used as its hull. An open mesh used
/// otherwise bounds no solid.
fn mesh_unit(mesh: &TriangleMesh, collision: &MeshCollision) -> Result<MassProperties, ShapeError> {
    match (mesh.closed(), collision) {
        (true, _) => closed_mesh_unit(&mesh.vertices, &mesh.triangles),
        (false, MeshCollision::Hull { vertices }) => convex_unit(vertices),
        (false, _) => Err(ShapeError::NotAllowed(format!(
            "mesh \"{}\" bounds no solid and has no mass: {}",
            mesh.file,
            mesh.open.as_deref().unwrap_or("it is open")
        ))),
    }
}

/// Unit-density solid bounded by a closed mesh whose triangles wind counter-clockwise seen
/// from outside, by Mirtich's method (which holds for any closed polyhedron, convex or not).
fn closed_mesh_unit(
    vertices: &[DVec3],
    triangles: &[[u32; 3]],
) -> Result<MassProperties, ShapeError> {
    // About the mean vertex, as for a hull (see `convex_unit`).
    let reference = vertices.iter().sum::<DVec3>() / vertices.len() as f64;
    let extent = vertices
        .iter()
        .map(|p| p.distance(reference))
        .fold(0.0, f64::max);
    let mut integrals = VolumeIntegrals::default();
    for tri in triangles {
        let face = tri.map(|i| vertices[i as usize] - reference);
        if (face[1] - face[0])
            .cross(face[2] - face[1])
            .length_squared()
            == 0.0
        {
            continue; // no area, no contribution
        }
        integrals.add_face(&face);
    }
    let v = integrals.t0;
    if v.is_nan() || v <= FLAT_VOLUME * extent.powi(3) {
        return Err(ShapeError::Degenerate(format!(
            "the mesh encloses no volume (volume {v:e}, extent {extent:e})"
        )));
    }
    let mut mp = integrals.mass_properties(1.0);
    mp.center_of_mass += reference;
    Ok(mp)
}

/// The ten volume integrals of Mirtich (1996), §3: `T0 = ∫1`, `T1 = ∫(x, y, z)`,
/// `T2 = ∫(x², y², z²)`, `TP = ∫(xy, yz, zx)` over the polyhedron, accumulated face by face.
#[derive(Default)]
struct VolumeIntegrals {
    t0: f64,
    t1: [f64; 3],
    t2: [f64; 3],
    tp: [f64; 3],
}

/// Mirtich's projection integrals (1996, §4.2) of one face projected on the (α, β) plane:
/// `π_1 = ∫1`, `π_α = ∫α`, …, `π_βββ = ∫β³` over the projected polygon, each evaluated as a sum of
/// closed-form line integrals along the edges (Green's theorem, eq. 12–14 with the edge
/// parametrisation of Appendix A).
#[derive(Default)]
struct ProjectionIntegrals {
    p1: f64,
    pa: f64,
    pb: f64,
    paa: f64,
    pab: f64,
    pbb: f64,
    paaa: f64,
    paab: f64,
    pabb: f64,
    pbbb: f64,
}

impl ProjectionIntegrals {
    /// Integrals over `polygon` (vertices counter-clockwise) projected on axes `a`, `b`.
    fn of(polygon: &[DVec3], a: usize, b: usize) -> Self {
        let mut s = ProjectionIntegrals::default();
        for (i, v0) in polygon.iter().enumerate() {
            let v1 = polygon[(i + 1) % polygon.len()];
            let (a0, b0, a1, b1) = (v0[a], v0[b], v1[a], v1[b]);
            let (da, db) = (a1 - a0, b1 - b0);
            let (a0_2, b0_2, a1_2, b1_2) = (a0 * a0, b0 * b0, a1 * a1, b1 * b1);
            let (a0_3, b0_3, a1_3, b1_3) = (a0_2 * a0, b0_2 * b0, a1_2 * a1, b1_2 * b1);
            let (a0_4, b0_4) = (a0_3 * a0, b0_3 * b0);

            let c1 = a1 + a0;
            let ca = a1 * c1 + a0_2;
            let caa = a1 * ca + a0_3;
            let caaa = a1 * caa + a0_4;
            let cb = b1 * (b1 + b0) + b0_2;
            let cbb = b1 * cb + b0_3;
            let cbbb = b1 * cbb + b0_4;
            let cab = 3.0 * a1_2 + 2.0 * a1 * a0 + a0_2;
            let kab = a1_2 + 2.0 * a1 * a0 + 3.0 * a0_2;
            let caab = a0 * cab + 4.0 * a1_3;
            let kaab = a1 * kab + 4.0 * a0_3;
            let cabb = 4.0 * b1_3 + 3.0 * b1_2 * b0 + 2.0 * b1 * b0_2 + b0_3;
            let kabb = b1_3 + 2.0 * b1_2 * b0 + 3.0 * b1 * b0_2 + 4.0 * b0_3;

            s.p1 += db * c1;
            s.pa += db * ca;
            s.paa += db * caa;
            s.paaa += db * caaa;
            s.pb += da * cb;
            s.pbb += da * cbb;
            s.pbbb += da * cbbb;
            s.pab += db * (b1 * cab + b0 * kab);
            s.paab += db * (b1 * caab + b0 * kaab);
            s.pabb += da * (a1 * cabb + a0 * kabb);
        }
        s.p1 /= 2.0;
        s.pa /= 6.0;
        s.paa /= 12.0;
        s.paaa /= 20.0;
        s.pb /= -6.0;
        s.pbb /= -12.0;
        s.pbbb /= -20.0;
        s.pab /= 24.0;
        s.paab /= 60.0;
        s.pabb /= -60.0;
        s
    }
}

impl VolumeIntegrals {
    /// Adds the contribution of one planar face, vertices counter-clockwise seen from outside.
    fn add_face(&mut self, polygon: &[DVec3]) {
        let n = (polygon[1] - polygon[0])
            .cross(polygon[2] - polygon[1])
            .normalize();
        let w = -n.dot(polygon[0]); // face plane: n · x + w = 0
                                    // Project on the coordinate plane most parallel to the face (γ = the normal's largest
                                    // component) so that 1/n_γ stays bounded; α, β, γ is a right-handed cyclic permutation.
        let abs = n.abs();
        let c = if abs.x > abs.y && abs.x > abs.z {
            0
        } else if abs.y > abs.z {
            1
        } else {
            2
        };
        let a = (c + 1) % 3;
        let b = (a + 1) % 3;

        // Face integrals from projection integrals (Mirtich 1996, eq. 18–20): on the face,
        // γ = -(n_α α + n_β β + w) / n_γ, and dA = dα dβ / |n_γ|.
        let p = ProjectionIntegrals::of(polygon, a, b);
        let (na, nb) = (n[a], n[b]);
        let k1 = 1.0 / n[c];
        let k2 = k1 * k1;
        let k3 = k2 * k1;
        let k4 = k3 * k1;

        let fa = k1 * p.pa;
        let fb = k1 * p.pb;
        let fc = -k2 * (na * p.pa + nb * p.pb + w * p.p1);

        let faa = k1 * p.paa;
        let fbb = k1 * p.pbb;
        let fcc = k3
            * (na * na * p.paa
                + 2.0 * na * nb * p.pab
                + nb * nb * p.pbb
                + w * (2.0 * (na * p.pa + nb * p.pb) + w * p.p1));

        let faaa = k1 * p.paaa;
        let fbbb = k1 * p.pbbb;
        let fccc = -k4
            * (na.powi(3) * p.paaa
                + 3.0 * na * na * nb * p.paab
                + 3.0 * na * nb * nb * p.pabb
                + nb.powi(3) * p.pbbb
                + 3.0 * w * (na * na * p.paa + 2.0 * na * nb * p.pab + nb * nb * p.pbb)
                + w * w * (3.0 * (na * p.pa + nb * p.pb) + w * p.p1));

        let faab = k1 * p.paab;
        let fbbc = -k2 * (na * p.pabb + nb * p.pbbb + w * p.pbb);
        let fcca = k3
            * (na * na * p.paaa
                + 2.0 * na * nb * p.paab
                + nb * nb * p.pabb
                + w * (2.0 * (na * p.paa + nb * p.pab) + w * p.pa));

        // Divergence theorem (eq. 9–11): ∫_V ∂f/∂x dV = ∮ f n_x dA, with the integrand chosen per
        // axis so that only face integrals along the face's own α, β, γ are needed.
        self.t0 += n.x
            * if a == 0 {
                fa
            } else if b == 0 {
                fb
            } else {
                fc
            };
        self.t1[a] += n[a] * faa / 2.0;
        self.t1[b] += n[b] * fbb / 2.0;
        self.t1[c] += n[c] * fcc / 2.0;
        self.t2[a] += n[a] * faaa / 3.0;
        self.t2[b] += n[b] * fbbb / 3.0;
        self.t2[c] += n[c] * fccc / 3.0;
        self.tp[a] += n[a] * faab / 2.0;
        self.tp[b] += n[b] * fbbc / 2.0;
        self.tp[c] += n[c] * fcca / 2.0;
    }

    /// Mass properties at `density` about the centre of mass (Mirtich 1996, §2: the tensor about
    /// the origin, then the parallel-axis shift).
    fn mass_properties(&self, density: f64) -> MassProperties {
        let mass = density * self.t0;
        let r = DVec3::from(self.t1) / self.t0;
        let [x2, y2, z2] = self.t2;
        let [xy, yz, zx] = self.tp;
        let about_origin =
            DMat3::from_cols_array(&[y2 + z2, -xy, -zx, -xy, z2 + x2, -yz, -zx, -yz, x2 + y2])
                * density;
        MassProperties {
            mass,
            center_of_mass: r,
            inertia: about_origin - point_inertia(mass, r),
        }
    }
}

/// Inertia tensor of a point mass `m` at `d`: `m (|d|² 1 − d dᵀ)` (the parallel-axis term).
fn point_inertia(m: f64, d: DVec3) -> DMat3 {
    (DMat3::from_diagonal(DVec3::splat(d.length_squared())) - outer(d, d)) * m
}

/// The outer product `u vᵀ`.
fn outer(u: DVec3, v: DVec3) -> DMat3 {
    DMat3::from_cols(u * v.x, u * v.y, u * v.z)
}

/// Sums parts given in their own frames and placed by `(position, unit orientation)`: centres of
/// mass combined by mass weighting, each tensor rotated (`R I Rᵀ`) and shifted to the common centre.
fn combine(parts: &[(MassProperties, DVec3, DQuat)]) -> MassProperties {
    let mass: f64 = parts.iter().map(|(mp, _, _)| mp.mass).sum();
    let com = parts
        .iter()
        .map(|(mp, pos, rot)| mp.mass * (*pos + *rot * mp.center_of_mass))
        .sum::<DVec3>()
        / mass;
    let inertia = parts.iter().fold(DMat3::ZERO, |acc, (mp, pos, rot)| {
        let r = DMat3::from_quat(*rot);
        let d = *pos + *rot * mp.center_of_mass - com;
        acc + r * mp.inertia * r.transpose() + point_inertia(mp.mass, d)
    });
    MassProperties {
        mass,
        center_of_mass: com,
        inertia,
    }
}

/// Principal moments and axes of a symmetric inertia tensor: returns `(moments, rotation)` with
/// `inertia == R * diag(moments) * R^T` where `R = DMat3::from_quat(rotation)` is a proper rotation.
/// Moments are sorted ascending; the columns of `R` are the matching principal axes. Only the
/// symmetric part `(I + Iᵀ)/2` of the input is used.
///
/// Cyclic Jacobi rotations (Golub & Van Loan, §8.5): each rotation zeroes one off-diagonal entry;
/// convergence is quadratic and the result is accurate to rounding even for (nearly) equal
/// moments, where closed-form cubic roots lose half the digits. Rejected alternative: glamx's
/// `SymmetricEigen3`, which is f32-minded in its tolerances.
pub fn principal_axes(inertia: DMat3) -> (DVec3, DQuat) {
    let mut a = [[0.0f64; 3]; 3];
    for (i, row) in a.iter_mut().enumerate() {
        for (j, x) in row.iter_mut().enumerate() {
            *x = 0.5 * (inertia.col(j)[i] + inertia.col(i)[j]);
        }
    }
    let mut v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let scale = a.iter().flatten().map(|x| x * x).sum::<f64>().sqrt();
    for _sweep in 0..64 {
        let off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
        if off.sqrt() <= f64::EPSILON * 1e-3 * scale || off == 0.0 {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if a[p][q] == 0.0 {
                continue;
            }
            // The rotation angle that zeroes a_pq, in the stable form t = tan θ with |θ| ≤ π/4.
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            // A ← Jᵀ A J, V ← V J with J the plane rotation in (p, q).
            for row in a.iter_mut() {
                let (rp, rq) = (row[p], row[q]);
                row[p] = c * rp - s * rq;
                row[q] = s * rp + c * rq;
            }
            let (row_p, row_q) = (a[p], a[q]);
            a[p] = std::array::from_fn(|k| c * row_p[k] - s * row_q[k]);
            a[q] = std::array::from_fn(|k| s * row_p[k] + c * row_q[k]);
            for row in v.iter_mut() {
                let (vp, vq) = (row[p], row[q]);
                row[p] = c * vp - s * vq;
                row[q] = s * vp + c * vq;
            }
        }
    }
    let mut order = [0usize, 1, 2];
    order.sort_by(|&i, &j| a[i][i].total_cmp(&a[j][j]));
    let moments = DVec3::new(
        a[order[0]][order[0]],
        a[order[1]][order[1]],
        a[order[2]][order[2]],
    );
    let col = |k: usize| DVec3::new(v[0][k], v[1][k], v[2][k]);
    let (x, y) = (col(order[0]), col(order[1]));
    // The third axis from the first two keeps det R = +1 whatever the sort did to the handedness.
    let z = x.cross(y);
    let rotation = DQuat::from_mat3(&DMat3::from_cols(x, y, z)).normalize();
    (moments, rotation)
}
