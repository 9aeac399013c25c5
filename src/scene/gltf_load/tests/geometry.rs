//! Mesh conversion: indices, normals, sanitising, topology, sparse data and influences.

use glam::Vec3;
use serde_json::json;

use super::fixtures::{Fixture, QUAD_INDICES, QUAD_POSITIONS, load, one_mesh};

fn assert_vec3_near(a: Vec3, b: Vec3) {
    assert!((a - b).length() < 1e-5, "{a:?} != {b:?}");
}

#[test]
fn indices_are_generated_for_unindexed_triangles() {
    let mut f = Fixture::default();
    let pos = f.f32s(&QUAD_POSITIONS[..9], "VEC3");
    let scene = load(&f.gltf(one_mesh(json!({"POSITION": pos}), None))).unwrap();
    let prim = &scene.meshes[0].primitives[0];
    assert_eq!(prim.indices, vec![0, 1, 2]);
    assert_eq!(prim.positions.len(), 3);
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
}

#[test]
fn quad_from_data_uri_gets_smooth_normals() {
    let mut f = Fixture::default();
    let pos = f.f32s(&QUAD_POSITIONS, "VEC3");
    let idx = f.u16s(&QUAD_INDICES, "SCALAR");
    let text = f.gltf(one_mesh(json!({"POSITION": pos}), Some(idx)));
    assert!(text.contains("data:application/octet-stream;base64,"));
    let scene = load(&text).unwrap();
    let prim = &scene.meshes[0].primitives[0];
    assert_eq!(prim.indices, vec![0, 1, 2, 0, 2, 3]);
    assert_eq!(prim.normals.len(), 5);
    for n in &prim.normals[..4] {
        assert_vec3_near(*n, Vec3::Z);
    }
    // Vertex 4 is on no triangle.
    assert_vec3_near(prim.normals[4], Vec3::Y);
    assert!(prim.influences.is_none());
    assert!(prim.uvs.is_none() && prim.tangents.is_none());
}

#[test]
fn file_normals_are_normalised_and_bad_ones_recomputed() {
    let mut f = Fixture::default();
    let pos = f.f32s(&QUAD_POSITIONS[..12], "VEC3");
    let idx = f.u16s(&QUAD_INDICES, "SCALAR");
    let normals = [
        0.0,
        0.0,
        2.0,
        f32::NAN,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        1.0,
        0.0,
    ];
    let nrm = f.f32s(&normals, "VEC3");
    let scene =
        load(&f.gltf(one_mesh(json!({"POSITION": pos, "NORMAL": nrm}), Some(idx)))).unwrap();
    let n = &scene.meshes[0].primitives[0].normals;
    assert_vec3_near(n[0], Vec3::Z);
    assert_vec3_near(n[1], Vec3::Z);
    assert_vec3_near(n[2], Vec3::Z);
    assert_vec3_near(n[3], Vec3::Y);
    // The zero normal is recomputed with a warning; the NaN one is a fault.
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.contains("1 normals were zero")),
        "{:?}",
        scene.warnings
    );
    let [fault] = scene.faults.as_slice() else {
        panic!("one fault: {:?}", scene.faults);
    };
    assert_eq!(fault.kind, crate::scene::FaultKind::NonFiniteNormals);
    assert_eq!((fault.count, fault.first), (1, Some(1)));
}

#[test]
fn non_finite_positions_are_unplaced_with_a_fault() {
    let mut f = Fixture::default();
    let mut p = QUAD_POSITIONS;
    p[3] = f32::INFINITY;
    p[7] = f32::NAN;
    let pos = f.f32s(&p, "VEC3");
    let scene = load(&f.gltf(one_mesh(json!({"POSITION": pos}), None))).unwrap();
    let prim = &scene.meshes[0].primitives[0];
    assert!(prim.positions.iter().all(|v| v.is_finite()));
    let [fault] = scene.faults.as_slice() else {
        panic!("one fault: {:?}", scene.faults);
    };
    assert_eq!(fault.kind, crate::scene::FaultKind::NonFinitePositions);
    assert_eq!((fault.count, fault.first), (2, Some(1)));
    // 5 vertices make one triangle (the rest is dropped with a warning), and it uses the
    // unplaced vertices 1 and 2: nothing is left to draw.
    assert!(prim.indices.is_empty(), "{:?}", prim.indices);
    assert!(
        fault
            .message()
            .contains("the 1 triangles using them are dropped")
    );
}

#[test]
fn strips_become_lists_and_lines_are_dropped() {
    let mut f = Fixture::default();
    let pos = f.f32s(&QUAD_POSITIONS[..12], "VEC3");
    let root = json!({
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [
            {"attributes": {"POSITION": pos}, "mode": 5},
            {"attributes": {"POSITION": pos}, "mode": 1},
            {"attributes": {"POSITION": pos}, "mode": 6},
        ]}],
    });
    let scene = load(&f.gltf(root)).unwrap();
    let prims = &scene.meshes[0].primitives;
    assert_eq!(prims.len(), 2);
    assert_eq!(prims[0].indices, vec![0, 1, 2, 1, 3, 2]);
    assert_eq!(prims[1].indices, vec![1, 2, 0, 2, 3, 0]);
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.contains("primitive 1") && w.contains("Lines"))
    );
    // No scenes: every parentless node is a root.
    assert_eq!(scene.roots, vec![0]);
}

#[test]
fn sparse_accessor_without_buffer_view_starts_from_zeros() {
    let mut f = Fixture::default();
    let idx_view = f.view(&[1u8, 0, 3, 0]);
    let values: Vec<u8> = [7.0f32, 8.0, 9.0, 1.0, 2.0, 3.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let val_view = f.view(&values);
    let pos = f.accessor(json!({
        "componentType": 5126, "count": 4, "type": "VEC3",
        "sparse": {"count": 2,
            "indices": {"bufferView": idx_view, "componentType": 5123},
            "values": {"bufferView": val_view}},
    }));
    let scene = load(&f.gltf(one_mesh(json!({"POSITION": pos}), None))).unwrap();
    let p = &scene.meshes[0].primitives[0].positions;
    assert_eq!(
        p,
        &vec![
            Vec3::ZERO,
            Vec3::new(7.0, 8.0, 9.0),
            Vec3::ZERO,
            Vec3::new(1.0, 2.0, 3.0)
        ]
    );
}

#[test]
fn two_influence_sets_with_normalised_bytes_are_merged_and_sorted() {
    let mut f = Fixture::default();
    let pos = f.f32s(&QUAD_POSITIONS[..9], "VEC3");
    let j0 = f.u8s(&[0, 1, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0], "VEC4");
    let w0 = f.u8s(&[51, 51, 0, 0, 255, 0, 0, 0, 0, 0, 0, 0], "VEC4");
    let j1 = f.u16s(&[2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], "VEC4");
    let w1 = f.f32s(
        &[0.6, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        "VEC4",
    );
    f.accessors[w0]["normalized"] = json!(true);
    let mut root = one_mesh(
        json!({"POSITION": pos, "JOINTS_0": j0, "WEIGHTS_0": w0, "JOINTS_1": j1, "WEIGHTS_1": w1}),
        None,
    );
    root["nodes"] = json!([{"mesh": 0, "skin": 0}, {}, {}, {}]);
    root["skins"] = json!([{"joints": [1, 2, 3]}]);
    let scene = load(&f.gltf(root)).unwrap();
    let inf = scene.meshes[0].primitives[0].influences.as_ref().unwrap();
    assert_eq!(inf.vertex_count(), 3);
    let v0 = inf.of(0);
    assert_eq!(v0.len(), 3);
    assert_eq!(v0[0].joint, 2, "the WEIGHTS_1 entry (0.6) is heaviest");
    assert!((v0[0].weight - 0.6).abs() < 1e-3);
    assert!((v0[1].weight - 0.2).abs() < 1e-3);
    assert_eq!(inf.of(1)[0].joint, 1);
    assert!(inf.of(2).is_empty(), "vertex 2 has no weight");
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.contains("1 vertices have no positive weight"))
    );
    assert_eq!(scene.skins[0].inverse_bind, vec![glam::Mat4::IDENTITY; 3]);
}

#[test]
fn glb_container_and_tex_coords_load() {
    let mut f = Fixture::default();
    let pos = f.f32s(&QUAD_POSITIONS[..9], "VEC3");
    let uv = f.u16s(&[0, 0, 65535, 0, 0, 65535], "VEC2");
    f.accessors[uv]["normalized"] = json!(true);
    let bytes = f.glb(one_mesh(json!({"POSITION": pos, "TEXCOORD_0": uv}), None));
    let scene = crate::scene::load_gltf_slice(&bytes, None, "glb").unwrap();
    let uvs = scene.meshes[0].primitives[0].uvs.as_ref().unwrap();
    assert_eq!(uvs[1], glam::Vec2::new(1.0, 0.0));
    assert_eq!(uvs[2], glam::Vec2::new(0.0, 1.0));
    assert_eq!(scene.source, "glb");
}
