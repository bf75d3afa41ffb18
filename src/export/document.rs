//! The glTF document of a run and its binary buffer: the bodies' meshes and materials, a node
//! per body, and the animation of the frames.
//!
//! The buffer holds three buffer views, in this order:
//! - the vertices of every distinct mesh, position and normal interleaved (stride 24 bytes; the
//!   specification asks for a stride whenever several vertex accessors share a view);
//! - their triangle indices (u32);
//! - the animation: the frame times, then each moving body's translations and rotations.

use super::glb::Bin;
use super::{ExportError, ExportReport};
use crate::body::Motion;
use crate::render::geometry::{
    body_colour, colour_of, Picture, Shading, DETAIL, PLANE_HALF_SIZE_IN_FOCUS_RADII,
};
use crate::run_record::{RecordedFrame, RunRecord};
use crate::shape::Shape;
use crate::tessellate::{shape_mesh, TriMesh};
use glam::{DQuat, DVec3};
use gltf_json as json;
use json::accessor::{ComponentType, GenericComponentType, Type};
use json::validation::{Checked::Valid, USize64};
use json::Index;
use std::collections::{BTreeMap, HashMap};

/// Bytes per interleaved vertex: position and normal, three f32 each.
const VERTEX_STRIDE: usize = 24;

/// tumble's world is z-up (gravity along −z), glTF's is y-up. The export turns the world by
/// −90° about x, (x, y, z) → (x, z, −y): a rotation, so handedness and winding are kept, and
/// Blender's importer (which turns y-up back to z-up) shows the run at tumble's own coordinates.
/// The tempting alternative, a parent node holding that turn, would leave the numbers as in
/// `frames.csv` but add a node that is no body and that every viewer lists.
fn position(p: DVec3) -> [f32; 3] {
    // 0 − y rather than −y: a y of 0 becomes 0, not −0, which reads as a typo in the JSON.
    [p.x as f32, p.z as f32, (0.0 - p.y) as f32]
}

/// [`position`]'s turn applied to an orientation: conjugating by the turn rotates the vector
/// part alike and keeps the scalar. glTF orders quaternions x, y, z, w.
fn rotation(q: DQuat) -> [f32; 4] {
    let q = q.normalize();
    [q.x as f32, q.z as f32, (0.0 - q.y) as f32, q.w as f32]
}

/// [`position`]'s turn on a mesh vertex or normal (already f32: exact, it only permutes).
fn turned(v: [f32; 3]) -> [f32; 3] {
    [v[0], v[2], 0.0 - v[1]]
}

/// A finished document: the JSON root and the bytes of its one buffer.
pub(crate) struct Document {
    pub root: json::Root,
    pub bin: Vec<u8>,
    pub report: ExportReport,
}

/// Where one distinct mesh's data went in the buffer.
struct Placed {
    /// First vertex, counted over all meshes.
    first_vertex: usize,
    vertices: usize,
    /// Byte offset of its indices in the index view.
    index_offset: usize,
    indices: usize,
    min: [f32; 3],
    max: [f32; 3],
}

/// Builds the document of `run`.
pub(crate) fn document(run: &RunRecord) -> Result<Document, ExportError> {
    let frames = &run.frames;
    if frames.is_empty() {
        return Err(ExportError::Invalid("the run has no frames".into()));
    }
    if let Some(f) = frames.iter().find(|f| f.poses.len() != run.bodies.len()) {
        return Err(ExportError::Invalid(format!(
            "the frame at t = {} s has {} poses for {} bodies",
            f.t,
            f.poses.len(),
            run.bodies.len()
        )));
    }
    let name = scene_name(run);
    let plane_half_size = plane_half_size(run);

    // Distinct shapes are tessellated once and their vertices stored once: a pile of ten
    // thousand equal cubes is one mesh. Shapes hold f64s (no Hash or Eq), but their Debug text
    // prints each f64 so that it reads back exactly, so equal text means an equal shape.
    let mut meshes: Vec<TriMesh> = Vec::new();
    let mut by_shape: HashMap<String, usize> = HashMap::new();
    let body_mesh: Vec<Option<usize>> = run
        .bodies
        .iter()
        .map(|b| {
            let k = *by_shape.entry(format!("{:?}", b.shape)).or_insert_with(|| {
                meshes.push(shape_mesh(&b.shape, DETAIL, plane_half_size));
                meshes.len() - 1
            });
            // A shape with no triangles (a degenerate hull, which the scene check refuses)
            // gets a node without a mesh: an accessor may not be empty.
            (!meshes[k].indices.is_empty()).then_some(k)
        })
        .collect();

    let mut bin = Bin::default();
    let mut placed: Vec<Placed> = write_vertices(&mut bin, &meshes);
    let vertex_view = (0, bin.len());
    let index_start = bin.len();
    for (p, m) in placed.iter_mut().zip(&meshes) {
        p.index_offset = bin.len() - index_start;
        p.indices = m.indices.len();
        bin.u32s(m.indices.iter().copied());
    }
    let index_view = (index_start, bin.len() - index_start);

    let mut root = json::Root {
        asset: json::Asset {
            generator: Some(format!("tumble {}", env!("CARGO_PKG_VERSION"))),
            ..Default::default()
        },
        ..Default::default()
    };
    let buffer = root.push(json::Buffer {
        byte_length: USize64(0), // set once the buffer is complete
        name: None,
        uri: None,
        extensions: None,
        extras: Default::default(),
    });
    let mut mesh_accessors = vec![None; placed.len()];
    if vertex_view.1 > 0 {
        let v = root.push(view(buffer, vertex_view, Holds::Vertices));
        let i = root.push(view(buffer, index_view, Holds::Indices));
        for (k, p) in placed.iter().enumerate() {
            if p.indices == 0 {
                continue; // no body uses it (see body_mesh), and an accessor may not be empty
            }
            let at = p.first_vertex * VERTEX_STRIDE;
            let minmax = Some((p.min.to_vec(), p.max.to_vec()));
            let pos = root.push(accessor(v, at, p.vertices, Type::Vec3, minmax));
            let nor = root.push(accessor(v, at + 12, p.vertices, Type::Vec3, None));
            let mut idx = accessor(i, p.index_offset, p.indices, Type::Scalar, None);
            idx.component_type = Valid(GenericComponentType(ComponentType::U32));
            mesh_accessors[k] = Some((pos, nor, root.push(idx)));
        }
    }

    // Materials by colour, meshes by (shape, material): nodes share both, so a viewer holds one
    // copy of each however many bodies there are.
    let mut materials: HashMap<([u8; 3], bool), Index<json::Material>> = HashMap::new();
    let mut mesh_of: HashMap<(usize, Index<json::Material>), Index<json::Mesh>> = HashMap::new();
    let mut moving_index = 0; // the palette's index, counted as Picture::new counts it
    let mut triangles = 0;
    let first = &frames[0];
    for (i, body) in run.bodies.iter().enumerate() {
        let colour = body_colour(body.motion, moving_index);
        if body.motion == Motion::Dynamic {
            moving_index += 1;
        }
        // A plane is one square face: seen from below it would vanish.
        let double_sided = matches!(body.shape, Shape::Plane { .. });
        let mesh =
            match (body_mesh[i], body_mesh[i].and_then(|k| mesh_accessors[k])) {
                (Some(k), Some((pos, nor, idx))) => {
                    triangles += meshes[k].triangles();
                    let material = *materials
                        .entry((colour, double_sided))
                        .or_insert_with(|| root.push(material(body.motion, colour, double_sided)));
                    Some(*mesh_of.entry((k, material)).or_insert_with(|| {
                        root.push(mesh(&body.shape, k, pos, nor, idx, material))
                    }))
                }
                _ => None,
            };
        let (p, q) = first.poses[i];
        root.push(json::Node {
            mesh,
            name: Some(body.name.clone()),
            translation: Some(finite(position(p), run, i, first.t)?),
            rotation: Some(json::scene::UnitQuaternion(finite(
                rotation(q),
                run,
                i,
                first.t,
            )?)),
            ..Default::default()
        });
    }
    let nodes: Vec<Index<json::Node>> = (0..run.bodies.len() as u32).map(Index::new).collect();
    let scene = root.push(json::Scene {
        extensions: None,
        extras: Default::default(),
        name: Some(name.clone()),
        nodes,
    });
    root.scene = Some(scene);

    let channels = animate(run, &mut root, &mut bin, buffer, name)?;
    let bin = bin.into_bytes();
    root.buffers[0].byte_length = USize64(bin.len() as u64);
    if bin.is_empty() {
        root.buffers.clear(); // a buffer of length 0 is not allowed (no body has a mesh)
    }
    let report = ExportReport {
        nodes: root.nodes.len(),
        meshes: root.meshes.len(),
        materials: root.materials.len(),
        triangles,
        frames: frames.len(),
        channels,
        seconds: frames[frames.len() - 1].t - frames[0].t,
        bytes: 0, // known once the container is built
    };
    Ok(Document { root, bin, report })
}

/// Writes the vertices of `meshes`, interleaved and turned to y-up, with their bounds.
fn write_vertices(bin: &mut Bin, meshes: &[TriMesh]) -> Vec<Placed> {
    let mut first_vertex = 0;
    meshes
        .iter()
        .map(|m| {
            let (mut min, mut max) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
            for (p, n) in m.positions.iter().zip(&m.normals) {
                let p = turned(*p);
                for k in 0..3 {
                    min[k] = min[k].min(p[k]);
                    max[k] = max[k].max(p[k]);
                }
                // Renormalised in f64: the validator wants unit normals to 5e-4, and f32
                // rounding of a compound part's turned normal could drift.
                let n = DVec3::from(turned(*n).map(f64::from)).normalize_or(DVec3::Y);
                bin.f32s(p);
                bin.f32s(n.as_vec3().to_array());
            }
            let placed = Placed {
                first_vertex,
                vertices: m.positions.len(),
                index_offset: 0,
                indices: 0,
                min,
                max,
            };
            first_vertex += m.positions.len();
            placed
        })
        .collect()
}

/// The animation of the frames, if any body moves: per moving body a translation and a
/// rotation channel, linear, over the frame times. Returns the number of channels.
fn animate(
    run: &RunRecord,
    root: &mut json::Root,
    bin: &mut Bin,
    buffer: Index<json::Buffer>,
    name: String,
) -> Result<usize, ExportError> {
    let frames = &run.frames;
    let moving: Vec<usize> = (0..run.bodies.len())
        .filter(|&i| run.bodies[i].motion != Motion::Fixed)
        .collect();
    if moving.is_empty() {
        return Ok(0); // an animation must have a channel
    }
    let start = bin.len();
    let times = frame_times(frames);
    bin.f32s(times.iter().copied());
    let mut outputs = Vec::with_capacity(moving.len());
    for &i in &moving {
        let translations = bin.len() - start;
        for f in frames {
            bin.f32s(finite(position(f.poses[i].0), run, i, f.t)?);
        }
        let rotations = bin.len() - start;
        for (q, f) in continuous(frames.iter().map(|f| f.poses[i].1)).zip(frames) {
            bin.f32s(finite(rotation(q), run, i, f.t)?);
        }
        // A body poured in or taken out: scale 1 while it is in the world, 0 otherwise, held
        // from frame to frame (step interpolation), so that it appears and vanishes.
        let body = &run.bodies[i];
        let scales = (body.present.0.is_finite() || body.present.1.is_finite()).then(|| {
            let at = bin.len() - start;
            for f in frames {
                let s = if body.present_at(f.t) { 1.0 } else { 0.0 };
                bin.f32s([s, s, s]);
            }
            at
        });
        outputs.push((i, translations, rotations, scales));
    }
    let data = root.push(view(buffer, (start, bin.len() - start), Holds::Animation));
    let n = frames.len();
    let minmax = Some((vec![times[0]], vec![times[n - 1]]));
    let input = root.push(accessor(data, 0, n, Type::Scalar, minmax));
    let mut animation = json::Animation {
        extensions: None,
        extras: Default::default(),
        channels: Vec::new(),
        name: Some(name),
        samplers: Vec::new(),
    };
    for (i, translations, rotations, scales) in outputs {
        use json::animation::{Interpolation, Property};
        let channels = [
            Some((
                translations,
                Type::Vec3,
                Property::Translation,
                Interpolation::Linear,
            )),
            Some((
                rotations,
                Type::Vec4,
                Property::Rotation,
                Interpolation::Linear,
            )),
            scales.map(|at| (at, Type::Vec3, Property::Scale, Interpolation::Step)),
        ];
        for (at, ty, path, interpolation) in channels.into_iter().flatten() {
            let output = root.push(accessor(data, at, n, ty, None));
            let sampler = Index::push(
                &mut animation.samplers,
                json::animation::Sampler {
                    extensions: None,
                    extras: Default::default(),
                    input,
                    interpolation: Valid(interpolation),
                    output,
                },
            );
            animation.channels.push(json::animation::Channel {
                sampler,
                target: json::animation::Target {
                    extensions: None,
                    extras: Default::default(),
                    node: Index::new(i as u32),
                    path: Valid(path),
                },
                extensions: None,
                extras: Default::default(),
            });
        }
    }
    let channels = animation.channels.len();
    root.push(animation);
    Ok(channels)
}

/// The frame times (s) as f32, strictly increasing as the specification requires: two frames
/// that f32 cannot tell apart (microseconds apart hours into a run) are moved one f32 step
/// apart rather than refused.
fn frame_times(frames: &[RecordedFrame]) -> Vec<f32> {
    let mut times: Vec<f32> = Vec::with_capacity(frames.len());
    for f in frames {
        let mut t = f.t as f32;
        if let Some(&last) = times.last() {
            if t <= last {
                t = last.next_up();
            }
        }
        times.push(t);
    }
    times
}

/// The orientations with each one's sign chosen nearest the previous: q and −q are the same
/// turn, but a linear (slerp) sampler between opposite signs goes the long way round.
fn continuous(qs: impl Iterator<Item = DQuat>) -> impl Iterator<Item = DQuat> {
    let mut last: Option<DQuat> = None;
    qs.map(move |q| {
        let q = match last {
            Some(l) if l.dot(q) < 0.0 => -q,
            _ => q,
        };
        last = Some(q);
        q
    })
}

/// `v` (a position or an orientation) if it is finite as f32; an error naming the body and
/// time otherwise (a body flown past f32's range, or a zero quaternion).
fn finite<const N: usize>(
    v: [f32; N],
    run: &RunRecord,
    body: usize,
    t: f64,
) -> Result<[f32; N], ExportError> {
    if v.iter().all(|x| x.is_finite()) {
        Ok(v)
    } else {
        Err(ExportError::Invalid(format!(
            "body \"{}\" at t = {t} s: its pose {v:?} has no glTF (f32) form",
            run.bodies[body].name
        )))
    }
}

/// The scene's name: its file's stem.
fn scene_name(run: &RunRecord) -> String {
    run.scene.source.file_stem().map_or_else(
        || "tumble".to_string(),
        |s| s.to_string_lossy().into_owned(),
    )
}

/// Half the side of a plane's square, as `tumble render` draws it: a multiple of the radius of
/// the camera's focus over every frame (only computed when the scene has a plane).
fn plane_half_size(run: &RunRecord) -> f64 {
    if !run
        .bodies
        .iter()
        .any(|b| matches!(b.shape, Shape::Plane { .. }))
    {
        return 1.0;
    }
    let frames: Vec<&RecordedFrame> = run.frames.iter().collect();
    PLANE_HALF_SIZE_IN_FOCUS_RADII * Picture::new(run, &frames).focus.radius
}

/// What a buffer view holds, which sets its target (the kind of GPU buffer a viewer makes of it)
/// and stride.
#[derive(Clone, Copy, Debug)]
enum Holds {
    /// Interleaved positions and normals.
    Vertices,
    /// Triangle indices.
    Indices,
    /// Animation times and values: no target, they never reach the GPU as such.
    Animation,
}

/// A buffer view of `(offset, length)` bytes of `buffer`.
fn view(
    buffer: Index<json::Buffer>,
    (offset, length): (usize, usize),
    holds: Holds,
) -> json::buffer::View {
    use json::buffer::{Stride, Target};
    let (target, stride) = match holds {
        Holds::Vertices => (Some(Target::ArrayBuffer), Some(Stride(VERTEX_STRIDE))),
        Holds::Indices => (Some(Target::ElementArrayBuffer), None),
        Holds::Animation => (None, None),
    };
    json::buffer::View {
        buffer,
        byte_length: USize64(length as u64),
        byte_offset: Some(USize64(offset as u64)),
        byte_stride: stride,
        name: None,
        target: target.map(Valid),
        extensions: None,
        extras: Default::default(),
    }
}

/// An f32 accessor of `count` elements of type `ty` at `offset` in `view`.
fn accessor(
    view: Index<json::buffer::View>,
    offset: usize,
    count: usize,
    ty: Type,
    minmax: Option<(Vec<f32>, Vec<f32>)>,
) -> json::Accessor {
    let (min, max) = minmax.map_or((None, None), |(lo, hi)| {
        (Some(json::Value::from(lo)), Some(json::Value::from(hi)))
    });
    json::Accessor {
        buffer_view: Some(view),
        byte_offset: Some(USize64(offset as u64)),
        count: USize64(count as u64),
        component_type: Valid(GenericComponentType(ComponentType::F32)),
        extensions: None,
        extras: Default::default(),
        type_: Valid(ty),
        min,
        max,
        name: None,
        normalized: false,
        sparse: None,
    }
}

/// The material of a body drawn in `colour` (sRGB bytes, as `tumble render` draws it): a
/// dielectric of medium roughness, as the renderer shades it (glTF's default material is bare
/// metal, which viewers without an environment map draw nearly black).
fn material(motion: Motion, colour: [u8; 3], double_sided: bool) -> json::Material {
    // glTF base colours are linear, like the renderer's instance colours.
    let [r, g, b, _] = colour_of(colour, Shading::Lit);
    let [cr, cg, cb] = colour;
    json::Material {
        name: Some(format!("{} #{cr:02x}{cg:02x}{cb:02x}", motion.as_str())),
        double_sided,
        pbr_metallic_roughness: json::material::PbrMetallicRoughness {
            base_color_factor: json::material::PbrBaseColorFactor([r, g, b, 1.0]),
            metallic_factor: json::material::StrengthFactor(0.0),
            roughness_factor: json::material::StrengthFactor(0.6),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// The mesh of distinct shape `k` in `material`.
fn mesh(
    shape: &Shape,
    k: usize,
    position: Index<json::Accessor>,
    normal: Index<json::Accessor>,
    indices: Index<json::Accessor>,
    material: Index<json::Material>,
) -> json::Mesh {
    let attributes = BTreeMap::from([
        (Valid(json::mesh::Semantic::Positions), position),
        (Valid(json::mesh::Semantic::Normals), normal),
    ]);
    json::Mesh {
        extensions: None,
        extras: Default::default(),
        name: Some(format!("{} {k}", shape.type_name())),
        primitives: vec![json::mesh::Primitive {
            attributes,
            extensions: None,
            extras: Default::default(),
            indices: Some(indices),
            material: Some(material),
            mode: Valid(json::mesh::Mode::Triangles),
            targets: None,
        }],
        weights: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Quat, Vec3};

    #[test]
    fn the_turn_of_orientations_matches_the_turn_of_positions() {
        // A node turned by rotation(q) must carry a vertex turned by position() to where the
        // body's own rotation q carries it, turned: R'·M·v = M·(R·v).
        let q = DQuat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 2.0);
        for v in [DVec3::X, DVec3::Y, DVec3::Z, DVec3::new(0.2, -0.5, 0.7)] {
            let turned_node = Quat::from_array(rotation(q)) * Vec3::from(position(v));
            let want = Vec3::from(position(q * v));
            assert!(
                (turned_node - want).length() < 1e-6,
                "{v}: {turned_node} vs {want}"
            );
        }
        // Up in tumble (+z) is up in glTF (+y).
        assert_eq!(position(DVec3::Z), [0.0, 1.0, 0.0]);
    }

    #[test]
    fn orientations_keep_the_sign_of_their_neighbour() {
        let a = DQuat::from_rotation_z(0.1);
        let b = DQuat::from_rotation_z(0.2);
        let out: Vec<DQuat> = continuous([a, -b, b, -a].into_iter()).collect();
        assert_eq!(out, vec![a, b, b, a]);
    }

    #[test]
    fn frame_times_f32_cannot_tell_apart_are_moved_one_step() {
        let frame = |t: f64| RecordedFrame { t, poses: vec![] };
        let t0 = 3600.0;
        let times = frame_times(&[frame(t0), frame(t0 + 1e-6), frame(t0 + 1.0)]);
        assert_eq!(times[1], (t0 as f32).next_up());
        assert!(times.windows(2).all(|w| w[0] < w[1]), "{times:?}");
    }
}
