//! The run as the viewer's script reads it: one JSON object embedded in the page.
//!
//! Bulk numbers travel as base64 of little-endian arrays, which the script decodes straight
//! into typed arrays: a JSON array of decimal numbers would be about three times larger and far
//! slower to parse for a run of a thousand bodies.
//!
//! - `meshes[m]`: `positions` and `normals` (Float32, xyz per vertex, the shape's own frame),
//!   `indices` (Uint32, three per triangle). Bodies whose shapes are equal share one mesh.
//! - `bodies[i]`, scene order: `name`, `mesh`, `colour` (`#rrggbb`, sRGB, the renderer's
//!   [`body_colour`]), `fixed`; a moving body has `slot`, its place in each frame's poses; a
//!   fixed one has its `position` and `orientation` (`[x, y, z, w]`).
//! - `times[k]`: the kept frames' times (s); `slots`: poses per frame; `poses`: Float32,
//!   `[x, y, z, qx, qy, qz, qw]` for each slot of each kept frame, frame by frame.
//! - `focus`, `camera`, `light`, `ground`: what the renderer's automatic camera frames and
//!   from where, where the light comes from, the ground square and its grid.

use crate::body::Motion;
use crate::render::camera::{DEFAULT_FOV_DEGREES, FIT_MARGIN, LIGHT_FROM, VIEW_FROM};
use crate::render::geometry::{body_colour, Picture, DETAIL, PLANE_HALF_SIZE_IN_FOCUS_RADII};
use crate::run_record::{RecordedFrame, RunRecord};
use crate::shape::Shape;
use crate::tessellate::{shape_mesh, TriMesh};
use serde::Serialize;

/// Half the ground square's side, in focus radii: the renderer's ground.
const GROUND_HALF_SIZE_IN_FOCUS_RADII: f64 = 4.0;

/// Floats per moving body per frame: position, then quaternion (x, y, z, w as three.js has it).
pub const POSE_FLOATS: usize = 7;

/// Everything the page shows (see the module documentation for the layout).
#[derive(Serialize)]
pub struct ViewData {
    /// The scene file's name, for the page's title.
    pub title: String,
    /// The kept frames' times (s).
    pub times: Vec<f64>,
    /// Poses per frame: the number of moving bodies.
    pub slots: usize,
    /// Base64 Float32 poses, [`POSE_FLOATS`] per slot per frame.
    pub poses: String,
    /// Distinct meshes.
    pub meshes: Vec<MeshData>,
    /// Every body, scene order.
    pub bodies: Vec<BodyData>,
    /// What the automatic camera frames.
    pub focus: FocusData,
    /// The automatic camera.
    pub camera: CameraData,
    /// Direction towards the light (z up).
    pub light: [f64; 3],
    /// The ground square.
    pub ground: GroundData,
}

/// One distinct mesh, base64 arrays.
#[derive(Serialize)]
pub struct MeshData {
    /// Float32 xyz per vertex (m).
    pub positions: String,
    /// Float32 xyz per vertex, unit.
    pub normals: String,
    /// Uint32, three per triangle.
    pub indices: String,
}

/// One body.
#[derive(Serialize)]
pub struct BodyData {
    /// Its scene name.
    pub name: String,
    /// Index into `meshes`.
    pub mesh: usize,
    /// sRGB `#rrggbb`.
    pub colour: String,
    /// Fixed bodies never move; they are drawn with the floor grid on their upward faces.
    pub fixed: bool,
    /// Moving bodies: the place of its pose in each frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slot: Option<usize>,
    /// Fixed bodies: position (m).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position: Option<[f64; 3]>,
    /// Fixed bodies: orientation `[x, y, z, w]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub orientation: Option<[f64; 4]>,
    /// A body poured in or taken out during the run: from when to when it is in the world (s;
    /// `null` for no end).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub present: Option<[Option<f64>; 2]>,
}

/// The box the automatic camera frames.
#[derive(Serialize)]
pub struct FocusData {
    /// Centre (m).
    pub centre: [f64; 3],
    /// Half the box's sides (m).
    pub half: [f64; 3],
    /// Radius of the sphere around the box (m).
    pub radius: f64,
    /// Radius around the centre that holds everything drawn (m), for the far plane.
    pub scene_radius: f64,
}

/// The automatic camera: from `from` (a direction) at [`FIT_MARGIN`] times the distance where
/// the focus box fits a vertical field of view of `fov` degrees. The script computes that
/// distance for the window's shape, as `render::camera` does for the picture's.
#[derive(Serialize)]
pub struct CameraData {
    /// Direction from the focus centre towards the eye (z up).
    pub from: [f64; 3],
    /// Vertical field of view (degrees).
    pub fov: f64,
    /// Margin over the fitting distance.
    pub margin: f64,
}

/// The ground: a square at height `z` around the focus, with grid lines `grid` apart.
#[derive(Serialize)]
pub struct GroundData {
    /// Height (m).
    pub z: f64,
    /// Half the side (m).
    pub half: f64,
    /// Grid spacing (m).
    pub grid: f64,
}

/// What [`build`] made, with the sizes the report prints.
pub struct Built {
    /// The data.
    pub data: ViewData,
    /// Bodies with a pose per frame.
    pub moving: usize,
    /// Bytes of base64 poses.
    pub pose_bytes: usize,
}

/// The frames kept with `every`: every `every`-th from the first, and the last, so that the
/// slider reaches the end of the run.
pub fn kept_frames(run: &RunRecord, every: usize) -> Vec<&RecordedFrame> {
    let every = every.max(1);
    let mut kept: Vec<&RecordedFrame> = run.frames.iter().step_by(every).collect();
    if !run.frames.len().saturating_sub(1).is_multiple_of(every) {
        kept.extend(run.frames.last());
    }
    kept
}

/// The viewer's data for `run`, keeping every `every`-th frame (see [`kept_frames`]).
pub fn build(run: &RunRecord, every: usize) -> Built {
    let frames = kept_frames(run, every);
    // The renderer's own framing, ground and grid, so the page opens on the picture
    // `tumble render` draws.
    let picture = Picture::new(run, &frames);
    let focus = picture.focus;
    let plane_half = PLANE_HALF_SIZE_IN_FOCUS_RADII * focus.radius;

    // One mesh per distinct shape: a funnel of a thousand equal cubes sends one cube. Shapes
    // are compared whole (a linear scan over the distinct ones, which are few in practice).
    let mut shapes: Vec<&Shape> = Vec::new();
    let mut mesh_of = Vec::with_capacity(run.bodies.len());
    for body in &run.bodies {
        let m = match shapes.iter().position(|s| **s == body.shape) {
            Some(m) => m,
            None => {
                shapes.push(&body.shape);
                shapes.len() - 1
            }
        };
        mesh_of.push(m);
    }
    let meshes: Vec<MeshData> = shapes
        .iter()
        .map(|s| mesh_data(&shape_mesh(s, DETAIL, plane_half)))
        .collect();

    let first = frames[0];
    let mut bodies = Vec::with_capacity(run.bodies.len());
    let mut moving = Vec::new();
    let mut dynamic_index = 0;
    for (i, body) in run.bodies.iter().enumerate() {
        // Colours by index among the dynamic bodies, exactly as the renderer counts them.
        let [r, g, b] = body_colour(body.motion, dynamic_index);
        if body.motion == Motion::Dynamic {
            dynamic_index += 1;
        }
        let fixed = body.motion == Motion::Fixed;
        let (p, q) = first.poses[i];
        bodies.push(BodyData {
            name: body.name.clone(),
            mesh: mesh_of[i],
            colour: format!("#{r:02x}{g:02x}{b:02x}"),
            fixed,
            slot: (!fixed).then_some(moving.len()),
            position: fixed.then_some(p.to_array()),
            orientation: fixed.then_some([q.x, q.y, q.z, q.w]),
            present: {
                let (from, to) = body.present;
                let finite = |t: f64| t.is_finite().then_some(t);
                (from.is_finite() || to.is_finite()).then_some([finite(from), finite(to)])
            },
        });
        if !fixed {
            moving.push(i);
        }
    }

    let mut poses = Vec::with_capacity(frames.len() * moving.len() * POSE_FLOATS * 4);
    for frame in &frames {
        for &i in &moving {
            let (p, q) = frame.poses[i];
            for v in [p.x, p.y, p.z, q.x, q.y, q.z, q.w] {
                poses.extend_from_slice(&(v as f32).to_le_bytes());
            }
        }
    }
    let poses = base64(&poses);
    let pose_bytes = poses.len();
    let title = run.scene.source.file_name().map_or_else(
        || run.dir.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let data = ViewData {
        title,
        times: frames.iter().map(|f| f.t).collect(),
        slots: moving.len(),
        poses,
        meshes,
        bodies,
        focus: FocusData {
            centre: focus.centre.to_array(),
            half: focus.half.to_array(),
            radius: focus.radius,
            scene_radius: picture.scene_radius,
        },
        camera: CameraData {
            from: VIEW_FROM.normalize().to_array(),
            fov: DEFAULT_FOV_DEGREES,
            margin: FIT_MARGIN,
        },
        light: LIGHT_FROM.normalize().to_array(),
        ground: GroundData {
            z: picture.ground_z,
            half: GROUND_HALF_SIZE_IN_FOCUS_RADII * focus.radius,
            grid: picture.grid_spacing,
        },
    };
    Built {
        data,
        moving: moving.len(),
        pose_bytes,
    }
}

/// A mesh as base64 arrays.
fn mesh_data(mesh: &TriMesh) -> MeshData {
    let floats = |v: &[[f32; 3]]| -> String {
        base64(
            &v.iter()
                .flatten()
                .flat_map(|x| x.to_le_bytes())
                .collect::<Vec<u8>>(),
        )
    };
    MeshData {
        positions: floats(&mesh.positions),
        normals: floats(&mesh.normals),
        indices: base64(
            &mesh
                .indices
                .iter()
                .flat_map(|i| i.to_le_bytes())
                .collect::<Vec<u8>>(),
        ),
    }
}

/// Standard base64 (RFC 4648, with padding), as the browser's `atob` reads it.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648() {
        // RFC 4648 §10's test vectors.
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), encoded);
        }
        assert_eq!(base64(&[0xfb, 0xff, 0xbf]), "+/+/");
    }
}
