//! The three.js integration (`integrations/three`) against dqview itself: the checked-in GLSL ES
//! shaders are what `dqview shader` writes now, and on both shared characters, at a 170 degree
//! twist and at a clip pose, three.js's masks (`render.mjs`, headless Chromium, WebGL2 on
//! SwiftShader) match `dqview render --view mask` for LBS, DQS and hybrid (a fitted
//! `_DQS_BLEND` map from `dqview blend`): the pixels where they differ are at most a fifth of
//! those where dqview's own LBS and DQS masks differ, and the IoU is at least 0.99.
//!
//! The masks are compared at 50% coverage (`tests/support/three.rs`, shared with
//! `tests/three_stock.rs`).
//!
//! The unit tests of the JavaScript ports (`integrations/three/test`) run under `node --test`.
//!
//! The browser cases need `chromium` and `node` on PATH and `npm ci` run in
//! `integrations/three`; without them they print `SKIPPED`, a failure with
//! `DQVIEW_REQUIRE_BROWSER=1`. They also need `DQVIEW_CHARACTERS` (a failure without it with
//! `DQVIEW_REQUIRE_DATA=1`) and a GPU adapter for dqview (lavapipe; `DQVIEW_REQUIRE_GPU=1`).

mod support;

use std::path::{Path, PathBuf};

use support::three::{Pose, ThreeJob, compare, dqview_mask, integration_dir, three_mask};

/// The methods, as `dqview shader --method` and `render.mjs --method` name them.
const METHODS: [&str; 3] = ["lbs", "dqs", "hybrid"];
/// Fewest pixels where dqview's LBS and DQS masks must differ, so that a fifth of it is a test.
const MIN_LBS_DQS_PIXELS: usize = 300;
/// Smallest intersection over union of the three.js and dqview masks.
const MIN_IOU: f64 = 0.99;

/// A shared character, the file its blend map is written to, and its two poses.
struct Character {
    /// File in `DQVIEW_CHARACTERS`.
    file: &'static str,
    /// Name of `dqview blend`'s output (the Adventurer is a .gltf, so its output is too).
    blended: &'static str,
    /// A twist pose and a clip pose.
    poses: [Pose<'static>; 2],
}

/// The robot's skinned parts are its hands, so its twist is on the palm joint where the hand
/// meets the forearm (a forearm twist turns the whole hand rigidly); the Adventurer's is on
/// its forearm. Each pose and framing was picked for LBS and DQS masks that differ clearly
/// (measured: robot 1970 and 1264 pixels, Adventurer 867 and 541).
const CHARACTERS: [Character; 2] = [
    Character {
        file: "RobotExpressive.glb",
        blended: "robot_blend.glb",
        poses: [
            Pose {
                name: "twist Palm3.L=170",
                flags: &["--twist", "Palm3.L=170"],
                focus: "Palm3.L",
            },
            Pose {
                name: "ThumbsUp at 0.8 s",
                flags: &["--clip", "ThumbsUp", "--time", "0.8"],
                focus: "Middle1.R",
            },
        ],
    },
    Character {
        file: "Adventurer.gltf",
        blended: "adventurer_blend.gltf",
        poses: [
            Pose {
                name: "twist LowerArm.L=170",
                flags: &["--twist", "LowerArm.L=170"],
                focus: "LowerArm.L",
            },
            Pose {
                name: "Punch_Right at 0.4 s",
                flags: &["--clip", "Punch_Right", "--time", "0.4"],
                focus: "LowerArm.R",
            },
        ],
    },
];

#[test]
fn checked_in_shaders_are_what_dqview_shader_writes() {
    let scratch = support::scratch_dir("three_render_shaders");
    for method in METHODS {
        let written = scratch.join(format!("{method}.glsl"));
        let out = written.to_str().expect("utf-8 path");
        let o = support::dqview_in(
            &[
                "shader", "--target", "glsl-es", "--method", method, "--out", out,
            ],
            &scratch.join("cache"),
        );
        assert!(o.status.success(), "{}", support::stderr_of(&o));
        let checked_in = integration_dir().join(format!("shaders/dqview_{method}.vert.glsl"));
        let expected = std::fs::read_to_string(&written).expect("shader written");
        let actual = std::fs::read_to_string(&checked_in)
            .unwrap_or_else(|e| panic!("{}: {e}", checked_in.display()));
        assert!(
            actual == expected,
            "{} is stale: rewrite it with `dqview shader --target glsl-es --method {method} --out {}`",
            checked_in.display(),
            checked_in.display()
        );
    }
}

#[test]
fn javascript_ports_pass_their_unit_tests() {
    // The palette, influence and name ports import nothing from three: no `npm ci` needed.
    support::three::node_unit_tests(
        "javascript_ports_pass_their_unit_tests",
        "test/math.test.mjs",
        false,
    );
}

/// `dqview blend MODEL --clip all` into `dir`: the model with a fitted `_DQS_BLEND` map.
fn blended(characters: &Path, character: &Character, dir: &Path) -> PathBuf {
    let out = dir.join(character.blended);
    let model = characters.join(character.file);
    let args = [
        "blend",
        model.to_str().expect("utf-8 path"),
        "--clip",
        "all",
        "--out",
        out.to_str().expect("utf-8 path"),
    ];
    let o = support::dqview_in(&args, &dir.join("cache"));
    assert!(
        o.status.success(),
        "dqview {args:?}: {}",
        support::stderr_of(&o)
    );
    out
}

#[test]
fn three_js_masks_match_dqview_on_both_characters() {
    let test = "three_js_masks_match_dqview_on_both_characters";
    let Some((chromium, characters)) = support::three::browser_case(test) else {
        return;
    };
    let scratch = support::scratch_dir("three_render_masks");
    let mut failures = Vec::new();
    for character in &CHARACTERS {
        let model = blended(&characters, character, &scratch);
        for (p, pose) in character.poses.iter().enumerate() {
            let dir = scratch.join(format!("{}_{p}", character.file));
            std::fs::create_dir_all(&dir).expect("pose folder");
            let dqview: Vec<(PathBuf, PathBuf)> = METHODS
                .iter()
                .map(|m| dqview_mask(&model, pose, m, &dir))
                .collect();
            let camera = &dqview[0].1;
            for (_, other) in &dqview[1..] {
                let same = std::fs::read(camera).ok() == std::fs::read(other).ok();
                assert!(same, "{}: dqview framed the methods differently", pose.name);
            }
            let (lbs_dqs, _) = compare(&dqview[0].0, &dqview[1].0);
            println!(
                "{} {}: dqview LBS vs DQS differ in {lbs_dqs} pixels",
                character.file, pose.name
            );
            assert!(
                lbs_dqs >= MIN_LBS_DQS_PIXELS,
                "{} {}: LBS and DQS differ in only {lbs_dqs} pixels, too few to test against",
                character.file,
                pose.name
            );
            for (method, (dqview_png, _)) in METHODS.iter().zip(&dqview) {
                let three_png = dir.join(format!("three_{method}.png"));
                let job = ThreeJob {
                    method,
                    flags: pose.flags,
                    constraints: false,
                };
                three_mask(&chromium, &model, &job, camera, &three_png);
                let (differ, iou) = compare(dqview_png, &three_png);
                println!(
                    "{} {} {method}: three.js vs dqview IoU {iou:.5}, {differ} pixels differ (limit {})",
                    character.file,
                    pose.name,
                    lbs_dqs / 5
                );
                if differ * 5 > lbs_dqs || iou < MIN_IOU {
                    failures.push(format!(
                        "{} {} {method}: {differ} pixels differ (LBS vs DQS {lbs_dqs}), IoU {iou:.5}; see {}",
                        character.file,
                        pose.name,
                        dir.display()
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
