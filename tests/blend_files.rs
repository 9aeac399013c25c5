//! `dqview blend` on real files: the characters written back into their own files (JSON compared
//! with the input, glTF-Validator run), a `.gltf` with an external buffer, FBX.

mod support;

use std::path::Path;
use std::time::Instant;

use dqview::model::load_model;
use serde_json::Value;
use support::{dqview_in, scratch_dir, stderr_of};

/// The JSON text of a .gltf or .glb file.
fn json_text_of(path: &Path) -> String {
    let bytes = std::fs::read(path).expect("read");
    let json = if bytes.starts_with(b"glTF") {
        let len = u32::from_le_bytes(bytes[12..16].try_into().expect("4 bytes")) as usize;
        bytes[20..20 + len].to_vec()
    } else {
        bytes
    };
    String::from_utf8(json).expect("UTF-8 JSON")
}

/// The JSON document of a .gltf or .glb file.
fn json_of(path: &Path) -> Value {
    serde_json::from_str(&json_text_of(path)).expect("glTF JSON")
}

/// Checks that every top-level member the blend does not touch is in the output with its exact text.
fn assert_members_verbatim(input: &str, output: &str) {
    let members: std::collections::HashMap<String, Box<serde_json::value::RawValue>> =
        serde_json::from_str(input.trim_end()).expect("glTF JSON");
    for (key, raw) in &members {
        if ["meshes", "accessors", "bufferViews", "buffers"].contains(&key.as_str()) {
            continue;
        }
        assert!(output.contains(raw.get()), "`{key}` was rewritten");
    }
}

/// Checks that `output` is `input` plus, per primitive of `skinned`, one accessor, one view and
/// `_DQS_BLEND`, and (.gltf) one buffer; returns how many primitives gained the attribute.
fn assert_only_additions(input: &Value, output: &Value, glb: bool) -> usize {
    let mut out = output.clone();
    let count = |v: &Value, key: &str| v[key].as_array().map_or(0, Vec::len);
    let accessors = count(input, "accessors");
    let mut added = 0;
    for mesh in out["meshes"].as_array_mut().expect("meshes") {
        for prim in mesh["primitives"].as_array_mut().expect("primitives") {
            let attributes = prim["attributes"].as_object_mut().expect("attributes");
            if let Some(a) = attributes.remove("_DQS_BLEND") {
                let a = a.as_u64().expect("index") as usize;
                assert!(a >= accessors, "the attribute points at a new accessor");
                let accessor = &output["accessors"][a];
                assert_eq!(accessor["type"], "SCALAR");
                assert_eq!(accessor["componentType"], 5126);
                let (min, max) = (
                    accessor["min"][0].as_f64().expect("min"),
                    accessor["max"][0].as_f64().expect("max"),
                );
                assert!((0.0..=1.0).contains(&min) && min <= max && max <= 1.0);
                added += 1;
            }
        }
    }
    assert_eq!(count(output, "accessors"), accessors + added);
    assert_eq!(
        count(output, "bufferViews"),
        count(input, "bufferViews") + added
    );
    out["accessors"]
        .as_array_mut()
        .expect("accessors")
        .truncate(accessors);
    out["bufferViews"]
        .as_array_mut()
        .expect("views")
        .truncate(count(input, "bufferViews"));
    if glb {
        let (old, new) = (
            &input["buffers"][0]["byteLength"],
            &output["buffers"][0]["byteLength"],
        );
        assert!(
            new.as_u64() >= old.as_u64(),
            "buffer 0 grows: {old} -> {new}"
        );
        for view in &output["bufferViews"].as_array().expect("views")[count(input, "bufferViews")..]
        {
            assert_eq!(view["buffer"], 0);
            assert!(
                view["byteOffset"].as_u64() >= old.as_u64(),
                "new bytes come after the old ones"
            );
        }
        out["buffers"][0]["byteLength"] = old.clone();
    } else {
        assert_eq!(count(output, "buffers"), count(input, "buffers") + 1);
        out["buffers"]
            .as_array_mut()
            .expect("buffers")
            .truncate(count(input, "buffers"));
    }
    assert!(out == *input, "the file changed beyond the additions");
    added
}

#[test]
fn real_characters_get_the_attribute_and_nothing_else() {
    let test = "real_characters_get_the_attribute_and_nothing_else";
    let Some(chars) = support::characters_dir(test) else {
        return;
    };
    let validator = support::gltf_validator(test);
    let dir = scratch_dir("blend-characters");
    for (file, out_name, glb) in [
        ("RobotExpressive.glb", "robot_fit.glb", true),
        ("Adventurer.gltf", "adventurer fit.gltf", false),
    ] {
        let input = chars.join(file);
        let out = dir.join(out_name);
        let started = Instant::now();
        let run = dqview_in(
            &[
                "blend",
                input.to_str().expect("utf-8"),
                "--clip",
                "all",
                "--samples",
                "3",
                "--out",
                out.to_str().expect("utf-8"),
            ],
            &dir.join("cache"),
        );
        let seconds = started.elapsed().as_secs_f64();
        assert!(run.status.success(), "{file}: {}", stderr_of(&run));
        eprintln!("{file}: blend --clip all --samples 3 took {seconds:.1} s");

        let scene = load_model(out.to_str().expect("utf-8")).expect("the output loads");
        let original = load_model(input.to_str().expect("utf-8")).expect("the input loads");
        let skinned_meshes: Vec<usize> = scene
            .nodes
            .iter()
            .filter(|n| n.skin.is_some())
            .filter_map(|n| n.mesh)
            .collect();
        let mut skinned = 0;
        for (m, (mesh, before)) in scene.meshes.iter().zip(&original.meshes).enumerate() {
            for (prim, old) in mesh.primitives.iter().zip(&before.primitives) {
                assert_eq!(prim.positions, old.positions, "{file}: vertex order kept");
                let drawn_skinned = skinned_meshes.contains(&m);
                match (&prim.dqs_blend, prim.influences.is_some() && drawn_skinned) {
                    (Some(b), true) => {
                        assert_eq!(b.len(), prim.positions.len(), "{file}");
                        assert!(b.iter().all(|x| (0.0..=1.0).contains(x)), "{file}");
                        skinned += 1;
                    }
                    (None, false) => {}
                    (b, s) => panic!(
                        "{file}: _DQS_BLEND {:?} on a primitive skinned: {s}",
                        b.as_ref().map(Vec::len)
                    ),
                }
            }
        }
        let added = assert_only_additions(&json_of(&input), &json_of(&out), glb);
        assert_members_verbatim(&json_text_of(&input), &json_text_of(&out));
        assert_eq!(added, skinned, "{file}");
        assert!(skinned > 0, "{file}");
        if !glb {
            assert!(dir.join("adventurer fit.dqs_blend.bin").is_file());
        }
        if let Some(v) = &validator {
            let before = support::validate_gltf(v, &input);
            let after = support::validate_gltf(v, &out);
            let (mut a, mut b) = (before.messages.clone(), after.messages.clone());
            a.sort();
            b.sort();
            // The robot's own weights do not sum to 1 (752 validator errors); nothing may be added.
            assert_eq!(
                after.errors,
                before.errors,
                "{file}: {:?}",
                after.messages.iter().take(5).collect::<Vec<_>>()
            );
            assert_eq!(a, b, "{file}: the validator's errors changed");
            eprintln!(
                "{file}: validator errors {} before and after, warnings {} -> {}",
                before.errors, before.warnings, after.warnings
            );
        }
    }
}

#[test]
fn a_gltf_written_elsewhere_takes_its_external_buffer_along() {
    let dir = scratch_dir("blend-external");
    let src = dir.join("src");
    let dst = dir.join("dst");
    std::fs::create_dir_all(src.join("data")).expect("folders");
    std::fs::create_dir_all(&dst).expect("folders");
    let mut doc = support::GltfDoc::default();
    doc.quad(0.0, None, None);
    let mut root: Value = serde_json::from_str(&doc.gltf(true)).expect("JSON");
    root["buffers"][0]["uri"] = "data/geo%20metry.bin".into();
    std::fs::write(src.join("data/geo metry.bin"), doc.bin()).expect("bin");
    let input = src.join("quad.gltf");
    std::fs::write(&input, root.to_string()).expect("gltf");
    let out = dst.join("quad.gltf");
    let args = [
        "blend",
        input.to_str().expect("utf-8"),
        "--sweep",
        "joint=0:90",
        "--samples",
        "3",
        "--out",
        out.to_str().expect("utf-8"),
    ];
    let run = dqview_in(&args, &dir.join("cache"));
    assert!(run.status.success(), "{}", stderr_of(&run));
    assert_eq!(
        std::fs::read(dst.join("data/geo metry.bin")).expect("copied"),
        doc.bin()
    );
    let scene = load_model(out.to_str().expect("utf-8")).expect("loads from its new folder");
    // One joint: LBS and DQS agree everywhere, so every beta is 0.5.
    assert_eq!(
        scene.meshes[0].primitives[0].dqs_blend.as_deref(),
        Some(&[0.5f32; 4][..])
    );
    // A second run finds the identical copy and leaves it; a different file there is refused.
    assert!(dqview_in(&args, &dir.join("cache")).status.success());
    std::fs::write(dst.join("data/geo metry.bin"), b"other").expect("overwrite");
    let clash = dqview_in(&args, &dir.join("cache"));
    assert!(!clash.status.success());
    assert!(
        stderr_of(&clash).contains("already exists with other content"),
        "{}",
        stderr_of(&clash)
    );
}

#[test]
fn fbx_gives_a_glb_of_the_rig_or_a_map_per_control_point() {
    let Some(fbx) = support::data_dir(
        "DQVIEW_FBX",
        "fbx_gives_a_glb_of_the_rig_or_a_map_per_control_point",
    ) else {
        return;
    };
    let dir = scratch_dir("blend-fbx");
    let input = fbx.join("maya_game_sausage_7500_binary_combined.fbx");
    let input = input.to_str().expect("utf-8");
    let glb = dir.join("sausage.glb");
    let json = dir.join("sausage.json");
    for out in [&glb, &json] {
        let run = dqview_in(
            &[
                "blend",
                input,
                "--clip",
                "all",
                "--samples",
                "3",
                "--out",
                out.to_str().expect("utf-8"),
            ],
            &dir.join("cache"),
        );
        assert!(run.status.success(), "{}", stderr_of(&run));
        if out == &glb {
            assert!(String::from_utf8_lossy(&run.stdout).contains("units and axes are kept"));
        }
    }
    let scene = load_model(input).expect("fbx");
    let written = load_model(glb.to_str().expect("utf-8")).expect("glb");
    let map: Value = serde_json::from_slice(&std::fs::read(&json).expect("json")).expect("JSON");
    assert_eq!(map["attribute"], "_DQS_BLEND");
    for entry in map["meshes"].as_array().expect("meshes") {
        let m = entry["mesh"].as_u64().expect("mesh") as usize;
        for p in entry["primitives"].as_array().expect("primitives") {
            let k = p["primitive"].as_u64().expect("primitive") as usize;
            let betas: Vec<f32> = serde_json::from_value(p["betas"].clone()).expect("betas");
            assert_eq!(betas.len(), scene.meshes[m].primitives[k].positions.len());
            assert_eq!(
                written.meshes[m].primitives[k].dqs_blend.as_deref(),
                Some(&betas[..]),
                "GLB and JSON agree"
            );
            // Vertex i < control points is control point i in a one-material mesh.
            let points: Vec<Option<f32>> =
                serde_json::from_value(entry["control_points"].clone()).expect("control points");
            let cps = scene.meshes[m].primitives[k]
                .control_points
                .as_ref()
                .expect("FBX control points");
            for (v, &cp) in cps.iter().enumerate() {
                assert!((points[cp as usize].expect("used") - betas[v]).abs() < 1e-6);
            }
        }
    }
}

/// The accessor indices the primitives' `_DQS_BLEND` attributes name, and the file's accessor count.
fn blend_accessors(path: &Path) -> (Vec<u64>, usize) {
    let json = json_of(path);
    let named = json["meshes"]
        .as_array()
        .expect("meshes")
        .iter()
        .flat_map(|m| m["primitives"].as_array().expect("primitives").clone())
        .filter_map(|p| p["attributes"]["_DQS_BLEND"].as_u64())
        .collect();
    (
        named,
        json["accessors"].as_array().expect("accessors").len(),
    )
}

/// `dqview blend MODEL --clip all --samples 3 --smooth SMOOTH --out OUT` (cache in `dir`);
/// what it printed, stdout then stderr.
fn blend_tube(model: &str, out: &str, smooth: &str, dir: &Path) -> String {
    let args = [
        "blend",
        model,
        "--clip",
        "all",
        "--samples",
        "3",
        "--smooth",
        smooth,
        "--out",
        out,
    ];
    let run = dqview_in(&args, &dir.join("cache"));
    assert!(run.status.success(), "{}", stderr_of(&run));
    String::from_utf8_lossy(&run.stdout).into_owned() + &stderr_of(&run)
}

/// The GLB `glb` as a `.gltf` named `stem.gltf` in `dir`, its BIN chunk beside it as `stem.bin`.
fn write_as_gltf(glb: &[u8], dir: &Path, stem: &str) -> std::path::PathBuf {
    let json_len = u32::from_le_bytes(glb[12..16].try_into().expect("4 bytes")) as usize;
    let mut json: Value = serde_json::from_slice(&glb[20..20 + json_len]).expect("JSON");
    let bin_at = 20 + json_len;
    let bin_len = u32::from_le_bytes(glb[bin_at..bin_at + 4].try_into().expect("4 bytes")) as usize;
    std::fs::write(
        dir.join(format!("{stem}.bin")),
        &glb[bin_at + 8..bin_at + 8 + bin_len],
    )
    .expect("write bin");
    json["buffers"][0]["uri"] = Value::from(format!("{stem}.bin"));
    let path = dir.join(format!("{stem}.gltf"));
    std::fs::write(&path, serde_json::to_vec(&json).expect("JSON")).expect("write gltf");
    path
}

/// The names and sizes of the files in `dir`, sorted.
fn files_in(dir: &Path) -> Vec<(String, u64)> {
    let mut files: Vec<(String, u64)> = std::fs::read_dir(dir)
        .expect("list")
        .map(|e| e.expect("entry"))
        .filter(|e| e.path().is_file())
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                e.metadata().expect("size").len(),
            )
        })
        .collect();
    files.sort();
    files
}

#[test]
fn blend_in_place_on_a_gltf_rewrites_its_own_bin_instead_of_adding_one() {
    let dir = scratch_dir("blend-in-place-gltf");
    let tube = support::hierarchy::big_hierarchy_glb(3, support::hierarchy::Shape::Chain);
    let file = write_as_gltf(&tube, &dir, "tube");
    let path = file.to_str().unwrap();
    let blend = |smooth: &str| blend_tube(path, path, smooth, &dir);
    blend("0");
    let first = files_in(&dir);
    let names: Vec<&str> = first.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["tube.bin", "tube.dqs_blend.bin", "tube.gltf"]);
    let before = load_model(path).expect("loads").meshes[0].primitives[0]
        .dqs_blend
        .clone();
    let said = blend("3");
    assert!(said.contains("replaced in place"), "{said}");
    let second = files_in(&dir);
    let names: Vec<&str> = second.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["tube.bin", "tube.dqs_blend.bin", "tube.gltf"],
        "no new .bin"
    );
    assert_eq!(second[1].1, first[1].1, "the map's .bin keeps its size");
    assert!(
        second[2].1.abs_diff(first[2].1) <= 64,
        "{first:?} -> {second:?}"
    );
    assert_eq!(blend_accessors(&file).1, 7 + 1, "no accessor added");
    let after = load_model(path).expect("loads").meshes[0].primitives[0]
        .dqs_blend
        .clone();
    assert!(
        after.is_some() && after != before,
        "the smoothed map was written"
    );
    if let Some(v) = support::gltf_validator(
        "blend_in_place_on_a_gltf_rewrites_its_own_bin_instead_of_adding_one",
    ) {
        let report = support::validate_gltf(&v, &file);
        assert_eq!(report.errors, 0, "{:?}", report.messages);
    }
}

#[test]
fn blend_in_place_replaces_the_previous_map_instead_of_growing() {
    let dir = scratch_dir("blend-in-place");
    let tube = support::hierarchy::big_hierarchy_glb(3, support::hierarchy::Shape::Chain);
    let file = dir.join("tube.glb");
    std::fs::write(&file, &tube).unwrap();
    let path = file.to_str().unwrap();
    let blend = |out: &str, smooth: &str| blend_tube(path, out, smooth, &dir);
    blend(path, "0");
    let first_size = std::fs::metadata(&file).unwrap().len();
    let (first, accessors) = blend_accessors(&file);
    assert_eq!(first.len(), 1, "one skinned primitive");
    // Smoothed, the second map differs, so the values must really be rewritten; only the
    // accessor's `min`/`max` text (a float printed in up to 20 characters each) may change the size.
    let said = blend(path, "3");
    assert!(said.contains("replaced in place"), "{said}");
    let second_size = std::fs::metadata(&file).unwrap().len();
    assert!(
        second_size.abs_diff(first_size) <= 64,
        "{first_size} -> {second_size}"
    );
    assert_eq!(
        blend_accessors(&file),
        (first.clone(), accessors),
        "no accessor added"
    );
    blend(path, "3");
    let third_size = std::fs::metadata(&file).unwrap().len();
    assert_eq!(
        third_size, second_size,
        "the same map again: the same bytes"
    );
    assert_eq!(blend_accessors(&file), (first.clone(), accessors));
    let fresh = dir.join("fresh.glb");
    std::fs::write(dir.join("tube_copy.glb"), &tube).unwrap();
    let copy = dir.join("tube_copy.glb");
    let run = dqview_in(
        &[
            "blend",
            copy.to_str().unwrap(),
            "--clip",
            "all",
            "--samples",
            "3",
            "--smooth",
            "3",
            "--out",
            fresh.to_str().unwrap(),
        ],
        &dir.join("cache"),
    );
    assert!(run.status.success(), "{}", stderr_of(&run));
    let betas = |p: &Path| {
        load_model(p.to_str().unwrap()).expect("loads").meshes[0].primitives[0]
            .dqs_blend
            .clone()
            .expect("a map")
    };
    let (in_place, expected) = (betas(&file), betas(&fresh));
    assert_eq!(
        in_place, expected,
        "the map written in place is the new fit"
    );
    if let Some(v) =
        support::gltf_validator("blend_in_place_replaces_the_previous_map_instead_of_growing")
    {
        let report = support::validate_gltf(&v, &file);
        assert_eq!(report.errors, 0, "{:?}", report.messages);
    }
}
