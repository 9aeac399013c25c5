//! The crowd (`--instances K`, `--path compute|vertex`) against the CPU reference.
//!
//! - The compute path's skinned vertex buffers equal the CPU reference at each
//!   instance's own clip time, moved to its grid cell (positions within 2e-5 of
//!   the crowd's diagonal, normals within 1e-3), on built-in rigs, sample models
//!   and a 5,000-joint rig (storage palettes).
//! - Both paths draw the same image.
//! - Palettes are uploaded only when a pose changes.
//!
//! Without an adapter these tests print `SKIPPED` and pass, unless `DQVIEW_REQUIRE_GPU=1`.

mod support;

use support::{Gpu, gpu};

use dqview::anim::{JointOverrides, Pose, clip_duration_s};
use dqview::builtin::generated_rig;
use dqview::model::load_model;
use dqview::render::{
    Camera, FrameBinding, OffscreenTarget, RgbaImage, SceneGpu, SceneOptions, SkinPath, SkinRun,
    ViewParams, instance_time_s,
};
use dqview::scene::Scene;
use dqview::skin::{Betas, SkinningMode, rest_bounds, skin_scene};

const BETA: f32 = 0.3;

/// A crowd: `scene` uploaded for `instances` on `path`.
fn crowd_of(gpu: &Gpu, scene: &Scene, instances: usize, path: SkinPath) -> SceneGpu {
    let options = SceneOptions {
        instances,
        path,
        tangents: false,
    };
    SceneGpu::with_options(&gpu.ctx, &gpu.renderer, scene, &Pose::rest(scene), &options)
        .unwrap_or_else(|e| panic!("crowd: {e}"))
}

/// Skins a crowd of `instances` on the GPU at clip time `time_s` and checks every instance
/// against the CPU reference; returns the worst position error over the crowd's diagonal.
fn compare_crowd(gpu: &Gpu, what: &str, scene: &Scene, instances: usize, time_s: f32) -> f32 {
    let ctx = &gpu.ctx;
    let mut crowd = crowd_of(gpu, scene, instances, SkinPath::Compute);
    assert!(crowd.draw_count() > 0, "{what}: nothing drawn");
    let clip = (!scene.animations.is_empty()).then_some(0);
    let duration_s = scene.animations.first().map_or(0.0, clip_duration_s);
    let none = JointOverrides::new();
    crowd.update_crowd(ctx, scene, clip, time_s, &none);
    let (min, max) = rest_bounds(scene).expect("vertices");
    let (min, max) = crowd.bounds(min, max);
    let diagonal = (max - min).length().max(1e-6);
    let mut worst = 0.0f32;
    // Without centers CoR is LBS on both sides.
    for mode in dqview::skin::SkinningMode::ALL {
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        crowd
            .encode_skinning(
                ctx,
                &mut encoder,
                &gpu.renderer,
                SkinRun::new(mode, BETA),
                None,
            )
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        ctx.queue.submit([encoder.finish()]);
        for instance in 0..instances {
            let t = instance_time_s(instance, instances, time_s, duration_s);
            if instances > 1 && duration_s > 0.0 {
                let expected = (time_s + instance as f32 * duration_s / instances as f32)
                    .rem_euclid(duration_s);
                assert!(
                    (t - expected).abs() < 1e-5,
                    "{what}: time {t} vs {expected}"
                );
            }
            let mut pose = Pose::rest(scene);
            pose.sample(scene, clip, t, &none);
            let cpu = skin_scene(scene, &pose, mode, Betas::Uniform(BETA));
            let offset = crowd.offset(instance);
            for index in 0..crowd.draw_count() {
                let ((mesh, primitive), skinned) = crowd.primitive_source(index).expect("source");
                if !skinned {
                    continue;
                }
                let reference = cpu
                    .iter()
                    .find(|p| p.skinned && p.mesh == mesh && p.primitive == primitive)
                    .expect("CPU primitive");
                let skinned = crowd
                    .read_skinned(ctx, index, instance)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                let n = reference.vertices.positions.len();
                assert_eq!(skinned.positions.len(), n, "{what}");
                for (v, (p, c)) in skinned
                    .positions
                    .iter()
                    .zip(&reference.vertices.positions)
                    .enumerate()
                {
                    let rel = (*p - (*c + offset)).length() / diagonal;
                    worst = worst.max(rel);
                    assert!(
                        rel <= 2e-5,
                        "{what} {mode} instance {instance} vertex {v}: GPU {p} CPU {} ({rel:e})",
                        *c + offset
                    );
                }
                for (v, (n, c)) in skinned
                    .normals
                    .iter()
                    .zip(&reference.vertices.normals)
                    .enumerate()
                {
                    assert!(
                        (n - *c).length() <= 1e-3,
                        "{what} {mode} instance {instance} vertex {v}: normal GPU {n} CPU {c}"
                    );
                }
            }
        }
    }
    worst
}

#[test]
fn compute_crowd_matches_cpu_on_builtin_rigs() {
    let Some(gpu) = gpu("compute_crowd_matches_cpu_on_builtin_rigs") else {
        return;
    };
    for name in dqview::builtin::BUILTIN_NAMES {
        let scene = load_model(&format!("builtin:{name}")).expect("builtin");
        for (instances, time_s) in [(1, 0.0), (3, 0.4), (4, 1.3)] {
            compare_crowd(
                gpu,
                &format!("builtin:{name} x{instances} at {time_s}"),
                &scene,
                instances,
                time_s,
            );
        }
    }
}

#[test]
fn compute_crowd_matches_cpu_on_sample_models() {
    let Some(gpu) = gpu("compute_crowd_matches_cpu_on_sample_models") else {
        return;
    };
    let Some(dir) = support::data_dir(
        "DQVIEW_SAMPLES",
        "compute_crowd_matches_cpu_on_sample_models",
    ) else {
        return;
    };
    for file in [
        "SimpleSkin.gltf",
        "RiggedSimple.glb",
        "RiggedFigure.glb",
        "CesiumMan.glb",
    ] {
        let scene = load_model(dir.join(file).to_str().expect("utf-8")).expect("sample loads");
        let d = scene.animations.first().map_or(1.0, clip_duration_s);
        compare_crowd(gpu, file, &scene, 3, 0.37 * d);
    }
}

#[test]
fn compute_crowd_handles_a_5000_joint_rig() {
    let Some(gpu) = gpu("compute_crowd_handles_a_5000_joint_rig") else {
        return;
    };
    let scene = generated_rig(3_000, 5_000);
    let mut matrices = Vec::new();
    Pose::rest(&scene).skinning_matrices(&scene, 0, &mut matrices);
    assert_eq!(matrices.len(), 5_000);
    compare_crowd(gpu, "generated 5000 joints", &scene, 2, 0.7);
}

/// Draws a crowd of `instances` with `path` at clip time 0.5 s, framed whole.
fn draw_crowd(gpu: &Gpu, scene: &Scene, instances: usize, path: SkinPath) -> RgbaImage {
    let ctx = &gpu.ctx;
    let mut crowd = crowd_of(gpu, scene, instances, path);
    let clip = (!scene.animations.is_empty()).then_some(0);
    crowd.update_crowd(ctx, scene, clip, 0.5, &JointOverrides::new());
    let (min, max) = rest_bounds(scene).expect("vertices");
    let (min, max) = crowd.bounds(min, max);
    let settings = gpu.renderer.settings();
    let camera = Camera::framing(
        min,
        max,
        glam::Vec3::new(0.3, 0.8, 1.0),
        settings.width as f32 / settings.height as f32,
    );
    let frame = FrameBinding::new(ctx, &gpu.renderer).expect("frame");
    frame.write(
        &ctx.queue,
        &settings.to_gpu_view(&camera, &ViewParams::shaded(0.5)),
    );
    let target = OffscreenTarget::new(ctx, &gpu.renderer).expect("target");
    let mut encoder = ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
    let run = SkinRun::new(SkinningMode::Dqs, 0.5);
    crowd
        .encode_skinning(ctx, &mut encoder, &gpu.renderer, run, None)
        .expect("compute pass");
    {
        let mut pass = target.begin_pass(&mut encoder, settings.background);
        crowd.draw(&mut pass, &gpu.renderer, &frame, SkinningMode::Dqs);
    }
    ctx.queue.submit([encoder.finish()]);
    target.read_rgba(ctx).expect("read back")
}

/// Pixels whose colour differs by more than `tolerance` in some channel.
fn differing_pixels(a: &RgbaImage, b: &RgbaImage, tolerance: u8) -> usize {
    a.pixels
        .chunks_exact(4)
        .zip(b.pixels.chunks_exact(4))
        .filter(|(x, y)| x.iter().zip(*y).any(|(p, q)| p.abs_diff(*q) > tolerance))
        .count()
}

#[test]
fn vertex_and_compute_paths_draw_the_same_crowd() {
    let Some(gpu) = gpu("vertex_and_compute_paths_draw_the_same_crowd") else {
        return;
    };
    let scene = load_model("builtin:arm").expect("builtin");
    let compute = draw_crowd(gpu, &scene, 4, SkinPath::Compute);
    let vertex = draw_crowd(gpu, &scene, 4, SkinPath::Vertex);
    let vertex_again = draw_crowd(gpu, &scene, 4, SkinPath::Vertex);
    assert_eq!(
        vertex.pixels, vertex_again.pixels,
        "renders are deterministic"
    );
    let total = (compute.width * compute.height) as usize;
    // The crowd covers a real part of the image, and a single model covers less.
    let single = draw_crowd(gpu, &scene, 1, SkinPath::Compute);
    let covered = |img: &RgbaImage| {
        img.pixels
            .chunks_exact(4)
            .filter(|p| p[0] > 12 || p[1] > 12 || p[2] > 12)
            .count()
    };
    assert!(covered(&compute) > total / 20, "{}", covered(&compute));
    assert!(differing_pixels(&compute, &single, 8) > total / 50);
    // Same triangles, same lighting: only rounding of positions differs (edge pixels).
    let differ = differing_pixels(&compute, &vertex, 8);
    assert!(
        differ * 200 < total,
        "{differ} of {total} pixels differ between the paths"
    );
}

#[test]
fn palettes_upload_only_when_the_pose_changes() {
    let Some(gpu) = gpu("palettes_upload_only_when_the_pose_changes") else {
        return;
    };
    let ctx = &gpu.ctx;
    let scene = load_model("builtin:twist").expect("builtin");
    let none = JointOverrides::new();
    let mut crowd = crowd_of(gpu, &scene, 3, SkinPath::Compute);
    crowd.update_crowd(ctx, &scene, Some(0), 0.25, &none);
    assert_eq!(crowd.palette_uploads(), 1);
    crowd.update_crowd(ctx, &scene, Some(0), 0.25, &none);
    assert_eq!(
        crowd.palette_uploads(),
        1,
        "same time, same poses: no upload"
    );
    crowd.update_crowd(ctx, &scene, Some(0), 0.5, &none);
    assert_eq!(crowd.palette_uploads(), 2);

    let rest = Pose::rest(&scene);
    let mut posed = Pose::rest(&scene);
    posed.sample(&scene, Some(0), 0.5, &none);
    assert_ne!(rest.global, posed.global, "the clip moves something");
    let mut gpu_scene = SceneGpu::new(ctx, &gpu.renderer, &scene, &rest).expect("scene");
    gpu_scene.update(ctx, &scene, &rest);
    assert_eq!(gpu_scene.palette_uploads(), 0, "created at this pose");
    gpu_scene.update(ctx, &scene, &posed);
    let after_one = gpu_scene.palette_uploads();
    assert!(after_one >= 1);
    gpu_scene.update(ctx, &scene, &posed);
    gpu_scene.update(ctx, &scene, &posed);
    assert_eq!(gpu_scene.palette_uploads(), after_one, "unchanged pose");
    gpu_scene.update(ctx, &scene, &rest);
    assert_eq!(gpu_scene.palette_uploads(), 2 * after_one);
}
