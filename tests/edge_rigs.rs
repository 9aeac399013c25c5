//! Edge rigs, built in code and sent through the GLB writer and the loader: a skin with one
//! joint, a joint with zero scale, mirrored joints (and the NegativeScaleTest sample), vertices
//! with all-zero weights, skinned and unskinned meshes in one file, and a skin whose joints are
//! not in one hierarchy. Each skins to finite, expected positions on the CPU, the GPU compute pass
//! agrees with the CPU, and an offscreen render draws something.
//!
//! Without a GPU adapter the GPU halves print `SKIPPED` and pass, unless `DQVIEW_REQUIRE_GPU=1`.

mod support;

use support::gpu;

use dqview::anim::Pose;
use dqview::influences::Influences;
use dqview::render::{RenderSettings, Renderer, SceneGpu, View};
use dqview::scene::{
    Material, Mesh, Node, NodeTransform, Primitive, Scene, Skin, Trs, load_gltf_slice, write_glb,
};
use dqview::skin::{Betas, PosedPrimitive, SkinningMode, bounds, skin_scene};
use glam::{Mat4, Quat, Vec3};

/// A double-sided quad strip from y = 0 to y = `len` (x in -0.5..0.5, `rows` + 1 rows), in the XY plane.
fn strip(rows: usize, len: f32, weights: impl Fn(f32) -> Vec<(u16, f32)>) -> Primitive {
    let mut positions = Vec::new();
    let mut rows_inf = Vec::new();
    for r in 0..=rows {
        let y = len * r as f32 / rows as f32;
        for x in [-0.5, 0.5] {
            positions.push(Vec3::new(x, y, 0.0));
            rows_inf.push(weights(y));
        }
    }
    let mut indices = Vec::new();
    for r in 0..rows as u32 {
        let a = 2 * r;
        indices.extend([a, a + 1, a + 3, a, a + 3, a + 2]);
    }
    Primitive {
        normals: vec![Vec3::Z; positions.len()],
        positions,
        indices,
        influences: Some(Influences::from_rows(rows_inf)),
        material: Some(0),
        ..Primitive::default()
    }
}

fn trs(translation: Vec3, rotation: Quat, scale: Vec3) -> NodeTransform {
    NodeTransform::Trs(Trs {
        translation,
        rotation,
        scale,
    })
}

fn node(name: &str, parent: Option<usize>, children: Vec<usize>, t: NodeTransform) -> Node {
    Node {
        name: name.to_owned(),
        parent,
        children,
        transform: t,
        ..Node::default()
    }
}

/// A scene: node 0 draws mesh 0 with skin 0 (when `skin` is given); `nodes` follow.
fn rig(
    prims: Vec<Primitive>,
    mut nodes: Vec<Node>,
    skin: Option<Skin>,
    roots: Vec<usize>,
) -> Scene {
    if let Some(n) = nodes.first_mut() {
        n.mesh = Some(0);
        n.skin = skin.as_ref().map(|_| 0);
    }
    Scene {
        source: "edge rig".to_owned(),
        nodes,
        roots,
        meshes: vec![Mesh {
            name: "strip".to_owned(),
            primitives: prims,
            morph_weights: Vec::new(),
        }],
        skins: skin.into_iter().collect(),
        materials: vec![Material {
            double_sided: true,
            ..Material::default()
        }],
        ..Scene::default()
    }
}

/// Inverse bind matrices for `joints` at their rest global transforms.
fn inverse_binds(scene: &Scene, joints: &[usize]) -> Vec<Mat4> {
    let globals = support::global_matrices(scene);
    joints.iter().map(|&j| globals[j].inverse()).collect()
}

/// Writes `scene` as GLB and loads it back, as a user's file would be.
fn through_loader(scene: &Scene) -> Scene {
    let glb = write_glb(scene).expect("writes");
    load_gltf_slice(&glb, None, "edge rig").expect("loads")
}

/// A pose with node `n`'s local transform replaced.
fn posed(scene: &Scene, changes: &[(usize, NodeTransform)]) -> Pose {
    let mut pose = Pose::rest(scene);
    for &(n, t) in changes {
        pose.local[n] = t;
    }
    pose.update_globals(scene);
    pose
}

/// Skins on the CPU in every mode; asserts finite output and returns the DQS and LBS results.
fn cpu(scene: &Scene, pose: &Pose, what: &str) -> Vec<Vec<PosedPrimitive>> {
    SkinningMode::ALL
        .iter()
        .map(|&mode| {
            let posed = skin_scene(scene, pose, mode, Betas::Uniform(0.5));
            for p in &posed {
                assert!(
                    p.vertices.positions.iter().all(|v| v.is_finite())
                        && p.vertices.normals.iter().all(|v| v.is_finite()),
                    "{what} {mode}: non-finite output"
                );
            }
            posed
        })
        .collect()
}

/// The GPU compute pass agrees with the CPU, and a split LBS | DQS render draws pixels.
fn gpu_checks(scene: &Scene, pose: &Pose, what: &str) {
    let Some(gpu) = gpu(what) else {
        return;
    };
    for mode in dqview::skin::SkinningMode::ALL {
        let cpu = skin_scene(scene, pose, mode, Betas::Uniform(0.5));
        let on_gpu = gpu
            .skin_scene(scene, pose, mode, 0.5)
            .unwrap_or_else(|e| panic!("{what} {mode}: {e}"));
        let (lo, hi) = bounds(&cpu).expect("vertices");
        let diagonal = (hi - lo).length().max(1e-3);
        for (c, g) in cpu.iter().zip(&on_gpu) {
            for (v, (a, b)) in c
                .vertices
                .positions
                .iter()
                .zip(&g.vertices.positions)
                .enumerate()
            {
                assert!(
                    (*a - *b).length() / diagonal <= 1e-5,
                    "{what} {mode} vertex {v}: CPU {a} GPU {b}"
                );
            }
        }
    }
    let (width, height) = (128, 64);
    let renderer = Renderer::new(
        &gpu.ctx,
        RenderSettings {
            width,
            height,
            ..RenderSettings::TESTING
        },
    )
    .expect("renderer");
    let rest = Pose::rest(scene);
    let (min, max) = bounds(&skin_scene(
        scene,
        &rest,
        SkinningMode::Lbs,
        Betas::Uniform(0.0),
    ))
    .unwrap_or((Vec3::splat(-1.0), Vec3::ONE));
    let mut scene_gpu = SceneGpu::new(&gpu.ctx, &renderer, scene, pose).expect("scene upload");
    scene_gpu.update(&gpu.ctx, scene, pose);
    let modes = [SkinningMode::Lbs, SkinningMode::Dqs];
    let views = View::side_by_side(
        width,
        height,
        &modes,
        dqview::render::ViewParams::shaded(0.5),
        [min, max],
        Vec3::new(0.35, 0.25, 1.0),
    );
    let image = renderer
        .render_views(&gpu.ctx, &scene_gpu, &views)
        .unwrap_or_else(|e| panic!("{what}: render: {e}"));
    assert_eq!(image.pixels.len(), (width * height * 4) as usize);
    // The background is the corner pixel; the model must cover some pixels in each pane.
    let background = &image.pixels[0..4];
    for pane in 0..2u32 {
        let drawn = (0..height)
            .flat_map(|y| (pane * width / 2..(pane + 1) * width / 2).map(move |x| (x, y)))
            .filter(|&(x, y)| {
                let at = ((y * width + x) * 4) as usize;
                &image.pixels[at..at + 4] != background
            })
            .count();
        assert!(drawn > 20, "{what}: pane {pane} draws only {drawn} pixels");
    }
}

fn close(a: Vec3, b: Vec3, tol: f32) -> bool {
    (a - b).length() <= tol
}

#[test]
fn a_skin_with_one_joint_moves_rigidly() {
    let nodes = vec![
        node("mesh", None, vec![], NodeTransform::default()),
        node(
            "joint",
            None,
            vec![],
            trs(Vec3::Y, Quat::IDENTITY, Vec3::ONE),
        ),
    ];
    let mut scene = rig(
        vec![strip(4, 2.0, |_| vec![(0, 1.0)])],
        nodes,
        None,
        vec![0, 1],
    );
    scene.skins = vec![Skin {
        name: "one".to_owned(),
        joints: vec![1],
        inverse_bind: inverse_binds(&scene, &[1]),
        skeleton: None,
    }];
    scene.nodes[0].skin = Some(0);
    let scene = through_loader(&scene);
    let turn = trs(Vec3::Y, Quat::from_rotation_z(1.2), Vec3::ONE);
    let pose = posed(&scene, &[(1, turn)]);
    let expected = pose.global[1] * scene.skins[0].inverse_bind[0];
    for by_mode in cpu(&scene, &pose, "one joint") {
        let prim = &scene.meshes[0].primitives[0];
        for (v, p) in by_mode[0].vertices.positions.iter().enumerate() {
            let want = expected.transform_point3(prim.positions[v]);
            assert!(close(*p, want, 1e-5), "vertex {v}: {p} vs {want}");
        }
    }
    gpu_checks(&scene, &pose, "a_skin_with_one_joint_moves_rigidly");
}

/// Two joints along +Y: `base` at 0 and `tip` at 1 (its child); the strip blends over y 0.5..1.5.
fn two_joint_rig(tip: NodeTransform) -> Scene {
    let nodes = vec![
        node("mesh", None, vec![], NodeTransform::default()),
        node("base", None, vec![2], NodeTransform::default()),
        node("tip", Some(1), vec![], tip),
    ];
    let weights = |y: f32| {
        let t = (y - 0.5).clamp(0.0, 1.0);
        vec![(0, 1.0 - t), (1, t)]
    };
    let mut scene = rig(vec![strip(8, 2.0, weights)], nodes, None, vec![0, 1]);
    // Bind at the unposed tip (y = 1) whatever the rest transform, so rest poses are not identity.
    let mut bind = scene.clone();
    bind.nodes[2].transform = trs(Vec3::Y, Quat::IDENTITY, Vec3::ONE);
    scene.skins = vec![Skin {
        name: "two".to_owned(),
        joints: vec![1, 2],
        inverse_bind: inverse_binds(&bind, &[1, 2]),
        skeleton: Some(1),
    }];
    scene.nodes[0].skin = Some(0);
    scene
}

#[test]
fn a_joint_with_zero_scale_collapses_its_vertices_to_the_joint() {
    let scene = through_loader(&two_joint_rig(trs(Vec3::Y, Quat::IDENTITY, Vec3::ZERO)));
    let pose = Pose::rest(&scene);
    let prim = &scene.meshes[0].primitives[0];
    for (m, by_mode) in cpu(&scene, &pose, "zero scale").iter().enumerate() {
        for (v, p) in by_mode[0].vertices.positions.iter().enumerate() {
            let y = prim.positions[v].y;
            if y >= 1.5 {
                // Weighted only to the tip: every such vertex lands on the tip joint.
                assert!(close(*p, Vec3::Y, 1e-5), "mode {m} vertex {v}: {p}");
            }
            if y <= 0.5 {
                assert!(close(*p, prim.positions[v], 1e-5), "mode {m} vertex {v}");
            }
        }
    }
    gpu_checks(
        &scene,
        &pose,
        "a_joint_with_zero_scale_collapses_its_vertices_to_the_joint",
    );
}

#[test]
fn a_mirrored_joint_mirrors_its_vertices_in_every_mode() {
    let mirror = trs(Vec3::Y, Quat::IDENTITY, Vec3::new(-1.0, 1.0, 1.0));
    let scene = through_loader(&two_joint_rig(mirror));
    let pose = Pose::rest(&scene);
    let prim = &scene.meshes[0].primitives[0];
    for by_mode in cpu(&scene, &pose, "mirror") {
        let out = &by_mode[0].vertices;
        for (v, p) in out.positions.iter().enumerate() {
            let b = prim.positions[v];
            if b.y >= 1.5 {
                assert!(
                    close(*p, Vec3::new(-b.x, b.y, b.z), 1e-5),
                    "vertex {v}: {p}"
                );
                // A mirror keeps a normal on its plane's axis (+Z stays +Z up to sign).
                assert!(out.normals[v].z.abs() > 0.999, "normal {}", out.normals[v]);
            }
        }
    }
    gpu_checks(
        &scene,
        &pose,
        "a_mirrored_joint_mirrors_its_vertices_in_every_mode",
    );
}

#[test]
fn negative_scale_sample_skins_and_renders() {
    let Some(dir) = support::data_dir("DQVIEW_SAMPLES", "negative_scale_sample_skins_and_renders")
    else {
        return;
    };
    let path = dir.join("extras/NegativeScaleTest.glb");
    let scene = dqview::scene::load_gltf_path(&path).expect("loads");
    let pose = Pose::rest(&scene);
    let posed = cpu(&scene, &pose, "NegativeScaleTest");
    assert!(!posed[0].is_empty());
    gpu_checks(&scene, &pose, "negative_scale_sample_skins_and_renders");
}

#[test]
fn vertices_with_all_zero_weights_stay_at_bind_pose() {
    let mut scene = two_joint_rig(NodeTransform::default());
    let prim = strip(8, 2.0, |y| {
        if y > 1.0 {
            vec![(0, 0.0), (1, 0.0)]
        } else {
            vec![(1, 1.0)]
        }
    });
    scene.meshes[0].primitives = vec![prim];
    let scene = through_loader(&scene);
    let influences = scene.meshes[0].primitives[0]
        .influences
        .as_ref()
        .expect("skinned");
    assert_eq!(influences.unweighted_vertices(), 8);
    let bend = trs(Vec3::Y, Quat::from_rotation_z(0.8), Vec3::ONE);
    let pose = posed(&scene, &[(2, bend)]);
    let prim = &scene.meshes[0].primitives[0];
    for by_mode in cpu(&scene, &pose, "zero weights") {
        for (v, p) in by_mode[0].vertices.positions.iter().enumerate() {
            if prim.positions[v].y > 1.0 {
                assert_eq!(*p, prim.positions[v], "vertex {v}");
            } else {
                assert!(!close(*p, prim.positions[v], 1e-3) || prim.positions[v].y == 1.0);
            }
        }
    }
    gpu_checks(
        &scene,
        &pose,
        "vertices_with_all_zero_weights_stay_at_bind_pose",
    );
}

#[test]
fn skinned_and_unskinned_meshes_in_one_file() {
    let mut scene = two_joint_rig(NodeTransform::default());
    // Node 3 draws mesh 1 without a skin, moved by its own transform (and its parent, the tip).
    let mut rigid = strip(2, 1.0, |_| Vec::new());
    rigid.influences = None;
    scene.meshes.push(Mesh {
        name: "rigid".to_owned(),
        primitives: vec![rigid],
        morph_weights: Vec::new(),
    });
    scene.nodes[2].children.push(3);
    let mut prop = node(
        "prop",
        Some(2),
        vec![],
        trs(Vec3::X * 2.0, Quat::IDENTITY, Vec3::ONE),
    );
    prop.mesh = Some(1);
    scene.nodes.push(prop);
    let scene = through_loader(&scene);
    let bend = trs(Vec3::Y, Quat::from_rotation_z(0.8), Vec3::ONE);
    let pose = posed(&scene, &[(2, bend)]);
    for by_mode in cpu(&scene, &pose, "mixed") {
        assert_eq!(by_mode.len(), 2);
        let skinned = by_mode.iter().find(|p| p.node == 0).expect("skinned");
        let rigid = by_mode.iter().find(|p| p.node == 3).expect("rigid");
        assert!(skinned.skinned && !rigid.skinned);
        let prim = &scene.meshes[1].primitives[0];
        for (v, p) in rigid.vertices.positions.iter().enumerate() {
            let want = pose.global[3].transform_point3(prim.positions[v]);
            assert!(close(*p, want, 1e-5), "rigid vertex {v}: {p} vs {want}");
        }
    }
    gpu_checks(&scene, &pose, "skinned_and_unskinned_meshes_in_one_file");
}

#[test]
fn a_skin_whose_joints_are_in_two_hierarchies() {
    // Joints 1 and 2 are separate roots; each half of the strip follows its own.
    let nodes = vec![
        node("mesh", None, vec![], NodeTransform::default()),
        node("left", None, vec![], NodeTransform::default()),
        node(
            "right",
            None,
            vec![],
            trs(Vec3::Y * 2.0, Quat::IDENTITY, Vec3::ONE),
        ),
    ];
    let mut scene = rig(
        vec![strip(8, 2.0, |y| vec![(u16::from(y > 1.0), 1.0)])],
        nodes,
        None,
        vec![0, 1, 2],
    );
    scene.skins = vec![Skin {
        name: "split".to_owned(),
        joints: vec![1, 2],
        inverse_bind: inverse_binds(&scene, &[1, 2]),
        skeleton: None,
    }];
    scene.nodes[0].skin = Some(0);
    let scene = through_loader(&scene);
    let pose = posed(
        &scene,
        &[
            (1, trs(Vec3::X * -3.0, Quat::IDENTITY, Vec3::ONE)),
            (2, trs(Vec3::new(3.0, 2.0, 0.0), Quat::IDENTITY, Vec3::ONE)),
        ],
    );
    let prim = &scene.meshes[0].primitives[0];
    for by_mode in cpu(&scene, &pose, "two hierarchies") {
        for (v, p) in by_mode[0].vertices.positions.iter().enumerate() {
            let b = prim.positions[v];
            let shift = if b.y > 1.0 { 3.0 } else { -3.0 };
            assert!(close(*p, b + Vec3::X * shift, 1e-5), "vertex {v}: {p}");
        }
    }
    gpu_checks(&scene, &pose, "a_skin_whose_joints_are_in_two_hierarchies");
}
