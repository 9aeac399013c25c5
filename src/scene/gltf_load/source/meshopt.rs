//! `EXT_meshopt_compression` and `KHR_meshopt_compression`: buffer views decoded into their fallback buffer.
//!
//! A compressed view names a range of its (fallback) buffer and, in the extension, the
//! compressed bytes elsewhere. Each is decoded with meshoptimizer's codecs and filters
//! and written into that range, so every reader afterwards sees plain bytes. A fallback
//! buffer without data (no URI, or no BIN chunk for it) starts as zeros.

use gltf::json::Root;
use serde::Deserialize;
use serde_json::Value;

use crate::scene::SceneError;

/// The extension names, in the order they are looked for on a buffer view.
pub(in crate::scene::gltf_load) const MESHOPT_EXTENSIONS: [&str; 2] =
    ["KHR_meshopt_compression", "EXT_meshopt_compression"];

/// Largest byteStride the codecs accept (meshoptimizer's limit).
const MAX_STRIDE: usize = 256;

/// The extension object of a buffer view.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Compressed {
    /// Buffer holding the compressed bytes.
    buffer: usize,
    /// Their offset in it.
    #[serde(default)]
    byte_offset: usize,
    /// Their length.
    byte_length: usize,
    /// Bytes per element of the decoded data.
    byte_stride: usize,
    /// Elements.
    count: usize,
    /// `ATTRIBUTES`, `TRIANGLES` or `INDICES`.
    mode: String,
    /// `NONE`, `OCTAHEDRAL`, `QUATERNION`, `EXPONENTIAL` or (KHR) `COLOR`.
    #[serde(default)]
    filter: Option<String>,
}

/// The meshopt extension object of buffer view extensions `others`, if any, with its name.
pub(in crate::scene::gltf_load) fn meshopt_extension(
    others: &serde_json::Map<String, Value>,
) -> Option<(&'static str, &Value)> {
    MESHOPT_EXTENSIONS
        .iter()
        .find_map(|&name| others.get(name).map(|v| (name, v)))
}

/// Whether buffer `buffer` is a meshopt fallback buffer (its bytes may be absent).
fn is_fallback(buffer: &gltf::json::Buffer) -> bool {
    let others = buffer.extensions.as_ref().map(|e| &e.others);
    others
        .and_then(meshopt_extension)
        .and_then(|(_, v)| v.get("fallback"))
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

/// Whether buffer `buffer` is a meshopt fallback buffer and every view of it is compressed.
///
/// Such a buffer's bytes need not exist (no URI, or no BIN chunk for it): all of them are decoded.
pub(in crate::scene::gltf_load) fn only_compressed_views(json: &Root, buffer: usize) -> bool {
    json.buffers.get(buffer).is_some_and(is_fallback)
        && json
            .buffer_views
            .iter()
            .filter(|v| v.buffer.value() == buffer)
            .all(|v| {
                let others = v.extensions.as_ref().map(|e| &e.others);
                others.and_then(meshopt_extension).is_some()
            })
}

/// Decodes every compressed buffer view of `json` into its range of `buffers`.
///
/// Fails, naming the view, when the extension object is malformed, a range lies outside
/// its buffer, or the stream does not decode.
pub(in crate::scene::gltf_load) fn decode_views(
    json: &Root,
    buffers: &mut [Vec<u8>],
) -> Result<(), SceneError> {
    for (v, view) in json.buffer_views.iter().enumerate() {
        let others = view.extensions.as_ref().map(|e| &e.others);
        let Some((name, ext)) = others.and_then(meshopt_extension) else {
            continue;
        };
        let fail = |reason: String| {
            SceneError::Invalid(format!(
                "buffer view {v}: {name} cannot be decoded: {reason}"
            ))
        };
        let ext: Compressed = serde_json::from_value(ext.clone())
            .map_err(|e| fail(format!("malformed extension object ({e})")))?;
        let start = view.byte_offset.map_or(0, |o| o.0);
        let target = usize::try_from(start)
            .ok()
            .zip(usize::try_from(view.byte_length.0).ok())
            .and_then(|(s, l)| Some(s..s.checked_add(l)?))
            .ok_or_else(|| fail("its byte range does not fit in memory".to_owned()))?;
        let size = ext
            .count
            .checked_mul(ext.byte_stride)
            .filter(|&n| n <= target.len())
            .ok_or_else(|| {
                fail(format!(
                    "{} elements of {} bytes do not fit in its {} bytes",
                    ext.count,
                    ext.byte_stride,
                    target.len()
                ))
            })?;
        // Checked before decoding: the codecs allocate `count * byteStride` bytes, so a count
        // the destination cannot hold (a view declared past its buffer's end) is refused here,
        // not as an allocation of gigabytes that aborts the process.
        let buffer = view.buffer.value();
        let held = buffers.get(buffer).map_or(0, Vec::len);
        if target.end > held {
            return Err(fail(format!(
                "its range {}..{} is outside buffer {buffer} ({held} bytes)",
                target.start, target.end
            )));
        }
        let source = buffers
            .get(ext.buffer)
            .and_then(|b| b.get(ext.byte_offset..ext.byte_offset.checked_add(ext.byte_length)?))
            .ok_or_else(|| {
                fail(format!(
                    "compressed bytes {}..+{} are not in buffer {}",
                    ext.byte_offset, ext.byte_length, ext.buffer
                ))
            })?;
        if let Some(filter) = ext.filter.as_deref().filter(|f| *f != "NONE") {
            filter_fits_readers(json, v, filter).map_err(fail)?;
        }
        let decoded = decode(&ext, source).map_err(fail)?;
        debug_assert_eq!(decoded.len(), size);
        let out = buffers
            .get_mut(buffer)
            .and_then(|b| b.get_mut(target.start..target.start + size))
            .ok_or_else(|| fail(format!("its range is outside buffer {buffer}")))?;
        out.copy_from_slice(&decoded);
    }
    Ok(())
}

/// Whether every accessor that reads view `view` reads the kind of data decode filter
/// `filter` writes (the extension's table): octahedral normals and tangents as normalised
/// bytes or shorts, quaternions as normalised shorts, exponential as floats, colours as
/// normalised unsigned bytes or shorts. A filter on a stream read as something else (an
/// octahedral filter on key times) would turn its numbers into other numbers silently.
fn filter_fits_readers(json: &Root, view: usize, filter: &str) -> Result<(), String> {
    use gltf::json::accessor::{ComponentType as C, Type as T};
    use gltf::json::validation::Checked::Valid;
    for (a, acc) in json.accessors.iter().enumerate() {
        if acc.buffer_view.map(|b| b.value()) != Some(view) {
            continue;
        }
        let (Valid(component), Valid(kind)) = (&acc.component_type, &acc.type_) else {
            continue; // the loader refuses these on its own
        };
        let component = component.0;
        let normalized = acc.normalized;
        let fits = match filter {
            "OCTAHEDRAL" => {
                matches!(kind, T::Vec3 | T::Vec4)
                    && matches!(component, C::I8 | C::I16)
                    && normalized
            }
            "QUATERNION" => *kind == T::Vec4 && component == C::I16 && normalized,
            "EXPONENTIAL" => component == C::F32,
            "COLOR" => {
                matches!(kind, T::Vec3 | T::Vec4)
                    && matches!(component, C::U8 | C::U16)
                    && normalized
            }
            other => return Err(format!("unknown filter `{other}`")),
        };
        if !fits {
            return Err(format!(
                "filter {filter} does not fit accessor {a}, which reads the view as {kind:?} of {component:?}{}",
                if normalized { " (normalized)" } else { "" }
            ));
        }
    }
    Ok(())
}

/// Decodes one view's stream: `count * byte_stride` bytes.
fn decode(ext: &Compressed, source: &[u8]) -> Result<Vec<u8>, String> {
    let stride = ext.byte_stride;
    let mut bytes = match ext.mode.as_str() {
        "ATTRIBUTES" => {
            if stride == 0 || !stride.is_multiple_of(4) || stride > MAX_STRIDE {
                return Err(format!(
                    "byteStride {stride} is not a multiple of 4 in 4..={MAX_STRIDE}"
                ));
            }
            vertices(source, ext.count, stride)?
        }
        "TRIANGLES" | "INDICES" => indices(ext, source)?,
        other => return Err(format!("unknown mode `{other}`")),
    };
    let filter = ext.filter.as_deref().unwrap_or("NONE");
    if filter != "NONE" && ext.mode != "ATTRIBUTES" {
        return Err(format!("filter {filter} on mode {}", ext.mode));
    }
    apply_filter(filter, stride, &mut bytes)?;
    Ok(bytes)
}

/// Calls `vertices_of::<N>` with the byte stride `$stride` (a multiple of 4 up to 256) as `N`.
macro_rules! by_stride {
    ($stride:expr, $source:expr, $count:expr; $($n:literal)*) => {
        match $stride {
            $($n => vertices_of::<$n>($source, $count),)*
            other => Err(format!("byteStride {other} is not supported")),
        }
    };
}

/// Decodes an attribute stream of `count` elements of `stride` bytes.
fn vertices(source: &[u8], count: usize, stride: usize) -> Result<Vec<u8>, String> {
    by_stride!(stride, source, count;
        4 8 12 16 20 24 28 32 36 40 44 48 52 56 60 64 68 72 76 80 84 88 92 96 100 104 108 112
        116 120 124 128 132 136 140 144 148 152 156 160 164 168 172 176 180 184 188 192 196 200
        204 208 212 216 220 224 228 232 236 240 244 248 252 256)
}

/// One decoded element of `N` bytes (arrays over 32 have no `Default`, which the decoder needs).
#[derive(Clone, Copy)]
#[repr(transparent)]
struct Element<const N: usize>([u8; N]);

impl<const N: usize> Default for Element<N> {
    fn default() -> Self {
        Self([0; N])
    }
}

/// Decodes an attribute stream whose elements are `N` bytes.
fn vertices_of<const N: usize>(source: &[u8], count: usize) -> Result<Vec<u8>, String> {
    let decoded: Vec<Element<N>> =
        meshopt::decode_vertex_buffer(source, count).map_err(|e| e.to_string())?;
    Ok(decoded.iter().flat_map(|e| e.0).collect())
}

/// Decodes a `TRIANGLES` or `INDICES` stream of 2- or 4-byte indices.
fn indices(ext: &Compressed, source: &[u8]) -> Result<Vec<u8>, String> {
    let triangles = ext.mode == "TRIANGLES";
    if triangles && !ext.count.is_multiple_of(3) {
        return Err(format!("TRIANGLES with {} indices", ext.count));
    }
    let err = |e: meshopt::Error| e.to_string();
    match (ext.byte_stride, triangles) {
        (2, true) => meshopt::decode_index_buffer::<u16>(source, ext.count)
            .map(|v| bytemuck::cast_slice(&v).to_vec())
            .map_err(err),
        (4, true) => meshopt::decode_index_buffer::<u32>(source, ext.count)
            .map(|v| bytemuck::cast_slice(&v).to_vec())
            .map_err(err),
        (2, false) => meshopt::decode_index_sequence::<u16>(source, ext.count)
            .map(|v| bytemuck::cast_slice(&v).to_vec())
            .map_err(err),
        (4, false) => meshopt::decode_index_sequence::<u32>(source, ext.count)
            .map(|v| bytemuck::cast_slice(&v).to_vec())
            .map_err(err),
        (other, _) => Err(format!("index byteStride {other} (must be 2 or 4)")),
    }
}

/// Applies a decode filter in place to elements of `stride` bytes.
fn apply_filter(filter: &str, stride: usize, bytes: &mut [u8]) -> Result<(), String> {
    let wrong = || Err(format!("filter {filter} with byteStride {stride}"));
    match (filter, stride) {
        ("NONE", _) => {}
        ("OCTAHEDRAL", 4) => filter_in_place::<[i8; 4]>(bytes, meshopt::decode_filter_oct),
        ("OCTAHEDRAL", 8) => filter_in_place::<[i16; 4]>(bytes, meshopt::decode_filter_oct),
        ("QUATERNION", 8) => filter_in_place::<[i16; 4]>(bytes, meshopt::decode_filter_quat),
        // Each 32-bit value is decoded on its own, whatever the element's size.
        ("EXPONENTIAL", s) if s.is_multiple_of(4) => {
            filter_in_place::<[u32; 1]>(bytes, meshopt::decode_filter_exp::<1>);
        }
        ("COLOR", 4) => filter_in_place::<[u8; 4]>(bytes, meshopt::decode_filter_color),
        ("COLOR", 8) => filter_in_place::<[u16; 4]>(bytes, meshopt::decode_filter_color),
        ("OCTAHEDRAL" | "QUATERNION" | "EXPONENTIAL" | "COLOR", _) => return wrong(),
        (other, _) => return Err(format!("unknown filter `{other}`")),
    }
    Ok(())
}

/// Copies `bytes` into elements of `T`, runs `filter` on them and copies them back.
fn filter_in_place<T: bytemuck::Pod>(bytes: &mut [u8], filter: impl Fn(&mut [T])) {
    let mut elements: Vec<T> = bytes
        .chunks_exact(std::mem::size_of::<T>())
        .map(bytemuck::pod_read_unaligned)
        .collect();
    filter(&mut elements);
    bytes.copy_from_slice(bytemuck::cast_slice(&elements));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ext(mode: &str, stride: usize, count: usize, filter: Option<&str>) -> Compressed {
        Compressed {
            buffer: 0,
            byte_offset: 0,
            byte_length: 0,
            byte_stride: stride,
            count,
            mode: mode.to_owned(),
            filter: filter.map(str::to_owned),
        }
    }

    #[test]
    fn attributes_and_indices_round_trip() {
        let vertices: Vec<[u16; 6]> = (0..100u16).map(|i| [i, i * 2, 7, i, 0, 65535]).collect();
        let encoded = meshopt::encode_vertex_buffer(&vertices).unwrap();
        let decoded = decode(&ext("ATTRIBUTES", 12, 100, None), &encoded).unwrap();
        assert_eq!(decoded, bytemuck::cast_slice::<_, u8>(&vertices));
        let triangles: Vec<u32> = (0..30).map(|i| (i * 7) % 20).collect();
        let encoded = meshopt::encode_index_buffer(&triangles, 20).unwrap();
        let decoded = decode(&ext("TRIANGLES", 2, 30, None), &encoded).unwrap();
        let wide: Vec<u32> = bytemuck::cast_slice::<_, u16>(&decoded)
            .iter()
            .map(|&i| u32::from(i))
            .collect();
        assert_eq!(wide, triangles);
    }

    #[test]
    fn filters_decode_what_meshopt_encodes() {
        let quats = [[0.0f32, 0.0, 0.70710677, 0.70710677], [0.0, 0.0, 0.0, 1.0]];
        let encoded = meshopt::encode_filter_quat(&quats, 12);
        let mut bytes = bytemuck::cast_slice::<_, u8>(&encoded).to_vec();
        apply_filter("QUATERNION", 8, &mut bytes).unwrap();
        let out: &[[i16; 4]] = bytemuck::cast_slice(&bytes);
        assert!((f32::from(out[0][2]) / 32767.0 - 0.70710677).abs() < 1e-3);
        assert!((f32::from(out[1][3]) / 32767.0 - 1.0).abs() < 1e-3);
    }

    #[test]
    fn bad_streams_are_errors() {
        assert!(decode(&ext("ATTRIBUTES", 12, 10, None), &[1, 2, 3]).is_err());
        assert!(decode(&ext("ATTRIBUTES", 6, 10, None), &[]).is_err());
        assert!(decode(&ext("TRIANGLES", 2, 4, None), &[]).is_err());
        assert!(decode(&ext("SOMETHING", 4, 1, None), &[]).is_err());
        assert!(apply_filter("OCTAHEDRAL", 12, &mut [0; 12]).is_err());
    }
}
