//! Bad files: each gives a `SceneError` naming the object, never a panic or a huge allocation.

use serde_json::json;

use super::fixtures::{Fixture, QUAD_INDICES, QUAD_POSITIONS, U32, glb_bytes, load, one_mesh};
use crate::scene::{SceneError, load_gltf_slice};

#[test]
fn accessor_count_beyond_its_buffer_is_refused_before_reading() {
    let mut f = Fixture::default();
    let pos = f.f32s(&QUAD_POSITIONS[..12], "VEC3");
    // Four billion VEC3s would be 48 GB: the check must come before any allocation.
    f.accessors[pos]["count"] = json!(4_000_000_000u64);
    let err = load(&f.gltf(one_mesh(json!({"POSITION": pos}), None))).unwrap_err();
    match err {
        SceneError::AccessorOutOfBounds {
            accessor,
            part,
            needed,
            available,
            ..
        } => {
            assert_eq!(accessor, pos);
            assert_eq!(part, "elements");
            assert_eq!(needed, 48_000_000_000);
            assert_eq!(available, 48);
        }
        other => panic!("unexpected {other}"),
    }
}

#[test]
fn huge_accessor_without_buffer_view_is_refused() {
    let mut f = Fixture::default();
    let pos = f.accessor(json!({"componentType": 5126, "count": 4_000_000_000u64, "type": "VEC3"}));
    let err = load(&f.gltf(one_mesh(json!({"POSITION": pos}), None))).unwrap_err();
    assert!(
        matches!(err, SceneError::AccessorInvalid { accessor: 0, .. }),
        "{err}"
    );
}

#[test]
fn joint_index_beyond_the_skin_names_the_accessor() {
    let mut f = Fixture::default();
    let pos = f.f32s(&QUAD_POSITIONS[..9], "VEC3");
    // Joint 5 carries weight; joint 9 has weight 0 and is ignored.
    let joints = f.u8s(&[0, 9, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0], "VEC4");
    let weights = f.f32s(
        &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
        "VEC4",
    );
    let mut root = one_mesh(
        json!({"POSITION": pos, "JOINTS_0": joints, "WEIGHTS_0": weights}),
        None,
    );
    root["nodes"] = json!([{"mesh": 0, "skin": 0}, {}, {}]);
    root["skins"] = json!([{"joints": [1, 2]}]);
    let err = load(&f.gltf(root)).unwrap_err();
    match &err {
        SceneError::JointIndexOutOfRange {
            mesh: 0,
            primitive: 0,
            accessor,
            joint: 5,
            joints: 2,
            skin: 0,
            node: 0,
        } => {
            assert_eq!(*accessor, joints);
        }
        other => panic!("unexpected {other}"),
    }
    assert!(
        err.to_string()
            .contains(&format!("JOINTS accessor {joints}")),
        "{err}"
    );
}

#[test]
fn truncated_and_malformed_glb_are_refused() {
    let mut f = Fixture::default();
    let pos = f.f32s(&QUAD_POSITIONS[..9], "VEC3");
    let glb = f.glb(one_mesh(json!({"POSITION": pos}), None));
    assert!(load_gltf_slice(&glb, None, "ok").is_ok());
    for cut in [glb.len() - 1, glb.len() / 2, 20, 12, 11, 5, 4] {
        let err = load_gltf_slice(&glb[..cut], None, "cut").unwrap_err();
        assert!(
            matches!(err, SceneError::GlbLength { .. } | SceneError::Gltf(_)),
            "{cut}: {err}"
        );
    }
    // A declared length below the header size: gltf would underflow computing the rest.
    let mut tiny = glb.clone();
    tiny[8..12].copy_from_slice(&3u32.to_le_bytes());
    assert!(matches!(
        load_gltf_slice(&tiny, None, "t"),
        Err(SceneError::GlbLength { declared: 3, .. })
    ));
    // A BIN chunk shorter than the buffer's byteLength.
    let short = glb_bytes(
        &format!(
            r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":{}}}]}}"#,
            64
        ),
        &[0; 8],
    );
    assert!(matches!(
        load_gltf_slice(&short, None, "s"),
        Err(SceneError::BufferTooShort {
            buffer: 0,
            declared: 64,
            ..
        })
    ));
}

#[test]
fn bytes_that_are_not_gltf_are_refused() {
    for bytes in [
        &b""[..],
        b"hello world",
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
        b"{\"asset\": 3}",
        b"[1, 2]",
        b"glTF",
    ] {
        let err = load_gltf_slice(bytes, None, "junk").unwrap_err();
        assert!(
            matches!(err, SceneError::Gltf(_) | SceneError::GlbLength { .. }),
            "{err}"
        );
    }
}

#[test]
fn external_and_undecodable_uris_are_refused() {
    let text = r#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":4,"uri":"mesh.bin"}]}"#;
    let err = load(text).unwrap_err();
    assert!(
        matches!(&err, SceneError::BufferLoad { buffer: 0, uri, .. } if uri == "mesh.bin"),
        "{err}"
    );
    // gltf's own importer unwraps the percent-decoding of this URI and panics.
    let text = r#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":4,"uri":"%FF.bin"}]}"#;
    let err = load_gltf_slice(
        text.as_bytes(),
        Some(std::path::Path::new("/nonexistent")),
        "t",
    )
    .unwrap_err();
    assert!(matches!(err, SceneError::BufferLoad { .. }), "{err}");
    let text = r#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":4,"uri":"data:application/octet-stream;base64,@@@"}]}"#;
    assert!(matches!(load(text), Err(SceneError::BufferLoad { .. })));
}

#[test]
fn vertex_indices_must_be_below_the_vertex_count() {
    let mut f = Fixture::default();
    let pos = f.f32s(&QUAD_POSITIONS[..12], "VEC3");
    let mut indices = QUAD_INDICES;
    indices[4] = 4;
    let idx = f.u16s(&indices, "SCALAR");
    let err = load(&f.gltf(one_mesh(json!({"POSITION": pos}), Some(idx)))).unwrap_err();
    assert!(
        matches!(err, SceneError::VertexIndexOutOfRange { accessor, index: 4, vertices: 4, .. } if accessor == idx),
        "{err}"
    );
}

#[test]
fn broken_hierarchies_are_refused() {
    let cycle = json!({"asset": {"version": "2.0"}, "nodes": [{"children": [1]}, {"children": [2]}, {"children": [0]}]});
    assert!(matches!(
        load(&cycle.to_string()),
        Err(SceneError::NodeCycle { .. })
    ));
    let own = json!({"asset": {"version": "2.0"}, "nodes": [{"children": [0]}]});
    assert!(matches!(
        load(&own.to_string()),
        Err(SceneError::NodeCycle { node: 0 })
    ));
    let shared =
        json!({"asset": {"version": "2.0"}, "nodes": [{"children": [2]}, {"children": [2]}, {}]});
    assert!(matches!(
        load(&shared.to_string()),
        Err(SceneError::NodeSharedChild {
            node: 2,
            first_parent: 0,
            second_parent: 1
        })
    ));
    let dangling = json!({"asset": {"version": "2.0"}, "nodes": [{"children": [7]}]});
    assert!(matches!(
        load(&dangling.to_string()),
        Err(SceneError::IndexOutOfRange {
            kind: "node",
            index: 7,
            ..
        })
    ));
    let mesh = json!({"asset": {"version": "2.0"}, "nodes": [{"mesh": 0}]});
    assert!(matches!(
        load(&mesh.to_string()),
        Err(SceneError::IndexOutOfRange { kind: "mesh", .. })
    ));
    let scene = json!({"asset": {"version": "2.0"}, "scenes": [{"nodes": [1]}], "nodes": [{}]});
    assert!(matches!(
        load(&scene.to_string()),
        Err(SceneError::IndexOutOfRange {
            kind: "node",
            index: 1,
            ..
        })
    ));
}

#[test]
fn malformed_accessors_are_refused() {
    let attempt = |edit: &dyn Fn(&mut Fixture, usize)| {
        let mut f = Fixture::default();
        let pos = f.f32s(&QUAD_POSITIONS[..9], "VEC3");
        edit(&mut f, pos);
        load(&f.gltf(one_mesh(json!({"POSITION": pos}), None))).unwrap_err()
    };
    let err = attempt(&|f, a| f.accessors[a]["type"] = json!("VEC2"));
    assert!(
        matches!(err, SceneError::AccessorFormat { accessor: 0, .. }),
        "{err}"
    );
    let err = attempt(&|f, a| f.accessors[a]["componentType"] = json!(U32));
    assert!(
        matches!(err, SceneError::AccessorFormat { accessor: 0, .. }),
        "{err}"
    );
    let err = attempt(&|f, a| f.accessors[a]["componentType"] = json!(1234));
    assert!(matches!(err, SceneError::UnknownEnumValue { .. }), "{err}");
    let err = attempt(&|f, a| f.accessors[a]["count"] = json!(0));
    assert!(
        matches!(err, SceneError::AccessorInvalid { accessor: 0, .. }),
        "{err}"
    );
    let err = attempt(&|f, _| f.views[0]["byteStride"] = json!(4));
    assert!(
        matches!(err, SceneError::AccessorInvalid { accessor: 0, .. }),
        "{err}"
    );
    let err = attempt(&|f, _| f.views[0]["byteLength"] = json!(1_000_000));
    assert!(
        matches!(err, SceneError::BufferViewOutOfBounds { view: 0, .. }),
        "{err}"
    );
    let err = attempt(&|f, a| f.accessors[a]["bufferView"] = json!(9));
    assert!(
        matches!(
            err,
            SceneError::IndexOutOfRange {
                kind: "buffer view",
                index: 9,
                ..
            }
        ),
        "{err}"
    );
    let err = attempt(&|f, a| f.accessors[a]["byteOffset"] = json!(u64::MAX));
    assert!(
        matches!(err, SceneError::AccessorOutOfBounds { .. }),
        "{err}"
    );
}

#[test]
fn sparse_indices_must_increase() {
    let mut f = Fixture::default();
    let idx_view = f.view(&[3u8, 0, 1, 0]);
    let val_view = f.view(&[0u8; 24]);
    let pos = f.accessor(json!({
        "componentType": 5126, "count": 4, "type": "VEC3",
        "sparse": {"count": 2,
            "indices": {"bufferView": idx_view, "componentType": 5123},
            "values": {"bufferView": val_view}},
    }));
    let err = load(&f.gltf(one_mesh(json!({"POSITION": pos}), None))).unwrap_err();
    assert!(
        matches!(err, SceneError::AccessorInvalid { accessor: 0, .. }),
        "{err}"
    );
}

#[test]
fn skins_need_enough_inverse_bind_matrices() {
    let mut f = Fixture::default();
    let ibm = f.f32s(&glam::Mat4::IDENTITY.to_cols_array(), "MAT4");
    let root =
        json!({"nodes": [{}, {}], "skins": [{"joints": [0, 1], "inverseBindMatrices": ibm}]});
    let err = load(&f.gltf(root)).unwrap_err();
    assert!(
        matches!(
            err,
            SceneError::InverseBindCount {
                skin: 0,
                matrices: 1,
                joints: 2,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn animation_outputs_must_match_the_keys() {
    let mut f = Fixture::default();
    let times = f.f32s(&[0.0, 1.0], "SCALAR");
    let out = f.f32s(&[0.0; 9], "VEC3");
    let root = json!({"nodes": [{}], "animations": [{
        "samplers": [{"input": times, "output": out}],
        "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}],
    }]});
    let err = load(&f.gltf(root)).unwrap_err();
    assert!(
        matches!(
            err,
            SceneError::AnimationOutputCount {
                animation: 0,
                channel: 0,
                inputs: 2,
                outputs: 3,
                expected: 2,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn unknown_enum_values_are_refused() {
    let mut f = Fixture::default();
    let pos = f.f32s(&QUAD_POSITIONS[..9], "VEC3");
    let mut root = one_mesh(json!({"POSITION": pos}), None);
    root["meshes"][0]["primitives"][0]["mode"] = json!(9);
    let err = load(&f.gltf(root)).unwrap_err();
    assert!(
        matches!(err, SceneError::UnknownEnumValue { field: "mode", .. }),
        "{err}"
    );
}
