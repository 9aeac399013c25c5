//! Bad data in a real glTF character is a finding (issue 35, items 1 to 3): each case is the
//! shared RobotExpressive.glb with one kind of value broken in the test, and `check` fails it
//! with a finding that names the kind, the place, the count and the first index; the original
//! has no such finding. Every other command says on stderr, in `inspect`'s words, what it
//! replaced or dropped; a vertex without a place is drawn and written nowhere; a glTF writer
//! refuses an input whose bad data it would copy.

mod support;

use std::path::{Path, PathBuf};

use dqview::check::{CheckOptions, Rule, check_model};
use dqview::scene::FaultKind;
use serde_json::Value;
use support::{characters_dir, dqview_in, scratch_dir, stderr_of};

/// The GLB's JSON and binary chunk.
fn glb_parts(bytes: &[u8]) -> (Value, Vec<u8>) {
    let u32_at =
        |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4 bytes")) as usize;
    let json_len = u32_at(12);
    let json = serde_json::from_slice(&bytes[20..20 + json_len]).expect("GLB JSON");
    let bin_at = 20 + json_len;
    let bin_len = u32_at(bin_at);
    (json, bytes[bin_at + 8..bin_at + 8 + bin_len].to_vec())
}

/// The byte offset of float `component` of element `element` of accessor `accessor`.
fn float_offset(json: &Value, accessor: usize, element: usize, component: usize) -> usize {
    let a = &json["accessors"][accessor];
    assert_eq!(a["componentType"], 5126, "accessor {accessor} holds floats");
    let view = &json["bufferViews"][a["bufferView"].as_u64().expect("view") as usize];
    let width = match a["type"].as_str().expect("type") {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" => 4,
        "MAT4" => 16,
        other => panic!("accessor type {other}"),
    };
    let stride = view["byteStride"]
        .as_u64()
        .map_or(4 * width, |s| s as usize);
    let base = view["byteOffset"].as_u64().unwrap_or(0) + a["byteOffset"].as_u64().unwrap_or(0);
    base as usize + element * stride + component * 4
}

/// The robot with floats of `accessor` set: `(element, component, value)` each.
fn robot_with(robot: &[u8], accessor: usize, edits: &[(usize, usize, f32)]) -> Vec<u8> {
    let (json, mut bin) = glb_parts(robot);
    for &(element, component, value) in edits {
        let at = float_offset(&json, accessor, element, component);
        bin[at..at + 4].copy_from_slice(&value.to_le_bytes());
    }
    dqview::scene::glb_container(json.to_string().into_bytes(), bin).expect("GLB")
}

/// Where the robot keeps what the cases break.
struct Layout {
    /// The first skinned primitive: (mesh, primitive, POSITION, NORMAL, WEIGHTS_0 accessors).
    skinned: (usize, usize, usize, usize, usize),
    /// The first morph target's POSITION accessor and its (mesh, primitive).
    morph: (usize, usize, usize),
    /// Skin 0's inverse bind matrices accessor.
    inverse_binds: usize,
    /// Animation 0's first rotation channel: (channel, input accessor, output accessor).
    rotation: (usize, usize, usize),
    /// Animation 0's first translation channel: (channel, output accessor).
    translation: (usize, usize),
}

impl Layout {
    /// Finds each accessor in the robot's JSON.
    fn of(json: &Value) -> Self {
        let index = |v: &Value| v.as_u64().expect("index") as usize;
        let mut skinned = None;
        let mut morph = None;
        for (m, mesh) in json["meshes"]
            .as_array()
            .expect("meshes")
            .iter()
            .enumerate()
        {
            for (p, prim) in mesh["primitives"]
                .as_array()
                .expect("prims")
                .iter()
                .enumerate()
            {
                let at = &prim["attributes"];
                if skinned.is_none() && at.get("WEIGHTS_0").is_some() {
                    skinned = Some((
                        m,
                        p,
                        index(&at["POSITION"]),
                        index(&at["NORMAL"]),
                        index(&at["WEIGHTS_0"]),
                    ));
                }
                if morph.is_none()
                    && let Some(t) = prim["targets"].get(0)
                {
                    morph = Some((m, p, index(&t["POSITION"])));
                }
            }
        }
        let anim = &json["animations"][0];
        let channel = |path: &str| {
            let channels = anim["channels"].as_array().expect("channels");
            let c = channels
                .iter()
                .position(|c| c["target"]["path"] == path)
                .expect("channel");
            let sampler = &anim["samplers"][index(&channels[c]["sampler"])];
            (c, index(&sampler["input"]), index(&sampler["output"]))
        };
        let (tc, _, tout) = channel("translation");
        Self {
            skinned: skinned.expect("a skinned primitive"),
            morph: morph.expect("a morph target"),
            inverse_binds: index(&json["skins"][0]["inverseBindMatrices"]),
            rotation: channel("rotation"),
            translation: (tc, tout),
        }
    }
}

/// One broken copy: its name, the bytes, and the finding it must get.
struct Case {
    name: &'static str,
    bytes: Vec<u8>,
    rule: Rule,
    kind: FaultKind,
    place: String,
    count: usize,
    first: Option<usize>,
}

/// The campaign's glTF cases, each on a copy of `robot`.
fn cases(robot: &[u8]) -> Vec<Case> {
    let (json, _) = glb_parts(robot);
    let l = Layout::of(&json);
    let (m, p, positions, normals, weights) = l.skinned;
    let prim = format!("mesh {m} primitive {p}");
    let (mm, mp, deltas) = l.morph;
    let (rc, times, rotations) = l.rotation;
    let (tc, translations) = l.translation;
    let nan = f32::NAN;
    let case =
        |name, accessor, edits: &[(usize, usize, f32)], rule, kind, place, count, first| Case {
            name,
            bytes: robot_with(robot, accessor, edits),
            rule,
            kind,
            place,
            count,
            first,
        };
    let zero_quat = [(2, 0, 0.0), (2, 1, 0.0), (2, 2, 0.0), (2, 3, 0.0)];
    let zero_bind: Vec<(usize, usize, f32)> = (0..16).map(|c| (4, c, 0.0)).collect();
    vec![
        case(
            "nan_positions",
            positions,
            &[(9, 1, nan), (5, 0, nan), (200, 2, f32::INFINITY)],
            Rule::NonFiniteData,
            FaultKind::NonFinitePositions,
            prim.clone(),
            3,
            Some(5),
        ),
        case(
            "inf_normals",
            normals,
            &[(7, 2, f32::NEG_INFINITY)],
            Rule::NonFiniteData,
            FaultKind::NonFiniteNormals,
            prim.clone(),
            1,
            Some(7),
        ),
        case(
            "nan_weights",
            weights,
            &[(11, 0, nan), (12, 1, nan)],
            Rule::NonFiniteData,
            FaultKind::NonFiniteWeights,
            prim.clone(),
            2,
            Some(11),
        ),
        case(
            "nan_morph_deltas",
            deltas,
            &[(3, 1, nan)],
            Rule::NonFiniteData,
            FaultKind::NonFiniteMorphDeltas,
            format!("mesh {mm} primitive {mp}"),
            1,
            Some(3),
        ),
        case(
            "nan_inverse_bind",
            l.inverse_binds,
            &[(3, 13, nan)],
            Rule::NonFiniteData,
            FaultKind::NonFiniteBindMatrices,
            "skin 0".into(),
            1,
            Some(3),
        ),
        case(
            "zero_inverse_bind",
            l.inverse_binds,
            &zero_bind,
            Rule::DegenerateRig,
            FaultKind::SingularBindMatrices,
            "skin 0".into(),
            1,
            Some(4),
        ),
        case(
            "nan_key_time",
            times,
            &[(1, 0, nan)],
            Rule::NonFiniteData,
            FaultKind::NonFiniteKeyTimes,
            format!("animation 0 channel {rc}"),
            1,
            Some(1),
        ),
        case(
            "nan_key_value",
            translations,
            &[(2, 1, nan)],
            Rule::NonFiniteData,
            FaultKind::NonFiniteKeyValues,
            format!("animation 0 channel {tc}"),
            1,
            Some(2),
        ),
        case(
            "zero_rotation_key",
            rotations,
            &zero_quat,
            Rule::DegenerateRig,
            FaultKind::ZeroRotationKeys,
            format!("animation 0 channel {rc}"),
            1,
            Some(2),
        ),
    ]
}

/// A quick check: every rule, two samples a clip.
fn check_options() -> CheckOptions {
    CheckOptions {
        samples: 2,
        ..CheckOptions::DEFAULT
    }
}

/// The robot's path and bytes, or `None` (skipped) without the shared characters.
fn robot(test: &str) -> Option<(PathBuf, Vec<u8>)> {
    let path = characters_dir(test)?.join("RobotExpressive.glb");
    let bytes = std::fs::read(&path).expect("read the robot");
    Some((path, bytes))
}

#[test]
fn check_fails_each_broken_copy_with_a_finding_that_names_it_and_passes_the_originals() {
    let test = "check_fails_each_broken_copy_with_a_finding_that_names_it";
    let Some((path, bytes)) = robot(test) else {
        return;
    };
    let data_rules = [Rule::NonFiniteData, Rule::DegenerateRig, Rule::DataFallback];
    let original = check_model(path.to_str().expect("utf-8"), &check_options());
    let data: Vec<_> = original
        .findings
        .iter()
        .filter(|f| data_rules.contains(&f.rule))
        .collect();
    assert!(
        data.is_empty(),
        "the original robot has no bad data: {data:?}"
    );
    let adventurer = path.with_file_name("Adventurer.gltf");
    let report = check_model(adventurer.to_str().expect("utf-8"), &check_options());
    assert!(
        report.ok,
        "the original Adventurer passes: {:?}",
        report.findings
    );

    let dir = scratch_dir("bad_data_gltf_check");
    for case in cases(&bytes) {
        let file = dir.join(format!("{}.glb", case.name));
        std::fs::write(&file, &case.bytes).expect("write");
        let report = check_model(file.to_str().expect("utf-8"), &check_options());
        // One finding per place: a key-time accessor shared by several channels is one per channel.
        let f = support::one_data_finding(&report, case.name, case.kind, |p| p == case.place);
        let elsewhere = report
            .findings
            .iter()
            .filter(|f| f.data.is_some() && f.data != Some(case.kind));
        assert_eq!(elsewhere.count(), 0, "{}: no other data finding", case.name);
        assert_eq!(f.rule, case.rule, "{}", case.name);
        assert_eq!(
            f.place.as_deref(),
            Some(case.place.as_str()),
            "{}",
            case.name
        );
        assert_eq!(f.count, Some(case.count), "{}", case.name);
        assert_eq!(f.first_index, case.first, "{}", case.name);
        assert!(
            f.detail.starts_with(&case.place),
            "{}: {}",
            case.name,
            f.detail
        );
    }
}

/// The `v` lines of an OBJ file.
fn obj_vertices(path: &Path) -> Vec<[f32; 3]> {
    std::fs::read_to_string(path)
        .expect("read OBJ")
        .lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let v: Vec<f32> = l
                .split_whitespace()
                .map(|x| x.parse().expect("number"))
                .collect();
            [v[0], v[1], v[2]]
        })
        .collect()
}

/// How many `f` lines an OBJ file has.
fn obj_faces(path: &Path) -> usize {
    let text = std::fs::read_to_string(path).expect("read OBJ");
    text.lines().filter(|l| l.starts_with("f ")).count()
}

#[test]
fn every_command_says_what_it_dropped_and_no_vertex_lands_at_the_origin() {
    let Some((path, bytes)) = robot("every_command_says_what_it_dropped") else {
        return;
    };
    let dir = scratch_dir("bad_data_gltf_commands");
    let case = cases(&bytes).swap_remove(0);
    assert_eq!(case.kind, FaultKind::NonFinitePositions);
    let bad = dir.join("nan_positions.glb");
    std::fs::write(&bad, &case.bytes).expect("write");
    let bad = bad.to_str().expect("utf-8");

    let inspect = dqview_in(&["inspect", bad], &dir);
    let text = String::from_utf8_lossy(&inspect.stdout).into_owned();
    let line = text
        .lines()
        .find(|l| l.starts_with("error") && l.contains("vertex positions were not finite"))
        .unwrap_or_else(|| panic!("inspect names the positions: {text}"));
    let message = line.trim_start_matches("error").trim();
    assert!(message.contains("(first at index 5)"), "{message}");

    let out = dir.join("posed.obj");
    let map = dir.join("map.json");
    let runs: [Vec<&str>; 3] = [
        vec!["analyze", bad, "--clip", "0", "--samples", "2"],
        vec!["export", bad, "--out", out.to_str().expect("utf-8")],
        vec![
            "blend",
            bad,
            "--clip",
            "0",
            "--samples",
            "2",
            "--out",
            map.to_str().expect("utf-8"),
        ],
    ];
    for args in &runs {
        let o = dqview_in(args, &dir);
        assert!(o.status.success(), "{args:?}: {}", stderr_of(&o));
        let err = stderr_of(&o);
        assert!(
            err.contains(message),
            "{args:?} says what it dropped, as inspect does: {err}"
        );
    }

    // The bad vertices are written nowhere new: every exported vertex is one the original
    // export has too (the origin is not among them), and the triangles that used them are gone.
    let original = dir.join("original.obj");
    let o = dqview_in(
        &[
            "export",
            path.to_str().expect("utf-8"),
            "--out",
            original.to_str().expect("utf-8"),
        ],
        &dir,
    );
    assert!(o.status.success(), "{}", stderr_of(&o));
    let known = obj_vertices(&original);
    let posed = obj_vertices(&out);
    assert_eq!(posed.len(), known.len(), "one vertex slot per file vertex");
    assert!(
        !known.contains(&[0.0; 3]),
        "the robot has no vertex at the origin"
    );
    for v in &posed {
        assert!(v.iter().all(|x| x.is_finite()), "finite: {v:?}");
        assert!(known.contains(v), "{v:?} is no vertex of the original pose");
    }
    let dropped = obj_faces(&original) - obj_faces(&out);
    assert!(
        dropped >= 3,
        "the triangles of the 3 unplaced vertices are dropped: {dropped}"
    );
}

#[test]
fn a_gltf_writer_refuses_to_copy_data_the_spec_refuses() {
    let Some((_, bytes)) = robot("a_gltf_writer_refuses_to_copy_data_the_spec_refuses") else {
        return;
    };
    let dir = scratch_dir("bad_data_gltf_writers");
    let bad = dir.join("nan_key_time.glb");
    let case = cases(&bytes)
        .into_iter()
        .find(|c| c.name == "nan_key_time")
        .expect("case");
    std::fs::write(&bad, &case.bytes).expect("write");
    let bad = bad.to_str().expect("utf-8");
    for (args, out) in [
        (
            vec!["blend", bad, "--clip", "0", "--samples", "2", "--out"],
            dir.join("blend.glb"),
        ),
        (
            vec!["twist-joints", bad, "--joint", "UpperArmL", "--out"],
            dir.join("twist.glb"),
        ),
    ] {
        let mut args = args;
        args.push(out.to_str().expect("utf-8"));
        let o = dqview_in(&args, &dir);
        let err = stderr_of(&o);
        assert!(!o.status.success(), "{args:?} refuses");
        assert!(
            err.contains("glTF spec refuses") && err.contains("key times were not finite"),
            "{err}"
        );
        assert!(!out.exists(), "{args:?} writes nothing");
    }
}
