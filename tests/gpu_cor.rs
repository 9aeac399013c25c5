//! CoR skinning on the GPU: the compute pass against the CPU reference on every built-in rig
//! and sample model, and the vertex-shader pipeline in a three-way split render.
//!
//! Without an adapter these tests print `SKIPPED` and pass, unless `DQVIEW_REQUIRE_GPU=1`.
//! Tolerances are the DQS ones: positions within 1e-5 of the bounding-box diagonal,
//! normals within 1e-3.

mod support;

use support::{Gpu, gpu};

use std::io::Write as _;

use dqview::anim::Pose;
use dqview::model::load_model;
use dqview::render::{GpuSkinning, SkinRun, skin_scene_gpu};
use dqview::scene::Scene;
use dqview::skin::{CorOptions, CorProgress, SceneCenters, SkinningMode, skin_scene_cor};

/// Compares GPU and CPU CoR skinning at `pose`; returns the worst relative position error.
fn compare(gpu: &Gpu, what: &str, scene: &Scene, centers: &SceneCenters, pose: &Pose) -> f32 {
    let cpu = skin_scene_cor(scene, pose, centers);
    let skinning = GpuSkinning {
        cor_centers: Some(centers),
        ..GpuSkinning::new(SkinRun::new(SkinningMode::Cor, 1.0))
    };
    let gpu_posed = skin_scene_gpu(&gpu.ctx, &gpu.renderer, scene, pose, &skinning)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    support::assert_posed_match(what, &cpu, &gpu_posed)
}

/// Rest, clip 0 at three times, and bends and twists of the first joints with children.
fn poses(scene: &Scene) -> Vec<(String, Pose)> {
    support::test_poses(scene, &[0.0, 0.37, 1.0], &[90.0, 170.0], 2.0, false)
}

fn check(gpu: &Gpu, name: &str, scene: &Scene) {
    let centers =
        SceneCenters::compute(scene, &CorOptions::default(), &CorProgress::new()).expect("centers");
    let mut worst = 0.0f32;
    for (what, pose) in poses(scene) {
        worst = worst.max(compare(
            gpu,
            &format!("{name} {what}"),
            scene,
            &centers,
            &pose,
        ));
    }
    let _ = writeln!(
        std::io::stderr(),
        "{name}: worst CoR GPU-CPU error {worst:e} of the diagonal"
    );
}

#[test]
fn gpu_cor_matches_cpu_on_builtin_rigs() {
    let Some(gpu) = gpu("gpu_cor_matches_cpu_on_builtin_rigs") else {
        return;
    };
    for name in dqview::builtin::BUILTIN_NAMES {
        let scene = load_model(&format!("builtin:{name}")).expect("builtin");
        check(gpu, &format!("builtin:{name}"), &scene);
    }
}

#[test]
fn gpu_cor_matches_cpu_on_sample_models() {
    let Some(gpu) = gpu("gpu_cor_matches_cpu_on_sample_models") else {
        return;
    };
    let Some(dir) = support::data_dir("DQVIEW_SAMPLES", "gpu_cor_matches_cpu_on_sample_models")
    else {
        return;
    };
    for file in [
        "SimpleSkin.gltf",
        "RiggedSimple.glb",
        "RiggedFigure.glb",
        "CesiumMan.glb",
        "extras/NegativeScaleTest.glb",
    ] {
        let scene = load_model(dir.join(file).to_str().expect("utf-8")).expect("sample loads");
        check(gpu, file, &scene);
    }
}

/// `dqview render builtin:twist --mode split3 --twist tip=180`: LBS pinches, DQS and CoR do not.
#[test]
fn split3_render_shows_cor_without_the_candy_wrapper() {
    if gpu("split3_render_shows_cor_without_the_candy_wrapper").is_none() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("dqview-split3-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let out = dir.join("split3.png");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_dqview"))
        .env("DQVIEW_CACHE_DIR", dir.join("cache"))
        .args([
            "render",
            "builtin:twist",
            "--mode",
            "split3",
            "--twist",
            "tip=180",
        ])
        .args(["--size", "768x256", "--out"])
        .arg(&out)
        .output()
        .expect("run dqview");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let image = image::open(&out).expect("png").to_rgba8();
    let _ = std::fs::remove_dir_all(&dir);
    let (w, h) = image.dimensions();
    assert_eq!((w, h), (768, 256));
    let pane = w / 3;
    let background = *image.get_pixel(w / 2, h - 1);
    let width_in = |x0: u32, y: u32| {
        (x0..x0 + pane)
            .filter(|&x| {
                let p = image.get_pixel(x, y);
                (0..3)
                    .map(|c| (i32::from(p[c]) - i32::from(background[c])).abs())
                    .sum::<i32>()
                    > 30
            })
            .count() as i32
    };
    let rows: Vec<u32> = (0..h).filter(|&y| width_in(pane, y) > 0).collect();
    let middle = (rows[0] + rows[rows.len() - 1]) / 2;
    let (lbs, dqs, cor) = (
        width_in(0, middle),
        width_in(pane, middle),
        width_in(2 * pane, middle),
    );
    assert!(dqs > 15, "DQS middle width {dqs}");
    assert!(lbs * 3 < dqs, "LBS should pinch: {lbs} vs DQS {dqs}");
    // The CoR pane uses its centers: without them it would pinch like LBS.
    assert!((cor - dqs).abs() * 5 <= dqs, "CoR {cor} vs DQS {dqs}");
}
