//! FBX import against the authoring tools' own deformed meshes (`DQVIEW_FBX`).
//!
//! Each case exports one frame with the dqview binary (no `--mode`, so the
//! skinning method stored in the file picks the mode) and compares the mesh
//! with the OBJ that Maya, Blender or 3ds Max exported at that time. The OBJ
//! lists the mesh's control points in file order, as dqview's FBX vertices do.

mod support;

use std::io::Write as _;
use std::path::Path;
use std::process::Command;

use glam::Vec3;

use dqview::model::load_model;
use dqview::scene::Scene;

/// Largest allowed distance from the tool's vertex, as a fraction of the reference's bounding-box diagonal.
const TOLERANCE: f32 = 1e-4;

/// One reference frame: FBX file, OBJ file, clip (`None`: the rest pose) and time in seconds.
struct Case {
    fbx: &'static str,
    obj: &'static str,
    clip: Option<&'static str>,
    time_s: f32,
}

/// The table of ../shared/testdata/fbx/README.md.
fn cases() -> Vec<Case> {
    let maya = "maya_game_sausage_7500_binary_combined.fbx";
    let blender = "blender_279_sausage_7400_binary.fbx";
    let max = "max_transformed_skin_7500_binary.fbx";
    let case = |fbx, obj, clip, time_s| Case {
        fbx,
        obj,
        clip,
        time_s,
    };
    vec![
        case(
            maya,
            "maya_game_sausage_wiggle_10.obj",
            Some("wiggle"),
            10.0 / 24.0,
        ),
        case(
            maya,
            "maya_game_sausage_wiggle_18.obj",
            Some("wiggle"),
            18.0 / 24.0,
        ),
        case(
            maya,
            "maya_game_sausage_spin_7.obj",
            Some("spin"),
            27.0 / 24.0,
        ),
        case(
            maya,
            "maya_game_sausage_spin_15.obj",
            Some("spin"),
            35.0 / 24.0,
        ),
        case(
            maya,
            "maya_game_sausage_deform_8.obj",
            Some("deform"),
            48.0 / 24.0,
        ),
        case(
            maya,
            "maya_game_sausage_deform_15.obj",
            Some("deform"),
            55.0 / 24.0,
        ),
        case(
            blender,
            "blender_279_sausage_base_0.obj",
            Some("Skeleton|Base"),
            0.0,
        ),
        case(
            blender,
            "blender_279_sausage_spin_15.obj",
            Some("Skeleton|Spin"),
            15.0 / 24.0,
        ),
        case(
            blender,
            "blender_279_sausage_wiggle_20.obj",
            Some("Skeleton|Wiggle"),
            20.0 / 24.0,
        ),
        case(max, "max_transformed_skin_5.obj", Some("0"), 5.0 / 30.0),
        case(max, "max_transformed_skin_15.obj", Some("0"), 15.0 / 30.0),
        case(
            "maya_dual_quaternion_7500_ascii.fbx",
            "maya_dual_quaternion.obj",
            None,
            0.0,
        ),
        case(
            "blender_293_half_skinned_7400_binary.fbx",
            "blender_293_half_skinned.obj",
            None,
            0.0,
        ),
    ]
}

/// A tool's OBJ: every `v`, the `g`/`o` names, and each face's 0-based vertex indices.
struct Obj {
    vertices: Vec<Vec3>,
    names: Vec<String>,
    faces: Vec<Vec<usize>>,
}

/// Parses the parts of an OBJ file the comparison needs.
fn read_obj(text: &str) -> Obj {
    let mut vertices = Vec::new();
    let mut names = Vec::new();
    let mut faces = Vec::new();
    for line in text.lines() {
        let mut parts = line.split_whitespace();
        match parts.next() {
            Some("v") => {
                let xyz: Vec<f32> = parts
                    .take(3)
                    .map(|x| x.parse().expect("number in a v line"))
                    .collect();
                vertices.push(Vec3::new(xyz[0], xyz[1], xyz[2]));
            }
            Some("g") | Some("o") => names.push(parts.collect::<Vec<_>>().join(" ")),
            Some("f") => faces.push(
                parts
                    .map(|c| {
                        let v: usize = c
                            .split('/')
                            .next()
                            .and_then(|v| v.parse().ok())
                            .expect("face index");
                        v - 1
                    })
                    .collect(),
            ),
            _ => {}
        }
    }
    Obj {
        vertices,
        names,
        faces,
    }
}

/// For each OBJ vertex, the FBX control point it is, from the faces' corners.
///
/// The tools write polygons in FBX order, corner by corner, but 3ds Max numbers its OBJ
/// vertices its own way; matching corners gives the correspondence from topology alone.
/// Every OBJ vertex must map to exactly one control point.
fn control_point_of_obj_vertex(fbx_bytes: &[u8], node_name: &str, obj: &Obj) -> Vec<usize> {
    let fbx = ufbx::load_memory(fbx_bytes, ufbx::LoadOpts::default()).expect("ufbx loads");
    let node = fbx
        .nodes
        .iter()
        .find(|n| n.element.name == node_name && n.mesh.is_some())
        .expect("mesh node");
    let mesh = node.mesh.as_ref().expect("mesh");
    assert_eq!(
        mesh.faces.len(),
        obj.faces.len(),
        "{node_name}: face counts differ"
    );
    let mut map = vec![None; obj.vertices.len()];
    for (face, obj_face) in mesh.faces.iter().zip(&obj.faces) {
        assert_eq!(
            face.num_indices as usize,
            obj_face.len(),
            "{node_name}: face sizes differ"
        );
        for (c, &v) in obj_face.iter().enumerate() {
            let cp = mesh.vertex_indices[face.index_begin as usize + c] as usize;
            let old = map[v].replace(cp);
            assert!(
                old.is_none() || old == Some(cp),
                "OBJ vertex {v} is two control points"
            );
        }
    }
    map.into_iter()
        .enumerate()
        .map(|(v, cp)| cp.unwrap_or_else(|| panic!("OBJ vertex {v} is on no face")))
        .collect()
}

/// The node drawing the mesh an OBJ group names: `NODE` (Maya, Max) or `NODE_MESH` (Blender,
/// whose mesh data name may have changed since the FBX was written).
fn mesh_node(scene: &Scene, names: &[String]) -> usize {
    let found = scene.nodes.iter().enumerate().find(|(_, n)| {
        let prefix = format!("{}_", n.name);
        n.mesh.is_some() && names.iter().any(|g| *g == n.name || g.starts_with(&prefix))
    });
    found
        .unwrap_or_else(|| panic!("no mesh node named like the OBJ groups {names:?}"))
        .0
}

/// Runs `dqview export` on `model` into `out` with `extra` arguments; panics with stderr on failure.
fn export(model: &Path, out: &Path, extra: &[String]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_dqview"))
        .arg("export")
        .arg(model)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .expect("run dqview");
    assert!(
        output.status.success(),
        "dqview export {}: {}",
        model.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::read_to_string(out).expect("exported OBJ")
}

/// The vertices of the `o node{node}_…` groups of a dqview OBJ, in order.
fn exported_vertices(obj: &str, node: usize) -> Vec<Vec3> {
    let prefix = format!("node{node}_");
    let mut inside = false;
    let mut out = Vec::new();
    for line in obj.lines() {
        if let Some(name) = line.strip_prefix("o ") {
            inside = name.starts_with(&prefix);
        } else if inside && let Some(v) = line.strip_prefix("v ") {
            let xyz: Vec<f32> = v
                .split_whitespace()
                .map(|x| x.parse().expect("number"))
                .collect();
            out.push(Vec3::new(xyz[0], xyz[1], xyz[2]));
        }
    }
    out
}

/// Largest distance between reference vertex `v` and dqview's vertex `control_points[v]`,
/// as a fraction of the reference's bounding-box diagonal.
fn relative_error(ours: &[Vec3], reference: &[Vec3], control_points: &[usize], what: &str) -> f32 {
    let (lo, hi) = reference.iter().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(lo, hi), &v| (lo.min(v), hi.max(v)),
    );
    let diagonal = (hi - lo).length();
    assert!(diagonal > 0.0, "{what}: empty reference");
    reference
        .iter()
        .zip(control_points)
        .map(|(b, &cp)| {
            let a = ours.get(cp).unwrap_or_else(|| {
                panic!(
                    "{what}: dqview has {} vertices, no control point {cp}",
                    ours.len()
                )
            });
            (*a - *b).length() / diagonal
        })
        .fold(0.0, f32::max)
}

/// The arguments that pose a case: clip and time, plus `extra`.
fn pose_args(case: &Case, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = extra.iter().map(|s| (*s).to_owned()).collect();
    if let Some(clip) = case.clip {
        args.extend(["--clip".into(), clip.into(), "--time".into()]);
        // `{}` prints the shortest text that parses back to the same f32.
        args.push(format!("{}", case.time_s));
    }
    args
}

#[test]
fn exported_frames_match_the_authoring_tools() {
    let Some(dir) = support::data_dir("DQVIEW_FBX", "exported_frames_match_the_authoring_tools")
    else {
        return;
    };
    let tmp = std::env::temp_dir().join(format!("dqview_fbx_{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let mut report = String::from("FBX reference frames (max error / diagonal):\n");
    let mut failures = Vec::new();
    for case in cases() {
        let model = dir.join(case.fbx);
        let scene = load_model(model.to_str().expect("utf-8 path"))
            .unwrap_or_else(|e| panic!("{}: {e}", case.fbx));
        let reference = read_obj(&std::fs::read_to_string(dir.join(case.obj)).expect("OBJ"));
        let node = mesh_node(&scene, &reference.names);
        let bytes = std::fs::read(&model).expect("FBX");
        let map = control_point_of_obj_vertex(&bytes, &scene.nodes[node].name, &reference);
        let out = tmp.join(case.obj);
        let obj = export(&model, &out, &pose_args(&case, &[]));
        let error = relative_error(
            &exported_vertices(&obj, node),
            &reference.vertices,
            &map,
            case.obj,
        );
        report.push_str(&format!("  {}: {error:.2e}\n", case.obj));
        if error > TOLERANCE {
            failures.push(format!("{}: {error:e}", case.obj));
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    let _ = write!(std::io::stderr(), "{report}");
    assert!(
        failures.is_empty(),
        "vertices differ from the tools' by more than {TOLERANCE:e} of the diagonal: {failures:?}"
    );
}

#[test]
fn dual_quaternion_file_needs_dqs() {
    let Some(dir) = support::data_dir("DQVIEW_FBX", "dual_quaternion_file_needs_dqs") else {
        return;
    };
    let case = cases()
        .into_iter()
        .find(|c| c.fbx.starts_with("maya_dual_quaternion"))
        .expect("the DQ case");
    let model = dir.join(case.fbx);
    let scene = load_model(model.to_str().expect("utf-8 path")).expect("loads");
    let reference = read_obj(&std::fs::read_to_string(dir.join(case.obj)).expect("OBJ"));
    let node = mesh_node(&scene, &reference.names);
    let bytes = std::fs::read(&model).expect("FBX");
    let map = control_point_of_obj_vertex(&bytes, &scene.nodes[node].name, &reference);
    let tmp = std::env::temp_dir().join(format!("dqview_fbx_dq_{}.obj", std::process::id()));
    let mut errors = Vec::new();
    for mode in ["dqs", "lbs"] {
        let obj = export(&model, &tmp, &pose_args(&case, &["--mode", mode]));
        errors.push(relative_error(
            &exported_vertices(&obj, node),
            &reference.vertices,
            &map,
            mode,
        ));
    }
    let _ = std::fs::remove_file(&tmp);
    let _ = writeln!(
        std::io::stderr(),
        "maya_dual_quaternion.obj: DQS {:.2e}, LBS {:.2e} of the diagonal",
        errors[0],
        errors[1]
    );
    // DQS reproduces Maya; LBS is visibly off, so the file really exercises DQ blending.
    assert!(errors[0] <= TOLERANCE, "DQS error {:e}", errors[0]);
    assert!(
        errors[1] > 100.0 * TOLERANCE,
        "LBS error only {:e}",
        errors[1]
    );
}

/// `dqview inspect --json` on `model`.
fn inspect(model: &str) -> serde_json::Value {
    let output = Command::new(env!("CARGO_BIN_EXE_dqview"))
        .args(["inspect", model, "--json"])
        .output()
        .expect("run dqview");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON")
}

#[test]
fn inspect_reports_the_files_units_axes_and_skinning_method() {
    let Some(dir) = support::data_dir(
        "DQVIEW_FBX",
        "inspect_reports_the_files_units_axes_and_skinning_method",
    ) else {
        return;
    };
    // (file, metres per unit, up axis, stored skinning method), as each tool wrote its scene settings.
    let cases = [
        (
            "maya_game_sausage_7500_binary_combined.fbx",
            0.01,
            "+Y",
            "linear",
        ),
        (
            "maya_dual_quaternion_7500_ascii.fbx",
            0.01,
            "+Y",
            "dual quaternion",
        ),
        (
            "max_transformed_skin_7500_binary.fbx",
            0.01,
            "+Z",
            "blended (per-vertex DQ weights)",
        ),
        ("blender_279_sausage_7400_binary.fbx", 1.0, "+Y", "linear"),
    ];
    for (file, unit, up, method) in cases {
        let f = inspect(dir.join(file).to_str().expect("utf-8"));
        assert!(
            f["format"].as_str().is_some_and(|s| s.starts_with("FBX")),
            "{file}"
        );
        let got = f["units"]["unit_meters"].as_f64().expect("unit_meters");
        assert!((got - unit).abs() < 1e-6, "{file}: {got} m per unit");
        assert_eq!(f["axes"]["up"], up, "{file}");
        assert_eq!(f["skinning_methods"], serde_json::json!([method]), "{file}");
    }
    // glTF and built-in rigs report glTF's conventions and no stored method.
    let f = inspect("builtin:twist");
    assert_eq!(f["units"]["unit_meters"], 1.0);
    assert_eq!(f["axes"]["up"], "+Y");
    assert_eq!(f["skinning_methods"], serde_json::json!([]));
}
