//! Near-rigid joints: the rigid fast path is kept for rounding, never for a stored scale.
//!
//! `dq::RIGID_TOLERANCE` (32 ulps of 1 on S) sits between the two: rotations
//! composed in f32 stay rigid (packed fast path), a joint scaled by 1 + 4e-5 goes
//! through the two-phase blend and matches LBS 25 units from the origin.

mod support;

use std::path::{Path, PathBuf};

use dqview::anim::{JointOverrides, Pose, clip_duration_s};
use dqview::dq::{RIGID_TOLERANCE, split_rigid};
use dqview::influences::Influences;
use dqview::model::load_model;
use dqview::scene::Scene;
use dqview::skin::{
    Betas, JointPalette, PackedMesh, PackedPalette, SkinMesh, SkinnedVertices, SkinningMode,
    skin_packed, skin_vertices,
};
use glam::{Mat3, Mat4, Quat, Vec3};

/// Largest |S - I| entry of a skinning matrix's scale/shear part.
fn s_deviation(m: Mat4) -> f32 {
    let s = split_rigid(m).scale_shear - Mat3::IDENTITY;
    s.to_cols_array().iter().fold(0.0, |a, x| a.max(x.abs()))
}

/// Skins `positions` (one influence row each) with the reference in `mode`.
fn skin(
    palette: &JointPalette,
    positions: &[Vec3],
    rows: &[Vec<(u16, f32)>],
    mode: SkinningMode,
) -> Vec<Vec3> {
    let influences = Influences::from_rows(rows.iter().cloned());
    let normals = vec![Vec3::Y; positions.len()];
    let mesh = SkinMesh {
        positions,
        normals: &normals,
        tangents: &[],
        influences: &influences,
    };
    let mut out = SkinnedVertices::default();
    skin_vertices(palette, &mesh, mode, Betas::Uniform(0.5), &mut out);
    out.positions
}

/// Whether the packed fast path takes `mode` for this palette and mesh.
fn packed_takes(
    palette: &JointPalette,
    positions: &[Vec3],
    rows: &[Vec<(u16, f32)>],
    mode: SkinningMode,
) -> bool {
    let influences = Influences::from_rows(rows.iter().cloned());
    let mesh = SkinMesh {
        positions,
        normals: &[],
        tangents: &[],
        influences: &influences,
    };
    let mut packed_palette = PackedPalette::default();
    packed_palette.update(palette);
    skin_packed(
        &PackedMesh::new(&mesh),
        &packed_palette,
        mode,
        &mut SkinnedVertices::default(),
    )
}

#[test]
fn joint_scaled_by_4e5_goes_two_phase_and_matches_lbs() {
    let rot = Quat::from_axis_angle(Vec3::new(0.3, 1.0, -0.2).normalize(), 0.9);
    let scale = Mat4::from_scale(Vec3::splat(1.0 + 4e-5));
    let joints = [
        Mat4::from_rotation_translation(rot, Vec3::new(-2.0, 0.5, 1.0)) * scale,
        Mat4::from_rotation_translation(rot, Vec3::new(1.0, 2.0, 3.0)) * scale,
    ];
    let palette = JointPalette::from_matrices(&joints);
    assert!(!palette.is_rigid(), "a 1 + 4e-5 scale is not rounding");
    let scales = palette.scale_shear.as_ref().expect("two-phase palette");
    for s in scales {
        assert!(
            s.abs_diff_eq(Mat3::from_diagonal(Vec3::splat(1.0 + 4e-5)), 2e-7),
            "{s}"
        );
    }
    // Vertices 25 units from the origin: one influence, and a blend of two joints that
    // share rotation and scale (where LBS and DQS agree exactly).
    let positions = [Vec3::new(25.0, 0.0, 0.0), Vec3::new(0.0, -15.0, 20.0)];
    let rows = [vec![(1, 1.0)], vec![(0, 0.3), (1, 0.7)]];
    let lbs = skin(&palette, &positions, &rows, SkinningMode::Lbs);
    for mode in [SkinningMode::Dqs, SkinningMode::Hybrid] {
        for (v, (d, l)) in skin(&palette, &positions, &rows, mode)
            .iter()
            .zip(&lbs)
            .enumerate()
        {
            assert!(
                (*d - *l).length() < 1e-5,
                "{mode} vertex {v}: {d} vs LBS {l}"
            );
        }
    }
    // Dropping S (the rigid part alone, as the old 1e-4 tolerance did) is 1e-3 off.
    let rigid_only = palette.dual_quats[1].transform_point3(positions[0]);
    let dropped = (rigid_only - lbs[0]).length();
    assert!(
        (dropped - 25.0 * 4e-5).abs() < 1e-4,
        "rigid part alone is {dropped} off"
    );
    // The packed path has no scale phase: it declines DQS, so callers use the reference.
    assert!(!packed_takes(
        &palette,
        &positions,
        &rows,
        SkinningMode::Dqs
    ));
    assert!(packed_takes(&palette, &positions, &rows, SkinningMode::Lbs));
}

#[test]
fn rotations_with_rounding_noise_stay_rigid_on_the_fast_path() {
    // A 14-deep chain of f32 products (the Adventurer's finger depth) and each of its
    // entries moved by a few ulps: rounding only, so rigid.
    let mut matrices = Vec::new();
    let mut world = Mat4::IDENTITY;
    for level in 0..14 {
        let l = level as f32;
        let axis = Vec3::new(l.sin(), 1.0, (l * 0.7).cos()).normalize();
        world *= Mat4::from_rotation_translation(
            Quat::from_axis_angle(axis, 0.3 + l * 0.2),
            Vec3::new(0.0, 1.5, 0.1),
        );
        matrices.push(world);
        let mut noisy = world.to_cols_array();
        for (i, x) in noisy
            .iter_mut()
            .enumerate()
            .filter(|(i, _)| i % 4 != 3 && *i < 12)
        {
            *x = f32::from_bits(x.to_bits().wrapping_add_signed(i as i32 % 7 - 3));
        }
        matrices.push(Mat4::from_cols_array(&noisy));
    }
    let worst = matrices.iter().map(|&m| s_deviation(m)).fold(0.0, f32::max);
    assert!(
        worst > 0.0 && worst < RIGID_TOLERANCE,
        "|S - I| up to {worst:e}"
    );
    let palette = JointPalette::from_matrices(&matrices);
    assert!(palette.is_rigid(), "worst |S - I| {worst:e}");
    // The packed DQS path takes it and agrees with the reference.
    let positions: Vec<Vec3> = (0..28).map(|j| Vec3::new(j as f32, 25.0, -3.0)).collect();
    let rows: Vec<Vec<(u16, f32)>> = (0..28u16)
        .map(|j| vec![(j, 0.6), ((j + 1) % 28, 0.4)])
        .collect();
    assert!(packed_takes(&palette, &positions, &rows, SkinningMode::Dqs));
    // A real stored scale just above the tolerance does not stay rigid.
    let stretched = matrices[10] * Mat4::from_scale(Vec3::new(1.0, 1.0 + 8.9e-6, 1.0));
    assert!(!JointPalette::from_matrices(&[matrices[0], stretched]).is_rigid());
}

/// Per joint of skin `skin`, the largest |S - I| over the rest pose and 61 samples of every clip.
fn worst_deviation_per_joint(scene: &Scene, skin: usize) -> Vec<f32> {
    let mut pose = Pose::rest(scene);
    let mut matrices = Vec::new();
    let mut worst = vec![0.0f32; scene.skins[skin].joints.len()];
    let none = JointOverrides::new();
    let clips = std::iter::once(None).chain((0..scene.animations.len()).map(Some));
    for clip in clips {
        let duration_s = clip.map_or(0.0, |c| clip_duration_s(&scene.animations[c]));
        for k in 0..=60 {
            pose.sample(scene, clip, duration_s * k as f32 / 60.0, &none);
            pose.skinning_matrices(scene, skin, &mut matrices);
            for (w, &m) in worst.iter_mut().zip(&matrices) {
                *w = w.max(s_deviation(m));
            }
            // The palette is rigid exactly when every joint is.
            let palette = JointPalette::from_matrices(&matrices);
            let all = matrices.iter().all(|&m| split_rigid(m).is_rigid);
            assert_eq!(palette.is_rigid(), all, "clip {clip:?} sample {k}");
        }
    }
    worst
}

fn load(path: &Path) -> Scene {
    load_model(path.to_str().expect("utf-8 path")).expect("model loads")
}

/// The characters folder beside the samples folder (`../shared/testdata/characters`).
fn characters_dir(test: &str) -> Option<PathBuf> {
    let samples = support::data_dir("DQVIEW_SAMPLES", test)?;
    let dir = samples.parent()?.join("characters");
    assert!(dir.is_dir(), "{test}: no {}", dir.display());
    Some(dir)
}

#[test]
fn sample_rigs_posed_by_their_clips_are_rigid_to_rounding() {
    let Some(dir) = support::data_dir(
        "DQVIEW_SAMPLES",
        "sample_rigs_posed_by_their_clips_are_rigid_to_rounding",
    ) else {
        return;
    };
    // Measured worst |S - I| (ulps of 1): CesiumMan 17, RiggedFigure 10, RiggedSimple 3, SimpleSkin 2.
    for (file, clips) in [
        ("CesiumMan.glb", 1),
        ("RiggedFigure.glb", 1),
        ("RiggedSimple.glb", 1),
        ("SimpleSkin.gltf", 1),
    ] {
        let scene = load(&dir.join(file));
        assert_eq!(scene.animations.len(), clips, "{file}");
        let worst = worst_deviation_per_joint(&scene, 0);
        let max = worst.iter().copied().fold(0.0, f32::max);
        assert!(max < 0.6 * RIGID_TOLERANCE, "{file}: |S - I| up to {max:e}");
        assert!(max > 0.0, "{file}: no rounding at all is implausible");
    }
}

#[test]
fn characters_keep_their_stored_scales() {
    let Some(dir) = characters_dir("characters_keep_their_stored_scales") else {
        return;
    };
    // Adventurer: rigid to rounding (fingers 14 deep: 12 ulps) except its legs, whose
    // nodes store scales like (1, 1, 1.0000089): 40 to 80 ulps, so two phases.
    let scene = load(&dir.join("Adventurer.gltf"));
    let worst = worst_deviation_per_joint(&scene, 0);
    let joints = &scene.skins[0].joints;
    for (j, (&w, &node)) in worst.iter().zip(joints).enumerate() {
        let name = &scene.nodes[node].name;
        let is_leg = name.starts_with("UpperLeg") || name.starts_with("LowerLeg");
        if is_leg {
            assert!(
                (RIGID_TOLERANCE..2e-5).contains(&w),
                "joint {j} {name}: {w:e}"
            );
        } else {
            assert!(w < 0.5 * RIGID_TOLERANCE, "joint {j} {name}: {w:e}");
        }
    }
    assert_eq!(
        worst.iter().filter(|&&w| w >= RIGID_TOLERANCE).count(),
        4,
        "two UpperLeg and two LowerLeg joints"
    );
    // RobotExpressive: the armature node scales by 100, so every hand joint is scaled.
    let scene = load(&dir.join("RobotExpressive.glb"));
    for skin in 0..scene.skins.len() {
        let worst = worst_deviation_per_joint(&scene, skin);
        assert!(
            worst.iter().all(|&w| (98.0..100.0).contains(&w)),
            "skin {skin}: {worst:?}"
        );
    }
}
