//! Running the dqview binary from tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the dqview binary with `args`, its CoR cache in `cache`.
pub fn dqview_in(args: &[&str], cache: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dqview"))
        .args(args)
        .env("DQVIEW_CACHE_DIR", cache)
        .output()
        .expect("run dqview")
}

/// Runs the dqview binary with `args` (its CoR cache in `dir/cache`) and asserts that it succeeds.
pub fn dqview_ok(args: &[&str], dir: &Path) -> Output {
    let o = dqview_in(args, &dir.join("cache"));
    assert!(o.status.success(), "dqview {args:?}: {}", stderr_of(&o));
    o
}

/// A command's stderr as text.
pub fn stderr_of(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh, empty folder `NAME` under the target's test folder.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// The (before, after) of `helper-joints`' line "fitted the weights of N vertices over P poses
/// to TARGET: mean RMS distance from it A -> B ..." in `text`, and the line.
pub fn fit_rms_line(text: &str, target: &str) -> (f64, f64, String) {
    let line = text
        .lines()
        .find(|l| l.contains(&format!("poses to {target}: mean RMS distance")))
        .unwrap_or_else(|| panic!("{text}"));
    let numbers: Vec<f64> = line
        .split(|c: char| c.is_whitespace() || c == ':')
        .filter_map(|w| w.parse().ok())
        .collect();
    let n = numbers.len();
    assert!(n >= 2, "{line}");
    (numbers[n - 2], numbers[n - 1], line.to_string())
}
