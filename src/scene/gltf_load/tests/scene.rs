//! Whole-scene conversion: nodes, roots, skins, materials, textures, animations, extensions.

use glam::{Mat4, Quat, Vec3};
use serde_json::json;

use super::fixtures::{Fixture, QUAD_POSITIONS, load, one_mesh};
use crate::scene::{Interpolation, NodeTransform, Property};

#[test]
fn an_unknown_required_extension_refuses_the_file_and_an_optional_one_is_a_note() {
    let mut f = Fixture::default();
    let pos = f.f32s(&QUAD_POSITIONS[..9], "VEC3");
    let mut root = one_mesh(json!({"POSITION": pos}), None);
    root["extensionsUsed"] = json!(["KHR_materials_volume", "EXT_made_up"]);
    root["extensionsRequired"] = json!(["EXT_made_up"]);
    let err = load(&f.gltf(root.clone())).expect_err("refused");
    assert!(
        err.to_string()
            .contains("requires the glTF extension EXT_made_up"),
        "{err}"
    );
    root["extensionsRequired"] = json!([]);
    let scene = load(&f.gltf(root)).unwrap();
    assert_eq!(scene.meshes[0].primitives.len(), 1);
    for ext in ["KHR_materials_volume", "EXT_made_up"] {
        let expected =
            format!("glTF extension {ext} is used by the file but not read (optional: ignored)");
        assert!(scene.notes.contains(&expected), "{:?}", scene.notes);
    }
}

#[test]
fn nodes_keep_names_transforms_and_hierarchy() {
    let matrix: Vec<f32> = Mat4::from_translation(Vec3::new(1.0, 2.0, 3.0))
        .to_cols_array()
        .to_vec();
    let root = json!({
        "scene": 1,
        "scenes": [{"nodes": [2]}, {"nodes": [0, 3, 0]}],
        "nodes": [
            {"name": "hips", "children": [1], "matrix": matrix},
            {"translation": [0.0, 1.0, 0.0], "rotation": [0.0, 0.0, 2.0, 0.0], "scale": [2.0, 2.0, 2.0]},
            {},
            {"rotation": [0.0, 0.0, 0.0, 0.0]},
        ],
    });
    let scene = load(&Fixture::default().gltf(root)).unwrap();
    assert_eq!(scene.roots, vec![0, 3], "default scene, duplicates dropped");
    assert_eq!(scene.nodes[0].name, "hips");
    assert_eq!(scene.nodes[1].name, "node 1");
    assert_eq!(scene.nodes[0].children, vec![1]);
    assert_eq!(scene.nodes[1].parent, Some(0));
    assert_eq!(
        scene.nodes[0].transform,
        NodeTransform::Matrix(Mat4::from_cols_slice(&matrix))
    );
    let NodeTransform::Trs(trs) = scene.nodes[1].transform else {
        panic!("node 1 should be TRS");
    };
    assert_eq!(trs.translation, Vec3::Y);
    assert!(
        (trs.rotation.length() - 1.0).abs() < 1e-6,
        "rotation is normalised"
    );
    assert_eq!(trs.rotation, Quat::from_xyzw(0.0, 0.0, 1.0, 0.0));
    let NodeTransform::Trs(zero_rotation) = scene.nodes[3].transform else {
        panic!("node 3 should be TRS");
    };
    assert_eq!(zero_rotation.rotation, Quat::IDENTITY);
    assert!(
        scene
            .faults
            .iter()
            .any(|f| f.kind == crate::scene::FaultKind::ZeroRotationKeys
                && f.place == "nodes"
                && f.first == Some(3)),
        "{:?}",
        scene.faults
    );
}

#[test]
fn skins_read_inverse_bind_matrices_and_replace_non_finite_ones() {
    let mut f = Fixture::default();
    let mut ibm = Mat4::from_translation(Vec3::X).to_cols_array().to_vec();
    let mut bad = Mat4::IDENTITY.to_cols_array().to_vec();
    bad[5] = f32::NAN;
    ibm.extend(bad);
    ibm.extend(Mat4::IDENTITY.to_cols_array()); // one more than the joints: allowed
    let acc = f.f32s(&ibm, "MAT4");
    let root = json!({
        "nodes": [{"children": [1]}, {}],
        "skins": [{"joints": [0, 1], "inverseBindMatrices": acc, "skeleton": 0, "name": "rig"}],
    });
    let scene = load(&f.gltf(root)).unwrap();
    let skin = &scene.skins[0];
    assert_eq!(skin.name, "rig");
    assert_eq!(skin.joints, vec![0, 1]);
    assert_eq!(skin.skeleton, Some(0));
    assert_eq!(
        skin.inverse_bind,
        vec![Mat4::from_translation(Vec3::X), Mat4::IDENTITY]
    );
    let [fault] = scene.faults.as_slice() else {
        panic!("one fault: {:?}", scene.faults);
    };
    assert_eq!(fault.kind, crate::scene::FaultKind::NonFiniteBindMatrices);
    assert_eq!(fault.place, "skin 0 \"rig\"");
    assert_eq!((fault.count, fault.first), (1, Some(1)));
}

/// A 2x2 PNG, encoded with the image crate.
fn tiny_png() -> Vec<u8> {
    let img = image::RgbaImage::from_fn(2, 2, |x, y| {
        image::Rgba([x as u8 * 255, y as u8 * 255, 7, 255])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

#[test]
fn materials_decode_base_colour_textures_once_and_warn_on_bad_images() {
    let mut f = Fixture::default();
    let png = f.view(&tiny_png());
    let junk = f.view(b"definitely not an image");
    let root = json!({
        "images": [{"bufferView": png, "mimeType": "image/png"}, {"bufferView": junk, "mimeType": "image/png"}],
        "textures": [{"source": 0}, {"source": 1}, {"source": 0}],
        "materials": [
            {"name": "skin", "pbrMetallicRoughness": {"baseColorFactor": [0.5, 0.25, 1.0, 1.0], "baseColorTexture": {"index": 0}}, "doubleSided": true},
            {"pbrMetallicRoughness": {"baseColorTexture": {"index": 1}}},
            {"pbrMetallicRoughness": {"baseColorTexture": {"index": 2, "texCoord": 1}}},
        ],
    });
    let scene = load(&f.gltf(root)).unwrap();
    assert_eq!(scene.textures.len(), 1, "image 0 decoded once");
    let tex = &scene.textures[0];
    assert_eq!((tex.width, tex.height), (2, 2));
    assert_eq!(&tex.rgba8[..8], &[0, 0, 7, 255, 255, 0, 7, 255]);
    let m = &scene.materials;
    assert_eq!(m[0].name, "skin");
    assert_eq!(m[0].base_color_factor.to_array(), [0.5, 0.25, 1.0, 1.0]);
    assert_eq!(m[0].base_color_texture, Some(0));
    assert!(m[0].double_sided);
    assert_eq!(m[1].name, "material 1");
    assert_eq!(m[1].base_color_texture, None);
    assert_eq!(m[2].base_color_texture, Some(0));
    assert!(
        scene.warnings.iter().any(|w| w.starts_with("image 1:")),
        "{:?}",
        scene.warnings
    );
    // TEXCOORD_1 is read by the primitives that use the material, so no warning here.
    assert!(!scene.warnings.iter().any(|w| w.contains("TEXCOORD_1")));
}

#[test]
fn animations_keep_cubic_triplets_and_sanitise_keys() {
    let mut f = Fixture::default();
    let times = f.f32s(&[0.0, 1.0, 0.5], "SCALAR");
    let mut cubic = Vec::new();
    for k in 0..3 {
        let v = k as f32;
        cubic.extend([-1.0, -1.0, -1.0, v, v, v, 1.0, 1.0, 1.0]);
    }
    cubic[4] = f32::NAN; // first key's value.y
    let out = f.f32s(&cubic, "VEC3");
    let rot = f.f32s(
        &[
            0.0,
            0.0,
            0.0,
            1.0,
            0.0,
            f32::INFINITY,
            0.0,
            1.0,
            0.0,
            0.0,
            1.0,
            0.0,
        ],
        "VEC4",
    );
    let root = json!({
        "nodes": [{}],
        "animations": [{"name": "walk", "samplers": [
            {"input": times, "output": out, "interpolation": "CUBICSPLINE"},
            {"input": times, "output": rot, "interpolation": "STEP"},
        ], "channels": [
            {"sampler": 0, "target": {"node": 0, "path": "scale"}},
            {"sampler": 1, "target": {"node": 0, "path": "rotation"}},
        ]}, {"samplers": [], "channels": []}],
    });
    let scene = load(&f.gltf(root)).unwrap();
    assert_eq!(scene.animations[0].name, "walk");
    assert_eq!(scene.animations[1].name, "clip 1");
    let scale = &scene.animations[0].channels[0];
    assert_eq!(scale.property, Property::Scale);
    assert_eq!(scale.interpolation, Interpolation::CubicSpline);
    assert_eq!(
        scale.times_s,
        vec![0.0, 1.0, 1.0],
        "decreasing time clamped"
    );
    assert_eq!(scale.values.len(), 27);
    assert_eq!(
        &scale.values[..9],
        &[-1.0, -1.0, -1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0]
    );
    let rot = &scene.animations[0].channels[1];
    assert_eq!(rot.interpolation, Interpolation::Step);
    assert_eq!(
        &rot.values[4..8],
        &[0.0, 0.0, 0.0, 1.0],
        "previous key's value"
    );
    // The decreasing times are warnings; the non-finite values are faults.
    let warned: Vec<&String> = scene
        .warnings
        .iter()
        .filter(|w| w.starts_with("animation 0"))
        .collect();
    let faults: Vec<String> = scene.faults.iter().map(|f| f.message()).collect();
    assert_eq!(
        (warned.len(), faults.len()),
        (2, 2),
        "{warned:?} {faults:?}"
    );
}

#[test]
fn morph_weight_channels_use_the_target_count() {
    let mut f = Fixture::default();
    let pos = f.f32s(&QUAD_POSITIONS[..9], "VEC3");
    let d0 = f.f32s(&[0.0; 9], "VEC3");
    let d1 = f.f32s(&[0.0; 9], "VEC3");
    let times = f.f32s(&[0.0, 2.0], "SCALAR");
    let weights = f.u8s(&[0, 255, 255, 0], "SCALAR");
    f.accessors[weights]["normalized"] = json!(true);
    let mut root = one_mesh(json!({"POSITION": pos}), None);
    root["meshes"][0]["primitives"][0]["targets"] = json!([{"POSITION": d0}, {"POSITION": d1}]);
    root["meshes"][0]["weights"] = json!([0.25, 0.5]);
    root["nodes"] = json!([{"mesh": 0}, {}]);
    root["animations"] = json!([{"samplers": [{"input": times, "output": weights}], "channels": [
        {"sampler": 0, "target": {"node": 0, "path": "weights"}},
        {"sampler": 0, "target": {"node": 1, "path": "weights"}},
    ]}]);
    let scene = load(&f.gltf(root)).unwrap();
    assert_eq!(scene.meshes[0].primitives[0].morph_targets.len(), 2);
    assert_eq!(scene.meshes[0].morph_weights, vec![0.25, 0.5]);
    let channels = &scene.animations[0].channels;
    assert_eq!(channels.len(), 1, "node 1 has no mesh: dropped");
    assert_eq!(channels[0].property, Property::MorphWeights(2));
    assert_eq!(channels[0].components(), 2);
    assert_eq!(channels[0].values, vec![0.0, 1.0, 1.0, 0.0]);
    assert!(scene.warnings.iter().any(|w| w.contains("channel 1")));
}

#[test]
fn oversized_images_are_skipped_with_a_warning() {
    let mut f = Fixture::default();
    let wide = image::RgbaImage::new(16385, 1);
    let mut png = std::io::Cursor::new(Vec::new());
    wide.write_to(&mut png, image::ImageFormat::Png).unwrap();
    let view = f.view(&png.into_inner());
    let root = json!({
        "images": [{"bufferView": view, "mimeType": "image/png"}],
        "textures": [{"source": 0}],
        "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
    });
    let scene = load(&f.gltf(root)).unwrap();
    assert!(scene.textures.is_empty());
    assert_eq!(scene.materials[0].base_color_texture, None);
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.contains("16385x1 pixels is larger than 16384x16384")),
        "{:?}",
        scene.warnings
    );
}

#[test]
fn morph_deltas_names_and_node_weights_load() {
    let mut f = Fixture::default();
    let pos = f.f32s(&QUAD_POSITIONS[..9], "VEC3");
    let d0 = f.f32s(&[0.0, 0.0, 1.0, 0.0, 0.0, 2.0, 0.0, 0.0, 3.0], "VEC3");
    // Target 1 is KHR_mesh_quantization data: normalised i16, padded to a 4-byte stride.
    let quantized: [[i16; 3]; 3] = [[32767, 0, 0], [-32767, 0, 0], [0, 16384, 0]];
    let bytes: Vec<u8> = quantized
        .iter()
        .flat_map(|v| {
            v.iter()
                .chain(&[0])
                .flat_map(|c| c.to_le_bytes())
                .collect::<Vec<_>>()
        })
        .collect();
    let view = f.view(&bytes);
    f.views[view]["byteStride"] = json!(8);
    let d1 = f.accessor(
        json!({"bufferView": view, "componentType": 5122, "normalized": true, "count": 3, "type": "VEC3"}),
    );
    let mut root = one_mesh(json!({"POSITION": pos}), None);
    root["meshes"][0]["primitives"][0]["targets"] = json!([{"POSITION": d0}, {"NORMAL": d1}]);
    root["meshes"][0]["weights"] = json!([0.25, 0.5]);
    root["meshes"][0]["extras"] = json!({"targetNames": ["lift", "turn"]});
    root["nodes"] = json!([{"mesh": 0, "weights": [1.0, 0.0]}]);
    root["extensionsUsed"] = json!(["KHR_mesh_quantization"]);
    root["extensionsRequired"] = json!(["KHR_mesh_quantization"]);
    let scene = load(&f.gltf(root)).unwrap();
    let targets = &scene.meshes[0].primitives[0].morph_targets;
    assert_eq!(targets.len(), 2);
    assert_eq!(targets[0].name, "lift");
    assert_eq!(targets[1].name, "turn");
    assert_eq!(targets[0].positions[2], Vec3::new(0.0, 0.0, 3.0));
    assert!(targets[0].normals.is_empty() && targets[1].positions.is_empty());
    assert_eq!(targets[1].normals[0], Vec3::X);
    assert_eq!(targets[1].normals[1], -Vec3::X);
    assert!((targets[1].normals[2].y - 16384.0 / 32767.0).abs() < 1e-7);
    assert_eq!(scene.nodes[0].morph_weights, vec![1.0, 0.0]);
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
}

#[test]
fn base_colour_texture_set_and_transform_are_baked_into_uvs() {
    let mut f = Fixture::default();
    let pos = f.f32s(&QUAD_POSITIONS[..9], "VEC3");
    let uv0 = f.f32s(&[0.0; 6], "VEC2");
    let uv1 = f.f32s(&[0.0, 0.0, 1.0, 0.0, 0.5, 0.5], "VEC2");
    let mut root = one_mesh(
        json!({"POSITION": pos, "TEXCOORD_0": uv0, "TEXCOORD_1": uv1}),
        None,
    );
    root["meshes"][0]["primitives"][0]["material"] = json!(0);
    root["materials"] = json!([{"pbrMetallicRoughness": {"baseColorTexture": {
        "index": 0, "texCoord": 0,
        "extensions": {"KHR_texture_transform": {
            "texCoord": 1, "offset": [0.5, 0.0], "rotation": std::f32::consts::FRAC_PI_2, "scale": [2.0, 2.0]
        }}
    }}}]);
    root["textures"] = json!([{"source": 0}]);
    // Not an image: the material loses its texture (a warning), the coordinates are still baked.
    root["images"] = json!([{"uri": "data:image/png;base64,AAAA"}]);
    root["extensionsUsed"] = json!(["KHR_texture_transform"]);
    root["extensionsRequired"] = json!(["KHR_texture_transform"]);
    let scene = load(&f.gltf(root)).unwrap();
    let uvs = scene.meshes[0].primitives[0].uvs.as_ref().unwrap();
    // TEXCOORD_1, scaled by 2, rotated so (u, v) -> (v, -u), then offset by (0.5, 0).
    let expected = [[0.5, 0.0], [0.5, -2.0], [1.5, -1.0]];
    for (got, want) in uvs.iter().zip(expected) {
        assert!(
            got.abs_diff_eq(glam::Vec2::from_array(want), 1e-6),
            "{got} vs {want:?}"
        );
    }
    assert!(
        !scene
            .warnings
            .iter()
            .any(|w| w.contains("KHR_texture_transform")),
        "{:?}",
        scene.warnings
    );
}
