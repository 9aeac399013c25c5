//! The one GPU core: the paths that used to diverge now give the same mesh and colours.
//!
//! Each test was written against the six separate paths first and failed there (the
//! closing note of issue 15 says how); they pass because every draw, crowd, readback
//! and wire now reads one geometry through one vertex shader or compute entry.
//! Without an adapter these tests print `SKIPPED` and pass, unless `DQVIEW_REQUIRE_GPU=1`.

mod support;

use support::{Gpu, gpu};

use dqview::anim::{JointOverrides, Pose};
use dqview::model::load_model;
use dqview::render::{
    Camera, DebugView, FrameBinding, GpuSkinning, OffscreenTarget, RgbaImage, SceneGpu,
    SceneOptions, SkinPath, SkinRun, ViewParams, skin_scene_gpu,
};
use dqview::scene::{MorphTarget, Scene};
use dqview::skin::{
    CorOptions, CorProgress, JointPalette, MorphedVertices, SceneBetas, SceneCenters, SkinMesh,
    SkinnedVertices, SkinningMode, morph_vertices, rest_bounds, skin_scene_cor, skin_vertices_cor,
};
use glam::{Vec3, Vec4};

/// `builtin:twist` with one morph target at weight 1 that moves the upper half by `shift`.
fn twist_with_morph(shift: Vec3) -> Scene {
    let mut scene = load_model("builtin:twist").expect("builtin");
    let mesh = &mut scene.meshes[0];
    let prim = &mut mesh.primitives[0];
    let deltas = prim
        .positions
        .iter()
        .map(|p| if p.y > 1.0 { shift } else { Vec3::ZERO })
        .collect();
    prim.morph_targets.push(MorphTarget {
        name: "shift".into(),
        positions: deltas,
        ..MorphTarget::default()
    });
    mesh.morph_weights = vec![1.0];
    scene
}

/// `scene`'s rest pose with joint `tip` twisted `twist_deg` and bent `bend_deg`.
fn posed(scene: &Scene, twist_deg: f32, bend_deg: f32) -> Pose {
    let tip = dqview::anim::find_node(scene, "tip").expect("tip");
    let mut overrides = JointOverrides::new();
    let mut angles = overrides.get(tip);
    angles.twist_deg = twist_deg;
    angles.bend_deg = bend_deg;
    overrides.set(tip, angles);
    let mut pose = Pose::rest(scene);
    pose.sample(scene, None, 0.0, &overrides);
    pose
}

/// How a test image is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Draw {
    /// Shaded (or debug) triangles.
    Mesh,
    /// Edges only, on top of nothing.
    Wire,
    /// The triangles in this many slices, each in a pass that keeps the last one's colour and depth.
    Slices(usize),
    /// Slice `k` of `n` alone.
    Slice(usize, usize),
}

/// Renders `gpu_scene` in `mode` with `params` from a camera framing `bounds`; on the compute
/// path the compute pass skins first (in `mode`), and the draw reads its output.
fn render(
    gpu: &Gpu,
    gpu_scene: &SceneGpu,
    mode: SkinningMode,
    params: &ViewParams,
    bounds: (Vec3, Vec3),
    draw: Draw,
) -> RgbaImage {
    let (ctx, renderer) = (&gpu.ctx, &gpu.renderer);
    let settings = renderer.settings();
    let aspect = settings.width as f32 / settings.height as f32;
    let camera = Camera::framing(bounds.0, bounds.1, Vec3::new(0.3, 0.2, 1.0), aspect);
    let frame = FrameBinding::new(ctx, renderer).expect("frame");
    let uniforms = settings.to_gpu_view(&camera, params);
    let uniforms = match draw {
        Draw::Mesh | Draw::Slices(_) | Draw::Slice(..) => uniforms,
        Draw::Wire => uniforms.with_wire(Vec4::ONE),
    };
    frame.write(&ctx.queue, &uniforms);
    let target = OffscreenTarget::new(ctx, renderer).expect("target");
    let mut encoder = ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
    let run = SkinRun {
        mode,
        beta: params.beta,
        bulge: params.bulge,
    };
    gpu_scene
        .encode_skinning(ctx, &mut encoder, renderer, run, None)
        .expect("compute pass");
    if let Draw::Slices(n) = draw {
        for k in 0..n {
            let mut pass = if k == 0 {
                target.begin_pass(&mut encoder, settings.background)
            } else {
                target.begin_pass_continued(&mut encoder)
            };
            gpu_scene.draw_slice(&mut pass, renderer, &frame, mode, (k, n));
        }
    } else {
        let mut pass = target.begin_pass(&mut encoder, settings.background);
        match draw {
            Draw::Wire => gpu_scene.draw_wire(&mut pass, renderer, &frame, mode, true),
            Draw::Slice(k, n) => gpu_scene.draw_slice(&mut pass, renderer, &frame, mode, (k, n)),
            _ => gpu_scene.draw(&mut pass, renderer, &frame, mode),
        }
    }
    ctx.queue.submit([encoder.finish()]);
    target.read_rgba(ctx).expect("read back")
}

/// Uploads `scene` at `pose` for `path` (one instance).
fn upload(gpu: &Gpu, scene: &Scene, pose: &Pose, path: SkinPath) -> SceneGpu {
    let options = SceneOptions {
        instances: 1,
        path,
        tangents: false,
    };
    SceneGpu::with_options(&gpu.ctx, &gpu.renderer, scene, pose, &options).expect("upload")
}

/// Writes `img` to Cargo's test temp folder as `name.png`, for a look.
fn save(img: &RgbaImage, name: &str) {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.png"));
    let rgba = image::ExtendedColorType::Rgba8;
    image::save_buffer(&path, &img.pixels, img.width, img.height, rgba)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// Pixels that differ from the background (the corner pixel) by more than 12 in some channel.
fn mask(img: &RgbaImage) -> Vec<bool> {
    let bg = [img.pixels[0], img.pixels[1], img.pixels[2]];
    img.pixels
        .chunks_exact(4)
        .map(|p| (0..3).any(|k| p[k].abs_diff(bg[k]) > 12))
        .collect()
}

/// Pixels whose colour differs by more than `tolerance` in some channel.
fn differing(a: &RgbaImage, b: &RgbaImage, tolerance: u8) -> usize {
    a.pixels
        .chunks_exact(4)
        .zip(b.pixels.chunks_exact(4))
        .filter(|(x, y)| x.iter().zip(*y).any(|(p, q)| p.abs_diff(*q) > tolerance))
        .count()
}

/// The share of `wire` pixels that lie on (or within `grow` pixels of) the shaded mesh.
fn wire_on_mesh(wire: &RgbaImage, shaded: &RgbaImage, grow: i32) -> f32 {
    let (w, h) = (wire.width as i32, wire.height as i32);
    let mesh = mask(shaded);
    let on_mesh = |x: i32, y: i32| {
        (-grow..=grow).any(|dy| {
            (-grow..=grow).any(|dx| {
                let (px, py) = (x + dx, y + dy);
                px >= 0 && py >= 0 && px < w && py < h && mesh[(py * w + px) as usize]
            })
        })
    };
    let edges = mask(wire);
    let (mut total, mut inside) = (0, 0);
    for y in 0..h {
        for x in 0..w {
            if edges[(y * w + x) as usize] {
                total += 1;
                inside += usize::from(on_mesh(x, y));
            }
        }
    }
    assert!(total > 200, "the wire drew only {total} pixels");
    inside as f32 / total as f32
}

/// The mesh's rest bounds joined with the posed CPU mesh's (morphs can move it out).
fn framing(scene: &Scene, posed: &[dqview::skin::PosedPrimitive]) -> (Vec3, Vec3) {
    let (mut lo, mut hi) = rest_bounds(scene).expect("vertices");
    if let Some((a, b)) = dqview::skin::bounds(posed) {
        (lo, hi) = (lo.min(a), hi.max(b));
    }
    (lo - Vec3::splat(0.1), hi + Vec3::splat(0.1))
}

#[test]
fn cor_follows_morph_targets_in_export_gpu_export_and_the_viewer() {
    let Some(gpu) = gpu("cor_follows_morph_targets_in_export_gpu_export_and_the_viewer") else {
        return;
    };
    let scene = twist_with_morph(Vec3::new(0.3, 0.0, 0.0));
    let pose = posed(&scene, 120.0, 0.0);
    let centers =
        SceneCenters::compute(&scene, &CorOptions::default(), &CorProgress::new()).expect("CoR");
    // Independently: morph the bind pose, then rotate every vertex about its center.
    let prim = &scene.meshes[0].primitives[0];
    let mut morphed = MorphedVertices::default();
    let node = scene
        .nodes
        .iter()
        .position(|n| n.mesh.is_some())
        .expect("mesh node");
    let weights = pose.morph_weights_of(node).to_vec();
    assert_eq!(weights, [1.0], "the mesh node carries the default weight");
    morph_vertices(
        &prim.positions,
        &prim.normals,
        &[],
        &prim.morph_targets,
        &weights,
        &mut morphed,
    );
    let influences = prim.influences.as_ref().expect("skinned");
    let mut matrices = Vec::new();
    pose.skinning_matrices(&scene, 0, &mut matrices);
    let palette = JointPalette::from_matrices(&matrices);
    let mesh = SkinMesh {
        positions: &morphed.positions,
        normals: &morphed.normals,
        tangents: &[],
        influences,
    };
    let mut expected = SkinnedVertices::default();
    skin_vertices_cor(&palette, &mesh, centers.of(0, 0), &mut expected);
    let unmorphed_mesh = SkinMesh {
        positions: &prim.positions,
        ..mesh
    };
    let mut unmorphed = SkinnedVertices::default();
    skin_vertices_cor(&palette, &unmorphed_mesh, centers.of(0, 0), &mut unmorphed);
    let moved = expected
        .positions
        .iter()
        .zip(&unmorphed.positions)
        .map(|(a, b)| a.distance(*b))
        .fold(0.0f32, f32::max);
    assert!(moved > 0.25, "the morph moves the posed mesh ({moved})");

    let cpu = skin_scene_cor(&scene, &pose, &centers);
    let skinning = GpuSkinning {
        cor_centers: Some(&centers),
        ..GpuSkinning::new(SkinRun::new(SkinningMode::Cor, 1.0))
    };
    let on_gpu = skin_scene_gpu(&gpu.ctx, &gpu.renderer, &scene, &pose, &skinning).expect("GPU");
    for (what, got, tolerance) in [("export", &cpu, 1e-6), ("export --gpu", &on_gpu, 1e-5)] {
        let worst = got[0]
            .vertices
            .positions
            .iter()
            .zip(&expected.positions)
            .map(|(a, b)| a.distance(*b))
            .fold(0.0f32, f32::max);
        assert!(
            worst < tolerance * 2.5,
            "{what}: CoR misses the morph by {worst}"
        );
    }

    // The viewer's CoR (vertex shader) against the export drawn as a static mesh.
    let mut viewer_scene = upload(gpu, &scene, &pose, SkinPath::Vertex);
    viewer_scene.set_cor_centers(&gpu.ctx, &gpu.renderer, &centers);
    let bounds = framing(&scene, &cpu);
    let params = ViewParams::shaded(1.0);
    let viewer = render(
        gpu,
        &viewer_scene,
        SkinningMode::Cor,
        &params,
        bounds,
        Draw::Mesh,
    );
    let exported = support::static_scene(prim, &cpu[0].vertices);
    let export_gpu = upload(gpu, &exported, &Pose::rest(&exported), SkinPath::Vertex);
    let export = render(
        gpu,
        &export_gpu,
        SkinningMode::Lbs,
        &params,
        bounds,
        Draw::Mesh,
    );
    let total = (viewer.width * viewer.height) as usize;
    let differ = differing(&viewer, &export, 10);
    assert!(
        differ * 200 < total,
        "viewer and export CoR meshes differ in {differ} of {total} pixels"
    );
}

#[test]
fn debug_views_match_on_the_plain_model_a_compute_crowd_and_compensated_dqs() {
    let Some(gpu) = gpu("debug_views_match_on_the_plain_model_a_compute_crowd_and_compensated_dqs")
    else {
        return;
    };
    let scene = load_model("builtin:twist").expect("builtin");
    // A pure twist: compensation moves no vertex, so the three meshes coincide.
    let pose = posed(&scene, 90.0, 0.0);
    let tip = dqview::anim::find_node(&scene, "tip").expect("tip");
    let mut overrides = JointOverrides::new();
    overrides.set(
        tip,
        dqview::anim::JointAngles {
            twist_deg: 90.0,
            ..Default::default()
        },
    );
    let betas = SceneBetas::defaults(&scene, None, &overrides);
    let mut plain = upload(gpu, &scene, &pose, SkinPath::Vertex);
    let mut crowd = upload(gpu, &scene, &pose, SkinPath::Compute);
    plain.set_betas(&gpu.ctx, &gpu.renderer, &betas);
    crowd.set_betas(&gpu.ctx, &gpu.renderer, &betas);
    let bounds = rest_bounds(&scene).expect("vertices");
    let diagonal = (bounds.1 - bounds.0).length();
    for view in DebugView::ALL
        .into_iter()
        .filter(|v| *v != DebugView::Shaded)
    {
        let params = ViewParams {
            view,
            diagonal,
            selected_joint: 1,
            ..ViewParams::shaded(0.7)
        };
        let compensated = ViewParams {
            bulge: 1.0,
            ..params
        };
        let mode = SkinningMode::Dqs;
        let reference = render(gpu, &plain, mode, &params, bounds, Draw::Mesh);
        let colours: std::collections::BTreeSet<[u8; 3]> = reference
            .pixels
            .chunks_exact(4)
            .zip(mask(&reference))
            .filter(|(_, m)| *m)
            .map(|(p, _)| [p[0] / 16, p[1] / 16, p[2] / 16])
            .collect();
        assert!(colours.len() >= 2, "{view:?}: the view is one flat colour");
        save(&reference, &format!("one_core_debug_{}", view.name()));
        let total = (reference.width * reference.height) as usize;
        for (what, img) in [
            (
                "compute crowd",
                render(gpu, &crowd, mode, &params, bounds, Draw::Mesh),
            ),
            (
                "compensated DQS",
                render(gpu, &plain, mode, &compensated, bounds, Draw::Mesh),
            ),
        ] {
            let differ = differing(&reference, &img, 8);
            assert!(
                differ * 200 < total,
                "{view:?}: {what} differs from the plain model in {differ} of {total} pixels"
            );
        }
    }
}

#[test]
fn wire_and_ghost_follow_morphs_betas_and_cor() {
    let Some(gpu) = gpu("wire_and_ghost_follow_morphs_betas_and_cor") else {
        return;
    };
    // Morphs: the upper half moved sideways by most of the tube's width.
    let morphed = twist_with_morph(Vec3::new(0.4, 0.0, 0.0));
    let pose = posed(&morphed, 30.0, 0.0);
    let mut cases = vec![("morph", morphed, pose, SkinningMode::Dqs, None, None)];
    // Per-vertex betas: all LBS at a 180-degree twist (the middle collapses), beta scale 1.
    let twist = load_model("builtin:twist").expect("builtin");
    let zeros = SceneBetas {
        per_primitive: vec![vec![vec![
            0.0;
            twist.meshes[0].primitives[0].positions.len()
        ]]],
    };
    let pose = posed(&twist, 180.0, 0.0);
    cases.push((
        "betas",
        twist.clone(),
        pose,
        SkinningMode::Hybrid,
        Some(zeros),
        None,
    ));
    // CoR: centers far off the tube, so CoR is far from DQS.
    let far = SceneCenters {
        per_primitive: vec![vec![vec![
            Vec3::new(1.5, 1.0, 0.0);
            twist.meshes[0].primitives[0].positions.len()
        ]]],
    };
    let pose = posed(&twist, 90.0, 40.0);
    cases.push(("cor", twist, pose, SkinningMode::Cor, None, Some(far)));
    for (what, scene, pose, mode, betas, centers) in cases {
        let mut gpu_scene = upload(gpu, &scene, &pose, SkinPath::Vertex);
        gpu_scene.make_edges(&gpu.ctx, &scene);
        if let Some(b) = &betas {
            gpu_scene.set_betas(&gpu.ctx, &gpu.renderer, b);
        }
        if let Some(c) = &centers {
            gpu_scene.set_cor_centers(&gpu.ctx, &gpu.renderer, c);
        }
        let cpu = support::cpu_posed(&scene, &pose, mode, betas.as_ref(), centers.as_ref());
        let bounds = framing(&scene, &cpu);
        let params = ViewParams::shaded(1.0);
        let shaded = render(gpu, &gpu_scene, mode, &params, bounds, Draw::Mesh);
        let wire = render(gpu, &gpu_scene, mode, &params, bounds, Draw::Wire);
        save(&shaded, &format!("one_core_{what}_shaded"));
        save(&wire, &format!("one_core_{what}_wire"));
        let share = wire_on_mesh(&wire, &shaded, 1);
        assert!(
            share > 0.98,
            "{what}: only {share} of the wire lies on the mesh"
        );
    }
}

#[test]
fn bulge_compensation_in_wgsl_matches_the_cpu() {
    let Some(gpu) = gpu("bulge_compensation_in_wgsl_matches_the_cpu") else {
        return;
    };
    for (name, joint, bend_deg) in [("elbow", "lower", 80.0), ("arm", "elbow", 100.0)] {
        let scene = load_model(&format!("builtin:{name}")).expect("builtin");
        let node = dqview::anim::find_node(&scene, joint).expect("joint");
        let mut overrides = JointOverrides::new();
        let angles = dqview::anim::JointAngles {
            bend_deg,
            ..Default::default()
        };
        overrides.set(node, angles);
        let mut pose = Pose::rest(&scene);
        pose.sample(&scene, None, 0.0, &overrides);
        let (lo, hi) = rest_bounds(&scene).expect("vertices");
        let diagonal = (hi - lo).length();
        let plain = dqview::skin::skin_scene(
            &scene,
            &pose,
            SkinningMode::Dqs,
            dqview::skin::Betas::Uniform(1.0),
        );
        for amount in [0.5, 1.0] {
            let cpu = dqview::skin::skin_scene_dqs_compensated(&scene, &pose, amount);
            let run = SkinRun {
                bulge: amount,
                ..SkinRun::new(SkinningMode::Dqs, 1.0)
            };
            let skinning = GpuSkinning::new(run);
            let on_gpu =
                skin_scene_gpu(&gpu.ctx, &gpu.renderer, &scene, &pose, &skinning).expect("GPU");
            let worst = support::assert_posed_match(&format!("{name} {amount}"), &cpu, &on_gpu);
            let moved = cpu[0]
                .vertices
                .positions
                .iter()
                .zip(&plain[0].vertices.positions)
                .map(|(a, b)| a.distance(*b))
                .fold(0.0f32, f32::max);
            assert!(
                moved > 0.002 * diagonal,
                "{name}: compensation {amount} moves the bulge ({moved})"
            );
            assert!(worst < 1e-5, "{name} {amount}: {worst}");
        }
    }
}

#[test]
fn a_frame_drawn_in_slices_is_the_frame_drawn_at_once() {
    // `bench` draws a frame in slices on software adapters; the picture must not change.
    let Some(gpu) = gpu("a_frame_drawn_in_slices_is_the_frame_drawn_at_once") else {
        return;
    };
    let scene = load_model("builtin:arm").expect("builtin");
    let pose = Pose::rest(&scene);
    let gpu_scene = upload(gpu, &scene, &pose, SkinPath::Vertex);
    let bounds = rest_bounds(&scene).expect("bounds");
    let params = ViewParams::shaded(0.5);
    let whole = render(
        gpu,
        &gpu_scene,
        SkinningMode::Dqs,
        &params,
        bounds,
        Draw::Mesh,
    );
    let covered = mask(&whole).iter().filter(|&&m| m).count();
    assert!(covered > 1000, "the arm covers {covered} pixels");
    for n in [2, 7] {
        let sliced = render(
            gpu,
            &gpu_scene,
            SkinningMode::Dqs,
            &params,
            bounds,
            Draw::Slices(n),
        );
        assert_eq!(differing(&whole, &sliced, 0), 0, "{n} slices");
    }
    // Each half alone draws part of the arm: the slices really split the triangles.
    for k in 0..2 {
        let half = render(
            gpu,
            &gpu_scene,
            SkinningMode::Dqs,
            &params,
            bounds,
            Draw::Slice(k, 2),
        );
        let part = mask(&half).iter().filter(|&&m| m).count();
        assert!(
            part > 100 && part < covered * 9 / 10,
            "half {k}: {part} of {covered} pixels"
        );
    }
}
