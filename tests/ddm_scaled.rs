//! Direct Delta Mush under scaled joints (Enhanced DDM's case): the fit keeps only a rotation,
//! so each vertex's offset from its smoothed neighbourhood's centre is scaled by its joints'
//! blended scale/shear. Vertices that follow one joint move exactly as that joint does (LBS),
//! where an unscaled offset would put them off by the scale times that offset. The GPU core
//! does the same (against the CPU reference on the scaled tube).

mod support;

use dqview::anim::{JointAngles, JointOverrides, Pose};
use dqview::model::load_model;
use dqview::scene::{NodeTransform, Scene};
use dqview::skin::ddm::{DdmParams, SceneDdm, skin_scene_ddm, skin_vertex_ddm};
use dqview::skin::{Betas, JointPalette, SkinningMode, skin_scene};
use glam::Vec3;

/// `builtin:twist` with its tip joint (and so the tip half) scaled by `scale` in its own frame.
fn scaled_twist(scale: Vec3) -> Scene {
    scaled_joint("tip", scale)
}

/// `builtin:twist` with `joint` (and its children) scaled by `scale` in its own frame.
fn scaled_joint(joint: &str, scale: Vec3) -> Scene {
    let mut scene = load_model("builtin:twist").expect("builtin");
    let node = dqview::anim::find_node(&scene, joint).expect("joint");
    let NodeTransform::Trs(trs) = &mut scene.nodes[node].transform else {
        panic!("{joint} has a TRS transform");
    };
    trs.scale = scale;
    scene
}

#[test]
fn a_rig_scaled_as_a_whole_poses_its_mesh_scaled() {
    // The shared robot's case: an armature 100 times its mesh's bind units. With both joints at
    // the same matrix every method is that matrix; an unscaled offset from the smoothed centre
    // would leave each vertex 99 of those offsets off.
    let scene = scaled_joint("base", Vec3::splat(100.0));
    let ddm = SceneDdm::compute(&scene, DdmParams::DEFAULT).expect("precompute");
    let pose = posed(&scene, 0.0, 0.0);
    let ddm_posed = skin_scene_ddm(&scene, &pose, &ddm);
    let lbs = skin_scene(&scene, &pose, SkinningMode::Lbs, Betas::Uniform(0.0));
    let diagonal = 100.0 * 2.0f32.hypot(0.5f32.hypot(0.5));
    let worst = support::largest_offset(&ddm_posed, &lbs, diagonal);
    println!("scaled 100 as a whole: DDM within {worst:e} of LBS");
    assert!(worst < 1e-6, "{worst}");
}

/// The scene's rest pose with the tip bent `bend_deg` and twisted `twist_deg`.
fn posed(scene: &Scene, bend_deg: f32, twist_deg: f32) -> Pose {
    let tip = dqview::anim::find_node(scene, "tip").expect("tip");
    let mut overrides = JointOverrides::new();
    overrides.set(
        tip,
        JointAngles {
            bend_deg,
            twist_deg,
            ..JointAngles::default()
        },
    );
    let mut pose = Pose::rest(scene);
    pose.sample(scene, None, 0.0, &overrides);
    pose
}

#[test]
fn vertices_that_follow_one_scaled_joint_move_as_that_joint_does() {
    let diagonal = 2.0f32.hypot(0.5f32.hypot(0.5));
    for scale in [
        Vec3::new(0.6, 1.0, 0.6),
        Vec3::splat(1.5),
        Vec3::new(1.0, 0.5, 1.0),
    ] {
        let scene = scaled_twist(scale);
        let ddm = SceneDdm::compute(&scene, DdmParams::DEFAULT).expect("precompute");
        let mesh = ddm.per_mesh[0].as_ref().expect("the tube");
        let prim = &scene.meshes[0].primitives[0];
        let influences = prim.influences.as_ref().expect("skinned");
        for (bend_deg, twist_deg) in [(0.0, 0.0), (60.0, 40.0)] {
            let pose = posed(&scene, bend_deg, twist_deg);
            let ddm_posed = skin_scene_ddm(&scene, &pose, &ddm);
            let lbs = skin_scene(&scene, &pose, SkinningMode::Lbs, Betas::Uniform(0.0));
            let mut matrices = Vec::new();
            pose.skinning_matrices(&scene, 0, &mut matrices);
            let palette = JointPalette::from_matrices(&matrices);
            assert!(!palette.is_rigid(), "{scale}: the tip scales");
            let (mut single, mut worst, mut unscaled_miss) = (0, 0.0f32, 0.0f64);
            for (v, row) in influences.iter().enumerate() {
                let w = mesh.surface.vertex_of[0][v] as usize;
                let (joints, omega) = mesh.weights.of(w);
                let one = row.len() == 1 && joints.iter().all(|&j| j == row[0].joint);
                let d = ddm_posed[0].vertices.positions[v];
                assert!(d.is_finite(), "{scale}: vertex {v}");
                // Nothing explodes, single joint or not.
                let off = d.distance(lbs[0].vertices.positions[v]) / diagonal;
                assert!(off < 0.05, "{scale} bend {bend_deg}: vertex {v} {off}");
                if !one || row[0].joint != 1 {
                    continue;
                }
                single += 1;
                worst = worst.max(off);
                // What an unscaled offset from the smoothed centre would have missed by.
                let rest = mesh.surface.positions[w];
                let fit = skin_vertex_ddm(&palette.matrices, rest, joints, omega).expect("a fit");
                let s = f64::from(scale.max_element().max(1.0 / scale.min_element()));
                unscaled_miss = unscaled_miss.max(fit.smoothed_offset.length() * (s - 1.0));
            }
            println!(
                "scale {scale}, bend {bend_deg}: {single} single-joint tip vertices within {worst:e} of LBS; an unscaled offset misses by up to {:e}",
                unscaled_miss / f64::from(diagonal)
            );
            assert!(single > 100, "{scale}: {single}");
            assert!(worst < 2e-6, "{scale} bend {bend_deg}: {worst}");
            // The check can fail: without the scale these vertices would be visibly off.
            assert!(
                unscaled_miss / f64::from(diagonal) > 1e-4,
                "{scale}: {unscaled_miss}"
            );
        }
    }
}

#[test]
fn a_scaled_region_keeps_the_volume_lbs_keeps() {
    // Squashing the tip's cross-section to 0.6 leaves it 0.36 of its area; DDM must shrink it
    // as LBS does, not keep the rest thickness the smoothing saw.
    let scene = scaled_twist(Vec3::new(0.6, 1.0, 0.6));
    let ddm = SceneDdm::compute(&scene, DdmParams::DEFAULT).expect("precompute");
    let pose = posed(&scene, 30.0, 0.0);
    let ddm_posed = skin_scene_ddm(&scene, &pose, &ddm);
    let lbs = skin_scene(&scene, &pose, SkinningMode::Lbs, Betas::Uniform(0.0));
    // The tip's end ring (y = 2 at bind): its mean radius about its centre, both methods.
    let prim = &scene.meshes[0].primitives[0];
    let ring: Vec<usize> = (0..prim.positions.len())
        .filter(|&v| {
            prim.positions[v].y > 1.999
                && glam::Vec2::new(prim.positions[v].x, prim.positions[v].z).length() > 0.2
        })
        .collect();
    assert!(ring.len() >= 16, "{}", ring.len());
    let radius = |posed: &[glam::Vec3]| {
        let centre = ring.iter().map(|&v| posed[v]).sum::<Vec3>() / ring.len() as f32;
        ring.iter().map(|&v| posed[v].distance(centre)).sum::<f32>() / ring.len() as f32
    };
    let (r_ddm, r_lbs) = (
        radius(&ddm_posed[0].vertices.positions),
        radius(&lbs[0].vertices.positions),
    );
    println!("tip ring radius: DDM {r_ddm}, LBS {r_lbs} (rest 0.25, scaled 0.15)");
    assert!((r_lbs - 0.15).abs() < 1e-3, "{r_lbs}");
    assert!((r_ddm - r_lbs).abs() < 0.01 * r_lbs, "{r_ddm} vs {r_lbs}");
}

#[test]
fn gpu_ddm_matches_cpu_under_scaled_joints() {
    let Some(gpu) = support::gpu("gpu_ddm_matches_cpu_under_scaled_joints") else {
        return;
    };
    for scale in [Vec3::new(0.6, 1.0, 0.6), Vec3::new(1.0, 0.5, 1.4)] {
        let scene = scaled_twist(scale);
        let ddm = SceneDdm::compute(&scene, DdmParams::DEFAULT).expect("precompute");
        for (bend_deg, twist_deg) in [(0.0, 0.0), (60.0, 40.0), (130.0, 170.0)] {
            let pose = posed(&scene, bend_deg, twist_deg);
            let cpu = skin_scene_ddm(&scene, &pose, &ddm);
            let skinning = dqview::render::GpuSkinning {
                ddm: Some(&ddm),
                ..dqview::render::GpuSkinning::new(dqview::render::SkinRun::new(
                    SkinningMode::Ddm,
                    1.0,
                ))
            };
            let on_gpu =
                dqview::render::skin_scene_gpu(&gpu.ctx, &gpu.renderer, &scene, &pose, &skinning)
                    .expect("GPU skinning");
            let what = format!("scaled {scale}, bend {bend_deg}, twist {twist_deg}");
            let worst = support::assert_posed_match(&what, &cpu, &on_gpu);
            println!("{what}: GPU within {worst:e} of the CPU");
        }
    }
}
