//! Graphs a file controls the depth of: a `VRMC_node_constraint` chain of 100,000 nodes (each
//! reading its parent) opens in every command without overflowing the stack (the constraint
//! order was a recursive walk: `inspect`, `export` and `render` aborted at 100,000 nodes,
//! `check` at 30,000), and the chain's constraints are all kept and evaluated.

mod support;

use std::path::Path;

use serde_json::{Value, json};

/// Nodes in the chain.
const CHAIN: usize = 100_000;

/// A skinned quad bound to the chain's first two nodes, then `chain` nodes, each the child of
/// the one before (0.01 up +Y) and (but the first) rotation-constrained to it, so each turns
/// from rest as its parent does; the first rests turned 11.5 degrees about Z.
fn constraint_chain(chain: usize) -> Value {
    let mut bin: Vec<u8> = Vec::new();
    let positions: [f32; 12] = [0., 0., 0., 1., 0., 0., 1., 1., 0., 0., 1., 0.];
    positions.iter().for_each(|f| bin.extend(f.to_le_bytes()));
    [0u16, 1, 2, 0, 2, 3]
        .iter()
        .for_each(|i| bin.extend(i.to_le_bytes()));
    bin.extend([0u8; 4]);
    (0..4).for_each(|_| bin.extend([1u8, 0, 0, 0]));
    (0..4).for_each(|_| {
        [1f32, 0., 0., 0.]
            .iter()
            .for_each(|f| bin.extend(f.to_le_bytes()))
    });
    let identity: [f32; 16] = [
        1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1.,
    ];
    (0..2).for_each(|_| identity.iter().for_each(|f| bin.extend(f.to_le_bytes())));
    use base64::Engine as _;
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bin)
    );
    let nodes = vec![json!({"name": "quad", "mesh": 0, "skin": 0})];
    let mut file = json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["VRMC_node_constraint"],
        "buffers": [{"byteLength": bin.len(), "uri": uri}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 48},
            {"buffer": 0, "byteOffset": 48, "byteLength": 12},
            {"buffer": 0, "byteOffset": 64, "byteLength": 16},
            {"buffer": 0, "byteOffset": 80, "byteLength": 64},
            {"buffer": 0, "byteOffset": 144, "byteLength": 128}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0]},
            {"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"},
            {"bufferView": 2, "componentType": 5121, "count": 4, "type": "VEC4"},
            {"bufferView": 3, "componentType": 5126, "count": 4, "type": "VEC4"},
            {"bufferView": 4, "componentType": 5126, "count": 2, "type": "MAT4"}
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 2, "WEIGHTS_0": 3}, "indices": 1}]}],
        "skins": [{"joints": [1, 2], "inverseBindMatrices": 4}],
        "nodes": nodes,
        "scenes": [{"nodes": [0, 1]}],
        "scene": 0
    });
    file["nodes"] = Value::Array(
        std::iter::once(file["nodes"][0].take())
            .chain((0..chain).map(|i| chain_node(i, chain)))
            .collect(),
    );
    file
}

/// Node `1 + i` of a chain of `chain`: its child, and (but the first) its constraint.
fn chain_node(i: usize, chain: usize) -> Value {
    let k = 1 + i;
    let mut node = json!({"name": format!("j{i}"), "translation": [0.0, 0.01, 0.0]});
    if i + 1 < chain {
        node["children"] = json!([k + 1]);
    }
    if i == 0 {
        node["rotation"] = json!([0.0, 0.0, 0.0998, 0.995]);
    } else {
        node["extensions"] = json!({"VRMC_node_constraint": {
            "specVersion": "1.0",
            "constraint": {"rotation": {"source": k - 1, "weight": 1.0}}
        }});
    }
    node
}

/// The chain's file as text, its nodes written one at a time: a million nodes as JSON values
/// would take this test itself gigabytes.
fn constraint_chain_text(chain: usize) -> String {
    let mut head = constraint_chain(0);
    let quad = head["nodes"][0].take();
    head["nodes"] = json!("NODES");
    let text = head.to_string();
    let mut nodes = format!("[{quad}");
    for i in 0..chain {
        nodes.push(',');
        nodes.push_str(&chain_node(i, chain).to_string());
    }
    nodes.push(']');
    text.replacen("\"NODES\"", &nodes, 1)
}

fn text(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

#[test]
fn a_100000_node_constraint_chain_opens_in_every_command() {
    let dir = support::scratch_dir("hostile_graphs_chain");
    let file = dir.join("chain.gltf");
    std::fs::write(&file, constraint_chain_text(CHAIN)).expect("write");
    let cache = dir.join("cache");

    // Loaded in this process too: every constraint is kept, ordered from the top down.
    let scene = dqview::model::load_model(text(&file)).expect("the chain loads");
    assert_eq!(scene.constraints.len(), CHAIN - 1);
    let destinations: Vec<usize> = scene.constraints.iter().map(|c| c.destination).collect();
    assert!(destinations.windows(2).all(|w| w[0] < w[1]));
    // The constraints are evaluated in one pass: the first node twisted 20 degrees about its
    // bone (+Y), each node below turns as its parent does, so node k turns k times 20 degrees.
    let mut pose = dqview::anim::Pose::rest(&scene);
    let twist = dqview::anim::JointOverrides::twist(1, 20.0);
    pose.sample(&scene, None, 0.0, &twist);
    let rest = glam::Quat::from_rotation_z(2.0 * 0.0998f32.atan2(0.995));
    for k in [1usize, 2, 3, 1000] {
        let turned = pose.global[k].to_scale_rotation_translation().1;
        let expected = rest * glam::Quat::from_rotation_y((20.0 * k as f32).to_radians());
        assert!(
            turned.angle_between(expected) < 1e-2,
            "node {k}: {turned} vs {expected}"
        );
    }

    for args in [
        vec!["inspect", text(&file)],
        vec!["check", text(&file)],
        vec!["export", text(&file), "--out", text(&dir.join("out.glb"))],
    ] {
        let o = support::dqview_in(&args, &cache);
        let err = support::stderr_of(&o);
        assert!(o.status.success(), "{}: {:?} {err}", args[0], o.status);
        assert!(!err.contains("overflow"), "{}: {err}", args[0]);
    }
}

#[test]
fn a_1000000_node_constraint_chain_is_inspected_and_checked_in_seconds() {
    // The whole chain order is linear and without recursion: 6 s and 3.8 GB for `inspect`
    // here (release and the test profile alike), most of it the glTF crate's JSON values of
    // a million nodes' extensions. Checked: it completes and keeps every constraint.
    let dir = support::scratch_dir("hostile_graphs_million");
    let file = dir.join("chain.gltf");
    std::fs::write(&file, constraint_chain_text(1_000_000)).expect("write");
    let cache = dir.join("cache");
    let o = support::dqview_in(&["inspect", text(&file)], &cache);
    let err = support::stderr_of(&o);
    assert!(o.status.success(), "inspect: {:?} {err}", o.status);
    // No constraint was dropped: a dropped one is a fault every command prints.
    assert!(!err.contains("constraint"), "{err}");
    let o = support::dqview_in(&["check", "--json", text(&file)], &cache);
    assert!(o.status.success(), "check: {}", support::stderr_of(&o));
    let report: Value = serde_json::from_slice(&o.stdout).expect("check --json");
    assert_eq!(report["files"][0]["findings"], json!([]), "{report}");
    std::fs::remove_file(&file).expect("remove");
}

/// A rotation constraint on node `node` reading `source` with `weight`, in the file's JSON.
fn constrain(json: &mut Value, node: usize, body: Value) {
    json["nodes"][node]["extensions"] = serde_json::json!({
        "VRMC_node_constraint": {"specVersion": "1.0", "constraint": body}
    });
    let used = json["extensionsUsed"]
        .as_array_mut()
        .expect("extensionsUsed");
    if !used.iter().any(|e| e == "VRMC_node_constraint") {
        used.push("VRMC_node_constraint".into());
    }
}

#[test]
fn bad_constraints_and_vrm_data_are_findings_and_every_command_says_them() {
    let Some(vrm) = support::data_dir("DQVIEW_VRM", "bad_constraints_and_vrm_data") else {
        return;
    };
    let sphere = std::fs::read(vrm.join("sphere.vrm")).expect("read");
    let dir = support::scratch_dir("hostile_graphs_vrm");
    let cache = dir.join("cache");
    // (file, its edit, rule, severity, words the finding and stderr carry)
    type Edit = fn(&mut Value);
    let cases: [(&str, Edit, &str, &str, &str); 5] = [
        (
            "weight.vrm",
            |j| {
                constrain(
                    j,
                    11,
                    serde_json::json!({"rotation": {"source": 10, "weight": 5.0}}),
                )
            },
            "degenerate_rig",
            "error",
            "rotation: weight 5.0 is not in [0, 1]: ignored: the node keeps its own rotation",
        ),
        (
            "cycle.vrm",
            |j| {
                constrain(j, 11, serde_json::json!({"rotation": {"source": 16}}));
                constrain(j, 16, serde_json::json!({"rotation": {"source": 11}}));
            },
            "degenerate_rig",
            "error",
            "their sources depend on them in a cycle",
        ),
        (
            "kinds.vrm",
            |j| {
                constrain(
                    j,
                    11,
                    serde_json::json!({
                        "roll": {"source": 10, "rollAxis": "Y"},
                        "aim": {"source": 10, "aimAxis": "PositiveY"},
                        "rotation": {"source": 10}
                    }),
                );
            },
            "data_fallback",
            "warning",
            "roll used, aim and rotation ignored",
        ),
        (
            "no_bones.vrm",
            |j| j["extensions"]["VRM"]["humanoid"]["humanBones"] = serde_json::json!([]),
            "degenerate_rig",
            "error",
            "humanBones names no bone",
        ),
        (
            "version.vrm",
            |j| j["extensions"]["VRM"]["specVersion"] = "7.3".into(),
            "data_fallback",
            "warning",
            "VRM specVersion \"7.3\": 1 VRM specVersion values were unknown; read as VRM 0.x",
        ),
    ];
    for (name, edit, rule, severity, words) in cases {
        let file = dir.join(name);
        std::fs::write(&file, support::glb_with_json(&sphere, edit)).expect("write");
        let o = support::dqview_in(&["check", "--json", text(&file)], &cache);
        let json: Value = serde_json::from_slice(&o.stdout).expect("check --json");
        let findings = json["files"][0]["findings"].as_array().expect("findings");
        let found = findings
            .iter()
            .find(|f| f["detail"].as_str().is_some_and(|d| d.contains(words)))
            .unwrap_or_else(|| panic!("{name}: no finding with {words:?} in {json}"));
        assert_eq!(found["rule"], rule, "{name}: {found}");
        assert_eq!(found["severity"], severity, "{name}: {found}");
        assert_eq!(
            o.status.code(),
            Some(i32::from(severity == "error")),
            "{name}"
        );
        // The other commands say it on stderr in the same words.
        let out = dir.join(format!("{name}.glb"));
        let o = support::dqview_in(&["export", text(&file), "--out", text(&out)], &cache);
        assert!(o.status.success(), "{name}: {}", support::stderr_of(&o));
        let err = support::stderr_of(&o);
        assert!(
            err.contains(&format!("{severity}: ")) && err.contains(words),
            "{name}: {err}"
        );
    }
}
