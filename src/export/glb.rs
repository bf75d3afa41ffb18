//! The binary glTF container (glTF 2.0 specification, §4.4 "Binary glTF Layout"): a 12-byte
//! header, a JSON chunk and a BIN chunk. Every chunk starts and ends on a 4-byte boundary; the
//! JSON chunk is padded with spaces (so it stays valid JSON) and the BIN chunk with zeros.

/// "glTF" read as a little-endian u32.
const MAGIC: u32 = 0x4654_6C67;
/// The container version of glTF 2.0.
const VERSION: u32 = 2;
/// Chunk type "JSON".
const CHUNK_JSON: u32 = 0x4E4F_534A;
/// Chunk type "BIN\0".
const CHUNK_BIN: u32 = 0x004E_4942;

/// The BIN chunk being assembled. Every value is a little-endian f32 or u32, so every piece
/// starts at a multiple of 4: buffer views and accessors then meet the specification's
/// alignment rule (offsets a multiple of the component size) without padding in between.
#[derive(Debug, Default)]
pub(crate) struct Bin {
    bytes: Vec<u8>,
}

impl Bin {
    /// Bytes written so far: the offset of the next value.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Appends f32 values.
    pub fn f32s(&mut self, values: impl IntoIterator<Item = f32>) {
        for v in values {
            self.bytes.extend_from_slice(&v.to_le_bytes());
        }
    }

    /// Appends u32 values.
    pub fn u32s(&mut self, values: impl IntoIterator<Item = u32>) {
        for v in values {
            self.bytes.extend_from_slice(&v.to_le_bytes());
        }
    }

    /// The finished bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

/// Rounds `n` up to a multiple of 4.
fn padded(n: usize) -> usize {
    n.div_ceil(4) * 4
}

/// The GLB file of `json` (the document) and `bin` (its one buffer), or `None` when the file
/// would pass the format's 4 GiB limit (its lengths are u32).
pub(crate) fn container(json: &[u8], bin: &[u8]) -> Option<Vec<u8>> {
    let (json_len, bin_len) = (padded(json.len()), padded(bin.len()));
    // A document without a buffer has no BIN chunk (an empty chunk is not allowed).
    let bin_chunk = if bin.is_empty() { 0 } else { 8 + bin_len };
    let total = 12 + 8 + json_len + bin_chunk;
    let word = |n: usize| u32::try_from(n).ok().map(u32::to_le_bytes);
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&MAGIC.to_le_bytes());
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&word(total)?);
    out.extend_from_slice(&word(json_len)?);
    out.extend_from_slice(&CHUNK_JSON.to_le_bytes());
    out.extend_from_slice(json);
    out.resize(20 + json_len, b' ');
    if !bin.is_empty() {
        out.extend_from_slice(&word(bin_len)?);
        out.extend_from_slice(&CHUNK_BIN.to_le_bytes());
        out.extend_from_slice(bin);
        out.resize(total, 0);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_padded_to_four_bytes() {
        let glb = container(b"{\"a\":1}", &[1, 2, 3, 4, 5]).unwrap();
        let word = |at: usize| u32::from_le_bytes(glb[at..at + 4].try_into().unwrap());
        assert_eq!(&glb[0..4], b"glTF");
        assert_eq!(word(4), 2);
        assert_eq!(word(8) as usize, glb.len());
        assert_eq!(word(12), 8); // 7 bytes of JSON and one space
        assert_eq!(&glb[20..28], b"{\"a\":1} ");
        assert_eq!(word(28), 8); // 5 bytes and three zeros
        assert_eq!(&glb[32..36], b"BIN\0");
        assert_eq!(&glb[36..44], &[1, 2, 3, 4, 5, 0, 0, 0]);
        assert_eq!(glb.len(), 44);
    }
}
