//! Direct Delta Mush on the GPU: the compute pass against the CPU reference (`skin_scene_ddm`)
//! on every built-in rig, the sample models and both shared characters, through the one
//! geometry path the vertex shaders also take; and a split render with a DDM pane.
//!
//! Without an adapter these tests print `SKIPPED` and pass, unless `DQVIEW_REQUIRE_GPU=1`.
//! Tolerances are the other methods': positions within 1e-5 of the bounding-box diagonal,
//! normals within 1e-3.

mod support;

use support::{Gpu, gpu};

use std::io::Write as _;

use dqview::anim::Pose;
use dqview::model::load_model;
use dqview::render::{GpuSkinning, SkinRun, skin_scene_gpu};
use dqview::scene::Scene;
use dqview::skin::SkinningMode;
use dqview::skin::ddm::{DdmParams, SceneDdm, skin_scene_ddm};

/// Compares GPU and CPU DDM at `pose`; returns the worst relative position error.
fn compare(gpu: &Gpu, what: &str, scene: &Scene, ddm: &SceneDdm, pose: &Pose) -> f32 {
    let cpu = skin_scene_ddm(scene, pose, ddm);
    let skinning = GpuSkinning {
        ddm: Some(ddm),
        ..GpuSkinning::new(SkinRun::new(SkinningMode::Ddm, 1.0))
    };
    let gpu_posed = skin_scene_gpu(&gpu.ctx, &gpu.renderer, scene, pose, &skinning)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    support::assert_posed_match(what, &cpu, &gpu_posed)
}

/// Rest, clip 0 at three times, and 90 and 170 degree twists (with bends) of the first joints.
fn check(gpu: &Gpu, name: &str, scene: &Scene) {
    let ddm = SceneDdm::compute(scene, DdmParams::DEFAULT).expect("precompute");
    assert!(ddm.pair_count() > 0, "{name}: no pairs");
    let mut worst = 0.0f32;
    for (what, pose) in support::test_poses(scene, &[0.0, 0.37, 1.0], &[90.0, 170.0], 2.0, true) {
        let what = format!("{name} {what}");
        worst = worst.max(compare(gpu, &what, scene, &ddm, &pose));
    }
    let _ = writeln!(
        std::io::stderr(),
        "{name}: worst DDM GPU-CPU error {worst:e} of the diagonal ({} pairs)",
        ddm.pair_count()
    );
}

#[test]
fn gpu_ddm_matches_cpu_on_builtin_rigs() {
    let Some(gpu) = gpu("gpu_ddm_matches_cpu_on_builtin_rigs") else {
        return;
    };
    for name in dqview::builtin::BUILTIN_NAMES {
        let scene = load_model(&format!("builtin:{name}")).expect("builtin");
        check(gpu, &format!("builtin:{name}"), &scene);
    }
}

#[test]
fn gpu_ddm_matches_cpu_on_sample_models_and_characters() {
    let Some(gpu) = gpu("gpu_ddm_matches_cpu_on_sample_models_and_characters") else {
        return;
    };
    let test = "gpu_ddm_matches_cpu_on_sample_models_and_characters";
    for file in support::samples_and_characters(test) {
        let scene = load_model(file.to_str().expect("utf-8")).expect("model loads");
        let name = file.file_name().map(|f| f.to_string_lossy().into_owned());
        check(gpu, &name.unwrap_or_default(), &scene);
    }
}
