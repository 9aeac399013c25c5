//! Running the viewer binary in a virtual X server (xvfb-run) for window tests.

use std::io::Write;
use std::process::Command;

/// Whether `program` is an executable on PATH.
pub fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

/// True (and a loud note on stderr) when the test cannot run here and is allowed to skip.
pub fn skip_without_xvfb(test: &str) -> bool {
    if on_path("xvfb-run") {
        return false;
    }
    let required = std::env::var("DQVIEW_REQUIRE_DISPLAY").is_ok_and(|v| v == "1");
    assert!(
        !required,
        "{test}: xvfb-run is not on PATH but DQVIEW_REQUIRE_DISPLAY=1"
    );
    let _ = writeln!(
        std::io::stderr(),
        "\n*** SKIPPED {test}: xvfb-run is not on PATH (apt-get install xvfb xauth; set DQVIEW_REQUIRE_DISPLAY=1 to make this a failure) ***\n"
    );
    true
}

/// Runs dqview under xvfb-run with `args`; panics with its output on failure.
pub fn run_viewer(args: &[&str]) {
    run_viewer_sized(args, "1280x720");
}

/// Like [`run_viewer`] with the window (and the virtual screen) `size`, `WIDTHxHEIGHT`.
pub fn run_viewer_sized(args: &[&str], size: &str) {
    run_viewer_logged(args, size);
}

/// Like [`run_viewer_sized`], logging dqview's info lines; its stderr.
pub fn run_viewer_logged(args: &[&str], size: &str) -> String {
    run_viewer_logged_with(args, size, &[])
}

/// Like [`run_viewer_logged`] with the variables `env` set for dqview.
pub fn run_viewer_logged_with(args: &[&str], size: &str, env: &[(&str, &str)]) -> String {
    let screen = format!("-screen 0 {size}x24");
    let out = Command::new("xvfb-run")
        .args(["-a", "-s", &screen])
        .arg(env!("CARGO_BIN_EXE_dqview"))
        .args(["--window-size", size])
        .args(args)
        // winit 0.30 panics instead of falling back to X11 when these point nowhere.
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET")
        .env("RUST_LOG", "warn,dqview=info")
        .envs(env.iter().copied())
        .output()
        .expect("run xvfb-run");
    assert!(
        out.status.success(),
        "dqview {args:?} failed ({}):\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A JSON dump the viewer wrote (`{"do": "dump"}` in a UI script).
pub fn read_dump(path: &std::path::Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e} (the viewer wrote no dump)", path.display()));
    serde_json::from_str(&text).expect("dump is JSON")
}
