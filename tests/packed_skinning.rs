//! The packed CPU fast path agrees with the reference (`skin_vertices`) for LBS, DQS and hybrid:
//! on the sample models, the built-in rigs, a generated rig, and random palettes and meshes.

mod support;

use dqview::anim::{JointAngles, JointOverrides, Pose};
use dqview::dq::DualQuat;
use dqview::influences::Influences;
use dqview::model::load_model;
use dqview::scene::Scene;
use dqview::skin::{
    Betas, JointPalette, PackedMesh, PackedPalette, SceneBetas, SkinMesh, SkinnedVertices,
    SkinningMode, skin_packed, skin_packed_hybrid, skin_vertices,
};
use glam::{Mat4, Quat, Vec3};
use proptest::prelude::*;

/// Relative tolerance: |fast - reference| <= REL * max(1, |reference|).
const REL: f32 = 1e-5;

/// Asserts two skinned outputs agree within [`REL`], naming the first vertex that does not.
fn assert_close(what: &str, reference: &SkinnedVertices, fast: &SkinnedVertices) {
    assert_eq!(reference.positions.len(), fast.positions.len(), "{what}");
    assert_eq!(
        reference.normals.len(),
        fast.normals.len(),
        "{what}: normals"
    );
    for (v, (a, b)) in reference.positions.iter().zip(&fast.positions).enumerate() {
        let err = (*a - *b).length();
        assert!(
            err <= REL * a.length().max(1.0),
            "{what}: position {v}: reference {a}, fast {b} (error {err:e})"
        );
    }
    for (v, (a, b)) in reference.normals.iter().zip(&fast.normals).enumerate() {
        let err = (*a - *b).length();
        assert!(
            err <= REL,
            "{what}: normal {v}: reference {a}, fast {b} (error {err:e})"
        );
    }
}

/// Skins `mesh` both ways in every mode (hybrid with `betas`) and compares.
fn compare_modes(what: &str, palette: &JointPalette, mesh: &SkinMesh<'_>, betas: Betas<'_>) {
    assert!(PackedMesh::supports(mesh), "{what}: more than 4 influences");
    let packed = PackedMesh::new(mesh);
    let mut fast_palette = PackedPalette::default();
    fast_palette.update(palette);
    let mut reference = SkinnedVertices::default();
    let mut fast = SkinnedVertices::default();
    for mode in SkinningMode::ALL {
        skin_vertices(palette, mesh, mode, betas, &mut reference);
        let handled = match mode {
            SkinningMode::Hybrid => skin_packed_hybrid(&packed, &fast_palette, betas, &mut fast),
            _ => skin_packed(&packed, &fast_palette, mode, &mut fast),
        };
        // CoR, DDM and DM need precomputed data the packed path does not take: they must decline.
        let needs_data = matches!(
            mode,
            SkinningMode::Cor | SkinningMode::Ddm | SkinningMode::Dm
        );
        let expect_handled = mode == SkinningMode::Lbs || (palette.is_rigid() && !needs_data);
        assert_eq!(handled, expect_handled, "{what} {mode}");
        if handled {
            // The fast path has no tangents; compare positions and normals.
            reference.tangents.clear();
            assert_close(&format!("{what} {mode}"), &reference, &fast);
        }
    }
}

/// Every skinned primitive of `scene` at pose `pose`, compared in every mode.
fn compare_scene(what: &str, scene: &Scene, pose: &Pose) -> usize {
    let betas = SceneBetas::defaults(scene, None, &JointOverrides::new());
    let mut compared = 0;
    let mut matrices = Vec::new();
    for node in &scene.nodes {
        let (Some(mesh), Some(skin)) = (node.mesh, node.skin) else {
            continue;
        };
        pose.skinning_matrices(scene, skin, &mut matrices);
        let palette = JointPalette::from_matrices(&matrices);
        for (p, prim) in scene.meshes[mesh].primitives.iter().enumerate() {
            let Some(influences) = &prim.influences else {
                continue;
            };
            let skin_mesh = SkinMesh {
                positions: &prim.positions,
                normals: &prim.normals,
                tangents: &[],
                influences,
            };
            let beta = betas.of(mesh, p);
            let betas = if beta.is_empty() {
                Betas::Uniform(0.35)
            } else {
                Betas::PerVertex(beta)
            };
            compare_modes(
                &format!("{what} mesh {mesh} primitive {p}"),
                &palette,
                &skin_mesh,
                betas,
            );
            compared += 1;
        }
    }
    compared
}

/// Poses along the first clip, plus large twists (past 180 degrees) on every joint of skin 0.
fn poses(scene: &Scene) -> Vec<(String, Pose)> {
    let mut out = Vec::new();
    let none = JointOverrides::new();
    let duration = scene
        .animations
        .first()
        .map_or(0.0, dqview::anim::clip_duration_s);
    for k in 0..4 {
        let t = duration * k as f32 / 3.0;
        let mut pose = Pose::rest(scene);
        pose.sample(scene, (!scene.animations.is_empty()).then_some(0), t, &none);
        out.push((format!("t={t:.2}"), pose));
    }
    let mut twisted = JointOverrides::new();
    if let Some(skin) = scene.skins.first() {
        for (k, &node) in skin.joints.iter().enumerate() {
            let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
            twisted.set(
                node,
                JointAngles {
                    twist_deg: sign * (100.0 + 30.0 * k as f32),
                    bend_deg: 35.0,
                    roll_deg: -20.0,
                },
            );
        }
    }
    let mut pose = Pose::rest(scene);
    pose.sample(scene, None, 0.0, &twisted);
    out.push(("twisted".into(), pose));
    out
}

#[test]
fn packed_path_matches_the_reference_on_sample_models() {
    let Some(dir) = support::data_dir(
        "DQVIEW_SAMPLES",
        "packed_path_matches_the_reference_on_sample_models",
    ) else {
        return;
    };
    for name in ["CesiumMan.glb", "RiggedFigure.glb", "RiggedSimple.glb"] {
        let path = dir.join(name);
        let scene = load_model(path.to_str().expect("utf-8 path")).expect("sample model loads");
        for (label, pose) in poses(&scene) {
            let compared = compare_scene(&format!("{name} {label}"), &scene, &pose);
            assert!(compared > 0, "{name}: no skinned primitive");
        }
    }
}

#[test]
fn packed_path_matches_the_reference_on_builtin_and_generated_rigs() {
    for name in ["builtin:twist", "builtin:elbow", "builtin:arm"] {
        let scene = load_model(name).expect("builtin rig");
        for (label, pose) in poses(&scene) {
            assert!(compare_scene(&format!("{name} {label}"), &scene, &pose) > 0);
        }
    }
    // 5,001 vertices: the last group of four is partial.
    let scene = dqview::builtin::generated_rig(5_001, 20);
    for (label, pose) in poses(&scene) {
        assert!(compare_scene(&format!("generated {label}"), &scene, &pose) > 0);
    }
}

/// A mesh whose vertex `v` has influence row `rows[v]`, at random-ish positions with unit normals.
fn mesh_data(rows: &[Vec<(u16, f32)>]) -> (Vec<Vec3>, Vec<Vec3>, Influences) {
    let positions: Vec<Vec3> = (0..rows.len())
        .map(|v| {
            let f = v as f32;
            Vec3::new(
                (f * 0.37).sin() * 3.0,
                f * 0.01 - 2.0,
                (f * 0.91).cos() * 5.0,
            )
        })
        .collect();
    let normals = positions
        .iter()
        .map(|p| (*p + Vec3::new(0.1, 0.2, 0.3)).normalize())
        .collect();
    (
        positions,
        normals,
        Influences::from_rows(rows.iter().cloned()),
    )
}

fn arb_quat() -> impl Strategy<Value = Quat> {
    (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0).prop_filter_map(
        "non-zero",
        |(x, y, z, w)| {
            let q = Quat::from_xyzw(x, y, z, w);
            (q.length() > 0.1).then(|| q.normalize())
        },
    )
}

fn arb_rigid() -> impl Strategy<Value = Mat4> {
    (arb_quat(), -10.0f32..10.0, -10.0f32..10.0, -10.0f32..10.0)
        .prop_map(|(q, x, y, z)| Mat4::from_rotation_translation(q, Vec3::new(x, y, z)))
}

/// Up to 4 influences on joints 0..joints+2 (some past the palette), weights from 0.
fn arb_rows(joints: u16, vertices: usize) -> impl Strategy<Value = Vec<Vec<(u16, f32)>>> {
    prop::collection::vec(
        prop::collection::vec((0..joints + 2, 0.0f32..1.0), 0..=4),
        1..vertices,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random rigid palettes (with joints past the end, rows without influences, partial groups).
    #[test]
    fn packed_path_matches_the_reference_on_random_rigs(
        matrices in prop::collection::vec(arb_rigid(), 1..24),
        rows in arb_rows(24, 40),
        beta in 0.0f32..1.0,
    ) {
        let (positions, normals, influences) = mesh_data(&rows);
        let mesh = SkinMesh { positions: &positions, normals: &normals, tangents: &[], influences: &influences };
        let palette = JointPalette::from_matrices(&matrices);
        compare_modes("random", &palette, &mesh, Betas::Uniform(beta));
        let betas: Vec<f32> = (0..positions.len()).map(|v| (v as f32 * 0.29).fract()).collect();
        compare_modes("random per-vertex", &palette, &mesh, Betas::PerVertex(&betas));
    }

    /// Scaled and sheared joints: LBS (cofactor normals) still runs fast; DQS and hybrid decline.
    #[test]
    fn scaled_palettes_run_lbs_and_decline_dqs(
        matrices in prop::collection::vec(arb_rigid(), 2..8),
        scale in prop::array::uniform3(-2.0f32..2.0),
        rows in arb_rows(8, 30),
    ) {
        let mut matrices = matrices;
        matrices[1] *= Mat4::from_scale(Vec3::from(scale));
        let (positions, normals, influences) = mesh_data(&rows);
        let mesh = SkinMesh { positions: &positions, normals: &normals, tangents: &[], influences: &influences };
        let palette = JointPalette::from_matrices(&matrices);
        compare_modes("scaled", &palette, &mesh, Betas::Uniform(0.5));
    }
}

/// Palettes of 300 joints take the bounds-checked lookup; it agrees too, joints past the end included.
#[test]
fn large_palettes_and_high_joint_indices_match() {
    let matrices: Vec<Mat4> = (0..300)
        .map(|j| {
            let a = j as f32 * 0.1;
            Mat4::from_rotation_translation(
                Quat::from_euler(glam::EulerRot::XYZ, a, -1.7 * a, 0.3 * a),
                Vec3::new(a, 1.0, -a),
            )
        })
        .collect();
    let rows: Vec<Vec<(u16, f32)>> = (0..203u16)
        .map(|v| match v % 5 {
            0 => vec![],
            1 => vec![(v * 3 % 320, 0.6), (299, 0.4)],
            _ => vec![(v % 300, 0.4), (v * 7 % 300, 0.3), (254, 0.2), (255, 0.1)],
        })
        .collect();
    let (positions, normals, influences) = mesh_data(&rows);
    let mesh = SkinMesh {
        positions: &positions,
        normals: &normals,
        tangents: &[],
        influences: &influences,
    };
    compare_modes(
        "300 joints",
        &JointPalette::from_matrices(&matrices),
        &mesh,
        Betas::Uniform(0.7),
    );
    // The same mesh on a 20-joint palette: most joints are past the end and read the identity.
    compare_modes(
        "20 joints",
        &JointPalette::from_matrices(&matrices[..20]),
        &mesh,
        Betas::Uniform(0.7),
    );
}

/// A joint whose dual quaternion has no rotation left falls back like the reference (pivot, then identity).
#[test]
fn degenerate_dual_quaternions_fall_back_like_the_reference() {
    let mut palette =
        JointPalette::from_matrices(&[Mat4::from_rotation_z(0.4), Mat4::from_translation(Vec3::X)]);
    palette.dual_quats[0] = DualQuat::ZERO;
    let rows = vec![
        vec![(0u16, 0.7f32), (1, 0.3)],
        vec![(1, 1.0)],
        vec![(0, 1.0)],
    ];
    let (positions, normals, influences) = mesh_data(&rows);
    let mesh = SkinMesh {
        positions: &positions,
        normals: &normals,
        tangents: &[],
        influences: &influences,
    };
    compare_modes("degenerate", &palette, &mesh, Betas::Uniform(0.5));
}

/// Without normals the fast path returns none, like the reference; buffers are reused, not regrown.
#[test]
fn meshes_without_normals_and_buffer_reuse() {
    let rows = vec![vec![(0u16, 1.0f32)]; 9];
    let (positions, _, influences) = mesh_data(&rows);
    let mesh = SkinMesh {
        positions: &positions,
        normals: &[],
        tangents: &[],
        influences: &influences,
    };
    let palette = JointPalette::from_matrices(&[Mat4::from_rotation_y(1.0)]);
    compare_modes("no normals", &palette, &mesh, Betas::Uniform(0.5));
    let packed = PackedMesh::new(&mesh);
    let mut fast_palette = PackedPalette::default();
    fast_palette.update(&palette);
    let mut out = SkinnedVertices::default();
    assert!(skin_packed(
        &packed,
        &fast_palette,
        SkinningMode::Dqs,
        &mut out
    ));
    let capacity = out.positions.capacity();
    let pointer = out.positions.as_ptr();
    assert!(skin_packed(
        &packed,
        &fast_palette,
        SkinningMode::Lbs,
        &mut out
    ));
    assert_eq!(
        (out.positions.capacity(), out.positions.as_ptr()),
        (capacity, pointer)
    );
    assert!(!skin_packed(
        &packed,
        &fast_palette,
        SkinningMode::Hybrid,
        &mut out
    ));
}
