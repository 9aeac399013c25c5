//! Vertex colours (COLOR_0) and alpha modes through the glTF loader, `dqview inspect` and GLB export.
//!
//! Documents are built here (JSON plus a base64 data-URI buffer), so each
//! expected colour is the integer the test wrote divided by the type's maximum.

mod support;

use std::process::Command;

use dqview::scene::{AlphaMode, Scene, load_gltf_slice, write_glb};
use glam::Vec4;
use serde_json::json;
use support::GltfDoc;

/// Loads a document built by `doc`, unskinned.
fn load(doc: &GltfDoc) -> Scene {
    load_gltf_slice(doc.gltf(false).as_bytes(), None, "test").expect("loads")
}

/// COLOR_0 of mesh `m`'s only primitive.
fn colors(scene: &Scene, m: usize) -> Option<Vec<Vec4>> {
    scene.meshes[m].primitives[0].colors.clone()
}

#[test]
fn u8_rgba_colors_decode_exactly() {
    let mut doc = GltfDoc::default();
    let bytes = [
        255, 0, 0, 255, 128, 64, 1, 0, 0, 255, 51, 204, 10, 20, 30, 40,
    ];
    let c = doc.u8s_normalized(&bytes, "VEC4", 4);
    doc.quad(0.0, Some(c), None);
    let scene = load(&doc);
    let got = colors(&scene, 0).expect("COLOR_0 read");
    let expected: Vec<Vec4> = bytes
        .chunks(4)
        .map(|q| Vec4::from_array([0, 1, 2, 3].map(|k| f32::from(q[k]) / 255.0)))
        .collect();
    assert_eq!(got, expected);
    assert_eq!(got[0], Vec4::new(1.0, 0.0, 0.0, 1.0));
    assert_eq!(got[1].x, 128.0 / 255.0);
    assert_eq!(got[1].w, 0.0);
    assert!(
        !scene.warnings.iter().any(|w| w.contains("COLOR_0")),
        "{:?}",
        scene.warnings
    );
}

#[test]
fn u16_and_float_rgb_colors_decode_with_alpha_one() {
    let mut doc = GltfDoc::default();
    let shorts: [u16; 12] = [65535, 0, 32768, 1, 2, 3, 0, 65535, 0, 100, 200, 300];
    let c16 = doc.u16s_normalized(&shorts, "VEC3", 3);
    doc.quad(0.0, Some(c16), None);
    let floats = [
        0.25, 0.5, 0.75, 1.0, 0.0, 0.125, 0.0, 0.0, 0.0, 0.3, 0.6, 0.9,
    ];
    let cf = doc.f32s(&floats, "VEC3", 3);
    doc.quad(0.0, Some(cf), None);
    let scene = load(&doc);
    let c16 = colors(&scene, 0).expect("u16 COLOR_0");
    assert_eq!(c16[0], Vec4::new(1.0, 0.0, 32768.0 / 65535.0, 1.0));
    assert_eq!(c16[3].y, 200.0 / 65535.0);
    let cf = colors(&scene, 1).expect("float COLOR_0");
    assert_eq!(cf[0], Vec4::new(0.25, 0.5, 0.75, 1.0));
    assert_eq!(cf[3], Vec4::new(0.3, 0.6, 0.9, 1.0));
    assert!(cf.iter().all(|c| c.w == 1.0), "RGB colours get alpha 1");
}

#[test]
fn primitives_without_color_0_have_none() {
    let mut doc = GltfDoc::default();
    doc.quad(0.0, None, None);
    assert_eq!(colors(&load(&doc), 0), None);
}

#[test]
fn alpha_modes_and_cutoffs_parse() {
    let mut doc = GltfDoc::default();
    for material in [
        json!({}),
        json!({"alphaMode": "OPAQUE", "alphaCutoff": 0.9}),
        json!({"alphaMode": "MASK"}),
        json!({"alphaMode": "MASK", "alphaCutoff": 0.25}),
        json!({"alphaMode": "BLEND"}),
    ] {
        let m = doc.material(material);
        doc.quad(0.0, None, Some(m));
    }
    let scene = load(&doc);
    let modes: Vec<AlphaMode> = scene.materials.iter().map(|m| m.alpha_mode).collect();
    assert_eq!(
        modes,
        [
            AlphaMode::Opaque,
            AlphaMode::Opaque,
            AlphaMode::Mask { cutoff: 0.5 },
            AlphaMode::Mask { cutoff: 0.25 },
            AlphaMode::Blend,
        ]
    );
    assert_eq!(modes[2].cutoff(), Some(AlphaMode::DEFAULT_CUTOFF));
    assert_eq!(modes[4].cutoff(), None);
}

#[test]
fn unknown_alpha_mode_and_negative_cutoff_warn() {
    let mut doc = GltfDoc::default();
    let a = doc.material(json!({"alphaMode": "GLASS"}));
    let b = doc.material(json!({"alphaMode": "MASK", "alphaCutoff": -1.0}));
    doc.quad(0.0, None, Some(a));
    doc.quad(0.0, None, Some(b));
    let scene = load(&doc);
    assert_eq!(scene.materials[0].alpha_mode, AlphaMode::Opaque);
    assert_eq!(
        scene.materials[1].alpha_mode,
        AlphaMode::Mask { cutoff: 0.5 }
    );
    assert!(
        scene.warnings.iter().any(|w| w.contains("alphaMode")),
        "{:?}",
        scene.warnings
    );
    assert!(
        scene.warnings.iter().any(|w| w.contains("alphaCutoff")),
        "{:?}",
        scene.warnings
    );
    assert_eq!(scene.sanitized, 1);
}

/// Loads `doc` (which must not fail) and returns its warnings mentioning COLOR_0.
fn color_warnings(doc: &GltfDoc) -> Vec<String> {
    let scene = load(doc);
    assert_eq!(colors(&scene, 0), None, "a broken COLOR_0 is dropped");
    assert_eq!(
        scene.meshes[0].primitives[0].positions.len(),
        4,
        "the mesh stays"
    );
    scene
        .warnings
        .into_iter()
        .filter(|w| w.contains("COLOR_0"))
        .collect()
}

#[test]
fn malformed_color_0_is_a_warning_not_a_failure() {
    // Wrong element type (VEC2).
    let mut doc = GltfDoc::default();
    let c = doc.f32s(&[0.5; 8], "VEC2", 2);
    doc.quad(0.0, Some(c), None);
    let w = color_warnings(&doc);
    assert!(w.iter().any(|w| w.contains("Vec2")), "{w:?}");

    // Wrong component type (signed bytes).
    let mut doc = GltfDoc::default();
    let c = doc.accessor(&[1u8; 16], 5120, 4, "VEC4");
    doc.quad(0.0, Some(c), None);
    assert_eq!(color_warnings(&doc).len(), 1);

    // An accessor index past the end.
    let mut doc = GltfDoc::default();
    doc.quad(0.0, Some(99), None);
    let w = color_warnings(&doc);
    assert!(w.iter().any(|w| w.contains("99")), "{w:?}");

    // An accessor reading past its buffer view.
    let mut doc = GltfDoc::default();
    let c = doc.quad_colors([1.0; 4]);
    doc.quad(0.0, Some(c), None);
    doc.accessors[c]["byteOffset"] = json!(1_000_000);
    assert_eq!(color_warnings(&doc).len(), 1);

    // One colour per vertex, but a count of 3 for 4 vertices.
    let mut doc = GltfDoc::default();
    let c = doc.f32s(&[1.0; 12], "VEC4", 4);
    doc.quad(0.0, Some(c), None);
    assert_eq!(color_warnings(&doc).len(), 1);
}

#[test]
fn non_finite_colors_become_white_and_are_counted() {
    let mut doc = GltfDoc::default();
    let values = [
        0.5,
        0.5,
        0.5,
        1.0,
        f32::NAN,
        0.0,
        0.0,
        1.0,
        0.0,
        f32::INFINITY,
        0.0,
        1.0,
        0.1,
        0.2,
        0.3,
        0.4,
    ];
    let c = doc.f32s(&values, "VEC4", 4);
    doc.quad(0.0, Some(c), None);
    let scene = load(&doc);
    let got = colors(&scene, 0).expect("kept");
    assert_eq!(got[1], Vec4::ONE);
    assert_eq!(got[2], Vec4::ONE);
    assert_eq!(got[3], Vec4::new(0.1, 0.2, 0.3, 0.4));
    assert_eq!(scene.sanitized, 2);
    let [fault] = scene.faults.as_slice() else {
        panic!("one fault: {:?}", scene.faults);
    };
    assert_eq!(fault.kind, dqview::scene::FaultKind::NonFiniteColors);
    assert_eq!((fault.count, fault.first), (2, Some(1)));
    assert!(
        fault.message().contains("vertex colours"),
        "{}",
        fault.message()
    );
}

#[test]
fn unnormalized_integer_colors_are_read_as_normalized_with_a_warning() {
    let mut doc = GltfDoc::default();
    let c = doc.accessor(&[255u8, 0, 0, 255].repeat(4), 5121, 4, "VEC4");
    doc.quad(0.0, Some(c), None);
    let scene = load(&doc);
    assert_eq!(
        colors(&scene, 0).expect("read")[0],
        Vec4::new(1.0, 0.0, 0.0, 1.0)
    );
    assert!(
        scene.warnings.iter().any(|w| w.contains("normalized")),
        "{:?}",
        scene.warnings
    );
}

#[test]
fn glb_export_keeps_colors_and_alpha_modes() {
    let mut doc = GltfDoc::default();
    let mask = doc.material(json!({"alphaMode": "MASK", "alphaCutoff": 0.3}));
    let blend = doc.material(json!({"alphaMode": "BLEND"}));
    let c = doc.u8s_normalized(&[255, 128, 0, 51].repeat(4), "VEC4", 4);
    doc.quad(0.0, Some(c), Some(mask));
    doc.quad(0.5, None, Some(blend));
    let scene = load(&doc);
    let back = load_gltf_slice(&write_glb(&scene).expect("writes"), None, "back").expect("loads");
    assert_eq!(colors(&back, 0), colors(&scene, 0));
    assert_eq!(colors(&back, 1), None);
    let modes: Vec<AlphaMode> = back.materials.iter().map(|m| m.alpha_mode).collect();
    assert_eq!(modes, [AlphaMode::Mask { cutoff: 0.3 }, AlphaMode::Blend]);
}

#[test]
fn inspect_reports_vertex_colors_and_alpha_modes() {
    let mut doc = GltfDoc::default();
    let mask = doc.material(json!({"name": "leaves", "alphaMode": "MASK"}));
    let blend = doc.material(json!({"name": "glass", "alphaMode": "BLEND"}));
    let c = doc.u8s_normalized(&[255, 0, 0, 255].repeat(4), "VEC4", 4);
    doc.quad(0.0, Some(c), Some(mask));
    doc.quad(0.5, None, Some(blend));
    let dir = std::env::temp_dir().join(format!("dqview-colors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("colors.gltf");
    std::fs::write(&path, doc.gltf(false)).expect("write");
    let path = path.to_str().expect("utf-8");
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_dqview"))
            .args(args)
            .output()
            .expect("run dqview");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let f: serde_json::Value =
        serde_json::from_str(&run(&["inspect", path, "--json"])).expect("JSON");
    let prims = f["primitive_list"].as_array().expect("primitive_list");
    assert_eq!(prims.len(), 2);
    assert_eq!(prims[0]["vertex_colors"], json!(true));
    assert_eq!(prims[1]["vertex_colors"], json!(false));
    assert_eq!(prims[1]["material"], json!(1));
    assert_eq!(f["materials"][0]["alpha_mode"], json!("MASK"));
    assert_eq!(f["materials"][0]["alpha_cutoff"], json!(0.5));
    assert_eq!(f["materials"][1]["alpha_mode"], json!("BLEND"));
    assert_eq!(f["materials"][1]["alpha_cutoff"], json!(null));
    let text = run(&["inspect", path]);
    assert!(
        text.contains("1 of 2 primitives have vertex colours"),
        "{text}"
    );
    assert!(
        text.contains("primitive 0: 4 vertices, vertex colours, material 0"),
        "{text}"
    );
    assert!(text.contains("\"leaves\": MASK (cutoff 0.5)"), "{text}");
    assert!(text.contains("\"glass\": BLEND"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
