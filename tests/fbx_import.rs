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
        case(maya, "maya_game_sausage_wiggle_10.obj", Some("wiggle"), 10.0 / 24.0),
        case(maya, "maya_game_sausage_wiggle_18.obj", Some("wiggle"), 18.0 / 24.0),
        case(maya, "maya_game_sausage_spin_7.obj", Some("spin"), 27.0 / 24.0),
        case(maya, "maya_game_sausage_spin_15.obj", Some("spin"), 35.0 / 24.0),
        case(maya, "maya_game_sausage_deform_8.obj", Some("deform"), 48.0 / 24.0),
        case(maya, "maya_game_sausage_deform_15.obj", Some("deform"), 55.0 / 24.0),
        case(blender, "blender_279_sausage_base_0.obj", Some("Skeleton|Base"), 0.0),
        case(blender, "blender_279_sausage_spin_15.obj", Some("Skeleton|Spin"), 15.0 / 24.0),
        case(blender, "blender_279_sausage_wiggle_20.obj", Some("Skeleton|Wiggle"), 20.0 / 24.0),
        case(max, "max_transformed_skin_5.obj", Some("0"), 5.0 / 30.0),
        case(max, "max_transformed_skin_15.obj", Some("0"), 15.0 / 30.0),
        case("maya_dual_quaternion_7500_ascii.fbx", "maya_dual_quaternion.obj", None, 0.0),
        case("blender_293_half_skinned_7400_binary.fbx", "blender_293_half_skinned.obj", None, 0.0),
    ]
}

/// The OBJ's vertices (all `v` lines) and its `g`/`o` names.
fn read_obj(text: &str) -> (Vec<Vec3>, Vec<String>) {
    let mut vertices = Vec::new();
    let mut names = Vec::new();
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
            _ => {}
        }
    }
    (vertices, names)
}

/// The node drawing the mesh an OBJ group names: `NODE` (Maya, Max) or `NODE_MESH` (Blender).
fn mesh_node(scene: &Scene, names: &[String]) -> usize {
    let found = scene.nodes.iter().enumerate().find(|(_, n)| {
        n.mesh.is_some_and(|m| {
            let joined = format!("{}_{}", n.name, scene.meshes[m].name);
            names.iter().any(|g| *g == n.name || *g == joined)
        })
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

/// Largest vertex distance between `ours` (first `reference.len()` vertices) and `reference`,
/// as a fraction of the reference's bounding-box diagonal.
fn relative_error(ours: &[Vec3], reference: &[Vec3], what: &str) -> f32 {
    assert!(
        ours.len() >= reference.len(),
        "{what}: dqview has {} vertices, the reference {}",
        ours.len(),
        reference.len()
    );
    let (lo, hi) = reference.iter().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(lo, hi), &v| (lo.min(v), hi.max(v)),
    );
    let diagonal = (hi - lo).length();
    assert!(diagonal > 0.0, "{what}: empty reference");
    ours.iter()
        .zip(reference)
        .map(|(a, b)| (*a - *b).length() / diagonal)
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
    for case in cases() {
        let model = dir.join(case.fbx);
        let scene = load_model(model.to_str().expect("utf-8 path"))
            .unwrap_or_else(|e| panic!("{}: {e}", case.fbx));
        let text = std::fs::read_to_string(dir.join(case.obj)).expect("reference OBJ");
        let (reference, names) = read_obj(&text);
        let node = mesh_node(&scene, &names);
        let out = tmp.join(case.obj);
        let obj = export(&model, &out, &pose_args(&case, &[]));
        let error = relative_error(&exported_vertices(&obj, node), &reference, case.obj);
        report.push_str(&format!("  {}: {error:.2e}\n", case.obj));
        assert!(
            error <= TOLERANCE,
            "{}: vertices differ from the tool's by {error:e} of the diagonal (limit {TOLERANCE:e})",
            case.obj
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
    let _ = write!(std::io::stderr(), "{report}");
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
    let (reference, names) = read_obj(
        &std::fs::read_to_string(dir.join(case.obj)).expect("reference OBJ"),
    );
    let node = mesh_node(&scene, &names);
    let tmp = std::env::temp_dir().join(format!("dqview_fbx_dq_{}.obj", std::process::id()));
    let mut errors = Vec::new();
    for mode in ["dqs", "lbs"] {
        let obj = export(&model, &tmp, &pose_args(&case, &["--mode", mode]));
        errors.push(relative_error(&exported_vertices(&obj, node), &reference, mode));
    }
    let _ = std::fs::remove_file(&tmp);
    // DQS reproduces Maya; LBS is visibly off, so the file really exercises DQ blending.
    assert!(errors[0] <= TOLERANCE, "DQS error {:e}", errors[0]);
    assert!(errors[1] > 100.0 * TOLERANCE, "LBS error only {:e}", errors[1]);
}
