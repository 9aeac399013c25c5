//! Offscreen rendering with vertex-shader skinning (LBS, DQS, hybrid pipelines).
//!
//! Needs a GPU adapter (lavapipe is enough). Without one every test prints
//! `SKIPPED` and passes, unless `DQVIEW_REQUIRE_GPU=1`, which makes it fail.
//! Images are written to Cargo's test temp folder for a look.

mod support;

use support::{Gpu, gpu};

use dqview::influences::Influences;
use dqview::render::{
    Camera, GeometrySource, PaletteBinding, RenderSettings, RgbaImage, SceneGpu, SceneOptions,
    View, ViewParams,
};
use dqview::skin::{Betas, JointPalette, SkinMesh, SkinnedVertices, SkinningMode, skin_vertices};
use glam::{Mat4, Vec3};

/// A closed-ring tube along +X (x in 0..2, radius 0.25) with a triangle list; joints `a` and `b`.
struct Tube {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    influences: Influences,
    indices: Vec<u32>,
}

fn tube(a: u16, b: u16) -> Tube {
    let (segments, rings) = (32u32, 41u32);
    let mut t = Tube {
        positions: Vec::new(),
        normals: Vec::new(),
        influences: Influences::default(),
        indices: Vec::new(),
    };
    let mut rows = Vec::new();
    for r in 0..rings {
        let x = 2.0 * r as f32 / (rings - 1) as f32;
        let w = (x - 0.5).clamp(0.0, 1.0);
        for k in 0..segments {
            let angle = std::f32::consts::TAU * k as f32 / segments as f32;
            let n = Vec3::new(0.0, angle.cos(), angle.sin());
            t.positions.push(Vec3::X * x + n * 0.25);
            t.normals.push(n);
            rows.push(vec![(a, 1.0 - w), (b, w)]);
        }
    }
    for r in 0..rings - 1 {
        for k in 0..segments {
            let i = r * segments + k;
            let j = r * segments + (k + 1) % segments;
            t.indices
                .extend_from_slice(&[i, j, i + segments, j, j + segments, i + segments]);
        }
    }
    t.influences = Influences::from_rows(rows);
    t
}

impl Tube {
    fn view(&self) -> SkinMesh<'_> {
        SkinMesh {
            positions: &self.positions,
            normals: &self.normals,
            tangents: &[],
            influences: &self.influences,
        }
    }
}

fn camera() -> Camera {
    let s = RenderSettings::TESTING;
    Camera::framing(
        Vec3::new(0.0, -0.25, -0.25),
        Vec3::new(2.0, 0.25, 0.25),
        Vec3::new(0.2, 0.6, 1.0),
        s.width as f32 / s.height as f32,
    )
}

/// Joint 1 twisted `degrees` about +X.
fn twist(degrees: f32) -> Mat4 {
    Mat4::from_rotation_x(degrees.to_radians())
}

fn render(gpu: &Gpu, palette: &JointPalette, tube: &Tube, mode: SkinningMode) -> RgbaImage {
    let source = GeometrySource {
        positions: &tube.positions,
        normals: &tube.normals,
        influences: Some(&tube.influences),
        indices: &tube.indices,
        ..GeometrySource::default()
    };
    let scene = SceneGpu::from_mesh(
        &gpu.ctx,
        &gpu.renderer,
        &source,
        palette,
        &SceneOptions::default(),
    )
    .unwrap_or_else(|e| panic!("upload: {e}"));
    let s = gpu.renderer.settings();
    let view = View {
        x: 0,
        y: 0,
        width: s.width,
        height: s.height,
        camera: camera(),
        mode,
        params: ViewParams::shaded(0.3),
    };
    gpu.renderer
        .render_views(&gpu.ctx, &scene, &[view])
        .unwrap_or_else(|e| panic!("render: {e}"))
}

fn save(image: &RgbaImage, name: &str) {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.png"));
    image::save_buffer(
        &path,
        &image.pixels,
        image.width,
        image.height,
        image::ExtendedColorType::Rgba8,
    )
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// Pixels that differ from the background.
fn covered(image: &RgbaImage) -> usize {
    let bg = &image.pixels[..4];
    image.pixels.chunks(4).filter(|p| p != &bg).count()
}

/// (largest channel difference, pixels differing by more than `threshold`).
fn difference(a: &RgbaImage, b: &RgbaImage, threshold: u8) -> (u8, usize) {
    assert_eq!((a.width, a.height), (b.width, b.height));
    a.pixels
        .chunks(4)
        .zip(b.pixels.chunks(4))
        .fold((0, 0), |(max, count), (p, q)| {
            let d = p
                .iter()
                .zip(q)
                .map(|(x, y)| x.abs_diff(*y))
                .max()
                .unwrap_or(0);
            (max.max(d), count + usize::from(d > threshold))
        })
}

#[test]
fn every_mode_renders_deterministically() {
    let Some(gpu) = gpu("every_mode_renders_deterministically") else {
        return;
    };
    let tube = tube(0, 1);
    let palette = JointPalette::from_matrices(&[Mat4::IDENTITY, twist(180.0)]);
    let mut images = Vec::new();
    for mode in dqview::skin::SkinningMode::ALL {
        let image = render(gpu, &palette, &tube, mode);
        assert_eq!(
            image.pixels.len(),
            (image.width * image.height * 4) as usize
        );
        let coverage = covered(&image);
        println!("{mode}: {coverage} covered pixels");
        assert!(coverage > 2000, "{mode}: only {coverage} pixels drawn");
        assert_eq!(
            render(gpu, &palette, &tube, mode),
            image,
            "{mode} not deterministic"
        );
        save(&image, &format!("twist180_{mode}"));
        images.push(image);
    }
    // The candy wrapper: LBS pinches at 180 degrees, DQS does not.
    let (_, differing) = difference(&images[0], &images[1], 8);
    assert!(
        differing > 500,
        "LBS and DQS look alike ({differing} pixels differ)"
    );
}

/// Vertex-shader skinning draws what the CPU reference skins: the same image as
/// drawing the CPU-skinned mesh with an identity palette.
#[test]
fn vertex_skinning_matches_cpu_skinned_mesh() {
    let Some(gpu) = gpu("vertex_skinning_matches_cpu_skinned_mesh") else {
        return;
    };
    let tube = tube(0, 1);
    let bend = Mat4::from_translation(Vec3::X)
        * Mat4::from_rotation_z(0.6)
        * twist(120.0)
        * Mat4::from_translation(-Vec3::X);
    let palette = JointPalette::from_matrices(&[Mat4::IDENTITY, bend]);
    let identity = JointPalette::from_matrices(&[Mat4::IDENTITY]);
    for mode in dqview::skin::SkinningMode::ALL {
        let mut cpu = SkinnedVertices::default();
        skin_vertices(&palette, &tube.view(), mode, Betas::Uniform(0.3), &mut cpu);
        let posed = Tube {
            positions: cpu.positions,
            normals: cpu.normals,
            influences: Influences::from_rows((0..tube.positions.len()).map(|_| [(0u16, 1.0)])),
            indices: tube.indices.clone(),
        };
        let reference = render(gpu, &identity, &posed, SkinningMode::Lbs);
        let image = render(gpu, &palette, &tube, mode);
        let (max, differing) = difference(&image, &reference, 2);
        println!("{mode}: max channel difference {max}, {differing} pixels differ by more than 2");
        assert!(
            differing <= 20,
            "{mode}: {differing} pixels differ (max {max})"
        );
    }
}

/// A 3000-joint skin takes the storage palette pipelines and draws the same image.
#[test]
fn storage_palette_renders_like_uniform_palette() {
    let Some(gpu) = gpu("storage_palette_renders_like_uniform_palette") else {
        return;
    };
    let small = JointPalette::from_matrices(&[Mat4::IDENTITY, twist(90.0)]);
    let mut matrices = vec![Mat4::from_translation(Vec3::splat(9.0)); 3000];
    matrices[2500] = Mat4::IDENTITY;
    matrices[2999] = twist(90.0);
    let big = JointPalette::from_matrices(&matrices);
    assert_eq!(
        PaletteBinding::for_joint_count(big.len()),
        PaletteBinding::Storage
    );
    for mode in dqview::skin::SkinningMode::ALL {
        let a = render(gpu, &small, &tube(0, 1), mode);
        let b = render(gpu, &big, &tube(2500, 2999), mode);
        assert_eq!(a, b, "{mode}");
    }
}
