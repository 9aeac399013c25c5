//! Helper joints fitted to Delta Mush (`helper-joints --target dm`): plain LBS with the fitted
//! helpers lands nearer the input's DM than the input's own LBS at a bend the fit never saw,
//! the command says so, and DM's flags are refused for another target.

mod support;

use support::{dqview_in, fit_rms_line, scratch_dir, stderr_of};

use dqview::anim::{JointAngles, JointOverrides, Pose};
use dqview::model::load_model;
use dqview::scene::Scene;
use dqview::skin::dm::{DmParams, SceneDm, skin_scene_dm};
use dqview::skin::{Betas, CorOptions, CorProgress, PosedPrimitive, SceneCenters, SkinningMode};
use dqview::twist_joints::{FitTarget, TwistOptions, add_twist_joints, bone_requests};

/// Stronger than the default, so DM stands well apart from LBS at the elbow.
const STRONG: DmParams = DmParams {
    iterations: 20,
    factor: 0.5,
};

/// The mean vertex distance between two posings of the same meshes.
fn mean_distance(a: &[PosedPrimitive], b: &[PosedPrimitive]) -> f64 {
    let (mut sum, mut count) = (0.0, 0usize);
    for (p, q) in a.iter().zip(b) {
        for (x, y) in p.vertices.positions.iter().zip(&q.vertices.positions) {
            sum += f64::from(x.distance(*y));
            count += 1;
        }
    }
    sum / count.max(1) as f64
}

/// `scene` posed with `elbow` bent `deg` about its bend axis.
fn bent(scene: &Scene, elbow: usize, deg: f32) -> Pose {
    let mut overrides = JointOverrides::new();
    overrides.set(
        elbow,
        JointAngles {
            bend_deg: deg,
            ..JointAngles::default()
        },
    );
    let mut pose = Pose::rest(scene);
    pose.sample(scene, None, 0.0, &overrides);
    pose
}

#[test]
fn helpers_fitted_to_delta_mush_bring_lbs_to_delta_mush_at_an_unseen_bend() {
    let scene = load_model("builtin:arm").expect("builtin");
    let elbow = dqview::anim::find_node(&scene, "elbow").expect("elbow");
    let centers =
        SceneCenters::compute(&scene, &CorOptions::default(), &CorProgress::new()).expect("cor");
    let options = TwistOptions {
        max_influences: 4,
        clips: (0..scene.animations.len()).collect(),
        target: FitTarget::Dm,
        ddm: dqview::skin::ddm::DdmParams::DEFAULT,
        dm: STRONG,
    };
    let rig = add_twist_joints(
        &scene,
        &bone_requests(&scene, &[(elbow, 2)]),
        &options,
        &centers,
    )
    .expect("helpers added");
    assert!(
        rig.fit.vertices > 100 && rig.fit.rms_after < 0.9 * rig.fit.rms_before,
        "{:?}",
        rig.fit
    );
    // 100 degrees: the fit's bend sweep steps from 10 by 20, so it never saw this pose.
    let dm = SceneDm::compute(&scene, STRONG);
    let (pose_in, pose_out) = (bent(&scene, elbow, 100.0), bent(&rig.scene, elbow, 100.0));
    let target = skin_scene_dm(&scene, &pose_in, &dm);
    let lbs = |s: &Scene, p: &Pose| {
        dqview::skin::skin_scene(s, p, SkinningMode::Lbs, Betas::Uniform(0.0))
    };
    let before = mean_distance(&lbs(&scene, &pose_in), &target);
    let after = mean_distance(&lbs(&rig.scene, &pose_out), &target);
    // And not merely nearer DQS: DM's own smoothing is what the helpers reproduce.
    let dqs = dqview::skin::skin_scene(&scene, &pose_in, SkinningMode::Dqs, Betas::Uniform(1.0));
    let dqs_to_dm = mean_distance(&dqs, &target);
    println!(
        "mean distance from DM at a 100 degree bend: LBS {before:e}, LBS + helpers {after:e}, DQS {dqs_to_dm:e}"
    );
    // Over the whole arm: DM also smooths the ends, which no elbow helper can reach.
    assert!(before > 0.0 && after < 0.9 * before, "{before} -> {after}");
    assert!(after < dqs_to_dm, "{after} vs DQS {dqs_to_dm}");
}

#[test]
fn the_command_fits_to_dm_and_refuses_dm_flags_for_another_target() {
    let dir = scratch_dir("dm-helpers");
    let arm = dir.join("arm.glb");
    let run = dqview_in(
        &["builtin", "arm", "--out", arm.to_str().expect("utf-8")],
        &dir,
    );
    assert!(run.status.success(), "{}", stderr_of(&run));
    let out = dir.join("arm_dm.glb");
    let (arm, out) = (arm.to_str().expect("utf-8"), out.to_str().expect("utf-8"));
    let args = |extra: &[&'static str]| {
        let mut a = vec!["helper-joints", arm, "--joint", "elbow", "--out", out];
        a.extend_from_slice(extra);
        a
    };
    let run = dqview_in(
        &args(&[
            "--target",
            "dm",
            "--dm-iterations",
            "20",
            "--dm-factor",
            "0.5",
        ]),
        &dir,
    );
    assert!(run.status.success(), "{}", stderr_of(&run));
    let text = String::from_utf8_lossy(&run.stdout).into_owned();
    let (before, after, line) = fit_rms_line(&text, "dm");
    assert!(after < before && after.is_finite(), "{line}");
    assert!(std::path::Path::new(out).exists());
    std::fs::remove_file(out).expect("remove");
    for (extra, said) in [
        (
            &["--dm-iterations", "3"][..],
            "--dm-iterations sets up Delta Mush, but the target is cor (add --target dm)",
        ),
        (
            &["--target", "ddm", "--dm-factor", "0.3"][..],
            "--dm-factor sets up Delta Mush, but the target is ddm (add --target dm)",
        ),
        (
            &["--target", "dm", "--dm-iterations", "0"][..],
            "--dm-iterations",
        ),
    ] {
        let run = dqview_in(&args(extra), &dir);
        let err = stderr_of(&run);
        assert!(
            !run.status.success() && err.contains(said),
            "{extra:?}: {err}"
        );
        assert!(
            !std::path::Path::new(out).exists(),
            "{extra:?} wrote a file"
        );
    }
}
