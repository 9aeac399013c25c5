//! `KHR_draco_mesh_compression`: each compressed primitive's Draco mesh decoded into its accessors.
//!
//! A Draco primitive's attribute and index accessors have no buffer view; the extension
//! names a view holding the Draco stream and, per attribute, the Draco attribute's unique
//! id. The decoded values are packed in each accessor's own layout (component type and
//! element type), so the ordinary readers convert them; the indices are the Draco mesh's
//! faces (Draco may reorder vertices, and every attribute follows the same order).

use std::collections::HashMap;
use std::ops::Range;

use draco_core::decode_limits::DecodeLimits;
use draco_core::decoder_buffer::DecoderBuffer;
use draco_core::geometry_attribute::GeometryAttributeType;
use draco_core::mesh::Mesh as DracoMesh;
use draco_core::mesh_decoder::MeshDecoder;
use gltf::accessor::DataType;
use gltf::json::validation::Checked;
use gltf::json::{Accessor, Root};
use serde::Deserialize;

use crate::scene::SceneError;
use crate::scene::gltf_load::accessor::MAX_UNBACKED_ELEMENTS;

/// The extension's name.
pub(in crate::scene::gltf_load) const DRACO_EXTENSION: &str = "KHR_draco_mesh_compression";

/// Most faces one Draco stream may decode to.
const MAX_FACES: u64 = 1 << 26;

/// Decoded accessor bytes, by accessor index, each packed in the accessor's layout.
pub(in crate::scene::gltf_load) type Decoded = HashMap<usize, Vec<u8>>;

/// The extension object of a primitive.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DracoPrimitive {
    /// View holding the Draco stream.
    buffer_view: usize,
    /// Draco attribute unique id, by glTF attribute semantic.
    attributes: HashMap<String, u32>,
}

/// Decodes every Draco primitive of `json`; `max_bytes` bounds the decoded bytes in all.
pub(in crate::scene::gltf_load) fn decode_primitives(
    json: &Root,
    buffers: &[Vec<u8>],
    max_bytes: u64,
) -> Result<Decoded, SceneError> {
    let mut out = Decoded::new();
    let mut total = 0u64;
    for (m, mesh) in json.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            let others = prim.extensions.as_ref().map(|e| &e.others);
            let Some(ext) = others.and_then(|o| o.get(DRACO_EXTENSION)) else {
                continue;
            };
            let fail = |reason: String| {
                SceneError::Invalid(format!(
                    "mesh {m} primitive {p}: {DRACO_EXTENSION} cannot be decoded: {reason}"
                ))
            };
            let ext: DracoPrimitive = serde_json::from_value(ext.clone())
                .map_err(|e| fail(format!("malformed extension object ({e})")))?;
            let limit = max_bytes.saturating_sub(total);
            let decoded = decode_primitive(json, buffers, prim, &ext, limit).map_err(fail)?;
            for (accessor, bytes) in decoded {
                total = total.saturating_add(bytes.len() as u64);
                out.entry(accessor).or_insert(bytes);
            }
        }
    }
    Ok(out)
}

/// Decodes one primitive's stream into (accessor, bytes) pairs: its attributes, then its indices.
fn decode_primitive(
    json: &Root,
    buffers: &[Vec<u8>],
    prim: &gltf::json::mesh::Primitive,
    ext: &DracoPrimitive,
    max_bytes: u64,
) -> Result<Vec<(usize, Vec<u8>)>, String> {
    let stream = view_bytes(json, buffers, ext.buffer_view)?;
    let limits = DecodeLimits::default()
        .with_max_points(MAX_UNBACKED_ELEMENTS)
        .with_max_faces(MAX_FACES)
        .with_max_decoded_bytes(max_bytes);
    let mut input = DecoderBuffer::new(stream).with_limits(limits);
    let mut mesh = DracoMesh::new();
    MeshDecoder::new()
        .decode(&mut input, &mut mesh)
        .map_err(|e| format!("buffer view {}: {e}", ext.buffer_view))?;
    let points = mesh.num_points();
    let mut out = Vec::with_capacity(ext.attributes.len() + 1);
    let mut names: Vec<_> = ext.attributes.iter().collect();
    names.sort();
    for (name, &id) in names {
        let Some(index) = attribute_accessor(prim, name) else {
            return Err(format!("attribute {name} is not among the primitive's"));
        };
        let acc = accessor_of(json, index)?;
        check_count(index, acc, points)?;
        let attribute = mesh
            .attribute_by_unique_id(id)
            .ok_or_else(|| format!("the stream has no attribute {id} (for {name})"))?;
        let (component, components) = layout(index, acc)?;
        check_semantics(
            name,
            id,
            attribute.attribute_type(),
            attribute.num_components(),
            components,
        )?;
        let values = attribute.read_f32s(points, components);
        // Dequantised floats written to a normalised integer accessor are scaled back up.
        let scale = if acc.normalized && !attribute.data_type().is_integral() {
            normalized_max(component)
        } else {
            1.0
        };
        out.push((index, pack(&values, component, scale)));
    }
    if let Some(index) = prim.indices.map(|i| i.value()) {
        let acc = accessor_of(json, index)?;
        let (component, _) = layout(index, acc)?;
        let faces = mesh.faces();
        if acc.count.0 != faces.len() as u64 * 3 {
            return Err(format!(
                "indices accessor {index} has count {} but the stream has {} faces",
                acc.count.0,
                faces.len()
            ));
        }
        if let Some(max) = faces.iter().flatten().map(|i| i.0).max()
            && f64::from(max) > f64::from(normalized_max(component))
        {
            return Err(format!("vertex index {max} does not fit accessor {index}"));
        }
        out.push((
            index,
            pack_indices(faces.iter().flatten().map(|i| i.0), component),
        ));
    } else if mesh.num_faces() > 0 {
        return Err("the primitive has faces but no indices accessor".to_owned());
    }
    Ok(out)
}

/// Whether stream attribute `id`, of Draco kind `kind` with `stream_components` components,
/// can be glTF attribute `name` whose accessor has `components`: a POSITION read from a
/// texture coordinate stream (2 components) would load as a flat sheet and pass every check.
fn check_semantics(
    name: &str,
    id: u32,
    kind: GeometryAttributeType,
    stream_components: u8,
    components: usize,
) -> Result<(), String> {
    use GeometryAttributeType as T;
    let expected: &[T] = match name.split('_').next().unwrap_or(name) {
        "POSITION" => &[T::Position],
        "NORMAL" => &[T::Normal],
        "TEXCOORD" => &[T::TexCoord],
        "COLOR" => &[T::Color],
        // glTF Transform and Blender write JOINTS, WEIGHTS and tangents as generic attributes.
        _ => &[T::Generic, T::TexCoord, T::Color, T::Normal],
    };
    if !expected.contains(&kind) {
        return Err(format!(
            "attribute {name} points at stream attribute {id}, which holds {kind:?} data"
        ));
    }
    if usize::from(stream_components) != components {
        return Err(format!(
            "attribute {name}: stream attribute {id} has {stream_components} components, its accessor {components}"
        ));
    }
    Ok(())
}

/// The accessor of attribute `name` of `prim`, if it has one.
fn attribute_accessor(prim: &gltf::json::mesh::Primitive, name: &str) -> Option<usize> {
    prim.attributes
        .iter()
        .find_map(|(semantic, index)| match semantic {
            Checked::Valid(s) if s.to_string() == name => Some(index.value()),
            _ => None,
        })
}

/// Accessor `index`'s JSON.
fn accessor_of(json: &Root, index: usize) -> Result<&Accessor, String> {
    json.accessors.get(index).ok_or_else(|| {
        format!(
            "accessor {index} does not exist (the file has {})",
            json.accessors.len()
        )
    })
}

/// Checks that accessor `index` has one element per decoded point.
fn check_count(index: usize, acc: &Accessor, points: usize) -> Result<(), String> {
    if acc.count.0 != points as u64 {
        return Err(format!(
            "accessor {index} has count {} but the stream decodes {points} points",
            acc.count.0
        ));
    }
    Ok(())
}

/// Accessor `index`'s component type and components per element.
fn layout(index: usize, acc: &Accessor) -> Result<(DataType, usize), String> {
    match (&acc.component_type, &acc.type_) {
        (Checked::Valid(c), Checked::Valid(t)) => Ok((c.0, t.multiplicity())),
        _ => Err(format!(
            "accessor {index} has an unknown componentType or type"
        )),
    }
}

/// The largest value of an integer component type (what 1.0 maps to when normalised).
fn normalized_max(component: DataType) -> f32 {
    match component {
        DataType::I8 => 127.0,
        DataType::U8 => 255.0,
        DataType::I16 => 32767.0,
        DataType::U16 => 65535.0,
        DataType::U32 => u32::MAX as f32,
        DataType::F32 => f32::MAX,
    }
}

/// Packs float values (times `scale`, rounded for integers) as little-endian `component`s.
fn pack(values: &[f32], component: DataType, scale: f32) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * component.size());
    for &v in values {
        let x = v * scale;
        // `as` saturates, so an out-of-range value clamps rather than wraps.
        match component {
            DataType::F32 => out.extend_from_slice(&v.to_le_bytes()),
            DataType::I8 => out.extend_from_slice(&(x.round() as i8).to_le_bytes()),
            DataType::U8 => out.extend_from_slice(&(x.round() as u8).to_le_bytes()),
            DataType::I16 => out.extend_from_slice(&(x.round() as i16).to_le_bytes()),
            DataType::U16 => out.extend_from_slice(&(x.round() as u16).to_le_bytes()),
            DataType::U32 => out.extend_from_slice(&(x.round() as u32).to_le_bytes()),
        }
    }
    out
}

/// Packs vertex indices as little-endian `component`s (checked to fit by the caller).
fn pack_indices(indices: impl Iterator<Item = u32>, component: DataType) -> Vec<u8> {
    let mut out = Vec::new();
    for i in indices {
        match component {
            DataType::U8 | DataType::I8 => out.push(i as u8),
            DataType::U16 | DataType::I16 => out.extend_from_slice(&(i as u16).to_le_bytes()),
            DataType::U32 | DataType::F32 => out.extend_from_slice(&i.to_le_bytes()),
        }
    }
    out
}

/// The bytes of buffer view `view`, checked against its loaded buffer.
fn view_bytes<'b>(json: &Root, buffers: &'b [Vec<u8>], view: usize) -> Result<&'b [u8], String> {
    let v = json
        .buffer_views
        .get(view)
        .ok_or_else(|| format!("buffer view {view} does not exist"))?;
    let range: Option<Range<usize>> = usize::try_from(v.byte_offset.map_or(0, |o| o.0))
        .ok()
        .zip(usize::try_from(v.byte_length.0).ok())
        .and_then(|(s, l)| Some(s..s.checked_add(l)?));
    buffers
        .get(v.buffer.value())
        .zip(range)
        .and_then(|(b, r)| b.get(r))
        .ok_or_else(|| {
            format!(
                "buffer view {view} lies outside buffer {}",
                v.buffer.value()
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_pack_in_the_accessor_layout() {
        assert_eq!(pack(&[1.5], DataType::F32, 1.0), 1.5f32.to_le_bytes());
        assert_eq!(pack(&[1.0, -1.0], DataType::I8, 127.0), [127, 0x81]);
        assert_eq!(pack(&[300.0], DataType::U8, 1.0), [255]);
        assert_eq!(
            pack_indices([1, 258].into_iter(), DataType::U16),
            [1, 0, 2, 1]
        );
    }

    #[test]
    fn a_corrupt_stream_is_an_error() {
        let root: Root = serde_json::from_str(
            r#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":8}],
                "bufferViews":[{"buffer":0,"byteLength":8}],
                "accessors":[{"componentType":5126,"count":3,"type":"VEC3"}],
                "meshes":[{"primitives":[{"attributes":{"POSITION":0},
                  "extensions":{"KHR_draco_mesh_compression":{"bufferView":0,"attributes":{"POSITION":0}}}}]}]}"#,
        )
        .unwrap();
        let err = decode_primitives(&root, &[b"DRACOxyz".to_vec()], 1 << 20).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("mesh 0 primitive 0"), "{text}");
        assert!(text.contains("buffer view 0"), "{text}");
    }
}
