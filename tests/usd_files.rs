//! The USD loader on the shared test files: what `inspect` says, the stored skinning method as
//! the default mode, the load limits, composition that fails, damaged files as one-line errors,
//! and `check` finding USD files in folders.

mod support;

use std::path::Path;

use dqview::anim::{JointOverrides, Pose};
use dqview::scene::{LoadOptions, load_usd_path_with};
use dqview::skin::{Betas, SkinningMode, skin_scene};

/// The shared USD folder, or `None` after a skip message.
fn usd_dir(test: &str) -> Option<std::path::PathBuf> {
    support::data_dir("DQVIEW_USD", test)
}

/// Loads `path`, poses it mid-clip and skins it in every mode; returns the error text, if any.
fn load_and_skin(path: &Path) -> Option<String> {
    match load_usd_path_with(path, &LoadOptions::DEFAULT) {
        Ok(scene) => {
            let mut pose = Pose::rest(&scene);
            if !scene.animations.is_empty() {
                pose.sample(&scene, Some(0), 0.4, &JointOverrides::new());
            }
            for mode in SkinningMode::ALL {
                for p in skin_scene(&scene, &pose, mode, Betas::Uniform(0.5)) {
                    assert!(p.vertices.positions.iter().all(|v| v.is_finite()));
                }
            }
            None
        }
        Err(e) => {
            let text = e.to_string();
            assert!(
                !text.is_empty() && !text.contains('\n'),
                "one line: {text:?}"
            );
            Some(text)
        }
    }
}

#[test]
fn inspect_reports_format_axes_units_skeletons_and_method() {
    let Some(dir) = usd_dir("inspect_reports_format_axes_units_skeletons_and_method") else {
        return;
    };
    let cache = support::scratch_dir("usd_inspect");
    for (file, format, axes, skinning) in [
        (
            "RobotExpressive.usdc",
            "USD (usdc)",
            "+Z up, -Y front, +X right",
            None,
        ),
        (
            "Adventurer.usdc",
            "USD (usdc)",
            "+Z up, -Y front, +X right",
            None,
        ),
        (
            "tube_lbs.usda",
            "USD (usda)",
            "+Y up, +Z front, +X right",
            Some("linear"),
        ),
        (
            "tube_dqs.usda",
            "USD (usda)",
            "+Y up, +Z front, +X right",
            Some("dual quaternion"),
        ),
        (
            "tube_blendshape.usda",
            "USD (usda)",
            "+Y up",
            Some("dual quaternion"),
        ),
        (
            "tube_package.usdz",
            "USD (usdz)",
            "+Y up",
            Some("dual quaternion"),
        ),
    ] {
        let path = dir.join(file);
        let o = support::dqview_in(&["inspect", path.to_str().expect("utf-8")], &cache);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{file}: {}", support::stderr_of(&o));
        assert!(out.contains(format), "{file}: {out}");
        assert!(out.contains("1 unit = 1 m"), "{file}: {out}");
        assert!(out.contains(axes), "{file}: {out}");
        assert!(out.contains("24 frames/s"), "{file}: {out}");
        match skinning {
            Some(m) => assert!(out.contains(&format!("stored method {m}")), "{file}: {out}"),
            None => assert!(!out.contains("stored method"), "{file}: {out}"),
        }
    }
}

#[test]
fn scenes_hold_the_skeletons_meshes_and_clip_of_index_json() {
    let Some(dir) = usd_dir("scenes_hold_the_skeletons_meshes_and_clip_of_index_json") else {
        return;
    };
    let robot = load_usd_path_with(&dir.join("RobotExpressive.usdc"), &LoadOptions::DEFAULT)
        .expect("robot");
    // 43 joints in the armature plus the 1-joint Skeleton Blender adds for the Head's shapes.
    let joints: usize = robot
        .skins
        .iter()
        .map(|s| s.joints.len())
        .max()
        .unwrap_or(0);
    assert_eq!(joints, 43);
    assert_eq!(robot.animations.len(), 1);
    let head = robot
        .meshes
        .iter()
        .find(|m| m.name.ends_with("/Head") || m.name.contains("Head"))
        .expect("Head");
    assert_eq!(
        head.primitives[0].morph_targets.len(),
        3,
        "Angry, Surprised, Sad"
    );
    let tube =
        load_usd_path_with(&dir.join("tube_blendshape.usda"), &LoadOptions::DEFAULT).expect("tube");
    let mesh = tube
        .meshes
        .iter()
        .find(|m| m.name == "/Tube/Geom/Tube")
        .expect("tube");
    let bulge = &mesh.primitives[0].morph_targets[0];
    assert_eq!(bulge.name, "bulge");
    assert_eq!(
        bulge.positions.iter().filter(|o| o.length() > 0.0).count(),
        112
    );
    assert_eq!(
        dqview::pose_request::file_mode(&tube),
        Some(SkinningMode::Dqs)
    );
    let lbs = load_usd_path_with(&dir.join("tube_lbs.usda"), &LoadOptions::DEFAULT).expect("lbs");
    assert_eq!(
        dqview::pose_request::file_mode(&lbs),
        Some(SkinningMode::Lbs)
    );
    assert_eq!(dqview::pose_request::file_mode(&robot), None);
    // The clip spans time codes 0..24 at 24 per second: one second.
    let anim = &tube.animations[0];
    assert_eq!(anim.name, "Twist");
    let end = anim
        .channels
        .iter()
        .flat_map(|c| c.times_s.last())
        .fold(0.0_f32, |a, &t| a.max(t));
    assert!((end - 1.0).abs() < 1e-6, "{end}");
}

#[test]
fn load_limits_apply_to_usd() {
    let Some(dir) = usd_dir("load_limits_apply_to_usd") else {
        return;
    };
    let path = dir.join("tube_dqs.usda");
    for (options, flag) in [
        (
            LoadOptions {
                max_vertices: 100,
                ..LoadOptions::DEFAULT
            },
            "--max-vertices",
        ),
        (
            LoadOptions {
                max_joints: 1,
                ..LoadOptions::DEFAULT
            },
            "--max-joints",
        ),
        (
            LoadOptions {
                max_buffer_bytes: 1000,
                ..LoadOptions::DEFAULT
            },
            "--max-buffer-bytes",
        ),
    ] {
        let e = load_usd_path_with(&path, &options)
            .expect_err(flag)
            .to_string();
        assert!(e.contains(flag), "{flag}: {e}");
    }
    assert!(load_usd_path_with(&path, &LoadOptions::DEFAULT).is_ok());
}

#[test]
fn unresolved_composition_arcs_are_errors_naming_the_arc() {
    let dir = support::scratch_dir("usd_arcs");
    let file = dir.join("refs.usda");
    std::fs::write(
        &file,
        "#usda 1.0\n\ndef Xform \"A\" (\n    prepend references = @./missing.usda@\n)\n{\n}\n",
    )
    .expect("write");
    let e = load_usd_path_with(&file, &LoadOptions::DEFAULT)
        .expect_err("missing reference")
        .to_string();
    assert!(e.contains("missing.usda") && !e.contains('\n'), "{e}");
    let sub = dir.join("sub.usda");
    std::fs::write(&sub, "#usda 1.0\n(\n    subLayers = [@./gone.usda@]\n)\n").expect("write");
    let e = load_usd_path_with(&sub, &LoadOptions::DEFAULT)
        .expect_err("missing sublayer")
        .to_string();
    assert!(e.contains("gone.usda"), "{e}");
}

#[test]
fn damaged_usd_files_load_or_fail_in_one_line() {
    let Some(dir) = usd_dir("damaged_usd_files_load_or_fail_in_one_line") else {
        return;
    };
    let scratch = support::scratch_dir("usd_damaged");
    let mut errors = 0;
    for file in ["tube_dqs.usda", "tube_package.usdz", "RobotExpressive.usdc"] {
        let bytes = std::fs::read(dir.join(file)).expect("read");
        let ext = Path::new(file)
            .extension()
            .and_then(|e| e.to_str())
            .expect("ext");
        for k in 1..12 {
            let cut = bytes.len() * k / 12;
            let path = scratch.join(format!("cut{k}.{ext}"));
            std::fs::write(&path, &bytes[..cut]).expect("write");
            errors += usize::from(load_and_skin(&path).is_some());
            let mut flipped = bytes.clone();
            for i in (k * 7919..flipped.len()).step_by(997 + k) {
                flipped[i] ^= 0x5a;
            }
            let path = scratch.join(format!("flip{k}.{ext}"));
            std::fs::write(&path, &flipped).expect("write");
            errors += usize::from(load_and_skin(&path).is_some());
        }
    }
    assert!(errors > 0, "some damaged copy must be refused");
}

#[test]
fn check_finds_usd_files_in_folders() {
    let Some(dir) = usd_dir("check_finds_usd_files_in_folders") else {
        return;
    };
    let inputs =
        dqview::check::collect_inputs(&[dir.to_string_lossy().into_owned()]).expect("inputs");
    let names: Vec<&str> = inputs.models.iter().map(|i| i.name()).collect();
    for file in [
        "Adventurer.usdc",
        "RobotExpressive.usdc",
        "tube_lbs.usda",
        "tube_package.usdz",
    ] {
        assert!(names.iter().any(|n| n.ends_with(file)), "{file}: {names:?}");
    }
}
