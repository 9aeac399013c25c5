//! CoR that ships, end to end: `dqview cor` writes the Adventurer's centres of rotation as
//! `_COR_CENTER`, and the three.js package skins that file with CoR in the app's own
//! `MeshStandardMaterial`, under WebGLRenderer (the patched chunk, `dqview shader --target three
//! --method cor`) and WebGPURenderer (the TSL node), straight in CoR and switched to it from DQS
//! at run time: all draw dqview's own CoR mask (`dqview render --mode cor`, its centres computed
//! in memory) with IoU >= 0.999, and that mask is clearly not DQS's. The original file, without centres, asked for CoR, fails with an error
//! naming `dqview cor`. Skips (or fails with `DQVIEW_REQUIRE_BROWSER=1`) without Chromium.

mod support;

use std::process::Command;

use support::three::{Pose, check_mask, compare, dqview_mask, integration_dir, render_three};

/// The Adventurer's left forearm twisted 170 degrees: where CoR and DQS part most.
const TWIST: Pose = Pose {
    name: "twist LowerArm.L=170",
    flags: &["--twist", "LowerArm.L=170"],
    focus: "LowerArm.L",
};

#[test]
fn centres_written_by_dqview_cor_skin_as_dqviews_cor_in_both_renderers() {
    let test = "centres_written_by_dqview_cor_skin_as_dqviews_cor_in_both_renderers";
    let Some((chromium, characters)) = support::three::browser_case(test) else {
        return;
    };
    let dir = support::scratch_dir("three_cor");
    let model = characters.join("Adventurer.gltf");
    let with_centres = dir.join("adventurer_cor.gltf");
    support::dqview_ok(
        &[
            "cor",
            model.to_str().expect("utf-8"),
            "--out",
            with_centres.to_str().expect("utf-8"),
        ],
        &dir,
    );
    let (cor, camera) = dqview_mask(&model, &TWIST, "cor", &dir);
    let (dqs, _) = dqview_mask(&model, &TWIST, "dqs", &dir);
    let (lbs, _) = dqview_mask(&model, &TWIST, "lbs", &dir);
    let (cor_dqs, _) = compare(&cor, &dqs);
    let (lbs_dqs, _) = compare(&lbs, &dqs);
    assert!(cor_dqs >= 50, "CoR and DQS differ in only {cor_dqs} pixels");
    let mut failures = Vec::new();
    // Each renderer straight in CoR, and switched to it from DQS at run time.
    let runs = [
        ("webgl", None),
        ("webgpu", None),
        ("webgl", Some("dqs")),
        ("webgpu", Some("dqs")),
    ];
    for (renderer, first) in runs {
        let what = match first {
            Some(f) => format!("cor {renderer} after {f}"),
            None => format!("cor {renderer}"),
        };
        let out = dir.join(format!("{}.png", what.replace(' ', "_")));
        let mut args = vec!["--material", "standard", "--renderer", renderer];
        if let Some(first) = first {
            args.extend(["--first-method", first]);
        }
        args.extend(TWIST.flags);
        let said = render_three(
            &chromium,
            &with_centres,
            ("cor", "mask"),
            &args,
            &camera,
            &out,
        );
        assert!(said.contains(", cor,"), "{said}");
        failures.extend(check_mask(&what, &cor, &out, lbs_dqs));
        // Not DQS's mask: the centres were read, not ignored.
        let (differ, _) = compare(&dqs, &out);
        if differ * 2 < cor_dqs {
            failures.push(format!("{what}: only {differ} pixels from DQS's mask"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_file_without_centres_asked_for_cor_names_the_command_that_writes_them() {
    let test = "a_file_without_centres_asked_for_cor_names_the_command_that_writes_them";
    let Some((chromium, characters)) = support::three::browser_case(test) else {
        return;
    };
    let dir = support::scratch_dir("three_cor_missing");
    let model = characters.join("Adventurer.gltf");
    let (_, camera) = dqview_mask(&model, &TWIST, "lbs", &dir);
    for renderer in ["webgl", "webgpu"] {
        let o = Command::new("node")
            .arg(integration_dir().join("render.mjs"))
            .arg(&model)
            .args([
                "--method",
                "cor",
                "--view",
                "mask",
                "--material",
                "standard",
            ])
            .args(["--renderer", renderer, "--size", support::three::SIZE])
            .arg("--camera")
            .arg(&camera)
            .arg("--browser")
            .arg(&chromium)
            .arg("--out")
            .arg(dir.join("never.png"))
            .output()
            .expect("node");
        let err = support::stderr_of(&o);
        assert_eq!(o.status.code(), Some(1), "{renderer}: {err}");
        assert!(
            err.contains("no _COR_CENTER attribute: write it with `dqview cor MODEL"),
            "{renderer}: {err}"
        );
        assert!(!dir.join("never.png").exists());
    }
}
