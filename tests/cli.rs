//! The dqview binary end to end: inspect, export, builtin, and its error messages.

mod support;

use std::process::{Command, Output};

fn dqview(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dqview"))
        .args(args)
        .output()
        .expect("run dqview")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn inspect_json(model: &str) -> serde_json::Value {
    let out = dqview(&["inspect", model, "--json"]);
    assert!(out.status.success(), "inspect {model}: {}", stderr(&out));
    serde_json::from_slice(&out.stdout).expect("inspect --json prints JSON")
}

/// (file, meshes, vertices, triangles, joints per skin, max influences, clip durations).
type SampleFacts = (
    &'static str,
    u64,
    u64,
    u64,
    &'static [u64],
    u64,
    &'static [f64],
);

#[test]
fn inspect_json_on_sample_models() {
    let Some(dir) = support::data_dir("DQVIEW_SAMPLES", "inspect_json_on_sample_models") else {
        return;
    };
    let cases: [SampleFacts; 4] = [
        ("SimpleSkin.gltf", 1, 10, 8, &[2], 2, &[5.5]),
        ("RiggedSimple.glb", 1, 160, 188, &[2], 2, &[2.083333]),
        ("RiggedFigure.glb", 1, 370, 256, &[19], 4, &[1.25]),
        ("CesiumMan.glb", 1, 3273, 4672, &[19], 4, &[2.0]),
    ];
    for (file, meshes, vertices, triangles, joints, max_inf, durations) in cases {
        let path = dir.join(file);
        let f = inspect_json(path.to_str().expect("utf-8"));
        assert_eq!(f["meshes"], meshes, "{file}");
        assert_eq!(f["vertices"], vertices, "{file}");
        assert_eq!(f["triangles"], triangles, "{file}");
        let skins: Vec<u64> = f["skins"]
            .as_array()
            .expect("skins")
            .iter()
            .map(|s| s["joints"].as_u64().expect("joints"))
            .collect();
        assert_eq!(skins, joints, "{file}");
        assert_eq!(f["max_influences"], max_inf, "{file}");
        let clips = f["clips"].as_array().expect("clips");
        assert!(!clips.is_empty(), "{file}: clips");
        for (clip, want) in clips.iter().zip(durations) {
            let got = clip["duration"].as_f64().expect("duration");
            assert!(
                (got - want).abs() < 1e-4,
                "{file}: duration {got} vs {want}"
            );
        }
        // The Khronos samples rest in their bind pose (up to an armature's axis turn).
        assert_eq!(
            f["rest_pose"]["is_bind_pose"], true,
            "{file}: {}",
            f["rest_pose"]
        );
        let min = f["bbox"]["min"].as_array().expect("bbox.min");
        let max = f["bbox"]["max"].as_array().expect("bbox.max");
        for k in 0..3 {
            assert!(min[k].as_f64() <= max[k].as_f64(), "{file}: bbox");
        }
    }
    // Every sample loads and reports a bounding box, extras included.
    for file in [
        "extras/InterpolationTest.glb",
        "extras/NegativeScaleTest.glb",
        "extras/SimpleSparseAccessor.gltf",
        "extras/AnimatedMorphCube.glb",
        "extras/BoxInterleaved.glb",
        "extras/AnimatedCube/AnimatedCube.gltf",
    ] {
        let f = inspect_json(dir.join(file).to_str().expect("utf-8"));
        assert!(f["bbox"]["min"].is_array(), "{file}");
        assert!(f["vertices"].as_u64() > Some(0), "{file}");
    }
}

#[test]
fn inspect_builtin_rigs() {
    let f = inspect_json("builtin:twist");
    assert_eq!(f["skins"][0]["joints"], 2);
    assert_eq!(f["skins"][0]["joint_tree"][0]["name"], "base");
    assert_eq!(f["skins"][0]["joint_tree"][0]["children"][0]["name"], "tip");
    assert!(f["vertices"].as_u64() >= Some(2000));
    let arm = inspect_json("builtin:arm");
    assert_eq!(arm["clips"][0]["name"], "twist_and_bend");
    assert_eq!(arm["skins"][0]["joints"], 5);
    // No model: builtin:twist.
    let out = dqview(&["inspect"]);
    assert!(out.status.success());
    assert!(stdout(&out).contains("builtin:twist"));
}

/// The `rest pose` line of `inspect MODEL`'s text, if it has one, and the whole text.
fn rest_pose_line(model: &str) -> (Option<String>, String) {
    let out = dqview(&["inspect", model]);
    assert!(out.status.success(), "inspect {model}: {}", stderr(&out));
    let text = stdout(&out);
    let line = text
        .lines()
        .find(|l| l.starts_with("rest pose"))
        .map(str::to_owned);
    (line, text)
}

#[test]
fn inspect_says_where_the_rest_pose_is_not_the_bind_pose() {
    // builtin:twist rests in its bind pose: no line, and the JSON says so.
    let (line, text) = rest_pose_line("builtin:twist");
    assert_eq!(line, None, "{text}");
    let f = inspect_json("builtin:twist");
    assert_eq!(f["rest_pose"]["is_bind_pose"], true);
    assert_eq!(f["rest_pose"]["joints_not_at_bind"], serde_json::json!([]));
    // Both copies of the Adventurer are stored in a T-pose and rest with the arms lowered: the
    // heat views' blue patch at the right shoulder with no clip on it.
    let characters =
        support::characters_dir("inspect_says_where_the_rest_pose_is_not_the_bind_pose");
    let usd = support::data_dir(
        "DQVIEW_USD",
        "inspect_says_where_the_rest_pose_is_not_the_bind_pose",
    );
    let copies = [
        characters.map(|d| (d.join("Adventurer.gltf"), '.')),
        usd.map(|d| (d.join("Adventurer.usdc"), '_')),
    ];
    for (path, dot) in copies.into_iter().flatten() {
        let path = path.to_str().expect("utf-8");
        let (line, text) = rest_pose_line(path);
        let line = line.unwrap_or_else(|| panic!("{path}: no rest pose line in {text}"));
        assert!(
            line.starts_with("rest pose   not the bind pose: ")
                && line.contains(&format!("largest at UpperArm{dot}L"))
                && line.contains("heat views"),
            "{path}: {line}"
        );
        for joint in [format!("UpperArm{dot}R"), format!("Shoulder{dot}R")] {
            assert!(
                text.contains(&format!("\"{joint}\" (node ")),
                "{path}: {joint} in {text}"
            );
        }
        let f = inspect_json(path);
        assert_eq!(f["rest_pose"]["is_bind_pose"], false, "{path}");
        let right = f["rest_pose"]["joints_not_at_bind"]
            .as_array()
            .expect("joints")
            .iter()
            .find(|j| j["name"] == format!("UpperArm{dot}R").as_str())
            .cloned()
            .unwrap_or_else(|| panic!("{path}: UpperArm{dot}R"));
        let angle = right["angle_deg"].as_f64().expect("angle");
        assert!((60.0..75.0).contains(&angle), "{path}: {right}");
    }
}

#[test]
fn bad_files_exit_1_with_one_message() {
    let dir = std::env::temp_dir().join(format!("dqview-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let garbage = dir.join("garbage.glb");
    std::fs::write(&garbage, b"this is not a glTF file").expect("write");
    let truncated = dir.join("truncated.glb");
    let twist = dqview::builtin::builtin_glb("twist").expect("twist glb");
    std::fs::write(&truncated, &twist[..twist.len() / 2]).expect("write");
    for (path, needle) in [
        (garbage.to_str().expect("utf-8"), "not a valid glTF"),
        (truncated.to_str().expect("utf-8"), "truncated.glb"),
        ("/no/such/file.gltf", "/no/such/file.gltf"),
        ("builtin:nope", "twist, elbow, arm"),
    ] {
        let out = dqview(&["inspect", path]);
        assert_eq!(out.status.code(), Some(1), "{path}");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{path}: {err}");
        assert!(
            err.contains(needle) && err.starts_with("dqview: "),
            "{path}: {err}"
        );
        assert!(!err.contains("panicked"), "{path}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn builtin_command_writes_a_glb_that_loads_back() {
    let dir = std::env::temp_dir().join(format!("dqview-builtin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for name in dqview::builtin::BUILTIN_NAMES {
        let out_path = dir.join(format!("{name}.glb"));
        let out = dqview(&["builtin", name, "--out", out_path.to_str().expect("utf-8")]);
        assert!(out.status.success(), "{}", stderr(&out));
        let written = std::fs::read(&out_path).expect("glb written");
        let loaded = dqview::scene::load_gltf_slice(&written, None, name).expect("loads back");
        let original = dqview::builtin::builtin_scene(name).expect("builtin");
        support::assert_scenes_match(&original, &loaded, 1e-6);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn export_twisted_cylinder_shows_the_candy_wrapper() {
    let dir = std::env::temp_dir().join(format!("dqview-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut middle_radius = Vec::new();
    for mode in ["lbs", "dqs"] {
        let path = dir.join(format!("{mode}.obj"));
        let out = dqview(&[
            "export",
            "builtin:twist",
            "--twist",
            "tip=180",
            "--mode",
            mode,
            "--out",
            path.to_str().expect("utf-8"),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = std::fs::read_to_string(&path).expect("obj");
        let groups = support::obj_groups(&text);
        assert_eq!(groups.len(), 1);
        assert!(groups[0].0.starts_with("node"), "{}", groups[0].0);
        assert!(text.lines().any(|l| l.starts_with("vn ")));
        assert!(
            text.lines()
                .any(|l| l.starts_with("f ") && l.contains("//"))
        );
        // Smallest distance to the Y axis among vertices at the tube's middle (y = 1).
        let r = groups[0]
            .1
            .iter()
            .filter(|p| (p.y - 1.0).abs() < 0.03)
            .map(|p| (p.x * p.x + p.z * p.z).sqrt())
            .fold(f32::MAX, f32::min);
        middle_radius.push(r);
    }
    assert!(
        middle_radius[0] < 0.05,
        "LBS middle radius {}",
        middle_radius[0]
    );
    assert!(
        (middle_radius[1] - 0.25).abs() < 1e-3,
        "DQS middle radius {}",
        middle_radius[1]
    );
    // Wrong options are clear errors.
    let out = dqview(&["export", "builtin:twist", "--out", "x.png"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains(".obj"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn no_adapter_is_one_clear_line_and_exit_1() {
    let dir = std::env::temp_dir().join(format!("dqview-noadapter-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    // An empty VK_DRIVER_FILES hides every Vulkan driver; WGPU_BACKEND stops a fall-back to GL.
    for args in [
        vec!["render", "builtin:twist", "--out", "x.png"],
        vec!["export", "builtin:twist", "--gpu", "--out", "x.obj"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_dqview"))
            .args(&args)
            .current_dir(&dir)
            .env("VK_DRIVER_FILES", "")
            .env("VK_ICD_FILENAMES", "")
            .env("WGPU_BACKEND", "vulkan")
            .output()
            .expect("run dqview");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = stderr(&out);
        assert_eq!(
            err.lines().filter(|l| l.starts_with("dqview: ")).count(),
            1,
            "{args:?}: {err}"
        );
        assert!(err.contains("adapter"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn export_glb_loads_back_with_the_posed_positions() {
    let dir = std::env::temp_dir().join(format!("dqview-exportglb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let glb = dir.join("twisted.glb");
    let obj = dir.join("twisted.obj");
    for path in [&glb, &obj] {
        let out = dqview(&[
            "export",
            "builtin:twist",
            "--twist",
            "tip=90",
            "--mode",
            "lbs",
            "--out",
            path.to_str().expect("utf-8"),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let scene = dqview::scene::load_gltf_path(&glb).expect("exported glb loads");
    assert!(scene.skins.is_empty());
    let obj_groups = support::obj_groups(&std::fs::read_to_string(&obj).expect("obj"));
    assert_eq!(scene.meshes[0].primitives[0].positions, obj_groups[0].1);
    let _ = std::fs::remove_dir_all(&dir);
}
