//! `dqview check`: the rules on rigs built to break them, on the shared test data, the exit
//! codes, the JSON's shape and its independence of `--jobs`.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use dqview::builtin::builtin_scene;
use dqview::check::{CheckOptions, Finding, Rule, Severity, check_scene};
use dqview::influences::Influences;
use dqview::scene::{Channel, Interpolation, NodeTransform, Property, Scene, Trs};
use glam::{Quat, Vec3};
use serde_json::Value;

fn dqview(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dqview"))
        .args(args)
        .output()
        .expect("run dqview")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `dqview check ARGS --json`: the exit status and the parsed report.
fn check_json(args: &[&str]) -> (i32, Value) {
    let mut all = vec!["check", "--json"];
    all.extend_from_slice(args);
    let out = dqview(&all);
    let code = out.status.code().expect("exit status");
    let stderr = stderr(&out);
    assert!(!stderr.contains("panicked"), "check panicked: {stderr}");
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("check --json prints JSON ({e}); stderr: {stderr}"));
    (code, json)
}

/// The findings of `rule` in one file's entry.
fn findings<'a>(file: &'a Value, rule: &str) -> Vec<&'a Value> {
    file["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["rule"] == rule)
        .collect()
}

/// The entry of the file whose path ends with `name`.
fn entry<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["files"]
        .as_array()
        .expect("files")
        .iter()
        .find(|f| f["file"].as_str().is_some_and(|p| p.ends_with(name)))
        .unwrap_or_else(|| panic!("no entry for {name}"))
}

/// Every .glb, .gltf, .vrm and .fbx file under `dir`, found independently of dqview.
fn model_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read folder") {
        let path = e.expect("entry").path();
        if path.is_dir() {
            model_files(&path, out);
        } else if path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
            ["glb", "gltf", "vrm", "fbx"].contains(&e.to_ascii_lowercase().as_str())
        }) {
            out.push(path);
        }
    }
}

/// The four shared test data folders, or `None` after a skip message.
fn test_data(test: &str) -> Option<Vec<PathBuf>> {
    [
        "DQVIEW_SAMPLES",
        "DQVIEW_FBX",
        "DQVIEW_VALIDATOR",
        "DQVIEW_CHARACTERS",
    ]
    .iter()
    .map(|var| support::data_dir(var, test))
    .collect()
}

#[test]
fn every_test_file_gets_one_entry_and_the_known_quirks() {
    let Some(dirs) = test_data("every_test_file_gets_one_entry_and_the_known_quirks") else {
        return;
    };
    let args: Vec<&str> = dirs.iter().map(|d| d.to_str().expect("utf-8")).collect();
    let (code, report) = check_json(&args);
    assert_eq!(
        code, 1,
        "some test files fail (the validator's broken files)"
    );
    let mut expected = Vec::new();
    for d in &dirs {
        model_files(d, &mut expected);
    }
    let files = report["files"].as_array().expect("files");
    assert_eq!(files.len(), expected.len(), "one entry per file");
    let mut listed: Vec<PathBuf> = files
        .iter()
        .map(|f| PathBuf::from(f["file"].as_str().expect("file")))
        .collect();
    listed.sort();
    expected.sort();
    assert_eq!(listed, expected);
    for f in files {
        let errors = f["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter(|x| x["severity"] == "error")
            .count();
        assert_eq!(f["ok"], errors == 0, "{}", f["file"]);
        assert!(findings(f, "internal_error").is_empty(), "{f}");
    }
    // The validator files dqview refuses are exactly the ones its snapshot says it refuses.
    let snapshot = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/validator_suite.txt"),
    )
    .expect("snapshot");
    let refused = snapshot.lines().filter(|l| l.contains("refused:")).count();
    let validator = dirs[2].to_str().expect("utf-8");
    let load_errors = files
        .iter()
        .filter(|f| f["file"].as_str().is_some_and(|p| p.starts_with(validator)))
        .filter(|f| !findings(f, "load_error").is_empty())
        .count();
    assert_eq!(load_errors, refused);
    character_quirks(&report);
    // The 7.7 GB request of the damaged barbarian is refused by the memory budget.
    let fuzz = entry(&report, "barbarian_alloc_7_7gb.fbx");
    let load = findings(fuzz, "load_error");
    assert_eq!(load.len(), 1, "{fuzz}");
    assert!(
        load[0]["detail"]
            .as_str()
            .unwrap()
            .contains("--max-buffer-bytes")
    );
    let s = &report["summary"];
    assert_eq!(s["files"], expected.len());
    assert_eq!(
        s["passed"].as_u64().unwrap() + s["failed"].as_u64().unwrap(),
        expected.len() as u64
    );
}

/// RobotExpressive's weights (sums up to 1.755) and the own transforms of its hand meshes.
fn character_quirks(report: &Value) {
    let robot = entry(report, "RobotExpressive.glb");
    assert_eq!(robot["ok"], false);
    let weights = findings(robot, "weights_not_normalized");
    assert_eq!(weights.len(), 1, "{robot}");
    let worst = weights[0]["worst_sum"].as_f64().expect("worst_sum");
    assert!((worst - 1.7551).abs() < 1e-3, "worst sum {worst}");
    assert_eq!(weights[0]["severity"], "error");
    // The same 752 vertices the Khronos glTF-Validator counts (tests/blend_files.rs).
    assert_eq!(weights[0]["count"], 752);
    let nodes: Vec<&str> = findings(robot, "ignored_node_transform")
        .iter()
        .map(|f| f["mesh_node"].as_str().expect("mesh_node"))
        .collect();
    assert_eq!(nodes, ["Hand.R", "Hand.L"]);
    let adventurer = entry(report, "Adventurer.gltf");
    assert_eq!(adventurer["ok"], true, "{adventurer}");
    assert!(findings(adventurer, "weights_not_normalized").is_empty());
    // One lbs_collapse finding per joint, each listing its clips, each lost by LBS clearly more
    // than by DQS and CoR; no ratio of an open or flat region (negative, or near 0).
    let collapses = findings(adventurer, "lbs_collapse");
    let mut joints: Vec<&str> = collapses
        .iter()
        .map(|f| f["joint"].as_str().expect("joint"))
        .collect();
    joints.sort_unstable();
    joints.dedup();
    assert_eq!(joints.len(), collapses.len(), "{collapses:?}");
    for f in &collapses {
        let [lbs, dqs, cor] =
            ["ratio", "dqs_ratio", "cor_ratio"].map(|k| f[k].as_f64().expect("ratio"));
        assert!(
            lbs > 0.0 && lbs < 0.9 && lbs < 0.9 * dqs && lbs < 0.9 * cor,
            "{f}"
        );
        let clips = f["clips"].as_array().expect("clips");
        assert!(clips.contains(&f["clip"]), "{f}");
    }
    // A static mesh among the samples: an info finding, and it passes.
    let static_box = entry(report, "BoxInterleaved.glb");
    let info = findings(static_box, "not_skinned");
    assert_eq!(info.len(), 1, "{static_box}");
    assert_eq!(info[0]["severity"], "info");
    assert_eq!(static_box["ok"], true);
}

#[test]
fn the_weight_tolerance_is_the_one_given() {
    let Some(dir) = support::characters_dir("the_weight_tolerance_is_the_one_given") else {
        return;
    };
    let robot = dir.join("RobotExpressive.glb");
    let robot = robot.to_str().expect("utf-8");
    let (_, loose) = check_json(&[robot, "--weight-tolerance", "0.76"]);
    assert!(findings(&loose["files"][0], "weights_not_normalized").is_empty());
    let (_, tight) = check_json(&[robot, "--weight-tolerance", "0.75"]);
    let f = findings(&tight["files"][0], "weights_not_normalized");
    assert_eq!(f.len(), 1);
    let (_, default) = check_json(&[robot]);
    let all = findings(&default["files"][0], "weights_not_normalized")[0]["count"]
        .as_u64()
        .unwrap();
    let few = f[0]["count"].as_u64().unwrap();
    assert!(few >= 1 && few < all, "{few} of {all}");
}

#[test]
fn builtin_rigs_pass_their_demo_clips_are_warnings() {
    let (code, report) = check_json(&["builtin:twist", "builtin:elbow", "builtin:arm"]);
    assert_eq!(code, 0, "{report}");
    for f in report["files"].as_array().unwrap() {
        assert_eq!(f["ok"], true, "{f}");
        let mut rules: Vec<&str> = f["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["rule"].as_str().unwrap())
            .collect();
        rules.dedup();
        // The twist and arm clips are candy-wrapper demos; nothing else may be found.
        let expected: &[&str] = match f["file"].as_str().unwrap() {
            "builtin:elbow" => &[],
            _ => &["lbs_collapse"],
        };
        assert_eq!(rules, expected, "{f}");
    }
    // Both halves of the twisted tube pinch: one finding per joint, the worst first.
    let collapses = findings(&report["files"][0], "lbs_collapse");
    let joints: Vec<&str> = collapses
        .iter()
        .map(|f| f["joint"].as_str().unwrap())
        .collect();
    assert_eq!(joints, ["base", "tip"]);
    let twist = collapses[0];
    assert_eq!(twist["joint"], "base");
    assert_eq!(twist["clip"], "twist_tip_180");
    assert_eq!(twist["severity"], "warning");
    let ratio = twist["ratio"].as_f64().unwrap();
    assert!(
        ratio < 0.9 && twist["dqs_ratio"].as_f64().unwrap() > 0.99,
        "{twist}"
    );
    // A true candy wrapper: CoR keeps the region too, so LBS alone loses it.
    assert!(twist["cor_ratio"].as_f64().unwrap() > 0.99, "{twist}");
    assert_eq!(twist["clips"], serde_json::json!(["twist_tip_180"]));
    // --strict fails on warnings.
    assert_eq!(
        dqview(&["check", "--strict", "builtin:twist"])
            .status
            .code(),
        Some(1)
    );
    assert_eq!(
        dqview(&["check", "--strict", "builtin:elbow"])
            .status
            .code(),
        Some(0)
    );
}

#[test]
fn the_volume_threshold_is_the_one_given() {
    let (_, report) = check_json(&["builtin:twist", "--min-volume-ratio", "0.9"]);
    let f = findings(&report["files"][0], "lbs_collapse");
    let ratio = f[0]["ratio"].as_f64().unwrap();
    let just_below = format!("{}", ratio - 0.002);
    let (_, report) = check_json(&["builtin:twist", "--min-volume-ratio", &just_below]);
    assert!(findings(&report["files"][0], "lbs_collapse").is_empty());
    let just_above = format!("{}", ratio + 0.002);
    let (_, report) = check_json(&["builtin:twist", "--min-volume-ratio", &just_above]);
    assert_eq!(findings(&report["files"][0], "lbs_collapse").len(), 1);
}

#[test]
fn usage_errors_exit_2() {
    let dir = support::scratch_dir("check_usage");
    let missing = dir.join("missing.glb");
    let cases: [&[&str]; 7] = [
        &["check"],
        &["check", "--no-such-flag", "builtin:arm"],
        &["check", "--jobs", "0", "builtin:arm"],
        &["check", "--min-volume-ratio", "1.5", "builtin:arm"],
        &["check", "builtin:nope"],
        &["check", missing.to_str().unwrap()],
        &["check", dir.to_str().unwrap()],
    ];
    for args in cases {
        let out = dqview(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    let out = dqview(&["check", missing.to_str().unwrap()]);
    assert!(
        stderr(&out).contains("no such file or folder"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn json_has_the_documented_shape() {
    let dir = support::scratch_dir("check_shape");
    std::fs::write(dir.join("broken.glb"), b"not a glb").unwrap();
    std::fs::write(dir.join("notes.txt"), b"ignored").unwrap();
    let folder = dir.to_str().unwrap();
    let (code, report) = check_json(&["builtin:elbow", folder]);
    assert_eq!(code, 1);
    let keys: Vec<&String> = report.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["files", "skipped", "summary"]);
    let files = report["files"].as_array().unwrap();
    assert_eq!(files.len(), 2, "the .txt file is not a model");
    for f in files {
        let keys: Vec<&String> = f.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["file", "findings", "ok"], "(sorted)");
    }
    // The printed order is the documented one.
    let out = dqview(&["check", "--json", folder]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let at = |key: &str| text.find(&format!("\"{key}\"")).unwrap_or(usize::MAX);
    assert!(at("files") < at("file") && at("file") < at("ok"), "{text}");
    assert!(
        at("ok") < at("findings") && at("findings") < at("summary"),
        "{text}"
    );
    assert!(
        at("rule") < at("severity") && at("severity") < at("detail"),
        "{text}"
    );
    assert_eq!(files[0]["file"], "builtin:elbow");
    assert_eq!(files[0]["findings"], serde_json::json!([]));
    let broken = &files[1];
    assert!(broken["file"].as_str().unwrap().ends_with("broken.glb"));
    assert_eq!(broken["ok"], false);
    let f = &broken["findings"][0];
    assert_eq!(
        (&f["rule"], &f["severity"]),
        (&"load_error".into(), &"error".into())
    );
    assert!(f["detail"].as_str().unwrap().contains("glTF"), "{f}");
    let s = &report["summary"];
    for key in [
        "files",
        "passed",
        "failed",
        "with_warnings",
        "errors",
        "warnings",
        "infos",
    ] {
        assert!(s[key].is_u64(), "summary.{key}: {s}");
    }
    assert_eq!(
        (s["files"].as_u64(), s["failed"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(s["rules"]["load_error"], 1);
    // Text: one line per file and the summary.
    let out = dqview(&["check", "builtin:elbow", folder]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[0].starts_with("ok") && lines[1].starts_with("FAIL"),
        "{text}"
    );
    assert!(lines[2].starts_with("2 files: 1 pass"), "{text}");
}

#[test]
fn jobs_do_not_change_the_report() {
    let mut args: Vec<String> = ["builtin:twist", "builtin:arm", "builtin:elbow"]
        .map(String::from)
        .to_vec();
    for var in ["DQVIEW_SAMPLES", "DQVIEW_CHARACTERS", "DQVIEW_FBX"] {
        if let Some(d) = support::data_dir(var, "jobs_do_not_change_the_report") {
            args.push(d.display().to_string());
        }
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let one = dqview(&[&["check", "--json", "--jobs", "1"], &args[..]].concat());
    let two = dqview(&[&["check", "--json", "--jobs", "2"], &args[..]].concat());
    let four = dqview(&[&["check", "--json", "--jobs", "4"], &args[..]].concat());
    assert!(!one.stdout.is_empty());
    assert_eq!(one.stdout, two.stdout, "--jobs 1 and --jobs 2 differ");
    assert_eq!(one.stdout, four.stdout, "--jobs 1 and --jobs 4 differ");
    assert_eq!(one.status.code(), two.status.code());
}

// Library rules on built-in rigs changed to break them.

fn twist() -> Scene {
    builtin_scene("twist").expect("builtin")
}

fn run(scene: &Scene) -> Vec<Finding> {
    let far = Instant::now() + Duration::from_secs(600);
    check_scene(scene, &CheckOptions::DEFAULT, far)
}

fn of(findings: &[Finding], rule: Rule) -> Vec<&Finding> {
    findings.iter().filter(|f| f.rule == rule).collect()
}

/// A linear rotation channel of node `node` about +Y, `keys` keys from 0 to `degrees` over 2 s.
fn twist_channel(node: usize, degrees: f32, keys: usize) -> Channel {
    let mut times_s = Vec::new();
    let mut values = Vec::new();
    for k in 0..keys {
        let s = k as f32 / (keys - 1) as f32;
        times_s.push(2.0 * s);
        values.extend(Quat::from_rotation_y((degrees * s).to_radians()).to_array());
    }
    Channel {
        node,
        property: Property::Rotation,
        interpolation: Interpolation::Linear,
        times_s,
        values,
    }
}

#[test]
fn a_twist_past_180_degrees_is_a_dqs_flip() {
    let mut scene = twist();
    assert!(
        of(&run(&scene), Rule::DqsFlipInClip).is_empty(),
        "180 is not past"
    );
    // 0 to 225 degrees in 22.5-degree keys: the twist passes 180 at 1.6 s.
    scene.animations[0].channels = vec![twist_channel(1, 225.0, 11)];
    let found = run(&scene);
    let flips = of(&found, Rule::DqsFlipInClip);
    assert_eq!(flips.len(), 1, "{found:?}");
    let f = flips[0];
    assert_eq!(f.joint.as_deref(), Some("tip"));
    assert_eq!(f.pivot_joint.as_deref(), Some("base"));
    assert_eq!(f.clip.as_deref(), Some("twist_tip_180"));
    let t = f.time.unwrap();
    assert!(
        t > 1.6 && t < 1.6 + 1.0 / 30.0 + 1e-3,
        "first sample past 1.6 s: {t}"
    );
    assert_eq!(f.severity, Severity::Warning);
}

#[test]
fn mirrors_and_uneven_scale_name_the_joint_and_where() {
    let mut scene = twist();
    scene.nodes[1].transform = NodeTransform::Trs(Trs {
        translation: Vec3::Y,
        scale: Vec3::new(-1.0, 1.0, 1.0),
        ..Trs::IDENTITY
    });
    let found = run(&scene);
    let mirrored = of(&found, Rule::MirroredJoint);
    assert_eq!(mirrored.len(), 1, "{found:?}");
    assert_eq!(mirrored[0].joints[0].joint, "tip");
    assert_eq!(mirrored[0].joints[0].clip, None, "at rest");

    let mut scene = twist();
    scene.animations[0].channels.push(Channel {
        node: 1,
        property: Property::Scale,
        interpolation: Interpolation::Linear,
        times_s: vec![0.0, 2.0],
        values: vec![1.0, 1.0, 1.0, 1.0, 1.5, 1.0],
    });
    let found = run(&scene);
    let uneven = of(&found, Rule::NonUniformScale);
    assert_eq!(uneven.len(), 1, "{found:?}");
    let at = &uneven[0].joints[0];
    assert_eq!(
        (at.joint.as_str(), at.clip.as_deref()),
        ("tip", Some("twist_tip_180"))
    );
    assert!(at.time.unwrap() > 0.0 && at.time.unwrap() < 0.1, "{at:?}");
    // A uniform scale is not uneven.
    let mut scene = twist();
    scene.nodes[1].transform = NodeTransform::Trs(Trs {
        translation: Vec3::Y,
        scale: Vec3::splat(2.0),
        ..Trs::IDENTITY
    });
    assert!(of(&run(&scene), Rule::NonUniformScale).is_empty());
}

#[test]
fn influence_rules_count_vertices() {
    let mut scene = twist();
    let prim = &mut scene.meshes[0].primitives[0];
    let n = prim.positions.len();
    let rows = (0..n).map(|v| match v {
        0 | 1 => vec![],
        2 => (0..10u16).map(|j| (j % 2, 0.1)).collect(),
        3 => (0..10u16).map(|j| (j, 0.1)).collect(),
        _ => vec![(0u16, 1.0)],
    });
    prim.influences = Some(Influences::from_rows(rows));
    let found = run(&scene);
    let zero = of(&found, Rule::ZeroWeightVertices);
    assert_eq!(zero[0].count, Some(2));
    assert_eq!(zero[0].severity, Severity::Error);
    // Vertex 2's ten entries merge into two joints; vertex 3 keeps ten, drops two of 0.1.
    let over = of(&found, Rule::InfluencesOver8);
    assert_eq!((over[0].count, over[0].max_influences), (Some(1), Some(10)));
    assert!((over[0].largest_dropped_weight.unwrap() - 0.1).abs() < 1e-6);
    assert!(
        of(&found, Rule::WeightsNotNormalized).is_empty(),
        "10 x 0.1 is 1"
    );
}

#[test]
fn own_node_transforms_of_gltf_skinned_meshes_are_reported() {
    let mut scene = twist();
    let mesh_node = scene.nodes.len() - 1;
    scene.nodes[mesh_node].transform = NodeTransform::Trs(Trs {
        translation: Vec3::new(0.0, 0.5, 0.0),
        ..Trs::IDENTITY
    });
    let found = run(&scene);
    let ignored = of(&found, Rule::IgnoredNodeTransform);
    assert_eq!(ignored.len(), 1);
    assert_eq!(ignored[0].mesh_node.as_deref(), Some("twist_mesh"));
    // FBX folds the mesh node's bind transform into the clusters: nothing is ignored.
    scene.source_info.format = String::from("FBX 7400 binary");
    assert!(of(&run(&scene), Rule::IgnoredNodeTransform).is_empty());
}

#[test]
fn a_spent_budget_is_reported() {
    let options = CheckOptions {
        time_budget: Duration::ZERO,
        ..CheckOptions::DEFAULT
    };
    let found = check_scene(&twist(), &options, Instant::now());
    assert_eq!(of(&found, Rule::CheckIncomplete).len(), 1);
    assert!(
        of(&found, Rule::LbsCollapse).is_empty(),
        "the clip was skipped"
    );
}

/// `scene` written as `NAME.glb` into a scratch folder: its path.
fn written(scene: &Scene, name: &str) -> PathBuf {
    let path = support::scratch_dir(&format!("check_{name}")).join(format!("{name}.glb"));
    let glb = dqview::scene::write_glb(scene).expect("write glb");
    std::fs::write(&path, glb).expect("write file");
    path
}

/// A rotation channel of node 1 over 2 s: rolled 60 degrees about +X and twisted 90 about +Y
/// (its bone axis) at the end, both ramped over 9 keys.
fn twist_roll_channel() -> Channel {
    let mut times_s = Vec::new();
    let mut values = Vec::new();
    for k in 0..=8 {
        let s = k as f32 / 8.0;
        times_s.push(2.0 * s);
        let q = Quat::from_rotation_x((60.0 * s).to_radians())
            * Quat::from_rotation_y((90.0 * s).to_radians());
        values.extend(q.to_array());
    }
    Channel {
        node: 1,
        property: Property::Rotation,
        interpolation: Interpolation::Linear,
        times_s,
        values,
    }
}

/// `builtin:twist`'s joints with its tube replaced by an open sheet 1 wide and 2 long, arched by
/// 2% of its width (z = 0.02 (1 - 4 x^2)): capped, each joint's half encloses almost nothing.
fn shallow_sheet() -> Scene {
    let mut scene = twist();
    let (nx, ny) = (16usize, 47usize);
    let mut positions = Vec::new();
    let mut rows = Vec::new();
    for j in 0..=ny {
        let y = 2.0 * j as f32 / ny as f32;
        let s = ((y - 0.5) / 1.0).clamp(0.0, 1.0);
        let tip = s * s * (3.0 - 2.0 * s);
        for i in 0..=nx {
            let x = i as f32 / nx as f32 - 0.5;
            positions.push(Vec3::new(x, y, 0.02 * (1.0 - 4.0 * x * x)));
            rows.push(vec![(0u16, 1.0 - tip), (1u16, tip)]);
        }
    }
    let mut indices = Vec::new();
    for j in 0..ny {
        for i in 0..nx {
            let a = (j * (nx + 1) + i) as u32;
            let (b, c, d) = (a + 1, a + (nx + 1) as u32, a + (nx + 2) as u32);
            indices.extend([a, b, d, a, d, c]);
        }
    }
    let prim = &mut scene.meshes[0].primitives[0];
    prim.normals = vec![Vec3::Z; positions.len()];
    prim.uvs = None;
    prim.positions = positions;
    prim.indices = indices;
    prim.influences = Some(Influences::from_rows(rows));
    scene.animations[0].name = String::from("twist_and_roll");
    scene.animations[0].channels = vec![twist_roll_channel()];
    scene
}

#[test]
fn a_flat_open_region_raises_no_collapse_and_says_why() {
    // Before: the capped "volume" of base's half of the sheet read 0.482 under LBS and 0.639
    // under DQS at the end of the clip (and from -0.59 to 2.87 in other poses), and
    // `lbs_collapse` warned on a region that encloses nothing.
    let path = written(&shallow_sheet(), "shallow_sheet");
    let (code, report) = check_json(&[path.to_str().unwrap()]);
    let file = &report["files"][0];
    assert_eq!(code, 0, "{file}");
    assert!(findings(file, "lbs_collapse").is_empty(), "{file}");
    let notes = file["regions_not_by_volume"].as_array().expect("notes");
    let joints: Vec<&str> = notes.iter().map(|n| n["joint"].as_str().unwrap()).collect();
    assert_eq!(joints, ["base", "tip"], "{file}");
    for n in notes {
        assert_eq!(n["measure"], "area", "{n}");
        let reason = n["reason"].as_str().unwrap();
        assert!(
            reason.contains("of a ball's volume") && reason.contains("flat"),
            "{n}"
        );
    }
}

#[test]
fn one_collapse_finding_per_joint_lists_its_clips() {
    let mut scene = twist();
    let mut again = scene.animations[0].clone();
    again.name = String::from("twist_again");
    scene.animations.push(again);
    let found = run(&scene);
    // Before: one finding per clip. Now one per joint (both halves pinch), each with both clips.
    let collapses = of(&found, Rule::LbsCollapse);
    let joints: Vec<Option<&str>> = collapses.iter().map(|f| f.joint.as_deref()).collect();
    assert_eq!(joints, [Some("base"), Some("tip")], "{found:?}");
    for f in collapses {
        assert_eq!(f.clips, ["twist_tip_180", "twist_again"]);
        assert!(f.detail.contains("in 2 clips"), "{}", f.detail);
        assert!(f.cor_ratio.is_some_and(|c| c > 0.99), "{f:?}");
    }
}

#[test]
fn a_static_mesh_is_not_skinned_and_analyze_and_report_say_so() {
    let mut scene = twist();
    let mesh_node = scene.nodes.len() - 1;
    scene.nodes[mesh_node].skin = None;
    scene.meshes[0].primitives[0].influences = None;
    scene.skins.clear();
    scene.animations.clear();
    let path = written(&scene, "static_tube");
    let file = path.to_str().unwrap();
    let (code, report) = check_json(&["--strict", file]);
    assert_eq!(code, 0, "info never fails a file: {report}");
    let entry = &report["files"][0];
    let info = findings(entry, "not_skinned");
    assert_eq!(info.len(), 1, "{entry}");
    assert_eq!(info[0]["severity"], "info");
    assert!(
        info[0]["detail"]
            .as_str()
            .unwrap()
            .contains("no skinned mesh")
    );
    assert_eq!(report["summary"]["infos"], 1);
    let cache = support::scratch_dir("check_static_cache");
    let out = cache.join("static.html");
    for args in [
        vec!["analyze", file],
        vec!["analyze", file, "--json"],
        vec!["report", file, "--out", out.to_str().unwrap()],
    ] {
        let o = support::dqview_in(&args, &cache);
        let err = support::stderr_of(&o);
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {stdout} {err}");
        assert!(err.contains("no skinned mesh"), "{args:?}: {err}");
        assert!(!stdout.contains("1.0000"), "{args:?}: {stdout}");
    }
}

#[test]
fn a_loader_warning_is_a_check_finding_in_the_words_inspect_prints() {
    // RiggedSimple with a morph target whose accessor has no buffer view and 3e9 elements: the
    // loader drops the targets (zero-filling that much is refused) and says so; `check` passed
    // it with no finding before.
    let Some(dir) = support::data_dir("DQVIEW_SAMPLES", "a_loader_warning_is_a_check_finding")
    else {
        return;
    };
    let glb = std::fs::read(dir.join("RiggedSimple.glb")).expect("RiggedSimple.glb");
    let edited = support::glb_with_json(&glb, |json| {
        let accessors = json["accessors"].as_array_mut().expect("accessors");
        accessors.push(
            serde_json::json!({"componentType": 5126, "count": 3_000_000_000_u64, "type": "VEC3"}),
        );
        let target = accessors.len() - 1;
        json["meshes"][0]["primitives"][0]["targets"] = serde_json::json!([{ "POSITION": target }]);
    });
    let path = std::env::temp_dir().join(format!("dqview-morph-{}.glb", std::process::id()));
    std::fs::write(&path, edited).expect("write");
    let file = path.to_str().expect("utf-8");
    let (code, report) = check_json(&[file]);
    assert_eq!(code, 0, "a warning does not fail the file: {report}");
    let file_entry = &report["files"][0];
    let warnings = findings(file_entry, "load_warning");
    assert_eq!(warnings.len(), 1, "{file_entry}");
    assert_eq!(warnings[0]["severity"], "warning");
    let detail = warnings[0]["detail"].as_str().expect("detail");
    assert!(
        detail.contains("morph targets dropped") && detail.contains("3000000000 elements"),
        "{detail}"
    );
    // `inspect` says it in the same words.
    let inspect = String::from_utf8_lossy(&dqview(&["inspect", file]).stdout).into_owned();
    assert!(inspect.contains(detail), "{inspect}");
    // `--strict` fails on it.
    let (strict, _) = check_json(&["--strict", file]);
    assert_eq!(strict, 1);
    std::fs::remove_file(&path).expect("remove");
}
