//! `dqview check` over 100 copies of a character, `--jobs 1` against `--jobs 2` (needs DQVIEW_CHARACTERS).
//!
//! Both run in this one process, interleaved (1 2, 2 1, 1 2, ...) so a change in the machine's
//! load hits both alike; the medians and their ratio are printed. Environment:
//! `DQVIEW_CHECK_MODEL` (a file name in DQVIEW_CHARACTERS, default RobotExpressive.glb),
//! `DQVIEW_CHECK_COPIES` (default 100), `DQVIEW_CHECK_ROUNDS` (default 5).

mod stats;

use std::path::{Path, PathBuf};
use std::time::Instant;

use dqview::check::{CheckOptions, check_models, collect_inputs};

/// The environment variable `var` as a number, or `default`.
fn env_or(var: &str, default: usize) -> usize {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A fresh folder of `copies` links to `source` (copies where links are not available).
fn copies_of(source: &Path, copies: usize) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dqview-check-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary folder");
    let ext = source.extension().and_then(|e| e.to_str()).unwrap_or("glb");
    for i in 0..copies {
        let link = dir.join(format!("copy_{i:03}.{ext}"));
        #[cfg(unix)]
        std::os::unix::fs::symlink(source, &link).expect("symlink");
        #[cfg(not(unix))]
        std::fs::copy(source, &link).expect("copy");
    }
    dir
}

/// CPU seconds this process has used, all threads (Linux `/proc/self/stat`, 100 ticks a
/// second); `None` elsewhere. Beside the wall time it shows how many cores a run really got.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces) start at state, field 3.
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

use stats::median;

fn main() {
    let Some(dir) = std::env::var_os("DQVIEW_CHARACTERS") else {
        eprintln!(
            "SKIPPED check_jobs bench: DQVIEW_CHARACTERS is not set (point it at ../shared/testdata/characters)"
        );
        return;
    };
    let model =
        std::env::var("DQVIEW_CHECK_MODEL").unwrap_or_else(|_| "RobotExpressive.glb".into());
    let source = Path::new(&dir).join(&model);
    // Links are made to the absolute path (a .gltf with external buffers would need them beside it).
    let source = std::fs::canonicalize(&source).expect("the model exists");
    let copies = env_or("DQVIEW_CHECK_COPIES", 100);
    let rounds = env_or("DQVIEW_CHECK_ROUNDS", 5).max(1);
    let folder = copies_of(&source, copies);
    let inputs = collect_inputs(&[folder.display().to_string()]).expect("inputs");
    let options = CheckOptions::DEFAULT;
    let mut times: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    for round in 0..rounds {
        let order = if round % 2 == 0 { [1, 2] } else { [2, 1] };
        for jobs in order {
            let cpu_before = cpu_seconds();
            let start = Instant::now();
            let reports = check_models(&inputs.models, &options, jobs, &|_, _| {});
            let seconds = start.elapsed().as_secs_f64();
            assert_eq!(reports.len(), copies);
            times[jobs - 1].push(seconds);
            let cores = match (cpu_before, cpu_seconds()) {
                (Some(a), Some(b)) => format!(", {:.2} cores busy on average", (b - a) / seconds),
                _ => String::new(),
            };
            println!("round {round}: --jobs {jobs}: {seconds:.3} s{cores}");
        }
    }
    let one = median(&mut times[0]);
    let two = median(&mut times[1]);
    println!(
        "{model} x {copies}, {rounds} rounds: --jobs 1 median {one:.3} s ({:.1} ms a file), --jobs 2 median {two:.3} s; speed-up {:.2}x",
        1000.0 * one / copies as f64,
        one / two
    );
    let _ = std::fs::remove_dir_all(&folder);
}
