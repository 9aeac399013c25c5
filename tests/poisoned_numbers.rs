//! NaN and infinity in files and poses: sanitised at load (counted, with warnings), and never in
//! a palette or a skinned vertex, on the CPU reference and on the GPU compute pass.
//!
//! Without a GPU adapter the GPU halves print `SKIPPED` and pass, unless `DQVIEW_REQUIRE_GPU=1`.

mod support;

use support::gpu;

use std::process::Command;

use dqview::anim::{JointOverrides, Pose};
use dqview::influences::Influences;
use dqview::scene::{FaultKind, NodeTransform, Scene, Trs, load_gltf_slice};
use dqview::skin::{
    Betas, JointPalette, PosedPrimitive, SkinMesh, SkinnedVertices, SkinningMode, skin_scene,
    skin_vertices,
};
use glam::{Mat4, Quat, Vec3, Vec4};
use serde_json::json;

/// Packs JSON and binary data into a GLB container (the writer's own container code).
fn glb(json: &serde_json::Value, bin: &[u8]) -> Vec<u8> {
    dqview::scene::glb_container(json.to_string().into_bytes(), bin.to_vec()).expect("small GLB")
}

/// A skinned quad whose file is poisoned in every place a number can be: node transforms
/// (an infinite translation, a zero rotation), a NaN position, NaN/negative/infinite weights,
/// a NaN inverse bind matrix, a NaN key time and non-finite key values.
fn poisoned_glb() -> Vec<u8> {
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    let mut bin: Vec<u8> = Vec::new();
    let mut views = Vec::new();
    let mut push = |bytes: Vec<u8>| {
        let offset = bin.len();
        views.push(json!({"buffer": 0, "byteOffset": offset, "byteLength": bytes.len()}));
        bin.extend(bytes);
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
    };
    let f = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    push(f(&[
        0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, nan, 0.0, 0.0, 1.0, 0.0,
    ]));
    push(vec![0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0]);
    push(f(&[
        nan, 1.0, 0.0, 0.0, -1.0, 0.5, 0.0, 0.0, inf, 1.0, 0.0, 0.0, 3.0, 1.0, 0.0, 0.0,
    ]));
    let mut ibm = Mat4::IDENTITY.to_cols_array().to_vec();
    ibm.extend([nan; 16]);
    push(f(&ibm));
    push(f(&[0.0, nan, 1.0]));
    push(f(&[0.0, 0.0, 0.0, inf, 0.0, 0.0, 0.0, 1.0, nan]));
    push(
        [0u16, 1, 2, 0, 2, 3]
            .iter()
            .flat_map(|i| i.to_le_bytes())
            .collect(),
    );
    let root = json!({
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": views,
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3"},
            {"bufferView": 1, "componentType": 5121, "count": 4, "type": "VEC4"},
            {"bufferView": 2, "componentType": 5126, "count": 4, "type": "VEC4"},
            {"bufferView": 3, "componentType": 5126, "count": 2, "type": "MAT4"},
            {"bufferView": 4, "componentType": 5126, "count": 3, "type": "SCALAR"},
            {"bufferView": 5, "componentType": 5126, "count": 3, "type": "VEC3"},
            {"bufferView": 6, "componentType": 5123, "count": 6, "type": "SCALAR"},
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2}, "indices": 6}]}],
        "skins": [{"joints": [1, 2], "inverseBindMatrices": 3}],
        "nodes": [
            {"mesh": 0, "skin": 0},
            // 1e39 does not fit an f32: it reads as infinity.
            {"translation": [1e39, 0.0, 0.0], "children": [2]},
            {"rotation": [0.0, 0.0, 0.0, 0.0]},
        ],
        "scenes": [{"nodes": [0, 1]}],
        "animations": [{
            "samplers": [{"input": 4, "output": 5}],
            "channels": [{"sampler": 0, "target": {"node": 2, "path": "translation"}}],
        }],
    });
    glb(&root, &bin)
}

fn assert_finite(posed: &[PosedPrimitive], what: &str) {
    for p in posed {
        let v = &p.vertices;
        for (i, x) in v.positions.iter().enumerate() {
            assert!(x.is_finite(), "{what}: node {} position {i} {x}", p.node);
        }
        for (i, x) in v.normals.iter().enumerate() {
            assert!(x.is_finite(), "{what}: node {} normal {i} {x}", p.node);
        }
        for (i, x) in v.tangents.iter().enumerate() {
            assert!(x.is_finite(), "{what}: node {} tangent {i} {x}", p.node);
        }
    }
}

/// Poses of `scene`: rest, the clip at three times, and a pose with NaN and infinite locals.
fn poses(scene: &Scene) -> Vec<(String, Pose)> {
    let mut out = vec![("rest".to_owned(), Pose::rest(scene))];
    for t in [0.0, 0.5, 1.0] {
        let mut pose = Pose::rest(scene);
        pose.sample(scene, Some(0), t, &JointOverrides::new());
        out.push((format!("clip at {t}"), pose));
    }
    let mut poisoned = Pose::rest(scene);
    for (n, local) in poisoned.local.iter_mut().enumerate() {
        *local = match n % 3 {
            0 => NodeTransform::Matrix(Mat4::from_cols_array(&[f32::NAN; 16])),
            1 => NodeTransform::Trs(Trs {
                translation: Vec3::splat(f32::INFINITY),
                rotation: Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0),
                scale: Vec3::splat(1e30),
            }),
            _ => NodeTransform::Trs(Trs {
                scale: Vec3::ZERO,
                ..Trs::IDENTITY
            }),
        };
    }
    poisoned.update_globals(scene);
    out.push(("NaN/Inf locals".to_owned(), poisoned));
    out
}

#[test]
fn poisoned_file_is_sanitised_counted_and_skins_finite_on_cpu() {
    let scene = load_gltf_slice(&poisoned_glb(), None, "poisoned").expect("loads");
    // 2 node transforms + 1 position + 3 weights + 1 inverse bind matrix + 1 key time + 2 key values.
    assert_eq!(
        scene.sanitized, 10,
        "{:#?} {:#?}",
        scene.faults, scene.warnings
    );
    // Each kind is a fault at its place, with the count and the first index.
    let faults: Vec<(FaultKind, &str, usize, Option<usize>)> = scene
        .faults
        .iter()
        .map(|f| (f.kind, f.place.as_str(), f.count, f.first))
        .collect();
    for expected in [
        (FaultKind::NonFiniteNodeTransforms, "nodes", 1, Some(1)),
        (FaultKind::ZeroRotationKeys, "nodes", 1, Some(2)),
        (
            FaultKind::NonFinitePositions,
            "mesh 0 primitive 0",
            1,
            Some(2),
        ),
        (
            FaultKind::NonFiniteWeights,
            "mesh 0 primitive 0",
            2,
            Some(0),
        ),
        (FaultKind::NonFiniteBindMatrices, "skin 0", 1, Some(1)),
        (
            FaultKind::NonFiniteKeyTimes,
            "animation 0 channel 0",
            1,
            Some(1),
        ),
        (
            FaultKind::NonFiniteKeyValues,
            "animation 0 channel 0",
            2,
            Some(1),
        ),
    ] {
        assert!(faults.contains(&expected), "no {expected:?} in {faults:#?}");
    }
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.contains("1 weights were negative")),
        "{:#?}",
        scene.warnings
    );
    let prim = &scene.meshes[0].primitives[0];
    assert!(prim.positions.iter().all(|p| p.is_finite()));
    let influences = prim.influences.as_ref().expect("skinned");
    for row in influences.iter() {
        let sum: f32 = row.iter().map(|i| i.weight).sum();
        assert!(row.iter().all(|i| i.weight > 0.0 && i.weight <= 1.0));
        assert!((sum - 1.0).abs() < 1e-6, "{row:?}");
    }
    assert!(scene.skins[0].inverse_bind.iter().all(|m| m.is_finite()));
    for channel in &scene.animations[0].channels {
        assert!(channel.times_s.iter().all(|t| t.is_finite()));
        assert!(channel.values.iter().all(|v| v.is_finite()));
    }
    for (name, pose) in poses(&scene) {
        let mut matrices = Vec::new();
        pose.skinning_matrices(&scene, 0, &mut matrices);
        let palette = JointPalette::from_matrices(&matrices);
        assert!(palette.matrices.iter().all(|m| m.is_finite()), "{name}");
        assert!(palette.dual_quats.iter().all(|q| q.is_finite()), "{name}");
        for mode in SkinningMode::ALL {
            for beta in [0.0, 0.5, f32::NAN] {
                let posed = skin_scene(&scene, &pose, mode, Betas::Uniform(beta));
                assert_finite(&posed, &format!("{name} {mode} beta {beta}"));
            }
        }
    }
}

#[test]
fn inspect_reports_the_sanitised_count() {
    let path = std::env::temp_dir().join(format!("dqview-poisoned-{}.glb", std::process::id()));
    std::fs::write(&path, poisoned_glb()).expect("write");
    let run = |json: bool| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_dqview"));
        cmd.arg("inspect").arg(&path);
        if json {
            cmd.arg("--json");
        }
        let out = cmd.output().expect("run dqview");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let facts: serde_json::Value = serde_json::from_str(&run(true)).expect("JSON");
    assert_eq!(facts["sanitized"], 10);
    let text = run(false);
    assert!(text.contains("sanitized   10 values"), "{text}");
    let _ = std::fs::remove_file(path);
}

/// Palettes from matrices no file could hold: NaN, infinities, 1e30, singular, mirrored.
fn poisoned_matrices() -> Vec<Mat4> {
    vec![
        Mat4::from_cols_array(&[f32::NAN; 16]),
        Mat4::from_translation(Vec3::new(f32::INFINITY, 0.0, 0.0)),
        Mat4::from_scale(Vec3::splat(1e30)),
        Mat4::from_scale(Vec3::ZERO),
        Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0)),
        Mat4::from_cols_array(&[f32::MAX; 16]),
        Mat4::from_rotation_translation(Quat::from_rotation_z(1.0), Vec3::new(1e20, 0.0, 0.0)),
        Mat4::IDENTITY,
    ]
}

/// Vertices each weighted to several joints of [`poisoned_matrices`], plus joint indices past it.
fn poisoned_mesh() -> (Vec<Vec3>, Vec<Vec3>, Vec<Vec4>, Influences) {
    let mut positions = Vec::new();
    let mut normals = Vec::new();
    let mut tangents = Vec::new();
    let mut rows = Vec::new();
    for a in 0..9u16 {
        for b in 0..9u16 {
            positions.push(Vec3::new(f32::from(a), f32::from(b), 1e20));
            normals.push(Vec3::Y);
            tangents.push(Vec4::new(1.0, 0.0, 0.0, -1.0));
            rows.push(vec![(a, 0.6), (b, 0.4), (a + b, 1e-3)]);
        }
    }
    (positions, normals, tangents, Influences::from_rows(rows))
}

#[test]
fn poisoned_palettes_give_finite_vertices_on_cpu_and_gpu() {
    let palette = JointPalette::from_matrices(&poisoned_matrices());
    assert!(palette.non_finite_joints >= 2);
    assert!(palette.matrices.iter().all(|m| m.is_finite()));
    assert!(palette.dual_quats.iter().all(|q| q.is_finite()));
    assert!(palette.scale_shear.iter().flatten().all(|s| s.is_finite()));
    let (positions, normals, tangents, influences) = poisoned_mesh();
    let mesh = SkinMesh {
        positions: &positions,
        normals: &normals,
        tangents: &tangents,
        influences: &influences,
    };
    let gpu = gpu("poisoned_palettes_give_finite_vertices_on_cpu_and_gpu");
    for mode in dqview::skin::SkinningMode::ALL {
        let mut cpu = SkinnedVertices::default();
        skin_vertices(&palette, &mesh, mode, Betas::Uniform(0.5), &mut cpu);
        let mut outputs = vec![("CPU", cpu)];
        if let Some(gpu) = gpu {
            let run = dqview::render::SkinRun::new(mode, 0.5);
            let none = dqview::render::MeshSkinning::default();
            let skinned =
                dqview::render::skin_mesh_gpu(&gpu.ctx, &gpu.renderer, &palette, &mesh, run, &none)
                    .expect("GPU skinning");
            outputs.push(("GPU", skinned));
        }
        for (path, out) in outputs {
            for (v, p) in out.positions.iter().enumerate() {
                assert!(p.is_finite(), "{path} {mode} vertex {v}: position {p}");
            }
            for (v, n) in out.normals.iter().enumerate() {
                assert!(n.is_finite(), "{path} {mode} vertex {v}: normal {n}");
            }
            for (v, t) in out.tangents.iter().enumerate() {
                assert!(t.is_finite(), "{path} {mode} vertex {v}: tangent {t}");
            }
        }
    }
}

#[test]
fn poisoned_file_and_poses_skin_finite_on_gpu() {
    let Some(gpu) = gpu("poisoned_file_and_poses_skin_finite_on_gpu") else {
        return;
    };
    let scene = load_gltf_slice(&poisoned_glb(), None, "poisoned").expect("loads");
    for (name, pose) in poses(&scene) {
        for mode in dqview::skin::SkinningMode::ALL {
            let posed = gpu
                .skin_scene(&scene, &pose, mode, 0.5)
                .unwrap_or_else(|e| panic!("{name} {mode}: {e}"));
            assert_finite(&posed, &format!("GPU {name} {mode}"));
        }
    }
}
