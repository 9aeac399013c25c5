//! glTF extensions as a loader must treat them: a file that requires one dqview does not read
//! is refused in one line naming it (by every command, and `check` as a load error); one that
//! only uses it loads, with a note in `inspect` and a `not_read` info finding in `check`.

mod support;

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The shared Adventurer with `used` and `required` extension lists, written into `dir`.
fn adventurer_with(
    chars: &Path,
    dir: &Path,
    name: &str,
    used: &[&str],
    required: &[&str],
) -> PathBuf {
    let text = std::fs::read_to_string(chars.join("Adventurer.gltf")).expect("read");
    let mut root: Value = serde_json::from_str(&text).expect("JSON");
    root["extensionsUsed"] = used.into();
    root["extensionsRequired"] = required.into();
    let out = dir.join(name);
    std::fs::write(&out, serde_json::to_string(&root).expect("JSON")).expect("write");
    out
}

#[test]
fn a_required_extension_dqview_does_not_read_is_one_line_and_an_optional_one_a_note() {
    let Some(chars) = support::characters_dir("gltf_extensions") else {
        return;
    };
    let dir = support::scratch_dir("gltf_extensions");
    let cache = dir.join("cache");
    let refused = adventurer_with(
        &chars,
        &dir,
        "required.gltf",
        &["EXT_made_up"],
        &["EXT_made_up"],
    );
    let path = refused.to_str().expect("utf-8");
    for args in [
        vec!["inspect", path],
        vec!["export", path, "--out", "never.obj"],
        vec!["render", path, "--out", "never.png"],
    ] {
        let o = support::dqview_in(&args, &cache);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let err = support::stderr_of(&o);
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: one line: {err}");
        assert!(
            err.contains("requires the glTF extension EXT_made_up"),
            "{err}"
        );
    }
    let o = support::dqview_in(&["check", path, "--json"], &cache);
    assert_eq!(o.status.code(), Some(1), "a refused file fails the check");
    let report: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let findings = &report["files"][0]["findings"];
    assert_eq!(findings[0]["rule"], "load_error", "{report}");
    assert!(
        findings[0]["detail"]
            .as_str()
            .expect("detail")
            .contains("EXT_made_up")
    );

    let noted = adventurer_with(
        &chars,
        &dir,
        "used.gltf",
        &["EXT_made_up", "KHR_texture_transform"],
        &[],
    );
    let path = noted.to_str().expect("utf-8");
    let o = support::dqview_in(&["inspect", path], &cache);
    assert!(o.status.success(), "{}", support::stderr_of(&o));
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        said.contains("note        glTF extension EXT_made_up is used by the file but not read (optional: ignored)"),
        "{said}"
    );
    assert!(
        !said.contains("KHR_texture_transform is used"),
        "read extensions need no note"
    );
    let o = support::dqview_in(&["check", path, "--json", "--max-seconds", "5"], &cache);
    let report: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let not_read: Vec<&Value> = report["files"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["rule"] == "not_read")
        .collect();
    assert_eq!(not_read.len(), 1, "{report}");
    assert_eq!(not_read[0]["severity"], "info");
    assert!(
        not_read[0]["detail"]
            .as_str()
            .expect("detail")
            .contains("EXT_made_up")
    );
}
