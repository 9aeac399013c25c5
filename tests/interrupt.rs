//! Ctrl+C in `dqview blend` says what happened (issue 35, item 5): interrupted at different
//! moments, a run that exits with an error said `cancelling: no file will be written` and left
//! no file, and a run that exits 0 wrote its file and, if the interrupt reached it, said
//! `finished before the interrupt: wrote FILE`, never `cancelling`.

#![cfg(unix)]

mod support;

use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
fn an_interrupt_at_any_moment_says_what_the_run_did() {
    let dir = support::scratch_dir("interrupt_blend");
    let (mut cancelled, mut finished) = (0, 0);
    for (k, delay_ms) in [50_u64, 300, 800, 1500, 3000, 6000].into_iter().enumerate() {
        let out = dir.join(format!("map{k}.glb"));
        let child = Command::new(env!("CARGO_BIN_EXE_dqview"))
            .args([
                "blend",
                "builtin:arm",
                "--sweep",
                "elbow=0:150",
                "--samples",
                "4000",
            ])
            .arg("--out")
            .arg(&out)
            .env("DQVIEW_CACHE_DIR", &dir)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run dqview");
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status();
        let done = child.wait_with_output().expect("wait");
        let err = String::from_utf8_lossy(&done.stderr).into_owned();
        if done.status.success() {
            finished += 1;
            assert!(out.is_file(), "{delay_ms} ms: exit 0 wrote the file: {err}");
            assert!(!err.contains("cancelling"), "{delay_ms} ms: {err}");
            if err.contains("interrupt") {
                let said = format!("finished before the interrupt: wrote {}", out.display());
                assert!(err.contains(&said), "{delay_ms} ms: {err}");
            }
        } else {
            cancelled += 1;
            assert!(
                !out.exists(),
                "{delay_ms} ms: a cancelled run writes nothing: {err}"
            );
            assert!(
                err.contains("cancelling: no file will be written")
                    && err.contains("cancelled: no file written"),
                "{delay_ms} ms: {err}"
            );
        }
        let leftovers: Vec<_> = std::fs::read_dir(&dir)
            .expect("dir")
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(
            leftovers.is_empty(),
            "{delay_ms} ms: no temporary file is left"
        );
    }
    assert!(
        cancelled > 0,
        "the earliest interrupt cancels ({finished} finished)"
    );
}
