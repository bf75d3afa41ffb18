//! Triangle meshes of the scene's shapes, for pictures (`tumble render`, `export`, `view`):
//! never used by the physics, which works on the exact shapes.
//!
//! A mesh shape draws as what collides: its hull, its convex pieces, or its own triangles (an
//! open surface on both sides). Curved shapes are tessellated by parry's `to_trimesh`; normals are averaged across edges
//! whose faces meet at less than [`CREASE_DEGREES`], so a sphere shades smooth and a box or a
//! cylinder's rim stays sharp.

use crate::mesh::MeshCollision;
use crate::shape::Shape;
use glam::{DQuat, DVec3};
use parry3d_f64::shape::{Ball, Capsule, ConvexPolyhedron, Cuboid, Cylinder};

/// Faces meeting at less than this angle share their vertex normals (smooth shading).
pub const CREASE_DEGREES: f64 = 40.0;

/// A triangle mesh in a shape's own (user) frame, with a normal per vertex. Vertices are not
/// shared across creases.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TriMesh {
    /// Vertex positions (m).
    pub positions: Vec<[f32; 3]>,
    /// Unit vertex normals, outward.
    pub normals: Vec<[f32; 3]>,
    /// Counter-clockwise (seen from outside) triangles, three indices each.
    pub indices: Vec<u32>,
}

impl TriMesh {
    /// Number of triangles.
    pub fn triangles(&self) -> usize {
        self.indices.len() / 3
    }

    /// Axis-aligned bounds `(min, max)` of the positions (m); `None` when empty.
    pub fn bounds(&self) -> Option<(DVec3, DVec3)> {
        let mut it = self.positions.iter().map(|p| DVec3::from(p.map(f64::from)));
        let first = it.next()?;
        Some(it.fold((first, first), |(lo, hi), p| (lo.min(p), hi.max(p))))
    }

    /// Appends `other` placed by (`position`, `orientation`).
    fn append(&mut self, other: &TriMesh, position: DVec3, orientation: DQuat) {
        let base = self.positions.len() as u32;
        for (p, n) in other.positions.iter().zip(&other.normals) {
            let p = position + orientation * DVec3::from(p.map(f64::from));
            let n = orientation * DVec3::from(n.map(f64::from));
            self.positions.push(p.as_vec3().to_array());
            self.normals.push(n.as_vec3().to_array());
        }
        self.indices.extend(other.indices.iter().map(|i| base + i));
    }

    /// Builds the mesh from shared vertices and triangles: each triangle gets its own three
    /// vertices, normals averaged (area-weighted) over the triangles around the vertex that
    /// face within [`CREASE_DEGREES`] of it.
    fn from_indexed(vertices: &[DVec3], triangles: &[[u32; 3]]) -> TriMesh {
        let face: Vec<DVec3> = triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| vertices[i as usize]);
                (b - a).cross(c - a) // length: twice the area
            })
            .collect();
        let mut around = vec![Vec::new(); vertices.len()];
        for (k, t) in triangles.iter().enumerate() {
            for &i in t {
                around[i as usize].push(k);
            }
        }
        let cos_crease = CREASE_DEGREES.to_radians().cos();
        let mut mesh = TriMesh::default();
        for (k, t) in triangles.iter().enumerate() {
            let own = face[k].normalize_or_zero();
            if own == DVec3::ZERO {
                continue; // degenerate sliver: nothing to shade
            }
            for &i in t {
                let n = around[i as usize]
                    .iter()
                    .map(|&j| face[j])
                    .filter(|f| f.normalize_or_zero().dot(own) >= cos_crease)
                    .sum::<DVec3>()
                    .normalize_or(own);
                mesh.positions
                    .push(vertices[i as usize].as_vec3().to_array());
                mesh.normals.push(n.as_vec3().to_array());
                mesh.indices.push(mesh.indices.len() as u32);
            }
        }
        mesh
    }
}

/// The mesh of `shape` in its own frame. `detail` sets the subdivisions of curved surfaces
/// (segments around a circle; at least 8). A plane becomes a square of half-side
/// `plane_half_size` centred on the point of the plane nearest the origin.
pub fn shape_mesh(shape: &Shape, detail: u32, plane_half_size: f64) -> TriMesh {
    let n = detail.max(8);
    match shape {
        Shape::Sphere { radius } => {
            let (v, t) = Ball::new(*radius).to_trimesh(n, n / 2);
            TriMesh::from_indexed(&v, &t)
        }
        Shape::Box { half_extents } => {
            let (v, t) = Cuboid::new(*half_extents).to_trimesh();
            TriMesh::from_indexed(&v, &t)
        }
        Shape::Capsule {
            radius,
            half_length,
        } => {
            let capsule = Capsule::new(
                DVec3::new(0.0, 0.0, -half_length),
                DVec3::new(0.0, 0.0, *half_length),
                *radius,
            );
            let (v, t) = capsule.to_trimesh(n, n / 4);
            TriMesh::from_indexed(&v, &t)
        }
        Shape::Cylinder {
            radius,
            half_height,
        } => {
            // parry's cylinders run along y; tumble's along z.
            let (v, t) = Cylinder::new(*half_height, *radius).to_trimesh(n);
            let turn = DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2);
            let v: Vec<DVec3> = v.into_iter().map(|p| turn * p).collect();
            TriMesh::from_indexed(&v, &t)
        }
        Shape::Convex { vertices } => convex_mesh(vertices),
        Shape::Compound { parts } => {
            let mut mesh = TriMesh::default();
            for part in parts {
                let m = shape_mesh(&part.shape, detail, plane_half_size);
                mesh.append(&m, part.position, part.orientation.normalize());
            }
            mesh
        }
        Shape::Mesh { mesh, collision } => match collision {
            MeshCollision::Hull { vertices } => convex_mesh(vertices),
            MeshCollision::Decomposed { parts } => {
                let mut out = TriMesh::default();
                for vertices in parts {
                    out.append(&convex_mesh(vertices), DVec3::ZERO, DQuat::IDENTITY);
                }
                out
            }
            MeshCollision::Triangles => {
                let mut out = TriMesh::from_indexed(&mesh.vertices, &mesh.triangles);
                if !mesh.closed() {
                    // Both sides of an open surface collide: draw its back too.
                    let back: Vec<[u32; 3]> =
                        mesh.triangles.iter().map(|t| [t[0], t[2], t[1]]).collect();
                    let back = TriMesh::from_indexed(&mesh.vertices, &back);
                    out.append(&back, DVec3::ZERO, DQuat::IDENTITY);
                }
                out
            }
        },
        Shape::Plane { normal, offset } => {
            let n = normal.normalize();
            let centre = n * *offset;
            let u = n.any_orthonormal_vector();
            let w = n.cross(u);
            let s = plane_half_size;
            let v = [
                centre - s * u - s * w,
                centre + s * u - s * w,
                centre + s * u + s * w,
                centre - s * u + s * w,
            ];
            // Counter-clockwise seen from outside the solid, along +n.
            TriMesh::from_indexed(&v, &[[0, 1, 2], [0, 2, 3]])
        }
    }
}

/// The mesh of the convex hull of `vertices` (empty if it has no volume: the scene check
/// refuses such shapes).
fn convex_mesh(vertices: &[DVec3]) -> TriMesh {
    match ConvexPolyhedron::from_convex_hull(vertices) {
        Some(hull) => {
            let (v, t) = hull.to_trimesh();
            TriMesh::from_indexed(&v, &t)
        }
        None => TriMesh::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every triangle winds outward: its normal points away from the shape's centre, and the
    /// vertex normals agree with it.
    fn assert_outward(mesh: &TriMesh, centre: DVec3) {
        assert!(mesh.triangles() > 0);
        for t in mesh.indices.chunks(3) {
            let p: Vec<DVec3> = t
                .iter()
                .map(|&i| DVec3::from(mesh.positions[i as usize].map(f64::from)))
                .collect();
            let face = (p[1] - p[0]).cross(p[2] - p[0]);
            let mid = (p[0] + p[1] + p[2]) / 3.0;
            assert!(face.dot(mid - centre) > 0.0, "inward triangle at {mid}");
            for &i in t {
                let n = DVec3::from(mesh.normals[i as usize].map(f64::from));
                assert!((n.length() - 1.0).abs() < 1e-5);
                assert!(n.dot(face.normalize()) > 0.5);
            }
        }
    }

    #[test]
    fn shapes_tessellate_outward_within_their_bounds() {
        let shapes = [
            (Shape::Sphere { radius: 0.5 }, DVec3::splat(0.5)),
            (
                Shape::Box {
                    half_extents: DVec3::new(0.1, 0.2, 0.3),
                },
                DVec3::new(0.1, 0.2, 0.3),
            ),
            (
                Shape::Capsule {
                    radius: 0.1,
                    half_length: 0.3,
                },
                DVec3::new(0.1, 0.1, 0.4),
            ),
            (
                Shape::Cylinder {
                    radius: 0.2,
                    half_height: 0.05,
                },
                DVec3::new(0.2, 0.2, 0.05),
            ),
        ];
        for (shape, half) in shapes {
            let mesh = shape_mesh(&shape, 24, 1.0);
            assert_outward(&mesh, DVec3::ZERO);
            let (lo, hi) = mesh.bounds().unwrap();
            assert!((hi - half).abs().max_element() < 1e-6, "{shape:?}: {hi}");
            assert!((lo + half).abs().max_element() < 1e-6, "{shape:?}: {lo}");
        }
    }

    #[test]
    fn a_box_keeps_sharp_edges_and_a_sphere_shades_smooth() {
        let cube = shape_mesh(
            &Shape::Box {
                half_extents: DVec3::ONE,
            },
            16,
            1.0,
        );
        // Every vertex normal of a box is a face normal: an axis.
        for n in &cube.normals {
            let n = DVec3::from(n.map(f64::from));
            assert!((n.abs().max_element() - 1.0).abs() < 1e-6, "{n}");
        }
        let ball = shape_mesh(&Shape::Sphere { radius: 2.0 }, 32, 1.0);
        for (p, n) in ball.positions.iter().zip(&ball.normals) {
            let (p, n) = (DVec3::from(p.map(f64::from)), DVec3::from(n.map(f64::from)));
            assert!(p.normalize().dot(n) > 0.99, "{p} {n}");
        }
    }

    #[test]
    fn meshes_draw_what_collides() {
        use crate::mesh::TriangleMesh;
        use std::sync::Arc;
        let tile = Arc::new(TriangleMesh {
            file: "tile.obj".into(),
            vertices: vec![DVec3::ZERO, DVec3::X, DVec3::new(1.0, 1.0, 0.0), DVec3::Y],
            triangles: vec![[0, 1, 2], [0, 2, 3]],
            open: Some("open".into()),
        });
        let surface = Shape::Mesh {
            mesh: tile.clone(),
            collision: MeshCollision::Triangles,
        };
        // An open surface collides on both sides and is drawn on both.
        let m = shape_mesh(&surface, 16, 1.0);
        assert_eq!(m.triangles(), 4);
        let up = m.normals.iter().filter(|n| n[2] > 0.99).count();
        let down = m.normals.iter().filter(|n| n[2] < -0.99).count();
        assert_eq!((up, down), (6, 6));
        let corners: Vec<DVec3> = (0..8)
            .map(|k| DVec3::new((k & 1) as f64, ((k >> 1) & 1) as f64, ((k >> 2) & 1) as f64))
            .collect();
        let hull = Shape::Mesh {
            mesh: tile,
            collision: MeshCollision::Hull {
                vertices: corners.clone(),
            },
        };
        let m = shape_mesh(&hull, 16, 1.0);
        assert_outward(&m, DVec3::splat(0.5));
        assert_eq!(m.triangles(), 12);
    }

    #[test]
    fn compound_parts_and_planes_are_placed() {
        use crate::shape::CompoundPart;
        let part = |x: f64| CompoundPart {
            shape: Shape::Sphere { radius: 0.1 },
            position: DVec3::new(x, 0.0, 0.0),
            orientation: DQuat::IDENTITY,
        };
        let mesh = shape_mesh(
            &Shape::Compound {
                parts: vec![part(-1.0), part(1.0)],
            },
            16,
            1.0,
        );
        let (lo, hi) = mesh.bounds().unwrap();
        assert!((lo.x + 1.1).abs() < 1e-6 && (hi.x - 1.1).abs() < 1e-6);
        let plane = shape_mesh(
            &Shape::Plane {
                normal: DVec3::Z,
                offset: 0.5,
            },
            16,
            3.0,
        );
        assert_outward(&plane, DVec3::ZERO);
        let (lo, hi) = plane.bounds().unwrap();
        assert!((lo.z - 0.5).abs() < 1e-6 && (hi.z - 0.5).abs() < 1e-6);
        assert!((hi.x - lo.x - 6.0).abs() < 1e-5);
    }
}
