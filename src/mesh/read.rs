//! Reading mesh files: STL (binary or ASCII, through `stl_io`) and Wavefront OBJ (through
//! `tobj`, polygons fanned into triangles), chosen by the file's extension. Every failure is a
//! message about the file, never a panic.

use glam::DVec3;
use std::path::Path;

/// Triangles as read: positions (not yet welded or scaled) and index triples into them.
pub(super) struct RawMesh {
    pub(super) positions: Vec<DVec3>,
    pub(super) triangles: Vec<[u32; 3]>,
}

/// Why a file could not be read.
pub(super) enum ReadError {
    /// No file at that path.
    NotFound,
    /// The extension is neither `.stl` nor `.obj` (the extension, lower case, or "" if none).
    UnknownFormat(String),
    /// The file exists but could not be read or parsed.
    Invalid(String),
}

/// The largest mesh file read (bytes): 256 MiB, an STL of 5 million triangles (binary) or about
/// a million (ASCII), far more than a collision mesh needs (the hull or decomposition of a
/// million triangles takes minutes). A path to `/dev/zero` or a huge file is refused, not read
/// until the memory runs out.
pub const MAX_MESH_FILE_BYTES: u64 = 256 << 20;

/// Reads `path` by its extension (case-insensitive): `.stl` or `.obj`. Only a regular file (or
/// a link to one) is opened: a FIFO would block the reading for ever and a device never end.
pub(super) fn read_file(path: &Path) -> Result<RawMesh, ReadError> {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    if ext != "stl" && ext != "obj" {
        return Err(ReadError::UnknownFormat(ext));
    }
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(ReadError::NotFound),
        Err(e) => return Err(ReadError::Invalid(format!("cannot read it: {e}"))),
    };
    if !meta.is_file() {
        let kind = if meta.is_dir() {
            "a directory"
        } else {
            "not a regular file (a device, a FIFO or a socket)"
        };
        return Err(ReadError::Invalid(format!(
            "cannot read it: it is {kind}, not a mesh file"
        )));
    }
    if meta.len() > MAX_MESH_FILE_BYTES {
        return Err(ReadError::Invalid(format!(
            "is {} bytes, more than the {MAX_MESH_FILE_BYTES} bytes (256 MiB) a mesh file may \
             have",
            meta.len()
        )));
    }
    let mut bytes = Vec::new();
    // Read through a limit too: the file may have grown since its size was read.
    let read = std::fs::File::open(path).and_then(|f| {
        use std::io::Read;
        f.take(MAX_MESH_FILE_BYTES + 1).read_to_end(&mut bytes)
    });
    match read {
        Ok(n) if n as u64 > MAX_MESH_FILE_BYTES => {
            return Err(ReadError::Invalid(format!(
                "grew past the {MAX_MESH_FILE_BYTES} bytes (256 MiB) a mesh file may have"
            )))
        }
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(ReadError::NotFound),
        Err(e) => return Err(ReadError::Invalid(format!("cannot read it: {e}"))),
    }
    if ext == "stl" {
        read_stl_bytes(bytes)
    } else {
        read_obj(&bytes)
    }
}

/// STL: binary when the size is exactly 84 + 50 n bytes for the n triangles the header
/// announces, ASCII otherwise. (A binary file whose 80-byte header happens to start with
/// "solid " is common; `stl_io` would take it for ASCII, so the header, which carries nothing,
/// is blanked first.)
pub(super) fn read_stl_bytes(mut bytes: Vec<u8>) -> Result<RawMesh, ReadError> {
    let binary = bytes.len() >= 84 && {
        let n = u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]) as u64;
        84 + 50 * n == bytes.len() as u64
    };
    if binary {
        bytes[..80].fill(0);
    } else if !bytes.starts_with(b"solid") {
        return Err(ReadError::Invalid(format!(
            "not an STL file: neither ASCII (starting with \"solid\") nor binary (84 + 50 n \
             bytes for n triangles; this file has {} bytes)",
            bytes.len()
        )));
    } else if bytes.get(5) != Some(&b' ') {
        // A nameless "solid" line: `stl_io` looks for "solid " with its space.
        bytes.insert(5, b' ');
    }
    let mesh = stl_io::read_stl(&mut std::io::Cursor::new(bytes))
        .map_err(|e| ReadError::Invalid(format!("not a valid STL file: {e}")))?;
    let positions = mesh
        .vertices
        .iter()
        .map(|v| DVec3::new(v[0].into(), v[1].into(), v[2].into()))
        .collect();
    let triangles = mesh
        .faces
        .iter()
        .map(|f| f.vertices.map(|i| i as u32))
        .collect();
    Ok(RawMesh {
        positions,
        triangles,
    })
}

/// OBJ: every object and group of the file, polygons fanned into triangles; normals, texture
/// coordinates and materials are ignored (an `mtllib` is not opened).
fn read_obj(bytes: &[u8]) -> Result<RawMesh, ReadError> {
    let options = tobj::LoadOptions {
        triangulate: true,
        ignore_points: true,
        ignore_lines: true,
        ..Default::default()
    };
    let (models, _materials) =
        tobj::load_obj_buf(&mut std::io::BufReader::new(bytes), &options, |_| {
            Err(tobj::LoadError::GenericFailure)
        })
        .map_err(|e| ReadError::Invalid(format!("not a valid OBJ file: {e}")))?;
    let mut mesh = RawMesh {
        positions: Vec::new(),
        triangles: Vec::new(),
    };
    for model in &models {
        let m = &model.mesh;
        let base = mesh.positions.len() as u32;
        let count = (m.positions.len() / 3) as u32;
        mesh.positions.extend(
            m.positions
                .chunks_exact(3)
                .map(|p| DVec3::new(p[0], p[1], p[2])),
        );
        for t in m.indices.chunks_exact(3) {
            if t.iter().any(|&i| i >= count) {
                return Err(ReadError::Invalid(format!(
                    "not a valid OBJ file: face index {} out of range ({count} positions)",
                    t.iter().max().map_or(0, |&i| i + 1)
                )));
            }
            mesh.triangles.push([base + t[0], base + t[1], base + t[2]]);
        }
    }
    Ok(mesh)
}
