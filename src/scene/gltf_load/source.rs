//! Raw input: parsing the JSON or GLB container, loading buffers and reading URIs.
//!
//! gltf's own `import_buffers` is not used: it panics (an `unwrap` in gltf
//! 1.4.1) on a relative URI whose percent-escapes do not decode to UTF-8.
//! Relative URIs are resolved here; `data:` and `file:` URIs go through
//! `gltf::buffer::Data`, whose parser has no panicking path for them.

use std::cell::Cell;
use std::path::{Path, PathBuf};

use gltf::json::Root;

use super::repair;
use crate::scene::SceneError;

/// Size of the GLB file header: magic, version, total length.
const GLB_HEADER_BYTES: usize = 12;

/// The parsed document and its loaded buffers, with bounds-checked access.
pub(super) struct Data<'a> {
    /// The document, for gltf's typed readers.
    pub doc: &'a gltf::Document,
    /// The document's JSON, for checking references before gltf resolves them.
    pub json: &'a Root,
    /// Bytes of every buffer, in file order.
    pub buffers: &'a [Vec<u8>],
    /// Folder that relative URIs are resolved against; `None` refuses them.
    pub base_dir: Option<&'a Path>,
    /// Bytes of vertex, index, skin and key data decoded so far.
    pub decoded: Cell<u64>,
}

/// Decoded data may reach this many times the buffer bytes (conversions widen, accessors are shared).
const DECODE_FACTOR: u64 = 64;
/// Decoded data may always reach this much, whatever the buffers (zero-filled accessors have none).
const DECODE_FLOOR_BYTES: u64 = 256 << 20;

/// Parses a `.gltf` (JSON) or `.glb` file without gltf's validation; returns warnings about repairs.
pub(super) fn parse(bytes: &[u8]) -> Result<(gltf::Gltf, Vec<String>), SceneError> {
    let bytes = if bytes.starts_with(b"glTF") {
        // Bytes after the declared length are not part of the GLB (the validator only warns).
        bytes.get(..check_glb_header(bytes)?).unwrap_or(bytes)
    } else {
        bytes
    };
    match gltf::Gltf::from_slice_without_validation(bytes) {
        Ok(gltf) => Ok((gltf, Vec::new())),
        Err(gltf::Error::Deserialize(first)) => {
            repair::reparse(bytes).ok_or(SceneError::Gltf(gltf::Error::Deserialize(first)))
        }
        Err(e) => Err(e.into()),
    }
}

/// Checks the GLB total length before gltf subtracts the header size from it; returns that length.
fn check_glb_header(bytes: &[u8]) -> Result<usize, SceneError> {
    let Some(length) = bytes.get(8..GLB_HEADER_BYTES) else {
        return Err(SceneError::GlbLength {
            declared: 0,
            actual: bytes.len(),
        });
    };
    let declared = u32::from_le_bytes([length[0], length[1], length[2], length[3]]);
    // Below the header size gltf's `length - 12` would underflow.
    if (declared as usize) < GLB_HEADER_BYTES || declared as usize > bytes.len() {
        return Err(SceneError::GlbLength {
            declared,
            actual: bytes.len(),
        });
    }
    Ok(declared as usize)
}

/// Loads every buffer: the GLB BIN chunk, data URIs and files relative to `base_dir`.
pub(super) fn load_buffers(
    doc: &gltf::Document,
    blob: Option<Vec<u8>>,
    base_dir: Option<&Path>,
) -> Result<Vec<Vec<u8>>, SceneError> {
    let mut blob = blob;
    let mut out = Vec::with_capacity(doc.as_json().buffers.len());
    for (index, buffer) in doc.as_json().buffers.iter().enumerate() {
        let uri = buffer.uri.as_deref();
        let load_error = |reason: String| SceneError::BufferLoad {
            buffer: index,
            uri: uri.unwrap_or("GLB BIN chunk").to_owned(),
            reason,
        };
        let bytes = match uri {
            None => blob
                .take()
                .ok_or_else(|| load_error("the file has no (further) BIN chunk".to_owned()))?,
            Some(uri) => read_uri(uri, base_dir).map_err(load_error)?,
        };
        let declared = buffer.byte_length.0;
        if (bytes.len() as u64) < declared {
            return Err(SceneError::BufferTooShort {
                buffer: index,
                declared,
                actual: bytes.len(),
            });
        }
        out.push(bytes);
    }
    Ok(out)
}

/// Reads the bytes a URI names: a `data:` URI, a `file:` URI or a path relative to `base_dir`.
pub(super) fn read_uri(uri: &str, base_dir: Option<&Path>) -> Result<Vec<u8>, String> {
    if uri.contains(':') {
        let source = gltf::buffer::Source::Uri(uri);
        return gltf::buffer::Data::from_source(source, base_dir)
            .map(|data| data.0)
            .map_err(|e| e.to_string());
    }
    let Some(base) = base_dir else {
        return Err("external file, but the data was given without a base folder".to_owned());
    };
    let path: PathBuf = base.join(percent_decode(uri)?);
    std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Decodes `%XX` escapes of a relative URI; the result must be UTF-8.
fn percent_decode(uri: &str) -> Result<String, String> {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let escaped = (b == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(decoded) => {
                out.push(decoded);
                i += 3;
            }
            None => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_err(|_| format!("URI `{uri}` does not decode to UTF-8"))
}

impl<'a> Data<'a> {
    /// Wraps a document and its loaded buffers.
    pub fn new(
        doc: &'a gltf::Document,
        buffers: &'a [Vec<u8>],
        base_dir: Option<&'a Path>,
    ) -> Self {
        Self {
            doc,
            json: doc.as_json(),
            buffers,
            base_dir,
            decoded: Cell::new(0),
        }
    }

    /// Counts `bytes` more of decoded data against the file's budget.
    ///
    /// Each accessor is bounded by its bytes, but many primitives or channels may
    /// reuse one accessor; the budget stops a small file decoding to terabytes.
    pub fn charge(&self, bytes: u64) -> Result<(), SceneError> {
        let input: u64 = self.buffers.iter().map(|b| b.len() as u64).sum();
        let limit = input.saturating_mul(DECODE_FACTOR).max(DECODE_FLOOR_BYTES);
        let total = self.decoded.get().saturating_add(bytes);
        if total > limit {
            return Err(SceneError::DecodeBudget { limit });
        }
        self.decoded.set(total);
        Ok(())
    }

    /// The bytes of buffer view `view`, checked against the loaded buffer.
    pub fn view_bytes(
        &self,
        view: usize,
        referrer: &dyn Fn() -> String,
    ) -> Result<&'a [u8], SceneError> {
        let json = self
            .json
            .buffer_views
            .get(view)
            .ok_or_else(|| SceneError::IndexOutOfRange {
                referrer: referrer(),
                kind: "buffer view",
                index: view,
                count: self.json.buffer_views.len(),
            })?;
        let buffer = json.buffer.value();
        let bytes = self
            .buffers
            .get(buffer)
            .ok_or_else(|| SceneError::IndexOutOfRange {
                referrer: format!("buffer view {view}"),
                kind: "buffer",
                index: buffer,
                count: self.buffers.len(),
            })?;
        let start = json.byte_offset.map_or(0, |o| o.0);
        let end = start.saturating_add(json.byte_length.0);
        usize::try_from(start)
            .ok()
            .zip(usize::try_from(end).ok())
            .and_then(|(s, e)| bytes.get(s..e))
            .ok_or(SceneError::BufferViewOutOfBounds {
                view,
                buffer,
                start,
                end,
                available: bytes.len(),
            })
    }

    /// The byte stride of buffer view `view` as gltf's readers use it (0 and absent mean packed).
    pub fn view_stride(&self, view: usize) -> Option<usize> {
        self.json
            .buffer_views
            .get(view)
            .and_then(|v| v.byte_stride)
            .map(|s| s.0)
            .filter(|&s| s != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("a%20b.bin").unwrap(), "a b.bin");
        assert_eq!(percent_decode("100%").unwrap(), "100%");
        assert_eq!(percent_decode("%zz").unwrap(), "%zz");
        assert!(percent_decode("%FF.bin").is_err());
    }

    #[test]
    fn decoding_is_budgeted() {
        let gltf =
            gltf::Gltf::from_slice_without_validation(br#"{"asset":{"version":"2.0"}}"#).unwrap();
        let buffers = vec![vec![0u8; 8 << 20]];
        let data = Data::new(&gltf.document, &buffers, None);
        // 64 times 8 MiB of buffers.
        assert!(data.charge(500 << 20).is_ok());
        assert!(data.charge(12 << 20).is_ok());
        assert!(
            matches!(data.charge(1), Err(SceneError::DecodeBudget { limit }) if limit == 512 << 20)
        );
        let no_buffers = Data::new(&gltf.document, &[], None);
        assert!(no_buffers.charge(DECODE_FLOOR_BYTES).is_ok());
        assert!(no_buffers.charge(1).is_err());
    }

    #[test]
    fn short_glb_headers_are_refused() {
        assert!(matches!(
            check_glb_header(b"glTF\x02\0\0\0"),
            Err(SceneError::GlbLength { .. })
        ));
        let mut tiny = b"glTF\x02\0\0\0".to_vec();
        tiny.extend_from_slice(&4u32.to_le_bytes());
        assert!(matches!(
            check_glb_header(&tiny),
            Err(SceneError::GlbLength { declared: 4, .. })
        ));
    }
}
