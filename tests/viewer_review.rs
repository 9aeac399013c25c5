//! Reviewing a real character in the viewer (Xvfb): find a joint, pick it in the viewport,
//! frame it, reach its sliders in a small window, save the image.
//!
//! Input is scripted (`--ui-script`): clicks and keys go through egui as a user's do, aimed at
//! the widgets and joint dots the window laid out the frame before; the viewer dumps what it
//! shows as JSON. Without Xvfb or the characters these tests print `SKIPPED` and pass, unless
//! `DQVIEW_REQUIRE_DISPLAY=1` / `DQVIEW_REQUIRE_DATA=1`.

mod support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::{read_dump as read, run_viewer_sized, skip_without_xvfb};

/// Adventurer.gltf from the shared characters, or `None` after a skip message.
fn adventurer(test: &str) -> Option<PathBuf> {
    let dir = support::data_dir("DQVIEW_CHARACTERS", test)?;
    Some(dir.join("Adventurer.gltf"))
}

/// A fresh temp folder for one test.
fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dqview_review_{name}_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Runs the viewer on `model` with `script` (steps as JSON values) for `frames` frames at
/// `size` with `extra` flags; the dumps it wrote, by path.
fn run_script(dir: &Path, model: &Path, size: &str, steps: &[Value], frames: u64, extra: &[&str]) {
    let script = dir.join("script.json");
    std::fs::write(&script, serde_json::to_string(steps).expect("json")).expect("script");
    let frames = frames.to_string();
    let mut args = vec![
        model.to_str().expect("utf-8"),
        "--ui-script",
        script.to_str().expect("utf-8"),
        "--exit-after-frames",
        &frames,
    ];
    args.extend_from_slice(extra);
    run_viewer_sized(&args, size);
}

/// Whether probe `name` of `dump` lies wholly inside its visible panel area.
fn visible(dump: &Value, name: &str) -> bool {
    dump["probes"][name]["visible"]
        .as_bool()
        .unwrap_or_else(|| panic!("no probe {name}: {dump}"))
}

#[test]
fn search_finds_a_joint_by_substring_and_selects_it() {
    let test = "search_finds_a_joint_by_substring_and_selects_it";
    let Some(model) = adventurer(test) else {
        return;
    };
    if skip_without_xvfb(test) {
        return;
    }
    let dir = temp("search");
    let dump = |f: &str| dir.join(f).to_str().expect("utf-8").to_owned();
    let steps = [
        json!({"frame": 3, "do": "click", "probe": "joint search"}),
        json!({"frame": 4, "do": "type", "text": "LOWERarm"}),
        json!({"frame": 5, "do": "dump", "path": dump("typed.json")}),
        json!({"frame": 6, "do": "key", "key": "ArrowDown"}),
        json!({"frame": 7, "do": "key", "key": "Enter"}),
        json!({"frame": 12, "do": "dump", "path": dump("picked.json")}),
    ];
    run_script(&dir, &model, "1280x720", &steps, 14, &[]);
    let typed = read(&dir.join("typed.json"));
    assert_eq!(typed["search"], "LOWERarm");
    assert_eq!(
        typed["selected"],
        Value::Null,
        "typing alone selects nothing"
    );
    let picked = read(&dir.join("picked.json"));
    // Tree order is LowerArm.L then LowerArm.R: Down moved to the second match.
    assert_eq!(picked["selected"], "LowerArm.R", "{picked}");
    assert!(
        visible(&picked, "selected joint row"),
        "{}",
        picked["probes"]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_viewport_pick_scrolls_the_tree_and_a_double_click_frames_the_joint() {
    let test = "a_viewport_pick_scrolls_the_tree_and_a_double_click_frames_the_joint";
    let Some(model) = adventurer(test) else {
        return;
    };
    if skip_without_xvfb(test) {
        return;
    }
    let dir = temp("pick");
    let dump = |f: &str| dir.join(f).to_str().expect("utf-8").to_owned();
    let steps = [
        json!({"frame": 3, "do": "dump", "path": dump("start.json")}),
        json!({"frame": 4, "do": "click", "joint": "LowerArm.L"}),
        json!({"frame": 9, "do": "dump", "path": dump("picked.json")}),
        json!({"frame": 10, "do": "click", "joint": "Foot.R", "double": true}),
        json!({"frame": 13, "do": "dump", "path": dump("framed.json")}),
        json!({"frame": 13, "do": "save", "path": dump("framed.png")}),
    ];
    run_script(&dir, &model, "1280x720", &steps, 15, &["--view", "split"]);
    let start = read(&dir.join("start.json"));
    assert_eq!(start["selected"], Value::Null);
    let picked = read(&dir.join("picked.json"));
    assert_eq!(picked["selected"], "LowerArm.L", "{picked}");
    assert!(
        visible(&picked, "selected joint row"),
        "{}",
        picked["probes"]
    );
    assert!(visible(&picked, "joint tree"));
    let framed = read(&dir.join("framed.json"));
    assert_eq!(framed["selected"], "Foot.R");
    let distance = |d: &Value| d["camera"]["distance"].as_f64().expect("distance");
    let target = |d: &Value| {
        let t = &d["camera"]["target"];
        [0, 1, 2].map(|k| t[k].as_f64().expect("target"))
    };
    // The whole character is ~1.8 m tall; one foot's region is a small part of it.
    assert!(
        distance(&framed) < 0.4 * distance(&start),
        "framing a foot moves in: {} -> {}",
        distance(&start),
        distance(&framed)
    );
    // The foot is near the ground: the new target is much lower than the body's centre.
    assert!(
        target(&framed)[1] < target(&start)[1] - 0.4,
        "{:?}",
        target(&framed)
    );
    let png = image::open(dir.join("framed.png")).expect("Save image wrote a PNG");
    let window = &framed["window"];
    assert_eq!(u64::from(png.width()), window[0].as_u64().expect("width"));
    assert_eq!(u64::from(png.height()), window[1].as_u64().expect("height"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_selected_joints_sliders_are_reachable_in_small_windows() {
    let test = "the_selected_joints_sliders_are_reachable_in_small_windows";
    let Some(model) = adventurer(test) else {
        return;
    };
    if skip_without_xvfb(test) {
        return;
    }
    for size in ["1280x720", "1024x600"] {
        let dir = temp(&format!("small_{size}"));
        let dump = dir.join("dump.json").to_str().expect("utf-8").to_owned();
        let steps = [
            json!({"frame": 4, "do": "dump", "path": dump}),
            json!({"frame": 5, "do": "drag", "probe": "bend °", "dx": 60}),
            json!({"frame": 8, "do": "dump", "path": dir.join("dragged.json").to_str().expect("utf-8")}),
        ];
        // A joint given an angle on the command line starts selected.
        let extra = ["--twist", "LowerArm.L=170", "--view", "split"];
        run_script(&dir, &model, size, &steps, 10, &extra);
        let d = read(&dir.join("dump.json"));
        let want: Vec<u64> = size.split('x').map(|s| s.parse().expect("size")).collect();
        assert_eq!(
            d["window"][0].as_u64(),
            Some(want[0]),
            "{size}: window {}",
            d["window"]
        );
        assert_eq!(d["selected"], "LowerArm.L");
        for slider in ["twist °", "bend °", "roll °", "reset joint"] {
            assert!(
                visible(&d, slider),
                "{size}: {slider} is cut off: {}",
                d["probes"][slider]
            );
        }
        // Reachable means usable: dragging the bend slider bends the joint.
        let dragged = read(&dir.join("dragged.json"));
        let bend = dragged["overrides"]
            .as_array()
            .and_then(|a| a.iter().find(|o| o["joint"] == "LowerArm.L"))
            .and_then(|o| o["bend_deg"].as_f64())
            .unwrap_or(0.0);
        assert!(
            bend.abs() > 5.0,
            "{size}: the bend slider did not move ({bend})"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn the_displacement_heatmap_scales_to_the_pose_and_holds_or_fixes_its_range() {
    let test = "the_displacement_heatmap_scales_to_the_pose_and_holds_or_fixes_its_range";
    let Some(model) = adventurer(test) else {
        return;
    };
    if skip_without_xvfb(test) {
        return;
    }
    let dir = temp("heat");
    let path = |f: &str| dir.join(f).to_str().expect("utf-8").to_owned();
    let steps = [
        json!({"frame": 4, "do": "dump", "path": path("auto.json")}),
        json!({"frame": 5, "do": "click", "probe": "heat hold"}),
        // Twist back towards rest: a held range stays, an auto one would shrink.
        json!({"frame": 6, "do": "drag", "probe": "twist °", "dx": -40}),
        json!({"frame": 10, "do": "dump", "path": path("held.json")}),
        json!({"frame": 11, "do": "click", "probe": "heat fixed"}),
        json!({"frame": 13, "do": "dump", "path": path("fixed.json")}),
        json!({"frame": 14, "do": "click", "probe": "heat auto"}),
        json!({"frame": 16, "do": "dump", "path": path("again.json")}),
    ];
    let extra = [
        "--twist",
        "LowerArm.L=170",
        "--view",
        "split",
        "--shading",
        "displacement",
    ];
    run_script(&dir, &model, "1280x720", &steps, 18, &extra);
    // The largest LBS-DQS distance over the diagonal, as `analyze` measures it on its own.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dqview"))
        .args([
            "analyze",
            model.to_str().expect("utf-8"),
            "--twist",
            "LowerArm.L=170",
            "--json",
        ])
        .output()
        .expect("run analyze");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let analyze: Value = serde_json::from_slice(&out.stdout).expect("analyze JSON");
    let largest = analyze["max_lbs_dqs_displacement_relative"]
        .as_f64()
        .expect("displacement");
    let heat = |d: &Value| {
        (
            d["heat"]["lo"].as_f64().expect("lo"),
            d["heat"]["hi"].as_f64().expect("hi"),
        )
    };
    let auto = read(&dir.join("auto.json"));
    assert_eq!(auto["heat"]["quantity"], "Displacement", "{}", auto["heat"]);
    let (lo, hi) = heat(&auto);
    assert_eq!(lo, 0.0);
    assert!(
        (hi - largest).abs() <= 1e-3 * largest,
        "auto range tops at {hi}, analyze says {largest}"
    );
    assert!(
        hi < 0.05,
        "a real character's range is a few percent at most, not the fixed 10%: {hi}"
    );
    let held = read(&dir.join("held.json"));
    let twist = held["overrides"][0]["twist_deg"].as_f64().expect("twist");
    assert!(twist < 160.0, "the drag twisted back: {twist}");
    assert_eq!(
        heat(&held),
        (lo, hi),
        "hold keeps the range while the pose changes"
    );
    let fixed = read(&dir.join("fixed.json"));
    assert_eq!(
        heat(&fixed),
        (0.0, f64::from(0.1_f32)),
        "fixed is 0..10% of the diagonal"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
