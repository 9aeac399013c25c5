//! dqview's skinning of the OpenUSD test files against Pixar's own: every entry of
//! `DQVIEW_USD/INDEX.json` (usd-core 26.11's UsdSkel evaluation, in the stage's world space),
//! vertex by vertex in point order, CPU and GPU, LBS and DQS, within 1e-5 of the diagonal.
//!
//! The tubes' LBS and DQS poses differ by 3e-2 to 0.16 of the diagonal at t12/t24, so a
//! wrong mode, pivot, geomBindTransform or blend shape cannot pass.

mod support;

use std::collections::BTreeMap;
use std::path::Path;

use dqview::anim::{JointOverrides, Pose};
use dqview::scene::Scene;
use dqview::skin::{Betas, PosedPrimitive, SkinningMode, skin_scene};
use glam::Vec3;
use serde_json::Value;

/// Largest allowed distance from Pixar's vertex to dqview's, over the bounding-box diagonal.
const TOLERANCE_RELATIVE: f32 = 1e-5;

/// One pose of one file: its OBJ, the time and the method, and the meshes it holds.
struct Case {
    obj: String,
    time_s: Option<f32>,
    mode: SkinningMode,
    meshes: Vec<(String, usize, bool)>,
}

/// The worst distance over the diagonal between Pixar's meshes in `obj` and dqview's `posed`.
fn worst(
    scene: &Scene,
    posed: &[PosedPrimitive],
    case: &Case,
    refs: &BTreeMap<String, Vec<Vec3>>,
) -> f32 {
    let mut worst = 0.0_f32;
    for (mesh, count, skinned) in &case.meshes {
        let theirs = refs
            .get(mesh)
            .unwrap_or_else(|| panic!("{}: no group {mesh}", case.obj));
        assert_eq!(theirs.len(), *count, "{}: {mesh} vertex count", case.obj);
        let ours = posed
            .iter()
            .find(|p| scene.meshes[p.mesh].name == *mesh)
            .unwrap_or_else(|| panic!("{}: dqview has no mesh {mesh}", case.obj));
        assert_eq!(ours.skinned, *skinned, "{}: {mesh} skinned", case.obj);
        // Vertices split for face-varying normals or coordinates follow the points.
        assert!(
            ours.vertices.positions.len() >= *count,
            "{}: {mesh} points",
            case.obj
        );
        for (a, b) in theirs.iter().zip(&ours.vertices.positions) {
            worst = worst.max(a.distance(*b));
        }
    }
    worst
}

/// The pose of `case`: the rest pose, or the stage's clip at the case's time.
fn pose_of(scene: &Scene, case: &Case) -> Pose {
    let mut pose = Pose::rest(scene);
    if let Some(t) = case.time_s {
        assert_eq!(
            scene.animations.len(),
            1,
            "{}: one clip (the stage's timeline)",
            case.obj
        );
        pose.sample(scene, Some(0), t, &JointOverrides::new());
    }
    pose
}

/// Checks every case of one USD file; returns a line per case.
fn check_file(dir: &Path, file: &str, diagonal: f32, cases: &[Case]) -> Vec<String> {
    let path = dir.join(file);
    let scene = dqview::model::load_model(path.to_str().expect("utf-8"))
        .unwrap_or_else(|e| panic!("{file}: {e}"));
    let mut lines = Vec::new();
    for case in cases {
        let text = std::fs::read_to_string(dir.join(&case.obj)).expect("reference OBJ");
        let refs: BTreeMap<String, Vec<Vec3>> = support::obj_groups(&text).into_iter().collect();
        let pose = pose_of(&scene, case);
        let cpu = skin_scene(&scene, &pose, case.mode, Betas::Uniform(1.0));
        let worst_cpu = worst(&scene, &cpu, case, &refs) / diagonal;
        assert!(
            worst_cpu <= TOLERANCE_RELATIVE,
            "{}: dqview's CPU vertex is {worst_cpu:e} of the diagonal from Pixar's",
            case.obj
        );
        let mut line = format!("{}: CPU {worst_cpu:.1e}", case.obj);
        if let Some(gpu) = support::gpu("usd_meshes_match_pixars_usdskel") {
            let posed = gpu
                .skin_scene(&scene, &pose, case.mode, 1.0)
                .expect("GPU skinning");
            let worst_gpu = worst(&scene, &posed, case, &refs) / diagonal;
            assert!(
                worst_gpu <= TOLERANCE_RELATIVE,
                "{}: dqview's GPU vertex is {worst_gpu:e} of the diagonal from Pixar's",
                case.obj
            );
            line.push_str(&format!(", GPU {worst_gpu:.1e}"));
        }
        lines.push(line);
    }
    lines
}

#[test]
fn usd_meshes_match_pixars_usdskel() {
    let Some(dir) = support::data_dir("DQVIEW_USD", "usd_meshes_match_pixars_usdskel") else {
        return;
    };
    let index: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("INDEX.json")).expect("INDEX.json"))
            .expect("INDEX.json is JSON");
    let refs = index["refs"].as_array().expect("refs");
    assert!(refs.len() >= 186, "{} refs", refs.len());
    // file -> obj -> case
    let mut files: BTreeMap<String, BTreeMap<String, Case>> = BTreeMap::new();
    for r in refs {
        let file = r["usd_file"].as_str().expect("usd_file").to_owned();
        let obj = r["obj"].as_str().expect("obj").to_owned();
        let mode = match r["method"].as_str() {
            Some("classicLinear") => SkinningMode::Lbs,
            Some("dualQuaternion") => SkinningMode::Dqs,
            m => panic!("{obj}: method {m:?}"),
        };
        let case = files
            .entry(file)
            .or_default()
            .entry(obj.clone())
            .or_insert(Case {
                obj,
                time_s: r["time_s"].as_f64().map(|t| t as f32),
                mode,
                meshes: Vec::new(),
            });
        case.meshes.push((
            r["mesh"].as_str().expect("mesh").to_owned(),
            r["vertex_count"].as_u64().expect("count") as usize,
            r["skinned"].as_bool().expect("skinned"),
        ));
    }
    assert_eq!(files.len(), 6, "six USD files");
    let mut checked = 0;
    for (file, cases) in &files {
        let diagonal = index["files"][file]["diagonal"].as_f64().expect("diagonal") as f32;
        let cases: Vec<Case> = cases
            .values()
            .map(|c| Case {
                obj: c.obj.clone(),
                time_s: c.time_s,
                mode: c.mode,
                meshes: c.meshes.clone(),
            })
            .collect();
        for line in check_file(&dir, file, diagonal, &cases) {
            eprintln!("{line}");
        }
        checked += cases.iter().map(|c| c.meshes.len()).sum::<usize>();
    }
    assert_eq!(checked, refs.len(), "every INDEX.json entry was compared");
}
