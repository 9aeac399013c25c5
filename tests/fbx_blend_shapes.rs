//! FBX blend shapes as morph targets, on the hand-written file of `support::fbx_shapes`.
//!
//! Expected positions are worked out here from the numbers the file was written
//! with (cube corners, shape offsets, node, geometric and bone transforms, the
//! linear curves), not from dqview's loader; the loader's output is only used to
//! tell which control point each vertex stands for.

mod support;

use std::process::Command;

use dqview::anim::{JointOverrides, Pose};
use dqview::scene::{LoadOptions, Mesh, Scene, load_fbx_slice_with, write_glb};
use dqview::skin::{Betas, SkinningMode, skin_scene};
use glam::{Mat3, Mat4, Quat, Vec3};
use support::fbx_shapes as fbx;

/// The time the tests pose at: halfway through both linear curves.
const TIME_S: f32 = 0.5;

fn load() -> Scene {
    let text = fbx::blend_shape_fbx();
    load_fbx_slice_with(text.as_bytes(), None, "blend shapes", &LoadOptions::DEFAULT)
        .unwrap_or_else(|e| panic!("load: {e}"))
}

fn v(a: [f32; 3]) -> Vec3 {
    Vec3::from_array(a)
}

/// The node called `name` and its mesh.
fn node_mesh<'s>(scene: &'s Scene, name: &str) -> (usize, &'s Mesh) {
    let n = scene
        .nodes
        .iter()
        .position(|node| node.name == name)
        .unwrap_or_else(|| panic!("node {name}"));
    let m = scene.nodes[n].mesh.expect("mesh");
    (n, &scene.meshes[m])
}

/// `Box`'s geometric transform (translation, then the scaling).
fn box_geometric() -> Mat4 {
    let (t, s) = fbx::BOX_GEOMETRIC;
    Mat4::from_translation(v(t)) * Mat4::from_scale(v(s))
}

/// The cube corner nearest `p` (in the control points' space).
fn corner_of(p: Vec3) -> usize {
    (0..8)
        .min_by(|&a, &b| {
            let da = v(fbx::cube_point(a)).distance(p);
            let db = v(fbx::cube_point(b)).distance(p);
            da.total_cmp(&db)
        })
        .expect("8 corners")
}

/// The control point of each vertex of `mesh`'s only primitive; `to_points` undoes the
/// transform the loader applied to the positions.
fn control_points(mesh: &Mesh, to_points: Mat4) -> Vec<usize> {
    assert_eq!(mesh.primitives.len(), 1);
    let prim = &mesh.primitives[0];
    let cps: Vec<usize> = prim
        .positions
        .iter()
        .map(|&p| {
            let q = to_points.transform_point3(p);
            let cp = corner_of(q);
            assert!(
                q.distance(v(fbx::cube_point(cp))) < 1e-5,
                "{q} is no corner"
            );
            cp
        })
        .collect();
    // Hard edges everywhere: each corner is three vertices (one per face around it).
    assert_eq!(cps.len(), 24);
    for cp in 0..8 {
        assert_eq!(cps.iter().filter(|&&c| c == cp).count(), 3, "corner {cp}");
    }
    cps
}

/// The displacement a shape gives control point `cp`: `moves` lists (control point, offset).
fn offset(moves: &[(usize, [f32; 3])], cp: usize) -> Vec3 {
    moves.iter().filter(|m| m.0 == cp).map(|m| v(m.1)).sum()
}

fn lift() -> Vec<(usize, [f32; 3])> {
    vec![(7, fbx::LIFT)]
}

fn pinch() -> Vec<(usize, [f32; 3])> {
    vec![(0, fbx::PINCH[0]), (1, fbx::PINCH[1])]
}

fn bulge() -> Vec<(usize, [f32; 3])> {
    vec![(6, fbx::BULGE)]
}

/// `Half` at 100 %: its shape (reached at 50 %) doubled.
fn half() -> Vec<(usize, [f32; 3])> {
    vec![(5, fbx::HALF.map(|x| x / fbx::HALF_FULL))]
}

fn assert_close(got: Vec3, expected: Vec3, what: &str) {
    assert!(got.distance(expected) < 1e-5, "{what}: {got} vs {expected}");
}

fn assert_weights(got: &[f32], expected: &[f32], what: &str) {
    assert_eq!(got.len(), expected.len(), "{what}: {got:?}");
    for (a, b) in got.iter().zip(expected) {
        assert!((a - b).abs() < 1e-6, "{what}: {got:?} vs {expected:?}");
    }
}

#[test]
fn blend_channels_become_named_targets_with_default_weights() {
    let scene = load();
    let (_, boxed) = node_mesh(&scene, "Box");
    let names: Vec<&str> = boxed.primitives[0]
        .morph_targets
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(names, ["Lift", "Pinch"]);
    assert_weights(
        &boxed.morph_weights,
        &[0.0, fbx::PINCH_DEFAULT],
        "Box defaults",
    );
    let (_, skinned) = node_mesh(&scene, "Skinned");
    let names: Vec<&str> = skinned.primitives[0]
        .morph_targets
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(names, ["Bulge", "Half"]);
    // Weight 1 is 100 %: the target is the shape scaled to where 100 % would take it.
    assert_weights(
        &skinned.morph_weights,
        &[0.0, fbx::HALF_DEFAULT],
        "Skinned defaults",
    );
    let has = |words: &[&str]| {
        scene
            .warnings
            .iter()
            .any(|w| words.iter().all(|x| w.contains(x)))
    };
    assert!(has(&["Pinch", "in-between"]), "{:#?}", scene.warnings);
    assert!(has(&["Bulge", "1 shape offsets"]), "{:#?}", scene.warnings);
    assert!(!has(&["not supported"]), "{:#?}", scene.warnings);
    // The rest pose uses the default weights.
    let pose = Pose::rest(&scene);
    let (n, _) = node_mesh(&scene, "Box");
    assert_weights(
        pose.morph_weights_of(n),
        &[0.0, fbx::PINCH_DEFAULT],
        "rest pose",
    );
}

#[test]
fn offsets_move_every_vertex_of_their_control_point_and_no_other() {
    let scene = load();
    // Box: offsets go through the geometric scaling but not its translation.
    let g = box_geometric();
    let (_, boxed) = node_mesh(&scene, "Box");
    let cps = control_points(boxed, g.inverse());
    let targets = &boxed.primitives[0].morph_targets;
    let linear = Mat3::from_mat4(g);
    let normal_matrix = linear.inverse().transpose();
    for (vertex, &cp) in cps.iter().enumerate() {
        let what = format!("Box vertex {vertex} (corner {cp})");
        let lift_at = linear * offset(&lift(), cp);
        assert_close(targets[0].positions[vertex], lift_at, &what);
        let lift_normal = if cp == 7 {
            normal_matrix * v(fbx::LIFT_NORMAL)
        } else {
            Vec3::ZERO
        };
        assert_close(targets[0].normals[vertex], lift_normal, &what);
        // The full-weight shape, not the in-between one.
        assert_close(
            targets[1].positions[vertex],
            linear * offset(&pinch(), cp),
            &what,
        );
    }
    // Skinned: positions stay the control points, and so do the offsets.
    let (_, skinned) = node_mesh(&scene, "Skinned");
    let cps = control_points(skinned, Mat4::IDENTITY);
    let targets = &skinned.primitives[0].morph_targets;
    for (vertex, &cp) in cps.iter().enumerate() {
        let what = format!("Skinned vertex {vertex} (corner {cp})");
        assert_close(targets[0].positions[vertex], offset(&bulge(), cp), &what);
        assert_close(targets[1].positions[vertex], offset(&half(), cp), &what);
    }
}

/// World positions of both meshes at `t` seconds, from the file's numbers.
struct Expected {
    boxed: Vec<Vec3>,
    skinned: Vec<Vec3>,
}

fn expected_at(scene: &Scene, t: f32) -> Expected {
    let g = box_geometric();
    let (_, boxed) = node_mesh(scene, "Box");
    let box_world = Mat4::from_translation(v(fbx::BOX_TRANSLATION)) * g;
    let boxed = control_points(boxed, g.inverse())
        .into_iter()
        .map(|cp| {
            let p = v(fbx::cube_point(cp))
                + t * offset(&lift(), cp)
                + fbx::PINCH_DEFAULT * offset(&pinch(), cp);
            box_world.transform_point3(p)
        })
        .collect();
    let (_, skinned) = node_mesh(scene, "Skinned");
    let bone = v(fbx::BONE_TRANSLATION);
    let turn = Quat::from_rotation_y((t * fbx::BONE_TURN_DEG).to_radians());
    // world_from_bone(t) * bone_from_mesh at bind.
    let skin = Mat4::from_rotation_translation(turn, bone) * Mat4::from_translation(-bone);
    let skinned = control_points(skinned, Mat4::IDENTITY)
        .into_iter()
        .map(|cp| {
            // `Half` at 25 % of 50 %: half its shape.
            let p = v(fbx::cube_point(cp))
                + t * offset(&bulge(), cp)
                + (fbx::HALF_DEFAULT / fbx::HALF_FULL) * v(fbx::HALF) * f32::from(cp == 5);
            skin.transform_point3(p)
        })
        .collect();
    Expected { boxed, skinned }
}

/// Posed positions of node `name` in `posed`.
fn posed_of<'p>(
    scene: &Scene,
    posed: &'p [dqview::skin::PosedPrimitive],
    name: &str,
) -> &'p [Vec3] {
    let (n, _) = node_mesh(scene, name);
    let p = posed
        .iter()
        .find(|p| p.node == n)
        .unwrap_or_else(|| panic!("posed {name}"));
    &p.vertices.positions
}

fn assert_all_close(got: &[Vec3], expected: &[Vec3], what: &str) {
    assert_eq!(got.len(), expected.len(), "{what}: vertex count");
    for (i, (a, b)) in got.iter().zip(expected).enumerate() {
        assert_close(*a, *b, &format!("{what} vertex {i}"));
    }
}

impl Expected {
    /// Asserts both meshes of `posed` are where the file's numbers put them.
    fn assert_matches(&self, scene: &Scene, posed: &[dqview::skin::PosedPrimitive], what: &str) {
        assert_all_close(posed_of(scene, posed, "Box"), &self.boxed, what);
        assert_all_close(posed_of(scene, posed, "Skinned"), &self.skinned, what);
    }
}

#[test]
fn the_clip_animates_the_weights_and_skinning_follows_the_morph() {
    let scene = load();
    assert_eq!(scene.animations.len(), 1);
    let (box_node, _) = node_mesh(&scene, "Box");
    let (skinned_node, _) = node_mesh(&scene, "Skinned");
    let mut pose = Pose::rest(&scene);
    for t in [0.0, TIME_S, 1.0] {
        pose.sample(&scene, Some(0), t, &JointOverrides::new());
        let what = format!("weights at {t} s");
        assert_weights(
            pose.morph_weights_of(box_node),
            &[t, fbx::PINCH_DEFAULT],
            &what,
        );
        assert_weights(
            pose.morph_weights_of(skinned_node),
            &[t, fbx::HALF_DEFAULT],
            &what,
        );
        let expected = expected_at(&scene, t);
        // At 0.5 s the bulge has turned by 45 degrees with the bone: morphing after
        // skinning would leave it pointing along +Z and miss by about 0.38.
        for mode in SkinningMode::ALL {
            let posed = skin_scene(&scene, &pose, mode, Betas::Uniform(0.5));
            expected.assert_matches(&scene, &posed, &format!("{mode} at {t} s"));
        }
    }
}

#[test]
fn glb_export_keeps_the_targets_and_their_animation() {
    let scene = load();
    let glb = write_glb(&scene).expect("write glb");
    let back = support::scene_from_glb(&glb);
    let mut pose = Pose::rest(&back);
    pose.sample(&back, Some(0), TIME_S, &JointOverrides::new());
    let expected = expected_at(&scene, TIME_S);
    let posed = skin_scene(&back, &pose, SkinningMode::Lbs, Betas::Uniform(0.0));
    assert_all_close(posed_of(&back, &posed, "Box"), &expected.boxed, "glb Box");
    assert_all_close(
        posed_of(&back, &posed, "Skinned"),
        &expected.skinned,
        "glb Skinned",
    );
}

#[test]
fn obj_export_at_a_time_shows_the_morph() {
    let scene = load();
    let dir = std::env::temp_dir().join(format!("dqview-fbx-shapes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let model = dir.join("shapes.fbx");
    std::fs::write(&model, fbx::blend_shape_fbx()).expect("write fbx");
    let out = dir.join("shapes.obj");
    let o = Command::new(env!("CARGO_BIN_EXE_dqview"))
        .args(["export", model.to_str().expect("utf-8")])
        .args(["--clip", "0", "--time", &TIME_S.to_string()])
        .args(["--out", out.to_str().expect("utf-8")])
        .output()
        .expect("run dqview");
    assert!(
        o.status.success(),
        "export: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = std::fs::read_to_string(&out).expect("read obj");
    let groups = support::obj_groups(&text);
    let expected = expected_at(&scene, TIME_S);
    // Groups are named `node{N}_mesh{M}_prim{P}`.
    let group = |name: &str| {
        let prefix = format!("node{}_", node_mesh(&scene, name).0);
        groups
            .iter()
            .find(|g| g.0.starts_with(&prefix))
            .unwrap_or_else(|| panic!("OBJ group {name} in {groups:?}"))
            .1
            .clone()
    };
    assert_all_close(&group("Box"), &expected.boxed, "OBJ Box");
    assert_all_close(&group("Skinned"), &expected.skinned, "OBJ Skinned");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn expanded_displacements_count_against_the_byte_limit() {
    let text = fbx::blend_shape_fbx();
    // 24 vertices * 12 bytes per displacement list: Lift's positions and normals,
    // Pinch's, Bulge's and Half's positions make 1440 bytes.
    let options = |max_buffer_bytes| LoadOptions {
        max_buffer_bytes,
        ..LoadOptions::DEFAULT
    };
    let err = load_fbx_slice_with(text.as_bytes(), None, "limit", &options(1400))
        .expect_err("over the limit");
    let msg = err.to_string();
    assert!(
        msg.contains("blend shape") && msg.contains("--max-buffer-bytes"),
        "{msg}"
    );
    load_fbx_slice_with(text.as_bytes(), None, "limit", &options(1440)).expect("at the limit");
}

/// The compute pass morphs the FBX targets before skinning, like the CPU
/// (lavapipe or a real adapter; skipped without one unless `DQVIEW_REQUIRE_GPU=1`).
#[test]
fn compute_pass_morphs_the_fbx_shapes() {
    let Some(gpu) = support::gpu("compute_pass_morphs_the_fbx_shapes") else {
        return;
    };
    let scene = load();
    let mut pose = Pose::rest(&scene);
    for t in [0.0, TIME_S, 1.0] {
        pose.sample(&scene, Some(0), t, &JointOverrides::new());
        let expected = expected_at(&scene, t);
        for mode in dqview::skin::SkinningMode::ALL {
            let posed = gpu
                .skin_scene(&scene, &pose, mode, 0.5)
                .unwrap_or_else(|e| panic!("compute: {e}"));
            expected.assert_matches(&scene, &posed, &format!("GPU {mode} at {t} s"));
        }
    }
}

/// The viewer's Morph targets section lists the channels with the clip's weights.
#[test]
fn viewer_sliders_list_the_channels() {
    let scene = load();
    let mut pose = Pose::rest(&scene);
    pose.sample(&scene, Some(0), TIME_S, &JointOverrides::new());
    let state = dqview::ui::MorphsState::of_scene(&scene, &pose);
    let rows: Vec<(Vec<String>, Vec<f32>)> = state
        .nodes
        .iter()
        .map(|n| (n.targets.clone(), n.weights.clone()))
        .collect();
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(rows[0].0, ["Lift", "Pinch"]);
    assert_weights(&rows[0].1, &[TIME_S, fbx::PINCH_DEFAULT], "Box sliders");
    assert_eq!(rows[1].0, ["Bulge", "Half"]);
    assert_weights(&rows[1].1, &[TIME_S, fbx::HALF_DEFAULT], "Skinned sliders");
}

/// `dqview inspect` lists each mesh's targets, default weights and the clip that animates them.
#[test]
fn inspect_lists_the_targets_their_weights_and_clips() {
    let dir = std::env::temp_dir().join(format!("dqview-fbx-inspect-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let model = dir.join("shapes.fbx");
    std::fs::write(&model, fbx::blend_shape_fbx()).expect("write fbx");
    let run = |json: bool| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_dqview"));
        cmd.args(["inspect", model.to_str().expect("utf-8")]);
        if json {
            cmd.arg("--json");
        }
        let o = cmd.output().expect("run dqview");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let f: serde_json::Value = serde_json::from_str(&run(true)).expect("JSON");
    let morphs = f["morph_targets"].as_array().expect("morph_targets");
    assert_eq!(morphs.len(), 2, "{morphs:#?}");
    let entry = |first: &str| {
        morphs
            .iter()
            .find(|m| m["targets"][0] == first)
            .unwrap_or_else(|| panic!("no mesh with target {first}: {morphs:#?}"))
    };
    for (first, names, defaults) in [
        ("Lift", ["Lift", "Pinch"], [0.0, fbx::PINCH_DEFAULT]),
        ("Bulge", ["Bulge", "Half"], [0.0, fbx::HALF_DEFAULT]),
    ] {
        let m = entry(first);
        assert_eq!(m["targets"], serde_json::json!(names));
        assert_eq!(m["animated_by"], serde_json::json!([0]), "{first}");
        let weights: Vec<f32> = m["default_weights"]
            .as_array()
            .expect("weights")
            .iter()
            .map(|w| w.as_f64().expect("number") as f32)
            .collect();
        assert_weights(&weights, &defaults, first);
    }
    let text = run(false);
    assert!(text.contains("morphs      4 targets on 2 meshes"), "{text}");
    assert!(text.contains("Lift = 0.000, Pinch = 0.400"), "{text}");
    assert!(text.contains("; animated by clip 0"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_control_point_without_a_finite_position_is_drawn_nowhere_and_named() {
    // 1e39 is a finite f64 but no f32: the first cube's control point 0, in three faces (each
    // corner with its own normal, so three vertices).
    let text = fbx::blend_shape_fbx();
    for spelled in ["1e39", "nan"] {
        let bad = text.replacen("a: 0,0,0,1,0,0", &format!("a: {spelled},0,0,1,0,0"), 1);
        assert_ne!(bad, text, "the first cube's first point");
        let scene = load_fbx_slice_with(bad.as_bytes(), None, "bad point", &LoadOptions::DEFAULT)
            .unwrap_or_else(|e| panic!("load: {e}"));
        let faults: Vec<_> = scene
            .faults
            .iter()
            .filter(|f| f.kind == dqview::scene::FaultKind::NonFinitePositions)
            .collect();
        let [fault] = faults.as_slice() else {
            panic!("{spelled}: one positions fault: {:?}", scene.faults);
        };
        assert_eq!(fault.count, 3, "{spelled}: {}", fault.message());
        assert_eq!(
            fault.first,
            Some(0),
            "{spelled}: control point 0 is vertex 0"
        );
        let m = scene
            .meshes
            .iter()
            .position(|m| fault.place.contains(&format!("mesh `{}`", m.name)))
            .unwrap_or_else(|| panic!("{spelled}: the place names a mesh: {}", fault.place));
        let prim = &scene.meshes[m].primitives[0];
        // The triangles of the three quads at point 0 are gone (3 to 6 of 12, by how each
        // quad is split), and every vertex slot holds the place of a vertex a triangle uses:
        // none was moved anywhere new.
        let dropped = 12 - prim.indices.len() / 3;
        assert!((3..=6).contains(&dropped), "{spelled}: {dropped} dropped");
        let said = format!("the {dropped} triangles using them are dropped");
        assert!(
            fault.message().contains(&said),
            "{spelled}: {}",
            fault.message()
        );
        let used: Vec<Vec3> = prim
            .indices
            .iter()
            .map(|&i| prim.positions[i as usize])
            .collect();
        for p in &prim.positions {
            assert!(
                p.is_finite() && used.contains(p),
                "{spelled}: {p} is no drawn vertex"
            );
        }
    }
}
