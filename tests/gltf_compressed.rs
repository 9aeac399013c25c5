//! Compressed glTF as web pipelines ship it: glTF Transform's `draco`, `meshopt`, `quantize`
//! and `optimize` of the shared characters load with the original's rig and clips, pose
//! within the compression's quantisation error (CPU and GPU), say their compression in
//! `inspect`, and `blend`/`twist-joints` on them write files the glTF-Validator accepts.

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use dqview::scene::{Scene, load_gltf_path};
use glam::Vec3;
use support::Grid;

/// The characters compressed.
const CHARACTERS: [&str; 2] = ["Adventurer.gltf", "RobotExpressive.glb"];
/// glTF Transform commands, with their defaults.
const COMMANDS: [&str; 4] = ["draco", "meshopt", "quantize", "optimize"];
/// Largest posed-vertex error allowed, as a fraction of the bounding-box diagonal.
const MAX_ERROR: f32 = 2e-3;

/// Every (character, command, original, compressed file), or `None` after a skip message.
fn cases(test: &str) -> Option<Vec<(&'static str, &'static str, PathBuf, PathBuf)>> {
    let characters = support::characters_dir(test)?;
    let bin = support::gltf_transform::gltf_transform(test)?;
    let mut out = Vec::new();
    for file in CHARACTERS {
        let original = characters.join(file);
        for command in COMMANDS {
            let compressed = support::gltf_transform::compressed(&bin, command, &original);
            out.push((file, command, original.clone(), compressed));
        }
    }
    Some(out)
}

/// Joint names of every skin, as a set.
fn joint_names(scene: &Scene) -> BTreeSet<String> {
    scene
        .skins
        .iter()
        .flat_map(|s| &s.joints)
        .map(|&j| scene.nodes[j].name.clone())
        .collect()
}

/// Clip names, in order.
fn clip_names(scene: &Scene) -> Vec<String> {
    scene.animations.iter().map(|a| a.name.clone()).collect()
}

/// Vertices of every primitive.
fn vertex_count(scene: &Scene) -> usize {
    scene
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .map(|p| p.positions.len())
        .sum()
}

#[test]
fn compressed_files_load_with_the_original_rig_clips_and_vertices() {
    let Some(cases) = cases("compressed_files_load_with_the_original_rig_clips_and_vertices")
    else {
        return;
    };
    for (file, command, original, compressed) in cases {
        let a = load_gltf_path(&original).expect("original loads");
        let b = load_gltf_path(&compressed)
            .unwrap_or_else(|e| panic!("{command} {file}: does not load: {e}"));
        let here = format!("{command} {file}");
        assert!(b.warnings.is_empty(), "{here}: warnings {:?}", b.warnings);
        assert_eq!(joint_names(&a), joint_names(&b), "{here}: joints");
        assert_eq!(clip_names(&a), clip_names(&b), "{here}: clips");
        let (va, vb) = (vertex_count(&a), vertex_count(&b));
        match command {
            // Draco drops degenerate triangles' lone vertices and splits points on attribute
            // seams; `optimize` welds and simplifies. Their positions are compared in the exports.
            "draco" | "optimize" => assert!(
                vb.abs_diff(va) * 1000 <= va,
                "{here}: {vb} vertices, the original {va}"
            ),
            _ => assert_eq!(va, vb, "{here}: vertices"),
        }
    }
}

/// `dqview export` of `model` at the first clip's 0.5 s as OBJ (`extra`: e.g. `--gpu`); its vertices.
fn export(model: &Path, dir: &Path, name: &str, extra: &[&str]) -> Vec<Vec3> {
    let out = dir.join(format!("{name}.obj"));
    let mut args = vec![
        "export",
        model.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
        "--clip",
        "0",
        "--time",
        "0.5",
    ];
    args.extend_from_slice(extra);
    let run = support::dqview_in(&args, &dir.join("cache"));
    assert!(
        run.status.success(),
        "export {name}: {}",
        support::stderr_of(&run)
    );
    support::obj_vertices(&out)
}

/// The diagonal of the bounding box of `points`.
fn diagonal(points: &[Vec3]) -> f32 {
    let lo = points.iter().fold(Vec3::INFINITY, |a, &p| a.min(p));
    let hi = points.iter().fold(Vec3::NEG_INFINITY, |a, &p| a.max(p));
    (hi - lo).length()
}

/// Exports every case (with `extra`) and checks it against the original's, by nearest vertex.
///
/// Both ways, so no vertex is lost or added far away; only from the file for `optimize`,
/// whose simplification leaves a subset of the original's vertices.
fn exports_match(test: &str, extra: &[&str]) {
    let Some(cases) = cases(test) else {
        return;
    };
    let dir = support::scratch_dir(test);
    for (file, command, original, compressed) in cases {
        let stem = file.split('.').next().unwrap_or(file);
        let a = export(&original, &dir, &format!("{stem}_original"), extra);
        let b = export(&compressed, &dir, &format!("{stem}_{command}"), extra);
        let diag = diagonal(&a);
        let cell = 2.0 * MAX_ERROR * diag;
        let to_original = Grid::new(a.iter().copied(), cell).worst(&b);
        let to_compressed = if command == "optimize" {
            0.0
        } else {
            Grid::new(b.iter().copied(), cell).worst(&a)
        };
        let error = to_original.max(to_compressed) / diag;
        println!(
            "{test}: {command:>8} {file:<20} error {error:.2e} of the diagonal ({} vs {} vertices)",
            b.len(),
            a.len()
        );
        assert!(
            error <= MAX_ERROR,
            "{command} {file}{}: posed error {error:.2e} of the bounding-box diagonal, over {MAX_ERROR:e}",
            extra.join(" ")
        );
    }
}

#[test]
fn cpu_exports_stay_within_the_quantisation_error() {
    exports_match("cpu_exports_stay_within_the_quantisation_error", &[]);
}

#[test]
fn gpu_exports_stay_within_the_quantisation_error() {
    let test = "gpu_exports_stay_within_the_quantisation_error";
    if support::gpu(test).is_some() {
        exports_match(test, &["--gpu"]);
    }
}

#[test]
fn inspect_names_each_meshs_compression() {
    let Some(cases) = cases("inspect_names_each_meshs_compression") else {
        return;
    };
    let dir = support::scratch_dir("inspect_names_each_meshs_compression");
    for (file, command, _, compressed) in cases {
        let run = support::dqview_in(&["inspect", compressed.to_str().expect("utf-8")], &dir);
        assert!(run.status.success(), "{}", support::stderr_of(&run));
        let text = String::from_utf8_lossy(&run.stdout);
        let expected = match command {
            "draco" => "draco",
            "quantize" => "quantized",
            _ => "meshopt, quantized",
        };
        assert!(
            text.lines()
                .any(|l| l.starts_with("compressed  mesh ") && l.ends_with(expected)),
            "{command} {file}: no `compressed  mesh N ...: {expected}` line in\n{text}"
        );
    }
}

#[test]
fn blend_and_twist_joints_on_compressed_files_write_valid_files() {
    let test = "blend_and_twist_joints_on_compressed_files_write_valid_files";
    let Some(validator) = support::gltf_validator(test) else {
        return;
    };
    let Some(cases) = cases(test) else {
        return;
    };
    let dir = support::scratch_dir(test);
    for (file, command, _, compressed) in cases {
        if command == "quantize" {
            continue;
        }
        let input = compressed.to_str().expect("utf-8");
        for (tool, extra) in [
            ("blend", &["--clip", "0", "--samples", "3"][..]),
            ("twist-joints", &["--clip", "0"][..]),
        ] {
            // Each in its own folder: the outputs name their inputs' `.bin` and textures.
            let folder = dir.join(format!("{tool}_{command}"));
            std::fs::create_dir_all(&folder).expect("output folder");
            let out = folder.join(file);
            let mut args = vec![tool, input, "--out", out.to_str().expect("utf-8")];
            args.extend_from_slice(extra);
            let run = support::dqview_in(&args, &dir.join("cache"));
            let here = format!("{tool} on {command} {file}");
            assert!(run.status.success(), "{here}: {}", support::stderr_of(&run));
            let report = support::validate_gltf(&validator, &out);
            assert_eq!(report.errors, 0, "{here}: {:?}", report.messages);
            let scene = load_gltf_path(&out).unwrap_or_else(|e| panic!("{here}: reload: {e}"));
            let original = load_gltf_path(&compressed).expect("compressed loads");
            assert_eq!(vertex_count(&scene), vertex_count(&original), "{here}");
            if tool == "blend" {
                let blended = scene.meshes.iter().flat_map(|m| &m.primitives);
                assert!(
                    blended.clone().any(|p| p.dqs_blend.is_some()),
                    "{here}: no map"
                );
            }
        }
    }
}

/// A one-triangle file whose POSITION view is meshopt-compressed (`stream`) into fallback buffer 1, which has no data.
fn meshopt_triangle(stream: &[u8]) -> String {
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        support::base64(stream)
    );
    serde_json::json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["EXT_meshopt_compression"],
        "extensionsRequired": ["EXT_meshopt_compression"],
        "buffers": [
            {"uri": uri, "byteLength": stream.len()},
            {"byteLength": 36, "extensions": {"EXT_meshopt_compression": {"fallback": true}}}
        ],
        "bufferViews": [{
            "buffer": 1, "byteLength": 36, "byteStride": 12,
            "extensions": {"EXT_meshopt_compression": {
                "buffer": 0, "byteLength": stream.len(), "byteStride": 12, "count": 3,
                "mode": "ATTRIBUTES"
            }}
        }],
        "accessors": [{
            "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
            "min": [0, 0, 0], "max": [1, 1, 0]
        }],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "nodes": [{"mesh": 0}],
        "scenes": [{"nodes": [0]}]
    })
    .to_string()
}

#[test]
fn a_meshopt_fallback_buffer_without_data_decodes_and_a_corrupt_stream_is_one_error() {
    let triangle: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let stream = meshopt::encode_vertex_buffer(&triangle).expect("encode");
    let scene = dqview::scene::load_gltf_slice(meshopt_triangle(&stream).as_bytes(), None, "t")
        .expect("a fallback buffer without data loads");
    let positions = &scene.meshes[0].primitives[0].positions;
    let expected: Vec<Vec3> = triangle.iter().map(|&p| Vec3::from_array(p)).collect();
    assert_eq!(positions, &expected);

    let mut corrupt = stream.clone();
    corrupt.truncate(corrupt.len() / 2);
    let err = dqview::scene::load_gltf_slice(meshopt_triangle(&corrupt).as_bytes(), None, "t")
        .expect_err("a truncated stream is refused")
        .to_string();
    assert!(
        err.contains("buffer view 0") && err.contains("EXT_meshopt_compression"),
        "{err}"
    );
}

#[test]
fn a_corrupt_draco_stream_is_one_error_naming_the_primitive() {
    let Some(cases) = cases("a_corrupt_draco_stream_is_one_error_naming_the_primitive") else {
        return;
    };
    let (_, _, _, draco) = cases
        .into_iter()
        .find(|c| c.1 == "draco" && c.0.ends_with(".glb"))
        .expect("a Draco GLB");
    let mut bytes = std::fs::read(&draco).expect("read");
    // Overwrite the middle of the BIN chunk (the Draco streams) with noise.
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().expect("4 bytes")) as usize;
    let bin = 20 + json_len + 8;
    let mut x = 0x9E37_79B9u32;
    for b in &mut bytes[bin..] {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        *b = x as u8;
    }
    let err = dqview::scene::load_gltf_slice(&bytes, None, "corrupt.glb")
        .expect_err("noise is not a Draco stream")
        .to_string();
    assert!(
        err.contains("KHR_draco_mesh_compression") && err.contains("mesh "),
        "{err}"
    );
}

/// `meshopt_triangle` with the compressed view declaring `count` elements of 8 bytes over a
/// destination range of `count * 8` bytes, while its fallback buffer holds 24.
fn meshopt_claiming(count: u64) -> String {
    let triangle: [[f32; 2]; 3] = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]];
    let stream = meshopt::encode_vertex_buffer(&triangle).expect("encode");
    let mut json: serde_json::Value =
        serde_json::from_str(&meshopt_triangle(&stream)).expect("json");
    json["buffers"][1]["byteLength"] = 24.into();
    let view = &mut json["bufferViews"][0];
    view["byteLength"] = (count * 8).into();
    view["byteStride"] = 8.into();
    let ext = &mut view["extensions"]["EXT_meshopt_compression"];
    ext["count"] = count.into();
    ext["byteStride"] = 8.into();
    json["accessors"][0]["type"] = "VEC2".into();
    json["accessors"][0]["min"] = serde_json::json!([0, 0]);
    json["accessors"][0]["max"] = serde_json::json!([1, 1]);
    json["meshes"][0]["primitives"][0]["attributes"] = serde_json::json!({"TEXCOORD_0": 0});
    json.to_string()
}

#[test]
fn a_meshopt_count_its_buffer_cannot_hold_is_refused_before_decoding_and_check_goes_on() {
    // 4294967295 elements of 8 bytes: the codec would allocate 34 GB (the process aborted).
    let dir = support::scratch_dir("gltf_compressed_meshopt_count");
    let hostile = dir.join("hostile.gltf");
    std::fs::write(&hostile, meshopt_claiming(4_294_967_295)).expect("write");
    let triangle: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let stream = meshopt::encode_vertex_buffer(&triangle).expect("encode");
    std::fs::write(dir.join("good.gltf"), meshopt_triangle(&stream)).expect("write");
    let cache = dir.join("cache");
    for command in ["inspect", "check"] {
        let o = support::dqview_in(&[command, hostile.to_str().expect("utf-8")], &cache);
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            support::stderr_of(&o)
        );
        assert_eq!(o.status.code(), Some(1), "{command}: {:?} {said}", o.status);
        assert!(
            said.contains("buffer view 0") && said.contains("is outside buffer 1 (24 bytes)"),
            "{command}: {said}"
        );
    }
    // In a folder, the hostile file is reported and the other one checked.
    let o = support::dqview_in(&["check", "--json", dir.to_str().expect("utf-8")], &cache);
    assert_eq!(o.status.code(), Some(1), "{}", support::stderr_of(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let files = json["files"].as_array().expect("files");
    let ok = |name: &str| {
        files
            .iter()
            .find(|f| f["file"].as_str().is_some_and(|p| p.ends_with(name)))
            .map(|f| f["ok"].clone())
    };
    assert_eq!(ok("hostile.gltf"), Some(false.into()), "{json}");
    assert_eq!(ok("good.gltf"), Some(true.into()), "{json}");
}

#[test]
fn draco_attributes_of_the_wrong_kind_are_refused_not_decoded_as_geometry() {
    let Some(cases) = cases("draco_attributes_of_the_wrong_kind") else {
        return;
    };
    let (_, _, _, draco) = cases
        .into_iter()
        .find(|c| c.1 == "draco" && c.0.ends_with(".glb"))
        .expect("a Draco GLB");
    let bytes = std::fs::read(&draco).expect("read");
    assert!(dqview::scene::load_gltf_slice(&bytes, None, "draco.glb").is_ok());
    // Each primitive's Draco attribute ids, swapped between two attributes.
    let swapped = |a: &'static str, b: &'static str| {
        support::glb_with_json(&bytes, |json| {
            for mesh in json["meshes"].as_array_mut().expect("meshes") {
                for prim in mesh["primitives"].as_array_mut().expect("primitives") {
                    let ids = &mut prim["extensions"]["KHR_draco_mesh_compression"]["attributes"];
                    if let (Some(x), Some(y)) = (ids.get(a).cloned(), ids.get(b).cloned()) {
                        ids[a] = y;
                        ids[b] = x;
                    }
                }
            }
        })
    };
    // The robot's meshes have POSITION and NORMAL; its hands JOINTS_0 and WEIGHTS_0 too.
    for (a, b, says) in [
        ("POSITION", "NORMAL", "points at stream attribute"),
        ("JOINTS_0", "NORMAL", "attribute JOINTS_0: stream attribute"),
    ] {
        let err = match dqview::scene::load_gltf_slice(&swapped(a, b), None, "swapped.glb") {
            Ok(_) => panic!("{a} <-> {b}: a swapped attribute loaded"),
            Err(e) => e.to_string(),
        };
        assert!(
            err.contains("KHR_draco_mesh_compression") && err.contains(says),
            "{a} <-> {b}: {err}"
        );
    }
}

#[test]
fn a_meshopt_filter_on_a_stream_it_does_not_fit_is_refused() {
    // Four key times (a SCALAR float stream) behind an OCTAHEDRAL filter, which decodes normals
    // stored as normalised bytes: applied, it would turn the times into other numbers.
    let times: [f32; 4] = [0.0, 0.5, 1.0, 1.5];
    let triangle: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let tri = meshopt::encode_vertex_buffer(&triangle).expect("encode");
    let keys = meshopt::encode_vertex_buffer(&times).expect("encode");
    let with_filter = |filter: &str| {
        let mut json: serde_json::Value =
            serde_json::from_str(&meshopt_triangle(&tri)).expect("json");
        let mut stream = tri.clone();
        stream.extend_from_slice(&keys);
        json["buffers"][0] = serde_json::json!({
            "uri": format!("data:application/octet-stream;base64,{}", support::base64(&stream)),
            "byteLength": stream.len()
        });
        json["buffers"][1]["byteLength"] = 52.into();
        json["bufferViews"]
            .as_array_mut()
            .expect("views")
            .push(serde_json::json!({
                "buffer": 1, "byteOffset": 36, "byteLength": 16,
                "extensions": {"EXT_meshopt_compression": {
                    "buffer": 0, "byteOffset": tri.len(), "byteLength": keys.len(),
                    "byteStride": 4, "count": 4, "mode": "ATTRIBUTES", "filter": filter
                }}
            }));
        json["accessors"]
            .as_array_mut()
            .expect("accessors")
            .push(serde_json::json!({
                "bufferView": 1, "componentType": 5126, "count": 4, "type": "SCALAR",
                "min": [0.0], "max": [1.5]
            }));
        json.to_string()
    };
    assert!(dqview::scene::load_gltf_slice(with_filter("NONE").as_bytes(), None, "t").is_ok());
    // EXPONENTIAL is a float filter: it fits a float stream (and decodes these bytes as it may).
    assert!(
        dqview::scene::load_gltf_slice(with_filter("EXPONENTIAL").as_bytes(), None, "t").is_ok()
    );
    let err = match dqview::scene::load_gltf_slice(with_filter("OCTAHEDRAL").as_bytes(), None, "t")
    {
        Ok(_) => panic!("an octahedral filter on key times loaded"),
        Err(e) => e.to_string(),
    };
    assert!(
        err.contains("buffer view 1")
            && err.contains(
                "filter OCTAHEDRAL does not fit accessor 1, which reads the view as Scalar of F32"
            ),
        "{err}"
    );
}

/// `glb` with the first vertex of the first JOINTS_0 accessor pointing at `joint` in all four
/// slots (the bytes edited in the binary chunk, before any compression).
fn with_first_vertex_on_joint(glb: &[u8], joint: u8) -> Vec<u8> {
    let json_len = u32::from_le_bytes(glb[12..16].try_into().expect("4 bytes")) as usize;
    let json: serde_json::Value = serde_json::from_slice(&glb[20..20 + json_len]).expect("json");
    let joints = json["meshes"]
        .as_array()
        .expect("meshes")
        .iter()
        .flat_map(|m| m["primitives"].as_array().expect("primitives"))
        .find_map(|p| p["attributes"]["JOINTS_0"].as_u64())
        .expect("a skinned primitive") as usize;
    let accessor = &json["accessors"][joints];
    let width = match accessor["componentType"].as_u64() {
        Some(5121) => 1,
        Some(5123) => 2,
        other => panic!("joints of component type {other:?}"),
    };
    let view = &json["bufferViews"][accessor["bufferView"].as_u64().expect("view") as usize];
    let start =
        view["byteOffset"].as_u64().unwrap_or(0) + accessor["byteOffset"].as_u64().unwrap_or(0);
    // The binary chunk's data starts 8 bytes after the JSON chunk.
    let at = 20 + json_len + 8 + start as usize;
    let mut out = glb.to_vec();
    for slot in 0..4 {
        let bytes = u16::from(joint).to_le_bytes();
        out[at + slot * width..at + (slot + 1) * width].copy_from_slice(&bytes[..width]);
    }
    out
}

#[test]
fn decoded_joint_indices_past_the_skin_are_refused_as_uncompressed_ones_are() {
    let test = "decoded_joint_indices_past_the_skin";
    let (Some(characters), Some(bin)) = (
        support::characters_dir(test),
        support::gltf_transform::gltf_transform(test),
    ) else {
        return;
    };
    let robot = std::fs::read(characters.join("RobotExpressive.glb")).expect("robot");
    let scene = dqview::scene::load_gltf_slice(&robot, None, "robot.glb").expect("robot loads");
    let skin_joints = scene
        .skins
        .iter()
        .map(|s| s.joints.len())
        .max()
        .expect("a skin");
    let past = u8::try_from(skin_joints + 5).expect("fits a byte");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("decoded_joints");
    std::fs::create_dir_all(&dir).expect("folder");
    let edited = dir.join("RobotJointPastSkin.glb");
    std::fs::write(&edited, with_first_vertex_on_joint(&robot, past)).expect("write");
    let says = format!("joint {past}");
    for command in [None, Some("draco"), Some("meshopt")] {
        let file = command.map_or(edited.clone(), |c| {
            support::gltf_transform::compressed(&bin, c, &edited)
        });
        let bytes = std::fs::read(&file).expect("read");
        let err = match dqview::scene::load_gltf_slice(&bytes, None, "edited.glb") {
            Ok(_) => panic!("{command:?}: a joint index past the skin loaded"),
            Err(e) => e.to_string(),
        };
        assert!(err.contains(&says), "{command:?}: {err}");
    }
}
