//! Direct Delta Mush on the command line: the flags checked and refused where nothing runs
//! DDM, `export --mode ddm` equal to the library's CPU reference, `render` with a DDM pane, and
//! the on-disk cache (a second precompute reads it; a damaged file is recomputed).

mod support;

use support::{dqview_in, fit_rms_line, scratch_dir, stderr_of};

use dqview::anim::{JointOverrides, Pose};
use dqview::model::load_model;
use dqview::skin::ddm::{DdmParams, DdmProgress, SceneDdm, skin_scene_ddm};

#[test]
fn bad_and_unused_ddm_flags_are_refused_with_the_reason() {
    let dir = scratch_dir("ddm-flags");
    let out = dir.join("x.png");
    let out = out.to_str().expect("utf-8");
    let cases: [(&[&str], &str); 5] = [
        (
            &["--mode", "dqs", "--ddm-p", "3"],
            "--ddm-p sets up Direct Delta Mush, but no pane of this render is DDM",
        ),
        (
            &["--mode", "ddm", "--ddm-p", "0"],
            "--ddm-p must be at least 1",
        ),
        (
            &["--mode", "ddm", "--ddm-kappa", "0.6"],
            "--ddm-kappa must be above 0 and below --ddm-lambda (0.5)",
        ),
        (
            &["--mode", "ddm", "--ddm-alpha", "1"],
            "--ddm-alpha must be from 0 up to (not including) 1",
        ),
        (
            &["--mode", "ddm", "--ddm-lambda", "NaN"],
            "--ddm-lambda must be a positive number",
        ),
    ];
    for (flags, message) in cases {
        let mut args = vec!["render", "builtin:twist", "--size", "64x64", "--out", out];
        args.extend_from_slice(flags);
        let run = dqview_in(&args, &dir);
        assert!(!run.status.success(), "{flags:?} ran");
        let err = stderr_of(&run);
        assert!(err.contains(message), "{flags:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let run = dqview_in(
        &[
            "export",
            "builtin:twist",
            "--mode",
            "lbs",
            "--ddm-alpha",
            "0.5",
            "--out",
            &dir.join("x.obj").to_string_lossy(),
        ],
        &dir,
    );
    assert!(
        stderr_of(&run).contains("DDM needs --mode ddm"),
        "{}",
        stderr_of(&run)
    );
}

#[test]
fn export_ddm_is_the_cpu_reference_at_the_given_parameters() {
    let dir = scratch_dir("ddm-export");
    let obj = dir.join("twist.obj");
    let run = dqview_in(
        &[
            "export",
            "builtin:arm",
            "--mode",
            "ddm",
            "--twist",
            "forearm_twist=120",
            "--bend",
            "elbow=70",
            "--ddm-p",
            "8",
            "--ddm-lambda",
            "0.8",
            "--out",
            obj.to_str().expect("utf-8"),
        ],
        &dir,
    );
    assert!(run.status.success(), "{}", stderr_of(&run));
    let scene = load_model("builtin:arm").expect("builtin");
    let mut overrides = JointOverrides::new();
    for (name, twist, bend) in [("forearm_twist", 120.0, 0.0), ("elbow", 0.0, 70.0)] {
        let node = dqview::anim::find_node(&scene, name).expect(name);
        let mut a = overrides.get(node);
        a.twist_deg += twist;
        a.bend_deg += bend;
        overrides.set(node, a);
    }
    let mut pose = Pose::rest(&scene);
    pose.sample(&scene, None, 0.0, &overrides);
    let params = DdmParams {
        p: 8,
        lambda: 0.8,
        ..DdmParams::DEFAULT
    };
    let ddm = SceneDdm::compute(&scene, params).expect("precompute");
    let expected = skin_scene_ddm(&scene, &pose, &ddm);
    let text = std::fs::read_to_string(&obj).expect("obj");
    let got: Vec<glam::Vec3> = support::obj_groups(&text)
        .into_iter()
        .flat_map(|(_, v)| v)
        .collect();
    let want: Vec<glam::Vec3> = expected
        .iter()
        .flat_map(|p| p.vertices.positions.clone())
        .collect();
    assert_eq!(got.len(), want.len());
    let lbs = dqview::skin::skin_scene(
        &scene,
        &pose,
        dqview::skin::SkinningMode::Lbs,
        dqview::skin::Betas::Uniform(0.0),
    );
    let moved = lbs
        .iter()
        .flat_map(|p| p.vertices.positions.clone())
        .zip(&want)
        .map(|(a, b)| (a - *b).length())
        .fold(0.0f32, f32::max);
    // Not LBS: the parameters reached the precompute (and the fit moved vertices).
    assert!(moved > 1e-3, "DDM equals LBS ({moved})");
    for (a, b) in got.iter().zip(&want) {
        assert!((*a - *b).length() < 1e-5, "{a} vs {b}");
    }
}

#[test]
fn the_cache_is_read_back_and_a_damaged_file_is_recomputed() {
    let dir = scratch_dir("ddm-cache");
    let scene = load_model("builtin:elbow").expect("builtin");
    let params = DdmParams::DEFAULT;
    let progress = DdmProgress::new();
    let (first, hits) =
        SceneDdm::compute_cached(&scene, params, &progress, Some(&dir)).expect("first");
    assert_eq!(hits, 0);
    let files: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let (second, hits) =
        SceneDdm::compute_cached(&scene, params, &progress, Some(&dir)).expect("second");
    assert_eq!(hits, 1);
    assert!(first == second, "the cache gave other matrices");
    // Other parameters: another file.
    let other = DdmParams { p: 3, ..params };
    let (_, hits) = SceneDdm::compute_cached(&scene, other, &progress, Some(&dir)).expect("other");
    assert_eq!(hits, 0);
    // A truncated file is ignored and the matrices computed again.
    let bytes = std::fs::read(&files[0]).expect("read");
    std::fs::write(&files[0], &bytes[..bytes.len() / 2]).expect("truncate");
    let (third, hits) =
        SceneDdm::compute_cached(&scene, params, &progress, Some(&dir)).expect("third");
    assert_eq!(hits, 0);
    assert_same_matrices(&first, &third);
    // A cancelled precompute is an error, not a partial result.
    let cancelled = DdmProgress::new();
    cancelled.cancel();
    assert!(SceneDdm::compute_with(&scene, other, &cancelled).is_err());
}

/// Asserts that two precomputes hold the same pairs and matrices (to f32 rounding: the solves
/// run in parallel, so sums may round apart).
fn assert_same_matrices(a: &SceneDdm, b: &SceneDdm) {
    assert_eq!(a.per_mesh.len(), b.per_mesh.len());
    for (x, y) in a.per_mesh.iter().flatten().zip(b.per_mesh.iter().flatten()) {
        assert!(x.weights.offsets == y.weights.offsets, "other pairs");
        assert!(x.weights.joints == y.weights.joints, "other joints");
        for (p, q) in x.weights.omega.iter().zip(&y.weights.omega) {
            for (u, v) in p.iter().zip(q) {
                assert!((u - v).abs() <= 1e-6 * u.abs().max(1.0), "{u} vs {v}");
            }
        }
    }
}

#[test]
fn helper_joints_fit_to_ddm_and_refuse_ddm_flags_for_another_target() {
    let dir = scratch_dir("ddm-helpers");
    let arm = dir.join("arm.glb");
    let run = dqview_in(
        &["builtin", "arm", "--out", arm.to_str().expect("utf-8")],
        &dir,
    );
    assert!(run.status.success(), "{}", stderr_of(&run));
    let out = dir.join("arm_ddm.glb");
    let (arm, out) = (arm.to_str().expect("utf-8"), out.to_str().expect("utf-8"));
    let run = dqview_in(
        &[
            "helper-joints",
            arm,
            "--joint",
            "forearm_twist",
            "--target",
            "ddm",
            "--ddm-p",
            "8",
            "--out",
            out,
        ],
        &dir,
    );
    assert!(run.status.success(), "{}", stderr_of(&run));
    let text = String::from_utf8_lossy(&run.stdout).into_owned() + &stderr_of(&run);
    let (before, after, line) = fit_rms_line(&text, "ddm");
    assert!(after <= before && after.is_finite(), "{line}");
    assert!(std::path::Path::new(out).exists());
    let run = dqview_in(
        &[
            "helper-joints",
            arm,
            "--joint",
            "forearm_twist",
            "--ddm-p",
            "3",
            "--out",
            out,
        ],
        &dir,
    );
    let err = stderr_of(&run);
    assert!(
        err.contains("--ddm-p sets up Direct Delta Mush, but the target is cor"),
        "{err}"
    );
}
