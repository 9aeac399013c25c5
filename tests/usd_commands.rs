//! The USD copies of both shared characters through `check`, `report` and the viewer (issue 25):
//! each opens, is measured and drawn, as the glTF originals are.
//!
//! Needs `DQVIEW_USD` (skips without it unless `DQVIEW_REQUIRE_DATA=1`); the report's renders and
//! the viewer need an adapter and xvfb-run (`DQVIEW_REQUIRE_GPU=1` / `DQVIEW_REQUIRE_DISPLAY=1`).

mod support;

use std::path::Path;

use serde_json::{Value, json};
use support::{dqview_in, scratch_dir, stderr_of};
use support::{read_dump, run_viewer_sized, skip_without_xvfb};

/// The two characters' USD copies, or `None` after a skip message.
fn characters(test: &str) -> Option<Vec<std::path::PathBuf>> {
    let dir = support::data_dir("DQVIEW_USD", test)?;
    Some(
        ["RobotExpressive.usdc", "Adventurer.usdc"]
            .iter()
            .map(|f| dir.join(f))
            .collect(),
    )
}

/// The page's text without its embedded images (base64 may spell anything).
fn without_images(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(i) = rest.find("data:image/") {
        out.push_str(&rest[..i]);
        let end = rest[i..].find('"').map_or(rest.len(), |e| i + e);
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

#[test]
fn check_and_report_measure_the_usd_characters() {
    let Some(files) = characters("check_and_report_measure_the_usd_characters") else {
        return;
    };
    let dir = scratch_dir("usd_commands_report");
    for file in &files {
        let path = file.to_str().expect("utf-8");
        let run = dqview_in(&["check", "--json", path], &dir.join("cache"));
        let json: Value = serde_json::from_slice(&run.stdout).expect("check --json");
        let findings = json["files"][0]["findings"].as_array().expect("findings");
        assert!(
            findings.iter().all(|f| f["rule"] != "load_error"),
            "{path}: {json}"
        );
        assert_eq!(json["files"][0]["ok"], true, "{path}: {json}");

        let page = dir.join("report.html");
        let run = dqview_in(
            &["report", path, "--out", page.to_str().expect("utf-8")],
            &dir.join("cache"),
        );
        assert!(run.status.success(), "{path}: {}", stderr_of(&run));
        let html = without_images(&std::fs::read_to_string(&page).expect("page"));
        assert!(html.contains("<th>format</th><td>USD (usdc)"), "{path}");
        for section in ["summary", "worst-regions", "volume", "flips", "blend-fit"] {
            assert!(
                html.contains(&format!("id=\"{section}\"")),
                "{path}: {section}"
            );
        }
        for bad in ["NaN", "no skinned mesh"] {
            assert!(!html.contains(bad), "{path}: `{bad}` in the page");
        }
        // "inf" as a number, not the start of "influences".
        let infinite = html
            .match_indices("inf")
            .any(|(i, _)| !html[i + 3..].starts_with(|c: char| c.is_ascii_alphabetic()));
        assert!(!infinite, "{path}: an infinite number in the page");
        // Without an adapter the page says the renders are left out (a failure where one is required).
        let gpu_required = std::env::var("DQVIEW_REQUIRE_GPU").is_ok_and(|v| v == "1");
        if gpu_required || !html.contains("GPU renders left out") {
            assert!(html.matches("<img").count() >= 2, "{path}: renders");
        }
    }
}

/// The rows and columns the white pixels of a mask image span.
fn mask_extent(png: &Path) -> (u32, u32) {
    let image = image::open(png).expect("mask").to_luma8();
    let white: Vec<(u32, u32)> = image
        .enumerate_pixels()
        .filter(|(_, _, p)| p.0[0] > 160)
        .map(|(x, y, _)| (x, y))
        .collect();
    assert!(!white.is_empty(), "an empty mask");
    let span = |f: fn(&(u32, u32)) -> u32| {
        let (lo, hi) = white
            .iter()
            .map(f)
            .fold((u32::MAX, 0), |(a, b), v| (a.min(v), b.max(v)));
        hi - lo + 1
    };
    (span(|p| p.0), span(|p| p.1))
}

#[test]
fn a_z_up_stage_stands_upright_as_its_gltf_original_does() {
    let Some(files) = characters("a_z_up_stage_stands_upright_as_its_gltf_original_does") else {
        return;
    };
    let dir = scratch_dir("usd_commands_upright");
    // Both Blender exports are Z-up stages; the Adventurer at rest is a standing figure.
    let png = dir.join("mask.png");
    let run = dqview_in(
        &[
            "render",
            files[1].to_str().expect("utf-8"),
            "--view",
            "mask",
            "--size",
            "256x256",
            "--out",
            png.to_str().expect("utf-8"),
        ],
        &dir.join("cache"),
    );
    if !run.status.success() && stderr_of(&run).contains("GPU adapter") {
        let required = std::env::var("DQVIEW_REQUIRE_GPU").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "no adapter, and DQVIEW_REQUIRE_GPU=1: {}",
            stderr_of(&run)
        );
        eprintln!("SKIPPED a_z_up_stage_stands_upright: {}", stderr_of(&run));
        return;
    }
    assert!(run.status.success(), "{}", stderr_of(&run));
    let (width, height) = mask_extent(&png);
    assert!(
        height > 2 * width,
        "{width} wide, {height} tall: lying down?"
    );
}

#[test]
fn the_viewer_opens_and_draws_the_usd_characters() {
    let test = "the_viewer_opens_and_draws_the_usd_characters";
    let Some(files) = characters(test) else {
        return;
    };
    if skip_without_xvfb(test) {
        return;
    }
    let dir = scratch_dir("usd_commands_viewer");
    for file in &files {
        let dump = dir.join("dump.json");
        let shot = dir.join("shot.png");
        let _ = std::fs::remove_file(&dump);
        let script = dir.join("script.json");
        let steps = json!([
            {"frame": 4, "do": "dump", "path": dump.to_str().expect("utf-8")},
            {"frame": 4, "do": "save", "path": shot.to_str().expect("utf-8")},
        ]);
        std::fs::write(&script, steps.to_string()).expect("script");
        let path = file.to_str().expect("utf-8");
        let args = [
            path,
            "--ui-script",
            script.to_str().expect("utf-8"),
            "--exit-after-frames",
            "6",
        ];
        run_viewer_sized(&args, "1024x600");
        let state = read_dump(&dump);
        assert_eq!(state["source"], path, "{state}");
        assert!(state["error"].is_null(), "{}", state["error"]);
        assert_eq!(state["playback"]["playing"], false, "a clip opens paused");
        assert!(mesh_drawn(&shot, &state), "{path}: no mesh in the view");
    }
}

/// Whether the first view of the screenshot has many pixels far from its corner's colour.
fn mesh_drawn(shot: &Path, state: &Value) -> bool {
    let image = image::open(shot).expect("screenshot").to_rgb8();
    let rect = &state["views"][0]["rect"];
    let at = |k: usize| rect[k].as_f64().expect("rect") as u32;
    let (x0, y0, x1, y1) = (
        at(0),
        at(1),
        at(2).min(image.width()),
        at(3).min(image.height()),
    );
    let corner = image.get_pixel(x1 - 4, y0 + 4).0;
    let far = (y0..y1)
        .step_by(2)
        .flat_map(|y| (x0..x1).step_by(2).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let p = image.get_pixel(x, y).0;
            p.iter()
                .zip(corner)
                .map(|(a, b)| a.abs_diff(b) as u32)
                .sum::<u32>()
                > 60
        })
        .count();
    far > 2000
}
