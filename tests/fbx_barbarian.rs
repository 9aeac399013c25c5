//! The Blender barbarian: a real textured character loads, inspects and renders.

mod support;

use dqview::anim::{JointOverrides, Pose, clip_duration_s};
use dqview::model::load_model;
use dqview::render::{SceneGpu, View, ViewParams};
use dqview::skin::{SkinningMode, rest_bounds};

const FILE: &str = "blender_293_barbarian_7400_binary.fbx";

#[test]
fn barbarian_loads_with_skin_texture_and_units() {
    let Some(dir) = support::data_dir("DQVIEW_FBX", "barbarian_loads_with_skin_texture_and_units")
    else {
        return;
    };
    let path = dir.join(FILE);
    let scene = load_model(path.to_str().expect("utf-8")).expect("barbarian loads");
    assert!(!scene.skins.is_empty(), "barbarian has a skin");
    assert!(scene.skins.iter().all(|s| s.joints.len() > 1));
    let skinned = scene
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .filter(|p| p.influences.is_some())
        .count();
    assert!(skinned > 0, "barbarian has skinned primitives");
    // The file embeds its images (body and hair); each is decoded once and used by a material.
    assert!(!scene.textures.is_empty(), "warnings: {:?}", scene.warnings);
    assert!(
        !scene.warnings.iter().any(|w| w.contains("texture")),
        "{:?}",
        scene.warnings
    );
    for (i, texture) in scene.textures.iter().enumerate() {
        assert!(texture.width > 0 && texture.height > 0);
        assert_eq!(
            texture.rgba8.len(),
            (texture.width * texture.height * 4) as usize
        );
        assert!(
            scene
                .materials
                .iter()
                .any(|m| m.base_color_texture == Some(i)),
            "a material uses texture {i}"
        );
    }
    assert!(scene.source_info.format.starts_with("FBX 7400"));
    assert!(scene.source_info.unit_meters > 0.0);
    let uvs = scene.meshes.iter().flat_map(|m| &m.primitives).all(|p| {
        p.uvs
            .as_ref()
            .is_some_and(|uv| uv.len() == p.positions.len())
    });
    assert!(uvs, "every primitive has one UV per vertex");
}

#[test]
fn barbarian_renders_offscreen() {
    let Some(dir) = support::data_dir("DQVIEW_FBX", "barbarian_renders_offscreen") else {
        return;
    };
    let Some(gpu) = support::gpu("barbarian_renders_offscreen") else {
        return;
    };
    let path = dir.join(FILE);
    let scene = load_model(path.to_str().expect("utf-8")).expect("barbarian loads");
    let mut pose = Pose::rest(&scene);
    if let Some(anim) = scene.animations.first() {
        pose.sample(
            &scene,
            Some(0),
            0.5 * clip_duration_s(anim),
            &JointOverrides::new(),
        );
    }
    let (min, max) = rest_bounds(&scene).expect("vertices");
    let mut scene_gpu = SceneGpu::new(&gpu.ctx, &gpu.renderer, &scene, &pose).expect("upload");
    scene_gpu.update(&gpu.ctx, &scene, &pose);
    let params = ViewParams {
        diagonal: (max - min).length(),
        ..ViewParams::shaded(0.5)
    };
    let (width, height) = (256, 256);
    let views = View::side_by_side(
        width,
        height,
        &[SkinningMode::Dqs],
        params,
        [min, max],
        dqview::cli::render::CAMERA_DIRECTION,
    );
    let image = gpu
        .renderer
        .render_views(&gpu.ctx, &scene_gpu, &views)
        .expect("render");
    let background = &image.pixels[..4];
    let covered: Vec<&[u8]> = image
        .pixels
        .chunks(4)
        .filter(|p| p != &background)
        .collect();
    let fraction = covered.len() as f32 / (width * height) as f32;
    // Framed to its bounds, the character fills a good part of the view whatever its units.
    assert!(fraction > 0.05, "only {fraction} of the image covered");
    let mut colours: Vec<&[u8]> = covered.clone();
    colours.sort_unstable();
    colours.dedup();
    assert!(
        colours.len() > 100,
        "only {} distinct colours",
        colours.len()
    );
}
