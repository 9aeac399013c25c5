//! The GLB container split into its chunks and put back together, unknown chunks kept.

use crate::scene::SceneError;

/// The GLB header magic, `glTF` read as a little-endian u32.
const GLB_MAGIC: u32 = 0x4654_6C67;
/// The only GLB container version glTF 2.0 defines.
const GLB_VERSION: u32 = 2;
/// Chunk type of the JSON chunk (`JSON`).
const CHUNK_JSON: u32 = 0x4E4F_534A;
/// Chunk type of the binary chunk (`BIN\0`).
const CHUNK_BIN: u32 = 0x004E_4942;

/// A GLB file's chunks.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Glb {
    /// The JSON chunk's bytes (padding spaces included).
    pub json: Vec<u8>,
    /// The BIN chunk's bytes, when the file has one (buffer 0).
    pub bin: Option<Vec<u8>>,
    /// Chunks of other types after those, kept as (type, bytes).
    pub other: Vec<(u32, Vec<u8>)>,
}

/// Shorthand for a [`SceneError::Amend`].
pub(super) fn amend_err(msg: impl Into<String>) -> SceneError {
    SceneError::Amend(msg.into())
}

/// Little-endian u32 at `at`, if the bytes reach that far.
fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

impl Glb {
    /// Splits a GLB file into its chunks; the first must be JSON, a BIN chunk may follow.
    pub(super) fn parse(bytes: &[u8]) -> Result<Self, SceneError> {
        let (Some(GLB_MAGIC), Some(version), Some(length)) =
            (u32_at(bytes, 0), u32_at(bytes, 4), u32_at(bytes, 8))
        else {
            return Err(amend_err("not a GLB file (no glTF header)"));
        };
        if version != GLB_VERSION {
            return Err(amend_err(format!("GLB version {version}, expected 2")));
        }
        let length = length as usize;
        let bytes = bytes.get(..length).ok_or_else(|| {
            amend_err(format!(
                "GLB header declares {length} bytes, the file has {}",
                bytes.len()
            ))
        })?;
        let mut glb = Self::default();
        let mut at = 12usize;
        let mut index = 0usize;
        while at < bytes.len() {
            let (Some(len), Some(kind)) = (u32_at(bytes, at), u32_at(bytes, at + 4)) else {
                return Err(amend_err(format!("GLB chunk {index} header is cut short")));
            };
            let start = at + 8;
            let data = start
                .checked_add(len as usize)
                .and_then(|end| bytes.get(start..end))
                .ok_or_else(|| amend_err(format!("GLB chunk {index} runs past the file")))?;
            match (index, kind) {
                (0, CHUNK_JSON) => glb.json = data.to_vec(),
                (0, _) => return Err(amend_err("the first GLB chunk is not JSON")),
                (1, CHUNK_BIN) => glb.bin = Some(data.to_vec()),
                _ => glb.other.push((kind, data.to_vec())),
            }
            // Chunks are 4-byte aligned; a well-formed file needs no skipping.
            at = start + (len as usize).next_multiple_of(4);
            index += 1;
        }
        if index == 0 {
            return Err(amend_err("the GLB file has no JSON chunk"));
        }
        Ok(glb)
    }

    /// The file: header, JSON chunk (padded with spaces), BIN chunk (padded with zeros), other chunks.
    pub(super) fn to_bytes(&self) -> Result<Vec<u8>, SceneError> {
        let mut chunks: Vec<(u32, Vec<u8>, u8)> = vec![(CHUNK_JSON, self.json.clone(), b' ')];
        if let Some(bin) = &self.bin {
            chunks.push((CHUNK_BIN, bin.clone(), 0));
        }
        for (kind, data) in &self.other {
            chunks.push((*kind, data.clone(), 0));
        }
        let mut body = Vec::new();
        for (kind, mut data, pad) in chunks {
            while !data.len().is_multiple_of(4) {
                data.push(pad);
            }
            let len = u32::try_from(data.len())
                .map_err(|_| amend_err("a GLB chunk would exceed 4 GiB"))?;
            body.extend_from_slice(&len.to_le_bytes());
            body.extend_from_slice(&kind.to_le_bytes());
            body.extend_from_slice(&data);
        }
        let total = u32::try_from(12 + body.len())
            .map_err(|_| amend_err("the GLB file would exceed 4 GiB"))?;
        let mut out = Vec::with_capacity(12 + body.len());
        out.extend_from_slice(&GLB_MAGIC.to_le_bytes());
        out.extend_from_slice(&GLB_VERSION.to_le_bytes());
        out.extend_from_slice(&total.to_le_bytes());
        out.extend_from_slice(&body);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_round_trip_with_padding_and_unknown_chunks() {
        let glb = Glb {
            json: b"{\"a\":1}".to_vec(),
            bin: Some(vec![1, 2, 3, 4, 5]),
            other: vec![(0x1234_5678, vec![9; 4])],
        };
        let bytes = glb.to_bytes().unwrap();
        assert_eq!(u32_at(&bytes, 8), Some(bytes.len() as u32));
        let back = Glb::parse(&bytes).unwrap();
        assert_eq!(back.json, b"{\"a\":1} ".to_vec());
        assert_eq!(back.bin, Some(vec![1, 2, 3, 4, 5, 0, 0, 0]));
        assert_eq!(back.other, glb.other);
    }

    #[test]
    fn broken_containers_are_refused() {
        let bytes = Glb {
            json: b"{}  ".to_vec(),
            bin: Some(vec![0; 8]),
            other: Vec::new(),
        }
        .to_bytes()
        .unwrap();
        for cut in [4, 11, 20, bytes.len() - 1] {
            assert!(Glb::parse(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut v1 = bytes.clone();
        v1[4] = 1;
        assert!(Glb::parse(&v1).is_err());
        let mut bin_first = bytes;
        bin_first[16..20].copy_from_slice(&CHUNK_BIN.to_le_bytes());
        assert!(Glb::parse(&bin_first).is_err());
    }
}
