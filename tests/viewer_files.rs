//! The viewer's in-window file dialog (Xvfb): Open lists the model's folder and opens the
//! file clicked there; "Save blend map" offers `NAME_blend.glb` in the model's folder, asks
//! before replacing a file (keeping it on "Keep it"), writes the painted map on "Replace",
//! and lists the saved file under Recent.
//!
//! Input is scripted (`--ui-script`), events going through egui as a user's do; no desktop
//! portal or zenity is involved (a bare Xvfb has neither). Without Xvfb these tests print
//! `SKIPPED` and pass, unless `DQVIEW_REQUIRE_DISPLAY=1`.

mod support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::{read_dump as read, run_viewer_sized, skip_without_xvfb};

/// Window size of these runs (as the paint tests, so the stroke lands on the mesh).
const SIZE: &str = "1024x640";

/// A fresh temp folder holding the built-in rigs `twist` and `arm` as GLB files and a text file.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dqview_files_{name}_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    for rig in ["twist", "arm"] {
        let scene = dqview::model::load_model(&format!("builtin:{rig}")).expect("builtin");
        let glb = dqview::scene::write_glb(&scene).expect("GLB");
        std::fs::write(dir.join(format!("{rig}.glb")), glb).expect("write rig");
    }
    std::fs::write(dir.join("notes.txt"), "not a model").expect("write notes");
    dir
}

/// Runs the viewer on `model` with `steps` for `frames` frames.
fn run_script(dir: &Path, model: &Path, steps: &[Value], frames: u64) {
    run_script_in(dir, model, "dqs", steps, frames);
}

/// [`run_script`] with the viewer opened in `mode`.
fn run_script_in(dir: &Path, model: &Path, mode: &str, steps: &[Value], frames: u64) {
    let script = dir.join("script.json");
    std::fs::write(&script, serde_json::to_string(steps).expect("json")).expect("script");
    let frames = frames.to_string();
    let args = [
        model.to_str().expect("utf-8"),
        "--mode",
        mode,
        "--ui-script",
        script.to_str().expect("utf-8"),
        "--exit-after-frames",
        &frames,
    ];
    run_viewer_sized(&args, SIZE);
}

fn text(path: &Path) -> String {
    path.to_str().expect("utf-8").to_owned()
}

/// Where a screenshot for a person to look at goes: kept under the target's test folder.
fn shot(name: &str) -> String {
    text(&Path::new(env!("CARGO_TARGET_TMPDIR")).join(name))
}

#[test]
fn open_lists_the_models_folder_and_opens_the_file_double_clicked() {
    let test = "open_lists_the_models_folder_and_opens_the_file_double_clicked";
    if skip_without_xvfb(test) {
        return;
    }
    let dir = folder("open");
    let steps = [
        json!({"frame": 3, "do": "click", "probe": "open model"}),
        json!({"frame": 6, "do": "dump", "path": text(&dir.join("dialog.json"))}),
        json!({"frame": 6, "do": "save", "path": shot("viewer_files_dialog.png")}),
        json!({"frame": 7, "do": "click", "probe": "dialog entry arm.glb", "double": true}),
        json!({"frame": 12, "do": "dump", "path": text(&dir.join("opened.json"))}),
    ];
    run_script(&dir, &dir.join("twist.glb"), &steps, 14);
    let asked = read(&dir.join("dialog.json"));
    let dialog = &asked["dialog"];
    assert_eq!(dialog["title"], "Open a model", "{asked}");
    assert_eq!(dialog["dir"], text(&dir), "starts in the model's folder");
    let entries: Vec<&str> = dialog["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| e.as_str().expect("name"))
        .collect();
    assert_eq!(entries, ["..", "arm.glb", "twist.glb"], "models only");
    let opened = read(&dir.join("opened.json"));
    assert_eq!(opened["source"], text(&dir.join("arm.glb")), "{opened}");
    assert!(opened["dialog"].is_null(), "the dialog closed");
    assert!(opened["error"].is_null(), "{}", opened["error"]);
    assert_eq!(opened["recent"][0], text(&dir.join("arm.glb")));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Paint mode on, a stroke over the `tip` joint, then Save blend map and the dialog's Save.
fn paint_and_save() -> Vec<Value> {
    vec![
        json!({"frame": 3, "do": "key", "key": "P"}),
        json!({"frame": 5, "do": "click", "probe": "paint set"}),
        json!({"frame": 6, "do": "click", "probe": "falloff constant"}),
        json!({"frame": 8, "do": "drag", "joint": "tip", "dx": 30.0, "dy": 0.0, "frames": 3}),
        json!({"frame": 15, "do": "click", "probe": "Save blend map"}),
        json!({"frame": 19, "do": "click", "probe": "dialog ok"}),
    ]
}

#[test]
fn save_blend_map_asks_before_replacing_and_lists_the_file_in_recent() {
    let test = "save_blend_map_asks_before_replacing_and_lists_the_file_in_recent";
    if skip_without_xvfb(test) {
        return;
    }
    let dir = folder("save");
    let model = dir.join("twist.glb");
    let target = dir.join("twist_blend.glb");
    std::fs::write(&target, b"an older file").expect("write");

    // Saying no keeps the file as it was.
    let mut steps = paint_and_save();
    steps.extend([
        json!({"frame": 17, "do": "dump", "path": text(&dir.join("asked.json"))}),
        json!({"frame": 22, "do": "dump", "path": text(&dir.join("confirm.json"))}),
        json!({"frame": 22, "do": "save", "path": shot("viewer_files_confirm.png")}),
        json!({"frame": 23, "do": "click", "probe": "dialog keep"}),
        json!({"frame": 26, "do": "click", "probe": "dialog cancel"}),
        json!({"frame": 29, "do": "dump", "path": text(&dir.join("kept.json"))}),
    ]);
    run_script(&dir, &model, &steps, 31);
    let asked = read(&dir.join("asked.json"));
    assert_eq!(asked["dialog"]["title"], "Save blend map", "{asked}");
    assert_eq!(asked["dialog"]["dir"], text(&dir), "the model's folder");
    assert_eq!(
        asked["dialog"]["name"], "twist_blend.glb",
        "the model's name"
    );
    let confirm = read(&dir.join("confirm.json"));
    assert_eq!(
        confirm["dialog"]["confirm_overwrite"],
        text(&target),
        "{confirm}"
    );
    let kept = read(&dir.join("kept.json"));
    assert!(kept["dialog"].is_null(), "{kept}");
    assert_eq!(std::fs::read(&target).expect("read"), b"an older file");
    assert!(
        !kept["recent"]
            .as_array()
            .expect("recent")
            .contains(&json!(text(&target)))
    );

    // Saying yes replaces it with the model and the painted map.
    let mut steps = paint_and_save();
    steps.extend([
        json!({"frame": 23, "do": "click", "probe": "dialog replace"}),
        json!({"frame": 27, "do": "dump", "path": text(&dir.join("saved.json"))}),
    ]);
    run_script(&dir, &model, &steps, 29);
    let saved = read(&dir.join("saved.json"));
    let message = saved["paint"]["message"].as_str().expect("message");
    assert!(message.starts_with("wrote "), "{message}");
    assert_eq!(saved["recent"][0], text(&target), "listed under Recent");
    let back = dqview::model::load_model(&text(&target)).expect("a model again");
    let stored: Vec<f32> = back
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .flat_map(|p| p.dqs_blend.clone().unwrap_or_default())
        .collect();
    let shown: Vec<f32> = saved["paint"]["betas"]
        .as_array()
        .expect("betas")
        .iter()
        .flat_map(|m| m.as_array().expect("mesh").iter())
        .flat_map(|p| p.as_array().expect("primitive").iter())
        .map(|b| b.as_f64().expect("beta") as f32)
        .collect();
    assert_eq!(stored.len(), shown.len(), "one stored beta per vertex");
    assert!(
        stored.iter().zip(&shown).all(|(a, b)| (a - b).abs() < 1e-6),
        "the file holds the painted map"
    );
    assert!(shown.iter().any(|&b| b != shown[0]), "the stroke painted");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn save_cor_centres_writes_the_model_with_them() {
    let test = "save_cor_centres_writes_the_model_with_them";
    if skip_without_xvfb(test) {
        return;
    }
    let dir = folder("cor");
    let model = dir.join("arm.glb");
    let steps = [
        json!({"frame": 30, "do": "dump", "path": text(&dir.join("ready.json"))}),
        json!({"frame": 31, "do": "click", "probe": "Save CoR centres"}),
        json!({"frame": 34, "do": "dump", "path": text(&dir.join("asked.json"))}),
        json!({"frame": 35, "do": "click", "probe": "dialog ok"}),
        json!({"frame": 39, "do": "dump", "path": text(&dir.join("saved.json"))}),
        json!({"frame": 39, "do": "save", "path": shot("viewer_files_cor_saved.png")}),
    ];
    run_script_in(&dir, &model, "cor", &steps, 41);
    let ready = read(&dir.join("ready.json"));
    assert_eq!(ready["cor"]["ready"], true, "{}", ready["cor"]);
    let asked = read(&dir.join("asked.json"));
    assert_eq!(asked["dialog"]["title"], "Save CoR centres", "{asked}");
    assert_eq!(asked["dialog"]["name"], "arm_cor.glb");
    let saved = read(&dir.join("saved.json"));
    let message = saved["cor"]["message"].as_str().expect("message");
    assert!(message.starts_with("wrote "), "{message}");
    let out = dir.join("arm_cor.glb");
    let scene = dqview::model::load_model(out.to_str().expect("utf-8")).expect("reads back");
    let centres = dqview::skin::SceneCenters::compute(
        &scene,
        &dqview::skin::CorOptions::default(),
        &dqview::skin::CorProgress::new(),
    )
    .expect("centres");
    let gltf = gltf::Gltf::from_slice(&std::fs::read(&out).expect("out")).expect("GLB");
    let prim = gltf
        .meshes()
        .next()
        .and_then(|m| m.primitives().next())
        .expect("primitive");
    let accessor = prim
        .attributes()
        .find(|(s, _)| *s == gltf::Semantic::Extras("COR_CENTER".into()))
        .map(|(_, a)| a)
        .expect("_COR_CENTER written");
    assert_eq!(accessor.count(), centres.per_primitive[0][0].len());
    assert!(
        saved["recent"]
            .as_array()
            .expect("recent")
            .contains(&json!(text(&out)))
    );
}
