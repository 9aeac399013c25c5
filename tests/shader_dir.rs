//! `--shader-dir`: every pipeline is built from the edited folder, the compute crowd, the
//! compensated DQS mesh, the wireframe and the compute readback included.
//!
//! Its own test binary: the shader folder is process-wide.

mod support;

use std::path::Path;

use dqview::anim::{JointAngles, JointOverrides, Pose};
use dqview::model::load_model;
use dqview::render::{
    Camera, FrameBinding, GpuContext, GpuSkinning, OffscreenTarget, RenderSettings, Renderer,
    RgbaImage, SceneGpu, SceneOptions, SkinPath, SkinRun, ViewParams, set_shader_dir,
    skin_scene_gpu,
};
use dqview::scene::Scene;
use dqview::skin::{SkinningMode, rest_bounds};
use glam::{Vec3, Vec4};

/// A copy of `shaders/` in a temp folder with `edits` (file, text to find, replacement) made.
fn edited_shaders(name: &str, edits: &[(&str, &str, &str)]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("dqview_{name}_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    for entry in std::fs::read_dir(&source).expect("shaders/") {
        let path = entry.expect("entry").path();
        std::fs::copy(&path, dir.join(path.file_name().expect("name"))).expect("copy");
    }
    for (file, find, replace) in edits {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path).expect("shader");
        assert_eq!(text.matches(find).count(), 1, "{file}: `{find}` once");
        std::fs::write(&path, text.replacen(find, replace, 1)).expect("write");
    }
    dir
}

/// Pixels of `img` that are magenta (the edited fragment colour) and that are not the background.
fn magenta_share(img: &RgbaImage) -> f32 {
    let bg = [img.pixels[0], img.pixels[1], img.pixels[2]];
    let (mut drawn, mut magenta) = (0, 0);
    for p in img.pixels.chunks_exact(4) {
        if (0..3).any(|k| p[k].abs_diff(bg[k]) > 12) {
            drawn += 1;
            magenta += usize::from(p[0] > 200 && p[1] < 40 && p[2] > 200);
        }
    }
    assert!(drawn > 500, "only {drawn} pixels drawn");
    magenta as f32 / drawn as f32
}

/// One image of `gpu_scene` in `mode`: its mesh (or, `wire`, its edges), compute pass first.
fn image(
    ctx: &GpuContext,
    renderer: &Renderer,
    gpu_scene: &SceneGpu,
    scene: &Scene,
    params: &ViewParams,
    wire: bool,
) -> RgbaImage {
    let s = renderer.settings();
    // Where the edited skinning puts the mesh: 5 units up.
    let (min, max) = rest_bounds(scene).expect("vertices");
    let (min, max) = (min + Vec3::Y * 5.0, max + Vec3::Y * 5.0);
    let camera = Camera::framing(min, max, Vec3::Z, s.width as f32 / s.height as f32);
    let frame = FrameBinding::new(ctx, renderer).expect("frame");
    let uniforms = s.to_gpu_view(&camera, params);
    let uniforms = if wire {
        uniforms.with_wire(Vec4::new(0.0, 1.0, 0.0, 1.0))
    } else {
        uniforms
    };
    frame.write(&ctx.queue, &uniforms);
    let target = OffscreenTarget::new(ctx, renderer).expect("target");
    let mut encoder = ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
    let mode = SkinningMode::Dqs;
    let run = SkinRun {
        bulge: params.bulge,
        ..SkinRun::new(mode, 1.0)
    };
    gpu_scene
        .encode_skinning(ctx, &mut encoder, renderer, run, None)
        .expect("compute pass");
    {
        let mut pass = target.begin_pass(&mut encoder, s.background);
        if wire {
            gpu_scene.draw_wire(&mut pass, renderer, &frame, mode, true);
        } else {
            gpu_scene.draw(&mut pass, renderer, &frame, mode);
        }
    }
    ctx.queue.submit([encoder.finish()]);
    target.read_rgba(ctx).expect("read back")
}

#[test]
fn edited_shaders_reach_every_pipeline() {
    let Some(gpu) = support::gpu("edited_shaders_reach_every_pipeline") else {
        return;
    };
    // Fragments magenta, wire edges magenta, and every skinned vertex moved 5 units up.
    let dir = edited_shaders(
        "shader_dir",
        &[
            (
                "draw.wgsl",
                "    return vec4<f32>(albedo * light, alpha);",
                "    return vec4<f32>(1.0, 0.0, 1.0, 1.0);",
            ),
            (
                "draw.wgsl",
                "    return frame.wire_color * select(",
                "    return vec4<f32>(1.0, 0.0, 1.0, 1.0) * select(",
            ),
            (
                "geometry.wgsl",
                "fn skin_geometry_vertex(v: SkinInput, index: u32, beta_scale: f32, bulge: f32) -> Skinned {",
                "fn skin_geometry_vertex(v: SkinInput, index: u32, beta_scale: f32, bulge: f32) -> Skinned {\n    var s = skin_geometry_vertex_as_built(v, index, beta_scale, bulge);\n    s.position.y += 5.0;\n    return s;\n}\n\nfn skin_geometry_vertex_as_built(v: SkinInput, index: u32, beta_scale: f32, bulge: f32) -> Skinned {",
            ),
        ],
    );
    let scene = load_model("builtin:elbow").expect("builtin");
    let mut overrides = JointOverrides::new();
    let joint = scene.skins[0].joints[1];
    let angles = JointAngles {
        bend_deg: 80.0,
        ..JointAngles::default()
    };
    overrides.set(joint, angles);
    let mut pose = Pose::rest(&scene);
    pose.sample(&scene, None, 0.0, &overrides);
    set_shader_dir(Some(dir.clone()));
    let ctx = &gpu.ctx;
    let renderer = Renderer::new(ctx, RenderSettings::TESTING).expect("edited shaders build");
    let upload = |path| {
        let options = SceneOptions {
            path,
            ..SceneOptions::default()
        };
        SceneGpu::with_options(ctx, &renderer, &scene, &pose, &options).expect("upload")
    };
    let plain = upload(SkinPath::Vertex);
    let crowd = upload(SkinPath::Compute);
    let shaded = ViewParams::shaded(1.0);
    let bulge = ViewParams {
        bulge: 1.0,
        ..shaded
    };
    for (what, gpu_scene, params, wire) in [
        ("model", &plain, &shaded, false),
        ("compute crowd", &crowd, &shaded, false),
        ("compensated DQS", &plain, &bulge, false),
    ] {
        let share = magenta_share(&image(ctx, &renderer, gpu_scene, &scene, params, wire));
        assert!(
            share > 0.95,
            "{what}: {share} of the pixels use the edited shader"
        );
    }
    let mut edges = upload(SkinPath::Vertex);
    edges.make_edges(ctx, &scene);
    let share = magenta_share(&image(ctx, &renderer, &edges, &scene, &shaded, true));
    assert!(
        share > 0.9,
        "wireframe: {share} of the pixels use the edited shader"
    );
    // The compute readback runs the edited skinning too.
    let skinning = GpuSkinning::new(SkinRun::new(SkinningMode::Dqs, 1.0));
    let moved = skin_scene_gpu(ctx, &renderer, &scene, &pose, &skinning).expect("readback");
    set_shader_dir(None);
    let built_in = skin_scene_gpu(ctx, &gpu.renderer, &scene, &pose, &skinning).expect("readback");
    for (a, b) in moved[0]
        .vertices
        .positions
        .iter()
        .zip(&built_in[0].vertices.positions)
    {
        assert!((a.y - b.y - 5.0).abs() < 1e-4, "{a} vs {b}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
