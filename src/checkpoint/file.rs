//! The checkpoint file: a fixed header, then the payload (see the module doc of
//! [`crate::checkpoint`] for the layout), written to a temporary file in the same folder, synced
//! and renamed over the last one, so that a process killed at any instant leaves either the old
//! checkpoint or the new one, never a torn one.

use super::CheckpointError;
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::Path;

/// The first bytes of every checkpoint.
pub const MAGIC: [u8; 8] = *b"TUMBLECK";

/// Bytes of the header: magic, version, scene hash, payload length, checksum.
pub const HEADER_LEN: usize = 8 + 4 + 32 + 8 + 32;

/// Byte offset of the format version in the file (a little-endian `u32`).
pub const VERSION_OFFSET: usize = 8;

/// The checksum: SHA-256 of the header before it (magic, version, scene hash, length) and the
/// payload, so a flipped bit anywhere in the file is caught.
fn checksum(head: &[u8], payload: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(head);
    h.update(payload);
    h.finalize().into()
}

/// The whole file for `payload` of a scene hashing to `scene_hash`, in format `version`.
pub fn encode(version: u32, scene_hash: &[u8; 32], payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(scene_hash);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    let sum = checksum(&out, payload);
    out.extend_from_slice(&sum);
    out.extend_from_slice(payload);
    out
}

/// The scene hash and payload of a file's `bytes`, after checking its magic, its version
/// (`version` is the one this build reads), its length and its checksum. `path` names the file
/// in the errors.
pub fn decode<'a>(
    path: &Path,
    bytes: &'a [u8],
    version: u32,
) -> Result<([u8; 32], &'a [u8]), CheckpointError> {
    let fail = |message: String| Err(CheckpointError::new(path, message));
    let start = &bytes[..bytes.len().min(MAGIC.len())];
    if !MAGIC.starts_with(start) {
        return fail("not a tumble checkpoint (its first bytes are not \"TUMBLECK\")".into());
    }
    if bytes.len() < HEADER_LEN {
        return fail(format!(
            "truncated: {} bytes, shorter than the {HEADER_LEN}-byte header",
            bytes.len()
        ));
    }
    let field = |from: usize, len: usize| &bytes[from..from + len];
    let found = u32::from_le_bytes(field(VERSION_OFFSET, 4).try_into().unwrap_or_default());
    if found != version {
        return fail(format!(
            "checkpoint format version {found}, but this build of tumble reads version {version} \
             only"
        ));
    }
    let scene_hash: [u8; 32] = field(12, 32).try_into().unwrap_or_default();
    let length = u64::from_le_bytes(field(44, 8).try_into().unwrap_or_default());
    let stored: [u8; 32] = field(52, 32).try_into().unwrap_or_default();
    let payload = &bytes[HEADER_LEN..];
    if payload.len() as u64 != length {
        return fail(format!(
            "truncated or padded: the header announces {length} bytes of state, the file has {}",
            payload.len()
        ));
    }
    if checksum(&bytes[..52], payload) != stored {
        return fail("corrupt: the checksum does not match its contents".into());
    }
    Ok((scene_hash, payload))
}

/// Writes `bytes` to `path` atomically: a temporary file beside it, synced, renamed over it,
/// and the folder synced so that the rename itself survives a crash.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), CheckpointError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map_or_else(|| "checkpoint".into(), |n| n.to_string_lossy());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let io = |e: std::io::Error, p: &Path| CheckpointError::new(p, format!("cannot write: {e}"));
    let written = std::fs::File::create(&tmp).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    if let Err(e) = written {
        // A partial temporary file is of no use to anyone.
        let _ = std::fs::remove_file(&tmp);
        return Err(io(e, &tmp));
    }
    std::fs::rename(&tmp, path).map_err(|e| io(e, path))?;
    // The folder's entry: without this a power cut could lose the rename (not a kill).
    #[cfg(unix)]
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}
