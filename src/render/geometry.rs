//! What `tumble render` draws, on the host: every body's mesh in one vertex list (each vertex
//! tagged with its body), the bodies' colours, the ground, the focus the camera frames, what
//! the automatic camera may cut away, and the contact arrows of a frame.

use super::camera::Focus;
use super::cutaway::{cut_away, CutReport, CutRule, Targets};
use crate::body::Motion;
use crate::run_record::{RecordedFrame, RunRecord};
use crate::tessellate::{shape_mesh, TriMesh};
use glam::{DQuat, DVec3, Mat4};

/// Segments around a circle of a curved shape (`tumble export` tessellates with the same).
pub const DETAIL: u32 = 24;

/// Half the side of the square a plane is drawn as, in radii of the camera's focus: well past
/// the edge of the picture, yet finite.
pub const PLANE_HALF_SIZE_IN_FOCUS_RADII: f64 = 6.0;

/// One vertex as the shader reads it: position and normal in the body's own frame, its body.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Vertex {
    /// Position (m), body frame.
    pub position: [f32; 3],
    /// Unit normal, body frame.
    pub normal: [f32; 3],
    /// Index into the frame's instances.
    pub body: u32,
}

/// One body's placement and colour for a frame, as the shader reads it.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Instance {
    /// Body frame → world (column-major).
    pub model: [[f32; 4]; 4],
    /// Linear rgb; a: 0 lit, 1 lit with the floor grid, 2 unlit.
    pub colour: [f32; 4],
}

/// How an instance is shaded (the colour's alpha channel).
#[derive(Clone, Copy, Debug)]
pub enum Shading {
    /// Lit and shadowed.
    Lit = 0,
    /// Lit, with the floor grid on faces looking up.
    Floor = 1,
    /// Flat colour (contact arrows).
    Unlit = 2,
}

/// The colours of moving bodies, in turn by body index (sRGB; a colour-blind-safe set).
const PALETTE: [[u8; 3]; 8] = [
    [0x44, 0x77, 0xaa],
    [0xee, 0x66, 0x77],
    [0x22, 0x88, 0x33],
    [0xcc, 0xbb, 0x44],
    [0x66, 0xcc, 0xee],
    [0xaa, 0x33, 0x77],
    [0xee, 0x88, 0x33],
    [0x99, 0x77, 0xcc],
];

/// sRGB byte to linear light (the picture is written through an sRGB target).
fn linear(c: u8) -> f32 {
    let c = c as f32 / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// The sRGB colour (bytes) a body of `motion` with index `i` among the moving bodies is drawn
/// in: fixed bodies light grey, kinematic ones slate, dynamic ones from [`PALETTE`].
pub fn body_colour(motion: Motion, i: usize) -> [u8; 3] {
    match motion {
        Motion::Fixed => [0xc8, 0xc8, 0xc4],
        Motion::Kinematic => [0x70, 0x80, 0x90],
        Motion::Dynamic => PALETTE[i % PALETTE.len()],
    }
}

/// The run's static geometry and the per-frame instance data.
pub struct Picture {
    /// Every body's mesh, then the ground's, tagged with their instance index.
    pub vertices: Vec<Vertex>,
    /// Triangle list over `vertices`: the triangles drawn first, then those cut away
    /// ([`Picture::cut_away`]), which only cast shadows.
    pub indices: Vec<u32>,
    /// How many of `indices` the picture draws (all unless some were cut away).
    pub drawn: usize,
    /// How each instance may be cut away (bodies, then the ground).
    rules: Vec<CutRule>,
    /// Where each instance stands in the first frame drawn (bodies, then the ground).
    placements: Vec<(DVec3, DQuat)>,
    /// Each moving body and the middle of its mesh's box (body frame): the sight lines' ends.
    middles: Vec<(usize, DVec3)>,
    /// When each body is in the world ([`crate::run_record::RecordedBody::present`]): a body
    /// poured in or taken out is drawn only then.
    present: Vec<(f64, f64)>,
    /// Instance colour per body, then the ground's, then the arrows'.
    colours: Vec<[f32; 4]>,
    /// Instance index of the ground; the arrows' is the next.
    ground: u32,
    /// What the camera frames.
    pub focus: Focus,
    /// Radius around the focus centre that holds everything drawn.
    pub scene_radius: f64,
    /// Floor grid spacing (m).
    pub grid_spacing: f64,
    /// Height of the ground square (m): just under the lowest point near the focus.
    pub ground_z: f64,
}

impl Picture {
    /// Builds the meshes of `run`'s bodies and the ground under them; the focus frames the
    /// moving bodies over `frames` (all bodies if none moves).
    pub fn new(run: &RunRecord, frames: &[&RecordedFrame]) -> Picture {
        let meshes: Vec<TriMesh> = run
            .bodies
            .iter()
            .map(|b| shape_mesh(&b.shape, DETAIL, 1.0))
            .collect();
        let extent = |i: usize| -> f64 {
            meshes[i].bounds().map_or(0.0, |(lo, hi)| {
                lo.length().max(hi.length()) // reach from the body origin
            })
        };
        // The focus: the moving bodies' reach over every frame drawn.
        let moving: Vec<usize> = (0..run.bodies.len())
            .filter(|&i| run.bodies[i].motion != Motion::Fixed)
            .collect();
        let chosen: Vec<usize> = if moving.is_empty() {
            (0..run.bodies.len()).collect()
        } else {
            moving.clone()
        };
        // Where they are over the frames: the whole extent for a few bodies; for many, the 2nd
        // to 98th percentile along each axis, so a handful of strays (a cube bounced far off)
        // do not shrink the picture of the pile.
        let mut xyz: [Vec<f64>; 3] = Default::default();
        let mut reach = 0.0f64;
        for f in frames {
            for &i in chosen.iter().filter(|&&i| run.bodies[i].present_at(f.t)) {
                let (p, _) = f.poses[i];
                let r = extent(i);
                if r.is_finite() && p.is_finite() {
                    for (axis, v) in xyz.iter_mut().zip(p.to_array()) {
                        axis.push(v);
                    }
                    reach = reach.max(r);
                }
            }
        }
        let cut = if chosen.len() >= 20 { 0.02 } else { 0.0 };
        let (mut lo, mut hi) = (DVec3::splat(-1.0), DVec3::splat(1.0));
        if !xyz[0].is_empty() {
            for (k, axis) in xyz.iter_mut().enumerate() {
                axis.sort_by(f64::total_cmp);
                let at = |q: f64| axis[((axis.len() - 1) as f64 * q).round() as usize];
                lo[k] = at(cut) - reach;
                hi[k] = at(1.0 - cut) + reach;
            }
        }
        let focus = Focus::of_box(lo, hi, 1e-3);
        let middles: Vec<(usize, DVec3)> = moving
            .iter()
            .map(|&i| {
                let middle = meshes[i]
                    .bounds()
                    .map_or(DVec3::ZERO, |(lo, hi)| 0.5 * (lo + hi));
                (i, middle)
            })
            .collect();
        // Planes were tessellated at a unit size: redo them at the scale of the focus.
        let plane_size = PLANE_HALF_SIZE_IN_FOCUS_RADII * focus.radius;
        let meshes: Vec<TriMesh> = run
            .bodies
            .iter()
            .zip(meshes)
            .map(|(b, m)| match b.shape {
                crate::shape::Shape::Plane { .. } => shape_mesh(&b.shape, DETAIL, plane_size),
                _ => m,
            })
            .collect();
        let mut picture = Picture {
            vertices: Vec::new(),
            indices: Vec::new(),
            drawn: 0,
            rules: run.bodies.iter().map(cut_rule).collect(),
            placements: Vec::new(),
            middles,
            present: run.bodies.iter().map(|b| b.present).collect(),
            colours: Vec::new(),
            ground: 0,
            focus,
            scene_radius: focus.radius,
            grid_spacing: grid_spacing(focus.radius),
            ground_z: 0.0,
        };
        let start = &frames.first().map_or_else(
            || {
                run.bodies
                    .iter()
                    .map(|_| (DVec3::ZERO, DQuat::IDENTITY))
                    .collect()
            },
            |f| f.poses.clone(),
        );
        picture.placements = start.clone();
        let mut lowest = f64::INFINITY;
        let mut moving_index = 0;
        for (i, (body, mesh)) in run.bodies.iter().zip(&meshes).enumerate() {
            picture.push_mesh(mesh, i as u32);
            let colour = body_colour(body.motion, moving_index);
            if body.motion == Motion::Dynamic {
                moving_index += 1;
            }
            let shading = if body.motion == Motion::Fixed {
                Shading::Floor
            } else {
                Shading::Lit
            };
            picture.colours.push(colour_of(colour, shading));
            // The ground goes under the lowest point of anything near the focus.
            let (p, q) = start[i];
            for v in &mesh.positions {
                let w = p + q * DVec3::from(v.map(f64::from));
                if (w - focus.centre).length() < 4.0 * focus.radius {
                    lowest = lowest.min(w.z);
                }
                let d = (w - focus.centre).length();
                if d.is_finite() && d < 50.0 * focus.radius {
                    picture.scene_radius = picture.scene_radius.max(d);
                }
            }
        }
        if !lowest.is_finite() {
            lowest = focus.centre.z - focus.radius;
        }
        // The ground: a square under everything, a little below the lowest point so a floor
        // body's top face draws over it instead of fighting it for depth.
        picture.ground = run.bodies.len() as u32;
        let s = 4.0 * focus.radius;
        let z = lowest - 1e-3 * focus.radius;
        picture.ground_z = z;
        let c = focus.centre;
        let ground = shape_mesh(
            &crate::shape::Shape::Plane {
                normal: DVec3::Z,
                offset: 0.0,
            },
            DETAIL,
            s,
        );
        let base = picture.vertices.len();
        picture.push_mesh(&ground, picture.ground);
        for v in &mut picture.vertices[base..] {
            v.position = [
                v.position[0] + c.x as f32,
                v.position[1] + c.y as f32,
                z as f32,
            ];
        }
        picture
            .colours
            .push(colour_of([0xe8, 0xe6, 0xe0], Shading::Floor));
        // The contact arrows: one world-space instance per kind, each its own flat colour.
        picture
            .colours
            .extend((0..ARROW_KINDS.len()).map(arrow_colour));
        picture.scene_radius = picture.scene_radius.max(s * 1.5);
        picture.rules.push(CutRule::Faces);
        picture.placements.push((DVec3::ZERO, DQuat::IDENTITY));
        picture.drawn = picture.indices.len();
        picture
    }

    /// Leaves out of the picture the fixed bodies (and the ground) between `eye` and the moving
    /// bodies' centres in `frames` ([`super::cutaway`]); they still cast shadows.
    pub fn cut_away(&mut self, eye: DVec3, frames: &[&RecordedFrame]) -> CutReport {
        let mut targets = Targets::new(self.focus.radius / 500.0);
        for f in frames {
            for &(i, middle) in &self.middles {
                let (from, to) = self.present[i];
                if f.t < from || f.t >= to {
                    continue;
                }
                let (p, q) = f.poses[i];
                targets.add(p + q * middle);
            }
        }
        let vertices = &self.vertices;
        let (drawn, report) = cut_away(
            |i| {
                let v = &vertices[i as usize];
                (v.position, v.body)
            },
            &mut self.indices,
            &self.rules,
            &self.placements,
            eye,
            targets.points(),
            1e-6 * self.focus.radius,
        );
        self.drawn = drawn;
        report
    }

    fn push_mesh(&mut self, mesh: &TriMesh, body: u32) {
        let base = self.vertices.len() as u32;
        self.vertices.extend(
            mesh.positions
                .iter()
                .zip(&mesh.normals)
                .map(|(&p, &n)| Vertex {
                    position: p,
                    normal: n,
                    body,
                }),
        );
        self.indices.extend(mesh.indices.iter().map(|i| base + i));
    }

    /// Number of instances a frame has (bodies, ground, arrow kinds).
    pub fn instance_count(&self) -> usize {
        self.colours.len()
    }

    /// The instances of `frame`: each body at its pose (a body not in the world then shrunk to
    /// a point, so that nothing of it is drawn), the ground in place.
    pub fn instances(&self, frame: &RecordedFrame) -> Vec<Instance> {
        self.colours
            .iter()
            .enumerate()
            .map(|(i, &colour)| {
                let absent = self
                    .present
                    .get(i)
                    .is_some_and(|&(from, to)| frame.t < from || frame.t >= to);
                let model = match frame.poses.get(i) {
                    Some(_) if absent => Mat4::ZERO,
                    Some(&(p, q)) => Mat4::from_rotation_translation(q.as_quat(), p.as_vec3()),
                    None => Mat4::IDENTITY,
                };
                Instance {
                    model: model.to_cols_array_2d(),
                    colour,
                }
            })
            .collect()
    }

    /// Instance index of the first kind's arrows (world space; one instance per kind of
    /// [`ARROW_KINDS`], in order).
    pub fn arrow_instance(&self) -> u32 {
        self.ground + 1
    }
}

/// How a body may be cut away: a fixed convex body whole, a fixed mesh, compound or plane by
/// its faces, a moving body never.
fn cut_rule(body: &crate::run_record::RecordedBody) -> CutRule {
    use crate::shape::Shape;
    match (body.motion, &body.shape) {
        (Motion::Fixed, Shape::Mesh { .. } | Shape::Compound { .. } | Shape::Plane { .. }) => {
            CutRule::Faces
        }
        (Motion::Fixed, _) => CutRule::Whole,
        _ => CutRule::Never,
    }
}

/// Linear rgba of an sRGB colour with `shading` in alpha.
pub fn colour_of(c: [u8; 3], shading: Shading) -> [f32; 4] {
    [
        linear(c[0]),
        linear(c[1]),
        linear(c[2]),
        shading as u32 as f32,
    ]
}

/// A round grid spacing (1, 2 or 5 times a power of ten) giving about ten lines across the
/// focus.
fn grid_spacing(radius: f64) -> f64 {
    let raw = radius / 5.0;
    let decade = 10f64.powf(raw.log10().floor());
    let m = raw / decade;
    decade
        * if m < 1.5 {
            1.0
        } else if m < 3.5 {
            2.0
        } else {
            5.0
        }
}

/// An arrow from `from` along `dir` (length `len`), as a square shaft and a pyramid head of
/// width proportional to `width`, appended for instance `body`. World coordinates (the arrows'
/// instance has the identity model).
pub fn push_arrow(
    vertices: &mut Vec<Vertex>,
    indices: &mut Vec<u32>,
    from: DVec3,
    dir: DVec3,
    len: f64,
    width: f64,
    body: u32,
) {
    let d = dir.normalize_or_zero();
    if d == DVec3::ZERO || len <= 0.0 || !len.is_finite() {
        return;
    }
    let u = d.any_orthonormal_vector();
    let v = d.cross(u);
    let head = (0.3 * len).min(4.0 * width);
    let shaft = len - head;
    let w = 0.5 * width;
    let ring = |at: DVec3, r: f64| -> [DVec3; 4] {
        [
            at + r * (u + v),
            at + r * (u - v),
            at + r * (-u - v),
            at + r * (-u + v),
        ]
    };
    let a = ring(from, w);
    let b = ring(from + d * shaft, w);
    let c = ring(from + d * shaft, 2.5 * w);
    let tip = from + d * len;
    let mut tri = |p: [DVec3; 3]| {
        let n = (p[1] - p[0]).cross(p[2] - p[0]).normalize_or_zero();
        for q in p {
            indices.push(vertices.len() as u32);
            vertices.push(Vertex {
                position: q.as_vec3().to_array(),
                normal: n.as_vec3().to_array(),
                body,
            });
        }
    };
    for k in 0..4 {
        let l = (k + 1) % 4;
        tri([a[k], a[l], b[l]]);
        tri([a[k], b[l], b[k]]);
        tri([c[k], c[l], tip]);
        tri([c[l], c[k], b[k]]);
        tri([c[l], b[k], b[l]]);
    }
}

/// The flat colour of each kind of contact arrow (linear rgba, unlit), in the order of
/// [`ARROW_KINDS`].
pub fn arrow_colour(kind: usize) -> [f32; 4] {
    let srgb: [[u8; 3]; 5] = [
        [0xd6, 0x27, 0x28], // collision: red
        [0xff, 0x7f, 0x0e], // microcollision: orange
        [0x2c, 0xa0, 0x2c], // resting: green
        [0x1f, 0x77, 0xb4], // re-solve: blue
        [0x94, 0x67, 0xbd], // lcp: purple
    ];
    colour_of(srgb[kind.min(4)], Shading::Unlit)
}

/// The event kinds of `events.csv`, in the order of their arrow colours.
pub const ARROW_KINDS: [&str; 5] = ["collision", "microcollision", "resting", "re-solve", "lcp"];
