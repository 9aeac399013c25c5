//! Issue 22 items 1 and 2 on a shared character (Adventurer): a blend map written by
//! `dqview blend` is used as stored by `export --mode hybrid` (CPU and GPU), `--beta` overrides
//! it and says so; a fit with a twist under review brings that pose closer to CoR.

mod support;

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use dqview::analysis::compare_fit;
use dqview::anim::{JointAngles, JointOverrides, find_clip, find_node};
use dqview::model::load_model;
use dqview::scene::Scene;
use dqview::skin::{
    BetaChoice, BetaSources, CorOptions, CorProgress, FitOptions, FitPose, ReviewPoses, SceneBetas,
    SceneCenters, fit_blend, hybrid_betas, rest_bounds,
};
use glam::Vec3;
use support::{dqview_in, obj_groups, scratch_dir, stderr_of};

/// The posed vertices of an OBJ export by (mesh, primitive), from its `o nodeN_meshM_primP` groups.
fn exported(text: &str) -> HashMap<(usize, usize), Vec<Vec3>> {
    obj_groups(text)
        .into_iter()
        .map(|(name, vertices)| {
            let mut ids = name
                .split('_')
                .map(|part| part.trim_start_matches(|c: char| c.is_ascii_alphabetic()));
            let _node = ids.next();
            let mesh: usize = ids.next().and_then(|m| m.parse().ok()).expect("mesh index");
            let prim: usize = ids.next().and_then(|p| p.parse().ok()).expect("prim index");
            ((mesh, prim), vertices)
        })
        .collect()
}

/// Runs `dqview export MODEL --out DIR/NAME.obj EXTRA...` and returns its vertices and stderr.
fn export(
    model: &Path,
    dir: &Path,
    name: &str,
    extra: &[&str],
) -> (HashMap<(usize, usize), Vec<Vec3>>, String) {
    let out = dir.join(format!("{name}.obj"));
    let mut args = vec![
        "export",
        model.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
        "--clip",
        "Run",
        "--time",
        "0.3",
        "--twist",
        "LowerArm.L=150",
    ];
    args.extend_from_slice(extra);
    let run = dqview_in(&args, &dir.join("cache"));
    assert!(run.status.success(), "export {name}: {}", stderr_of(&run));
    let text = std::fs::read_to_string(&out).expect("obj");
    (exported(&text), stderr_of(&run))
}

/// Largest distance, over the diagonal, of `got` from (1-b) LBS + b DQS with `b` per vertex.
fn off_lerp(
    scene: &Scene,
    got: &HashMap<(usize, usize), Vec<Vec3>>,
    lbs: &HashMap<(usize, usize), Vec<Vec3>>,
    dqs: &HashMap<(usize, usize), Vec<Vec3>>,
    beta: &dyn Fn(usize, usize, usize) -> f32,
) -> f32 {
    let (lo, hi) = rest_bounds(scene).expect("bounds");
    let diagonal = (hi - lo).length();
    let mut worst = 0.0f32;
    for (key, g) in got {
        let (l, q) = (&lbs[key], &dqs[key]);
        assert_eq!((g.len(), l.len()), (q.len(), q.len()));
        for (v, ((g, l), q)) in g.iter().zip(l).zip(q).enumerate() {
            let b = beta(key.0, key.1, v);
            worst = worst.max((*g - (*l * (1.0 - b) + *q * b)).length() / diagonal);
        }
    }
    worst
}

#[test]
fn a_blended_file_is_exported_at_the_strength_stored_on_cpu_and_gpu() {
    let test = "a_blended_file_is_exported_at_the_strength_stored_on_cpu_and_gpu";
    let Some(chars) = support::characters_dir(test) else {
        return;
    };
    let dir = scratch_dir("hybrid-as-stored");
    let blended = dir.join("adventurer_blend.gltf");
    let source = chars.join("Adventurer.gltf");
    let fit = dqview_in(
        &[
            "blend",
            source.to_str().expect("utf-8"),
            "--out",
            blended.to_str().expect("utf-8"),
            "--sweep",
            "LowerArm.L=-180:180",
            "--bend-sweep",
            "UpperArm.L=0:90",
            "--samples",
            "5",
        ],
        &dir.join("cache"),
    );
    assert!(fit.status.success(), "blend: {}", stderr_of(&fit));
    // The map as `blend` wrote it, read back from the file.
    let scene = load_model(blended.to_str().expect("utf-8")).expect("the blended file loads");
    let stored = |m: usize, p: usize, v: usize| -> f32 {
        let prim = &scene.meshes[m].primitives[p];
        prim.dqs_blend
            .as_ref()
            .expect("_DQS_BLEND on a skinned primitive")[v]
    };
    let between = scene
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .filter_map(|p| p.dqs_blend.as_ref())
        .flatten()
        .filter(|&&b| b > 0.05 && b < 0.95)
        .count();
    assert!(
        between > 100,
        "the fitted map should hold betas between LBS and DQS: {between}"
    );

    let (lbs, _) = export(&blended, &dir, "lbs", &["--mode", "lbs"]);
    let (dqs, _) = export(&blended, &dir, "dqs", &["--mode", "dqs"]);
    let (cpu, cpu_err) = export(&blended, &dir, "hybrid", &["--mode", "hybrid"]);
    assert!(
        !cpu_err.contains("--beta"),
        "no override, no notice: {cpu_err}"
    );
    let off = off_lerp(&scene, &cpu, &lbs, &dqs, &stored);
    assert!(
        off < 1e-6,
        "CPU hybrid is {off} of the diagonal off (1-b) LBS + b DQS"
    );
    let (gpu, _) = export(&blended, &dir, "hybrid_gpu", &["--mode", "hybrid", "--gpu"]);
    let off = off_lerp(&scene, &gpu, &lbs, &dqs, &stored);
    assert!(
        off < 1e-6,
        "GPU hybrid is {off} of the diagonal off (1-b) LBS + b DQS"
    );
    // Before the change hybrid ignored the map (one beta of 0.5): the map must show.
    let half = off_lerp(&scene, &cpu, &lbs, &dqs, &|_, _, _| 0.5);
    assert!(half > 1e-4, "the stored map makes no difference ({half})");

    // --beta B overrides the map uniformly and says so on stderr.
    let (uniform, err) = export(
        &blended,
        &dir,
        "uniform",
        &["--mode", "hybrid", "--beta", "0.3"],
    );
    assert!(
        err.contains("--beta 0.3: one beta for every vertex, over the stored blend map"),
        "{err}"
    );
    let off = off_lerp(&scene, &uniform, &lbs, &dqs, &|_, _, _| 0.3);
    assert!(off < 1e-6, "--beta 0.3 is {off} off the 0.3 lerp");
    // --beta where no hybrid is drawn cannot take effect: refused.
    let out = dir.join("refused.obj");
    let run = dqview_in(
        &[
            "export",
            blended.to_str().expect("utf-8"),
            "--out",
            out.to_str().expect("utf-8"),
            "--mode",
            "dqs",
            "--beta",
            "0.3",
        ],
        &dir.join("cache"),
    );
    assert!(!run.status.success() && stderr_of(&run).contains("add --mode hybrid"));
}

#[test]
fn a_fit_with_the_twist_under_review_brings_that_pose_closer_to_cor_than_flags() {
    let test = "a_fit_with_the_twist_under_review_brings_that_pose_closer_to_cor_than_flags";
    let Some(chars) = support::characters_dir(test) else {
        return;
    };
    let scene = load_model(chars.join("Adventurer.gltf").to_str().expect("utf-8")).expect("load");
    let forearm = find_node(&scene, "LowerArm.L").expect("LowerArm.L");
    let centers = SceneCenters::compute(&scene, &CorOptions::default(), &CorProgress::new())
        .expect("centers");
    let mut overrides = JointOverrides::new();
    overrides.set(
        forearm,
        JointAngles {
            twist_deg: 170.0,
            ..JointAngles::default()
        },
    );
    let current = FitPose {
        clip: None,
        time_s: 0.0,
        overrides: overrides.clone(),
    };
    let clips: Vec<usize> = ["Run", "Wave"]
        .iter()
        .map(|c| find_clip(&scene, c).expect("clip"))
        .collect();
    let review = ReviewPoses {
        clips: clips.clone(),
        samples: 8,
        current: Some(current.clone()),
        joint: Some(forearm),
    };
    let poses = review.poses(&scene);
    // The review: the clips, the pose (8 times), then the forearm's twist and bend on top of it.
    assert_eq!(poses.len(), 8 * 2 + 8 + 16);
    assert_eq!(poses[16], current);
    assert_eq!(
        poses.last().map(|p| p.overrides.get(forearm).twist_deg),
        Some(170.0)
    );
    let never = AtomicBool::new(false);
    let fit = |poses: &[FitPose]| {
        fit_blend(
            &scene,
            &centers,
            poses,
            &FitOptions::default(),
            &|_, _| {},
            &never,
        )
        .expect("fit")
        .betas
    };
    let fitted = fit(&poses);
    let clips_only = fit(&ReviewPoses {
        clips,
        samples: 8,
        ..ReviewPoses::default()
    }
    .poses(&scene));
    let flags_only = BetaSources {
        choice: BetaChoice::JointFlags,
        ..BetaSources::stored(None, &overrides)
    };
    let flags: SceneBetas = hybrid_betas(&scene, &flags_only).betas;
    let table = compare_fit(
        &scene,
        &centers,
        &current.to_pose(&scene),
        Some(forearm),
        &[
            ("flags", &flags),
            ("clips only", &clips_only),
            ("fitted", &fitted),
        ],
    );
    for line in table.table().lines() {
        eprintln!("{line}");
    }
    let region = |label: &str| table.row(label).and_then(|r| r.region).expect("region row");
    let ratio = |label: &str| region(label).ratio.expect("the forearm is measurable");
    let cor = ratio("CoR");
    let gap = |label: &str| (ratio(label) - cor).abs();
    assert!(
        gap("fitted") < gap("flags"),
        "fitted {} vs flags {} (CoR {cor})",
        ratio("fitted"),
        ratio("flags")
    );
    assert!(region("fitted").cor_mean < region("flags").cor_mean);
    assert!(region("fitted").cor_mean < region("clips only").cor_mean);
    assert!(region("CoR").cor_max == 0.0 && region("LBS").cor_mean > 0.0);
}
