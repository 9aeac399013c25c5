//! Twist joints on the shared Adventurer: the constraints turn each node as the rule says.

use glam::Mat4;

use super::*;
use crate::anim::{JointAngles, JointOverrides, Pose};
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
    let mut overrides = JointOverrides::new();
    overrides.set(
        joint,
        JointAngles {
            twist_deg: deg,
            ..JointAngles::default()
        },
    );
    let mut pose = Pose::rest(scene);
    pose.sample(scene, None, 0.0, &overrides);
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
    };
    let rig = add_twist_joints(&scene, &[TwistRequest { joint: k, count: 2 }], &options).unwrap();
    let out = &rig.scene;
    let find = |name: &str| out.nodes.iter().position(|n| n.name == name).unwrap();
    let p = out.nodes[k].parent.unwrap();
    let rest = Pose::rest(out);
    let full = twisted(out, k, 90.0);
    // P's family turns P's skinning by K's turn from rest (K's rest is not its bind pose here).
    let turned = |pose: &Pose| {
        skinning(out, pose, k) * skinning(out, &rest, k).inverse() * skinning(out, &rest, p)
    };
    // Shares 1/3 and 2/3: a 90 degree twist puts both families at 30 and 60 degrees.
    for (name, deg, parent_side) in [
        ("UpperArm.L_twist_01", 30.0, false),
        ("UpperArm.L_twist_02", 60.0, false),
        ("UpperArm.L_twist_parent_01", 30.0, true),
        ("UpperArm.L_twist_parent_02", 60.0, true),
    ] {
        let got = skinning(out, &full, find(name));
        let at = twisted(out, k, deg);
        let want = if parent_side {
            turned(&at)
        } else {
            skinning(out, &at, k)
        };
        assert!(max_diff(got, want) < 1e-5, "{name}: {got} vs {want}");
        // At rest each equals the joint whose weight it takes.
        let from = if parent_side { p } else { k };
        assert!(max_diff(skinning(out, &rest, find(name)), skinning(out, &rest, from)) < 1e-6);
    }
}

#[test]
#[ignore]
fn debug_upper_arm_distances() {
    use crate::skin::{
        Betas, CorOptions, CorProgress, SceneCenters, SkinningMode, skin_scene, skin_scene_cor,
    };
    let scene = adventurer().unwrap();
    let k = names::joint(&scene, &std::env::var("DBG_JOINT").unwrap()).unwrap();
    let options = TwistOptions {
        max_influences: 4,
        clips: Vec::new(),
    };
    let rig = add_twist_joints(&scene, &[TwistRequest { joint: k, count: 2 }], &options).unwrap();
    let out = &rig.scene;
    let pose = super::pick::twist_pose(k, 170.0);
    let mut pin = Pose::rest(&scene);
    pin.sample(&scene, None, 0.0, &pose.overrides);
    let mut pout = Pose::rest(out);
    pout.sample(out, None, 0.0, &pose.overrides);
    let centers =
        SceneCenters::compute(&scene, &CorOptions::default(), &CorProgress::new()).unwrap();
    let before = skin_scene(&scene, &pin, SkinningMode::Lbs, Betas::Uniform(0.0));
    let after = skin_scene(out, &pout, SkinningMode::Lbs, Betas::Uniform(0.0));
    let cor = skin_scene_cor(&scene, &pin, &centers);
    let reference = crate::analysis::RestReference::at_rest(&scene);
    let region = reference.region(k).unwrap();
    let skin = &scene.skins[0];
    let p = scene.nodes[k].parent.unwrap();
    let (jk, jp) = (
        skin.joints.iter().position(|&n| n == k).unwrap(),
        skin.joints.iter().position(|&n| n == p).unwrap(),
    );
    let mut rows = Vec::new();
    for (prim, verts) in region.vertices_by_primitive() {
        let inf = scene.meshes[before[prim].mesh].primitives[before[prim].primitive]
            .influences
            .as_ref()
            .unwrap();
        for v in verts {
            let v = v as usize;
            let db = before[prim].vertices.positions[v].distance(cor[prim].vertices.positions[v]);
            let da = after[prim].vertices.positions[v].distance(cor[prim].vertices.positions[v]);
            let w = |j: usize| {
                inf.of(v)
                    .iter()
                    .filter(|i| usize::from(i.joint) == j)
                    .map(|i| i.weight)
                    .sum::<f32>()
            };
            let names: Vec<String> = inf
                .of(v)
                .iter()
                .map(|i| {
                    format!(
                        "{}:{:.2}",
                        scene.nodes[skin.joints[usize::from(i.joint)]].name,
                        i.weight
                    )
                })
                .collect();
            eprintln!("W {} {:.4}->{:.4}", names.join(" "), db, da);
            rows.push((da - db, db, da, w(jp), w(jk), inf.of(v).len()));
        }
    }
    rows.sort_by(|a, b| b.0.total_cmp(&a.0));
    for r in rows.iter().take(15) {
        eprintln!("{r:?}");
    }
    for r in rows.iter().rev().take(5) {
        eprintln!("{r:?}");
    }
}
