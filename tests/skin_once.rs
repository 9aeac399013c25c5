//! `export --gpu` skins each vertex once: on the GPU, with no CPU skinning pass beside it.
//!
//! Its own test binary: the skinned-vertex counters are process-wide, and another test
//! skinning on a parallel thread would move them.

mod support;

use support::gpu;

use dqview::anim::{JointAngles, JointOverrides, Pose};
use dqview::model::load_model;
use dqview::render::{GpuSkinning, SkinRun, gpu_skinned_vertices, skin_scene_gpu};
use dqview::skin::{
    CorOptions, CorProgress, SceneCenters, SkinningMode, cpu_skinned_vertices, skin_scene_cor,
};

#[test]
fn cor_exports_skin_each_vertex_once() {
    let Some(gpu) = gpu("cor_exports_skin_each_vertex_once") else {
        return;
    };
    let scene = load_model("builtin:arm").expect("builtin");
    let skinned: u64 = scene
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .filter(|p| p.influences.is_some())
        .map(|p| p.positions.len() as u64)
        .sum();
    assert!(skinned > 1000, "the arm has skinned vertices");
    let centers =
        SceneCenters::compute(&scene, &CorOptions::default(), &CorProgress::new()).expect("CoR");
    let elbow = dqview::anim::find_node(&scene, "elbow").expect("elbow");
    let mut overrides = JointOverrides::new();
    let angles = JointAngles {
        bend_deg: 70.0,
        ..JointAngles::default()
    };
    overrides.set(elbow, angles);
    let mut pose = Pose::rest(&scene);
    pose.sample(&scene, None, 0.0, &overrides);

    // The CPU export: one CoR pass, no LBS pass for the layout first.
    let before = cpu_skinned_vertices();
    let cpu = skin_scene_cor(&scene, &pose, &centers);
    assert_eq!(cpu_skinned_vertices() - before, skinned, "CPU CoR export");
    assert!(cpu.iter().any(|p| p.skinned));

    // The GPU export: every skinned vertex once on the GPU, none on the CPU.
    let (cpu_before, gpu_before) = (cpu_skinned_vertices(), gpu_skinned_vertices());
    let skinning = GpuSkinning {
        cor_centers: Some(&centers),
        ..GpuSkinning::new(SkinRun::new(SkinningMode::Cor, 1.0))
    };
    let on_gpu = skin_scene_gpu(&gpu.ctx, &gpu.renderer, &scene, &pose, &skinning).expect("GPU");
    assert_eq!(on_gpu.len(), cpu.len());
    assert_eq!(
        cpu_skinned_vertices() - cpu_before,
        0,
        "CPU skinning in a GPU export"
    );
    assert_eq!(
        gpu_skinned_vertices() - gpu_before,
        skinned,
        "GPU skinning passes"
    );
}
