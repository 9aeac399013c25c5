//! The binary chunk under construction and the GLB container around it.

use serde_json::{Value, json};

use super::write_err;
use crate::scene::SceneError;

/// The GLB header magic, `glTF` read as a little-endian u32.
const GLB_MAGIC: u32 = 0x4654_6C67;
/// The only GLB container version glTF 2.0 defines.
const GLB_VERSION: u32 = 2;
/// Chunk type of the JSON chunk (`JSON`).
const CHUNK_JSON: u32 = 0x4E4F_534A;
/// Chunk type of the binary chunk (`BIN\0`).
const CHUNK_BIN: u32 = 0x004E_4942;
/// Buffer view target for vertex attributes.
pub(super) const ARRAY_BUFFER: u32 = 34962;
/// Buffer view target for indices.
pub(super) const ELEMENT_ARRAY_BUFFER: u32 = 34963;
/// Accessor component type `FLOAT`.
const FLOAT: u32 = 5126;
/// Accessor component type `UNSIGNED_SHORT`.
pub(super) const UNSIGNED_SHORT: u32 = 5123;
/// Accessor component type `UNSIGNED_INT`.
pub(super) const UNSIGNED_INT: u32 = 5125;

/// The binary chunk under construction, with its buffer views and accessors.
#[derive(Default)]
pub(super) struct Bin {
    /// Buffer 0's bytes.
    pub(super) data: Vec<u8>,
    /// `bufferViews` JSON.
    pub(super) views: Vec<Value>,
    /// `accessors` JSON.
    pub(super) accessors: Vec<Value>,
    /// A view of zeros shared by all morph target accessors: (view index, its length in bytes).
    zeros: Option<(usize, usize)>,
}

/// The glTF accessor type and its component count.
#[derive(Clone, Copy)]
pub(super) enum Kind {
    /// One component.
    Scalar,
    /// Two components.
    Vec2,
    /// Three components.
    Vec3,
    /// Four components.
    Vec4,
    /// Sixteen components, column-major.
    Mat4,
}

impl Kind {
    /// Components per element.
    fn components(self) -> usize {
        match self {
            Self::Scalar => 1,
            Self::Vec2 => 2,
            Self::Vec3 => 3,
            Self::Vec4 => 4,
            Self::Mat4 => 16,
        }
    }

    /// The glTF `type` string.
    fn name(self) -> &'static str {
        match self {
            Self::Scalar => "SCALAR",
            Self::Vec2 => "VEC2",
            Self::Vec3 => "VEC3",
            Self::Vec4 => "VEC4",
            Self::Mat4 => "MAT4",
        }
    }
}

impl Bin {
    /// Appends `bytes` as a new buffer view starting on a 4-byte boundary; returns its index.
    pub(super) fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        self.align();
        let mut view = json!({
            "buffer": 0,
            "byteOffset": self.data.len(),
            "byteLength": bytes.len(),
        });
        if let (Some(target), Some(obj)) = (target, view.as_object_mut()) {
            obj.insert("target".into(), json!(target));
        }
        self.data.extend_from_slice(bytes);
        self.views.push(view);
        self.views.len() - 1
    }

    /// Pads the data with zeros to a multiple of 4 bytes.
    pub(super) fn align(&mut self) {
        while !self.data.len().is_multiple_of(4) {
            self.data.push(0);
        }
    }

    /// Adds an accessor; returns its index.
    pub(super) fn accessor(
        &mut self,
        view: usize,
        component_type: u32,
        count: usize,
        kind: Kind,
    ) -> usize {
        self.accessors.push(json!({
            "bufferView": view,
            "componentType": component_type,
            "count": count,
            "type": kind.name(),
        }));
        self.accessors.len() - 1
    }

    /// Adds f32 data as a view plus accessor, with per-component min/max when `bounds` is set.
    ///
    /// The caller guarantees `values` is non-empty and a multiple of the component count.
    pub(super) fn floats(
        &mut self,
        values: &[f32],
        kind: Kind,
        target: Option<u32>,
        bounds: bool,
        what: impl Fn() -> String,
    ) -> Result<usize, SceneError> {
        let n = kind.components();
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.view(&bytes, target);
        let index = self.accessor(view, FLOAT, values.len() / n, kind);
        if bounds {
            let mut min = vec![f32::INFINITY; n];
            let mut max = vec![f32::NEG_INFINITY; n];
            for element in values.chunks_exact(n) {
                for (k, &v) in element.iter().enumerate() {
                    min[k] = min[k].min(v);
                    max[k] = max[k].max(v);
                }
            }
            // min/max land in the JSON, so a NaN or infinity anywhere is an error.
            if values.iter().any(|v| !v.is_finite()) {
                return Err(write_err(format!("{} is not finite", what())));
            }
            if let Some(obj) = self.accessors.last_mut().and_then(Value::as_object_mut) {
                obj.insert("min".into(), json!(min));
                obj.insert("max".into(), json!(max));
            }
        }
        Ok(index)
    }

    /// A POSITION accessor of `count` zeros, for a morph target that moves nothing.
    pub(super) fn zero_positions(&mut self, count: usize) -> usize {
        let bytes = count * 12;
        let view = match self.zeros {
            Some((view, len)) if len >= bytes => view,
            _ => {
                let view = self.view(&vec![0; bytes], Some(ARRAY_BUFFER));
                // Several accessors share this view, so the spec wants an explicit stride.
                if let Some(obj) = self.views.get_mut(view).and_then(Value::as_object_mut) {
                    obj.insert("byteStride".into(), json!(12));
                }
                self.zeros = Some((view, bytes));
                view
            }
        };
        let index = self.accessor(view, FLOAT, count, Kind::Vec3);
        if let Some(obj) = self.accessors.last_mut().and_then(Value::as_object_mut) {
            obj.insert("min".into(), json!([0.0, 0.0, 0.0]));
            obj.insert("max".into(), json!([0.0, 0.0, 0.0]));
        }
        index
    }
}

/// Wraps JSON and binary data in the GLB container: header, JSON chunk, BIN chunk.
pub fn glb_container(mut json: Vec<u8>, mut bin: Vec<u8>) -> Result<Vec<u8>, SceneError> {
    // Chunks must be 4-byte aligned: JSON pads with spaces, BIN with zeros.
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let bin_chunk = if bin.is_empty() { 0 } else { 8 + bin.len() };
    let total = 12 + 8 + json.len() + bin_chunk;
    let as_u32 = |n: usize| {
        u32::try_from(n).map_err(|_| write_err(format!("GLB of {n} bytes exceeds 4 GiB")))
    };
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&GLB_MAGIC.to_le_bytes());
    out.extend_from_slice(&GLB_VERSION.to_le_bytes());
    out.extend_from_slice(&as_u32(total)?.to_le_bytes());
    out.extend_from_slice(&as_u32(json.len())?.to_le_bytes());
    out.extend_from_slice(&CHUNK_JSON.to_le_bytes());
    out.extend_from_slice(&json);
    if !bin.is_empty() {
        out.extend_from_slice(&as_u32(bin.len())?.to_le_bytes());
        out.extend_from_slice(&CHUNK_BIN.to_le_bytes());
        out.extend_from_slice(&bin);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u32_at(bytes: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
    }

    #[test]
    fn header_counts_every_byte() {
        let glb = glb_container(b"{\"a\":1}".to_vec(), Vec::new()).unwrap();
        assert_eq!(u32_at(&glb, 0), GLB_MAGIC);
        assert_eq!(u32_at(&glb, 4), GLB_VERSION);
        assert_eq!(u32_at(&glb, 8) as usize, glb.len());
        assert_eq!(u32_at(&glb, 12), 8);
        assert_eq!(u32_at(&glb, 16), CHUNK_JSON);
        assert_eq!(glb.len(), 28, "no BIN chunk without binary data");
    }

    #[test]
    fn container_pads_json_with_spaces_and_bin_with_zeros() {
        let glb = glb_container(b"{}".to_vec(), vec![7]).unwrap();
        assert_eq!(&glb[20..24], b"{}  ");
        assert_eq!(u32_at(&glb, 24), 4);
        assert_eq!(u32_at(&glb, 28), CHUNK_BIN);
        assert_eq!(&glb[32..36], &[7, 0, 0, 0]);
        assert_eq!(glb.len(), 36);
    }

    #[test]
    fn views_start_on_four_byte_boundaries() {
        let mut bin = Bin::default();
        bin.view(&[1, 2, 3], None);
        bin.view(&[4, 5], None);
        assert_eq!(bin.views[1]["byteOffset"], json!(4));
        assert_eq!(bin.data.len(), 6);
    }

    #[test]
    fn non_finite_bounds_are_refused() {
        let mut bin = Bin::default();
        let r = bin.floats(&[0.0, f32::NAN, 1.0], Kind::Vec3, None, true, || "x".into());
        assert!(matches!(r, Err(SceneError::Write(_))));
    }
}
