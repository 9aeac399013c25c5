//! Morph targets: AnimatedMorphCube's weights animate, in `skin_scene`, in `export`
//! (CPU and `--gpu`) and in the GPU compute pass.
//!
//! Expected positions are computed here independently of dqview's loader: the
//! base positions, target displacements, key times and key weights are read
//! with the gltf crate directly, the weights interpolated by hand and the node
//! transform applied with glam.

mod support;

use std::process::Command;

use dqview::anim::{JointOverrides, Pose};
use dqview::influences::Influences;
use dqview::scene::{MorphTarget, load_gltf_path};
use dqview::skin::{
    Betas, JointPalette, MorphedVertices, SkinMesh, SkinnedVertices, SkinningMode, morph_vertices,
    skin_scene, skin_vertices,
};
use glam::{Mat4, Quat, Vec3, Vec4};

/// A time between keys, where both targets have non-zero weights that differ.
const TIME_S: f32 = 1.9;

/// AnimatedMorphCube as the gltf crate reads it.
struct Reference {
    /// The mesh node's world matrix.
    world: Mat4,
    /// Base positions.
    base: Vec<Vec3>,
    /// Position displacements of each target.
    targets: Vec<Vec<Vec3>>,
    /// Key times and, per key, one weight per target.
    times: Vec<f32>,
    weights: Vec<Vec<f32>>,
}

fn reference(path: &std::path::Path) -> Reference {
    let (doc, buffers, _) = gltf::import(path).expect("gltf import");
    let node = doc.nodes().find(|n| n.mesh().is_some()).expect("mesh node");
    assert!(
        doc.nodes()
            .all(|n| n.children().all(|c| c.index() != node.index())),
        "the mesh node is a root, so its local matrix is its world matrix"
    );
    let world = Mat4::from_cols_array_2d(&node.transform().matrix());
    let prim = node
        .mesh()
        .expect("mesh")
        .primitives()
        .next()
        .expect("primitive");
    let reader = prim.reader(|b| Some(&buffers[b.index()]));
    let base: Vec<Vec3> = reader
        .read_positions()
        .expect("positions")
        .map(Vec3::from_array)
        .collect();
    let targets: Vec<Vec<Vec3>> = reader
        .read_morph_targets()
        .map(|(p, _, _)| p.expect("position deltas").map(Vec3::from_array).collect())
        .collect();
    let anim = doc.animations().next().expect("animation");
    let channel = anim.channels().next().expect("channel");
    assert_eq!(
        channel.target().property(),
        gltf::animation::Property::MorphTargetWeights
    );
    assert_eq!(
        channel.sampler().interpolation(),
        gltf::animation::Interpolation::Linear
    );
    let reader = channel.reader(|b| Some(&buffers[b.index()]));
    let times: Vec<f32> = reader.read_inputs().expect("times").collect();
    let flat: Vec<f32> = match reader.read_outputs().expect("outputs") {
        gltf::animation::util::ReadOutputs::MorphTargetWeights(w) => w.into_f32().collect(),
        _ => panic!("weights channel"),
    };
    let weights = flat.chunks(targets.len()).map(<[f32]>::to_vec).collect();
    Reference {
        world,
        base,
        targets,
        times,
        weights,
    }
}

impl Reference {
    /// Linear interpolation of the key weights at `t` (clamped to the keys).
    fn weights_at(&self, t: f32) -> Vec<f32> {
        let k = self.times.iter().rposition(|&x| x <= t).unwrap_or(0);
        if k + 1 >= self.times.len() {
            return self.weights[k].clone();
        }
        let s = (t - self.times[k]) / (self.times[k + 1] - self.times[k]);
        let (a, b) = (&self.weights[k], &self.weights[k + 1]);
        a.iter().zip(b).map(|(a, b)| a + (b - a) * s).collect()
    }

    /// World positions at `t`: the node's matrix times (base + sum of weighted displacements).
    fn positions_at(&self, t: f32) -> Vec<Vec3> {
        self.positions_with(&self.weights_at(t))
    }

    /// World positions with weights `w`.
    fn positions_with(&self, w: &[f32]) -> Vec<Vec3> {
        (0..self.base.len())
            .map(|v| {
                let mut p = self.base[v];
                for (target, wt) in self.targets.iter().zip(w) {
                    p += *wt * target[v];
                }
                self.world.transform_point3(p)
            })
            .collect()
    }
}

fn cube_path(test: &str) -> Option<std::path::PathBuf> {
    let dir = support::data_dir("DQVIEW_SAMPLES", test)?;
    Some(dir.join("extras/AnimatedMorphCube.glb"))
}

fn assert_positions_close(got: &[Vec3], expected: &[Vec3], tol: f32, what: &str) {
    assert_eq!(got.len(), expected.len(), "{what}: vertex count");
    let worst = got
        .iter()
        .zip(expected)
        .map(|(a, b)| a.distance(*b))
        .fold(0.0f32, f32::max);
    assert!(worst <= tol, "{what}: worst distance {worst} > {tol}");
}

#[test]
fn sampled_weights_morph_the_cube_at_a_chosen_time() {
    let Some(path) = cube_path("sampled_weights_morph_the_cube_at_a_chosen_time") else {
        return;
    };
    let r = reference(&path);
    let w = r.weights_at(TIME_S);
    // Both targets partly on, with different weights: a swapped or missing target shows.
    assert!(w.iter().all(|&x| x > 0.05 && x < 0.95), "weights {w:?}");
    assert!((w[0] - w[1]).abs() > 0.05, "weights {w:?}");
    let expected = r.positions_at(TIME_S);
    // The mesh's default weights are all 0 (checked by scene_samples): the plain cube.
    let rest = r.positions_with(&[0.0, 0.0]);
    // The displacement is large against the tolerance, so the test would catch a wrong morph.
    let moved = expected
        .iter()
        .zip(&rest)
        .map(|(a, b)| a.distance(*b))
        .fold(0.0f32, f32::max);
    assert!(moved > 0.1, "the morph moves vertices by {moved}");

    let scene = load_gltf_path(&path).expect("load");
    let mut pose = Pose::rest(&scene);
    pose.sample(&scene, Some(0), TIME_S, &JointOverrides::new());
    let node = scene
        .nodes
        .iter()
        .position(|n| n.mesh.is_some())
        .expect("mesh node");
    let got_w = pose.morph_weights_of(node);
    for (a, b) in got_w.iter().zip(&w) {
        assert!((a - b).abs() < 1e-6, "sampled weights {got_w:?} vs {w:?}");
    }
    for mode in SkinningMode::ALL {
        let posed = skin_scene(&scene, &pose, mode, Betas::Uniform(0.5));
        assert_eq!(posed.len(), 1);
        assert_positions_close(&posed[0].vertices.positions, &expected, 1e-5, mode.name());
    }
    // Rest pose: the mesh's default weights (all 0) leave the base cube.
    let rest_pose = Pose::rest(&scene);
    let posed = skin_scene(&scene, &rest_pose, SkinningMode::Dqs, Betas::Uniform(0.5));
    assert_positions_close(&posed[0].vertices.positions, &rest, 1e-5, "rest");
}

#[test]
fn hand_set_weights_replace_the_clip() {
    let Some(path) = cube_path("hand_set_weights_replace_the_clip") else {
        return;
    };
    let r = reference(&path);
    let scene = load_gltf_path(&path).expect("load");
    let node = scene
        .nodes
        .iter()
        .position(|n| n.mesh.is_some())
        .expect("mesh node");
    let mut overrides = JointOverrides::new();
    overrides.set_morph_weight(node, 1, 0.75);
    let mut pose = Pose::rest(&scene);
    pose.sample(&scene, Some(0), TIME_S, &overrides);
    let w = r.weights_at(TIME_S);
    assert_eq!(pose.morph_weights_of(node), &[w[0], 0.75][..]);
    let posed = skin_scene(&scene, &pose, SkinningMode::Lbs, Betas::Uniform(0.0));
    let expected: Vec<Vec3> = (0..r.base.len())
        .map(|v| {
            r.world
                .transform_point3(r.base[v] + w[0] * r.targets[0][v] + 0.75 * r.targets[1][v])
        })
        .collect();
    assert_positions_close(&posed[0].vertices.positions, &expected, 1e-5, "override");
}

fn export_obj(path: &std::path::Path, gpu: bool) -> Option<Vec<Vec3>> {
    let dir = tempdir();
    let out = dir.join(if gpu { "gpu.obj" } else { "cpu.obj" });
    let time = TIME_S.to_string();
    let mut args = vec![
        "export",
        path.to_str().expect("utf-8"),
        "--clip",
        "0",
        "--time",
        &time,
        "--out",
        out.to_str().expect("utf-8"),
    ];
    if gpu {
        args.push("--gpu");
    }
    let o = Command::new(env!("CARGO_BIN_EXE_dqview"))
        .args(&args)
        .output()
        .expect("run dqview");
    let stderr = String::from_utf8_lossy(&o.stderr);
    if gpu && !o.status.success() && stderr.contains("adapter") {
        let required = std::env::var("DQVIEW_REQUIRE_GPU").is_ok_and(|v| v == "1");
        assert!(!required, "export --gpu: {stderr}");
        eprintln!("SKIPPED export --gpu: {stderr}");
        return None;
    }
    assert!(o.status.success(), "export: {stderr}");
    let text = std::fs::read_to_string(&out).expect("read obj");
    let groups = support::obj_groups(&text);
    assert_eq!(groups.len(), 1);
    Some(groups.into_iter().next().map(|g| g.1).unwrap_or_default())
}

fn tempdir() -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "dqview-morph-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

#[test]
fn export_at_a_time_shows_the_morph() {
    let Some(path) = cube_path("export_at_a_time_shows_the_morph") else {
        return;
    };
    let expected = reference(&path).positions_at(TIME_S);
    let cpu = export_obj(&path, false).expect("cpu export");
    assert_positions_close(&cpu, &expected, 1e-5, "export");
    if let Some(gpu) = export_obj(&path, true) {
        assert_positions_close(&gpu, &expected, 1e-5, "export --gpu");
    }
}

/// The cube's targets on a two-joint skin: the compute pass morphs, then skins, like the CPU.
#[test]
fn compute_pass_morphs_before_skinning_like_the_cpu() {
    let Some(path) = cube_path("compute_pass_morphs_before_skinning_like_the_cpu") else {
        return;
    };
    let Some(gpu) = support::gpu("compute_pass_morphs_before_skinning_like_the_cpu") else {
        return;
    };
    let scene = load_gltf_path(&path).expect("load");
    let prim = &scene.meshes[0].primitives[0];
    // Weight by height: the bottom follows joint 0, the top joint 1, blended between.
    let (lo, hi) = prim
        .positions
        .iter()
        .fold((f32::MAX, f32::MIN), |(lo, hi), p| {
            (lo.min(p.y), hi.max(p.y))
        });
    let influences = Influences::from_rows(prim.positions.iter().map(|p| {
        let s = ((p.y - lo) / (hi - lo)).clamp(0.0, 1.0);
        [(0u16, 1.0 - s), (1u16, s)]
    }));
    let palette = JointPalette::from_matrices(&[
        Mat4::IDENTITY,
        Mat4::from_rotation_translation(Quat::from_rotation_x(1.2), Vec3::new(0.0, 0.3, 0.1))
            * Mat4::from_scale(Vec3::new(1.0, 1.3, 1.0)),
    ]);
    let targets: &[MorphTarget] = &prim.morph_targets;
    assert_eq!(targets.len(), 2);
    let tangents = prim.tangents.as_deref().unwrap_or(&[]);
    for weights in [[0.0, 0.0], [0.3, 0.7], [1.0, -0.5]] {
        let mut morphed = MorphedVertices::default();
        morph_vertices(
            &prim.positions,
            &prim.normals,
            tangents,
            targets,
            &weights,
            &mut morphed,
        );
        let mesh = SkinMesh {
            positions: &morphed.positions,
            normals: &morphed.normals,
            tangents: &morphed.tangents,
            influences: &influences,
        };
        let bind = SkinMesh {
            positions: &prim.positions,
            normals: &prim.normals,
            tangents,
            influences: &influences,
        };
        for mode in dqview::skin::SkinningMode::ALL {
            let mut cpu = SkinnedVertices::default();
            skin_vertices(&palette, &mesh, mode, Betas::Uniform(0.5), &mut cpu);
            let extras = dqview::render::MeshSkinning {
                morph_targets: targets,
                morph_weights: &weights,
                ..Default::default()
            };
            let run = dqview::render::SkinRun::new(mode, 0.5);
            let got = dqview::render::skin_mesh_gpu(
                &gpu.ctx,
                &gpu.renderer,
                &palette,
                &bind,
                run,
                &extras,
            )
            .expect("compute");
            let what = format!("{mode} at {weights:?}");
            assert_positions_close(&got.positions, &cpu.positions, 1e-5, &what);
            let worst_normal = got
                .normals
                .iter()
                .zip(&cpu.normals)
                .map(|(a, b)| a.distance(*b))
                .fold(0.0f32, f32::max);
            assert!(
                worst_normal < 1e-4,
                "{what}: normals differ by {worst_normal}"
            );
            let worst_tangent = got
                .tangents
                .iter()
                .zip(&cpu.tangents)
                .map(|(a, b): (&Vec4, &Vec4)| a.distance(*b))
                .fold(0.0f32, f32::max);
            assert!(
                worst_tangent < 1e-4,
                "{what}: tangents differ by {worst_tangent}"
            );
        }
    }
}

/// The viewer's path: `SceneGpu::update` uploads the morphed bind pose when the weights change.
///
/// Rendering the animated cube after `update` must give the same image as a
/// cube whose vertices were morphed on the CPU beforehand, and differ from the rest pose.
#[test]
fn viewer_upload_renders_the_morphed_cube() {
    use dqview::render::{SceneGpu, View, ViewParams};
    use dqview::skin::bounds;
    let Some(path) = cube_path("viewer_upload_renders_the_morphed_cube") else {
        return;
    };
    let Some(gpu) = support::gpu("viewer_upload_renders_the_morphed_cube") else {
        return;
    };
    let scene = load_gltf_path(&path).expect("load");
    let rest = Pose::rest(&scene);
    let mut pose = Pose::rest(&scene);
    pose.sample(&scene, Some(0), TIME_S, &JointOverrides::new());
    let node = scene
        .nodes
        .iter()
        .position(|n| n.mesh.is_some())
        .expect("mesh node");
    // The same cube with its vertices morphed on the CPU and no targets left.
    let mut baked = scene.clone();
    let prim = &mut baked.meshes[0].primitives[0];
    let mut morphed = MorphedVertices::default();
    morph_vertices(
        &prim.positions,
        &prim.normals,
        &[],
        &prim.morph_targets,
        pose.morph_weights_of(node),
        &mut morphed,
    );
    prim.positions = morphed.positions;
    prim.normals = morphed.normals;
    prim.morph_targets.clear();
    baked.animations.clear();

    let frame = bounds(&skin_scene(
        &scene,
        &pose,
        SkinningMode::Lbs,
        Betas::Uniform(0.0),
    ))
    .expect("bounds");
    let render = |s: &dqview::scene::Scene, first: &Pose, then: &Pose| {
        let mut gpu_scene = SceneGpu::new(&gpu.ctx, &gpu.renderer, s, first).expect("upload");
        gpu_scene.update(&gpu.ctx, s, then);
        // The shared renderer's size (RenderSettings::TESTING).
        let views = View::side_by_side(
            256,
            256,
            &[SkinningMode::Dqs],
            ViewParams::shaded(0.5),
            [frame.0, frame.1],
            Vec3::new(0.4, 0.3, 1.0),
        );
        gpu.renderer
            .render_views(&gpu.ctx, &gpu_scene, &views)
            .expect("render")
            .pixels
    };
    let animated = render(&scene, &rest, &pose);
    let reference = render(&baked, &rest, &rest);
    let still = render(&scene, &rest, &rest);
    assert_eq!(animated.len(), reference.len());
    let differing = animated
        .chunks(4)
        .zip(reference.chunks(4))
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(
        differing, 0,
        "{differing} pixels differ from the CPU-morphed cube"
    );
    let moved = animated
        .chunks(4)
        .zip(still.chunks(4))
        .filter(|(a, b)| a != b)
        .count();
    assert!(moved > 50, "the morph changes only {moved} pixels");
    // Back to the rest weights: the buffer returns to the plain cube.
    let back = render(&scene, &pose, &rest);
    assert_eq!(back, still, "rest weights after a morph");
}
