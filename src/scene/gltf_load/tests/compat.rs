//! Valid or common files that need more than the gltf crate's defaults: repairs and extensions.

use glam::Vec3;
use serde_json::json;

use super::fixtures::{Fixture, QUAD_POSITIONS, load, one_mesh};
use crate::scene::{Property, load_gltf_slice};

/// A scene with one node and an animation whose channels are given.
fn animated(f: &mut Fixture, channels: serde_json::Value) -> serde_json::Value {
    let times = f.f32s(&[0.0, 1.0], "SCALAR");
    let out = f.f32s(&[0.0; 6], "VEC3");
    json!({
        "nodes": [{}],
        "animations": [{"samplers": [{"input": times, "output": out}], "channels": channels}],
    })
}

#[test]
fn channels_without_a_node_are_dropped_in_json_and_glb() {
    let mut f = Fixture::default();
    let root = animated(
        &mut f,
        json!([
            {"sampler": 0, "target": {"path": "pointer", "extensions": {"KHR_animation_pointer": {"pointer": "/materials/0/alphaCutoff"}}}},
            {"sampler": 0, "target": {"node": 0, "path": "translation"}},
        ]),
    );
    for scene in [
        load(&f.gltf(root.clone())).unwrap(),
        load_gltf_slice(&f.glb(root), None, "glb").unwrap(),
    ] {
        let channels = &scene.animations[0].channels;
        assert_eq!(channels.len(), 1);
        assert_eq!(channels[0].property, Property::Translation);
        assert!(
            scene
                .warnings
                .iter()
                .any(|w| w.contains("1 channels target no node")),
            "{:?}",
            scene.warnings
        );
    }
}

#[test]
fn unknown_target_paths_are_dropped() {
    let mut f = Fixture::default();
    let root = animated(
        &mut f,
        json!([{"sampler": 0, "target": {"node": 0, "path": "pointer"}}]),
    );
    let scene = load(&f.gltf(root)).unwrap();
    assert!(scene.animations[0].channels.is_empty());
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.contains("channel 0: target path"))
    );
}

#[test]
fn integers_written_as_floats_are_read() {
    let mut f = Fixture::default();
    let pos = f.f32s(&QUAD_POSITIONS[..9], "VEC3");
    f.accessors[pos]["count"] = json!(3.0);
    let scene = load(&f.gltf(one_mesh(json!({"POSITION": pos}), None))).unwrap();
    assert_eq!(scene.meshes[0].primitives[0].positions.len(), 3);
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.contains("read as integers"))
    );
    // A genuinely fractional count is still an error.
    f.accessors[pos]["count"] = json!(2.5);
    assert!(load(&f.gltf(one_mesh(json!({"POSITION": pos}), None))).is_err());
}

/// A 2x1 lossless WebP: red, then half-transparent blue.
fn tiny_webp() -> Vec<u8> {
    let pixels = [255u8, 0, 0, 255, 0, 0, 255, 128];
    let mut out = Vec::new();
    image::codecs::webp::WebPEncoder::new_lossless(&mut out)
        .encode(&pixels, 2, 1, image::ExtendedColorType::Rgba8)
        .expect("encode");
    out
}

#[test]
fn webp_textures_decode_over_their_fallback_and_ktx2_shows_the_factor() {
    let mut f = Fixture::default();
    let webp = f.view(&tiny_webp());
    let root = json!({
        "extensionsUsed": ["EXT_texture_webp", "KHR_texture_basisu"],
        "extensionsRequired": ["EXT_texture_webp"],
        "textures": [
            {"extensions": {"EXT_texture_webp": {"source": 0}}},
            {"extensions": {"KHR_texture_basisu": {"source": 1}}},
        ],
        "images": [
            {"bufferView": webp, "mimeType": "image/webp"},
            {"uri": "never_read.ktx2", "mimeType": "image/ktx2"},
        ],
        "materials": [
            {"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}},
            {"pbrMetallicRoughness": {"baseColorFactor": [0.2, 0.4, 0.6, 1.0], "baseColorTexture": {"index": 1}}},
        ],
    });
    let scene = load(&f.gltf(root)).unwrap();
    assert_eq!(scene.materials[0].base_color_texture, Some(0));
    let tex = &scene.textures[0];
    assert_eq!((tex.width, tex.height), (2, 1));
    assert_eq!(
        tex.rgba8,
        [255, 0, 0, 255, 0, 0, 255, 128],
        "lossless WebP, alpha kept"
    );
    assert_eq!(scene.materials[1].base_color_texture, None);
    assert_eq!(
        scene.materials[1].base_color_factor.to_array(),
        [0.2, 0.4, 0.6, 1.0]
    );
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.starts_with("texture 1: its only image is KTX2")),
        "{:?}",
        scene.warnings
    );
    assert!(
        scene.notes.iter().any(|n| n.contains("KHR_texture_basisu")),
        "{:?}",
        scene.notes
    );
}

#[test]
fn quantized_attributes_are_dequantized() {
    let mut f = Fixture::default();
    let positions: Vec<u8> = [0i16, 0, 0, 100, 0, 0, 0, -100, 0, 0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    // VEC3 of shorts padded to 8 bytes per element, as the extension requires.
    let view = f.view(
        &[
            &positions[..6],
            &[0, 0],
            &positions[6..12],
            &[0, 0],
            &positions[12..18],
            &[0, 0],
        ]
        .concat(),
    );
    f.views[view]["byteStride"] = json!(8);
    let pos =
        f.accessor(json!({"bufferView": view, "componentType": 5122, "count": 3, "type": "VEC3"}));
    let normals = f.view(&[0, 0, 127, 0, 0, 0, 127, 0, 0, 0, 129, 0]);
    f.views[normals]["byteStride"] = json!(4);
    let nrm = f.accessor(json!({"bufferView": normals, "componentType": 5120, "count": 3, "type": "VEC3", "normalized": true}));
    let uv = f.u8s(&[0, 0, 2, 0, 0, 4], "VEC2");
    let mut root = one_mesh(
        json!({"POSITION": pos, "NORMAL": nrm, "TEXCOORD_0": uv}),
        None,
    );
    root["extensionsUsed"] = json!(["KHR_mesh_quantization"]);
    root["extensionsRequired"] = json!(["KHR_mesh_quantization"]);
    let scene = load(&f.gltf(root)).unwrap();
    let prim = &scene.meshes[0].primitives[0];
    assert_eq!(
        prim.positions,
        vec![
            Vec3::ZERO,
            Vec3::new(100.0, 0.0, 0.0),
            Vec3::new(0.0, -100.0, 0.0)
        ]
    );
    assert_eq!(prim.normals, vec![Vec3::Z, Vec3::Z, Vec3::NEG_Z]);
    // Not normalised: the integers as they are (KHR_texture_transform would scale them).
    assert_eq!(prim.uvs.as_ref().unwrap()[2], glam::Vec2::new(0.0, 4.0));
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
}

#[test]
fn bytes_after_the_glb_length_are_ignored() {
    let mut f = Fixture::default();
    let pos = f.f32s(&QUAD_POSITIONS[..9], "VEC3");
    let mut glb = f.glb(one_mesh(json!({"POSITION": pos}), None));
    glb.extend_from_slice(b"trailing junk");
    let scene = load_gltf_slice(&glb, None, "glb").unwrap();
    assert_eq!(scene.meshes[0].primitives[0].positions.len(), 3);
}
