//! Writing a new attribute over the previous one of its name: amending a file that already has
//! a map or centres (blend or cor run on its own output) replaces the old values in place
//! instead of appending a copy.
//!
//! An old accessor is overwritten only where nothing else can see it: a float accessor of the
//! same type and count, not sparse or normalised, in a packed view (of the GLB's BIN chunk, or
//! of a `.gltf`'s external `.bin` that holds nothing but such values) that no other accessor or
//! image uses, referenced by that one primitive's attribute alone.

use serde_json::{Value, json};

use super::container::{Glb, amend_err};
use super::raw::{RawObject, to_raw};
use super::{Amended, AttributeSpec, Blob, BlobEntry, FLOAT};
use crate::scene::SceneError;

/// Where an old attribute accessor's values sit in the BIN chunk.
pub(super) struct Slot {
    /// The accessor to give the new `min`/`max`.
    pub accessor: usize,
    /// The buffer its view is in.
    pub buffer: usize,
    /// Its buffer view.
    pub view: usize,
    /// First byte in the buffer.
    pub start: usize,
}

/// `value[key]` as an index.
fn index(value: &Value, key: &str) -> Option<usize> {
    value
        .get(key)
        .and_then(Value::as_u64)
        .and_then(|i| usize::try_from(i).ok())
}

/// How often `accessor` is named anywhere an accessor can be: attributes, indices, morph
/// targets, skins and animation samplers.
pub(super) fn accessor_uses(root: &Value, accessor: usize) -> usize {
    let is = |v: &Value| v.as_u64() == Some(accessor as u64);
    let mut uses = 0;
    let list = |key: &str| root.get(key).and_then(Value::as_array).cloned();
    for mesh in list("meshes").into_iter().flatten() {
        let prims = mesh.get("primitives").and_then(Value::as_array).cloned();
        for prim in prims.into_iter().flatten() {
            let attrs = prim.get("attributes").and_then(Value::as_object);
            uses += attrs.into_iter().flatten().filter(|(_, v)| is(v)).count();
            uses += usize::from(prim.get("indices").is_some_and(is));
            let targets = prim.get("targets").and_then(Value::as_array);
            for t in targets.into_iter().flatten() {
                let t = t.as_object().into_iter().flatten();
                uses += t.filter(|(_, v)| is(v)).count();
            }
        }
    }
    for skin in list("skins").into_iter().flatten() {
        uses += usize::from(skin.get("inverseBindMatrices").is_some_and(is));
    }
    for anim in list("animations").into_iter().flatten() {
        let samplers = anim.get("samplers").and_then(Value::as_array).cloned();
        for s in samplers.into_iter().flatten() {
            uses += usize::from(s.get("input").is_some_and(is));
            uses += usize::from(s.get("output").is_some_and(is));
        }
    }
    uses
}

/// How many accessors and images use buffer view `view`.
pub(super) fn view_uses(root: &Value, view: usize) -> usize {
    ["accessors", "images"]
        .iter()
        .filter_map(|k| root.get(*k).and_then(Value::as_array))
        .flatten()
        .filter(|item| index(item, "bufferView") == Some(view))
        .count()
}

/// The old accessor of `entry`'s primitive when it can take the new values in place, in a
/// buffer that `buffer_len` allows (it gives the allowed buffers' byte lengths).
pub(super) fn slot_of(
    root: &Value,
    spec: AttributeSpec,
    entry: &BlobEntry,
    buffer_len: impl Fn(usize) -> Option<usize>,
) -> Option<Slot> {
    let prim = root
        .get("meshes")?
        .get(entry.mesh)?
        .get("primitives")?
        .get(entry.file_primitive)?;
    let accessor = index(prim.get("attributes")?, spec.name)?;
    let acc = root.get("accessors")?.get(accessor)?;
    let plain = acc.get("componentType").and_then(Value::as_u64) == Some(u64::from(FLOAT))
        && acc.get("type").and_then(Value::as_str) == Some(spec.accessor_type())
        && index(acc, "count") == Some(entry.count)
        && acc.get("sparse").is_none()
        && !acc
            .get("normalized")
            .and_then(Value::as_bool)
            .unwrap_or(false);
    let view_index = index(acc, "bufferView")?;
    let view = root.get("bufferViews")?.get(view_index)?;
    let packed = index(view, "byteStride").is_none_or(|s| s == spec.vertex_bytes());
    let buffer = index(view, "buffer")?;
    let bin_len = buffer_len(buffer)?;
    if !(plain && packed) {
        return None;
    }
    let start = index(view, "byteOffset")
        .unwrap_or(0)
        .checked_add(index(acc, "byteOffset").unwrap_or(0))?;
    let end = start.checked_add(entry.count.checked_mul(spec.vertex_bytes())?)?;
    let view_end = index(view, "byteOffset")
        .unwrap_or(0)
        .checked_add(index(view, "byteLength")?)?;
    let fits = end <= view_end && end <= bin_len && start.is_multiple_of(4);
    let alone = accessor_uses(root, accessor) == 1 && view_uses(root, view_index) == 1;
    (fits && alone).then_some(Slot {
        accessor,
        buffer,
        view: view_index,
        start,
    })
}

/// Whether every buffer view of `buffer` is one of `slots`' (so rewriting those rewrites it all).
pub(super) fn buffer_holds_only(root: &Value, buffer: usize, slots: &[Slot]) -> bool {
    let views = root.get("bufferViews").and_then(Value::as_array);
    views
        .into_iter()
        .flatten()
        .enumerate()
        .all(|(i, v)| index(v, "buffer") != Some(buffer) || slots.iter().any(|s| s.view == i))
}

/// Writes `values` (little-endian f32 bytes) at `slot` in `bin`, and the accessor's new `min`/`max`.
pub(super) fn overwrite(
    root: &mut RawObject,
    bin: &mut [u8],
    slot: &Slot,
    values: &[u8],
    entry: &BlobEntry,
) -> Result<(), SceneError> {
    let end = slot.start + values.len();
    bin.get_mut(slot.start..end)
        .ok_or_else(|| amend_err("internal: old attribute slot outside the BIN chunk"))?
        .copy_from_slice(values);
    let mut accessors = root.array("accessors")?;
    let raw = accessors
        .get_mut(slot.accessor)
        .ok_or_else(|| amend_err("internal: old attribute accessor missing"))?;
    let mut obj = RawObject::parse(raw.get(), "an accessor")?;
    obj.set("min", to_raw(&json!(entry.min))?);
    obj.set("max", to_raw(&json!(entry.max))?);
    *raw = obj.to_raw()?;
    root.set("accessors", to_raw(&accessors)?);
    Ok(())
}

/// Overwrites each old attribute of a GLB that can take its new values in place
/// (see the module docs); returns the entries left to append.
pub(super) fn overwrite_in_glb(
    view: &Value,
    root: &mut RawObject,
    glb: &mut Glb,
    blob: Blob,
    out: &mut Amended,
) -> Result<Blob, SceneError> {
    let buffer0_is_bin = view
        .get("buffers")
        .and_then(|b| b.get(0))
        .is_some_and(|b| b.get("uri").is_none());
    let Some(bin) = glb.bin.as_mut().filter(|_| buffer0_is_bin) else {
        return Ok(blob);
    };
    let bin_len = bin.len();
    let mut rest = Blob::empty(blob.spec);
    for entry in &blob.entries {
        let values = blob.values_of(entry)?;
        match slot_of(view, blob.spec, entry, |b| (b == 0).then_some(bin_len)) {
            Some(slot) => {
                overwrite(root, bin, &slot, values, entry)?;
                out.overwritten.push((entry.mesh, entry.file_primitive));
            }
            None => {
                rest.entries.push(BlobEntry {
                    offset: rest.bytes.len(),
                    ..entry.clone()
                });
                rest.bytes.extend_from_slice(values);
            }
        }
    }
    Ok(rest)
}

/// For a `.gltf` whose old maps fill an external `.bin` of their own (blend run on its own
/// output): writes that `.bin` anew with the new values at the old places; returns the entries
/// left to append (all of them when the old maps cannot be reused).
pub(super) fn rewrite_own_bin(
    view: &Value,
    root: &mut RawObject,
    blob: Blob,
    out: &mut Amended,
) -> Result<Blob, SceneError> {
    // A plain file name beside the glTF (no folders): one dqview wrote, safe to rewrite.
    let bin_file = |b: usize| {
        let owner = format!("buffer {b}");
        out.external_files
            .iter()
            .find(|f| f.owner == owner)
            .and_then(|f| f.relative_path.clone())
            .filter(|p| !p.contains(['/', '\\']))
    };
    let buffer_len = |b: usize| {
        bin_file(b)?;
        let len = view.get("buffers")?.get(b)?.get("byteLength")?.as_u64()?;
        usize::try_from(len).ok()
    };
    let slots: Option<Vec<Slot>> = blob
        .entries
        .iter()
        .map(|e| slot_of(view, blob.spec, e, buffer_len))
        .collect();
    let Some(slots) = slots.filter(|s| !s.is_empty()) else {
        return Ok(blob);
    };
    let buffer = slots[0].buffer;
    let one_buffer = slots.iter().all(|s| s.buffer == buffer);
    let (Some(name), Some(len)) = (bin_file(buffer), buffer_len(buffer)) else {
        return Ok(blob);
    };
    if !one_buffer || !buffer_holds_only(view, buffer, &slots) {
        return Ok(blob);
    }
    let mut bin = vec![0u8; len];
    for (entry, slot) in blob.entries.iter().zip(&slots) {
        overwrite(root, &mut bin, slot, blob.values_of(entry)?, entry)?;
        out.overwritten.push((entry.mesh, entry.file_primitive));
    }
    let owner = format!("buffer {buffer}");
    out.external_files.retain(|f| f.owner != owner);
    out.bin = Some((name, bin));
    Ok(Blob::empty(blob.spec))
}
