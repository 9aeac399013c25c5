//! Direct Delta Mush over whole shared characters (skin::ddm::skin_scene_ddm): at every clip's
//! frames no vertex is non-finite or farther than 5% of the diagonal from LBS (an exploded
//! vertex), welded seams do not tear, and at rest-as-bind it is the bind mesh.

mod support;

use dqview::anim::{JointOverrides, Pose};
use dqview::skin::ddm::{DdmParams, SceneDdm, skin_scene_ddm};
use dqview::skin::{Betas, SkinningMode, rest_bounds, skin_scene};

/// Frames sampled per clip, both ends included.
const FRAMES: usize = 12;

#[test]
fn ddm_never_explodes_over_every_clip_and_keeps_seams_closed() {
    let Some(dir) = support::characters_dir("ddm_never_explodes") else {
        return;
    };
    for (name, params) in [
        ("Adventurer.gltf", DdmParams::DEFAULT),
        ("RobotExpressive.glb", DdmParams::DEFAULT),
    ] {
        let path = dir.join(name);
        let scene = dqview::model::load_model(path.to_str().expect("UTF-8")).expect("load");
        let ddm = SceneDdm::compute(&scene, params).expect("precompute");
        let (lo, hi) = rest_bounds(&scene).expect("bounds");
        let diagonal = lo.distance(hi);
        let mut worst = 0.0_f32;
        let mut poses = 0;
        for clip in 0..scene.animations.len() {
            let duration = dqview::anim::clip_duration_s(&scene.animations[clip]);
            for f in 0..FRAMES {
                let t = duration * f as f32 / (FRAMES - 1) as f32;
                let mut pose = Pose::rest(&scene);
                pose.sample(&scene, Some(clip), t, &JointOverrides::new());
                let ours = skin_scene_ddm(&scene, &pose, &ddm);
                let lbs = skin_scene(&scene, &pose, SkinningMode::Lbs, Betas::Uniform(0.0));
                for (a, b) in ours.iter().zip(&lbs) {
                    for (p, q) in a.vertices.positions.iter().zip(&b.vertices.positions) {
                        assert!(p.is_finite(), "{name} clip {clip} t {t}");
                        worst = worst.max(p.distance(*q) / diagonal);
                    }
                }
                let surfaces: Vec<_> = ddm
                    .per_mesh
                    .iter()
                    .map(|m| m.as_ref().map(|m| &m.surface))
                    .collect();
                support::assert_seams_closed(&surfaces, &ours, name);
                poses += 1;
            }
        }
        eprintln!(
            "{name} {params:?}: {poses} clip poses, farthest DDM vertex from LBS {worst:.4} of the diagonal; {} KB of matrices",
            ddm.bytes() / 1024
        );
        assert!(worst < 0.05, "{name}: {worst} of the diagonal from LBS");
    }
}
