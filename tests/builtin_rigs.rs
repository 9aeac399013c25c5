//! The built-in rigs through the public API: geometry, weights, rest pose, skinning, GLB export.

mod support;

use dqview::builtin::{BUILTIN_NAMES, builtin_glb, builtin_scene};
use dqview::scene::{Interpolation, Property, Scene, SceneError};
use dqview::skin::{Betas, JointPalette, SkinMesh, SkinnedVertices, SkinningMode, skin_vertices};
use glam::{Mat4, Quat, Vec2, Vec3};
use support::{
    assert_floats_close, assert_scenes_match, check_glb_container, global_matrices, scene_from_glb,
    u32_at,
};

/// A joint as documented: name, parent joint index, world height.
type JointSpec = (&'static str, Option<usize>, f32);

fn all_rigs() -> Vec<(&'static str, Scene)> {
    BUILTIN_NAMES
        .iter()
        .map(|&n| (n, builtin_scene(n).expect("built-in rig")))
        .collect()
}

/// Skinning matrices `world_from_joint * joint_from_bind` with some joints' local rotations replaced.
fn skinning_matrices(scene: &Scene, posed: &[(usize, Quat)]) -> Vec<Mat4> {
    let mut scene = scene.clone();
    for &(node, rotation) in posed {
        let dqview::scene::NodeTransform::Trs(trs) = &mut scene.nodes[node].transform else {
            panic!("built-in joints use TRS");
        };
        trs.rotation = rotation;
    }
    let globals = global_matrices(&scene);
    let skin = &scene.skins[0];
    skin.joints
        .iter()
        .zip(&skin.inverse_bind)
        .map(|(&j, ibm)| globals[j] * *ibm)
        .collect()
}

fn skin(scene: &Scene, posed: &[(usize, Quat)], mode: SkinningMode) -> SkinnedVertices {
    let prim = &scene.meshes[0].primitives[0];
    let palette = JointPalette::from_matrices(&skinning_matrices(scene, posed));
    let mesh = SkinMesh {
        positions: &prim.positions,
        normals: &prim.normals,
        tangents: &[],
        influences: prim.influences.as_ref().expect("rigs are skinned"),
    };
    let mut out = SkinnedVertices::default();
    skin_vertices(&palette, &mesh, mode, Betas::Uniform(1.0), &mut out);
    out
}

#[test]
fn names_and_sources() {
    assert_eq!(BUILTIN_NAMES, ["twist", "elbow", "arm"]);
    for (name, scene) in all_rigs() {
        assert_eq!(scene.source, format!("builtin:{name}"));
    }
    let err = builtin_scene("spine").unwrap_err();
    assert!(matches!(err, SceneError::UnknownBuiltin(_)));
    assert!(matches!(
        builtin_glb("spine"),
        Err(SceneError::UnknownBuiltin(_))
    ));
}

#[test]
fn joint_names_and_layout_are_as_documented() {
    let expected: [(&str, &[JointSpec]); 3] = [
        ("twist", &[("base", None, 0.0), ("tip", Some(0), 1.0)]),
        ("elbow", &[("upper", None, 0.0), ("lower", Some(0), 1.0)]),
        (
            "arm",
            &[
                ("shoulder", None, 0.0),
                ("upper_arm", Some(0), 0.3),
                ("elbow", Some(1), 1.3),
                ("forearm_twist", Some(2), 1.8),
                ("wrist", Some(3), 2.3),
            ],
        ),
    ];
    for (name, joints) in expected {
        let scene = builtin_scene(name).unwrap();
        let globals = global_matrices(&scene);
        let skin = &scene.skins[0];
        assert_eq!(skin.joints.len(), joints.len(), "{name}");
        for (&node, &(joint_name, parent, height)) in skin.joints.iter().zip(joints) {
            let n = &scene.nodes[node];
            assert_eq!(n.name, joint_name);
            assert_eq!(n.parent, parent, "{joint_name} parent");
            let at = globals[node].transform_point3(Vec3::ZERO);
            assert!(
                at.abs_diff_eq(Vec3::new(0.0, height, 0.0), 1e-6),
                "{joint_name} at {at}"
            );
            if let Some(p) = parent {
                assert!(scene.nodes[p].children.contains(&node));
            }
        }
        // The mesh node is a separate root that carries the skin and no joint.
        let mesh_nodes: Vec<usize> = (0..scene.nodes.len())
            .filter(|&i| scene.nodes[i].mesh.is_some())
            .collect();
        assert_eq!(mesh_nodes.len(), 1, "{name}");
        let m = mesh_nodes[0];
        assert!(!skin.joints.contains(&m));
        assert_eq!(scene.nodes[m].skin, Some(0));
        assert!(scene.roots.contains(&m) && scene.roots.contains(&skin.joints[0]));
        assert_eq!(skin.skeleton, Some(skin.joints[0]));
    }
}

#[test]
fn twist_is_dense_enough() {
    let scene = builtin_scene("twist").unwrap();
    let prim = &scene.meshes[0].primitives[0];
    assert!(prim.positions.len() >= 2000, "{}", prim.positions.len());
    assert_eq!(prim.normals.len(), prim.positions.len());
    assert_eq!(prim.uvs.as_ref().map(Vec::len), Some(prim.positions.len()));
    assert!(prim.positions.iter().all(|p| p.y >= 0.0 && p.y <= 2.0));
}

#[test]
fn weights_sum_to_one_sorted_and_at_most_four() {
    for (name, scene) in all_rigs() {
        let joints = scene.skins[0].joints.len();
        let prim = &scene.meshes[0].primitives[0];
        let inf = prim.influences.as_ref().unwrap();
        assert_eq!(inf.vertex_count(), prim.positions.len(), "{name}");
        assert_eq!(inf.unweighted_vertices(), 0, "{name}");
        assert!(inf.max_influences() <= 4, "{name}");
        for (v, row) in inf.iter().enumerate() {
            let sum: f32 = row.iter().map(|i| i.weight).sum();
            assert!((sum - 1.0).abs() < 1e-6, "{name} vertex {v} sums to {sum}");
            assert!(
                row.windows(2).all(|w| w[0].weight >= w[1].weight),
                "{name} vertex {v} unsorted"
            );
            assert!(
                row.iter()
                    .all(|i| (i.joint as usize) < joints && i.weight > 0.0)
            );
        }
    }
}

#[test]
fn twist_blends_two_joints_over_the_middle() {
    let scene = builtin_scene("twist").unwrap();
    let prim = &scene.meshes[0].primitives[0];
    let inf = prim.influences.as_ref().unwrap();
    for (p, row) in prim.positions.iter().zip(inf.iter()) {
        let t = ((p.y - 0.5) / 1.0).clamp(0.0, 1.0);
        let tip = t * t * (3.0 - 2.0 * t);
        let got = row.iter().find(|i| i.joint == 1).map_or(0.0, |i| i.weight);
        assert!((got - tip).abs() < 1e-6, "y = {}: {got} vs {tip}", p.y);
    }
}

#[test]
fn rest_pose_skinning_matrices_are_identity() {
    for (name, scene) in all_rigs() {
        for (j, m) in skinning_matrices(&scene, &[]).iter().enumerate() {
            assert!(m.abs_diff_eq(Mat4::IDENTITY, 1e-6), "{name} joint {j}: {m}");
        }
        // And so the CPU reference skinning leaves the rest pose in place.
        let prim = &scene.meshes[0].primitives[0];
        for mode in SkinningMode::ALL {
            let out = skin(&scene, &[], mode);
            for (a, b) in out.positions.iter().zip(&prim.positions) {
                assert!(a.abs_diff_eq(*b, 1e-5), "{name} {mode}: {a} vs {b}");
            }
        }
    }
}

#[test]
fn twisting_tip_half_a_turn_collapses_lbs_but_not_dqs() {
    let scene = builtin_scene("twist").unwrap();
    let prim = &scene.meshes[0].primitives[0];
    let half_turn = [(1, Quat::from_rotation_y(std::f32::consts::PI))];
    let lbs = skin(&scene, &half_turn, SkinningMode::Lbs);
    let dqs = skin(&scene, &half_turn, SkinningMode::Dqs);
    let radius = |p: Vec3| Vec2::new(p.x, p.z).length();
    let mut middle = 0;
    for (v, p) in prim.positions.iter().enumerate() {
        // Side vertices of the middle ring (the caps are at y = 0 and 2).
        if (p.y - 1.0).abs() < 1e-5 {
            middle += 1;
            assert!(
                radius(lbs.positions[v]) < 1e-3,
                "LBS keeps {}",
                lbs.positions[v]
            );
            assert!((radius(dqs.positions[v]) - 0.25).abs() < 1e-4);
        }
    }
    assert!(middle > 0);
}

#[test]
fn arm_clip_twists_and_bends() {
    let scene = builtin_scene("arm").unwrap();
    assert_eq!(scene.animations.len(), 1);
    let clip = &scene.animations[0];
    assert_eq!(clip.name, "twist_and_bend");
    assert_eq!(clip.channels.len(), 2);
    let expected = [
        ("elbow", Vec3::Z, 120.0f32),
        ("forearm_twist", Vec3::Y, 170.0),
    ];
    for (ch, (joint, axis, degrees)) in clip.channels.iter().zip(expected) {
        assert_eq!(scene.nodes[ch.node].name, joint);
        assert_eq!(ch.property, Property::Rotation);
        assert_eq!(ch.interpolation, Interpolation::Linear);
        assert!(ch.times_s.len() >= 5);
        assert_eq!(ch.times_s.first(), Some(&0.0));
        assert_eq!(ch.times_s.last(), Some(&2.0));
        assert!(ch.times_s.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(ch.values.len(), 4 * ch.times_s.len());
        let keys: Vec<Quat> = ch
            .values
            .chunks_exact(4)
            .map(|q| Quat::from_slice(q))
            .collect();
        let mut last_angle = -1.0;
        for q in &keys {
            assert!((q.length() - 1.0).abs() < 1e-6, "{joint} key not unit");
            let (key_axis, angle) = q.to_axis_angle();
            if angle > 1e-4 {
                assert!(key_axis.abs_diff_eq(axis, 1e-5), "{joint} axis {key_axis}");
            }
            assert!(angle >= last_angle, "{joint} angle goes backwards");
            last_angle = angle;
        }
        assert!(keys[0].abs_diff_eq(Quat::IDENTITY, 1e-7));
        assert!((last_angle.to_degrees() - degrees).abs() < 1e-3);
    }
}

#[test]
fn each_rig_has_a_coloured_material() {
    for (name, scene) in all_rigs() {
        assert_eq!(scene.materials.len(), 1, "{name}");
        let c = scene.materials[0].base_color_factor;
        assert!(c.truncate().min_element() < 0.9, "{name} is white-ish");
        assert_eq!(c.w, 1.0);
        assert_eq!(scene.meshes[0].primitives[0].material, Some(0));
    }
}

#[test]
fn glb_container_is_well_formed() {
    for name in BUILTIN_NAMES {
        let glb = builtin_glb(name).unwrap();
        let (json, bin) = check_glb_container(&glb);
        let bin = bin.expect("rigs have binary data");
        let json: serde_json::Value = serde_json::from_str(json.trim_end()).unwrap();
        let buffer_len = json["buffers"][0]["byteLength"].as_u64().unwrap() as usize;
        assert!(buffer_len <= bin.len() && bin.len() - buffer_len < 4);
        assert!(bin[buffer_len..].iter().all(|&b| b == 0));
        assert_eq!(u32_at(&glb, 8) as usize, glb.len());
        for view in json["bufferViews"].as_array().unwrap() {
            assert_eq!(view["byteOffset"].as_u64().unwrap() % 4, 0, "{name}");
        }
    }
}

#[test]
fn glb_parses_and_matches_the_scene() {
    for (name, scene) in all_rigs() {
        let glb = builtin_glb(name).unwrap();
        // `from_slice` validates the document; `import_slice` also resolves the buffers.
        let gltf = gltf::Gltf::from_slice(&glb).unwrap();
        assert!(gltf.blob.is_some());
        let (doc, buffers, _) = gltf::import_slice(&glb).unwrap();
        let get = |b: gltf::Buffer<'_>| Some(&buffers[b.index()].0[..]);
        assert_eq!(doc.nodes().count(), scene.nodes.len());
        assert_eq!(doc.meshes().count(), 1);
        assert_eq!(doc.skins().count(), 1);
        assert_eq!(doc.animations().count(), scene.animations.len());

        let prim_scene = &scene.meshes[0].primitives[0];
        let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
        let r = prim.reader(get);
        let positions: Vec<f32> = r.read_positions().unwrap().flatten().collect();
        let expected: Vec<f32> = prim_scene
            .positions
            .iter()
            .flat_map(|p| p.to_array())
            .collect();
        assert_floats_close(&positions, &expected, 1e-6, "positions");
        // POSITION's min/max, which the spec requires, bound the data exactly.
        let bounds = prim.bounding_box();
        let min = prim_scene
            .positions
            .iter()
            .fold(Vec3::INFINITY, |a, &p| a.min(p));
        let max = prim_scene
            .positions
            .iter()
            .fold(Vec3::NEG_INFINITY, |a, &p| a.max(p));
        assert_floats_close(&bounds.min, &min.to_array(), 0.0, "POSITION min");
        assert_floats_close(&bounds.max, &max.to_array(), 0.0, "POSITION max");
        let indices: Vec<u32> = r.read_indices().unwrap().into_u32().collect();
        assert_eq!(indices, prim_scene.indices);

        let joints: Vec<[u16; 4]> = r.read_joints(0).unwrap().into_u16().collect();
        let weights: Vec<[f32; 4]> = r.read_weights(0).unwrap().into_f32().collect();
        assert!(
            r.read_joints(1).is_none(),
            "{name}: four influences fit one set"
        );
        let inf = prim_scene.influences.as_ref().unwrap();
        for (v, row) in inf.iter().enumerate() {
            for k in 0..4 {
                let (j, w) = row.get(k).map_or((0, 0.0), |i| (i.joint, i.weight));
                assert_eq!(joints[v][k], j, "{name} vertex {v} joint {k}");
                assert!(
                    (weights[v][k] - w).abs() < 1e-6,
                    "{name} vertex {v} weight {k}"
                );
            }
        }

        let skin = doc.skins().next().unwrap();
        let joint_nodes: Vec<usize> = skin.joints().map(|j| j.index()).collect();
        assert_eq!(joint_nodes, scene.skins[0].joints);
        let ibms: Vec<f32> = skin
            .reader(get)
            .read_inverse_bind_matrices()
            .unwrap()
            .flat_map(|m| m.into_iter().flatten())
            .collect();
        let expected: Vec<f32> = scene.skins[0]
            .inverse_bind
            .iter()
            .flat_map(|m| m.to_cols_array())
            .collect();
        assert_floats_close(&ibms, &expected, 1e-6, "inverse bind matrices");

        for (anim, anim_scene) in doc.animations().zip(&scene.animations) {
            assert_eq!(anim.name(), Some(anim_scene.name.as_str()));
            for (ch, ch_scene) in anim.channels().zip(&anim_scene.channels) {
                assert_eq!(ch.target().node().index(), ch_scene.node);
                let r = ch.reader(get);
                let times: Vec<f32> = r.read_inputs().unwrap().collect();
                assert_floats_close(&times, &ch_scene.times_s, 1e-6, "times");
                let Some(gltf::animation::util::ReadOutputs::Rotations(q)) = r.read_outputs()
                else {
                    panic!("rotation outputs expected");
                };
                let values: Vec<f32> = q.into_f32().flatten().collect();
                assert_floats_close(&values, &ch_scene.values, 1e-6, "rotations");
            }
        }

        // The whole scene, field by field, as a loader would rebuild it.
        assert_scenes_match(&scene, &scene_from_glb(&glb), 1e-6);
    }
}
