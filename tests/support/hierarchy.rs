//! Big hierarchies built in test code: one small skinned tube under a long chain or a wide
//! tree of plain nodes, as a GLB (for timing `report` against `analyze`, and for work counts).

use serde_json::{Value, json};

/// How the extra nodes hang.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Each extra node the child of the one before, under the tube's second joint.
    Chain,
    /// Every extra node a child of the tube's second joint.
    Wide,
}

/// Little-endian bytes of `values`.
fn le<T: Copy>(values: &[T], to: impl Fn(T) -> Vec<u8>) -> Vec<u8> {
    values.iter().flat_map(|&v| to(v)).collect()
}

/// A GLB of `nodes` nodes in all: node 0 draws a closed square tube (4 rings of 4 vertices,
/// capped) skinned to joints 1 (root) and 2 (its child, 1 unit up), joint 2 twists 90 degrees
/// about +Y over a 1 s clip, and the other `nodes - 3` nodes hang below joint 2 per `shape`.
pub fn big_hierarchy_glb(nodes: usize, shape: Shape) -> Vec<u8> {
    assert!(nodes >= 3);
    let mut positions = Vec::new();
    let mut joints = Vec::new();
    let mut weights = Vec::new();
    for ring in 0..4u8 {
        let y = f32::from(ring) * 2.0 / 3.0;
        for [x, z] in [[-0.2f32, -0.2], [0.2, -0.2], [0.2, 0.2], [-0.2, 0.2]] {
            positions.extend([x, y, z]);
            joints.extend([0u8, 1, 0, 0]);
            let w = f32::from(ring) / 3.0;
            weights.extend([1.0 - w, w, 0.0, 0.0]);
        }
    }
    let mut indices: Vec<u16> = Vec::new();
    for ring in 0..3u16 {
        for side in 0..4u16 {
            let (a, b) = (ring * 4 + side, ring * 4 + (side + 1) % 4);
            indices.extend([a, b, b + 4, a, b + 4, a + 4]);
        }
    }
    indices.extend([0, 2, 1, 0, 3, 2, 12, 13, 14, 12, 14, 15]);
    let half = std::f32::consts::FRAC_1_SQRT_2;
    let chunks: Vec<Vec<u8>> = vec![
        le(&positions, |v: f32| v.to_le_bytes().to_vec()),
        joints.clone(),
        le(&weights, |v: f32| v.to_le_bytes().to_vec()),
        le(&indices, |v: u16| v.to_le_bytes().to_vec()),
        le(
            &[
                1.0f32, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
                1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, -1.0, 0.0, 1.0,
            ],
            |v: f32| v.to_le_bytes().to_vec(),
        ),
        le(&[0.0f32, 1.0], |v: f32| v.to_le_bytes().to_vec()),
        le(&[0.0f32, 0.0, 0.0, 1.0, 0.0, half, 0.0, half], |v: f32| {
            v.to_le_bytes().to_vec()
        }),
    ];
    let mut bin = Vec::new();
    let mut views = Vec::new();
    for c in &chunks {
        views.push(json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": c.len()}));
        bin.extend_from_slice(c);
        while bin.len() % 4 != 0 {
            bin.push(0);
        }
    }
    let mut all: Vec<Value> = vec![
        json!({"name": "tube", "mesh": 0, "skin": 0}),
        json!({"name": "root", "children": [2]}),
        json!({"name": "twist", "translation": [0.0, 1.0, 0.0]}),
    ];
    all.extend((3..nodes).map(|n| json!({"name": format!("n{n}")})));
    match shape {
        Shape::Chain => {
            for (n, node) in all.iter_mut().enumerate().take(nodes - 1).skip(2) {
                node["children"] = json!([n + 1]);
            }
        }
        Shape::Wide if nodes > 3 => all[2]["children"] = json!((3..nodes).collect::<Vec<_>>()),
        Shape::Wide => {}
    }
    let root = json!({
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": views,
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 16, "type": "VEC3",
             "min": [-0.2, 0.0, -0.2], "max": [0.2, 2.0, 0.2]},
            {"bufferView": 1, "componentType": 5121, "count": 16, "type": "VEC4"},
            {"bufferView": 2, "componentType": 5126, "count": 16, "type": "VEC4"},
            {"bufferView": 3, "componentType": 5123, "count": indices.len(), "type": "SCALAR"},
            {"bufferView": 4, "componentType": 5126, "count": 2, "type": "MAT4"},
            {"bufferView": 5, "componentType": 5126, "count": 2, "type": "SCALAR",
             "min": [0.0], "max": [1.0]},
            {"bufferView": 6, "componentType": 5126, "count": 2, "type": "VEC4"},
        ],
        "meshes": [{"primitives": [{
            "attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2}, "indices": 3,
        }]}],
        "skins": [{"joints": [1, 2], "inverseBindMatrices": 4}],
        "animations": [{
            "name": "twist",
            "samplers": [{"input": 5, "output": 6}],
            "channels": [{"sampler": 0, "target": {"node": 2, "path": "rotation"}}],
        }],
        "nodes": all,
        "scenes": [{"nodes": [0, 1]}],
        "scene": 0,
    });
    dqview::scene::glb_container(root.to_string().into_bytes(), bin).expect("GLB")
}
