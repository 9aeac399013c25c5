//! Twist joints on the shared Adventurer: the constraints turn each node as the rule says.

use glam::Mat4;

use super::*;
use crate::anim::{JointOverrides, Pose};
use crate::scene::names;

fn adventurer() -> Option<Scene> {
    let dir = std::env::var("DQVIEW_CHARACTERS").ok()?;
    crate::model::load_model(&format!("{dir}/Adventurer.gltf")).ok()
}

fn skinning(scene: &Scene, pose: &Pose, node: usize) -> Mat4 {
    let skin = &scene.skins[0];
    let j = skin
        .joints
        .iter()
        .position(|&n| n == node)
        .expect("a joint");
    pose.global[node] * skin.inverse_bind[j]
}

fn max_diff(a: Mat4, b: Mat4) -> f32 {
    (a - b)
        .to_cols_array()
        .iter()
        .fold(0.0, |m, x| m.max(x.abs()))
}

/// The rest pose of `scene` with `joint` twisted by `deg`.
fn twisted(scene: &Scene, joint: usize, deg: f32) -> Pose {
    let mut pose = Pose::rest(scene);
    pose.sample(scene, None, 0.0, &JointOverrides::twist(joint, deg));
    pose
}

#[test]
fn a_pure_twist_is_shared_out_as_the_rule_says() {
    let Some(scene) = adventurer() else {
        eprintln!("SKIPPED: DQVIEW_CHARACTERS not set");
        return;
    };
    let k = names::joint(&scene, "UpperArm.L").unwrap();
    let options = TwistOptions {
        max_influences: 4,
        clips: Vec::new(),
        target: FitTarget::Dqs,
        ddm: crate::skin::ddm::DdmParams::DEFAULT,
        dm: crate::skin::dm::DmParams::DEFAULT,
    };
    let request = [TwistRequest { joint: k, count: 2 }];
    let rig = add_twist_joints(&scene, &request, &options, &SceneCenters::default()).unwrap();
    let out = &rig.scene;
    let find = |name: &str| out.nodes.iter().position(|n| n.name == name).unwrap();
    let p = out.nodes[k].parent.unwrap();
    let rest = Pose::rest(out);
    let full = twisted(out, k, 90.0);
    // P's family turns P's skinning by K's turn from rest (K's rest is not its bind pose here).
    let turned = |pose: &Pose| {
        skinning(out, pose, k) * skinning(out, &rest, k).inverse() * skinning(out, &rest, p)
    };
    // Shares 1/3 and 2/3: a 90 degree twist puts both families at 30 and 60 degrees. K's
    // rest is not its bind pose, so each helper has a twin bound like the junction's other end
    // (`_p` like P, `_k` like K): the same turn from rest, applied from the other rest matrix.
    let bound_like_p = |pose: &Pose| skinning(out, pose, k) * skinning(out, &rest, k).inverse();
    for (name, deg, parent_side, from) in [
        ("UpperArm.L_twist_01", 30.0, false, k),
        ("UpperArm.L_twist_02", 60.0, false, k),
        ("UpperArm.L_twist_01_p", 30.0, false, p),
        ("UpperArm.L_twist_parent_01", 30.0, true, p),
        ("UpperArm.L_twist_parent_02", 60.0, true, p),
        ("UpperArm.L_twist_parent_02_k", 60.0, true, k),
    ] {
        let got = skinning(out, &full, find(name));
        let at = twisted(out, k, deg);
        let want = match (parent_side, from == p) {
            (true, true) => turned(&at),
            (true, false) => {
                turned(&at) * skinning(out, &rest, p).inverse() * skinning(out, &rest, k)
            }
            (false, false) => skinning(out, &at, k),
            (false, true) => bound_like_p(&at) * skinning(out, &rest, p),
        };
        assert!(max_diff(got, want) < 1e-5, "{name}: {got} vs {want}");
        // At rest each equals the joint whose weight it may take.
        assert!(max_diff(skinning(out, &rest, find(name)), skinning(out, &rest, from)) < 1e-6);
    }
}
