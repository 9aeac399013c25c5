//! Rig analysis: volumes, the candy-wrapper numbers, hybrid betas and `_DQS_BLEND`.

use std::process::Command;

use dqview::analysis::{is_closed, signed_volume};
use dqview::anim::{JointAngles, JointOverrides, Pose, find_node};
use dqview::model::load_model;
use dqview::scene::{load_gltf_slice, write_glb};
use dqview::skin::{Betas, HybridFlags, SceneBetas, SkinningMode, skin_scene, skin_scene_hybrid};

#[test]
fn twist_tube_has_the_volume_of_its_prism() {
    let scene = load_model("builtin:twist").expect("builtin");
    let prim = &scene.meshes[0].primitives[0];
    assert!(is_closed(&prim.positions, &prim.indices, 1e-6));
    // A 48-sided prism of circumradius 0.25 and height 2.
    let n = 48.0f64;
    let expected = 0.5 * n * 0.25f64.powi(2) * (std::f64::consts::TAU / n).sin() * 2.0;
    let v = signed_volume(&prim.positions, &prim.indices, glam::Vec3::ZERO);
    assert!((v - expected).abs() < 1e-4 * expected, "{v} vs {expected}");
}

fn analyze_json(args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_dqview"))
        .arg("analyze")
        .args(args)
        .arg("--json")
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

#[test]
fn analyze_twist_180_lbs_collapses_dqs_keeps_volume() {
    let report = analyze_json(&["builtin:twist", "--twist", "tip=180"]);
    let lbs = &report["modes"]["lbs"];
    let dqs = &report["modes"]["dqs"];
    let lbs_min = lbs["min_volume_ratio"].as_f64().expect("lbs min");
    let dqs_min = dqs["min_volume_ratio"].as_f64().expect("dqs min");
    let dqs_max = dqs["max_volume_ratio"].as_f64().expect("dqs max");
    assert!(lbs_min < 0.85, "LBS volume ratio {lbs_min}");
    assert!(
        (dqs_min - 1.0).abs() < 0.01 && (dqs_max - 1.0).abs() < 0.01,
        "DQS {dqs_min}..{dqs_max}"
    );
    for key in ["worst_time", "worst_joints", "max_volume_ratio"] {
        assert!(!lbs[key].is_null(), "{key}");
    }
    assert!(report["modes"]["hybrid"]["min_volume_ratio"].is_number());
    let d = report["max_lbs_dqs_displacement"]
        .as_f64()
        .expect("displacement");
    // The middle ring collapses onto the axis under LBS: 0.25 from where DQS keeps it.
    assert!((d - 0.25).abs() < 0.01, "{d}");
    // The smallest radius about the twisted joint: near 0 for LBS, the tube radius for DQS.
    assert!(lbs["min_radius"].as_f64().expect("radius") < 0.01);
    assert!((dqs["min_radius"].as_f64().expect("radius") - 0.25).abs() < 1e-3);
}

#[test]
fn analyze_over_a_clip_finds_the_worst_time() {
    let report = analyze_json(&["builtin:twist", "--clip", "0", "--samples", "9"]);
    assert_eq!(report["times"].as_array().expect("times").len(), 9);
    // The clip ramps the twist from 0 to 180 degrees over 2 s: LBS is worst at the end.
    assert_eq!(report["modes"]["lbs"]["worst_time"].as_f64(), Some(2.0));
    let ratios: Vec<f64> = report["modes"]["lbs"]["ratios"]
        .as_array()
        .expect("ratios")
        .iter()
        .filter_map(|r| r.as_f64())
        .collect();
    assert!((ratios[0] - 1.0).abs() < 1e-6);
    assert!(
        ratios.windows(2).all(|w| w[1] <= w[0] + 1e-6),
        "LBS volume shrinks as the twist grows: {ratios:?}"
    );
}

#[test]
fn hybrid_beta_0_is_lbs_and_1_is_dqs_exactly() {
    let scene = load_model("builtin:arm").expect("builtin");
    let mut pose = Pose::rest(&scene);
    pose.sample(&scene, Some(0), 1.7, &JointOverrides::new());
    let lbs = skin_scene(&scene, &pose, SkinningMode::Lbs, Betas::Uniform(0.0));
    let dqs = skin_scene(&scene, &pose, SkinningMode::Dqs, Betas::Uniform(1.0));
    let h0 = skin_scene(&scene, &pose, SkinningMode::Hybrid, Betas::Uniform(0.0));
    let h1 = skin_scene(&scene, &pose, SkinningMode::Hybrid, Betas::Uniform(1.0));
    assert_eq!(h0[0].vertices.positions, lbs[0].vertices.positions);
    assert_eq!(h1[0].vertices.positions, dqs[0].vertices.positions);
    assert_ne!(lbs[0].vertices.positions, dqs[0].vertices.positions);
    // Per-vertex betas scaled by 0 are LBS too.
    let betas = SceneBetas::defaults(&scene, Some(0), &JointOverrides::new());
    let scaled0 = skin_scene_hybrid(&scene, &pose, SkinningMode::Hybrid, &betas, 0.0);
    assert_eq!(scaled0[0].vertices.positions, lbs[0].vertices.positions);
}

#[test]
fn default_flags_pick_twist_joints_by_name_and_by_motion() {
    let scene = load_model("builtin:arm").expect("builtin");
    let flags = HybridFlags::defaults(&scene, 0, Some(0), &JointOverrides::new());
    let names: Vec<&str> = scene.skins[0]
        .joints
        .iter()
        .map(|&j| scene.nodes[j].name.as_str())
        .collect();
    let flagged: Vec<&str> = names
        .iter()
        .zip(&flags.dqs)
        .filter(|(_, f)| **f)
        .map(|(n, _)| *n)
        .collect();
    assert_eq!(flagged, vec!["forearm_twist"], "{names:?}");
    // builtin:twist's `tip` is not named twist, but its clip turns it about its own axis.
    let twist = load_model("builtin:twist").expect("builtin");
    let flags = HybridFlags::defaults(&twist, 0, Some(0), &JointOverrides::new());
    assert_eq!(flags.dqs, vec![false, true]);
    // Without the clip, an override that twists it flags it; one that bends it does not.
    let tip = find_node(&twist, "tip").expect("tip");
    let mut overrides = JointOverrides::new();
    overrides.set(
        tip,
        JointAngles {
            bend_deg: 60.0,
            ..JointAngles::default()
        },
    );
    assert_eq!(
        HybridFlags::defaults(&twist, 0, None, &overrides).dqs,
        vec![false, false]
    );
    overrides.set(
        tip,
        JointAngles {
            twist_deg: 120.0,
            ..JointAngles::default()
        },
    );
    assert_eq!(
        HybridFlags::defaults(&twist, 0, None, &overrides).dqs,
        vec![false, true]
    );
}

#[test]
fn dqs_blend_attribute_is_read_from_a_generated_file_and_overrides_flags() {
    let mut scene = load_model("builtin:twist").expect("builtin");
    let n = scene.meshes[0].primitives[0].positions.len();
    // Beta rises with height: 0 at the base, 1 at the top.
    let blend: Vec<f32> = scene.meshes[0].primitives[0]
        .positions
        .iter()
        .map(|p| (p.y / 2.0).clamp(0.0, 1.0))
        .collect();
    scene.meshes[0].primitives[0].dqs_blend = Some(blend.clone());
    let glb = write_glb(&scene).expect("write");
    let loaded = load_gltf_slice(&glb, None, "dqs_blend").expect("load");
    let read = loaded.meshes[0].primitives[0]
        .dqs_blend
        .clone()
        .expect("_DQS_BLEND read back");
    assert_eq!(read.len(), n);
    assert_eq!(read, blend);
    let betas = SceneBetas::defaults(&loaded, None, &JointOverrides::new());
    assert_eq!(betas.of(0, 0), blend.as_slice());
}
