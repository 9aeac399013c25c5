//! Amending a glTF file in place: one float attribute per primitive (`_DQS_BLEND`,
//! `_COR_CENTER`), nothing else rewritten.
//!
//! The JSON is read as raw text per member (`raw::RawObject`), so every value
//! that is not changed is written back byte for byte, and written back with only
//! these additions: per primitive one float SCALAR (or VEC3)
//! accessor (with `min`/`max`) and one buffer view, the primitive's attribute
//! pointing at it (an existing one of that name that only that primitive uses is
//! overwritten in place instead, in a `.glb`'s BIN chunk or in a `.gltf`'s `.bin` that holds
//! only such maps, see `reuse`; elsewhere it is repointed and its old accessor stays, unused),
//! and the bytes in one place: for a `.glb`, appended to the BIN chunk
//! (buffer 0 grows); for a `.gltf`, a new buffer whose URI names a new `.bin`
//! file beside the output. Everything else, unknown fields, extensions and
//! extras included, keeps its exact text; only the whitespace between the
//! members of the objects and arrays on the path to a change is not kept.
//! - `container`: the GLB chunks.
//! - `raw`: objects and arrays of raw members.

mod container;
mod raw;
mod reuse;
mod rig;
mod rig_data;
mod spec;

use base64::prelude::{BASE64_STANDARD, Engine as _};
use serde_json::{Value, json};

pub use rig::{RigChannel, RigEdit, RigInfluences, RigNode, RigSkin, amend_rig};
pub use spec::{AttributeSpec, COR_CENTER_ATTRIBUTE, COR_CENTER_SPEC, DQS_BLEND_SPEC};

use super::SceneError;
use super::gltf_load::external_reason;
use container::{Glb, amend_err};
use raw::{Raw, RawObject, parse_array, to_raw};
use spec::{check_values, component_bounds};

/// The attribute dqview reads hybrid betas from.
pub const DQS_BLEND_ATTRIBUTE: &str = "_DQS_BLEND";

/// Accessor component type `FLOAT`.
const FLOAT: u32 = 5126;
/// Buffer view target for vertex attributes.
const ARRAY_BUFFER: u32 = 34962;

/// New values of one primitive's attribute, by dqview's mesh and primitive index.
#[derive(Clone, Copy, Debug)]
pub struct PrimitiveValues<'a> {
    /// Mesh index (the file's).
    pub mesh: usize,
    /// Primitive index in [`crate::scene::Mesh::primitives`] (the loader drops points, lines and primitives without POSITION).
    pub primitive: usize,
    /// The attribute's components per vertex (one blend in [0, 1], or a centre's x, y, z), in
    /// the file's vertex order.
    pub values: &'a [f32],
}

/// What the amended file is written as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AmendTarget<'a> {
    /// A `.glb`: the data goes into the BIN chunk (the input must be a `.glb`).
    Glb,
    /// A `.gltf`: the data goes into a new file `bin_name` beside the output (the input must be a `.gltf`).
    Gltf {
        /// File name of the new `.bin` (no folders); written percent-encoded as the buffer URI.
        bin_name: &'a str,
    },
}

/// A file a buffer or image URI names, relative to the glTF file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalFile {
    /// Who names it, e.g. `buffer 1` or `image 0`.
    pub owner: String,
    /// The URI as written.
    pub uri: String,
    /// The decoded relative path, or `None` when the URI is absolute, has a scheme or climbs out of the folder.
    pub relative_path: Option<String>,
}

/// The amended file and what goes beside it.
#[derive(Clone, Debug, PartialEq)]
pub struct Amended {
    /// The glTF or GLB file.
    pub file: Vec<u8>,
    /// For a `.gltf`: the `.bin` to write beside it (file name, bytes): a new one, or the old
    /// maps' own `.bin` rewritten.
    pub bin: Option<(String, Vec<u8>)>,
    /// Files the input's buffer and image URIs name (not data URIs), which must sit beside the output too.
    pub external_files: Vec<ExternalFile>,
    /// Primitives whose existing attribute was repointed, as (mesh, file primitive).
    pub replaced: Vec<(usize, usize)>,
    /// Primitives whose existing attribute's values were overwritten in place (same accessor,
    /// no copy added), as (mesh, file primitive).
    pub overwritten: Vec<(usize, usize)>,
}

impl Amended {
    /// Nothing written yet for the file whose JSON is `view` (its external files listed).
    fn of(view: &Value) -> Self {
        Self {
            file: Vec::new(),
            bin: None,
            external_files: external_files(view),
            replaced: Vec::new(),
            overwritten: Vec::new(),
        }
    }
}

/// Adds a `_DQS_BLEND` attribute to each primitive of `values` in the glTF or GLB file `input`.
///
/// Fails with [`SceneError::Amend`] when the container and `target` differ, the
/// JSON does not parse, a primitive does not exist or has another vertex count
/// than its values, or a value is outside [0, 1].
pub fn amend_dqs_blend(
    input: &[u8],
    target: AmendTarget<'_>,
    values: &[PrimitiveValues<'_>],
) -> Result<Amended, SceneError> {
    amend_attribute(input, target, DQS_BLEND_SPEC, values)
}

/// Adds the attribute `spec` to each primitive of `values` in the glTF or GLB file `input`.
///
/// Fails with [`SceneError::Amend`] when the container and `target` differ, the
/// JSON does not parse, a primitive does not exist or has another vertex count
/// than its values, or a value is outside `spec`'s range (or not finite).
pub fn amend_attribute(
    input: &[u8],
    target: AmendTarget<'_>,
    spec: AttributeSpec,
    values: &[PrimitiveValues<'_>],
) -> Result<Amended, SceneError> {
    let (mut glb_parts, view, mut root) = open(input, target)?;
    let file_primitives = file_primitive_indices_of(&view)?;
    let blob = build_blob(&view, &file_primitives, spec, values)?;
    let mut out = Amended::of(&view);
    let blob = match glb_parts.as_mut() {
        Some(glb) => reuse::overwrite_in_glb(&view, &mut root, glb, blob, &mut out)?,
        None => reuse::rewrite_own_bin(&view, &mut root, blob, &mut out)?,
    };
    if !blob.entries.is_empty() {
        add_blob(&view, &mut root, &mut glb_parts, target, &blob, &mut out)?;
    }
    out.file = file_bytes(glb_parts, &root)?;
    Ok(out)
}

/// The container (for a `.glb`), the JSON as a value to read and as raw members to write
/// back, after checking the container against `target`.
fn open(
    input: &[u8],
    target: AmendTarget<'_>,
) -> Result<(Option<Glb>, Value, RawObject), SceneError> {
    let (glb_parts, json_bytes) = split_container(input, target)?;
    let json_bytes = json_bytes
        .strip_prefix(b"\xEF\xBB\xBF")
        .unwrap_or(&json_bytes);
    let text = std::str::from_utf8(json_bytes)
        .map_err(|_| amend_err("the file's JSON is not UTF-8"))?
        // GLB JSON chunks are padded with spaces (some writers use NULs).
        .trim_end_matches([' ', '\0']);
    // `view` is only read; `root` keeps every member's text for writing.
    let view = parse_json(text.as_bytes())?;
    let root = RawObject::parse(text, "the file's JSON")?;
    Ok((glb_parts, view, root))
}

/// The amended file: the GLB with its new JSON chunk, or the JSON text.
fn file_bytes(glb_parts: Option<Glb>, root: &RawObject) -> Result<Vec<u8>, SceneError> {
    match glb_parts {
        Some(mut parts) => {
            parts.json = serde_json::to_vec(root).map_err(|e| amend_err(format!("JSON: {e}")))?;
            parts.to_bytes()
        }
        None => {
            let mut text =
                serde_json::to_vec_pretty(root).map_err(|e| amend_err(format!("JSON: {e}")))?;
            text.push(b'\n');
            Ok(text)
        }
    }
}

/// Appends the bytes of `blob` (to the BIN chunk, a data URI or a new `.bin`) and a view,
/// an accessor and the attribute per entry.
fn add_blob(
    view: &Value,
    root: &mut RawObject,
    glb_parts: &mut Option<Glb>,
    target: AmendTarget<'_>,
    blob: &Blob,
    out: &mut Amended,
) -> Result<(), SceneError> {
    let (buffer, base) = match (glb_parts, target) {
        (Some(parts), _) => glb_buffer(view, root, parts, &blob.bytes)?,
        (None, AmendTarget::Gltf { bin_name }) => {
            let index = push(
                root,
                "buffers",
                vec![json!({ "byteLength": blob.bytes.len(), "uri": uri_encode(bin_name) })],
            )?;
            out.bin = Some((bin_name.to_owned(), blob.bytes.clone()));
            (index, 0)
        }
        (None, AmendTarget::Glb) => return Err(amend_err("internal: GLB target without a GLB")),
    };
    out.replaced = add_entries(root, blob, buffer, base)?;
    Ok(())
}

/// The GLB chunks (for a `.glb`) and the JSON bytes, after checking the container against `target`.
fn split_container(
    input: &[u8],
    target: AmendTarget<'_>,
) -> Result<(Option<Glb>, Vec<u8>), SceneError> {
    let glb = input.starts_with(b"glTF");
    let (glb_parts, json_bytes) = if glb {
        let parts = Glb::parse(input)?;
        let json = parts.json.clone();
        (Some(parts), json)
    } else {
        (None, input.to_vec())
    };
    match (glb, target) {
        (true, AmendTarget::Glb) | (false, AmendTarget::Gltf { .. }) => {}
        (true, AmendTarget::Gltf { .. }) => {
            return Err(amend_err(
                "the input is a .glb, so the output must be a .glb too (amending keeps the container)",
            ));
        }
        (false, AmendTarget::Glb) => {
            return Err(amend_err(
                "the input is a .gltf, so the output must be a .gltf too (amending keeps the container)",
            ));
        }
    }
    Ok((glb_parts, json_bytes))
}

/// Adds a view, an accessor and the attribute per entry (bytes at `base` in buffer `buffer`); returns the repointed primitives.
fn add_entries(
    root: &mut RawObject,
    blob: &Blob,
    buffer: usize,
    base: usize,
) -> Result<Vec<(usize, usize)>, SceneError> {
    let (entries, spec) = (&blob.entries, blob.spec);
    let views: Vec<Value> = entries
        .iter()
        .map(|entry| {
            json!({
                "buffer": buffer,
                "byteOffset": base + entry.offset,
                "byteLength": entry.count * spec.vertex_bytes(),
                "target": ARRAY_BUFFER,
            })
        })
        .collect();
    let first_view = push(root, "bufferViews", views)?;
    let accessors: Vec<Value> = entries
        .iter()
        .enumerate()
        .map(|(k, entry)| {
            json!({
                "bufferView": first_view + k,
                "componentType": FLOAT,
                "count": entry.count,
                "type": spec.accessor_type(),
                "min": entry.min,
                "max": entry.max,
            })
        })
        .collect();
    let first_accessor = push(root, "accessors", accessors)?;
    let mut replaced = Vec::new();
    for (k, entry) in entries.iter().enumerate() {
        let index = to_raw(&json!(first_accessor + k))?;
        if set_attribute(root, spec.name, (entry.mesh, entry.file_primitive), index)? {
            replaced.push((entry.mesh, entry.file_primitive));
        }
    }
    Ok(replaced)
}

/// Per mesh of a glTF or GLB file, the file primitive index of each primitive dqview loads.
///
/// dqview's loader keeps triangle primitives (lists, strips, fans) that have a
/// POSITION attribute, in file order, so scene primitive `p` of mesh `m` is
/// file primitive `result[m][p]`.
pub fn file_primitive_indices(input: &[u8]) -> Result<Vec<Vec<usize>>, SceneError> {
    let json = if input.starts_with(b"glTF") {
        Glb::parse(input)?.json
    } else {
        input.to_vec()
    };
    file_primitive_indices_of(&parse_json(&json)?)
}

/// Parses the JSON text (a UTF-8 byte order mark is skipped) into an object.
fn parse_json(bytes: &[u8]) -> Result<Value, SceneError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    // GLB JSON chunks are padded with spaces (some writers use NULs).
    let end = bytes
        .iter()
        .rposition(|&b| b != b' ' && b != 0)
        .map_or(0, |i| i + 1);
    let bytes = bytes.get(..end).unwrap_or(bytes);
    let root: Value = serde_json::from_slice(bytes)
        .map_err(|e| amend_err(format!("the file's JSON does not parse: {e}")))?;
    if !root.is_object() {
        return Err(amend_err("the file's JSON is not an object"));
    }
    Ok(root)
}

/// See [`file_primitive_indices`].
fn file_primitive_indices_of(root: &Value) -> Result<Vec<Vec<usize>>, SceneError> {
    let meshes = root.get("meshes").and_then(Value::as_array);
    let mut out = Vec::new();
    for mesh in meshes.into_iter().flatten() {
        let prims = mesh.get("primitives").and_then(Value::as_array);
        let loaded = prims
            .into_iter()
            .flatten()
            .enumerate()
            .filter(|(_, p)| {
                // Mode 4 (triangles, the default), 5 (strip) or 6 (fan), as the loader keeps.
                let mode = p.get("mode").map_or(Some(4), Value::as_u64);
                let position = p.get("attributes").and_then(|a| a.get("POSITION"));
                matches!(mode, Some(4..=6)) && position.is_some()
            })
            .map(|(i, _)| i)
            .collect();
        out.push(loaded);
    }
    Ok(out)
}

/// One primitive's values inside the new bytes.
#[derive(Clone)]
struct BlobEntry {
    mesh: usize,
    file_primitive: usize,
    offset: usize,
    /// Vertices.
    count: usize,
    /// Per component.
    min: Vec<f32>,
    /// Per component.
    max: Vec<f32>,
}

/// The new bytes (every primitive's values as little-endian f32, each 4-byte aligned) and where each starts.
struct Blob {
    spec: AttributeSpec,
    bytes: Vec<u8>,
    entries: Vec<BlobEntry>,
}

impl Blob {
    /// No bytes, no entries: nothing left to append.
    fn empty(spec: AttributeSpec) -> Self {
        Self {
            spec,
            bytes: Vec::new(),
            entries: Vec::new(),
        }
    }

    /// The little-endian bytes of `entry`'s values.
    fn values_of(&self, entry: &BlobEntry) -> Result<&[u8], SceneError> {
        self.bytes
            .get(entry.offset..entry.offset + entry.count * self.spec.vertex_bytes())
            .ok_or_else(|| amend_err("internal: blob entry outside its bytes"))
    }
}

/// Checks each primitive's values against the file and lays them out.
fn build_blob(
    root: &Value,
    file_primitives: &[Vec<usize>],
    spec: AttributeSpec,
    values: &[PrimitiveValues<'_>],
) -> Result<Blob, SceneError> {
    let mut blob = Blob::empty(spec);
    for v in values {
        let here = format!("mesh {} primitive {}", v.mesh, v.primitive);
        let file_primitive = file_primitives
            .get(v.mesh)
            .and_then(|m| m.get(v.primitive))
            .copied()
            .ok_or_else(|| amend_err(format!("{here}: the file has no such primitive")))?;
        let vertices = position_count(root, v.mesh, file_primitive)
            .ok_or_else(|| amend_err(format!("{here}: no POSITION accessor with a count")))?;
        if vertices * spec.components != v.values.len() {
            return Err(amend_err(format!(
                "{here}: {} values for {vertices} vertices of {} each",
                v.values.len(),
                spec.components
            )));
        }
        check_values(&here, spec, v.values)?;
        let (min, max) = component_bounds(spec.components, v.values);
        blob.entries.push(BlobEntry {
            mesh: v.mesh,
            file_primitive,
            offset: blob.bytes.len(),
            count: vertices,
            min,
            max,
        });
        blob.bytes
            .extend(v.values.iter().flat_map(|x| x.to_le_bytes()));
    }
    Ok(blob)
}

/// The `count` of the POSITION accessor of a file primitive.
fn position_count(root: &Value, mesh: usize, primitive: usize) -> Option<usize> {
    let accessor = root
        .get("meshes")?
        .get(mesh)?
        .get("primitives")?
        .get(primitive)?
        .get("attributes")?
        .get("POSITION")?
        .as_u64()?;
    let count = root
        .get("accessors")?
        .get(usize::try_from(accessor).ok()?)?
        .get("count")?
        .as_u64()?;
    usize::try_from(count).ok()
}

/// Puts `bytes` into a GLB: appended to the BIN chunk (buffer 0), else as a new data-URI buffer.
///
/// Returns the buffer index and the byte offset the bytes start at.
fn glb_buffer(
    view: &Value,
    root: &mut RawObject,
    glb: &mut Glb,
    bytes: &[u8],
) -> Result<(usize, usize), SceneError> {
    let buffer0 = view.get("buffers").and_then(|b| b.get(0));
    match (&mut glb.bin, buffer0) {
        // The BIN chunk is buffer 0 when buffer 0 has no URI.
        (Some(bin), Some(buffer)) if buffer.get("uri").is_none() => {
            let base = bin.len().next_multiple_of(4);
            bin.resize(base, 0);
            bin.extend_from_slice(bytes);
            let mut buffers = root.array("buffers")?;
            let first = buffers
                .first_mut()
                .ok_or_else(|| amend_err("the file has no buffer 0"))?;
            let mut obj = RawObject::parse(first.get(), "buffer 0")?;
            obj.set("byteLength", to_raw(&json!(bin.len()))?);
            *first = obj.to_raw()?;
            root.set("buffers", to_raw(&buffers)?);
            Ok((0, base))
        }
        // No BIN chunk to grow (every buffer is a URI): the bytes travel in the JSON.
        _ => {
            let uri = format!(
                "data:application/octet-stream;base64,{}",
                BASE64_STANDARD.encode(bytes)
            );
            let index = push(
                root,
                "buffers",
                vec![json!({ "byteLength": bytes.len(), "uri": uri })],
            )?;
            Ok((index, 0))
        }
    }
}

/// Appends `items` to the top-level array `key` (made when absent); returns the index of the first.
fn push(root: &mut RawObject, key: &str, items: Vec<Value>) -> Result<usize, SceneError> {
    let mut array: Vec<Raw> = root.array(key)?;
    let first = array.len();
    for item in items {
        array.push(to_raw(&item)?);
    }
    root.set(key, to_raw(&array)?);
    Ok(first)
}

/// Sets attribute `name` of a file primitive (mesh, primitive) to `accessor`; returns whether
/// it had one.
fn set_attribute(
    root: &mut RawObject,
    name: &str,
    (mesh, primitive): (usize, usize),
    accessor: Raw,
) -> Result<bool, SceneError> {
    let here = || format!("mesh {mesh} primitive {primitive}");
    let missing = || amend_err(format!("{} does not exist", here()));
    let mut meshes = root.array("meshes")?;
    let mesh_raw = meshes.get_mut(mesh).ok_or_else(missing)?;
    let mut mesh_obj = RawObject::parse(mesh_raw.get(), "a mesh")?;
    let prims_raw = mesh_obj.get("primitives").ok_or_else(missing)?;
    let mut prims = parse_array(prims_raw, "primitives")?;
    let prim_raw = prims.get_mut(primitive).ok_or_else(missing)?;
    let mut prim_obj = RawObject::parse(prim_raw.get(), "a primitive")?;
    let attributes_raw = prim_obj
        .get("attributes")
        .ok_or_else(|| amend_err(format!("{} has no attributes", here())))?;
    let mut attributes = RawObject::parse(attributes_raw.get(), "attributes")?;
    let replaced = attributes.set(name, accessor);
    prim_obj.set("attributes", attributes.to_raw()?);
    *prim_raw = prim_obj.to_raw()?;
    mesh_obj.set("primitives", to_raw(&prims)?);
    *mesh_raw = mesh_obj.to_raw()?;
    root.set("meshes", to_raw(&meshes)?);
    Ok(replaced)
}

/// Every buffer and image URI that is not a data URI.
fn external_files(root: &Value) -> Vec<ExternalFile> {
    let mut out = Vec::new();
    for kind in ["buffers", "images"] {
        let items = root.get(kind).and_then(Value::as_array);
        for (i, item) in items.into_iter().flatten().enumerate() {
            let Some(uri) = item.get("uri").and_then(Value::as_str) else {
                continue;
            };
            if uri.starts_with("data:") {
                continue;
            }
            let relative_path = external_reason(uri)
                .is_none()
                .then(|| super::gltf_load::percent_decode(uri).ok())
                .flatten();
            out.push(ExternalFile {
                owner: format!("{} {i}", kind.trim_end_matches('s')),
                uri: uri.to_owned(),
                relative_path,
            });
        }
    }
    out
}

/// Percent-encodes a file name for a URI (RFC 3986 unreserved characters stay).
fn uri_encode(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests;
