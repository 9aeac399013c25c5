//! `dqview blend` and the fit behind it: targets on `builtin:arm`, the CLI against the library,
//! bad input and Ctrl+C (real files: `tests/blend_files.rs`).

mod support;

use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use dqview::analysis::{AnalyzeOptions, ModeReport, analyze};
use dqview::anim::{JointAngles, JointOverrides, find_node};
use dqview::model::load_model;
use dqview::scene::Scene;
use dqview::skin::{
    Betas, CorOptions, CorProgress, FitOptions, FitPose, JointSweep, SceneBetas, SceneCenters,
    SkinningMode, SweepKind, fit_blend, rest_bounds, skin_scene, skin_scene_cor,
};
use serde_json::Value;
use support::{dqview_in, scratch_dir, stderr_of};

fn sweep(scene: &Scene, joint: &str, kind: SweepKind, to_deg: f32) -> JointSweep {
    JointSweep {
        node: find_node(scene, joint).expect("joint"),
        kind,
        from_deg: 0.0,
        to_deg,
    }
}

/// The four modes' reports at one pose of `builtin:arm`, hybrid with `betas`.
fn modes_at(
    scene: &Scene,
    centers: &SceneCenters,
    betas: &SceneBetas,
    o: JointOverrides,
) -> Vec<ModeReport> {
    let options = AnalyzeOptions {
        clip: None,
        samples: 1,
        time_s: None,
        overrides: o,
        hybrid: betas.clone(),
        hybrid_scale: 1.0,
        focus_joint: None,
        cor_centers: Some(centers.clone()),
        ddm: None,
        dm: None,
        bulge_compensation: 0.0,
    };
    analyze(scene, &options, &|_, _| {}).modes
}

fn mode(reports: &[ModeReport], m: SkinningMode) -> &ModeReport {
    reports.iter().find(|r| r.mode == m).expect("mode reported")
}

fn cd(reports: &[ModeReport], m: SkinningMode) -> f32 {
    mode(reports, m).cor_distance.expect("cor_distance")
}

/// The largest distance from a vertex's CoR position to its LBS-DQS segment at `pose`, in model
/// units: the least any hybrid (any beta per vertex, even one per pose) can reach.
fn segment_distance(scene: &Scene, centers: &SceneCenters, pose: &FitPose) -> f32 {
    let pose = pose.to_pose(scene);
    let l = skin_scene(scene, &pose, SkinningMode::Lbs, Betas::Uniform(0.0));
    let q = skin_scene(scene, &pose, SkinningMode::Dqs, Betas::Uniform(0.0));
    let c = skin_scene_cor(scene, &pose, centers);
    let mut worst = 0.0f32;
    for ((pl, pq), pc) in l.iter().zip(&q).zip(&c) {
        let points = pl.vertices.positions.iter().zip(&pq.vertices.positions);
        for ((&a, &b), &target) in points.zip(&pc.vertices.positions) {
            let gap = b - a;
            let t = if gap.length_squared() > 0.0 {
                (gap.dot(target - a) / gap.length_squared()).clamp(0.0, 1.0)
            } else {
                0.0
            };
            worst = worst.max((a + gap * t - target).length());
        }
    }
    worst
}

#[test]
fn fitted_hybrid_on_the_arm_tracks_cor_through_twist_and_bend() {
    let scene = load_model("builtin:arm").expect("arm");
    let centers = SceneCenters::compute(&scene, &CorOptions::default(), &CorProgress::new())
        .expect("centers");
    let twist = sweep(&scene, "forearm_twist", SweepKind::Twist, 180.0);
    let bend = sweep(&scene, "elbow", SweepKind::Bend, 90.0);
    let mut poses = FitPose::sweep_samples(&twist, 13);
    poses.extend(FitPose::sweep_samples(&bend, 10));
    let fit = fit_blend(
        &scene,
        &centers,
        &poses,
        &FitOptions::default(),
        &|_, _| {},
        &AtomicBool::new(false),
    )
    .expect("fit");
    assert_eq!(fit.poses, 23);
    assert_eq!(fit.vertices, 5049);
    let betas = &fit.betas;
    assert!(betas.of(0, 0).iter().all(|b| (0.0..=1.0).contains(b)));

    // cor_distance over every pose of both sweeps, per mode, and the least any hybrid could reach.
    let diagonal = {
        let (lo, hi) = rest_bounds(&scene).expect("bounds");
        (hi - lo).length()
    };
    let mut worst = [0.0f32; 4];
    let mut bound = 0.0f32;
    let mut twist_180 = Vec::new();
    let mut bend_90 = Vec::new();
    for pose in &poses {
        let reports = modes_at(&scene, &centers, betas, pose.overrides.clone());
        // DDM is not measured here (no matrices given).
        for (k, m) in SkinningMode::ALL[..4].iter().copied().enumerate() {
            worst[k] = worst[k].max(mode(&reports, m).cor_distance.expect("cor_distance"));
        }
        bound = bound.max(segment_distance(&scene, &centers, pose) / diagonal);
        if pose.overrides.get(twist.node).twist_deg == 180.0 {
            twist_180 = reports;
        } else if pose.overrides.get(bend.node).bend_deg == 90.0 {
            bend_90 = reports;
        }
    }
    let [lbs, dqs, hybrid, cor] = worst;
    let volume = mode(&twist_180, SkinningMode::Hybrid).min_ratio;
    let bulge = |m| mode(&bend_90, m).bulge.expect("hinge vertices");
    eprintln!(
        "arm cor_distance lbs {lbs:.5} dqs {dqs:.5} fitted {hybrid:.5} cor {cor:.5}, best any hybrid can do {bound:.5}; \
         at twist 180: {} (lbs {}, dqs {}), volume ratio fitted {volume:.4} lbs {:.4}; \
         at bend 90: {} (lbs {}, dqs {}), bulge fitted {:.4} cor {:.4} dqs {:.4} lbs {:.4}",
        cd(&twist_180, SkinningMode::Hybrid),
        cd(&twist_180, SkinningMode::Lbs),
        cd(&twist_180, SkinningMode::Dqs),
        mode(&twist_180, SkinningMode::Lbs).min_ratio,
        cd(&bend_90, SkinningMode::Hybrid),
        cd(&bend_90, SkinningMode::Lbs),
        cd(&bend_90, SkinningMode::Dqs),
        bulge(SkinningMode::Hybrid),
        bulge(SkinningMode::Cor),
        bulge(SkinningMode::Dqs),
        bulge(SkinningMode::Lbs),
    );
    assert!(cor < 1e-6, "CoR against itself: {cor}");
    // The target, fitted <= 0.5 * min(LBS, DQS), is out of reach of any hybrid here: at the
    // 90 degree bend CoR's elbow vertices lie off the LBS-DQS segment, 0.96 of DQS's distance away
    // (README "Fixing a rig"). What is checked: the fit is as good as a per-pose, per-vertex best
    // beta (within 2%), and better than both LBS and DQS.
    assert!(
        hybrid >= bound * 0.999,
        "below the bound? {hybrid} vs {bound}"
    );
    assert!(
        hybrid <= 1.02 * bound,
        "fitted {hybrid} vs best possible {bound}"
    );
    assert!(
        hybrid < lbs.min(dqs),
        "fitted {hybrid} vs LBS {lbs}, DQS {dqs}"
    );
    // On the twist alone the target holds: LBS collapses, DQS is CoR there.
    assert!(cd(&twist_180, SkinningMode::Hybrid) <= 0.5 * cd(&twist_180, SkinningMode::Lbs));
    assert!((volume - 1.0).abs() <= 0.02, "volume ratio {volume}");
    assert!(
        bulge(SkinningMode::Hybrid) <= 1.2 * bulge(SkinningMode::Cor),
        "bulge {} vs CoR {}",
        bulge(SkinningMode::Hybrid),
        bulge(SkinningMode::Cor)
    );
    // Default joint-flag betas are much farther from CoR than the fit (the fit is doing the work).
    let flags = SceneBetas::defaults(&scene, None, &JointOverrides::new());
    let mut o = JointOverrides::new();
    o.set(
        twist.node,
        JointAngles {
            twist_deg: 180.0,
            ..JointAngles::default()
        },
    );
    let flagged = mode(&modes_at(&scene, &centers, &flags, o), SkinningMode::Hybrid).cor_distance;
    assert!(
        flagged.expect("cor_distance") > 2.0 * hybrid,
        "{flagged:?} vs {hybrid}"
    );
}

#[test]
fn cli_writes_the_library_fit_and_analyze_reads_it_back() {
    let dir = scratch_dir("blend-arm-cli");
    let cache = dir.join("cache");
    let out = dir.join("arm.glb");
    let args = [
        "blend",
        "builtin:arm",
        "--out",
        out.to_str().expect("utf-8"),
        "--samples",
        "7",
        "--sweep",
        "forearm_twist=0:180",
        "--bend-sweep",
        "elbow=0:90",
        "--smooth",
        "2",
    ];
    let run = dqview_in(&args, &cache);
    assert!(run.status.success(), "{}", stderr_of(&run));
    let written = load_model(out.to_str().expect("utf-8")).expect("the glb loads");
    let file_betas = written.meshes[0].primitives[0]
        .dqs_blend
        .clone()
        .expect("_DQS_BLEND");

    let scene = load_model("builtin:arm").expect("arm");
    let centers = SceneCenters::compute(&scene, &CorOptions::default(), &CorProgress::new())
        .expect("centers");
    let mut poses =
        FitPose::sweep_samples(&sweep(&scene, "forearm_twist", SweepKind::Twist, 180.0), 7);
    poses.extend(FitPose::sweep_samples(
        &sweep(&scene, "elbow", SweepKind::Bend, 90.0),
        7,
    ));
    let options = FitOptions {
        smooth_iterations: 2,
    };
    let fit = fit_blend(
        &scene,
        &centers,
        &poses,
        &options,
        &|_, _| {},
        &AtomicBool::new(false),
    )
    .expect("fit");
    let lib = fit.betas.of(0, 0);
    assert_eq!(file_betas.len(), lib.len());
    let off = file_betas
        .iter()
        .zip(lib)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    // The clustered CoR precompute differs by ~1e-6 between runs (parallel sums), hence not 0.
    assert!(off < 1e-4, "CLI and library fits differ by {off}");

    let analyzed = dqview_in(
        &[
            "analyze",
            out.to_str().expect("utf-8"),
            "--twist",
            "forearm_twist=180",
            "--json",
        ],
        &cache,
    );
    assert!(analyzed.status.success(), "{}", stderr_of(&analyzed));
    let report: Value = serde_json::from_slice(&analyzed.stdout).expect("JSON");
    assert_eq!(report["hybrid_betas"], "file _DQS_BLEND");
    let d = |m: &str| {
        report["modes"][m]["cor_distance"]
            .as_f64()
            .expect("cor_distance")
    };
    // At a 180 degree twist DQS is CoR; the fit's betas, near 1 on the forearm, come close to it.
    assert!(d("dqs") < 1e-6, "{report}");
    assert!(d("hybrid") < 0.05 * d("lbs"), "{report}");
    assert!(d("cor") < 1e-6);
}

#[test]
fn bad_input_is_a_clear_error_and_writes_nothing() {
    let dir = scratch_dir("blend-bad");
    let cache = dir.join("cache");
    let out = dir.join("out.glb");
    let o = out.to_str().expect("utf-8");
    let mut flat = support::GltfDoc::default();
    flat.quad(0.0, None, None);
    let unskinned = dir.join("flat.gltf");
    std::fs::write(&unskinned, flat.gltf(false)).expect("write");
    let unskinned_out = dir.join("flat_out.gltf");
    let twist = "forearm_twist=0:180";
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["builtin:arm", "--sweep", "nosuch=0:180", "--out", o],
            "--sweep: unknown joint `nosuch`; did you mean",
        ),
        (
            vec!["builtin:arm", "--sweep", "forearm_twist=0-180", "--out", o],
            "FROM:TO",
        ),
        (
            vec!["builtin:arm", "--sweep", "forearm_twist=0:nan", "--out", o],
            "not a finite number",
        ),
        (
            vec!["builtin:arm", "--bend-sweep", "elbow", "--out", o],
            "JOINT=FROM:TO",
        ),
        (
            vec!["builtin:arm", "--sweep", "elbow=90:90", "--out", o],
            "nothing is swept",
        ),
        (
            vec!["builtin:arm", "--sweep", twist, "--out", "x.obj"],
            "must end in .glb, .vrm, .gltf or .json",
        ),
        (
            vec!["builtin:arm", "--sweep", twist, "--out", "x.gltf"],
            "a built-in rig",
        ),
        (
            vec![
                "builtin:arm",
                "--sweep",
                twist,
                "--format",
                "json",
                "--out",
                o,
            ],
            "--out must end in .json",
        ),
        (
            vec![
                "builtin:arm",
                "--sweep",
                twist,
                "--format",
                "usd",
                "--out",
                o,
            ],
            "unknown --format",
        ),
        (vec!["builtin:arm", "--out", o], "no poses to fit over"),
        (
            vec!["builtin:arm", "--clip", "dance", "--out", o],
            "--clip: unknown clip `dance`; did you mean `twist_and_bend`? (`dqview inspect` lists its 1 clip); or `all` for every clip",
        ),
        (
            vec![
                "builtin:arm",
                "--sweep",
                twist,
                "--samples",
                "0",
                "--out",
                o,
            ],
            "--samples must be",
        ),
        (
            vec![
                "builtin:arm",
                "--sweep",
                twist,
                "--bulge-compensation",
                "0.5",
                "--out",
                o,
            ],
            "no effect on blend",
        ),
        (
            vec![
                unskinned.to_str().expect("utf-8"),
                "--sweep",
                "0=0:90",
                "--out",
                unskinned_out.to_str().expect("utf-8"),
            ],
            "unknown joint",
        ),
        (
            vec![
                unskinned.to_str().expect("utf-8"),
                "--clip",
                "all",
                "--out",
                unskinned_out.to_str().expect("utf-8"),
            ],
            "no clips",
        ),
        (
            vec!["missing.glb", "--sweep", twist, "--out", o],
            "cannot load missing.glb",
        ),
    ];
    for (args, expected) in cases {
        let mut full = vec!["blend"];
        full.extend(&args);
        let run = dqview_in(&full, &cache);
        let err = stderr_of(&run);
        assert_eq!(run.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains(expected),
            "{args:?}: `{err}` lacks `{expected}`"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // A rig without a skin but with a joint-like node to sweep: the skinned check speaks.
    let mut root: Value = serde_json::from_str(&flat.gltf(true)).expect("JSON");
    root["nodes"][0]
        .as_object_mut()
        .expect("node")
        .remove("skin");
    let jointless = dir.join("unskinned.gltf");
    std::fs::write(&jointless, root.to_string()).expect("write");
    let run = dqview_in(
        &[
            "blend",
            jointless.to_str().expect("utf-8"),
            "--sweep",
            "joint=0:90",
            "--out",
            unskinned_out.to_str().expect("utf-8"),
        ],
        &cache,
    );
    assert!(
        stderr_of(&run).contains("has no skinned primitives"),
        "{}",
        stderr_of(&run)
    );
    let left: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .collect();
    assert!(!out.exists() && !unskinned_out.exists(), "{left:?}");
    assert!(
        left.iter().all(|n| !n.to_string_lossy().ends_with(".tmp")),
        "{left:?}"
    );

    let Some(chars) = support::characters_dir("bad_input_is_a_clear_error_and_writes_nothing")
    else {
        return;
    };
    let robot = chars.join("RobotExpressive.glb");
    let run = dqview_in(
        &[
            "blend",
            robot.to_str().expect("utf-8"),
            "--clip",
            "all",
            "--out",
            "robot.gltf",
        ],
        &cache,
    );
    assert!(
        stderr_of(&run).contains("the input is a .glb"),
        "{}",
        stderr_of(&run)
    );
    if let Some(fbx) = support::data_dir(
        "DQVIEW_FBX",
        "bad_input_is_a_clear_error_and_writes_nothing",
    ) {
        let sausage = fbx.join("maya_game_sausage_7500_binary_combined.fbx");
        let run = dqview_in(
            &[
                "blend",
                sausage.to_str().expect("utf-8"),
                "--clip",
                "all",
                "--out",
                "s.gltf",
            ],
            &cache,
        );
        assert!(
            stderr_of(&run).contains("an FBX input is written as a .glb"),
            "{}",
            stderr_of(&run)
        );
    }
}

#[test]
fn ctrl_c_leaves_no_file() {
    let dir = scratch_dir("blend-cancel");
    let out = dir.join("arm.glb");
    let child = Command::new(env!("CARGO_BIN_EXE_dqview"))
        .args([
            "blend",
            "builtin:arm",
            "--sweep",
            "forearm_twist=0:180",
            "--samples",
            "100000",
        ])
        .arg("--out")
        .arg(&out)
        .env("DQVIEW_CACHE_DIR", dir.join("cache"))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    std::thread::sleep(Duration::from_millis(1500));
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(kill.success());
    let done = child.wait_with_output().expect("wait");
    assert_eq!(done.status.code(), Some(1), "{}", stderr_of(&done));
    assert!(
        stderr_of(&done).contains("cancelled: no file written"),
        "{}",
        stderr_of(&done)
    );
    let left: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .filter(|n| n != "cache")
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
