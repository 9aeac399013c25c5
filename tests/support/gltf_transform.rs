//! Compressed copies of the shared characters, made by glTF Transform's CLI (tests/gltf-transform).

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// The `gltf-transform` program `npm ci` installed in tests/gltf-transform, or `None` after a skip message.
///
/// `.ci/run` installs it; with `DQVIEW_REQUIRE_DATA` a missing install fails the test.
pub fn gltf_transform(test: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gltf-transform");
    let bin = dir.join("node_modules/.bin/gltf-transform");
    if bin.is_file() {
        return Some(bin);
    }
    let why = format!("{} is missing", bin.display());
    assert!(
        std::env::var_os("DQVIEW_REQUIRE_DATA").is_none(),
        "{test}: {why}, and DQVIEW_REQUIRE_DATA is set (run `npm ci` in {})",
        dir.display()
    );
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED {test}: {why} (run `npm ci` in tests/gltf-transform, or `bash .ci/run`)"
    );
    None
}

/// `gltf-transform COMMAND input` written once per test binary into its own folder; the output's path.
///
/// `command` is `draco`, `meshopt`, `quantize` or `optimize` (each with its defaults).
pub fn compressed(bin: &Path, command: &str, input: &Path) -> PathBuf {
    static MADE: OnceLock<Mutex<HashMap<(String, PathBuf), PathBuf>>> = OnceLock::new();
    let made = MADE.get_or_init(|| Mutex::new(HashMap::new()));
    let key = (command.to_owned(), input.to_path_buf());
    let mut made = made
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(out) = made.get(&key) {
        return out.clone();
    }
    let name = input.file_name().expect("input file name");
    let stem = input.file_stem().expect("input stem").to_string_lossy();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("gltf_compressed")
        .join(format!("{command}_{stem}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("output folder");
    let out = dir.join(name);
    let run = Command::new(bin)
        .arg(command)
        .arg(input)
        .arg(&out)
        .output()
        .expect("run gltf-transform (needs Node.js)");
    assert!(
        run.status.success() && out.is_file(),
        "gltf-transform {command} {}: {}{}",
        input.display(),
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    made.insert(key, out.clone());
    out
}
