//! Vertex colours and alpha modes on the GPU, offscreen, in every draw path.
//!
//! Each scene is a glTF document built here: 2 x 2 quads facing the camera,
//! skinned by one identity joint so the crowd's compute path draws them too.
//! Paths: `SceneGpu` (vertex-shader skinning, what `dqview render` uses), the
//! crowd's vertex path, and the crowd's compute-skinning + plain-draw path.
//!
//! - A red vertex colour renders red (green and blue stay 0), and a material
//!   factor multiplies it (half the green factor halves green in linear light).
//! - MASK: vertex alpha 0.2 under cutoff 0.5 leaves the background; 0.8 draws
//!   exactly as OPAQUE does.
//! - BLEND at alpha 0.5 over an opaque quad gives, in linear light, the mean of
//!   the two quads drawn alone, though the blended quad comes first in the scene.
//!
//! Without an adapter these tests print `SKIPPED` and pass, unless `DQVIEW_REQUIRE_GPU=1`.

mod support;

use dqview::anim::{JointOverrides, Pose};
use dqview::render::{
    Camera, FrameBinding, OffscreenTarget, RgbaImage, SceneGpu, SceneOptions, SkinPath, SkinRun,
    ViewParams,
};
use dqview::scene::{Scene, load_gltf_slice};
use dqview::skin::SkinningMode;
use glam::Vec3;
use serde_json::json;
use support::{GltfDoc, Gpu, gpu};

/// The three ways a primitive reaches the screen.
#[derive(Clone, Copy, Debug)]
enum DrawPath {
    /// `SceneGpu`: vertex-shader skinning.
    Scene,
    /// A one-instance crowd on `path`.
    Crowd(SkinPath),
}

const PATHS: [DrawPath; 3] = [
    DrawPath::Scene,
    DrawPath::Crowd(SkinPath::Vertex),
    DrawPath::Crowd(SkinPath::Compute),
];

/// Renders `scene` at rest with `path`, always from the same camera (the quads' box seen from +Z).
fn render(gpu: &Gpu, scene: &Scene, path: DrawPath) -> RgbaImage {
    let ctx = &gpu.ctx;
    let renderer = &gpu.renderer;
    let settings = renderer.settings();
    let camera = Camera::framing(
        Vec3::new(-1.0, -1.0, 0.0),
        Vec3::new(1.0, 1.0, 0.5),
        Vec3::Z,
        1.0,
    );
    let frame = FrameBinding::new(ctx, renderer).expect("frame");
    frame.write(
        &ctx.queue,
        &settings.to_gpu_view(&camera, &ViewParams::shaded(0.0)),
    );
    let target = OffscreenTarget::new(ctx, renderer).expect("target");
    let mut encoder = ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
    let mode = SkinningMode::Dqs;
    match path {
        DrawPath::Scene => {
            let pose = Pose::rest(scene);
            let gpu_scene = SceneGpu::new(ctx, renderer, scene, &pose).expect("scene");
            let mut pass = target.begin_pass(&mut encoder, settings.background);
            gpu_scene.draw(&mut pass, renderer, &frame, mode);
        }
        DrawPath::Crowd(p) => {
            let options = SceneOptions {
                instances: 1,
                path: p,
                tangents: false,
            };
            let pose = Pose::rest(scene);
            let mut crowd =
                SceneGpu::with_options(ctx, renderer, scene, &pose, &options).expect("crowd");
            assert_eq!(crowd.draw_count(), scene.meshes.len(), "{path:?}");
            crowd.update_crowd(ctx, scene, None, 0.0, &JointOverrides::new());
            crowd
                .encode_skinning(ctx, &mut encoder, renderer, SkinRun::new(mode, 0.0), None)
                .expect("compute pass");
            let mut pass = target.begin_pass(&mut encoder, settings.background);
            crowd.draw(&mut pass, renderer, &frame, mode);
        }
    }
    ctx.queue.submit([encoder.finish()]);
    target.read_rgba(ctx).expect("read back")
}

/// RGB of pixel (x, y).
fn pixel(img: &RgbaImage, x: u32, y: u32) -> [u8; 3] {
    let i = ((y * img.width + x) * 4) as usize;
    [img.pixels[i], img.pixels[i + 1], img.pixels[i + 2]]
}

/// The centre pixel (inside every quad).
fn centre(img: &RgbaImage) -> [u8; 3] {
    pixel(img, img.width / 2, img.height / 2)
}

/// A corner pixel (outside every quad: the background).
fn corner(img: &RgbaImage) -> [u8; 3] {
    pixel(img, 2, 2)
}

/// An sRGB-encoded byte as linear light in [0, 1] (the standard curve).
fn linear(c: u8) -> f64 {
    let c = f64::from(c) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Linear light in [0, 1] as an sRGB byte value (unrounded).
fn srgb(l: f64) -> f64 {
    let c = if l <= 0.003_130_8 {
        l * 12.92
    } else {
        1.055 * l.powf(1.0 / 2.4) - 0.055
    };
    c * 255.0
}

/// Loads a skinned document.
fn load(doc: &GltfDoc) -> Scene {
    load_gltf_slice(doc.gltf(true).as_bytes(), None, "test").expect("loads")
}

/// One quad at z = 0 with float RGBA vertex colour `rgba` (none when `None`) and `material` JSON.
fn one_quad(rgba: Option<[f32; 4]>, material: Option<serde_json::Value>) -> Scene {
    let mut doc = GltfDoc::default();
    let color = rgba.map(|c| doc.quad_colors(c));
    let material = material.map(|m| doc.material(m));
    doc.quad(0.0, color, material);
    load(&doc)
}

#[test]
fn vertex_colors_multiply_the_base_color_in_every_path() {
    let Some(gpu) = gpu("vertex_colors_multiply_the_base_color_in_every_path") else {
        return;
    };
    // Red as normalised bytes, the common exporter form.
    let mut doc = GltfDoc::default();
    let red = doc.u8s_normalized(&[255, 0, 0, 255].repeat(4), "VEC4", 4);
    doc.quad(0.0, Some(red), None);
    let red = load(&doc);
    let plain = one_quad(None, None);
    let yellow = one_quad(Some([1.0, 1.0, 0.0, 1.0]), None);
    let half_green = one_quad(
        Some([1.0, 1.0, 0.0, 1.0]),
        Some(json!({"pbrMetallicRoughness": {"baseColorFactor": [1.0, 0.5, 1.0, 1.0]}})),
    );
    for path in PATHS {
        let r = centre(&render(gpu, &red, path));
        assert!(
            r[0] > 60 && r[1] <= 1 && r[2] <= 1,
            "{path:?}: red quad is {r:?}"
        );
        let w = centre(&render(gpu, &plain, path));
        assert!(w[1] > 30 && w[2] > 30, "{path:?}: uncoloured quad is {w:?}");
        assert!(
            r[0].abs_diff(w[0]) <= 1,
            "{path:?}: red {r:?} vs white {w:?}"
        );
        let y = centre(&render(gpu, &yellow, path));
        let h = centre(&render(gpu, &half_green, path));
        assert!(y[2] <= 1 && h[2] <= 1, "{path:?}: {y:?} {h:?}");
        let ratio = linear(h[1]) / linear(y[1]);
        assert!(
            (ratio - 0.5).abs() < 0.03,
            "{path:?}: green {y:?} -> {h:?} is x{ratio}"
        );
        assert!(
            h[0].abs_diff(y[0]) <= 1,
            "{path:?}: red unchanged {y:?} {h:?}"
        );
    }
}

#[test]
fn alpha_mask_discards_below_the_cutoff_in_every_path() {
    let Some(gpu) = gpu("alpha_mask_discards_below_the_cutoff_in_every_path") else {
        return;
    };
    let mask = || Some(json!({"alphaMode": "MASK", "alphaCutoff": 0.5}));
    let faint = one_quad(Some([1.0, 1.0, 1.0, 0.2]), mask());
    let solid = one_quad(Some([1.0, 1.0, 1.0, 0.8]), mask());
    let opaque = one_quad(Some([1.0, 1.0, 1.0, 0.2]), Some(json!({})));
    for path in PATHS {
        let faint = render(gpu, &faint, path);
        assert_eq!(
            centre(&faint),
            corner(&faint),
            "{path:?}: alpha 0.2 is cut out"
        );
        let solid = render(gpu, &solid, path);
        let drawn = centre(&solid);
        assert_ne!(drawn, corner(&solid), "{path:?}: alpha 0.8 is drawn");
        // OPAQUE ignores the alpha of 0.2; the kept MASK fragment is just as opaque.
        let opaque = centre(&render(gpu, &opaque, path));
        assert!(
            drawn.iter().zip(opaque).all(|(a, b)| a.abs_diff(b) <= 1),
            "{path:?}: mask {drawn:?} vs opaque {opaque:?}"
        );
    }
}

#[test]
fn alpha_blend_mixes_with_the_quad_behind_in_every_path() {
    let Some(gpu) = gpu("alpha_blend_mixes_with_the_quad_behind_in_every_path") else {
        return;
    };
    // The blended red quad (vertex alpha 0.5, in front) is listed before the blue one behind it:
    // drawn in scene order without depth writes it would be painted over.
    let scene = |front: Option<serde_json::Value>, back: bool| {
        let mut doc = GltfDoc::default();
        if let Some(material) = front {
            let c = doc.quad_colors([1.0, 0.0, 0.0, 0.5]);
            let m = doc.material(material);
            doc.quad(0.5, Some(c), Some(m));
        }
        if back {
            let c = doc.quad_colors([0.0, 0.0, 1.0, 1.0]);
            doc.quad(0.0, Some(c), None);
        }
        load(&doc)
    };
    let blended = scene(Some(json!({"alphaMode": "BLEND"})), true);
    let front_alone = scene(Some(json!({})), false);
    let back_alone = scene(None, true);
    for path in PATHS {
        let mix = centre(&render(gpu, &blended, path));
        let front = centre(&render(gpu, &front_alone, path));
        let back = centre(&render(gpu, &back_alone, path));
        assert!(
            front[0] > 60 && back[2] > 60,
            "{path:?}: {front:?} {back:?}"
        );
        for k in 0..3 {
            let expected = srgb(0.5 * linear(front[k]) + 0.5 * linear(back[k]));
            assert!(
                (f64::from(mix[k]) - expected).abs() <= 3.0,
                "{path:?}: channel {k} is {} for {expected:.1} ({front:?} over {back:?} gave {mix:?})",
                mix[k]
            );
        }
        assert!(mix[0] < front[0] && mix[0] > back[0], "{path:?}: {mix:?}");
        assert!(mix[2] < back[2] && mix[2] > front[2], "{path:?}: {mix:?}");
    }
}
