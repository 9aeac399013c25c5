//! `dqview twist-joints` on the shared Adventurer (a .gltf) and RobotExpressive (a .glb):
//! the rest pose and the input are unchanged, weights are a partition of unity within the
//! influence budget, a twist override drives the twist joints through the written
//! constraints, the baked channels play what the constraints say, a second run replaces the
//! first's nodes, the glTF-Validator finds nothing new, and the fix moves LBS towards CoR.

mod support;

use std::path::{Path, PathBuf};

use dqview::anim::{JointOverrides, Pose};
use dqview::scene::Scene;
use dqview::skin::rest_bounds;

/// Writes the twist-joints output of `model` with `args` into `dir/name`; its path.
fn twist_joints(model: &Path, name: &str, args: &[&str], dir: &Path) -> PathBuf {
    let out = dir.join(name);
    let mut all = vec![
        "twist-joints",
        model.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
    ];
    all.extend_from_slice(args);
    let o = support::dqview_in(&all, &dir.join("cache"));
    assert!(
        o.status.success(),
        "dqview {all:?}: {}",
        support::stderr_of(&o)
    );
    out
}

fn load(path: &Path) -> Scene {
    dqview::model::load_model(path.to_str().expect("utf-8")).expect("the file loads")
}

fn diagonal(scene: &Scene) -> f32 {
    let (lo, hi) = rest_bounds(scene).expect("bounds");
    lo.distance(hi)
}

fn twist(scene: &Scene, joint: &str, deg: f32) -> JointOverrides {
    JointOverrides::twist(
        dqview::scene::names::joint(scene, joint).expect("joint"),
        deg,
    )
}

fn node(scene: &Scene, name: &str) -> usize {
    scene
        .nodes
        .iter()
        .position(|n| n.name == name)
        .unwrap_or_else(|| panic!("no node {name}"))
}

#[test]
fn the_adventurer_keeps_its_rest_pose_and_its_input_and_a_twist_drives_the_new_joints() {
    let Some(chars) = support::characters_dir("twist_joints") else {
        return;
    };
    let input = chars.join("Adventurer.gltf");
    let before = std::fs::read(&input).expect("input");
    let dir = support::scratch_dir("twist_joints_adventurer");
    let out = twist_joints(
        &input,
        "adv.gltf",
        &["--joint", "UpperArm.L", "--joint", "LowerArm.L"],
        &dir,
    );
    assert_eq!(
        std::fs::read(&input).expect("input"),
        before,
        "the input's bytes changed"
    );
    assert!(dir.join("adv.twist.bin").is_file());
    let (a, b) = (load(&input), load(&out));
    let d = diagonal(&a);
    // Three junctions (shoulder, elbow, wrist) of 2 + 2 weighted and 2 helper nodes each; the
    // Adventurer's arms rest away from their bind pose, so each weighted node has a twin bound
    // like the junction's other end (`_k`, `_p`): 10 nodes, 9 of them constrained.
    assert_eq!(b.nodes.len(), a.nodes.len() + 3 * 10);
    assert_eq!(b.constraints.len(), 3 * 9);
    assert!(
        b.nodes[a.nodes.len()..]
            .iter()
            .all(|n| n.name.contains("_twist_"))
    );
    let none = JointOverrides::new();
    let rest = support::largest_offset(
        &support::lbs_at(&a, None, 0.0, &none),
        &support::lbs_at(&b, None, 0.0, &none),
        d,
    );
    // Each new joint's skinning matrix at rest is its source joint's, G * IBM rounded in f32
    // (two products of matrices whose entries reach 1.5 here): 1.8e-7 is that rounding.
    assert!(
        rest <= 2.5e-7,
        "rest pose moved by {rest:e} of the diagonal"
    );
    // Weights: a partition of unity, at most 4 influences.
    for mesh in &b.meshes {
        for p in &mesh.primitives {
            let Some(inf) = p.influences.as_ref() else {
                continue;
            };
            assert!(inf.max_influences() <= 4);
            assert!(
                inf.off_sums().is_empty(),
                "weights as written sum off 1: {:?}",
                &inf.off_sums()[..1]
            );
        }
    }
    // A 90 degree twist of the forearm turns LowerArm.L_twist_01 (share 1/3) by 30 degrees.
    let k = node(&b, "LowerArm.L");
    let skin = &b.skins[0];
    let m = |pose: &Pose, n: usize| {
        let j = skin
            .joints
            .iter()
            .position(|&x| x == n)
            .expect("a joint of skin 0");
        pose.global[n] * skin.inverse_bind[j]
    };
    let mut at90 = Pose::rest(&b);
    at90.sample(&b, None, 0.0, &twist(&b, "LowerArm.L", 90.0));
    let mut at30 = Pose::rest(&b);
    at30.sample(&b, None, 0.0, &twist(&b, "LowerArm.L", 30.0));
    let got = m(&at90, node(&b, "LowerArm.L_twist_01"));
    let want = m(&at30, k);
    let off = (got - want)
        .to_cols_array()
        .iter()
        .fold(0.0f32, |x, y| x.max(y.abs()));
    assert!(
        off < 1e-5,
        "LowerArm.L_twist_01 at a 90 degree twist is {got}, want {want}"
    );
    // The output's LBS at a 170 degree forearm twist differs from the input's (the fix acts)
    // and keeps more of the forearm's volume.
    let o = twist(&a, "LowerArm.L", 170.0);
    assert!(
        support::largest_offset(
            &support::lbs_at(&a, None, 0.0, &o),
            &support::lbs_at(&b, None, 0.0, &o),
            d
        ) > 1e-3
    );
}

#[test]
fn the_baked_channels_play_what_the_constraints_say_and_a_second_run_replaces_the_first() {
    let Some(chars) = support::characters_dir("twist_joints") else {
        return;
    };
    let input = chars.join("Adventurer.gltf");
    let dir = support::scratch_dir("twist_joints_bake");
    let out = twist_joints(&input, "adv.gltf", &["--joint", "LowerArm.L"], &dir);
    let b = load(&out);
    let d = diagonal(&b);
    let run = dqview::scene::names::clip(&b, "Run").expect("a Run clip");
    let mut baked = b.clone();
    baked.constraints.clear();
    let none = JointOverrides::new();
    // At the clip's keys (24 a second) the baked channels equal the constraints' rotations.
    for key in [3, 9, 14] {
        let t = key as f32 / 24.0;
        let off = support::largest_offset(
            &support::lbs_at(&b, Some(run), t, &none),
            &support::lbs_at(&baked, Some(run), t, &none),
            d,
        );
        assert!(
            off <= 1e-6,
            "Run at {t} s: baked and constrained differ by {off:e}"
        );
    }
    // Run on its own output with another count: the old nodes go, the new ones come.
    let again = twist_joints(
        &out,
        "again.gltf",
        &["--joint", "LowerArm.L", "--count", "3"],
        &dir,
    );
    let c = load(&again);
    let a = load(&input);
    // Two junctions (elbow, wrist) of 3 + 3 weighted nodes, their twins and 2 helpers each.
    assert_eq!(c.nodes.len(), a.nodes.len() + 2 * 14);
    assert_eq!(
        c.nodes
            .iter()
            .filter(|n| n.name.starts_with("LowerArm.L_twist_0") && !n.name.ends_with("_p"))
            .count(),
        3
    );
    // Back to two: the same rig as one run on the input.
    let back = twist_joints(&again, "back.gltf", &["--joint", "LowerArm.L"], &dir);
    let e = load(&back);
    assert_eq!(e.nodes.len(), b.nodes.len());
    let o = twist(&a, "LowerArm.L", 150.0);
    let off = support::largest_offset(
        &support::lbs_at(&b, None, 0.0, &o),
        &support::lbs_at(&e, None, 0.0, &o),
        d,
    );
    // The weights given back are sums of the helpers' stored weights, so the stripped input
    // differs from the original by their rounding, and the fit (whose chosen influences can
    // switch on such a difference) lands within a few 1e-4 of the first run; weight left on
    // the old nodes, or not given back, moves vertices by 1e-2 here.
    assert!(off <= 1e-3, "a re-run differs from a first run by {off:e}");
}

#[test]
fn the_validator_finds_nothing_new_and_eight_influences_use_two_sets() {
    let Some(chars) = support::characters_dir("twist_joints") else {
        return;
    };
    let Some(validator) = support::gltf_validator("twist_joints") else {
        return;
    };
    let dir = support::scratch_dir("twist_joints_validator");
    for (input, name, args) in [
        (
            chars.join("Adventurer.gltf"),
            "adv.gltf",
            vec![
                "--joint",
                "UpperArm.L",
                "--joint",
                "LowerArm.R",
                "--max-influences",
                "8",
            ],
        ),
        (
            chars.join("RobotExpressive.glb"),
            "robot.vrm",
            vec!["--joint", "LowerArm.L", "--joint", "LowerArm.R"],
        ),
    ] {
        let out = twist_joints(&input, name, &args, &dir);
        let (was, now) = (
            support::validate_gltf(&validator, &input),
            support::validate_gltf(&validator, &out),
        );
        assert_eq!(now.errors, 0, "{name}: {:?}", now.messages);
        assert!(
            now.warnings <= was.warnings,
            "{name}: {} warnings, the input has {}",
            now.warnings,
            was.warnings
        );
        // The fit keeps a vertex's influences sparse; on the Adventurer's arms over 700
        // vertices take more than four of the eight, written as JOINTS_0 and JOINTS_1.
        if args.contains(&"8") {
            let scene = load(&out);
            let most = scene
                .meshes
                .iter()
                .flat_map(|m| &m.primitives)
                .filter_map(|p| p.influences.as_ref())
                .map(|i| i.max_influences())
                .max();
            assert!(
                most.is_some_and(|m| (5..=8).contains(&m)),
                "most influences {most:?}"
            );
        }
    }
}

#[test]
fn bad_requests_are_one_line_errors() {
    let Some(chars) = support::characters_dir("twist_joints") else {
        return;
    };
    let dir = support::scratch_dir("twist_joints_errors");
    let input = chars.join("Adventurer.gltf");
    let model = input.to_str().expect("utf-8");
    for (args, says) in [
        (
            vec!["--out", "x.glb", "--joint", "LowerArm.L"],
            "must end in .gltf",
        ),
        (
            vec!["--out", "x.gltf", "--joint", "NoSuchJoint"],
            "NoSuchJoint",
        ),
        (
            vec!["--out", "x.gltf", "--joint", "LowerArm.L=0"],
            "give 1 to 8",
        ),
        (
            vec![
                "--out",
                "x.gltf",
                "--joint",
                "LowerArm.L",
                "--max-influences",
                "5",
            ],
            "--max-influences 5",
        ),
        (
            vec!["--out", "x.obj", "--joint", "LowerArm.L"],
            "--out must end in",
        ),
    ] {
        let mut all = vec!["twist-joints", model];
        let out = dir.join(args[1]);
        let mut args = args.clone();
        args[1] = out.to_str().expect("utf-8");
        all.extend(args);
        let o = support::dqview_in(&all, &dir);
        let err = support::stderr_of(&o);
        assert!(!o.status.success(), "{all:?} succeeded");
        assert!(err.contains(says), "{all:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(!out.exists(), "{} was written", out.display());
    }
}

#[test]
fn in_the_clips_the_arms_and_their_parents_move_towards_cor() {
    use dqview::skin::{CorOptions, CorProgress, SceneCenters, skin_scene_cor};
    let Some(chars) = support::characters_dir("twist_joints") else {
        return;
    };
    let input = chars.join("Adventurer.gltf");
    let dir = support::scratch_dir("twist_joints_clips");
    let args = [
        "--joint",
        "UpperArm.L",
        "--joint",
        "LowerArm.L",
        "--joint",
        "UpperArm.R",
        "--joint",
        "LowerArm.R",
    ];
    let out = twist_joints(&input, "adv.gltf", &args, &dir);
    let (a, b) = (load(&input), load(&out));
    let reference = dqview::analysis::RestReference::at_rest(&a);
    let centers =
        SceneCenters::compute(&a, &CorOptions::default(), &CorProgress::new()).expect("centers");
    let none = JointOverrides::new();
    // `check`'s worst moments of these regions (the shoulders are the junctions' parents).
    for (joint, clip, time_s) in [
        ("UpperArm.L", "Death", 0.552),
        ("UpperArm.R", "Death", 0.552),
        ("Shoulder.R", "Death", 0.552),
        ("Shoulder.R", "Punch_Right", 0.826),
        ("Shoulder.L", "Punch_Left", 0.862),
    ] {
        let region = reference
            .region(dqview::scene::names::joint(&a, joint).expect("joint"))
            .expect("region");
        let c = Some(dqview::scene::names::clip(&a, clip).expect("clip"));
        let mut pose = Pose::rest(&a);
        pose.sample(&a, c, time_s, &none);
        let cor = region
            .ratio(&skin_scene_cor(&a, &pose, &centers))
            .expect("measurable");
        let before = region
            .ratio(&support::lbs_at(&a, c, time_s, &none))
            .expect("measurable");
        let after = region
            .ratio(&support::lbs_at(&b, c, time_s, &none))
            .expect("measurable");
        assert!(
            (after - cor).abs() < (before - cor).abs(),
            "{joint} in {clip} at {time_s} s: LBS {before:.3} -> {after:.3}, CoR {cor:.3}"
        );
    }
}

#[test]
fn analyze_and_report_take_the_output_like_any_file() {
    let Some(chars) = support::characters_dir("twist_joints_report") else {
        return;
    };
    let dir = support::scratch_dir("twist_joints_report");
    let out = twist_joints(
        &chars.join("Adventurer.gltf"),
        "adv.gltf",
        &["--joint", "LowerArm.L"],
        &dir,
    );
    let path = out.to_str().expect("utf-8");
    let o = support::dqview_in(&["analyze", path, "--clip", "0"], &dir.join("cache"));
    assert!(o.status.success(), "{}", support::stderr_of(&o));
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        said.contains("LowerArm.L_twist"),
        "its regions are measured: {said}"
    );
    let html = dir.join("adv.html");
    let o = support::dqview_in(
        &["report", path, "--out", html.to_str().expect("utf-8")],
        &dir.join("cache"),
    );
    assert!(o.status.success(), "{}", support::stderr_of(&o));
    let html = std::fs::read_to_string(&html).expect("the report");
    if std::env::var("DQVIEW_REQUIRE_GPU").is_ok_and(|v| v == "1") {
        // The rig's aim and frame nodes weight no vertex: a flip on one must not cost the
        // report its pictures (it framed the first flip joint, and failed on them).
        assert!(!html.contains("GPU renders left out"), "renders left out");
        assert!(html.contains("Twist of "), "the flip sweep picture");
    }
}
