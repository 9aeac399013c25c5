//! Clip sampling and joint matrices on the Khronos sample models (DQVIEW_SAMPLES).

mod support;

use dqview::anim::{JointAngles, JointOverrides, Pose, clip_duration_s, find_clip, find_node};
use dqview::model::load_model;
use dqview::scene::{NodeTransform, Scene};
use dqview::skin::{Betas, SkinningMode, skin_scene};
use glam::{Mat4, Quat, Vec3};

fn load(dir: &std::path::Path, file: &str) -> Scene {
    load_model(dir.join(file).to_str().expect("utf-8 path")).expect("sample loads")
}

fn trs_of(pose: &Pose, node: usize) -> dqview::scene::Trs {
    match pose.local[node] {
        NodeTransform::Trs(t) => t,
        NodeTransform::Matrix(m) => panic!("node {node} is a matrix {m}"),
    }
}

/// A rotation about -Z by `deg` degrees, as InterpolationTest's keys are.
fn about_minus_z(deg: f32) -> Quat {
    Quat::from_rotation_z(-deg.to_radians())
}

fn same_rotation(a: Quat, b: Quat) -> bool {
    a.abs_diff_eq(b, 1e-4) || a.abs_diff_eq(-b, 1e-4)
}

#[test]
fn interpolation_test_step_linear_cubic_values() {
    let Some(dir) = support::data_dir(
        "DQVIEW_SAMPLES",
        "interpolation_test_step_linear_cubic_values",
    ) else {
        return;
    };
    let scene = load(&dir, "extras/InterpolationTest.glb");
    assert_eq!(scene.animations.len(), 9);
    let none = JointOverrides::new();
    let mut pose = Pose::rest(&scene);
    let mut at = |clip: &str, t: f32| {
        let c = find_clip(&scene, clip).unwrap_or_else(|| panic!("clip {clip}"));
        assert_eq!(clip_duration_s(&scene.animations[c]), 2.0);
        let node = scene.animations[c].channels[0].node;
        pose.sample(&scene, Some(c), t, &none);
        trs_of(&pose, node)
    };
    // STEP holds the previous key: keys 1, 0, 1, 0, 1 every 0.5 s.
    assert_eq!(at("Step Scale", 0.49).scale, Vec3::ONE);
    assert_eq!(at("Step Scale", 0.5).scale, Vec3::ZERO);
    assert_eq!(at("Step Scale", 0.99).scale, Vec3::ZERO);
    // LINEAR: a quarter of the way from 1 to 0.
    assert!(
        at("Linear Scale", 0.125)
            .scale
            .abs_diff_eq(Vec3::splat(0.75), 1e-6)
    );
    // CUBICSPLINE with zero tangents: Hermite h00 = 0.84375 at s = 0.25, 0.5 at s = 0.5.
    assert!(
        at("CubicSpline Scale", 0.125)
            .scale
            .abs_diff_eq(Vec3::splat(0.84375), 1e-6)
    );
    assert!(
        at("CubicSpline Scale", 0.25)
            .scale
            .abs_diff_eq(Vec3::splat(0.5), 1e-6)
    );
    // Translation: LINEAR y from 6.8 to 10.8; CUBICSPLINE at s = 0.2 from 10.8 to 6.8 (h00 = 0.896).
    assert!(
        at("Linear Translation", 0.25)
            .translation
            .abs_diff_eq(Vec3::new(-3.4, 8.8, 0.0), 1e-5)
    );
    let y = 0.896 * 10.8 + 0.104 * 6.8;
    assert!(
        at("CubicSpline Translation", 0.6)
            .translation
            .abs_diff_eq(Vec3::new(3.4, y, 0.0), 1e-5)
    );
    assert_eq!(
        at("Step Translation", 0.7).translation,
        Vec3::new(0.0, 10.8, 0.0)
    );
    // Rotations about -Z, keys every 45 degrees: slerp halfway is 22.5; cubic halfway from 45 to 90 is 67.5.
    assert!(same_rotation(
        at("Linear Rotation", 0.25).rotation,
        about_minus_z(22.5)
    ));
    assert!(same_rotation(
        at("CubicSpline Rotation", 0.75).rotation,
        about_minus_z(67.5)
    ));
    assert!(same_rotation(
        at("Step Rotation", 1.2).rotation,
        about_minus_z(90.0)
    ));
    // Past the end: the last key.
    assert!(same_rotation(
        at("Linear Rotation", 9.0).rotation,
        about_minus_z(180.0)
    ));
}

#[test]
fn simple_skin_joint_matrices_mid_clip() {
    let Some(dir) = support::data_dir("DQVIEW_SAMPLES", "simple_skin_joint_matrices_mid_clip")
    else {
        return;
    };
    let scene = load(&dir, "SimpleSkin.gltf");
    assert_eq!(scene.skins.len(), 1);
    assert_eq!(scene.skins[0].joints, vec![1, 2]);
    assert_eq!(clip_duration_s(&scene.animations[0]), 5.5);
    let mut pose = Pose::rest(&scene);
    pose.sample(&scene, Some(0), 0.75, &JointOverrides::new());
    let mut m = Vec::new();
    pose.skinning_matrices(&scene, 0, &mut m);
    // Joint 0 (node 1) is not animated: T(0,1,0) * IBM T(0,-1,0) = identity.
    assert!(m[0].abs_diff_eq(Mat4::IDENTITY, 1e-6), "{}", m[0]);
    // Joint 1 rotates about +Z through (0, 1, 0), halfway between the keys at 0.5 s and 1.0 s.
    let key = |s: f32, c: f32| 2.0 * s.atan2(c);
    let angle = 0.5 * (key(0.383, 0.924) + key(0.707, 0.707));
    let expected = Mat4::from_translation(Vec3::Y)
        * Mat4::from_rotation_z(angle)
        * Mat4::from_translation(-Vec3::Y);
    assert!(m[1].abs_diff_eq(expected, 1e-5), "{} vs {expected}", m[1]);
    // The top vertex (0.5, 2, 0) goes to the left of the axis.
    let top = m[1].transform_point3(Vec3::new(0.5, 2.0, 0.0));
    assert!(top.x < 0.0 && top.y > 1.0, "{top}");
}

#[test]
fn cesium_man_and_rigged_figure_sample_everywhere() {
    let Some(dir) = support::data_dir(
        "DQVIEW_SAMPLES",
        "cesium_man_and_rigged_figure_sample_everywhere",
    ) else {
        return;
    };
    for file in ["CesiumMan.glb", "RiggedFigure.glb", "RiggedSimple.glb"] {
        let scene = load(&dir, file);
        let d = clip_duration_s(&scene.animations[0]);
        assert!(d > 0.5, "{file}: duration {d}");
        let mut pose = Pose::rest(&scene);
        let mut m = Vec::new();
        for k in 0..=20 {
            pose.sample(&scene, Some(0), d * k as f32 / 20.0, &JointOverrides::new());
            for s in 0..scene.skins.len() {
                pose.skinning_matrices(&scene, s, &mut m);
                assert_eq!(m.len(), scene.skins[s].joints.len());
                assert!(m.iter().all(|j| j.is_finite()), "{file}");
            }
        }
        // A twist override on a joint, named by node index, moves skinned vertices.
        let joint = scene.skins[0].joints[1];
        let node = find_node(&scene, &joint.to_string()).expect("node by index");
        let mut overrides = JointOverrides::new();
        overrides.set(
            node,
            JointAngles {
                twist_deg: 90.0,
                ..JointAngles::default()
            },
        );
        let mut twisted = Pose::rest(&scene);
        twisted.sample(&scene, Some(0), 0.0, &overrides);
        pose.sample(&scene, Some(0), 0.0, &JointOverrides::new());
        let a = skin_scene(&scene, &pose, SkinningMode::Dqs, Betas::Uniform(1.0));
        let b = skin_scene(&scene, &twisted, SkinningMode::Dqs, Betas::Uniform(1.0));
        let moved = a
            .iter()
            .zip(&b)
            .flat_map(|(a, b)| a.vertices.positions.iter().zip(&b.vertices.positions))
            .filter(|(p, q)| (**p - **q).length() > 1e-4)
            .count();
        assert!(moved > 0, "{file}: twist moved nothing");
    }
}
