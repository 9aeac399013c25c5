//! The bytes a rig amend adds: each piece in its own buffer view with one accessor, in the
//! slots of the accessor and view it replaces when nothing else uses them, else appended.

use serde_json::{Value, json};

use super::container::{Glb, amend_err};
use super::raw::{Raw, RawObject, to_raw};
use super::{AmendTarget, Amended, FLOAT, push};
use crate::scene::SceneError;

/// The new bytes, and a buffer view and an accessor for each piece: in the slot of the accessor
/// (and view) it replaces when nothing else uses those, else numbered after the file's.
pub(super) struct NewData {
    bytes: Vec<u8>,
    /// (slot of the view it replaces, offset in `bytes`, length, buffer view target).
    views: Vec<(Option<usize>, usize, usize, Option<u32>)>,
    /// (slot of the accessor it replaces, JSON without `bufferView`); one per view.
    accessors: Vec<(Option<usize>, Value)>,
    /// The file's JSON, to count uses.
    file: Value,
    first_accessor: usize,
}

impl NewData {
    /// No data yet; indices follow the file's views and accessors.
    pub(super) fn new(view: &Value) -> Self {
        let len = |k: &str| view.get(k).and_then(Value::as_array).map_or(0, Vec::len);
        Self {
            bytes: Vec::new(),
            views: Vec::new(),
            accessors: Vec::new(),
            file: view.clone(),
            first_accessor: len("accessors"),
        }
    }

    /// Adds `bytes` as an accessor described by `accessor`, replacing accessor `old` when only
    /// the reference being changed uses it; returns its index in the file.
    pub(super) fn add(
        &mut self,
        bytes: &[u8],
        target: Option<u32>,
        accessor: Value,
        old: Option<usize>,
    ) -> usize {
        let offset = self.bytes.len();
        self.bytes.extend_from_slice(bytes);
        self.bytes.resize(self.bytes.len().next_multiple_of(4), 0);
        let slot = old.filter(|&a| {
            super::reuse::accessor_uses(&self.file, a) == 1
                && !self.accessors.iter().any(|(s, _)| *s == Some(a))
        });
        let view_slot = slot
            .and_then(|a| {
                self.file
                    .get("accessors")?
                    .get(a)?
                    .get("bufferView")?
                    .as_u64()
            })
            .map(|v| v as usize)
            .filter(|&v| super::reuse::view_uses(&self.file, v) == 1);
        self.views.push((view_slot, offset, bytes.len(), target));
        self.accessors.push((slot, accessor));
        slot.unwrap_or_else(|| {
            self.first_accessor + self.accessors.iter().filter(|(s, _)| s.is_none()).count() - 1
        })
    }

    /// Floats as an accessor of `kind` (`SCALAR`, `VEC4`, `MAT4`), with `min`/`max` when asked.
    pub(super) fn floats(
        &mut self,
        values: &[f32],
        spec: (&str, usize),
        target: Option<u32>,
        bounds: bool,
        old: Option<usize>,
    ) -> usize {
        let (kind, per) = spec;
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut accessor = json!({
            "componentType": FLOAT,
            "count": values.len() / per.max(1),
            "type": kind,
        });
        if bounds {
            let min = values.iter().copied().fold(f32::INFINITY, f32::min);
            let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            accessor["min"] = json!([number(min)]);
            accessor["max"] = json!([number(max)]);
        }
        self.add(&bytes, target, accessor, old)
    }

    /// Writes the bytes into the file, then the views and accessors (in their slots or appended).
    pub(super) fn append(
        self,
        view: &Value,
        root: &mut RawObject,
        glb: &mut Option<Glb>,
        target: AmendTarget<'_>,
        out: &mut Amended,
    ) -> Result<(), SceneError> {
        if self.views.is_empty() {
            return Ok(());
        }
        let (buffer, base) = match (glb, target) {
            (Some(parts), _) => super::glb_buffer(view, root, parts, &self.bytes)?,
            (None, AmendTarget::Gltf { bin_name }) => {
                let index = push(
                    root,
                    "buffers",
                    vec![
                        json!({ "byteLength": self.bytes.len(), "uri": super::uri_encode(bin_name) }),
                    ],
                )?;
                out.bin = Some((bin_name.to_owned(), self.bytes.clone()));
                (index, 0)
            }
            (None, AmendTarget::Glb) => {
                return Err(amend_err("internal: GLB target without a GLB"));
            }
        };
        let mut views = root.array("bufferViews")?;
        let mut accessors = root.array("accessors")?;
        for ((view_slot, offset, len, target), (slot, mut accessor)) in
            self.views.into_iter().zip(self.accessors)
        {
            let mut v = json!({ "buffer": buffer, "byteOffset": base + offset, "byteLength": len });
            if let Some(t) = target {
                v["target"] = json!(t);
            }
            let view_index = place(&mut views, view_slot, to_raw(&v)?);
            accessor["bufferView"] = json!(view_index);
            place(&mut accessors, slot, to_raw(&accessor)?);
        }
        root.set("bufferViews", to_raw(&views)?);
        root.set("accessors", to_raw(&accessors)?);
        Ok(())
    }
}

/// Puts `item` in slot `slot` of `list`, or appends it; returns its index.
fn place(list: &mut Vec<Raw>, slot: Option<usize>, item: Raw) -> usize {
    match slot.filter(|&s| s < list.len()) {
        Some(s) => {
            list[s] = item;
            s
        }
        None => {
            list.push(item);
            list.len() - 1
        }
    }
}

/// A JSON number holding `x`'s shortest decimal form (so 0.3f32 is written `0.3`).
pub(super) fn number(x: f32) -> Value {
    format!("{x}")
        .parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
        .map_or(Value::Null, Value::Number)
}
