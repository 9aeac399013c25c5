//! `.vrm` files (VRM 0.x and 1.0 are GLBs) open as models: the humanoid bone names resolve
//! wherever a joint is typed, `inspect` shows the version and the map, a VRM 0.x character
//! (facing -Z) is framed from its front, and a broken humanoid entry is a warning.
//!
//! There is no VRM in the shared data, so each test writes one: RobotExpressive.glb
//! (`DQVIEW_CHARACTERS`) with a `VRMC_vrm` or `VRM` extension added to its JSON chunk.

mod support;

use std::path::{Path, PathBuf};

use dqview::model::load_model;
use dqview::scene::names::{self, NameError};
use dqview::ui::{JointTree, OrbitCamera, ViewAxes, matching_rows};
use serde_json::{Value, json};
use support::{characters_dir, dqview_in, scratch_dir, stderr_of};

/// Humanoid bones given to RobotExpressive's joints, as (VRM bone, node, node name).
const BONES: [(&str, usize, &str); 6] = [
    ("hips", 8, "Hips"),
    ("spine", 9, "Abdomen"),
    ("head", 12, "Head"),
    ("leftUpperArm", 17, "UpperArm.L"),
    ("leftLowerArm", 19, "LowerArm.L"),
    ("rightLowerArm", 39, "LowerArm.R"),
];

/// `glb` with `extension` added to the root `extensions` (and `extensionsUsed`), the JSON
/// chunk re-padded and every length rewritten.
fn with_root_extension(glb: &[u8], name: &str, extension: Value) -> Vec<u8> {
    let u32_at = |at: usize| u32::from_le_bytes(glb[at..at + 4].try_into().expect("4 bytes"));
    assert_eq!(&glb[..4], b"glTF", "a GLB");
    assert_eq!(&glb[16..20], b"JSON", "the first chunk is JSON");
    let json_len = u32_at(12) as usize;
    let mut root: Value = serde_json::from_slice(&glb[20..20 + json_len]).expect("JSON chunk");
    root["extensions"][name] = extension;
    let used = root["extensionsUsed"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    root["extensionsUsed"] = Value::Array([used, vec![json!(name)]].concat());
    let mut text = serde_json::to_vec(&root).expect("JSON");
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let rest = &glb[20 + json_len..];
    let total = 12 + 8 + text.len() + rest.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&u32::try_from(total).expect("size").to_le_bytes());
    out.extend_from_slice(&u32::try_from(text.len()).expect("size").to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    out.extend_from_slice(rest);
    out
}

/// VRM 1.0's `VRMC_vrm` with [`BONES`] (`humanBones` is an object).
fn vrm_1_0() -> (&'static str, Value) {
    let bones: serde_json::Map<String, Value> = BONES
        .iter()
        .map(|&(bone, node, _)| (bone.to_string(), json!({ "node": node })))
        .collect();
    let ext = json!({
        "specVersion": "1.0",
        "meta": {"name": "Robot", "licenseUrl": "https://vrm.dev/licenses/1.0/"},
        "humanoid": {"humanBones": bones},
    });
    ("VRMC_vrm", ext)
}

/// VRM 0.x's `VRM` with [`BONES`] and `extra` entries (`humanBones` is an array).
fn vrm_0_x(extra: &[Value]) -> (&'static str, Value) {
    let mut bones: Vec<Value> = BONES
        .iter()
        .map(|&(bone, node, _)| json!({"bone": bone, "node": node, "useDefaultValues": true}))
        .collect();
    bones.extend_from_slice(extra);
    let ext = json!({
        "specVersion": "0.0",
        "exporterVersion": "UniVRM-0.99",
        "humanoid": {"humanBones": bones},
    });
    ("VRM", ext)
}

/// Writes RobotExpressive with `extension` as `dir/file` and returns its path, or `None`
/// after a skip message when the characters folder is not set.
fn robot_vrm(test: &str, file: &str, extension: (&str, Value)) -> Option<(PathBuf, String)> {
    let characters = characters_dir(test)?;
    let glb = std::fs::read(characters.join("RobotExpressive.glb")).expect("RobotExpressive.glb");
    let dir = scratch_dir(test);
    let path = dir.join(file);
    std::fs::write(&path, with_root_extension(&glb, extension.0, extension.1)).expect("write");
    let spec = path.to_str().expect("utf-8").to_string();
    Some((dir, spec))
}

/// Runs dqview with `args` (cache in `dir`), asserting success; its stdout.
fn run_ok(dir: &Path, args: &[&str]) -> String {
    let out = dqview_in(args, &dir.join("cache"));
    assert!(out.status.success(), "{args:?}: {}", stderr_of(&out));
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn a_vrm_1_0_file_loads_and_its_bone_names_resolve_to_the_mapped_nodes() {
    let test = "a_vrm_1_0_file_loads_and_its_bone_names_resolve_to_the_mapped_nodes";
    let Some((_dir, spec)) = robot_vrm(test, "robot.vrm", vrm_1_0()) else {
        return;
    };
    let scene = load_model(&spec).expect("a .vrm loads as GLB");
    assert_eq!(scene.source_info.format, "glTF (VRM 1.0)");
    assert_eq!(scene.source_info.axes_text(), "+Y up, +Z front, +X right");
    let bones: Vec<(&str, usize)> = (scene.humanoid.iter())
        .map(|b| (b.bone.as_str(), b.node))
        .collect();
    let expected: Vec<(&str, usize)> = BONES.iter().map(|&(b, n, _)| (b, n)).collect();
    assert_eq!(bones, expected, "every bone, in VRM's order");
    for (bone, node, name) in BONES {
        assert_eq!(scene.nodes[node].name, name);
        assert_eq!(names::joint(&scene, bone), Ok(node), "{bone}");
        assert_eq!(
            names::pose_node(&scene, &bone.to_uppercase()),
            Ok(node),
            "{bone}"
        );
        assert_eq!(names::node(&scene, bone), Ok(node), "{bone}");
    }
    // Two nodes are named `Head`: the node name is ambiguous, the bone name is not.
    assert!(matches!(
        names::node(&scene, "Head"),
        Err(NameError::Ambiguous { .. })
    ));
    assert_eq!(names::node(&scene, "head"), Ok(12));
    let err = names::joint(&scene, "leftLowerArn").expect_err("a typo");
    assert!(err.to_string().contains("`leftLowerArm`"), "{err}");
    // The viewer's joint search finds the bone names and shows them beside the node's.
    let tree = JointTree::of_skin(&scene, 0);
    let rows = matching_rows(&tree, "leftlowerarm");
    assert_eq!(rows.len(), 1);
    assert_eq!(tree.rows[rows[0]].node, 19);
    assert_eq!(tree.rows[rows[0]].label(), "LowerArm.L (leftLowerArm)");
    assert!(
        scene.warnings.iter().all(|w| !w.contains("VRM")),
        "{:?}",
        scene.warnings
    );
}

#[test]
fn commands_take_bone_names_and_inspect_shows_the_map() {
    let test = "commands_take_bone_names_and_inspect_shows_the_map";
    let Some((dir, spec)) = robot_vrm(test, "Robot.VRM", vrm_1_0()) else {
        return;
    };
    let by_bone = run_ok(
        &dir,
        &[
            "analyze",
            &spec,
            "--twist",
            "leftLowerArm=90",
            "--joint",
            "leftLowerArm",
        ],
    );
    let by_node = run_ok(
        &dir,
        &[
            "analyze",
            &spec,
            "--twist",
            "LowerArm.L=90",
            "--joint",
            "LowerArm.L",
        ],
    );
    assert!(by_bone.contains("LowerArm.L (node 19)"), "{by_bone}");
    assert_eq!(by_bone, by_node, "the bone name is the node");
    let text = run_ok(&dir, &["inspect", &spec]);
    assert!(text.contains("format      glTF (VRM 1.0)"), "{text}");
    assert!(
        text.contains("humanoid    VRM 1.0, 6 humanoid bones"),
        "{text}"
    );
    assert!(
        text.contains("  leftLowerArm = LowerArm.L (node 19)"),
        "{text}"
    );
    let facts: Value =
        serde_json::from_str(&run_ok(&dir, &["inspect", &spec, "--json"])).expect("JSON");
    assert_eq!(facts["vrm"]["version"], "1.0");
    let map = facts["vrm"]["humanoid"].as_array().expect("humanoid");
    assert_eq!(map.len(), BONES.len());
    assert_eq!(
        map[4],
        json!({"bone": "leftLowerArm", "node": 19, "name": "LowerArm.L"})
    );
    // `check` finds the file in a folder search.
    let out = dqview_in(
        &["check", dir.to_str().expect("utf-8"), "--json"],
        &dir.join("cache"),
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("check JSON");
    let files = report["files"].as_array().expect("files");
    assert_eq!(files.len(), 1, "{report}");
    assert_eq!(files[0]["file"], json!(spec));
    // A plain GLB has no VRM facts.
    let glb = characters_dir(test)
        .expect("set")
        .join("RobotExpressive.glb");
    let plain: Value = serde_json::from_str(&run_ok(
        &dir,
        &["inspect", glb.to_str().expect("utf-8"), "--json"],
    ))
    .expect("JSON");
    assert_eq!(plain["vrm"], Value::Null);
}

#[test]
fn a_vrm_0_x_character_faces_minus_z_and_is_framed_from_its_front() {
    let test = "a_vrm_0_x_character_faces_minus_z_and_is_framed_from_its_front";
    let Some((dir, spec)) = robot_vrm(test, "robot0.vrm", vrm_0_x(&[])) else {
        return;
    };
    let scene = load_model(&spec).expect("loads");
    assert_eq!(scene.source_info.format, "glTF (VRM 0.0)");
    assert_eq!(scene.source_info.axes_text(), "+Y up, -Z front, -X right");
    assert_eq!(names::joint(&scene, "leftLowerArm"), Ok(19));
    let axes = ViewAxes::of(&scene.source_info);
    assert_eq!(
        axes.front,
        glam::Vec3::NEG_Z,
        "the axes are a right-handed frame"
    );
    // The viewer's and `render`'s camera: the default angles in the file's axes.
    let camera = OrbitCamera {
        axes,
        ..OrbitCamera::default()
    };
    let eye = camera.eye() - camera.target;
    assert!(
        eye.z < -0.5 * eye.length(),
        "the default view is from -Z: {eye}"
    );
    let facts: Value =
        serde_json::from_str(&run_ok(&dir, &["inspect", &spec, "--json"])).expect("JSON");
    assert_eq!(
        facts["axes"],
        json!({"up": "+Y", "front": "-Z", "right": "-X"})
    );
    assert_eq!(facts["vrm"]["version"], "0.0");
}

#[test]
fn a_broken_humanoid_entry_is_a_warning_and_the_rest_loads() {
    let test = "a_broken_humanoid_entry_is_a_warning_and_the_rest_loads";
    let extra = [
        json!({"bone": "leftHand", "node": 999}),
        json!({"bone": "tail", "node": 3}),
    ];
    let Some((dir, spec)) = robot_vrm(test, "broken.vrm", vrm_0_x(&extra)) else {
        return;
    };
    let scene = load_model(&spec).expect("a broken humanoid entry does not fail the load");
    assert_eq!(scene.humanoid.len(), BONES.len());
    let warnings: Vec<&String> = scene
        .warnings
        .iter()
        .filter(|w| w.contains("humanoid"))
        .collect();
    assert_eq!(
        warnings,
        [
            "VRM humanoid humanBones[6]: `leftHand`: node 999 is not a node (74 nodes); ignored",
            "VRM humanoid humanBones[7]: `tail` is not a VRM humanoid bone name; ignored",
        ]
    );
    let err = names::joint(&scene, "leftHand").expect_err("dropped");
    assert!(matches!(err, NameError::Unknown { .. }), "{err}");
    let text = run_ok(&dir, &["inspect", &spec]);
    assert!(
        text.contains("warning     VRM humanoid humanBones[6]"),
        "{text}"
    );
}
