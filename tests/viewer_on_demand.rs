//! The viewer draws on demand: paused and untouched it presents no frame; a playing clip, a drag
//! in the viewport and a background job (the plot's analysis, the CoR precompute) each bring
//! drawing back. Real X input (xdotool) into a real window under Xvfb; frames are counted from
//! the viewer's own `dqview::frames` log lines.

mod support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::sleep;
use std::time::{Duration, Instant};

use support::{Killed, on_path, start_xvfb};

/// Log lines of the viewer with the time each arrived.
type Lines = Arc<Mutex<Vec<(Instant, String)>>>;

/// True when Xvfb or xdotool is missing and the test may skip (loud on stderr).
fn skip(test: &str) -> bool {
    let missing: Vec<_> = ["Xvfb", "xdotool"]
        .into_iter()
        .filter(|p| !on_path(p))
        .collect();
    if missing.is_empty() {
        return false;
    }
    let required = std::env::var("DQVIEW_REQUIRE_DISPLAY").is_ok_and(|v| v == "1");
    assert!(
        !required,
        "{test}: {missing:?} not on PATH but DQVIEW_REQUIRE_DISPLAY=1"
    );
    eprintln!("\n*** SKIPPED {test}: {missing:?} not on PATH (apt-get install xvfb xdotool) ***\n");
    true
}

/// Runs xdotool on `display`; returns its stdout.
fn xdotool(display: &str, args: &[&str]) -> String {
    let out = Command::new("xdotool")
        .args(args)
        .env("DISPLAY", display)
        .output()
        .expect("run xdotool");
    assert!(
        out.status.success(),
        "xdotool {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Frames presented in `[from, to)`.
fn frames_between(lines: &Lines, from: Instant, to: Instant) -> usize {
    let lines = lines.lock().expect("lines");
    lines
        .iter()
        .filter(|(t, l)| *t >= from && *t < to && l.contains("presented"))
        .count()
}

/// Waits up to `timeout` for a line containing `text` that arrived after `after`; its time.
fn wait_for(lines: &Lines, text: &str, after: Instant, timeout: Duration) -> Instant {
    let end = Instant::now() + timeout;
    loop {
        let found = lines
            .lock()
            .expect("lines")
            .iter()
            .find(|(t, l)| *t >= after && l.contains(text))
            .map(|(t, _)| *t);
        if let Some(t) = found {
            return t;
        }
        assert!(
            Instant::now() < end,
            "no log line with {text:?} in {timeout:?}: {}",
            tail(lines)
        );
        sleep(Duration::from_millis(50));
    }
}

/// Waits (up to a minute) until no frame has been presented for `quiet`; returns then.
fn wait_until_idle(lines: &Lines, quiet: Duration, what: &str) -> Instant {
    let end = Instant::now() + Duration::from_secs(60);
    loop {
        let now = Instant::now();
        if frames_between(lines, now - quiet, now + Duration::from_secs(1)) == 0 {
            return now;
        }
        assert!(
            now < end,
            "{what}: the viewer never stopped drawing: {}",
            tail(lines)
        );
        sleep(Duration::from_millis(100));
    }
}

/// The last log lines, for failure messages.
fn tail(lines: &Lines) -> String {
    let lines = lines.lock().expect("lines");
    let from = lines.len().saturating_sub(12);
    lines[from..]
        .iter()
        .map(|(_, l)| l.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Asserts no frame is presented over the next `span` (the counter stands still).
fn assert_still(lines: &Lines, span: Duration, what: &str) {
    let from = Instant::now();
    sleep(span);
    let drawn = frames_between(lines, from, Instant::now());
    assert_eq!(
        drawn, 0,
        "{what}: {drawn} frames drawn in {span:?} with no input"
    );
}

/// Asserts a background job from `started` to `done` had its progress redrawn (a frame at
/// least every 0.5 s, up to 3) and its result drawn (a frame within 3 s after it ended).
fn assert_job_drawn(lines: &Lines, started: Instant, done: Instant, job: &str) {
    sleep((done + Duration::from_secs(3)).saturating_duration_since(Instant::now()));
    let after = frames_between(lines, done, done + Duration::from_secs(3));
    assert!(
        after >= 1,
        "no frame showed the result of {job}: {}",
        tail(lines)
    );
    let job_s = done.duration_since(started).as_secs_f64();
    let during = frames_between(lines, started, done);
    assert!(
        during as f64 >= (job_s / 0.5).floor().min(3.0),
        "{during} frames in the {job_s:.2} s of {job}: its progress was not redrawn"
    );
}

#[test]
fn a_paused_viewer_stops_drawing_and_a_clip_a_drag_and_a_job_bring_it_back() {
    let test = "a_paused_viewer_stops_drawing_and_a_clip_a_drag_and_a_job_bring_it_back";
    let Some(characters) = support::characters_dir(test) else {
        return;
    };
    if skip(test) {
        return;
    }
    let scratch = support::scratch_dir("viewer_on_demand");
    let model = characters.join("Adventurer.gltf");
    let (_xvfb, display) = start_xvfb("1024x640");
    let mut viewer = Command::new(env!("CARGO_BIN_EXE_dqview"))
        .arg(&model)
        .args(["--window-size", "800x560"])
        .arg("--session")
        .arg(scratch.join("session.json"))
        .env("DISPLAY", &display)
        .env("DQVIEW_CACHE_DIR", scratch.join("cache"))
        .env("RUST_LOG", "warn,dqview::frames=debug,dqview::app=info")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET")
        .stderr(Stdio::piped())
        .spawn()
        .expect("start dqview");
    let stderr = viewer.stderr.take().expect("dqview stderr");
    let viewer = Killed(viewer);
    let lines: Lines = Arc::default();
    let sink = Arc::clone(&lines);
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            sink.lock().expect("lines").push((Instant::now(), line));
        }
    });
    let start = Instant::now();
    let first = wait_for(&lines, "presented", start, Duration::from_secs(120));

    // A background job: the plot's analysis of the first clip runs at open and its result is drawn.
    let series = wait_for(&lines, "series over", start, Duration::from_secs(180));
    assert_job_drawn(&lines, first, series, "the analysis");
    wait_until_idle(&lines, Duration::from_secs(2), "after opening");
    assert_still(&lines, Duration::from_secs(2), "paused after opening");

    let window = xdotool(&display, &["search", "--sync", "--name", "dqview"]);
    let window = window
        .lines()
        .next()
        .expect("the viewer's window")
        .to_owned();
    xdotool(&display, &["windowfocus", "--sync", &window]);
    xdotool(&display, &["mousemove", "--window", &window, "560", "280"]);
    wait_until_idle(&lines, Duration::from_secs(1), "after the pointer moved in");

    // A clip: Space plays and frames flow; Space again pauses and they stop.
    let played = Instant::now();
    xdotool(&display, &["key", "space"]);
    sleep(Duration::from_millis(2500));
    let playing = frames_between(&lines, played, Instant::now());
    assert!(playing >= 6, "{playing} frames in 2.5 s of a playing clip");
    xdotool(&display, &["key", "space"]);
    wait_until_idle(&lines, Duration::from_secs(1), "after pausing");
    assert_still(&lines, Duration::from_secs(2), "paused clip");

    // A drag: orbiting in the viewport draws as the pointer moves, then stops.
    let dragged = Instant::now();
    xdotool(&display, &["mousedown", "1"]);
    for step in 1..=12 {
        let x = (560 + step * 12).to_string();
        xdotool(&display, &["mousemove", "--window", &window, &x, "280"]);
        sleep(Duration::from_millis(120));
    }
    xdotool(&display, &["mouseup", "1"]);
    let drag_frames = frames_between(&lines, dragged, Instant::now());
    assert!(drag_frames >= 4, "{drag_frames} frames during a 1.4 s drag");
    wait_until_idle(&lines, Duration::from_secs(1), "after the drag");
    assert_still(&lines, Duration::from_secs(2), "after the drag");

    // A job started from idle: 4 shows CoR, whose precompute runs in the background; drawing
    // continues until its centres are ready and shown, then stops.
    let pressed = Instant::now();
    xdotool(&display, &["key", "4"]);
    let ready = wait_for(
        &lines,
        "CoR centers ready",
        pressed,
        Duration::from_secs(300),
    );
    assert_job_drawn(&lines, pressed, ready, "the CoR precompute");
    wait_until_idle(&lines, Duration::from_secs(2), "after the CoR precompute");
    assert_still(&lines, Duration::from_secs(2), "after the CoR precompute");
    drop(viewer);
}
