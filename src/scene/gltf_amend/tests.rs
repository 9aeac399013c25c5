//! The amend on tiny hand-built files: a `.gltf` with a data-URI buffer and a `.glb`.

use base64::prelude::{BASE64_STANDARD, Engine as _};
use serde_json::{Value, json};

use super::*;
use crate::scene::load_gltf_slice;

/// A mesh whose primitive 0 is points (dropped by the loader) and primitive 1 a skinned triangle.
fn document(buffer_uri: Option<String>, bytes: usize) -> Value {
    let mut buffer = json!({ "byteLength": bytes, "name": "geometry" });
    if let Some(uri) = buffer_uri {
        buffer["uri"] = json!(uri);
    }
    json!({
        "asset": { "version": "2.0", "generator": "hand", "extras": { "note": [1, 2.5] } },
        "extensionsUsed": ["EXT_example"],
        "scene": 0,
        "scenes": [{ "nodes": [0, 1] }],
        "nodes": [
            { "name": "skinned", "mesh": 0, "skin": 0, "extensions": { "EXT_example": { "k": true } } },
            { "name": "joint" }
        ],
        "skins": [{ "joints": [1] }],
        "meshes": [{
            "name": "tri",
            "primitives": [
                { "mode": 0, "attributes": { "POSITION": 0 } },
                { "attributes": { "POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2 }, "indices": 3, "unknown_field": "kept" }
            ]
        }],
        "buffers": [buffer],
        "bufferViews": [
            { "buffer": 0, "byteOffset": 0, "byteLength": 36 },
            { "buffer": 0, "byteOffset": 36, "byteLength": 12 },
            { "buffer": 0, "byteOffset": 48, "byteLength": 48 },
            { "buffer": 0, "byteOffset": 96, "byteLength": 6 }
        ],
        "accessors": [
            { "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0] },
            { "bufferView": 1, "componentType": 5121, "count": 3, "type": "VEC4" },
            { "bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC4" },
            { "bufferView": 3, "componentType": 5123, "count": 3, "type": "SCALAR" }
        ]
    })
}

/// The buffer bytes of [`document`]: positions, joints, weights, indices (102 bytes, padded to 104).
fn geometry() -> Vec<u8> {
    let mut bytes = Vec::new();
    for p in [[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] {
        bytes.extend(p.iter().flat_map(|x| x.to_le_bytes()));
    }
    bytes.extend([0u8; 12]);
    for _ in 0..3 {
        bytes.extend([1.0f32, 0.0, 0.0, 0.0].iter().flat_map(|x| x.to_le_bytes()));
    }
    bytes.extend([0u16, 1, 2].iter().flat_map(|x| x.to_le_bytes()));
    bytes.extend([0, 0]);
    bytes
}

/// The document's text with a member order and number spellings serde_json would not write.
fn spelled(root: &Value) -> Vec<u8> {
    let text = root.to_string();
    let sorted = r#""attributes":{"JOINTS_0":1,"POSITION":0,"WEIGHTS_0":2}"#;
    assert!(text.contains(sorted) && text.contains(r#""note":[1,2.5]"#));
    text.replace(sorted, FILE_ATTRIBUTES)
        .replace(r#""note":[1,2.5]"#, FILE_NOTE)
        .into_bytes()
}

/// The skinned primitive's attributes as the test files spell them.
const FILE_ATTRIBUTES: &str = r#""attributes":{"POSITION":0, "WEIGHTS_0":2,"JOINTS_0":1}"#;
/// A member spelled the way a hand-written file might.
const FILE_NOTE: &str = r#""note":[ 1, 2.50e0 ]"#;

fn gltf_file() -> Vec<u8> {
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        BASE64_STANDARD.encode(geometry())
    );
    spelled(&document(Some(uri), 102))
}

fn glb_file() -> Vec<u8> {
    let json = spelled(&document(None, 102));
    Glb {
        json,
        bin: Some(geometry()),
        other: Vec::new(),
    }
    .to_bytes()
    .unwrap()
}

fn json_of(file: &[u8]) -> Value {
    let bytes = if file.starts_with(b"glTF") {
        Glb::parse(file).unwrap().json
    } else {
        file.to_vec()
    };
    serde_json::from_slice(&bytes).unwrap()
}

/// Removes the last `n` entries of top-level array `key`.
fn drop_last(root: &mut Value, key: &str, n: usize) {
    let array = root[key].as_array_mut().unwrap();
    let keep = array.len() - n;
    array.truncate(keep);
}

const BETAS: [f32; 3] = [0.0, 0.25, 1.0];

#[test]
fn gltf_gains_a_buffer_a_view_an_accessor_and_the_attribute_only() {
    let input = gltf_file();
    let values = [PrimitiveValues {
        mesh: 0,
        primitive: 0,
        values: &BETAS,
    }];
    let out = amend_dqs_blend(
        &input,
        AmendTarget::Gltf {
            bin_name: "my rig.dqs_blend.bin",
        },
        &values,
    )
    .unwrap();
    let (name, bin) = out.bin.clone().unwrap();
    assert_eq!(name, "my rig.dqs_blend.bin");
    assert_eq!(bin.len(), 12);
    let mut root = json_of(&out.file);
    // Scene primitive 0 is file primitive 1 (the points primitive is not loaded).
    let prim = &root["meshes"][0]["primitives"][1];
    assert_eq!(prim["attributes"]["_DQS_BLEND"], json!(4));
    assert!(
        root["meshes"][0]["primitives"][0]["attributes"]
            .get("_DQS_BLEND")
            .is_none()
    );
    assert_eq!(
        root["buffers"][1],
        json!({ "byteLength": 12, "uri": "my%20rig.dqs_blend.bin" })
    );
    assert_eq!(
        root["bufferViews"][4],
        json!({ "buffer": 1, "byteOffset": 0, "byteLength": 12, "target": 34962 })
    );
    let accessor = &root["accessors"][4];
    assert_eq!(accessor["count"], json!(3));
    assert_eq!(accessor["type"], json!("SCALAR"));
    assert_eq!(accessor["componentType"], json!(5126));
    assert_eq!(
        (accessor["min"][0].as_f64(), accessor["max"][0].as_f64()),
        (Some(0.0), Some(1.0))
    );
    // Key order is the file's, the new attribute last, and untouched values keep their text.
    let text = String::from_utf8(out.file.clone()).unwrap();
    assert!(
        text.contains(r#""attributes":{"POSITION":0,"WEIGHTS_0":2,"JOINTS_0":1,"_DQS_BLEND":4}"#),
        "{text}"
    );
    assert!(text.contains(FILE_NOTE), "{text}");
    let nodes = serde_json::to_string(&document(None, 0)["nodes"]).unwrap();
    assert!(text.contains(&format!(r#""nodes": {nodes}"#)), "{text}");
    // Without the additions the document is the input's.
    root["meshes"][0]["primitives"][1]["attributes"]
        .as_object_mut()
        .unwrap()
        .remove("_DQS_BLEND");
    for key in ["buffers", "bufferViews", "accessors"] {
        drop_last(&mut root, key, 1);
    }
    assert_eq!(root, json_of(&input));
}

#[test]
fn glb_grows_buffer_zero_and_loads_with_the_values() {
    let input = glb_file();
    let values = [PrimitiveValues {
        mesh: 0,
        primitive: 0,
        values: &BETAS,
    }];
    let out = amend_dqs_blend(&input, AmendTarget::Glb, &values).unwrap();
    assert!(out.bin.is_none());
    let scene = load_gltf_slice(&out.file, None, "amended").unwrap();
    let prim = &scene.meshes[0].primitives[0];
    assert_eq!(prim.dqs_blend.as_deref(), Some(&BETAS[..]));
    assert_eq!(prim.positions.len(), 3);
    let mut root = json_of(&out.file);
    // The old 102 bytes (chunk padded to 104), then the 12 new ones.
    assert_eq!(root["buffers"][0]["byteLength"], json!(116));
    assert_eq!(root["bufferViews"][4]["byteOffset"], json!(104));
    assert_eq!(root["buffers"].as_array().unwrap().len(), 1);
    root["buffers"][0]["byteLength"] = json!(102);
    root["meshes"][0]["primitives"][1]["attributes"]
        .as_object_mut()
        .unwrap()
        .remove("_DQS_BLEND");
    for key in ["bufferViews", "accessors"] {
        drop_last(&mut root, key, 1);
    }
    assert_eq!(root, json_of(&input));
}

#[test]
fn a_second_amend_overwrites_the_old_map_in_place() {
    let first = amend_dqs_blend(
        &glb_file(),
        AmendTarget::Glb,
        &[PrimitiveValues {
            mesh: 0,
            primitive: 0,
            values: &BETAS,
        }],
    )
    .unwrap();
    assert!(first.replaced.is_empty() && first.overwritten.is_empty());
    let again = [0.5f32, 0.5, 0.75];
    let second = amend_dqs_blend(
        &first.file,
        AmendTarget::Glb,
        &[PrimitiveValues {
            mesh: 0,
            primitive: 0,
            values: &again,
        }],
    )
    .unwrap();
    assert!(second.replaced.is_empty());
    assert_eq!(second.overwritten, vec![(0, 1)]);
    // Only the accessor's `min`/`max` text changes length (the JSON chunk pads it to 4 bytes).
    assert!(
        second.file.len().abs_diff(first.file.len()) <= 8,
        "no copy appended"
    );
    let scene = load_gltf_slice(&second.file, None, "twice").unwrap();
    assert_eq!(
        scene.meshes[0].primitives[0].dqs_blend.as_deref(),
        Some(&again[..])
    );
    let (before, after) = (json_of(&first.file), json_of(&second.file));
    let attribute = &after["meshes"][0]["primitives"][1]["attributes"]["_DQS_BLEND"];
    assert_eq!(
        attribute,
        &before["meshes"][0]["primitives"][1]["attributes"]["_DQS_BLEND"]
    );
    let accessor = &after["accessors"][attribute.as_u64().unwrap() as usize];
    assert_eq!(
        (&accessor["min"], &accessor["max"]),
        (&json!([0.5]), &json!([0.75]))
    );
    assert_eq!(
        after["accessors"].as_array().unwrap().len(),
        before["accessors"].as_array().unwrap().len()
    );
}

/// One `.gltf` amend of the skinned primitive with `values`, its `.bin` named `bin_name`.
fn amend_gltf(input: &[u8], bin_name: &str, values: &[f32]) -> Amended {
    let values = [PrimitiveValues {
        mesh: 0,
        primitive: 0,
        values,
    }];
    amend_dqs_blend(input, AmendTarget::Gltf { bin_name }, &values).unwrap()
}

#[test]
fn a_second_gltf_amend_rewrites_the_old_maps_bin_instead_of_adding_one() {
    let input = spelled(&document(Some("geometry.bin".into()), 102));
    let first = amend_gltf(&input, "rig.dqs_blend.bin", &BETAS);
    assert!(first.overwritten.is_empty());
    let again = [0.5f32, 0.5, 0.75];
    let second = amend_gltf(&first.file, "rig.dqs_blend.1.bin", &again);
    assert_eq!(second.overwritten, vec![(0, 1)]);
    assert!(second.replaced.is_empty());
    let (name, bin) = second.bin.clone().unwrap();
    assert_eq!(
        name, "rig.dqs_blend.bin",
        "the old maps' own file, not a new one"
    );
    let written: Vec<f32> = bin
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(written, again);
    let (before, after) = (json_of(&first.file), json_of(&second.file));
    for key in ["buffers", "bufferViews", "accessors"] {
        assert_eq!(
            after[key].as_array().unwrap().len(),
            before[key].as_array().unwrap().len()
        );
    }
    assert_eq!(after["accessors"][4]["max"], json!([0.75]));
    let files: Vec<&str> = second
        .external_files
        .iter()
        .map(|f| f.uri.as_str())
        .collect();
    assert_eq!(
        files,
        ["geometry.bin"],
        "the rewritten .bin is not copied as well"
    );

    // A .bin that also holds geometry is not the map's own: the map is appended as before.
    let mut shared = before.clone();
    shared["bufferViews"][3]["buffer"] = json!(1);
    let third = amend_gltf(
        &shared.to_string().into_bytes(),
        "rig.dqs_blend.1.bin",
        &again,
    );
    assert!(third.overwritten.is_empty());
    assert_eq!(third.replaced, vec![(0, 1)]);
    assert_eq!(third.bin.unwrap().0, "rig.dqs_blend.1.bin");
}

#[test]
fn a_glb_without_a_bin_chunk_gets_a_data_uri_buffer() {
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        BASE64_STANDARD.encode(geometry())
    );
    let json = serde_json::to_vec(&document(Some(uri), 102)).unwrap();
    let input = Glb {
        json,
        bin: None,
        other: Vec::new(),
    }
    .to_bytes()
    .unwrap();
    let out = amend_dqs_blend(
        &input,
        AmendTarget::Glb,
        &[PrimitiveValues {
            mesh: 0,
            primitive: 0,
            values: &BETAS,
        }],
    )
    .unwrap();
    let scene = load_gltf_slice(&out.file, None, "data uri").unwrap();
    assert_eq!(
        scene.meshes[0].primitives[0].dqs_blend.as_deref(),
        Some(&BETAS[..])
    );
    assert_eq!(json_of(&out.file)["bufferViews"][4]["buffer"], json!(1));
}

#[test]
fn mismatches_are_refused_with_a_reason() {
    let values = |v: &'static [f32], primitive| {
        [PrimitiveValues {
            mesh: 0,
            primitive,
            values: v,
        }]
    };
    let message = |input: &[u8], target, v: &[PrimitiveValues<'_>]| {
        amend_dqs_blend(input, target, v).unwrap_err().to_string()
    };
    let gltf = AmendTarget::Gltf { bin_name: "x.bin" };
    assert!(message(&glb_file(), gltf, &values(&BETAS, 0)).contains("must be a .glb"));
    assert!(
        message(&gltf_file(), AmendTarget::Glb, &values(&BETAS, 0)).contains("must be a .gltf")
    );
    assert!(
        message(&gltf_file(), gltf, &values(&[0.5, 0.5], 0)).contains("2 values for 3 vertices")
    );
    assert!(message(&gltf_file(), gltf, &values(&BETAS, 1)).contains("no such primitive"));
    assert!(
        message(&gltf_file(), gltf, &values(&[0.5, f32::NAN, 0.5], 0)).contains("outside 0..1")
    );
    assert!(message(&gltf_file(), gltf, &values(&[0.5, 1.5, 0.5], 0)).contains("outside 0..1"));
    assert!(message(b"{ not json", gltf, &values(&BETAS, 0)).contains("does not parse"));
    assert!(message(b"glTF\x02\0\0\0", AmendTarget::Glb, &values(&BETAS, 0)).contains("GLB"));
}

#[test]
fn centres_are_a_vec3_accessor_with_bounds_per_component() {
    let centres = [0.0, 1.0, -2.0, 3.0, -1.0, 0.5, 1.5, 0.25, 4.0];
    let values = [PrimitiveValues {
        mesh: 0,
        primitive: 0,
        values: &centres,
    }];
    let out = amend_attribute(&glb_file(), AmendTarget::Glb, COR_CENTER_SPEC, &values).unwrap();
    let json = json_of(&out.file);
    // Scene primitive 0 is the file's primitive 1 (the file's first draws points).
    let index = json["meshes"][0]["primitives"][1]["attributes"]["_COR_CENTER"]
        .as_u64()
        .unwrap();
    let accessor = &json["accessors"][index as usize];
    assert_eq!(accessor["type"], "VEC3");
    assert_eq!(accessor["count"], 3);
    assert_eq!(accessor["min"], json!([0.0, -1.0, -2.0]));
    assert_eq!(accessor["max"], json!([3.0, 1.0, 4.0]));
    let view = &json["bufferViews"][accessor["bufferView"].as_u64().unwrap() as usize];
    assert_eq!(view["byteLength"], 36);
    // Any finite centre is allowed; a non-finite one or a short list is refused.
    let bad = [0.0, f32::INFINITY, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    let err = amend_attribute(
        &glb_file(),
        AmendTarget::Glb,
        COR_CENTER_SPEC,
        &[PrimitiveValues {
            mesh: 0,
            primitive: 0,
            values: &bad,
        }],
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("_COR_CENTER value inf is not finite"), "{err}");
    let err = amend_attribute(
        &glb_file(),
        AmendTarget::Glb,
        COR_CENTER_SPEC,
        &[PrimitiveValues {
            mesh: 0,
            primitive: 0,
            values: &centres[..6],
        }],
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("6 values for 3 vertices of 3 each"), "{err}");
}

#[test]
fn external_files_are_listed_with_their_decoded_paths() {
    let mut root = document(Some("geo%20data/rig.bin".into()), 102);
    root["images"] = json!([
        { "uri": "tex.png" },
        { "uri": "../outside.png" },
        { "uri": "data:image/png;base64,AAAA" },
        { "bufferView": 0, "mimeType": "image/png" }
    ]);
    let files = external_files(&root);
    let summary: Vec<(&str, Option<&str>)> = files
        .iter()
        .map(|f| (f.owner.as_str(), f.relative_path.as_deref()))
        .collect();
    assert_eq!(
        summary,
        [
            ("buffer 0", Some("geo data/rig.bin")),
            ("image 0", Some("tex.png")),
            ("image 1", None)
        ]
    );
}

#[test]
fn file_primitives_skip_what_the_loader_drops() {
    let mut root = document(None, 102);
    root["meshes"][0]["primitives"] = json!([
        { "attributes": { "POSITION": 0 } },
        { "mode": 1, "attributes": { "POSITION": 0 } },
        { "mode": 5, "attributes": { "POSITION": 0 } },
        { "attributes": { "NORMAL": 0 } },
        { "mode": 6, "attributes": { "POSITION": 0 } }
    ]);
    assert_eq!(
        file_primitive_indices_of(&root).unwrap(),
        vec![vec![0, 2, 4]]
    );
}

#[test]
fn uri_encoding() {
    assert_eq!(uri_encode("a b#c.bin"), "a%20b%23c.bin");
}
