//! The viewer reuses the last frame's 3D views only while nothing they show changed (under
//! Xvfb): a still model reuses them and looks exactly as when drawn afresh; a playing clip
//! and a camera drag draw them every frame.
//!
//! Skipped (loudly) where `xvfb-run` is missing, unless `DQVIEW_REQUIRE_DISPLAY=1`.

mod support;

use support::{run_viewer_logged, skip_without_xvfb};

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
