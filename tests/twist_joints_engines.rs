//! Other engines playing `dqview twist-joints` output as dqview does: the Adventurer with twist
//! joints on its left arm (`--joint UpperArm.L --joint LowerArm.L`: the junctions at the
//! shoulder, elbow and wrist), written once per test into its scratch folder.
//!
//! - Stock three.js (`render.mjs --method stock`, no constraints) plays a clip from the baked
//!   rotation channels alone: at Punch_Left's key 20 (0.833 s, the upper arm about 80 degrees
//!   from its rest twist) its mask matches `dqview render --mode lbs` of the output.
//! - three-vrm's `VRMC_node_constraint` plugin (`render.mjs --constraints`) poses the twist
//!   joints at a pose no clip has (a 150 degree forearm twist on a 40 degree upper arm bend), as
//!   dqview's own constraint evaluation does; ignoring the constraints does not.
//! - Blender (`bpy`) plays the baked clip at key times as `dqview export --mode lbs` of the
//!   output, within 1e-5 of the diagonal.
//!
//! A match is an intersection over union of at least 0.99 with at most a fifth as many
//! differing pixels as there are between LBS of the input and LBS of the output in the same
//! framing: the twist joints' own effect, the scale against which "matches" is measured.
//! Every mask is framed as dqview frames the output (`--focus` on the twisted joint, seen from
//! behind and above); the input's LBS is drawn in that framing by three.js with dqview's
//! exported LBS shader (`render.mjs --method lbs`, which `tests/three_render.rs` holds to
//! dqview's own LBS render), since `dqview render` frames a `--focus` joint by its weights,
//! which the rig changes, and takes no camera file. Measured: 1 pixel differs in each case,
//! where LBS of the input and of the output differ in 900 and 830 pixels; without
//! `--constraints` the second case differs in 1189.
//!
//! The browser cases need `chromium`, `node` and `npm ci` in `integrations/three`
//! (`DQVIEW_REQUIRE_BROWSER=1`), `DQVIEW_CHARACTERS` (`DQVIEW_REQUIRE_DATA=1`) and a GPU
//! adapter for dqview (`DQVIEW_REQUIRE_GPU=1`); the Blender case `bpy` (`DQVIEW_REQUIRE_DATA`).

mod support;

use std::path::{Path, PathBuf};

use support::Rotations;
use support::three::{Pose, ThreeJob, compare, dqview_mask, three_mask};

/// Smallest intersection over union of the three.js and dqview masks.
const MIN_IOU: f64 = 0.99;
/// Fewest pixels where the input's and output's LBS masks must differ, so that a fifth of it
/// tells the twist joints' pose from the joints' own.
const MIN_INPUT_OUTPUT_PIXELS: usize = 200;
/// Largest allowed distance from a Blender vertex to dqview's nearest, over the diagonal.
const TOLERANCE_RELATIVE: f32 = 1e-5;

/// The joints given twist joints (`--joint`).
const JOINTS: [&str; 2] = ["UpperArm.L", "LowerArm.L"];

/// A pose and dqview's camera for it (`render` flags, not pose flags: render.mjs takes the camera
/// file). Both look from behind and above, where the left arm's silhouette shows its twist.
struct Case {
    /// The pose, for dqview and render.mjs alike, and the joint that frames it.
    pose: Pose<'static>,
    /// `--yaw`, `--pitch` for `dqview render`.
    camera: &'static [&'static str],
}

/// The clip pose: Punch_Left at its key 20 (of 25, 24 per second), where the left upper arm is
/// 79 degrees from its rest twist (81 at key 21: the largest twist of either arm joint in the
/// clips but Death's 83, whose arm shows less). Measured: 900 pixels differ between LBS of the
/// input and of the output.
const CLIP_CASE: Case = Case {
    pose: Pose {
        name: "Death at 0.583 s",
        flags: &["--clip", "Death", "--time", "0.5833333"],
        focus: "UpperArm.L",
    },
    camera: &["--yaw", "200", "--pitch", "50"],
};

/// A pose in no clip: the forearm twisted 150 degrees on a 40 degree upper arm bend.
/// Measured: 830 pixels differ between LBS of the input and of the output.
const OVERRIDE_CASE: Case = Case {
    pose: Pose {
        name: "twist LowerArm.L=150, bend UpperArm.L=40",
        flags: &["--twist", "LowerArm.L=150", "--bend", "UpperArm.L=40"],
        focus: "LowerArm.L",
    },
    camera: &["--yaw", "200", "--pitch", "50"],
};

/// Clip keys for Blender: Punch_Left's 18 and 21 and Death's 14, where the upper arm is 65, 81
/// and 83 degrees from its rest twist.
const BLENDER_KEYS: [(&str, f32); 3] = [
    ("Punch_Left", 18.0 / 24.0),
    ("Punch_Left", 21.0 / 24.0),
    ("Death", 14.0 / 24.0),
];

/// The Adventurer and its twist-joints output written into `dir` (a .gltf beside its
/// `.twist.bin`).
fn twist_rig(characters: &Path, dir: &Path) -> (PathBuf, PathBuf) {
    let input = characters.join("Adventurer.gltf");
    let output = dir.join("adventurer_twist.gltf");
    let mut args = vec![
        "twist-joints",
        input.to_str().expect("utf-8 path"),
        "--out",
        output.to_str().expect("utf-8 path"),
    ];
    for joint in JOINTS {
        args.extend(["--joint", joint]);
    }
    let o = support::dqview_in(&args, &dir.join("cache"));
    assert!(
        o.status.success(),
        "dqview {args:?}: {}",
        support::stderr_of(&o)
    );
    (input, output)
}

/// How many nodes of glTF `file` carry a `VRMC_node_constraint` constraint.
fn constraint_count(file: &Path) -> usize {
    let text = std::fs::read_to_string(file).expect("glTF JSON");
    let json: serde_json::Value = serde_json::from_str(&text).expect("glTF JSON");
    json["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .filter(|n| n["extensions"]["VRMC_node_constraint"].is_object())
        .count()
}

/// One pose of the output, drawn by three.js and by dqview in dqview's framing of the output.
struct Drawn {
    /// `dqview render --mode lbs --view mask` of the output.
    dqview: PathBuf,
    /// Its camera.
    camera: PathBuf,
    /// Pixels where three.js's stock mask of the output differs from `dqview`.
    differ: usize,
    /// Their intersection over union.
    iou: f64,
    /// What render.mjs printed for the output.
    three_stdout: String,
    /// Pixels where LBS of the input (render.mjs `--method lbs`) differs from `dqview`.
    input_output: usize,
}

/// Draws `case` of `output` with dqview's LBS (framing it) and three.js's stock skinning
/// (`constraints`: with `--constraints`), and LBS of `input` in that framing; files in `dir`.
fn draw(
    chromium: &Path,
    (input, output): (&Path, &Path),
    case: &Case,
    constraints: bool,
    dir: &Path,
) -> Drawn {
    std::fs::create_dir_all(dir).expect("mask folder");
    let pose = &case.pose;
    let framed: Vec<&str> = pose.flags.iter().chain(case.camera).copied().collect();
    let framed = Pose {
        flags: &framed,
        ..*pose
    };
    let (dqview, camera) = dqview_mask(output, &framed, "lbs", dir);
    let stock = dir.join("three_stock_output.png");
    let job = ThreeJob {
        method: "stock",
        flags: pose.flags,
        constraints,
    };
    let three_stdout = three_mask(chromium, output, &job, &camera, &stock);
    let (differ, iou) = compare(&dqview, &stock);
    let lbs_input = dir.join("three_lbs_input.png");
    let job = ThreeJob {
        method: "lbs",
        flags: pose.flags,
        constraints: false,
    };
    three_mask(chromium, input, &job, &camera, &lbs_input);
    let (input_output, _) = compare(&dqview, &lbs_input);
    assert!(
        input_output >= MIN_INPUT_OUTPUT_PIXELS,
        "{}: LBS of the input and of the output differ in only {input_output} pixels, too few to test against; see {}",
        pose.name,
        dir.display()
    );
    Drawn {
        dqview,
        camera,
        differ,
        iou,
        three_stdout,
        input_output,
    }
}

/// The failure line of `drawn` when it is no match, for `what`.
fn mismatch(what: &str, drawn: &Drawn, dir: &Path) -> Option<String> {
    (drawn.iou < MIN_IOU || drawn.differ * 5 > drawn.input_output).then(|| {
        format!(
            "{what}: IoU {:.5}, {} pixels differ from dqview's LBS (input vs output LBS {}); see {}",
            drawn.iou,
            drawn.differ,
            drawn.input_output,
            dir.display()
        )
    })
}

#[test]
fn posing_with_bends_passes_its_unit_tests() {
    support::three::node_unit_tests(
        "posing_with_bends_passes_its_unit_tests",
        "test/pose.test.mjs",
        true,
    );
}

#[test]
fn stock_three_js_plays_the_baked_clip_as_dqview_poses_it() {
    let test = "stock_three_js_plays_the_baked_clip_as_dqview_poses_it";
    let Some((chromium, characters)) = support::three::browser_case(test) else {
        return;
    };
    let scratch = support::scratch_dir("twist_joints_engines_clip");
    let (input, output) = twist_rig(&characters, &scratch);
    let dir = scratch.join("masks");
    let drawn = draw(&chromium, (&input, &output), &CLIP_CASE, false, &dir);
    let pose = &CLIP_CASE.pose;
    println!(
        "{}: three.js stock (baked channels) vs dqview LBS of the output IoU {:.5}, {} pixels differ \
         (limit {}; LBS of the input vs the output {})",
        pose.name,
        drawn.iou,
        drawn.differ,
        drawn.input_output / 5,
        drawn.input_output
    );
    assert!(
        !drawn.three_stdout.contains("node constraint"),
        "render.mjs without --constraints said {:?}",
        drawn.three_stdout
    );
    if let Some(failure) = mismatch(pose.name, &drawn, &dir) {
        panic!("{failure}");
    }
}

#[test]
fn three_vrm_constraints_pose_the_twist_joints_as_dqview_does() {
    let test = "three_vrm_constraints_pose_the_twist_joints_as_dqview_does";
    let Some((chromium, characters)) = support::three::browser_case(test) else {
        return;
    };
    let scratch = support::scratch_dir("twist_joints_engines_constraints");
    let (input, output) = twist_rig(&characters, &scratch);
    let dir = scratch.join("masks");
    let drawn = draw(&chromium, (&input, &output), &OVERRIDE_CASE, true, &dir);
    let pose = &OVERRIDE_CASE.pose;
    let constraints = constraint_count(&output);
    let evaluated = format!("{constraints} node constraints evaluated");
    assert!(
        constraints > 0 && drawn.three_stdout.contains(&evaluated),
        "the output has {constraints} constraints; render.mjs --constraints said {:?}",
        drawn.three_stdout
    );
    // Without the constraints the twist joints keep their rest place under their parents.
    let ignored = dir.join("three_stock_output_ignored.png");
    let job = ThreeJob {
        method: "stock",
        flags: pose.flags,
        constraints: false,
    };
    three_mask(&chromium, &output, &job, &drawn.camera, &ignored);
    let (unconstrained, _) = compare(&drawn.dqview, &ignored);
    println!(
        "{}: three-vrm --constraints ({constraints}) vs dqview LBS of the output IoU {:.5}, {} pixels \
         differ (limit {}; LBS of the input vs the output {}); without --constraints {unconstrained} differ",
        pose.name,
        drawn.iou,
        drawn.differ,
        drawn.input_output / 5,
        drawn.input_output
    );
    let mut failures: Vec<String> = mismatch(pose.name, &drawn, &dir).into_iter().collect();
    // The constraints matter: without them three.js is plainly off dqview.
    if unconstrained * 5 <= drawn.input_output {
        failures.push(format!(
            "{}: ignoring the constraints changes only {unconstrained} pixels (input vs output LBS {}); see {}",
            pose.name,
            drawn.input_output,
            dir.display()
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn blender_plays_the_baked_clips_as_dqviews_lbs_export() {
    let test = "blender_plays_the_baked_clips_as_dqviews_lbs_export";
    let Some(characters) = support::characters_dir(test) else {
        return;
    };
    let Some(()) = support::bpy_available(test) else {
        return;
    };
    let scratch = support::scratch_dir("twist_joints_engines_blender");
    let (_, output) = twist_rig(&characters, &scratch);
    let mut failures = Vec::new();
    for (clip, time_s) in BLENDER_KEYS {
        let agreement =
            support::blender_vs_lbs_export(&output, clip, time_s, Rotations::Blender, &scratch);
        println!(
            "twist-joints output, {clip} at {time_s} s: {}",
            agreement.summary()
        );
        if agreement.worst > TOLERANCE_RELATIVE {
            // Blender's importer takes a bone's bind pose from the inverse bind matrices only
            // where the bone and its parent are both joints (io_scene_gltf2 `pick_bind_pose`),
            // else from its node's rest transform: where a file's bind pose is not its rest
            // pose (the Adventurer's), a joint under a node that is no joint is bound wrong.
            // `worst` stops at 1e-3, the nearest-vertex grid's cell.
            let at_least = if agreement.worst >= 1e-3 {
                "at least "
            } else {
                ""
            };
            failures.push(format!(
                "{clip} at {time_s} s: a Blender vertex is {at_least}{:e} of the diagonal from dqview's LBS export; see {}",
                agreement.worst,
                scratch.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
