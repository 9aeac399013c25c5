//! Builders for tiny glTF files: a binary buffer, views and accessors, wrapped as JSON or GLB.

use base64::prelude::{BASE64_STANDARD, Engine as _};
use serde_json::{Value, json};

use crate::scene::{Scene, SceneError, load_gltf_slice};

/// Component type codes from the glTF spec.
pub const U8: u32 = 5121;
pub const U16: u32 = 5123;
pub const U32: u32 = 5125;
pub const F32: u32 = 5126;

/// Elements per glTF accessor type.
fn components(ty: &str) -> usize {
    match ty {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" => 4,
        "MAT4" => 16,
        other => panic!("no fixture support for {other}"),
    }
}

/// One buffer with its views and accessors; everything else is passed to `gltf`/`glb` as JSON.
#[derive(Default)]
pub struct Fixture {
    /// Buffer 0's bytes.
    pub bin: Vec<u8>,
    /// `bufferViews`.
    pub views: Vec<Value>,
    /// `accessors`.
    pub accessors: Vec<Value>,
}

impl Fixture {
    /// Appends bytes (4-byte aligned) as a new buffer view; returns its index.
    pub fn view(&mut self, bytes: &[u8]) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.views
            .push(json!({"buffer": 0, "byteOffset": offset, "byteLength": bytes.len()}));
        self.views.len() - 1
    }

    /// Adds a raw accessor; returns its index.
    pub fn accessor(&mut self, accessor: Value) -> usize {
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }

    /// Adds a view and an accessor of type `ty` over `bytes` with component type `component`.
    fn typed(&mut self, bytes: Vec<u8>, elements: usize, component: u32, ty: &str) -> usize {
        let count = elements / components(ty);
        let view = self.view(&bytes);
        self.accessor(
            json!({"bufferView": view, "componentType": component, "count": count, "type": ty}),
        )
    }

    /// Float accessor of type `ty`.
    pub fn f32s(&mut self, values: &[f32], ty: &str) -> usize {
        let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.typed(bytes, values.len(), F32, ty)
    }

    /// Unsigned short accessor of type `ty`.
    pub fn u16s(&mut self, values: &[u16], ty: &str) -> usize {
        let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.typed(bytes, values.len(), U16, ty)
    }

    /// Unsigned byte accessor of type `ty` (set `normalized` on the JSON where needed).
    pub fn u8s(&mut self, values: &[u8], ty: &str) -> usize {
        self.typed(values.to_vec(), values.len(), U8, ty)
    }

    /// The root JSON: `rest` plus asset, buffer (data URI unless `glb`), views and accessors.
    fn root(&self, rest: Value, glb: bool) -> Value {
        let mut root = rest;
        root["asset"] = json!({"version": "2.0"});
        let mut buffer = json!({"byteLength": self.bin.len()});
        if !glb {
            buffer["uri"] = json!(format!(
                "data:application/octet-stream;base64,{}",
                BASE64_STANDARD.encode(&self.bin)
            ));
        }
        if !self.bin.is_empty() {
            root["buffers"] = json!([buffer]);
        }
        root["bufferViews"] = json!(self.views);
        root["accessors"] = json!(self.accessors);
        root
    }

    /// A `.gltf` JSON text with the buffer as a data URI.
    pub fn gltf(&self, rest: Value) -> String {
        self.root(rest, false).to_string()
    }

    /// A `.glb` file with the buffer as its BIN chunk.
    pub fn glb(&self, rest: Value) -> Vec<u8> {
        glb_bytes(&self.root(rest, true).to_string(), &self.bin)
    }
}

/// Packs JSON text and binary data into a GLB container.
pub fn glb_bytes(json: &str, bin: &[u8]) -> Vec<u8> {
    let mut json = json.as_bytes().to_vec();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let mut bin = bin.to_vec();
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let total = 12 + 8 + json.len() + if bin.is_empty() { 0 } else { 8 + bin.len() };
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json);
    if !bin.is_empty() {
        out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&bin);
    }
    out
}

/// Loads JSON text with no base folder.
pub fn load(text: &str) -> Result<Scene, SceneError> {
    load_gltf_slice(text.as_bytes(), None, "test")
}

/// A unit quad in the XY plane (counter-clockwise seen from +Z) plus a fifth, unused vertex.
pub const QUAD_POSITIONS: [f32; 15] = [
    0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 5.0, 5.0, 5.0,
];
/// The quad's two triangles.
pub const QUAD_INDICES: [u16; 6] = [0, 1, 2, 0, 2, 3];

/// One node drawing mesh 0 made of one primitive with these attributes and indices.
pub fn one_mesh(attributes: Value, indices: Option<usize>) -> Value {
    let mut primitive = json!({"attributes": attributes});
    if let Some(i) = indices {
        primitive["indices"] = json!(i);
    }
    json!({
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [primitive]}],
    })
}
