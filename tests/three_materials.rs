//! The three.js package's own path, `applyDqviewSkinning` in the app's materials
//! (`integrations/three/skinning.js`, `render.mjs --material KIND`), on the shared characters in
//! headless Chromium (WebGL2 on SwiftShader):
//!
//! - every material kind it patches (three's basic, Lambert, Phong, standard, physical and toon,
//!   the glTF's own, under WebGLRenderer and WebGPURenderer, and three-vrm's MToon on a VRM made
//!   from `dqview twist-joints` output, its twist joints driven by three-vrm's node constraints)
//!   draws the DQS mask of `dqview render --view mask` (IoU >= 0.999), and `stock` and a method
//!   switched at run time draw theirs;
//! - the shadow a DQS-skinned character casts on the ground, under WebGLRenderer and under
//!   WebGPURenderer (`--renderer webgpu`, the node path), also after a switch from LBS, is the
//!   shadow of dqview's own DQS mesh (`dqview export --mode dqs`, a static mesh), not of LBS's;
//! - at the bind pose the shaded image (the glTF's materials, lights, no shadow map) is three's
//!   stock image within 1 grey level; with the shadow map, all but a few pixels are.
//!
//! Masks are compared at 50% coverage (`tests/support/three.rs`). The cases skip, or fail with
//! `DQVIEW_REQUIRE_BROWSER=1`, without Chromium, node or `npm ci`.

mod support;

use std::path::{Path, PathBuf};

use serde_json::json;
use support::three::{Pose, check_mask, compare, dqview_mask, edit_gltf_json, render_three};

/// The Adventurer's left forearm twisted 170 degrees: LBS collapses it, DQS keeps it.
const TWIST: Pose = Pose {
    name: "twist LowerArm.L=170",
    flags: &["--twist", "LowerArm.L=170"],
    focus: "LowerArm.L",
};
/// The built-in kinds and the glTF's own materials.
const KINDS: [&str; 7] = [
    "basic", "lambert", "phong", "standard", "physical", "toon", "gltf",
];

#[test]
fn every_material_kind_and_a_method_switch_skin_as_dqview() {
    let test = "every_material_kind_and_a_method_switch_skin_as_dqview";
    let Some((chromium, characters)) = support::three::browser_case(test) else {
        return;
    };
    let dir = support::scratch_dir("three_materials_kinds");
    let model = characters.join("Adventurer.gltf");
    let (dqs, camera) = dqview_mask(&model, &TWIST, "dqs", &dir);
    let (lbs, _) = dqview_mask(&model, &TWIST, "lbs", &dir);
    let (lbs_dqs, _) = compare(&lbs, &dqs);
    assert!(
        lbs_dqs >= 300,
        "LBS and DQS differ in only {lbs_dqs} pixels"
    );
    let mut failures = Vec::new();
    // Every kind under WebGLRenderer (the patched chunks) and WebGPURenderer (the TSL node,
    // which takes the classic materials as WebGPURenderer converts them).
    let mut cases: Vec<(String, &str, Vec<&str>, &Path)> = KINDS
        .iter()
        .flat_map(|k| {
            [
                (
                    format!("dqs {k}"),
                    "dqs",
                    vec!["--material", k],
                    dqs.as_path(),
                ),
                (
                    format!("dqs {k} webgpu"),
                    "dqs",
                    vec!["--material", k, "--renderer", "webgpu"],
                    dqs.as_path(),
                ),
            ]
        })
        .collect();
    cases.extend([
        (
            "stock standard".to_string(),
            "stock",
            vec!["--material", "standard"],
            lbs.as_path(),
        ),
        (
            "lbs standard".to_string(),
            "lbs",
            vec!["--material", "standard"],
            lbs.as_path(),
        ),
        (
            "lbs -> dqs".to_string(),
            "dqs",
            vec!["--material", "standard", "--first-method", "lbs"],
            dqs.as_path(),
        ),
        (
            "stock -> dqs".to_string(),
            "dqs",
            vec!["--material", "standard", "--first-method", "stock"],
            dqs.as_path(),
        ),
        (
            "dqs -> stock".to_string(),
            "stock",
            vec!["--material", "standard", "--first-method", "dqs"],
            lbs.as_path(),
        ),
    ]);
    for (name, method, mut args, expected) in cases {
        args.extend(TWIST.flags);
        let out = dir.join(format!("three_{}.png", name.replace([' ', '>'], "_")));
        let stdout = render_three(&chromium, &model, (method, "mask"), &args, &camera, &out);
        if name.ends_with("gltf") {
            assert!(stdout.contains("MeshStandardMaterial"), "{stdout}");
        }
        if name.ends_with("webgpu") {
            assert!(stdout.contains("WebGPURenderer"), "{stdout}");
        }
        failures.extend(check_mask(&name, expected, &out, lbs_dqs));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The robot's left palm twisted 170 degrees, seen from its side (from the default direction
/// `--focus` cuts away the body in front of the palm, which three.js does not).
const PALM_TWIST: Pose = Pose {
    name: "twist Palm3.L=170",
    flags: &["--twist", "Palm3.L=170", "--yaw", "90", "--pitch", "20"],
    focus: "Palm3.L",
};

/// `dqview twist-joints` of the robot's left palm (a GLB), then written as a VRM whose materials
/// are MToon (`VRMC_materials_mtoon`, their base colour the glTF's).
fn mtoon_vrm(characters: &Path, dir: &Path) -> PathBuf {
    let input = characters.join("RobotExpressive.glb");
    let glb = dir.join("robot_twist.glb");
    let args = [
        "twist-joints",
        input.to_str().expect("utf-8 path"),
        "--joint",
        "Palm3.L",
        "--out",
        glb.to_str().expect("utf-8 path"),
    ];
    support::dqview_ok(&args, dir);
    let vrm = dir.join("robot_twist_mtoon.vrm");
    edit_gltf_json(&glb, &vrm, |json| {
        for material in json["materials"].as_array_mut().expect("materials") {
            material["extensions"]["VRMC_materials_mtoon"] = json!({"specVersion": "1.0"});
        }
        let used = json["extensionsUsed"].take();
        let mut used = used.as_array().cloned().unwrap_or_default();
        used.push(json!("VRMC_materials_mtoon"));
        json["extensionsUsed"] = json!(used);
    });
    vrm
}

#[test]
fn mtoon_on_a_twist_joints_vrm_skins_as_dqview() {
    let test = "mtoon_on_a_twist_joints_vrm_skins_as_dqview";
    let Some((chromium, characters)) = support::three::browser_case(test) else {
        return;
    };
    let dir = support::scratch_dir("three_materials_mtoon");
    let model = mtoon_vrm(&characters, &dir);
    let (dqs, camera) = dqview_mask(&model, &PALM_TWIST, "dqs", &dir);
    let (lbs, _) = dqview_mask(&model, &PALM_TWIST, "lbs", &dir);
    let (lbs_dqs, _) = compare(&lbs, &dqs);
    assert!(
        lbs_dqs >= 300,
        "LBS and DQS differ in only {lbs_dqs} pixels"
    );
    let mut failures = Vec::new();
    for (method, expected) in [("dqs", &dqs), ("lbs", &lbs)] {
        let out = dir.join(format!("three_mtoon_{method}.png"));
        // The twist joints follow the palm through the file's node constraints, as in dqview.
        let args = [
            "--material",
            "mtoon",
            "--constraints",
            "--twist",
            "Palm3.L=170",
        ];
        let stdout = render_three(&chromium, &model, (method, "mask"), &args, &camera, &out);
        assert!(
            stdout.contains("MToonMaterial"),
            "the VRM's materials were not MToon: {stdout}"
        );
        failures.extend(check_mask(
            &format!("MToon {method}"),
            expected,
            &out,
            lbs_dqs,
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The camera over the twisted arm from above, where its shadow falls on the ground.
const FROM_ABOVE: Pose = Pose {
    name: "twist LowerArm.L=170, from above",
    flags: &["--twist", "LowerArm.L=170", "--yaw", "10", "--pitch", "75"],
    focus: "LowerArm.L",
};

/// `dqview export MODEL --mode MODE --twist LowerArm.L=170`: the posed mesh, static, as a GLB.
fn baked(model: &Path, mode: &str, dir: &Path) -> PathBuf {
    let out = dir.join(format!("baked_{mode}.glb"));
    let mut args = vec![
        "export",
        model.to_str().expect("utf-8 path"),
        "--mode",
        mode,
        "--out",
        out.to_str().expect("utf-8 path"),
    ];
    args.extend(TWIST.flags);
    support::dqview_ok(&args, dir);
    out
}

#[test]
fn the_shadow_follows_the_dqs_pose_in_both_renderers() {
    let test = "the_shadow_follows_the_dqs_pose_in_both_renderers";
    let Some((chromium, characters)) = support::three::browser_case(test) else {
        return;
    };
    let dir = support::scratch_dir("three_materials_shadow");
    let model = characters.join("Adventurer.gltf");
    let (_, camera) = dqview_mask(&model, &FROM_ABOVE, "dqs", &dir);
    let (baked_dqs, baked_lbs) = (baked(&model, "dqs", &dir), baked(&model, "lbs", &dir));
    let mut failures = Vec::new();
    for renderer in ["webgl", "webgpu"] {
        let shadow = |model: &Path, method: &str, extra: &[&str], name: &str| {
            let out = dir.join(format!("shadow_{renderer}_{name}.png"));
            let mut args = vec!["--material", "gltf", "--renderer", renderer];
            args.extend(extra);
            if model.extension().is_some_and(|e| e == "gltf") {
                args.extend(TWIST.flags);
            }
            render_three(&chromium, model, (method, "shadow"), &args, &camera, &out);
            out
        };
        let skinned_dqs = shadow(&model, "dqs", &[], "skinned_dqs");
        let switched_dqs = shadow(&model, "dqs", &["--first-method", "lbs"], "lbs_to_dqs");
        let skinned_stock = shadow(&model, "stock", &[], "skinned_stock");
        // dqview's posed meshes, static: their shadows are what the skinned ones' must be.
        let mesh_dqs = shadow(&baked_dqs, "stock", &[], "baked_dqs");
        let mesh_lbs = shadow(&baked_lbs, "stock", &[], "baked_lbs");
        let (lbs_dqs, _) = compare(&mesh_lbs, &mesh_dqs);
        println!(
            "{renderer}: the shadows of dqview's LBS and DQS meshes differ in {lbs_dqs} pixels"
        );
        assert!(
            lbs_dqs >= 50,
            "{renderer}: the shadows differ in only {lbs_dqs} pixels"
        );
        failures.extend(
            [
                ("DQS shadow vs dqview's DQS mesh's", &mesh_dqs, &skinned_dqs),
                (
                    "LBS -> DQS shadow vs dqview's DQS mesh's",
                    &mesh_dqs,
                    &switched_dqs,
                ),
                (
                    "stock shadow vs dqview's LBS mesh's",
                    &mesh_lbs,
                    &skinned_stock,
                ),
            ]
            .into_iter()
            .filter_map(|(what, a, b)| check_mask(&format!("{renderer}: {what}"), a, b, lbs_dqs)),
        );
        let (apart, _) = compare(&skinned_stock, &skinned_dqs);
        if apart * 2 <= lbs_dqs {
            failures.push(format!(
                "{renderer}: DQS's shadow is stock's: {apart} pixels apart"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The largest difference of two RGB images in any channel, and how many pixels differ by more than 1.
fn grey_levels(a: &Path, b: &Path) -> (u8, usize) {
    let read = |p: &Path| {
        image::open(p)
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
            .to_rgb8()
    };
    let (a, b) = (read(a), read(b));
    assert_eq!(a.dimensions(), b.dimensions());
    let diffs: Vec<u8> = a
        .pixels()
        .zip(b.pixels())
        .map(|(p, q)| (0..3).map(|c| p.0[c].abs_diff(q.0[c])).max().unwrap_or(0))
        .collect();
    (
        diffs.iter().copied().max().unwrap_or(0),
        diffs.iter().filter(|d| **d > 1).count(),
    )
}

/// `dqview render MODEL` framing the whole model (no `--focus`, whose near plane would cut the
/// body where the two skinnings round apart): its camera file.
fn whole_model_camera(model: &Path, dir: &Path) -> PathBuf {
    let camera = dir.join("camera_whole.json");
    let png = dir.join("dqview_whole.png");
    let args = [
        "render",
        model.to_str().expect("utf-8 path"),
        "--view",
        "mask",
        "--size",
        support::three::SIZE,
        "--camera-out",
        camera.to_str().expect("utf-8 path"),
        "--out",
        png.to_str().expect("utf-8 path"),
    ];
    support::dqview_ok(&args, dir);
    camera
}

#[test]
fn at_the_bind_pose_the_shaded_image_is_stock() {
    let test = "at_the_bind_pose_the_shaded_image_is_stock";
    let Some((chromium, characters)) = support::three::browser_case(test) else {
        return;
    };
    let dir = support::scratch_dir("three_materials_bind");
    let model = characters.join("Adventurer.gltf");
    let camera = whole_model_camera(&model, &dir);
    let mut failures = Vec::new();
    for shadows in [false, true] {
        let shaded = |method: &str| {
            let out = dir.join(format!("bind_{method}_{shadows}.png"));
            let mut args = vec!["--material", "gltf", "--bind-pose"];
            if shadows {
                args.push("--shadows");
            }
            render_three(&chromium, &model, (method, "shaded"), &args, &camera, &out);
            out
        };
        let stock = shaded("stock");
        let lit = image::open(&stock)
            .expect("png")
            .to_luma8()
            .pixels()
            .filter(|p| p.0[0] > 30)
            .count();
        assert!(
            lit > 5000,
            "the stock image is nearly empty ({lit} lit pixels)"
        );
        for method in ["lbs", "dqs", "hybrid"] {
            let (max, over_one) = grey_levels(&stock, &shaded(method));
            println!(
                "bind pose, shadows {shadows}, {method} vs stock: max {max} grey levels, {over_one} pixels over 1"
            );
            // The shadow map compares depths the two skinnings round differently: a sample on a
            // shadow's edge may flip (each is a quarter of a pixel).
            let allowed = if shadows { 384 * 384 / 2000 } else { 0 };
            if over_one > allowed {
                failures.push(format!("shadows {shadows}, {method}: {over_one} pixels differ from stock by more than 1 (max {max})"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_material_patch_and_bounds_pass_their_unit_tests() {
    support::three::node_unit_tests(
        "the_material_patch_and_bounds_pass_their_unit_tests",
        "test/material-patch.test.mjs",
        true,
    );
}
