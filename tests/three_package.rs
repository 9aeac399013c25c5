//! `integrations/three` as the npm package a three.js developer installs: `npm pack`'s tarball
//! holds the module, its TypeScript declarations and README and none of the test harness,
//! installs into an empty app folder beside three (offline), imports by its name, and the app
//! (`integrations/three/package-test`: an AnimationMixer clip, the package's
//! `applyDqviewSkinning` in MeshBasicMaterials) draws the Adventurer's DQS pose as dqview does,
//! in headless Chromium.

mod support;

use std::path::Path;
use std::process::{Command, Output};

use support::three::{Pose, compare, dqview_mask, integration_dir};

/// The Adventurer mid-punch: the right forearm twists, so LBS and DQS differ.
const PUNCH: Pose = Pose {
    name: "Punch_Right at 0.5 s",
    flags: &["--clip", "Punch_Right", "--time", "0.5"],
    focus: "LowerArm.R",
};

/// Runs `command` in `dir` and asserts that it succeeds; its output.
fn run_in(dir: &Path, command: &mut Command) -> Output {
    let o = command.current_dir(dir).output().expect("run");
    assert!(
        o.status.success(),
        "{command:?} in {}: {}{}",
        dir.display(),
        String::from_utf8_lossy(&o.stdout),
        support::stderr_of(&o)
    );
    o
}

/// The files of a `.tgz` (`tar tzf`).
fn tarball_files(tarball: &Path) -> Vec<String> {
    let o = run_in(Path::new("."), Command::new("tar").arg("tzf").arg(tarball));
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn the_packed_tarball_installs_and_renders() {
    let test = "the_packed_tarball_installs_and_renders";
    let Some((chromium, characters)) = support::three::browser_case(test) else {
        return;
    };
    let dir = support::scratch_dir("three_package");
    let packed = run_in(
        &integration_dir(),
        Command::new("npm")
            .args(["pack", "--silent", "--pack-destination"])
            .arg(&dir),
    );
    let name = String::from_utf8_lossy(&packed.stdout).trim().to_string();
    let tarball = dir.join(&name);
    assert!(tarball.is_file(), "npm pack wrote no {}", tarball.display());
    let files = tarball_files(&tarball);
    for wanted in [
        "index.js",
        "index.d.ts",
        "skinning.js",
        "skinning-shared.js",
        "node-skinning.js",
        "node-skinning-tsl.js",
        "node.d.ts",
        "chunks.js",
        "README.md",
        "package.json",
    ] {
        assert!(
            files.contains(&format!("package/{wanted}")),
            "{wanted} missing: {files:?}"
        );
    }
    for unwanted in ["render.mjs", "render-page.js", "test/", "node_modules/"] {
        assert!(
            !files.iter().any(|f| f.contains(unwanted)),
            "{unwanted} packed: {files:?}"
        );
    }
    let app = dir.join("app");
    std::fs::create_dir_all(&app).expect("app folder");
    let template = integration_dir().join("package-test");
    for file in ["index.html", "main.js", "drive.mjs"] {
        std::fs::copy(template.join(file), app.join(file)).expect("copy the app");
    }
    let manifest = r#"{ "name": "dqview-three-app", "private": true, "type": "module" }"#;
    std::fs::write(app.join("package.json"), manifest).expect("app package.json");
    // three from the integration's own install: no registry needed.
    run_in(
        &app,
        Command::new("npm")
            .args([
                "install",
                "--offline",
                "--no-audit",
                "--no-fund",
                "--install-links",
            ])
            .arg(&tarball)
            .arg(integration_dir().join("node_modules/three")),
    );
    let imported = run_in(
        &app,
        Command::new("node").args([
            "--input-type=module",
            "-e",
            "const m = await import('dqview-three'); console.log(Object.keys(m).sort().join(' '));",
        ]),
    );
    let exports = String::from_utf8_lossy(&imported.stdout);
    assert!(
        exports.contains("applyDqviewSkinning") && exports.contains("DQVIEW_CHUNKS"),
        "{exports}"
    );
    // The WebGPURenderer path is its own entry, so the main one never loads three/webgpu.
    let imported = run_in(
        &app,
        Command::new("node").args([
            "--input-type=module",
            "-e",
            "const m = await import('dqview-three/node'); console.log(typeof m.applyDqviewNodeSkinning);",
        ]),
    );
    assert_eq!(String::from_utf8_lossy(&imported.stdout).trim(), "function");
    let installed = std::fs::read_to_string(app.join("node_modules/dqview-three/package.json"))
        .expect("installed");
    let installed: serde_json::Value = serde_json::from_str(&installed).expect("JSON");
    assert!(installed["private"].is_null(), "the package is private");
    assert!(installed["peerDependencies"]["three"].is_string());
    assert_eq!(installed["types"], "./index.d.ts");

    let model = characters.join("Adventurer.gltf");
    let (dqs, camera) = dqview_mask(&model, &PUNCH, "dqs", &dir);
    let (lbs, _) = dqview_mask(&model, &PUNCH, "lbs", &dir);
    let out = dir.join("app_dqs.png");
    let drove = run_in(
        &app,
        Command::new("node")
            .arg(app.join("drive.mjs"))
            .arg(integration_dir())
            .arg(&app)
            .arg(&model)
            .arg(&camera)
            .args(["dqs", "Punch_Right", "0.5"])
            .arg(&out)
            .arg(&chromium),
    );
    println!("{}", String::from_utf8_lossy(&drove.stdout).trim());
    let (to_dqs, iou) = compare(&dqs, &out);
    let (to_lbs, _) = compare(&lbs, &out);
    println!(
        "the installed package's DQS vs dqview: IoU {iou:.5}, {to_dqs} pixels differ (vs dqview's LBS: {to_lbs})"
    );
    // One sample a pixel here, dqview's four: edges differ by rounding, the pose must not.
    assert!(iou >= 0.99, "IoU {iou:.5}; see {}", out.display());
    assert!(
        to_dqs * 2 < to_lbs,
        "the app drew LBS, not DQS: {to_dqs} vs {to_lbs}"
    );
}
