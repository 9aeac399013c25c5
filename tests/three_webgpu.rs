//! The three.js package's node-material path, `applyDqviewNodeSkinning`
//! (`integrations/three/node-skinning.js`, `render.mjs --renderer webgpu`): three.js's
//! WebGPURenderer, on its WebGL2 backend in headless Chromium (SwiftShader), drawing the
//! Adventurer in node materials skinned by dqview's skinning written in TSL:
//!
//! - DQS and LBS in `MeshStandardNodeMaterial`, and DQS in the glTF's own (classic) materials,
//!   which the renderer converts, draw the masks of `dqview render --view mask` (IoU >= 0.999),
//!   and DQS's mask is clearly not LBS's;
//! - a method switched at run time (`--first-method`) draws the new method's mask;
//! - hybrid at beta 0.5 draws `dqview render --mode hybrid --beta 0.5`'s mask;
//!
//! Masks are compared at 50% coverage (`tests/support/three.rs`). The cases skip, or fail with
//! `DQVIEW_REQUIRE_BROWSER=1`, without Chromium, node or `npm ci`.

mod support;

use std::path::Path;

use support::three::{Pose, check_mask, compare, dqview_mask, render_three};

/// The Adventurer's left forearm twisted 170 degrees: LBS collapses it, DQS keeps it.
const TWIST: Pose = Pose {
    name: "twist LowerArm.L=170",
    flags: &["--twist", "LowerArm.L=170"],
    focus: "LowerArm.L",
};
/// The same twist with hybrid's one beta for every vertex, for dqview and the package alike.
const TWIST_HALF_HYBRID: Pose = Pose {
    name: "twist LowerArm.L=170, beta 0.5",
    flags: &["--twist", "LowerArm.L=170", "--beta", "0.5"],
    focus: "LowerArm.L",
};

/// `render.mjs --renderer webgpu` of `model` as a `view` image with `method` and `args` (the
/// pose flags included) into `dir`; render.mjs's stdout and the image.
fn render_webgpu(
    chromium: &Path,
    model: &Path,
    (method, view): (&str, &str),
    args: &[&str],
    camera: &Path,
    out: &Path,
) -> String {
    let mut all = vec!["--renderer", "webgpu"];
    all.extend(args);
    let stdout = render_three(chromium, model, (method, view), &all, camera, out);
    assert!(stdout.contains("WebGPURenderer"), "{stdout}");
    stdout
}

#[test]
fn webgpu_renderer_skins_as_dqview_and_switches_methods() {
    let test = "webgpu_renderer_skins_as_dqview_and_switches_methods";
    let Some((chromium, characters)) = support::three::browser_case(test) else {
        return;
    };
    let dir = support::scratch_dir("three_webgpu_masks");
    let model = characters.join("Adventurer.gltf");
    let (dqs, camera) = dqview_mask(&model, &TWIST, "dqs", &dir);
    let (lbs, _) = dqview_mask(&model, &TWIST, "lbs", &dir);
    let (lbs_dqs, _) = compare(&lbs, &dqs);
    assert!(
        lbs_dqs >= 300,
        "LBS and DQS differ in only {lbs_dqs} pixels"
    );
    let standard: &[&str] = &["--material", "standard"];
    let cases: [(&str, &str, &[&str], &Path); 7] = [
        ("dqs standard", "dqs", standard, dqs.as_path()),
        ("lbs standard", "lbs", standard, lbs.as_path()),
        ("stock standard", "stock", standard, lbs.as_path()),
        ("dqs gltf", "dqs", &["--material", "gltf"], dqs.as_path()),
        (
            "lbs -> dqs",
            "dqs",
            &["--material", "standard", "--first-method", "lbs"],
            dqs.as_path(),
        ),
        (
            "stock -> dqs",
            "dqs",
            &["--material", "standard", "--first-method", "stock"],
            dqs.as_path(),
        ),
        (
            "dqs -> lbs",
            "lbs",
            &["--material", "standard", "--first-method", "dqs"],
            lbs.as_path(),
        ),
    ];
    let mut failures = Vec::new();
    let mut three_dqs = None;
    for (name, method, args, expected) in cases {
        let mut args = args.to_vec();
        args.extend(TWIST.flags);
        let out = dir.join(format!("webgpu_{}.png", name.replace([' ', '>'], "_")));
        let stdout = render_webgpu(&chromium, &model, (method, "mask"), &args, &camera, &out);
        if name == "dqs standard" {
            assert!(stdout.contains("MeshStandardNodeMaterial"), "{stdout}");
            three_dqs = Some(out.clone());
        }
        if name == "dqs gltf" {
            // The classic material, converted by the renderer, keeps its type on the mesh.
            assert!(stdout.contains("(MeshStandardMaterial)"), "{stdout}");
        }
        failures.extend(check_mask(name, expected, &out, lbs_dqs));
    }
    // DQS through the node path is not LBS: the twist keeps the forearm's volume.
    let three_dqs = three_dqs.expect("the dqs standard case ran");
    let (apart, _) = compare(&lbs, &three_dqs);
    println!("webgpu DQS vs dqview LBS: {apart} pixels apart");
    assert!(
        apart * 2 > lbs_dqs,
        "WebGPU DQS is LBS's mask: {apart} pixels apart"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn webgpu_renderer_hybrid_blends_as_dqview() {
    let test = "webgpu_renderer_hybrid_blends_as_dqview";
    let Some((chromium, characters)) = support::three::browser_case(test) else {
        return;
    };
    let dir = support::scratch_dir("three_webgpu_hybrid");
    let model = characters.join("Adventurer.gltf");
    let (hybrid, camera) = dqview_mask(&model, &TWIST_HALF_HYBRID, "hybrid", &dir);
    let (dqs, _) = dqview_mask(&model, &TWIST, "dqs", &dir);
    let (lbs, _) = dqview_mask(&model, &TWIST, "lbs", &dir);
    let (lbs_dqs, _) = compare(&lbs, &dqs);
    // Half way is neither end: the blend is really applied.
    let (from_dqs, _) = compare(&hybrid, &dqs);
    let (from_lbs, _) = compare(&hybrid, &lbs);
    println!("dqview hybrid 0.5: {from_dqs} pixels from DQS, {from_lbs} from LBS");
    assert!(
        from_dqs >= 50 && from_lbs >= 50,
        "hybrid at 0.5 is one of the ends"
    );
    let out = dir.join("webgpu_hybrid_0.5.png");
    let mut args = vec!["--material", "standard"];
    args.extend(TWIST_HALF_HYBRID.flags);
    render_webgpu(&chromium, &model, ("hybrid", "mask"), &args, &camera, &out);
    let failure = check_mask("hybrid 0.5 standard", &hybrid, &out, lbs_dqs);
    assert!(failure.is_none(), "{}", failure.unwrap_or_default());
}

#[test]
fn the_node_skinning_path_passes_its_unit_tests() {
    support::three::node_unit_tests(
        "the_node_skinning_path_passes_its_unit_tests",
        "test/node-skinning.test.mjs",
        true,
    );
}
