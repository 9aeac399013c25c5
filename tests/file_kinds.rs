//! What a path may be (issue 22, item 7): only regular files are opened. A FIFO, a device (a
//! link to `/dev/zero`) or a folder named as a model is refused at once with what it is,
//! instead of blocking on the FIFO or reading the device up to the size limit; in a folder,
//! `check` lists the entries it skips (text and `--json`). Unix only (FIFOs and `/dev/zero`).
#![cfg(unix)]

mod support;

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use support::scratch_dir;

/// Runs dqview with `args`, killed after 60 s: a command that blocks on a FIFO fails the test.
fn dqview_within(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dqview"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run dqview");
    let started = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("dqview {args:?} still runs after 60 s: it blocks");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().expect("output")
}

/// Makes a FIFO at `path`.
fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(made.success(), "mkfifo {}", path.display());
}

/// stderr as text.
fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_fifo_a_device_or_a_folder_named_as_the_model_is_refused_saying_what_it_is() {
    let dir = scratch_dir("file_kinds_models");
    let fifo = dir.join("pipe.glb");
    mkfifo(&fifo);
    let zero_glb = dir.join("zero.glb");
    symlink("/dev/zero", &zero_glb).unwrap();
    let zero_fbx = dir.join("zero.fbx");
    symlink("/dev/zero", &zero_fbx).unwrap();
    let cases = [
        (fifo.as_path(), "is a FIFO (named pipe), not a regular file"),
        (zero_glb.as_path(), "is a device, not a regular file"),
        (zero_fbx.as_path(), "is a device, not a regular file"),
        (dir.as_path(), "is a folder: use `dqview check DIR`"),
    ];
    for (path, says) in cases {
        let p = path.to_str().unwrap();
        for args in [vec!["inspect", p], vec!["analyze", p, "--samples", "2"]] {
            let out = dqview_within(&args);
            let err = stderr(&out);
            assert!(!out.status.success(), "{args:?} succeeded");
            assert!(err.contains(says), "{args:?}: {err}");
            assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
        }
        if path == dir.as_path() {
            continue;
        }
        let out = dqview_within(&["check", "--json", p]);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        let json: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let finding = &json["files"][0]["findings"][0];
        assert_eq!(finding["rule"], "load_error");
        assert!(
            finding["detail"].as_str().unwrap().contains(says),
            "{finding}"
        );
    }
}

#[test]
fn check_lists_the_folder_entries_it_skips() {
    let dir = scratch_dir("file_kinds_folder");
    let tube = support::hierarchy::big_hierarchy_glb(3, support::hierarchy::Shape::Chain);
    std::fs::write(dir.join("tube.glb"), tube).unwrap();
    mkfifo(&dir.join("pipe.glb"));
    symlink(dir.join("gone.glb"), dir.join("dangling.glb")).unwrap();
    symlink(dir.join("loop.gltf"), dir.join("loop.gltf")).unwrap();
    symlink("/dev/zero", dir.join("zero.fbx")).unwrap();
    let d = dir.to_str().unwrap();
    let out = dqview_within(&["check", "--json", d]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let files = json["files"].as_array().unwrap();
    assert_eq!(files.len(), 1, "only the tube is checked: {json}");
    let skipped: Vec<(String, String)> = json["skipped"]
        .as_array()
        .expect("skipped")
        .iter()
        .map(|s| {
            let path = s["path"].as_str().unwrap();
            let name = Path::new(path).file_name().unwrap().to_str().unwrap();
            (name.to_owned(), s["reason"].as_str().unwrap().to_owned())
        })
        .collect();
    let expected = [
        (
            "dangling.glb",
            "is a dangling link (its target does not exist)",
        ),
        ("loop.gltf", "is a link that loops back on itself"),
        ("pipe.glb", "is a FIFO (named pipe)"),
        ("zero.fbx", "is a link to a device"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect();
    assert_eq!(skipped, expected);
    let text = dqview_within(&["check", d]);
    let text = String::from_utf8_lossy(&text.stdout).into_owned();
    // One `info` line per skipped entry (the tube's own line says which regions it cannot measure).
    let info: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("info") && l.contains(": skipped, it "))
        .collect();
    assert_eq!(info.len(), 4, "{text}");
    assert!(
        info.iter()
            .any(|l| l.contains("pipe.glb: skipped, it is a FIFO")),
        "{text}"
    );
}
