//! The viewer reuses the last frame's 3D views only while nothing they show changed (under
//! Xvfb): a still model reuses them and looks exactly as when drawn afresh; a playing clip
//! and a camera drag draw them every frame.
//!
//! Skipped (loudly) where `xvfb-run` is missing, unless `DQVIEW_REQUIRE_DISPLAY=1`.

mod support;

use support::{characters_dir, run_viewer_logged, run_viewer_logged_with, skip_without_xvfb};

/// (reused, drawn) from the viewer's exit line "3D views drawn in D frames, reused unchanged
/// in R; whole frames reused (UI unchanged too) in W".
fn counts(log: &str) -> (u64, u64) {
    let (reused, drawn, _) = counts_whole(log);
    (reused, drawn)
}

/// (reused, drawn, whole) from the viewer's exit line.
fn counts_whole(log: &str) -> (u64, u64, u64) {
    let line = log
        .lines()
        .find_map(|l| l.split_once("3D views drawn in ").map(|(_, rest)| rest))
        .unwrap_or_else(|| panic!("no 3D views line in:\n{log}"));
    let number = |text: &str| {
        text.split(|c: char| !c.is_ascii_digit())
            .next()?
            .parse::<u64>()
            .ok()
    };
    let drawn = number(line).expect("drawn count");
    let reused = line
        .split_once("reused unchanged in ")
        .and_then(|(_, r)| number(r))
        .expect("reused count");
    let whole = line
        .split_once("(UI unchanged too) in ")
        .and_then(|(_, r)| number(r))
        .expect("whole-frame count");
    (reused, drawn, whole)
}

/// Pixels of the single view's middle (above the status line, right of the panel).
fn view_pixels(path: &std::path::Path) -> Vec<u8> {
    let image = image::open(path).expect("png").to_rgba8();
    let mut out = Vec::new();
    for y in 60..440 {
        for x in 360..1240 {
            out.extend_from_slice(&image.get_pixel(x, y).0);
        }
    }
    out
}

#[test]
fn still_views_are_reused_exactly_and_motion_draws_them() {
    if skip_without_xvfb("still_views_are_reused_exactly_and_motion_draws_them") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("dqview-scene-cache-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let session = path("session.json");
    let still = |frames: &str, shot: &str| {
        let _ = std::fs::remove_file(&session);
        let args = [
            "builtin:arm",
            "--session",
            &session,
            "--exit-after-frames",
            frames,
            "--screenshot",
            shot,
        ];
        run_viewer_logged(&args, "1280x720")
    };
    // One frame: drawn. Thirty still frames: drawn once, then reused, the last one shown.
    let first = path("first.png");
    assert_eq!(counts(&still("1", &first)), (0, 1));
    let last = path("last.png");
    let (reused, drawn, whole) = counts_whole(&still("30", &last));
    assert!(drawn <= 2 && reused >= 28, "drawn {drawn}, reused {reused}");
    // The status line refreshes twice a second; between refreshes the UI is the same picture
    // too, and the frame is copied whole.
    assert!(
        (15..=reused).contains(&whole),
        "whole frames reused {whole} of {reused}"
    );
    let (a, b) = (view_pixels(first.as_ref()), view_pixels(last.as_ref()));
    let differing = a.chunks(4).zip(b.chunks(4)).filter(|(p, q)| p != q).count();
    assert_eq!(
        differing, 0,
        "a reused view differs from the drawn one in {differing} pixels"
    );

    // The clip playing (scripted runs open paused at its start): every frame draws its views.
    let script = path("play.json");
    std::fs::write(&script, r#"[{"frame": 1, "do": "key", "key": "Space"}]"#).expect("script");
    let _ = std::fs::remove_file(&session);
    let args = [
        "builtin:arm",
        "--clip",
        "0",
        "--session",
        &session,
        "--ui-script",
        &script,
    ];
    let log = run_viewer_logged(
        &[&args[..], &["--exit-after-frames", "30"]].concat(),
        "1280x720",
    );
    let (reused, drawn, whole) = counts_whole(&log);
    assert!(
        reused <= 2 && drawn >= 28 && whole == 0,
        "playing: drawn {drawn}, reused {reused}, whole {whole}"
    );

    // A camera drag over frames 5 to 15: each of its frames draws; still frames after reuse.
    std::fs::write(
        &script,
        r#"[{"frame": 5, "do": "drag", "at": [800, 250], "dx": 300, "dy": 40, "frames": 10}]"#,
    )
    .expect("script");
    let _ = std::fs::remove_file(&session);
    let log = run_viewer_logged(
        &[&args[..], &["--exit-after-frames", "30"]].concat(),
        "1280x720",
    );
    let (reused, drawn) = counts(&log);
    assert!(
        drawn >= 10,
        "the drag drew its frames: drawn {drawn}, reused {reused}"
    );
    assert!(
        reused >= 10,
        "still frames around the drag reused: {reused}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// (frames drawn in part, pixels a frame) from the exit line's "UI drawn only where it changed
/// in P (N pixels a frame)".
fn partial_counts(log: &str) -> (u64, u64) {
    let rest = log
        .lines()
        .find_map(|l| {
            l.split_once("UI drawn only where it changed in ")
                .map(|(_, r)| r)
        })
        .unwrap_or_else(|| panic!("no partial UI count in:\n{log}"));
    let numbers: Vec<u64> = rest
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|t| t.parse().ok())
        .collect();
    (numbers[0], numbers[1])
}

/// (frames checked, differing pixels) from "UI damage checked in N frames: M pixels differ".
fn damage_check(log: &str) -> (u64, u64) {
    let rest = log
        .lines()
        .find_map(|l| l.split_once("UI damage checked in ").map(|(_, r)| r))
        .unwrap_or_else(|| panic!("no damage check line in:\n{log}"));
    let numbers: Vec<u64> = rest
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|t| t.parse().ok())
        .collect();
    (numbers[0], numbers[1])
}

#[test]
fn a_playing_clip_redraws_only_what_changed_and_matches_the_whole_frame() {
    let name = "a_playing_clip_redraws_only_what_changed_and_matches_the_whole_frame";
    if skip_without_xvfb(name) {
        return;
    }
    let Some(characters) = characters_dir(name) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("dqview-ui-damage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let (session, script) = (path("session.json"), path("play.json"));
    // Play; the plot's analysis lands while it plays (its curves appear); at frame 20 the mode
    // changes (the mode menu's text); at 30 the clip steps a frame (and pauses) and plays on;
    // at 40 the views switch to single (the layout moves).
    std::fs::write(
        &script,
        r#"[{"frame": 1, "do": "key", "key": "Space"},
            {"frame": 20, "do": "key", "key": "2"},
            {"frame": 30, "do": "key", "key": "ArrowRight"},
            {"frame": 31, "do": "key", "key": "Space"},
            {"frame": 40, "do": "click", "probe": "view single"}]"#,
    )
    .expect("script");
    let model = characters.join("Adventurer.gltf");
    let model = model.to_string_lossy();
    let args = [
        &*model,
        "--view",
        "split",
        "--clip",
        "Run",
        "--session",
        &session,
        "--ui-script",
        &script,
        "--exit-after-frames",
        "50",
    ];
    let log = run_viewer_logged_with(&args, "1280x720", &[("DQVIEW_CHECK_UI_DAMAGE", "1")]);
    let (partial, pixels) = partial_counts(&log);
    let (checked, differing) = damage_check(&log);
    // Nearly every playing frame draws in part (the first few add glyphs to the font atlas,
    // which is fine; a layout change draws whole): the split's views, 915 x 520 of the 1280 x
    // 720 window, are drawn afresh anyway; of the panel and the plot only the few widgets that
    // moved.
    assert!(
        partial >= 40,
        "frames drawn in part: {partial} of 50\n{log}"
    );
    assert!(
        pixels < 1280 * 720 * 6 / 10,
        "pixels drawn a frame: {pixels}\n{log}"
    );
    // The plot's curves changed while it played (its analysis landed), and no frame drawn in
    // part kept a stale curve: each was compared with the same frame drawn whole.
    assert!(
        log.contains("series over ClipTime"),
        "the analysis did not land while playing\n{log}"
    );
    assert_eq!(checked, partial, "every frame drawn in part was checked");
    assert_eq!(
        differing, 0,
        "frames drawn in part differ from the whole frames\n{log}"
    );
    // With the whole UI drawn every frame (as before), no frame is drawn in part.
    let _ = std::fs::remove_file(&session);
    let log = run_viewer_logged_with(&args, "1280x720", &[("DQVIEW_WHOLE_UI_PASS", "1")]);
    assert_eq!(partial_counts(&log).0, 0, "{log}");
    let _ = std::fs::remove_dir_all(&dir);
}
