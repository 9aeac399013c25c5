//! Regions whose volume means nothing are reported as such, never as a number: the robot's
//! palms and finger joints (7 to 15 triangles each, or capped volumes that turn inside out)
//! in `analyze`, `check`, `report` and the helper-joint picker; and the picker treats left and
//! right alike and finds bends.

mod support;

use dqview::analysis::{NotMeasurable, RestReference};
use dqview::scene::Scene;
use dqview::skin::{CorOptions, CorProgress, SceneCenters};
use dqview::twist_joints::{Mirror, MirrorMap, pick_joints};

/// The robot's left palm: 10 triangles have it as their first corner's heaviest influence.
const SMALL_REGION: &str = "Palm2.L";

fn load(name: &str) -> Option<Scene> {
    let dir = support::characters_dir("not_measurable")?;
    Some(dqview::model::load_model(dir.join(name).to_str()?).expect("the character loads"))
}

fn node(scene: &Scene, name: &str) -> usize {
    dqview::scene::names::joint(scene, name).expect("joint")
}

#[test]
fn a_region_of_a_few_triangles_has_no_ratio_and_says_why() {
    let Some(robot) = load("RobotExpressive.glb") else {
        return;
    };
    let reference = RestReference::at_rest(&robot);
    let palm = reference
        .region(node(&robot, SMALL_REGION))
        .expect("the palm has a region");
    assert_eq!(palm.not_measurable, Some(NotMeasurable::FewTriangles(10)));
    let rest = dqview::skin::skin_scene(
        &robot,
        &dqview::anim::Pose::rest(&robot),
        dqview::skin::SkinningMode::Dqs,
        dqview::skin::Betas::Uniform(0.0),
    );
    assert_eq!(palm.ratio(&rest), Err(NotMeasurable::FewTriangles(10)));
    // The whole-scene ratios leave it out (so it is never a "worst joint"); the list says why.
    let (_, regions) = reference.ratios(&robot, &rest);
    assert!(regions.iter().all(|(j, _)| *j != palm.joint));
    assert!(
        reference
            .not_measurable()
            .contains(&(palm.joint, NotMeasurable::FewTriangles(10)))
    );
    // A region with enough triangles keeps its number: the forearm, 101 triangles.
    let forearm = reference
        .region(node(&robot, "LowerArm.L"))
        .expect("region");
    assert!(forearm.is_measurable());
    let ratio = forearm.ratio(&rest).expect("measurable");
    assert!(ratio.is_finite() && ratio > 0.9, "{ratio}");
}

#[test]
fn a_region_turned_inside_out_is_not_measurable_at_that_pose() {
    let Some(adventurer) = load("Adventurer.gltf") else {
        return;
    };
    let reference = RestReference::at_rest(&adventurer);
    let forearm = reference
        .region(node(&adventurer, "LowerArm.L"))
        .expect("region");
    let mut posed = dqview::skin::skin_scene(
        &adventurer,
        &dqview::anim::Pose::rest(&adventurer),
        dqview::skin::SkinningMode::Lbs,
        dqview::skin::Betas::Uniform(0.0),
    );
    assert!((forearm.ratio(&posed).expect("measurable") - 1.0).abs() < 1e-4);
    // Mirrored, every triangle winds the other way: the same solid, inside out.
    for p in &mut posed {
        for v in &mut p.vertices.positions {
            v.x = -v.x;
        }
    }
    match forearm.ratio(&posed) {
        Err(NotMeasurable::InsideOut(r)) => assert!((r + 1.0).abs() < 1e-3, "{r}"),
        other => panic!("inside out, not {other:?}"),
    }
}

#[test]
fn analyze_check_and_report_say_not_measurable_with_the_reason() {
    let Some(chars) = support::characters_dir("not_measurable") else {
        return;
    };
    let dir = support::scratch_dir("not_measurable_cli");
    let robot = chars.join("RobotExpressive.glb");
    let robot = robot.to_str().expect("utf-8");
    let reason = "10 triangles, fewer than 24";

    let o = support::dqview_in(&["analyze", robot, "--joint", SMALL_REGION], &dir);
    assert!(o.status.success(), "{}", support::stderr_of(&o));
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        said.contains(&format!("not measurable: {reason}")),
        "{said}"
    );
    assert!(!said.contains("region volume ratio"), "no number: {said}");

    let o = support::dqview_in(&["analyze", robot, "--json"], &dir);
    assert!(o.status.success(), "{}", support::stderr_of(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let listed = json["regions_not_measurable"]
        .as_array()
        .expect("a list")
        .iter()
        .find(|r| r["name"] == SMALL_REGION)
        .unwrap_or_else(|| panic!("{SMALL_REGION} listed: {json}"));
    assert!(listed["reason"].as_str().expect("reason").contains(reason));
    for mode in json["modes"].as_object().expect("modes").values() {
        let worst = mode["worst_joints"].as_array().expect("worst joints");
        assert!(worst.iter().all(|w| w["name"] != SMALL_REGION), "{mode}");
    }

    let o = support::dqview_in(&["check", robot], &dir);
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        said.lines().any(|l| l.starts_with("info")
            && l.contains("not measurable")
            && l.contains(&format!("{SMALL_REGION} ({reason}"))),
        "{said}"
    );

    let html = dir.join("robot.html");
    let o = support::dqview_in(
        &[
            "report",
            robot,
            "--out",
            html.to_str().expect("utf-8"),
            "--samples",
            "3",
            "--fit-samples",
            "1",
            "--renders",
            "0",
        ],
        &dir,
    );
    assert!(o.status.success(), "{}", support::stderr_of(&o));
    let page = std::fs::read_to_string(&html).expect("the page");
    let note = page
        .split("Not measurable, so never ranked: ")
        .nth(1)
        .unwrap_or_else(|| panic!("no not-measurable note on the page"));
    let note = note.split("</p>").next().unwrap_or_default();
    assert!(
        note.contains(&format!("<b>{SMALL_REGION}</b> ({reason}")),
        "{note}"
    );
}

#[test]
fn the_picker_fixes_both_sides_alike_and_finds_bends() {
    let Some(adventurer) = load("Adventurer.gltf") else {
        return;
    };
    // Mirror partners come from the bind pose: the Adventurer rests with its torso turned.
    let mirrors = MirrorMap::of(&adventurer);
    for (left, right) in [
        ("UpperArm.L", "UpperArm.R"),
        ("LowerLeg.L", "LowerLeg.R"),
        ("Index2.L", "Index2.R"),
    ] {
        let (l, r) = (node(&adventurer, left), node(&adventurer, right));
        assert_eq!(mirrors.of_joint(l), Mirror::Partner(r), "{left}");
        assert_eq!(mirrors.of_joint(r), Mirror::Partner(l), "{right}");
    }
    assert_eq!(
        mirrors.of_joint(node(&adventurer, "Abdomen")),
        Mirror::OnPlane
    );

    let centers = SceneCenters::compute(&adventurer, &CorOptions::default(), &CorProgress::new())
        .expect("centers");
    let reference = RestReference::at_rest(&adventurer);
    let picks = pick_joints(
        &adventurer,
        &reference,
        &centers,
        std::time::Duration::from_secs(120),
    );
    let picked: Vec<&str> = picks
        .joints
        .iter()
        .map(|p| adventurer.nodes[p.joint].name.as_str())
        .collect();
    println!("picked {picked:?}; notes {:?}", picks.notes);
    assert!(picked.len() >= 10, "{picked:?}");
    for name in &picked {
        let other = if let Some(stem) = name.strip_suffix(".L") {
            format!("{stem}.R")
        } else if let Some(stem) = name.strip_suffix(".R") {
            format!("{stem}.L")
        } else {
            continue;
        };
        assert!(picked.contains(&other.as_str()), "{name} without {other}");
    }
    // No pick rests on a region that is not measurable, and those regions are named.
    for p in &picks.joints {
        assert!(
            reference.region(p.joint).is_some_and(|r| r.is_measurable()),
            "{}",
            p.reason
        );
    }
    assert!(
        picks
            .notes
            .iter()
            .any(|n| n.starts_with("not measurable") && n.contains("Wrist.L (13 triangles")),
        "{:?}",
        picks.notes
    );
    // Bends: the thumbs' tips collapse under LBS when bent at rest, not when twisted.
    let bent: Vec<&str> = picks
        .joints
        .iter()
        .filter(|p| p.reason.starts_with("bent "))
        .map(|p| adventurer.nodes[p.joint].name.as_str())
        .collect();
    assert!(
        bent.contains(&"Thumb3.L") && bent.contains(&"Thumb3.R"),
        "{bent:?}"
    );
}
