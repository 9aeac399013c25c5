//! Poses, clip sampling and joint overrides on scenes built in code.

use dqview::anim::{
    BoneFrame, JointAngles, JointOverrides, Pose, clip_duration_s, find_clip, find_node,
};
use dqview::scene::{
    Animation, Channel, Interpolation, Node, NodeTransform, Property, Scene, Skin, Trs,
};
use glam::{Mat4, Quat, Vec3};

/// root -> upper (at y=0) -> lower (at y=1, along +X from... ) -> hand (1 unit along +X of lower).
fn chain() -> Scene {
    let trs = |t: Vec3| {
        NodeTransform::Trs(Trs {
            translation: t,
            ..Trs::IDENTITY
        })
    };
    let nodes = vec![
        Node {
            name: "upper".into(),
            children: vec![1],
            transform: trs(Vec3::ZERO),
            ..Node::default()
        },
        Node {
            name: "lower".into(),
            parent: Some(0),
            children: vec![2],
            transform: trs(Vec3::Y),
            ..Node::default()
        },
        Node {
            name: "hand".into(),
            parent: Some(1),
            transform: trs(Vec3::X),
            ..Node::default()
        },
    ];
    // Bind pose = rest pose: inverse bind is the inverse of each global.
    let globals = [
        Mat4::IDENTITY,
        Mat4::from_translation(Vec3::Y),
        Mat4::from_translation(Vec3::new(1.0, 1.0, 0.0)),
    ];
    let skin = Skin {
        name: "skin".into(),
        joints: vec![0, 1, 2],
        inverse_bind: globals.iter().map(|g| g.inverse()).collect(),
        skeleton: Some(0),
    };
    let rot = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    let animation = Animation {
        name: "bend".into(),
        channels: vec![Channel {
            node: 1,
            property: Property::Rotation,
            interpolation: Interpolation::Linear,
            times_s: vec![0.0, 2.0],
            values: Quat::IDENTITY
                .to_array()
                .into_iter()
                .chain(rot.to_array())
                .collect(),
        }],
    };
    Scene {
        source: "test:chain".into(),
        nodes,
        roots: vec![0],
        skins: vec![skin],
        animations: vec![animation],
        ..Scene::default()
    }
}

#[test]
fn rest_pose_skinning_matrices_are_identity() {
    let scene = chain();
    let pose = Pose::rest(&scene);
    let mut m = Vec::new();
    pose.skinning_matrices(&scene, 0, &mut m);
    assert_eq!(m.len(), 3);
    for j in &m {
        assert!(j.abs_diff_eq(Mat4::IDENTITY, 1e-6), "{j}");
    }
}

#[test]
fn sampled_clip_moves_children_about_the_joint() {
    let scene = chain();
    assert_eq!(clip_duration_s(&scene.animations[0]), 2.0);
    assert_eq!(find_clip(&scene, "BEND"), Some(0));
    assert_eq!(find_clip(&scene, "0"), Some(0));
    assert_eq!(find_clip(&scene, "1"), None);
    let mut pose = Pose::rest(&scene);
    pose.sample(&scene, Some(0), 2.0, &JointOverrides::new());
    // Lower rotated 90 degrees about Z at (0,1,0): the hand at (1,1,0) goes to (0,2,0).
    let hand = pose.global[2].transform_point3(Vec3::ZERO);
    assert!(hand.abs_diff_eq(Vec3::new(0.0, 2.0, 0.0), 1e-5), "{hand}");
    // Half way: 45 degrees.
    pose.sample(&scene, Some(0), 1.0, &JointOverrides::new());
    let hand = pose.global[2].transform_point3(Vec3::ZERO);
    let s = std::f32::consts::FRAC_1_SQRT_2;
    assert!(hand.abs_diff_eq(Vec3::new(s, 1.0 + s, 0.0), 1e-5), "{hand}");
    // Skinning matrix of the lower joint maps a bind point near the hand the same way.
    let mut m = Vec::new();
    pose.skinning_matrices(&scene, 0, &mut m);
    let p = m[1].transform_point3(Vec3::new(1.0, 1.0, 0.0));
    assert!(p.abs_diff_eq(hand, 1e-5), "{p}");
}

#[test]
fn twist_is_about_the_bone_axis_towards_the_first_child() {
    let scene = chain();
    let lower = find_node(&scene, "lower").unwrap();
    let frame = BoneFrame::of(&scene, lower);
    assert!(frame.twist_axis.abs_diff_eq(Vec3::X, 1e-6));
    // Leaf joint: local +Y.
    assert!(
        BoneFrame::of(&scene, 2)
            .twist_axis
            .abs_diff_eq(Vec3::Y, 1e-6)
    );
    let mut overrides = JointOverrides::new();
    overrides.set(
        lower,
        JointAngles {
            twist_deg: 90.0,
            ..JointAngles::default()
        },
    );
    let mut pose = Pose::rest(&scene);
    pose.sample(&scene, None, 0.0, &overrides);
    // Twisting keeps the child on the bone axis ...
    let hand = pose.global[2].transform_point3(Vec3::ZERO);
    assert!(hand.abs_diff_eq(Vec3::new(1.0, 1.0, 0.0), 1e-5), "{hand}");
    // ... and turns a point off the axis about it: (1, 1, 0) + local +Y -> +Z direction.
    let off_axis = pose.global[1].transform_point3(Vec3::new(0.5, 0.2, 0.0));
    assert!(
        off_axis.abs_diff_eq(Vec3::new(0.5, 1.0, 0.2), 1e-5),
        "{off_axis}"
    );
    // Bend moves the child off the axis; the joint itself stays put.
    overrides.set(
        lower,
        JointAngles {
            bend_deg: 90.0,
            ..JointAngles::default()
        },
    );
    pose.sample(&scene, None, 0.0, &overrides);
    let hand = pose.global[2].transform_point3(Vec3::ZERO);
    assert!(hand.abs_diff_eq(Vec3::new(0.0, 2.0, 0.0), 1e-5), "{hand}");
    assert!(
        pose.global[1]
            .transform_point3(Vec3::ZERO)
            .abs_diff_eq(Vec3::Y, 1e-6)
    );
    // Zero angles remove the entry; NaN angles are ignored.
    overrides.set(lower, JointAngles::default());
    assert!(overrides.angles.is_empty());
    overrides.set(
        lower,
        JointAngles {
            twist_deg: f32::NAN,
            ..JointAngles::default()
        },
    );
    pose.sample(&scene, None, 0.0, &overrides);
    assert!(pose.global.iter().all(|g| g.is_finite()));
}
