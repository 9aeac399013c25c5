//! Rig inspection: DQS flip angles, ratio series over twist sweeps and clips, hybrid betas from flags.

mod support;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use dqview::analysis::{BlendPairs, Measure, SeriesAxis, SeriesRequest, ratio_series, twist_flips};
use dqview::anim::Pose;
use dqview::anim::{JointAngles, JointOverrides};
use dqview::model::load_model;
use dqview::scene::Scene;
use dqview::skin::{Betas, HybridFlags, SceneBetas, SkinningMode, skin_scene};

/// Node index of the joint named `name`.
fn node(scene: &Scene, name: &str) -> usize {
    scene
        .nodes
        .iter()
        .position(|n| n.name == name)
        .unwrap_or_else(|| panic!("no node {name}"))
}

/// A request with default-flag betas at scale 1.
fn request(
    scene: &Scene,
    axis: SeriesAxis,
    samples: usize,
    overrides: JointOverrides,
) -> SeriesRequest {
    SeriesRequest {
        axis,
        samples,
        base_clip: None,
        base_time_s: 0.0,
        betas: SceneBetas::defaults(scene, Some(0), &overrides),
        overrides,
        beta_scale: 1.0,
        cor_centers: None,
        ddm: None,
        dm: None,
    }
}

#[test]
fn twist_flip_of_tip_is_at_plus_minus_180() {
    let scene = load_model("builtin:twist").unwrap();
    let pairs = BlendPairs::of_skin(&scene, 0);
    assert!(
        !pairs.pairs.is_empty(),
        "the middle of the tube blends base and tip"
    );
    let tip = node(&scene, "tip");
    let flips = twist_flips(&scene, &pairs, tip, None, 0.0, &JointOverrides::new());
    let above = flips.above_deg.expect("a flip above 0");
    let below = flips.below_deg.expect("a flip below 0");
    assert!((above - 180.0).abs() < 0.05, "flip above at {above}");
    assert!((below + 180.0).abs() < 0.05, "flip below at {below}");
    assert!(flips.is_flipped_at(190.0) && !flips.is_flipped_at(170.0));
    // Twisting the root turns the whole tube rigidly: nothing flips.
    let base = node(&scene, "base");
    let rigid = twist_flips(&scene, &pairs, base, None, 0.0, &JointOverrides::new());
    assert_eq!(rigid.above_deg, None);
    assert_eq!(rigid.below_deg, None);
}

#[test]
fn twist_flip_moves_with_the_base_pose() {
    // The clip twists tip 90 degrees by t = 1 s; a further override twist flips at +90 and -270.
    let scene = load_model("builtin:twist").unwrap();
    let pairs = BlendPairs::of_skin(&scene, 0);
    let tip = node(&scene, "tip");
    let flips = twist_flips(&scene, &pairs, tip, Some(0), 1.0, &JointOverrides::new());
    let above = flips.above_deg.unwrap();
    let below = flips.below_deg.unwrap();
    assert!((above - 90.0).abs() < 0.1, "flip above at {above}");
    assert!((below + 270.0).abs() < 0.1, "flip below at {below}");
    // A bend on the same joint is kept during the sweep and does not move a pure twist flip much,
    // but a bend of the parent changes nothing relative between base and tip.
    let mut bent = JointOverrides::new();
    bent.set(
        node(&scene, "base"),
        JointAngles {
            bend_deg: 40.0,
            ..JointAngles::default()
        },
    );
    let f = twist_flips(&scene, &pairs, tip, None, 0.0, &bent);
    assert!((f.above_deg.unwrap() - 180.0).abs() < 0.05);
}

#[test]
fn lbs_volume_over_a_twist_sweep_is_lowest_at_180_and_dqs_stays_within_one_percent() {
    let scene = load_model("builtin:twist").unwrap();
    let tip = node(&scene, "tip");
    let req = request(
        &scene,
        SeriesAxis::Twist { joint: tip },
        73,
        JointOverrides::new(),
    );
    let cancel = AtomicBool::new(false);
    let calls = AtomicUsize::new(0);
    let series = ratio_series(&scene, &req, &cancel, &|_, total| {
        assert_eq!(total, 73);
        calls.fetch_add(1, Ordering::Relaxed);
    })
    .unwrap();
    assert_eq!(calls.load(Ordering::Relaxed), 73);
    assert_eq!(series.measure, Measure::Volume);
    assert_eq!(series.x.len(), 73);
    assert!((series.x[0] + 360.0).abs() < 1e-4 && (series.x[72] - 360.0).abs() < 1e-4);
    // 10 degree steps: 180 is a sample. LBS is at its smallest there (and at -180).
    let (x_min, lbs_min) = series.min_of(SkinningMode::Lbs).unwrap();
    assert!((x_min.abs() - 180.0).abs() < 1e-3, "LBS minimum at {x_min}");
    assert!(lbs_min < 0.9, "LBS keeps {lbs_min} of the volume at 180");
    let lbs = series.of(SkinningMode::Lbs);
    let at = |deg: f32| {
        series
            .x
            .iter()
            .position(|&x| (x - deg).abs() < 1e-3)
            .unwrap()
    };
    assert!(
        (lbs[at(0.0)] - 1.0).abs() < 1e-6,
        "rest ratio {}",
        lbs[at(0.0)]
    );
    assert!(lbs[at(90.0)] < 1.0 && lbs[at(90.0)] > lbs_min);
    // LBS at 360 is the rest pose again.
    assert!((lbs[at(360.0)] - 1.0).abs() < 1e-4);
    let dqs_dev = series.max_deviation(SkinningMode::Dqs);
    assert!(dqs_dev < 0.01, "DQS moves the volume by {dqs_dev}");
    // Hybrid (the clip flags tip, beta = tip's weight) lies between: no worse than LBS anywhere,
    // clearly better at the collapse.
    let hybrid = series.of(SkinningMode::Hybrid);
    for (h, l) in hybrid.iter().zip(lbs) {
        assert!(*h >= *l - 1e-6, "hybrid {h} below LBS {l}");
    }
    let h180 = hybrid[at(180.0)];
    assert!(
        h180 > lbs_min + 0.05 && h180 < 1.0,
        "hybrid at 180: {h180}, LBS {lbs_min}"
    );
    println!(
        "twist sweep: LBS min {lbs_min:.4} at {x_min}, hybrid at 180 {h180:.4}, DQS max deviation {dqs_dev:.5}"
    );
    // The flip band: beyond +-180 DQS has flipped.
    assert!(series.dqs_flipped[at(190.0)] && series.dqs_flipped[at(-190.0)]);
    assert!(!series.dqs_flipped[at(170.0)] && !series.dqs_flipped[at(0.0)]);
}

#[test]
fn clip_series_follows_the_clip_and_cancels() {
    let scene = load_model("builtin:twist").unwrap();
    let req = request(
        &scene,
        SeriesAxis::ClipTime { clip: 0 },
        21,
        JointOverrides::new(),
    );
    let cancel = AtomicBool::new(false);
    let series = ratio_series(&scene, &req, &cancel, &|_, _| {}).unwrap();
    assert!((series.x[20] - 2.0).abs() < 1e-5, "the clip is 2 s long");
    let lbs = series.of(SkinningMode::Lbs);
    // The clip twists tip 0 -> 180: LBS loses volume monotonically (small slack).
    for w in lbs.windows(2) {
        assert!(w[1] <= w[0] + 1e-6, "LBS ratio rises: {w:?}");
    }
    assert!(lbs[20] < 0.9);
    assert!(series.max_deviation(SkinningMode::Dqs) < 0.01);
    // The clip stops at 180 exactly: no flip yet.
    assert!(series.dqs_flipped.iter().all(|f| !f));
    // A 20 degree override on top pushes the end of the clip past the flip.
    let mut over = JointOverrides::new();
    over.set(
        node(&scene, "tip"),
        JointAngles {
            twist_deg: 20.0,
            ..JointAngles::default()
        },
    );
    let req = request(&scene, SeriesAxis::ClipTime { clip: 0 }, 21, over);
    let series = ratio_series(&scene, &req, &cancel, &|_, _| {}).unwrap();
    assert!(series.dqs_flipped[20] && !series.dqs_flipped[10]);
    cancel.store(true, Ordering::Relaxed);
    assert!(ratio_series(&scene, &req, &cancel, &|_, _| {}).is_none());
}

#[test]
fn betas_follow_the_flags() {
    let scene = load_model("builtin:twist").unwrap();
    let tip = node(&scene, "tip");
    let skin = &scene.skins[0];
    let tip_j = skin.joints.iter().position(|&n| n == tip).unwrap();
    let mut flags = HybridFlags {
        dqs: vec![false; skin.joints.len()],
    };
    flags.dqs[tip_j] = true;
    let betas = SceneBetas::from_flags(&scene, std::slice::from_ref(&flags));
    let prim = &scene.meshes[0].primitives[0];
    let b = betas.of(0, 0);
    assert_eq!(b.len(), prim.positions.len());
    // beta = tip's weight: 0 below y = 0.5, 0.5 at the middle ring, 1 above y = 1.5.
    for (p, beta) in prim.positions.iter().zip(b) {
        if p.y < 0.49 {
            assert!(*beta < 1e-6);
        } else if p.y > 1.51 {
            assert!((*beta - 1.0).abs() < 1e-6);
        } else if (p.y - 1.0).abs() < 1e-5 {
            assert!((*beta - 0.5).abs() < 1e-5);
        }
    }
}

/// Largest vertex distance between the DQS skins of `scene` at two twists of `joint`.
fn dqs_jump(scene: &Scene, joint: usize, a_deg: f32, b_deg: f32) -> f32 {
    let skin_at = |deg: f32| {
        let mut o = JointOverrides::new();
        o.set(
            joint,
            JointAngles {
                twist_deg: deg,
                ..JointAngles::default()
            },
        );
        let mut pose = Pose::rest(scene);
        pose.sample(scene, Some(0), 0.0, &o);
        skin_scene(scene, &pose, SkinningMode::Dqs, Betas::Uniform(1.0))
    };
    let (a, b) = (skin_at(a_deg), skin_at(b_deg));
    let mut worst = 0.0f32;
    for (pa, pb) in a.iter().zip(&b) {
        for (p, q) in pa.vertices.positions.iter().zip(&pb.vertices.positions) {
            worst = worst.max((*p - *q).length());
        }
    }
    worst
}

#[test]
fn cesium_man_flip_is_where_the_dqs_skin_jumps() {
    let Some(dir) = support::data_dir("DQVIEW_SAMPLES", "cesium_man_flip") else {
        return;
    };
    let scene = load_model(dir.join("CesiumMan.glb").to_str().unwrap()).unwrap();
    let pairs = BlendPairs::of_skin(&scene, 0);
    // The joint whose positive twist flips soonest.
    let (joint, flip) = scene.skins[0]
        .joints
        .iter()
        .filter_map(|&j| {
            let f = twist_flips(&scene, &pairs, j, Some(0), 0.0, &JointOverrides::new());
            assert!(f.below_deg.is_none_or(|b| b < 0.0) && f.above_deg.is_none_or(|a| a > 0.0));
            f.above_deg.map(|a| (j, a))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .expect("some joint of CesiumMan flips within 360 degrees");
    // Across the flip, one degree of twist moves the DQS skin far more than one degree elsewhere.
    let across = dqs_jump(&scene, joint, flip - 0.5, flip + 0.5);
    let before = dqs_jump(&scene, joint, flip - 2.5, flip - 1.5);
    println!(
        "CesiumMan: joint {joint} flips at {flip:.3} deg; jump {across:.4} vs {before:.4} a degree earlier"
    );
    assert!(across > 5.0 * before, "across {across}, before {before}");
}

#[test]
fn cor_line_appears_with_centers_and_keeps_the_twisted_volume() {
    let scene = load_model("builtin:twist").unwrap();
    let tip = node(&scene, "tip");
    let mut req = request(
        &scene,
        SeriesAxis::Twist { joint: tip },
        37,
        JointOverrides::new(),
    );
    let cancel = AtomicBool::new(false);
    let without = ratio_series(&scene, &req, &cancel, &|_, _| {}).unwrap();
    assert!(
        without.of(SkinningMode::Cor).is_empty(),
        "no centers, no CoR line"
    );
    let progress = dqview::skin::CorProgress::new();
    let (centers, _) = dqview::skin::SceneCenters::compute_cached(
        &scene,
        &dqview::skin::CorOptions::default(),
        &progress,
    )
    .unwrap();
    req.cor_centers = Some(std::sync::Arc::new(centers));
    let with = ratio_series(&scene, &req, &cancel, &|_, _| {}).unwrap();
    let cor = with.of(SkinningMode::Cor);
    assert_eq!(cor.len(), 37);
    // CoR keeps the volume through the whole sweep (within 2%), where LBS loses over 10%.
    let cor_dev = with.max_deviation(SkinningMode::Cor);
    assert!(cor_dev < 0.02, "CoR moves the volume by {cor_dev}");
    let (_, lbs_min) = with.min_of(SkinningMode::Lbs).unwrap();
    assert!(lbs_min < 0.9, "LBS minimum {lbs_min}");
    // The other lines are the same as without centers.
    assert_eq!(with.of(SkinningMode::Lbs), without.of(SkinningMode::Lbs));
}
