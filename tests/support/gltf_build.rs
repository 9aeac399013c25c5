//! Tiny glTF documents built in test code: one data-URI buffer, quads, materials, an optional skin.

use serde_json::{Value, json};

/// glTF component type codes.
pub const GL_U8: u32 = 5121;
/// Unsigned short.
pub const GL_U16: u32 = 5123;
/// Float.
pub const GL_F32: u32 = 5126;

/// Standard base64 with padding, for data URIs.
pub fn base64(bytes: &[u8]) -> String {
    use base64::prelude::{BASE64_STANDARD, Engine as _};
    BASE64_STANDARD.encode(bytes)
}

/// A glTF document under construction: buffer 0, its views and accessors, meshes and materials.
#[derive(Default)]
pub struct GltfDoc {
    bin: Vec<u8>,
    views: Vec<Value>,
    /// `accessors`, editable (e.g. to break one on purpose).
    pub accessors: Vec<Value>,
    /// `meshes`, one primitive each when made by [`GltfDoc::quad`].
    pub meshes: Vec<Value>,
    /// `materials`.
    pub materials: Vec<Value>,
}

impl GltfDoc {
    /// Adds `bytes` as a buffer view and an accessor of `count` `ty` elements of `component`.
    pub fn accessor(&mut self, bytes: &[u8], component: u32, count: usize, ty: &str) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.views
            .push(json!({"buffer": 0, "byteOffset": offset, "byteLength": bytes.len()}));
        self.accessors.push(json!({
            "bufferView": self.views.len() - 1,
            "componentType": component,
            "count": count,
            "type": ty,
        }));
        self.accessors.len() - 1
    }

    /// Buffer 0's bytes so far.
    pub fn bin(&self) -> &[u8] {
        &self.bin
    }

    /// Float accessor of `ty` elements of `n` components.
    pub fn f32s(&mut self, values: &[f32], ty: &str, n: usize) -> usize {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.accessor(&bytes, GL_F32, values.len() / n, ty)
    }

    /// Normalised unsigned byte accessor of `ty` elements of `n` components.
    pub fn u8s_normalized(&mut self, values: &[u8], ty: &str, n: usize) -> usize {
        let a = self.accessor(values, GL_U8, values.len() / n, ty);
        self.accessors[a]["normalized"] = json!(true);
        a
    }

    /// Normalised unsigned short accessor of `ty` elements of `n` components.
    pub fn u16s_normalized(&mut self, values: &[u16], ty: &str, n: usize) -> usize {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let a = self.accessor(&bytes, GL_U16, values.len() / n, ty);
        self.accessors[a]["normalized"] = json!(true);
        a
    }

    /// Adds a material; returns its index.
    pub fn material(&mut self, material: Value) -> usize {
        self.materials.push(material);
        self.materials.len() - 1
    }

    /// A 2 x 2 quad in the plane z = `z` facing +Z, centred on the axis, weighted fully to joint 0,
    /// with `color` (an accessor) as COLOR_0; returns the mesh index.
    pub fn quad(&mut self, z: f32, color: Option<usize>, material: Option<usize>) -> usize {
        let positions = [-1.0, -1.0, z, 1.0, -1.0, z, 1.0, 1.0, z, -1.0, 1.0, z];
        let pos = self.f32s(&positions, "VEC3", 3);
        self.accessors[pos]["min"] = json!([-1.0, -1.0, z]);
        self.accessors[pos]["max"] = json!([1.0, 1.0, z]);
        let normals = self.f32s(&[0.0, 0.0, 1.0].repeat(4), "VEC3", 3);
        let joints = self.accessor(&[0u8; 16], GL_U8, 4, "VEC4");
        let weights = self.f32s(&[1.0, 0.0, 0.0, 0.0].repeat(4), "VEC4", 4);
        let index_bytes: Vec<u8> = [0u16, 1, 2, 0, 2, 3]
            .iter()
            .flat_map(|i| i.to_le_bytes())
            .collect();
        let indices = self.accessor(&index_bytes, GL_U16, 6, "SCALAR");
        let mut attributes = json!({
            "POSITION": pos, "NORMAL": normals, "JOINTS_0": joints, "WEIGHTS_0": weights,
        });
        if let Some(c) = color {
            attributes["COLOR_0"] = json!(c);
        }
        let mut primitive = json!({"attributes": attributes, "indices": indices});
        if let Some(m) = material {
            primitive["material"] = json!(m);
        }
        self.meshes.push(json!({"primitives": [primitive]}));
        self.meshes.len() - 1
    }

    /// RGBA float colours, the same for all four vertices of a quad.
    pub fn quad_colors(&mut self, rgba: [f32; 4]) -> usize {
        self.f32s(&rgba.repeat(4), "VEC4", 4)
    }

    /// The `.gltf` text: one node per mesh (all skinned by one identity joint when `skinned`).
    pub fn gltf(&self, skinned: bool) -> String {
        let joint = self.meshes.len();
        let mut nodes: Vec<Value> = (0..self.meshes.len())
            .map(|m| {
                if skinned {
                    json!({"mesh": m, "skin": 0})
                } else {
                    json!({"mesh": m})
                }
            })
            .collect();
        let mut roots: Vec<usize> = (0..self.meshes.len()).collect();
        let mut root = json!({
            "asset": {"version": "2.0"},
            "buffers": [{
                "byteLength": self.bin.len(),
                "uri": format!("data:application/octet-stream;base64,{}", base64(&self.bin)),
            }],
            "bufferViews": self.views,
            "accessors": self.accessors,
            "meshes": self.meshes,
        });
        if !self.materials.is_empty() {
            root["materials"] = json!(self.materials);
        }
        if skinned {
            nodes.push(json!({"name": "joint"}));
            roots.push(joint);
            root["skins"] = json!([{"joints": [joint]}]);
        }
        root["nodes"] = json!(nodes);
        root["scenes"] = json!([{"nodes": roots}]);
        root["scene"] = json!(0);
        root.to_string()
    }
}

/// `glb` with its JSON chunk replaced by `edit(json)` (padded with spaces, as GLB asks) and its
/// other chunks kept: a file to damage one field of.
pub fn glb_with_json(glb: &[u8], edit: impl FnOnce(&mut serde_json::Value)) -> Vec<u8> {
    let json_len = u32::from_le_bytes(glb[12..16].try_into().expect("4 bytes")) as usize;
    let mut json: serde_json::Value =
        serde_json::from_slice(&glb[20..20 + json_len]).expect("json");
    edit(&mut json);
    let mut text = serde_json::to_vec(&json).expect("json");
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let rest = &glb[20 + json_len..];
    let mut out = glb[..8].to_vec();
    out.extend(((20 + text.len() + rest.len()) as u32).to_le_bytes());
    out.extend((text.len() as u32).to_le_bytes());
    out.extend(b"JSON");
    out.extend(text);
    out.extend_from_slice(rest);
    out
}
