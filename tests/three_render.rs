//! The three.js integration (`integrations/three`) against dqview itself: the checked-in GLSL ES
//! shaders are what `dqview shader` writes now, and on both shared characters, at a 170 degree
//! twist and at a clip pose, three.js's masks (`render.mjs`, headless Chromium, WebGL2 on
//! SwiftShader) match `dqview render --view mask` for LBS, DQS and hybrid (a fitted
//! `_DQS_BLEND` map from `dqview blend`): the pixels where they differ are at most a fifth of
//! those where dqview's own LBS and DQS masks differ, and the IoU is at least 0.99.
//!
//! The masks are compared at 50% coverage. Both are 4x multisampled with the same sample
//! positions and sRGB-encoded (render.mjs resolves them as dqview's Rgba8UnormSrgb target
//! does, see `resolve4x.js`), so one threshold fits both.
//!
//! The unit tests of the JavaScript ports (`integrations/three/test`) run under `node --test`.
//!
//! The browser cases need `chromium` and `node` on PATH and `npm ci` run in
//! `integrations/three`; without them they print `SKIPPED`, a failure with
//! `DQVIEW_REQUIRE_BROWSER=1`. They also need `DQVIEW_CHARACTERS` (a failure without it with
//! `DQVIEW_REQUIRE_DATA=1`) and a GPU adapter for dqview (lavapipe; `DQVIEW_REQUIRE_GPU=1`).

mod support;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The methods, as `dqview shader --method` and `render.mjs --method` name them.
const METHODS: [&str; 3] = ["lbs", "dqs", "hybrid"];
/// Image size of every render.
const SIZE: &str = "384x384";
/// Fewest pixels where dqview's LBS and DQS masks must differ, so that a fifth of it is a test.
const MIN_LBS_DQS_PIXELS: usize = 300;
/// Smallest intersection over union of the three.js and dqview masks.
const MIN_IOU: f64 = 0.99;

/// One pose of one character: dqview's pose flags and the joint the camera frames (`--focus`).
struct Pose {
    /// Name in the printed figures.
    name: &'static str,
    /// `--twist` or `--clip` and `--time` flags, the same for dqview and render.mjs.
    flags: &'static [&'static str],
    /// The joint whose region fills the image.
    focus: &'static str,
}

/// A shared character, the file its blend map is written to, and its two poses.
struct Character {
    /// File in `DQVIEW_CHARACTERS`.
    file: &'static str,
    /// Name of `dqview blend`'s output (the Adventurer is a .gltf, so its output is too).
    blended: &'static str,
    /// A twist pose and a clip pose.
    poses: [Pose; 2],
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

/// The integration's folder.
fn integration_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("integrations/three")
}

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
    if !support::on_path("node") {
        let required = std::env::var("DQVIEW_REQUIRE_BROWSER").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "node is not on PATH, and DQVIEW_REQUIRE_BROWSER=1"
        );
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED javascript_ports_pass_their_unit_tests: node is not on PATH"
        );
        return;
    }
    // The palette, influence and name ports import nothing from three: no `npm ci` needed.
    let o = Command::new("node")
        .arg("--test")
        .arg(integration_dir().join("test/math.test.mjs"))
        .output()
        .expect("run node --test");
    assert!(
        o.status.success(),
        "node --test integrations/three/test/math.test.mjs:\n{}{}",
        String::from_utf8_lossy(&o.stdout),
        support::stderr_of(&o)
    );
}

/// Chromium, or `None` after a skip message when it, node or three.js (`npm ci`) is missing;
/// with `DQVIEW_REQUIRE_BROWSER=1` a missing one fails the test.
fn browser(test: &str) -> Option<PathBuf> {
    let chromium = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join("chromium"))
            .find(|p| p.is_file())
    });
    let three = integration_dir().join("node_modules/three/package.json");
    let missing = if chromium.is_none() {
        Some("chromium is not on PATH (apt-get install chromium)")
    } else if !support::on_path("node") {
        Some("node is not on PATH")
    } else if !three.is_file() {
        Some("three.js is not installed (run `npm ci` in integrations/three)")
    } else {
        None
    };
    if let Some(why) = missing {
        let required = std::env::var("DQVIEW_REQUIRE_BROWSER").is_ok_and(|v| v == "1");
        assert!(!required, "{test}: {why}, and DQVIEW_REQUIRE_BROWSER=1");
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED {test}: {why} (DQVIEW_REQUIRE_BROWSER=1 makes this a failure)"
        );
        return None;
    }
    chromium
}

/// Which pixels of a mask PNG are covered at least half (2 of 4 samples); the image size.
///
/// Both renderers write sRGB-encoded coverage: 2 of 4 samples is 187.5, which encoders round to
/// 187 or 188; 1 of 4 is 137. So 50% coverage, rounding allowed, is 160 and up.
fn mask(path: &Path) -> ((u32, u32), Vec<bool>) {
    let image = image::open(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .to_luma8();
    let covered = image.pixels().map(|p| p.0[0] >= 160).collect();
    (image.dimensions(), covered)
}

/// Pixels where two masks differ, and their intersection over union.
fn compare(a: &Path, b: &Path) -> (usize, f64) {
    let (size_a, a) = mask(a);
    let (size_b, b) = mask(b);
    assert_eq!(size_a, size_b, "mask sizes");
    let differ = a.iter().zip(&b).filter(|(x, y)| x != y).count();
    let both = a.iter().zip(&b).filter(|(x, y)| **x && **y).count();
    let either = both + differ;
    (differ, both as f64 / either.max(1) as f64)
}

/// `dqview render MODEL --mode M --view mask` of `pose` into `dir`; the mask and camera paths.
fn dqview_mask(model: &Path, pose: &Pose, method: &str, dir: &Path) -> (PathBuf, PathBuf) {
    let png = dir.join(format!("dqview_{method}.png"));
    let camera = dir.join(format!("camera_{method}.json"));
    let mut args = vec![
        "render",
        model.to_str().expect("utf-8 path"),
        "--mode",
        method,
        "--view",
        "mask",
        "--focus",
        pose.focus,
        "--size",
        SIZE,
        "--camera-out",
        camera.to_str().expect("utf-8 path"),
        "--out",
        png.to_str().expect("utf-8 path"),
    ];
    args.extend_from_slice(pose.flags);
    let o = support::dqview_in(&args, &dir.join("cache"));
    assert!(
        o.status.success(),
        "dqview {args:?}: {}",
        support::stderr_of(&o)
    );
    (png, camera)
}

/// `node render.mjs MODEL --method M` of `pose` seen by `camera` into `dir`; the mask's path.
fn three_mask(
    chromium: &Path,
    model: &Path,
    pose: &Pose,
    method: &str,
    camera: &Path,
    dir: &Path,
) -> PathBuf {
    let png = dir.join(format!("three_{method}.png"));
    let o = Command::new("node")
        .arg(integration_dir().join("render.mjs"))
        .arg(model)
        .args(["--method", method, "--view", "mask", "--size", SIZE])
        .args(pose.flags)
        .arg("--camera")
        .arg(camera)
        .arg("--browser")
        .arg(chromium)
        .arg("--out")
        .arg(&png)
        .output()
        .expect("run node");
    assert!(
        o.status.success(),
        "render.mjs {method} {:?}: {}{}",
        pose.flags,
        String::from_utf8_lossy(&o.stdout),
        support::stderr_of(&o)
    );
    png
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
    let Some(chromium) = browser(test) else {
        return;
    };
    let Some(characters) = support::characters_dir(test) else {
        return;
    };
    if support::gpu(test).is_none() {
        return;
    }
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
                let three_png = three_mask(&chromium, &model, pose, method, camera, &dir);
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
