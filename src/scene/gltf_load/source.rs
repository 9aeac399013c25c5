//! Raw input: parsing the JSON or GLB container, loading buffers and reading URIs.
//!
//! gltf's own `import_buffers` is not used: it panics (an `unwrap` in gltf
//! 1.4.1) on a relative URI whose percent-escapes do not decode to UTF-8.
//! Relative URIs are resolved here; `data:` and `file:` URIs go through
//! `gltf::buffer::Data`, whose parser has no panicking path for them.
//! Compressed data is decoded right after loading, once: [`meshopt`] views into their
//! fallback buffer, [`draco`] primitives into their accessors' bytes.

mod draco;
mod meshopt;

pub(super) use draco::DRACO_EXTENSION;
pub(super) use meshopt::meshopt_extension;

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};

use gltf::json::Root;

use super::repair;
use crate::scene::{LoadOptions, SceneError};

/// Size of the GLB file header: magic, version, total length.
const GLB_HEADER_BYTES: usize = 12;

/// Every buffer's bytes (meshopt views decoded in place) and the Draco-decoded accessors.
pub(super) struct Buffers {
    /// Bytes of every buffer, in file order.
    pub files: Vec<Vec<u8>>,
    /// Bytes of accessors decoded from Draco streams, packed in each accessor's layout.
    pub draco: draco::Decoded,
}

/// How a primitive's geometry was stored, for `inspect`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Compression {
    /// `KHR_draco_mesh_compression`.
    pub draco: bool,
    /// `EXT_meshopt_compression` or `KHR_meshopt_compression` on a buffer view it reads.
    pub meshopt: bool,
    /// Integer positions, normals, tangents or texture coordinates (`KHR_mesh_quantization`).
    pub quantized: bool,
}

impl Compression {
    /// The kinds used, e.g. `meshopt, quantized`, or `None` for plain data.
    pub fn describe(self) -> Option<String> {
        let kinds: Vec<&str> = [
            (self.draco, "draco"),
            (self.meshopt, "meshopt"),
            (self.quantized, "quantized"),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect();
        (!kinds.is_empty()).then(|| kinds.join(", "))
    }

    /// Both sets of kinds.
    pub fn union(self, other: Self) -> Self {
        Self {
            draco: self.draco || other.draco,
            meshopt: self.meshopt || other.meshopt,
            quantized: self.quantized || other.quantized,
        }
    }
}

/// The parsed document and its loaded buffers, with bounds-checked access.
pub(super) struct Data<'a> {
    /// The document, for gltf's typed readers.
    pub doc: &'a gltf::Document,
    /// The document's JSON, for checking references before gltf resolves them.
    pub json: &'a Root,
    /// Bytes of every buffer, in file order.
    pub buffers: &'a [Vec<u8>],
    /// Accessors decoded from Draco streams (they have no buffer view).
    pub draco: &'a draco::Decoded,
    /// Per mesh with compressed geometry: its index, name and compression (see [`Data::compression_notes`]).
    pub compression: RefCell<Vec<(usize, String, Compression)>>,
    /// Folder that relative URIs are resolved against; `None` refuses them.
    pub base_dir: Option<&'a Path>,
    /// Bytes of vertex, index, skin and key data decoded so far.
    pub decoded: Cell<u64>,
    /// Vertices (POSITION elements) read so far, against [`LoadOptions::max_vertices`].
    pub vertices: Cell<u64>,
    /// Limits and URI policy.
    pub options: &'a LoadOptions,
    /// Values sanitised so far (see [`crate::scene::Scene::sanitized`]).
    pub sanitized: Cell<usize>,
    /// Bad data found so far (see [`crate::scene::Scene::faults`]).
    pub faults: RefCell<Vec<crate::scene::DataFault>>,
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

/// Loads every buffer (the GLB BIN chunk, data URIs and files relative to `base_dir`) and
/// decodes the compressed data in them.
///
/// Declared sizes are summed against [`LoadOptions::max_buffer_bytes`] before
/// any buffer is read, and URIs are checked against the folder policy. A meshopt
/// fallback buffer without data starts as zeros, filled by the views decoded into it.
pub(super) fn load_buffers(
    doc: &gltf::Document,
    blob: Option<Vec<u8>>,
    base_dir: Option<&Path>,
    options: &LoadOptions,
) -> Result<Buffers, SceneError> {
    let mut files = load_files(doc, blob, base_dir, options)?;
    let json = doc.as_json();
    meshopt::decode_views(json, &mut files)?;
    let loaded: u64 = files.iter().map(|b| b.len() as u64).sum();
    let room = options.max_buffer_bytes.saturating_sub(loaded);
    let draco = draco::decode_primitives(json, &files, room)?;
    Ok(Buffers { files, draco })
}

/// Loads every buffer's bytes, as stored (see [`load_buffers`]).
fn load_files(
    doc: &gltf::Document,
    blob: Option<Vec<u8>>,
    base_dir: Option<&Path>,
    options: &LoadOptions,
) -> Result<Vec<Vec<u8>>, SceneError> {
    let buffers = &doc.as_json().buffers;
    let declared_total = buffers
        .iter()
        .fold(0u64, |sum, b| sum.saturating_add(b.byte_length.0));
    if declared_total > options.max_buffer_bytes {
        return Err(buffer_limit(declared_total, options));
    }
    let mut blob = blob;
    let mut out = Vec::with_capacity(buffers.len());
    let mut loaded = 0u64;
    for (index, buffer) in buffers.iter().enumerate() {
        let uri = buffer.uri.as_deref();
        let load_error = |reason: String| SceneError::BufferLoad {
            buffer: index,
            uri: uri.unwrap_or("GLB BIN chunk").to_owned(),
            reason,
        };
        let remaining = options.max_buffer_bytes.saturating_sub(loaded);
        let bytes = match uri {
            // Every byte is decoded from compressed views: nothing to read (a GLB's BIN chunk is another buffer's).
            _ if meshopt::only_compressed_views(doc.as_json(), index) => {
                zeros(buffer.byte_length.0, options)?
            }
            None => blob
                .take()
                .ok_or_else(|| load_error("the file has no (further) BIN chunk".to_owned()))?,
            Some(uri) => read_uri(uri, base_dir, options, remaining).map_err(|e| match e {
                UriError::External(reason) => SceneError::ExternalUri {
                    referrer: format!("buffer {index}"),
                    uri: uri.to_owned(),
                    reason,
                },
                UriError::TooLarge(found) => buffer_limit(loaded.saturating_add(found), options),
                UriError::Other(reason) => load_error(reason),
            })?,
        };
        let declared = buffer.byte_length.0;
        if (bytes.len() as u64) < declared {
            return Err(SceneError::BufferTooShort {
                buffer: index,
                declared,
                actual: bytes.len(),
            });
        }
        loaded = loaded.saturating_add(bytes.len() as u64);
        out.push(bytes);
    }
    Ok(out)
}

/// `length` zero bytes for a meshopt fallback buffer (the sum of declared sizes is already checked).
fn zeros(length: u64, options: &LoadOptions) -> Result<Vec<u8>, SceneError> {
    let length = usize::try_from(length).map_err(|_| buffer_limit(length, options))?;
    Ok(vec![0; length])
}

/// The error for buffers over [`LoadOptions::max_buffer_bytes`].
pub(super) fn buffer_limit(found: u64, options: &LoadOptions) -> SceneError {
    SceneError::LimitExceeded {
        what: "bytes of buffers",
        found,
        limit: options.max_buffer_bytes,
        flag: "--max-buffer-bytes",
        field: "max_buffer_bytes",
    }
}

/// Why a URI could not be read.
#[derive(Debug)]
pub(super) enum UriError {
    /// It names a file outside the model's folder, and that is not allowed; the reason.
    External(&'static str),
    /// The file holds more than the bytes that may still be read; how many it holds (at least).
    TooLarge(u64),
    /// Anything else (missing file, bad data URI, no base folder, ...).
    Other(String),
}

impl std::fmt::Display for UriError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::External(reason) => write!(
                f,
                "URI {reason}; refused (pass --allow-external-uris to allow it)"
            ),
            Self::TooLarge(found) => write!(f, "file has more than {found} bytes"),
            Self::Other(reason) => f.write_str(reason),
        }
    }
}

/// Why `uri` names something outside the model's folder, or `None` when it stays inside.
///
/// `data:` URIs stay inside. Any other scheme (`file:`, `http:`, a Windows drive
/// letter), an absolute path, or a `..` that climbs above the folder is outside.
/// Percent escapes are decoded first, so `%2e%2e` is a `..` too.
pub(in crate::scene) fn external_reason(uri: &str) -> Option<&'static str> {
    if uri.starts_with("data:") {
        return None;
    }
    let path = percent_decode(uri).unwrap_or_else(|_| uri.to_owned());
    if uri.contains(':') || path.contains(':') {
        return Some("has a scheme other than data: (or a drive letter)");
    }
    if path.starts_with(['/', '\\']) {
        return Some("is an absolute path");
    }
    let mut depth = 0i64;
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                depth -= 1;
                if depth < 0 {
                    return Some("climbs out of the model's folder with `..`");
                }
            }
            _ => depth += 1,
        }
    }
    None
}

/// Reads the bytes a URI names: a `data:` URI, a `file:` URI or a path relative to `base_dir`.
///
/// URIs outside the model's folder are refused unless `options` allows them; a
/// file holding more than `max_bytes` is refused without reading past that.
pub(super) fn read_uri(
    uri: &str,
    base_dir: Option<&Path>,
    options: &LoadOptions,
    max_bytes: u64,
) -> Result<Vec<u8>, UriError> {
    if let Some(reason) = external_reason(uri)
        && !options.allow_external_uris
    {
        return Err(UriError::External(reason));
    }
    if uri.starts_with("data:") {
        let source = gltf::buffer::Source::Uri(uri);
        return gltf::buffer::Data::from_source(source, None)
            .map(|data| data.0)
            .map_err(|e| UriError::Other(e.to_string()));
    }
    let relative = match uri.strip_prefix("file:") {
        // file:///abs/path and file:relative/path.
        Some(rest) => rest.strip_prefix("//").unwrap_or(rest),
        None if uri.contains(':') => {
            return Err(UriError::Other(format!(
                "URI scheme of `{uri}` is not supported (only data: and files)"
            )));
        }
        None => uri,
    };
    let decoded = percent_decode(relative).map_err(UriError::Other)?;
    let path: PathBuf = match base_dir {
        Some(base) => base.join(&decoded),
        None if Path::new(&decoded).is_absolute() => PathBuf::from(&decoded),
        None => {
            return Err(UriError::Other(
                "external file, but the data was given without a base folder".to_owned(),
            ));
        }
    };
    read_file_limited(&path, max_bytes)
}

/// Reads a regular file, refusing one that holds more than `max_bytes` (without reading past them).
///
/// A folder, FIFO or device is refused before it is opened ([`crate::scene::read_regular_file`]),
/// so a URI naming `/dev/zero` or a named pipe cannot make the loader read or wait forever.
pub(super) fn read_file_limited(path: &Path, max_bytes: u64) -> Result<Vec<u8>, UriError> {
    use crate::scene::FileReadError;
    crate::scene::read_regular_file(path, max_bytes).map_err(|e| match e {
        FileReadError::TooLarge(found) => UriError::TooLarge(found),
        FileReadError::NotAFile(kind) => UriError::Other(format!("{} {kind}", path.display())),
        FileReadError::Io(e) => UriError::Other(e.to_string()),
    })
}

/// Decodes `%XX` escapes of a relative URI; the result must be UTF-8.
pub(in crate::scene) fn percent_decode(uri: &str) -> Result<String, String> {
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
        buffers: &'a Buffers,
        base_dir: Option<&'a Path>,
        options: &'a LoadOptions,
    ) -> Self {
        Self {
            doc,
            json: doc.as_json(),
            buffers: &buffers.files,
            draco: &buffers.draco,
            compression: RefCell::new(Vec::new()),
            base_dir,
            decoded: Cell::new(0),
            vertices: Cell::new(0),
            options,
            sanitized: Cell::new(0),
            faults: RefCell::new(Vec::new()),
        }
    }

    /// Records `fault`, its values counted as sanitised.
    pub fn fault(&self, fault: crate::scene::DataFault) {
        self.count_sanitized(fault.count);
        self.faults.borrow_mut().push(fault);
    }

    /// One line per mesh with compressed geometry, e.g. `mesh 0 "Body": draco`, for [`crate::scene::Scene::compression`].
    pub fn compression_notes(&self) -> Vec<String> {
        self.compression
            .borrow()
            .iter()
            .filter_map(|(m, name, c)| Some(format!("mesh {m} {name:?}: {}", c.describe()?)))
            .collect()
    }

    /// Counts `count` more sanitised values.
    pub fn count_sanitized(&self, count: usize) {
        self.sanitized
            .set(self.sanitized.get().saturating_add(count));
    }

    /// Counts `count` more vertices against [`LoadOptions::max_vertices`], before they are read.
    pub fn charge_vertices(&self, count: u64) -> Result<(), SceneError> {
        let total = self.vertices.get().saturating_add(count);
        if total > self.options.max_vertices {
            return Err(SceneError::LimitExceeded {
                what: "vertices",
                found: total,
                limit: self.options.max_vertices,
                flag: "--max-vertices",
                field: "max_vertices",
            });
        }
        self.vertices.set(total);
        Ok(())
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
    fn uris_outside_the_folder_are_recognised() {
        for inside in [
            "a.bin",
            "sub/a.bin",
            "sub/../a.bin",
            "./a.bin",
            "a%20b.bin",
            "data:application/octet-stream;base64,AAAA",
        ] {
            assert_eq!(external_reason(inside), None, "{inside}");
        }
        for outside in [
            "/etc/passwd",
            "\\\\server\\share",
            "../a.bin",
            "sub/../../a.bin",
            "%2e%2e/a.bin",
            "file:///etc/passwd",
            "http://example.com/a.bin",
            "C:/a.bin",
        ] {
            assert!(external_reason(outside).is_some(), "{outside}");
        }
    }

    #[test]
    fn devices_are_not_read() {
        let err = read_file_limited(Path::new("/dev/zero"), 1000).unwrap_err();
        assert!(err.to_string().contains("is a device"), "{err}");
    }

    #[test]
    fn decoding_is_budgeted() {
        let gltf =
            gltf::Gltf::from_slice_without_validation(br#"{"asset":{"version":"2.0"}}"#).unwrap();
        let buffers = Buffers {
            files: vec![vec![0u8; 8 << 20]],
            draco: draco::Decoded::new(),
        };
        let data = Data::new(&gltf.document, &buffers, None, &LoadOptions::DEFAULT);
        // 64 times 8 MiB of buffers.
        assert!(data.charge(500 << 20).is_ok());
        assert!(data.charge(12 << 20).is_ok());
        assert!(
            matches!(data.charge(1), Err(SceneError::DecodeBudget { limit }) if limit == 512 << 20)
        );
        let empty = Buffers {
            files: Vec::new(),
            draco: draco::Decoded::new(),
        };
        let no_buffers = Data::new(&gltf.document, &empty, None, &LoadOptions::DEFAULT);
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
