//! `dqview --session FILE` under Xvfb: a scripted run saves its view to FILE, and a run
//! with only `--session` reopens the model the file names and keeps what was edited in it;
//! flags given beside the file win over what it saved.
//!
//! Skipped (loudly) where `xvfb-run` is missing, unless `DQVIEW_REQUIRE_DISPLAY=1`.

mod support;

use support::{run_viewer, skip_without_xvfb};

fn read_json(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("session file")).expect("JSON")
}

#[test]
fn session_file_is_saved_and_reopened() {
    if skip_without_xvfb("session_file_is_saved_and_reopened") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("dqview-session-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("rig.json");
    let _ = std::fs::remove_file(&file);
    let f = file.to_str().expect("utf-8");
    run_viewer(&[
        "builtin:twist",
        "--mode",
        "lbs",
        "--twist",
        "tip=45",
        "--session",
        f,
        "--exit-after-frames",
        "2",
    ]);
    let saved = read_json(&file);
    assert_eq!(saved["model"]["path"], "builtin:twist");
    assert_eq!(saved["mode"], "lbs");
    let overrides = saved["joint_overrides"].as_array().expect("overrides");
    assert_eq!(overrides.len(), 1, "{saved}");
    assert_eq!(overrides[0]["joint"], "tip");
    assert_eq!(overrides[0]["twist_deg"], 45.0);

    // A colleague edits the file and opens it without naming the model.
    let mut edited = saved.clone();
    edited["mode"] = "hybrid".into();
    edited["view"] = "split".into();
    edited["joint_overrides"][0]["twist_deg"] = 120.0.into();
    std::fs::write(&file, edited.to_string()).expect("write");
    run_viewer(&["--session", f, "--exit-after-frames", "2"]);
    let back = read_json(&file);
    assert_eq!(back["model"]["path"], "builtin:twist");
    assert_eq!(back["mode"], "hybrid");
    assert_eq!(back["view"], "split");
    assert_eq!(back["joint_overrides"][0]["twist_deg"], 120.0);

    // Flags given beside the session win over what it saved; the rest comes from the file.
    run_viewer(&[
        "builtin:twist",
        "--session",
        f,
        "--mode",
        "dqs",
        "--view",
        "single",
        "--twist",
        "tip=-30",
        "--exit-after-frames",
        "2",
    ]);
    let flags = read_json(&file);
    assert_eq!(flags["mode"], "dqs", "{flags}");
    assert_eq!(flags["view"], "single", "{flags}");
    assert_eq!(flags["joint_overrides"][0]["twist_deg"], -30.0, "{flags}");
    let _ = std::fs::remove_dir_all(&dir);
}
