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
//! A tube on a chain of 8 joints, written here with JOINTS_1/WEIGHTS_1 and a morph target at a
//! default weight, bent: three.js's masks match dqview's, where dropping the lighter four
//! influences or the morph changes more than 1,500 pixels each.
//!
//! Each mask is drawn three times in three.js: by the comparison shader (a `RawShaderMaterial`),
//! by the package's path, `applyDqviewSkinning` in three's own `MeshStandardMaterial`
//! (`render.mjs --material standard`), and by its WebGPURenderer path, `applyDqviewNodeSkinning`
//! (`--renderer webgpu`, the TSL node on the WebGL2 backend); the package's must reach an IoU of
//! 0.999.
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
/// Smallest IoU of the package's path (`applyDqviewSkinning` in three's own materials) and
/// dqview: issue 48's target.
const MIN_MATERIAL_IOU: f64 = 0.999;
/// The three.js paths, by name: the comparison shader (`--material` not given) and the
/// package's, in three's `MeshStandardMaterial`, under WebGLRenderer (the patched chunks) and
/// WebGPURenderer (the TSL node); their flags and the limit on the IoU of each.
const PATHS: [(&str, &[&str], f64); 3] = [
    ("comparison", &[], MIN_IOU),
    ("standard", &["--material", "standard"], MIN_MATERIAL_IOU),
    (
        "standard webgpu",
        &["--material", "standard", "--renderer", "webgpu"],
        MIN_MATERIAL_IOU,
    ),
];

/// The path's flags, then the pose's.
fn with_path<'a>(path_flags: &[&'a str], flags: &[&'a str]) -> Vec<&'a str> {
    path_flags.iter().chain(flags).copied().collect()
}

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
/// (measured: robot 1970 and 1264 pixels, Adventurer 867 and 545), seen from the default
/// direction and with nothing in front of the region: at 0.4 s the body hides part of the
/// punching forearm, so `--focus` puts the near plane at the region, and WebGL and wgpu clip
/// the body it cuts a pixel apart along the cut.
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
                name: "Punch_Right at 0.5 s",
                flags: &["--clip", "Punch_Right", "--time", "0.5"],
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
                "shader",
                "--target",
                "glsl-es",
                "--method",
                method,
                "--influences",
                "8",
                "--out",
                out,
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
            "{} is stale: rewrite it with `dqview shader --target glsl-es --method {method} --influences 8 --out {}`",
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

#[test]
fn shader_inputs_pass_their_unit_tests() {
    // The block names, eight influences and morphs the module feeds the shader (no three import).
    support::three::node_unit_tests(
        "shader_inputs_pass_their_unit_tests",
        "test/skinning.test.mjs",
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
            for ((method, (dqview_png, _)), (path, path_flags, min_iou)) in METHODS
                .iter()
                .zip(&dqview)
                .flat_map(|m| PATHS.map(|p| (m, p)))
            {
                let three_png = dir.join(format!("three_{method}_{}.png", path.replace(' ', "_")));
                let flags = with_path(path_flags, pose.flags);
                let job = ThreeJob {
                    method,
                    flags: &flags,
                    constraints: false,
                };
                three_mask(&chromium, &model, &job, camera, &three_png);
                let (differ, iou) = compare(dqview_png, &three_png);
                println!(
                    "{} {} {method} ({path}): three.js vs dqview IoU {iou:.5}, {differ} pixels differ (limit {})",
                    character.file,
                    pose.name,
                    lbs_dqs / 5
                );
                if differ * 5 > lbs_dqs || iou < min_iou {
                    failures.push(format!(
                        "{} {} {method} ({path}): {differ} pixels differ (LBS vs DQS {lbs_dqs}), IoU {iou:.5}; see {}",
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

/// Rings and segments of the test tube.
const TUBE_RINGS: usize = 41;
const TUBE_SEGMENTS: usize = 16;
/// Joints of the tube's chain, 0.5 apart along +Y.
const TUBE_JOINTS: usize = 8;

/// Weights of a vertex at height `y` on every chain joint: a wide falloff about each bone's
/// middle, so most vertices have 6 to 8 influences and the lightest four carry a third of the
/// weight.
fn tube_weights(y: f32) -> Vec<(u16, f32)> {
    let mut row: Vec<(u16, f32)> = (0..TUBE_JOINTS)
        .map(|k| {
            (
                k as u16,
                (2.5 - (y - (0.5 * k as f32 + 0.25)).abs()).max(0.0),
            )
        })
        .filter(|(_, w)| *w > 0.0)
        .collect();
    row.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let sum: f32 = row.iter().map(|(_, w)| w).sum();
    row.iter().map(|&(j, w)| (j, w / sum)).collect()
}

/// A skinned tube 4 long on a chain of 8 joints as `.gltf` text: with `eight` its influences
/// are stored as JOINTS_0/WEIGHTS_0 and JOINTS_1/WEIGHTS_1 (else the heaviest four,
/// renormalised); with `morph` it has a morph target, a bulge of the middle, at default weight
/// 0.8 (`mesh.weights`), which no clip keys.
fn tube_model(eight: bool, morph: bool) -> String {
    use serde_json::json;
    let mut doc = support::GltfDoc::default();
    let (mut positions, mut normals, mut bulge) = (Vec::new(), Vec::new(), Vec::new());
    let (mut joints, mut weights) = ([Vec::new(), Vec::new()], [Vec::new(), Vec::new()]);
    for r in 0..TUBE_RINGS {
        let y = 4.0 * r as f32 / (TUBE_RINGS - 1) as f32;
        let mut row = tube_weights(y);
        if !eight {
            row.truncate(4);
            let sum: f32 = row.iter().map(|(_, w)| w).sum();
            row.iter_mut().for_each(|(_, w)| *w /= sum);
        }
        for s in 0..TUBE_SEGMENTS {
            let a = std::f32::consts::TAU * s as f32 / TUBE_SEGMENTS as f32;
            let (x, z) = (a.cos(), a.sin());
            positions.extend([0.25 * x, y, 0.25 * z]);
            normals.extend([x, 0.0, z]);
            let out = 0.2 * (std::f32::consts::PI * y / 4.0).sin();
            bulge.extend([out * x, 0.0, out * z]);
            for set in 0..2 {
                for k in 0..4 {
                    let (j, w) = row.get(4 * set + k).copied().unwrap_or((0, 0.0));
                    joints[set].push(j);
                    weights[set].push(w);
                }
            }
        }
    }
    let n = TUBE_RINGS * TUBE_SEGMENTS;
    let mut indices: Vec<u16> = Vec::new();
    for r in 0..TUBE_RINGS - 1 {
        for s in 0..TUBE_SEGMENTS {
            let at = |r: usize, s: usize| (r * TUBE_SEGMENTS + s % TUBE_SEGMENTS) as u16;
            let (a, b, c, d) = (at(r, s), at(r, s + 1), at(r + 1, s), at(r + 1, s + 1));
            indices.extend([a, b, d, a, d, c]);
        }
    }
    let bounds = |values: &[f32]| {
        let axis = |k: usize| values.iter().skip(k).step_by(3).copied();
        let lo: Vec<f32> = (0..3).map(|k| axis(k).fold(f32::MAX, f32::min)).collect();
        let hi: Vec<f32> = (0..3).map(|k| axis(k).fold(f32::MIN, f32::max)).collect();
        (lo, hi)
    };
    let position = doc.f32s(&positions, "VEC3", 3);
    let (lo, hi) = bounds(&positions);
    doc.accessors[position]["min"] = json!(lo);
    doc.accessors[position]["max"] = json!(hi);
    let normal = doc.f32s(&normals, "VEC3", 3);
    let u16s = |v: &[u16]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let mut attributes = json!({"POSITION": position, "NORMAL": normal});
    for set in 0..if eight { 2 } else { 1 } {
        let j = doc.accessor(&u16s(&joints[set]), support::GL_U16, n, "VEC4");
        let w = doc.f32s(&weights[set], "VEC4", 4);
        attributes[format!("JOINTS_{set}")] = json!(j);
        attributes[format!("WEIGHTS_{set}")] = json!(w);
    }
    let index = doc.accessor(&u16s(&indices), support::GL_U16, indices.len(), "SCALAR");
    let mut primitive = json!({"attributes": attributes, "indices": index});
    let mut mesh = json!({"name": "tube"});
    if morph {
        let target = doc.f32s(&bulge, "VEC3", 3);
        let (lo, hi) = bounds(&bulge);
        doc.accessors[target]["min"] = json!(lo);
        doc.accessors[target]["max"] = json!(hi);
        primitive["targets"] = json!([{"POSITION": target}]);
        mesh["weights"] = json!([0.8]);
    }
    mesh["primitives"] = json!([primitive]);
    let ibms: Vec<f32> = (0..TUBE_JOINTS)
        .flat_map(|k| {
            let mut m = [0.0f32; 16];
            (m[0], m[5], m[10], m[15], m[13]) = (1.0, 1.0, 1.0, 1.0, -0.5 * k as f32);
            m
        })
        .collect();
    let ibm = doc.f32s(&ibms, "MAT4", 16);

    // Two specks at opposite corners of a box the posed tube stays in: a rigid mesh that makes
    // the rest-pose framing the same with or without the bulge.
    let corners = [[-2.5f32, -0.5, -0.5], [2.5, 4.5, 0.5]];
    let specks: Vec<f32> = corners
        .iter()
        .flat_map(|&[x, y, z]| [x, y, z, x + 0.01, y, z, x, y + 0.01, z])
        .collect();
    let speck = doc.f32s(&specks, "VEC3", 3);
    let (lo, hi) = bounds(&specks);
    doc.accessors[speck]["min"] = json!(lo);
    doc.accessors[speck]["max"] = json!(hi);
    let frame = json!({"name": "frame", "primitives": [{"attributes": {"POSITION": speck}}]});
    let mut root: serde_json::Value =
        serde_json::from_str(&doc.gltf(false)).expect("the document is JSON");
    root["meshes"] = json!([mesh, frame]);
    let mut nodes = vec![json!({"name": "tube", "mesh": 0, "skin": 0})];
    for k in 0..TUBE_JOINTS {
        let mut node = json!({
            "name": format!("J{k}"),
            "translation": [0.0, if k == 0 { 0.0 } else { 0.5 }, 0.0],
        });
        if k + 1 < TUBE_JOINTS {
            node["children"] = json!([k + 2]);
        }
        nodes.push(node);
    }
    nodes.push(json!({"name": "frame", "mesh": 1}));
    root["nodes"] = json!(nodes);
    root["skins"] =
        json!([{"joints": (1..=TUBE_JOINTS).collect::<Vec<_>>(), "inverseBindMatrices": ibm}]);
    root["scenes"] = json!([{"nodes": [0, 1, TUBE_JOINTS + 1]}]);
    root.to_string()
}

/// The tube's pose: three bends along the chain, so every vertex's eight joints move apart.
const TUBE_POSE: [&str; 6] = ["--bend", "J2=35", "--bend", "J4=35", "--bend", "J6=35"];

/// `dqview render MODEL --mode MODE --view mask` of the tube's pose in the camera that frames
/// the rest pose (the same for every variant of the tube, unlike a joint's region) into
/// `dir`: the mask and camera paths.
fn dqview_tube_mask(model: &Path, mode: &str, dir: &Path) -> (PathBuf, PathBuf) {
    std::fs::create_dir_all(dir).expect("mask folder");
    let png = dir.join(format!("dqview_{mode}.png"));
    let camera = dir.join(format!("camera_{mode}.json"));
    let mut args = vec![
        "render",
        model.to_str().expect("utf-8 path"),
        "--mode",
        mode,
        "--view",
        "mask",
        "--size",
        support::three::SIZE,
        "--camera-out",
        camera.to_str().expect("utf-8 path"),
        "--out",
        png.to_str().expect("utf-8 path"),
    ];
    args.extend_from_slice(&TUBE_POSE);
    let o = support::dqview_in(&args, &dir.join("cache"));
    assert!(
        o.status.success(),
        "dqview {args:?}: {}",
        support::stderr_of(&o)
    );
    (png, camera)
}

/// Whether two `--camera-out` files hold the same camera up to rounding (1e-5 of each number):
/// the rest-pose framing is skinned, so influences that sum alike round alike only nearly.
fn cameras_agree(a: &Path, b: &Path) -> bool {
    fn numbers(v: &serde_json::Value, out: &mut Vec<f64>) {
        match v {
            serde_json::Value::Number(n) => out.push(n.as_f64().unwrap_or(f64::NAN)),
            serde_json::Value::Array(a) => a.iter().for_each(|x| numbers(x, out)),
            serde_json::Value::Object(o) => o.values().for_each(|x| numbers(x, out)),
            _ => {}
        }
    }
    let read = |p: &Path| {
        let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let value: serde_json::Value = serde_json::from_str(&text).expect("camera JSON");
        let mut out = Vec::new();
        numbers(&value, &mut out);
        out
    };
    let (a, b) = (read(a), read(b));
    a.len() == b.len()
        && a.iter()
            .zip(&b)
            .all(|(x, y)| (x - y).abs() <= 1e-5 * x.abs().max(y.abs()).max(1.0))
}

#[test]
fn three_js_takes_eight_influences_and_the_morphs_of_skinned_meshes() {
    let test = "three_js_takes_eight_influences_and_the_morphs_of_skinned_meshes";
    let Some(chromium) = support::three::browser(test) else {
        return;
    };
    if support::gpu(test).is_none() {
        return;
    }
    let scratch = support::scratch_dir("three_render_eight_morph");
    let write = |name: &str, eight: bool, morph: bool| {
        let path = scratch.join(name);
        std::fs::write(&path, tube_model(eight, morph)).expect("write the tube");
        path
    };
    let full = write("tube.gltf", true, true);
    // The same tube with one feature taken away each: what a three.js skinning without it draws.
    let four = write("tube_four.gltf", false, true);
    let unmorphed = write("tube_unmorphed.gltf", true, false);
    let mut failures = Vec::new();
    for method in ["lbs", "dqs"] {
        let dir = scratch.join(method);
        let (dqview_png, camera) = dqview_tube_mask(&full, method, &dir);
        let without = |model: &Path, name: &str| {
            let (png, other_camera) = dqview_tube_mask(model, method, &dir.join(name));
            assert!(
                cameras_agree(&camera, &other_camera),
                "{name}: dqview framed the tubes differently"
            );
            compare(&dqview_png, &png).0
        };
        let (four_pixels, unmorphed_pixels) =
            (without(&four, "four"), without(&unmorphed, "unmorphed"));
        println!(
            "{method}: dqview's tube vs four influences differ in {four_pixels} pixels, vs no morph in {unmorphed_pixels}"
        );
        let least = four_pixels.min(unmorphed_pixels);
        assert!(
            least >= MIN_LBS_DQS_PIXELS,
            "{method}: a feature changes only {least} pixels, too few to test against"
        );
        for (path, path_flags, min_iou) in PATHS {
            let three_png = dir.join(format!("three_{method}_{}.png", path.replace(' ', "_")));
            let flags = with_path(path_flags, &TUBE_POSE);
            let job = ThreeJob {
                method,
                flags: &flags,
                constraints: false,
            };
            three_mask(&chromium, &full, &job, &camera, &three_png);
            let (differ, iou) = compare(&dqview_png, &three_png);
            println!(
                "{method} ({path}): three.js vs dqview IoU {iou:.5}, {differ} pixels differ (limit {})",
                least / 5
            );
            if differ * 5 > least || iou < min_iou {
                failures.push(format!(
                    "{method} ({path}): three.js differs from dqview in {differ} pixels (four influences: {four_pixels}, no morph: {unmorphed_pixels}), IoU {iou:.5}; see {}",
                    dir.display()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
