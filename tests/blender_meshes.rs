//! dqview's skinning of the real characters against Blender's own: the Armature modifier's
//! posed meshes (Preserve Volume off for LBS, on for DQS) stored in `DQVIEW_BLENDER`.
//!
//! Blender keeps only the skinned meshes, so each Blender vertex is matched to the nearest
//! vertex dqview poses (CPU reference, and the GPU compute pass where there is an adapter).
//! Blender evaluates in single precision: agreement is expected to a few 1e-6 of the
//! bounding-box diagonal. The same vertices are far from Blender's mesh of the other mode,
//! so a wrong mode, pivot or normalisation cannot pass.

mod support;

use std::path::Path;

use dqview::anim::{JointOverrides, Pose};
use dqview::skin::{Betas, PosedPrimitive, SkinningMode, rest_bounds, skin_scene};
use glam::Vec3;
use serde_json::Value;

/// Largest allowed distance from a Blender vertex to dqview's nearest, over the diagonal.
const TOLERANCE_RELATIVE: f32 = 1e-5;

/// The worst nearest-vertex distance of `blender` to `posed`, over `diagonal`.
fn worst_relative(blender: &[Vec3], posed: &[PosedPrimitive], diagonal: f32, cell: f32) -> f32 {
    let grid = support::Grid::new(
        posed
            .iter()
            .flat_map(|p| p.vertices.positions.iter().copied()),
        cell,
    );
    grid.worst(blender) / diagonal
}

/// One INDEX.json entry checked: dqview's mesh (CPU, and GPU where there is one) against
/// Blender's of the same mode, and far from Blender's of the other mode.
fn check_case(characters: &Path, blender: &Path, case: &Value) -> String {
    let file = case["file"].as_str().expect("file");
    let model = case["model"].as_str().expect("model");
    let model = characters.join(model.trim_start_matches("characters/"));
    let scene = dqview::model::load_model(model.to_str().expect("utf-8")).expect("loads");
    let clip = case["clip_index"].as_u64().expect("clip") as usize;
    assert_eq!(
        scene.animations[clip].name,
        case["clip"].as_str().expect("clip name")
    );
    let time_s = case["time_s"].as_f64().expect("time") as f32;
    let (mode, other) = match case["mode"].as_str() {
        Some("lbs") => (SkinningMode::Lbs, file.replace("_lbs.obj", "_dqs.obj")),
        Some("dqs") => (SkinningMode::Dqs, file.replace("_dqs.obj", "_lbs.obj")),
        m => panic!("{file}: mode {m:?}"),
    };
    let mut pose = Pose::rest(&scene);
    pose.sample(&scene, Some(clip), time_s, &JointOverrides::new());
    let (lo, hi) = rest_bounds(&scene).expect("bounds");
    let diagonal = (hi - lo).length();
    // Cells far wider than the tolerance, far narrower than the mesh.
    let cell = diagonal * 1e-3;
    let theirs = support::obj_vertices(&blender.join(file));
    let want: u64 = case["meshes"]
        .as_object()
        .expect("meshes")
        .values()
        .map(|n| n.as_u64().expect("count"))
        .sum();
    assert_eq!(theirs.len() as u64, want, "{file}: vertex count");

    let cpu = skin_scene(&scene, &pose, mode, Betas::Uniform(1.0));
    let worst_cpu = worst_relative(&theirs, &cpu, diagonal, cell);
    assert!(
        worst_cpu <= TOLERANCE_RELATIVE,
        "{file}: a Blender vertex is {worst_cpu:e} of the diagonal from dqview's CPU mesh"
    );
    let other_mesh = support::obj_vertices(&blender.join(&other));
    let apart = worst_relative(&other_mesh, &cpu, diagonal, cell);
    assert!(
        apart > 100.0 * TOLERANCE_RELATIVE,
        "{file}: dqview's mesh is as close to {other} ({apart:e}): the case tells the modes apart"
    );
    // `apart` is at least one cell: no vertex of the other mode lies within one.
    let mut line = format!("{file}: CPU {worst_cpu:.1e}, other mode >= {apart:.1e}");
    if let Some(gpu) = support::gpu("blender_meshes") {
        let posed = gpu
            .skin_scene(&scene, &pose, mode, 1.0)
            .expect("GPU skinning");
        let worst_gpu = worst_relative(&theirs, &posed, diagonal, cell);
        assert!(
            worst_gpu <= TOLERANCE_RELATIVE,
            "{file}: a Blender vertex is {worst_gpu:e} of the diagonal from dqview's GPU mesh"
        );
        line.push_str(&format!(", GPU {worst_gpu:.1e}"));
    }
    line
}

#[test]
fn real_characters_match_blenders_armature_modifier_in_both_modes() {
    let test = "real_characters_match_blenders_armature_modifier_in_both_modes";
    let Some(blender) = support::data_dir("DQVIEW_BLENDER", test) else {
        return;
    };
    let Some(characters) = support::characters_dir(test) else {
        return;
    };
    let index: Value = serde_json::from_str(
        &std::fs::read_to_string(blender.join("INDEX.json")).expect("INDEX.json"),
    )
    .expect("INDEX.json is JSON");
    let cases = index.as_array().expect("a list");
    assert!(cases.len() >= 8, "{} cases", cases.len());
    for case in cases {
        let line = check_case(&characters, &blender, case);
        eprintln!("{line}");
    }
}
