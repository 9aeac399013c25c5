//! Finite but huge numbers in files (issue 22, item 6): an inverse bind matrix entry of 1e30,
//! a key time of 3e38 s, FBX vertices at 1e20. Each is refused at load with one line naming
//! the value, through `analyze --json`, `report` and `check --json`; none prints NaN,
//! infinity or a `null` number. The same files with sane values go through all three.

mod support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::{GltfDoc, dqview_in, scratch_dir, stderr_of};

/// A skinned quad (one joint) with inverse bind matrix `ibm` and a 2-key twist clip ending at `end_s`.
fn quad_gltf(ibm: [f32; 16], end_s: f32) -> String {
    let mut doc = GltfDoc::default();
    doc.quad(0.0, None, None);
    let ibm = doc.f32s(&ibm, "MAT4", 16);
    let times = doc.f32s(&[0.0, end_s], "SCALAR", 1);
    let half = std::f32::consts::FRAC_1_SQRT_2;
    let turns = doc.f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, half, 0.0, half], "VEC4", 4);
    let mut root: Value = serde_json::from_str(&doc.gltf(true)).expect("JSON");
    root["skins"][0]["inverseBindMatrices"] = json!(ibm);
    root["animations"] = json!([{
        "name": "turn",
        "samplers": [{"input": times, "output": turns}],
        "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}],
    }]);
    root.to_string()
}

/// The identity as 16 column-major floats, with entry `at` set to `value`.
fn ibm_with(at: usize, value: f32) -> [f32; 16] {
    let mut m = glam::Mat4::IDENTITY.to_cols_array();
    m[at] = value;
    m
}

/// The test FBX's cubes with their first control point at x = `x`.
fn fbx_with_vertex_at(x: &str) -> String {
    let text = support::fbx_shapes::blend_shape_fbx();
    assert_eq!(text.matches("a: 0,0,0,1,").count(), 2, "two cubes");
    text.replace("a: 0,0,0,1,", &format!("a: {x},0,0,1,"))
}

/// Writes `text` as `dir/name`.
fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write model");
    path
}

/// Keys whose values are always numbers (or arrays of numbers): a `null` there was a NaN or an
/// infinity that serde_json printed as `null`. `time` may be null only in a joint list (at rest).
const NUMERIC: [&str; 13] = [
    "max_lbs_dqs_displacement",
    "max_lbs_dqs_displacement_relative",
    "max_displacement_time",
    "cor_distance",
    "min_volume_ratio",
    "max_volume_ratio",
    "worst_time",
    "ratios",
    "times",
    "ratio",
    "dqs_ratio",
    "worst_sum",
    "time",
];

/// Fails when `value` holds a `null` where a number belongs (see [`NUMERIC`]).
fn assert_no_null_numbers(value: &Value, in_joints: bool, what: &str) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                let may_be_null = key == "time" && in_joints;
                if NUMERIC.contains(&key.as_str()) && !may_be_null {
                    let numbers = match v {
                        Value::Array(items) => items.iter().all(Value::is_number),
                        other => other.is_number(),
                    };
                    assert!(numbers, "{what}: `{key}` is {v}");
                }
                assert_no_null_numbers(v, in_joints || key == "joints", what);
            }
        }
        Value::Array(items) => items
            .iter()
            .for_each(|v| assert_no_null_numbers(v, in_joints, what)),
        _ => {}
    }
}

/// Fails when `text` holds a non-finite number as Rust prints one.
fn assert_numbers_finite(text: &str, what: &str) {
    for word in ["NaN", "inf"] {
        let standalone = text.match_indices(word).any(|(at, _)| {
            let before = text[..at].chars().next_back();
            let after = text[at + word.len()..].chars().next();
            !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
        });
        assert!(!standalone, "{what} prints `{word}`:\n{text}");
    }
}

/// Runs analyze, report and check on `model`; each must refuse it with one line holding `needle`.
fn assert_refused(model: &Path, needle: &str, dir: &Path) {
    let model = model.to_str().expect("UTF-8");
    let cache = dir.join("cache");
    let analyze = dqview_in(
        &["analyze", model, "--json", "--clip", "0", "--samples", "5"],
        &cache,
    );
    let err = stderr_of(&analyze);
    assert!(!analyze.status.success(), "analyze accepted {model}");
    assert!(analyze.stdout.is_empty(), "analyze printed for {model}");
    assert!(err.contains(needle), "analyze: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");

    let html = dir.join("refused.html");
    let _ = std::fs::remove_file(&html);
    let args = [
        "report",
        model,
        "--out",
        html.to_str().expect("test value"),
        "--no-renders",
    ];
    let report = dqview_in(&args, &cache);
    let err = stderr_of(&report);
    assert!(!report.status.success(), "report accepted {model}");
    assert!(err.contains(needle), "report: {err}");
    assert!(!html.exists(), "no page written for {model}");

    let check = dqview_in(&["check", "--json", model], &cache);
    assert_eq!(check.status.code(), Some(1), "{}", stderr_of(&check));
    let text = String::from_utf8_lossy(&check.stdout).into_owned();
    assert_numbers_finite(&text, "check --json");
    let json: Value = serde_json::from_str(&text).expect("check JSON");
    assert_no_null_numbers(&json, false, "check --json");
    let findings = json["files"][0]["findings"].as_array().expect("findings");
    assert_eq!(findings.len(), 1, "{text}");
    assert_eq!(findings[0]["rule"], "load_error");
    let detail = findings[0]["detail"].as_str().expect("test value");
    assert!(detail.contains(needle), "{detail}");
}

/// Runs analyze, report and check on `model`; each must succeed with finite numbers only.
fn assert_accepted(model: &Path, dir: &Path) {
    let model = model.to_str().expect("UTF-8");
    let cache = dir.join("cache");
    let analyze = dqview_in(
        &["analyze", model, "--json", "--clip", "0", "--samples", "5"],
        &cache,
    );
    assert!(analyze.status.success(), "{}", stderr_of(&analyze));
    let text = String::from_utf8_lossy(&analyze.stdout).into_owned();
    assert_numbers_finite(&text, "analyze --json");
    let json: Value = serde_json::from_str(&text).expect("analyze JSON");
    assert_no_null_numbers(&json, false, "analyze --json");
    assert_eq!(json["times"].as_array().map(Vec::len), Some(5), "{text}");

    let html = dir.join("accepted.html");
    let args = [
        "report",
        model,
        "--out",
        html.to_str().expect("test value"),
        "--no-renders",
    ];
    let report = dqview_in(&args, &cache);
    assert!(report.status.success(), "{}", stderr_of(&report));
    let page = std::fs::read_to_string(&html).expect("page");
    assert_eq!(dqview::rig_report::non_finite_text(&page), None);

    let check = dqview_in(&["check", "--json", model], &cache);
    let text = String::from_utf8_lossy(&check.stdout).into_owned();
    assert_numbers_finite(&text, "check --json");
    let json: Value = serde_json::from_str(&text).expect("check JSON");
    assert_no_null_numbers(&json, false, "check --json");
    assert!(
        json["files"][0]["findings"]
            .as_array()
            .expect("test value")
            .iter()
            .all(|f| f["rule"] != "load_error" && f["rule"] != "internal_error"),
        "{text}"
    );
}

#[test]
fn gltf_with_a_huge_inverse_bind_matrix_is_refused_naming_the_entry() {
    let dir = scratch_dir("numbers_huge_ibm");
    let huge = write(&dir, "huge_ibm.gltf", &quad_gltf(ibm_with(12, 1e30), 1.0));
    assert_refused(
        &huge,
        "inverse bind matrix of joint 0 (`joint`, skin 0) has an entry 1e30",
        &dir,
    );
    // A large but real offset (a rig in millimetres) loads.
    let fine = write(&dir, "big_ibm.gltf", &quad_gltf(ibm_with(12, 2500.0), 1.0));
    assert_accepted(&fine, &dir);
}

#[test]
fn gltf_with_a_key_time_of_3e38_s_is_refused_naming_the_time() {
    let dir = scratch_dir("numbers_key_time");
    let late = write(&dir, "late_key.gltf", &quad_gltf(ibm_with(0, 1.0), 3e38));
    assert_refused(&late, "channel 0 has a key time 3e38 s", &dir);
    let hour = write(&dir, "hour_key.gltf", &quad_gltf(ibm_with(0, 1.0), 3600.0));
    assert_accepted(&hour, &dir);
}

#[test]
fn fbx_with_vertices_at_1e20_is_refused_naming_the_coordinate() {
    let dir = scratch_dir("numbers_fbx_vertices");
    let far = write(&dir, "far.fbx", &fbx_with_vertex_at("1e20"));
    // The `Box` cube's geometric scaling (2, 1, 1) doubles its x.
    assert_refused(
        &far,
        "a vertex of mesh 0 (`BoxGeo`) primitive 0 has a coordinate 2e20",
        &dir,
    );
    let near = write(&dir, "near.fbx", &fbx_with_vertex_at("0"));
    assert_accepted(&near, &dir);
}
