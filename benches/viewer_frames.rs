//! The viewer's frame rate in a real window: Xvfb, `--exit-after-frames`, the shared characters
//! in the states riggers work in (at rest, a clip playing, painting, four panes), medians of three
//! runs; plus the CPU an open, paused, untouched viewer uses over 10 s.
//!
//! `DQVIEW_CHARACTERS=../shared/testdata/characters cargo bench --bench viewer_frames`
//! (Xvfb on PATH; `VK_DRIVER_FILES` picks the adapter, lavapipe here). `DQVIEW_BENCH_FRAMES`
//! sets the frames a run draws (default 300), `DQVIEW_BENCH_SIZE` the window (default 1280x720).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "../tests/support/x_server.rs"]
mod x_server;

use x_server::{Killed, start_xvfb};

/// One run's figures, from the viewer's exit log line.
#[derive(Clone, Copy, Debug)]
struct Run {
    median_ms: f64,
    p95_ms: f64,
    longest_ms: f64,
}

/// A state to measure: its name, the model, the viewer's extra arguments and environment.
struct State {
    name: &'static str,
    model: String,
    args: Vec<String>,
    env: Vec<(&'static str, &'static str)>,
}

fn main() {
    let Some(characters) = std::env::var_os("DQVIEW_CHARACTERS").map(PathBuf::from) else {
        eprintln!("viewer_frames: set DQVIEW_CHARACTERS to ../shared/testdata/characters");
        return;
    };
    let frames: u64 = env_or("DQVIEW_BENCH_FRAMES", 300);
    let size = std::env::var("DQVIEW_BENCH_SIZE").unwrap_or_else(|_| "1280x720".into());
    let (_xvfb, display) = start_xvfb(&size);
    let scratch = std::env::temp_dir().join(format!("dqview-viewer-frames-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch folder");
    let adventurer = characters.join("Adventurer.gltf");
    let adventurer = adventurer.to_string_lossy().into_owned();
    let states = states(&adventurer, &scratch, frames);
    println!(
        "viewer_frames: {frames} frames a run, {size}, medians of 3 runs (frames after the 10th)"
    );
    println!("| state | median frame ms | FPS | p95 ms | longest ms |");
    println!("| --- | --- | --- | --- | --- |");
    let mut medians = Vec::new();
    for state in &states {
        let runs: Vec<Run> = (0..3)
            .filter_map(|_| run_frames(&display, &size, state, frames, &scratch))
            .collect();
        if runs.len() < 3 {
            println!(
                "| {} | failed ({} of 3 runs) | | | |",
                state.name,
                runs.len()
            );
            continue;
        }
        let median = |f: fn(&Run) -> f64| median_of(runs.iter().map(f).collect());
        let ms = median(|r| r.median_ms);
        medians.push((state.name, ms));
        println!(
            "| {} | {ms:.2} | {:.1} | {:.2} | {:.2} |",
            state.name,
            1e3 / ms,
            median(|r| r.p95_ms),
            median(|r| r.longest_ms)
        );
    }
    let ms_of = |name: &str| medians.iter().find(|(n, _)| *n == name).map(|m| m.1);
    if let (Some(part), Some(whole)) = (ms_of(PLAYING), ms_of(PLAYING_WHOLE_UI)) {
        println!(
            "playing: UI drawn where it changed {:.1} FPS, whole UI every frame {:.1} FPS: {:.2}x",
            1e3 / part,
            1e3 / whole,
            whole / part
        );
    }
    let idle: Vec<f64> = (0..3)
        .filter_map(|_| idle_cpu(&display, &size, &adventurer, &scratch))
        .collect();
    if idle.len() == 3 {
        println!(
            "Adventurer split, open, paused, untouched 10 s: {:.4} CPU-seconds a second (median of 3)",
            median_of(idle)
        );
    }
}

/// The playing state, and the same with the whole UI drawn every frame (as before the damage rectangles).
const PLAYING: &str = "Adventurer split, Run clip playing";
const PLAYING_WHOLE_UI: &str = "Adventurer split, Run clip playing, whole UI every frame (before)";

/// The states of the issue's targets.
fn states(adventurer: &str, scratch: &Path, frames: u64) -> Vec<State> {
    let split = || vec!["--view".to_owned(), "split".to_owned()];
    let script = |name: &str, text: String| {
        let path = scratch.join(format!("{name}.json"));
        std::fs::write(&path, text).expect("write a UI script");
        vec![
            "--ui-script".to_owned(),
            path.to_string_lossy().into_owned(),
        ]
    };
    let play = script(
        "play",
        r#"[{"frame": 1, "do": "key", "key": "Space"}]"#.to_owned(),
    );
    // Paint mode, then one long stroke across the viewport, left to right, over the run.
    let paint = script(
        "paint",
        format!(
            r#"[{{"frame": 1, "do": "key", "key": "P"}},
               {{"frame": 5, "do": "drag", "at": [500, 300], "dx": 500, "dy": 40, "frames": {}}}]"#,
            frames.saturating_sub(10).max(2)
        ),
    );
    let with = |mut a: Vec<String>, b: Vec<String>| {
        a.extend(b);
        a
    };
    vec![
        State {
            name: "builtin:twist split, rest",
            model: "builtin:twist".into(),
            args: split(),
            env: vec![],
        },
        State {
            name: "Adventurer split, rest (the clip's analysis runs at open)",
            model: adventurer.into(),
            args: split(),
            env: vec![],
        },
        State {
            name: PLAYING,
            model: adventurer.into(),
            args: with(
                with(split(), vec!["--clip".into(), "Run".into()]),
                play.clone(),
            ),
            env: vec![],
        },
        State {
            name: PLAYING_WHOLE_UI,
            model: adventurer.into(),
            args: with(with(split(), vec!["--clip".into(), "Run".into()]), play),
            env: vec![("DQVIEW_WHOLE_UI_PASS", "1")],
        },
        State {
            name: "Adventurer split, painting",
            model: adventurer.into(),
            args: with(split(), paint),
            env: vec![],
        },
        State {
            name: "Adventurer four panes, rest",
            model: adventurer.into(),
            args: vec!["--view".into(), "split4".into()],
            env: vec![],
        },
    ]
}

/// Runs the viewer for `frames` frames in `state`; the figures of its exit line.
fn run_frames(
    display: &str,
    size: &str,
    state: &State,
    frames: u64,
    scratch: &Path,
) -> Option<Run> {
    let out = viewer(display, size, &state.model, scratch)
        .args(&state.args)
        .envs(state.env.iter().copied())
        .args(["--exit-after-frames", &frames.to_string()])
        .stderr(Stdio::piped())
        .output()
        .expect("run dqview");
    let text = String::from_utf8_lossy(&out.stderr);
    let parsed = text.lines().find_map(parse_interval_line);
    if !out.status.success() || parsed.is_none() {
        eprintln!(
            "viewer_frames: {} failed ({}):\n{text}",
            state.name, out.status
        );
    }
    parsed
}

/// CPU-seconds per second of an interactive viewer left alone for 10 s after it settled.
fn idle_cpu(display: &str, size: &str, model: &str, scratch: &Path) -> Option<f64> {
    let child = viewer(display, size, model, scratch)
        .args(["--view", "split"])
        .stderr(Stdio::piped())
        .spawn()
        .expect("start dqview");
    let mut child = Killed(child);
    let stderr = child.0.stderr.take()?;
    // Settled: the open's analysis logs its series; then give the last frames a moment.
    let mut lines = BufReader::new(stderr).lines();
    let deadline = Instant::now() + Duration::from_secs(180);
    while Instant::now() < deadline {
        match lines.next() {
            Some(Ok(line)) if line.contains("series over") => break,
            Some(Ok(_)) => {}
            _ => return None,
        }
    }
    std::thread::spawn(move || for _ in lines {});
    std::thread::sleep(Duration::from_secs(2));
    let pid = child.0.id();
    let before = cpu_seconds(pid)?;
    let start = Instant::now();
    std::thread::sleep(Duration::from_secs(10));
    let used = cpu_seconds(pid)? - before;
    Some(used / start.elapsed().as_secs_f64())
}

/// User plus system CPU seconds of process `pid` so far (Linux `/proc`).
fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces) start at state (field 3).
    let after = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    let hz = Command::new("getconf").arg("CLK_TCK").output().ok()?;
    let hz: f64 = String::from_utf8_lossy(&hz.stdout).trim().parse().ok()?;
    Some(ticks / hz)
}

/// The viewer command on `display` with a cache of its own and a fresh session file (a run
/// never inherits the clip, view or playing state the previous run saved).
fn viewer(display: &str, size: &str, model: &str, scratch: &Path) -> Command {
    let _ = std::fs::remove_file(scratch.join("session.json"));
    let mut command = Command::new(env!("CARGO_BIN_EXE_dqview"));
    command
        .arg(model)
        .args(["--window-size", size])
        .arg("--session")
        .arg(scratch.join("session.json"))
        .env("DISPLAY", display)
        .env("DQVIEW_CACHE_DIR", scratch.join("cache"))
        .env("RUST_LOG", "warn,dqview=info")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET")
        .stdout(Stdio::null());
    command
}

/// Median, p95 and longest frame interval from the viewer's exit line, if `line` is it.
fn parse_interval_line(line: &str) -> Option<Run> {
    let rest = line.split_once("frame interval after frame")?.1;
    let number_after = |key: &str| -> Option<f64> {
        let tail = rest.split_once(key)?.1.trim_start();
        tail.split_whitespace().next()?.parse().ok()
    };
    Some(Run {
        median_ms: number_after("median")?,
        p95_ms: number_after("p95")?,
        longest_ms: number_after("longest")?,
    })
}

/// The median of `values` (the middle one; three runs here).
fn median_of(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// An environment variable parsed, or `default`.
fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
