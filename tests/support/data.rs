//! Locating the shared test data and reading OBJ files.

use std::io::Write;
use std::path::PathBuf;

use dqview::skin::SkinningMode;

/// The folder named by environment variable `var`, or `None` after a loud skip message.
///
/// `.ci/run` sets every `DQVIEW_*` folder and `DQVIEW_REQUIRE_DATA=1`; there a
/// missing variable or folder fails the test instead of skipping it.
pub fn data_dir(var: &str, test: &str) -> Option<PathBuf> {
    let required = std::env::var_os("DQVIEW_REQUIRE_DATA").is_some();
    match std::env::var_os(var).map(PathBuf::from) {
        Some(dir) if dir.is_dir() => Some(dir),
        other => {
            let why = match other {
                Some(dir) => format!("{var}={} is not a folder", dir.display()),
                None => format!("{var} is not set"),
            };
            assert!(!required, "{test}: {why}, and DQVIEW_REQUIRE_DATA is set");
            // Straight to stderr: the test harness hides eprintln! output of passing tests.
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED {test}: {why} (run `bash .ci/run`, which sets it)"
            );
            None
        }
    }
}

/// The real characters folder (`DQVIEW_CHARACTERS`: RobotExpressive.glb, Adventurer.gltf), or `None` after a skip message.
pub fn characters_dir(test: &str) -> Option<PathBuf> {
    data_dir("DQVIEW_CHARACTERS", test)
}

/// The folder `npm install gltf-validator` ran in (`DQVIEW_GLTF_VALIDATOR`), or `None` after a skip message.
///
/// `.ci/run` installs the validator and sets the variable; with
/// `DQVIEW_REQUIRE_DATA` a missing or empty folder fails the test.
pub fn gltf_validator(test: &str) -> Option<PathBuf> {
    let dir = data_dir("DQVIEW_GLTF_VALIDATOR", test)?;
    let package = dir.join("node_modules/gltf-validator/package.json");
    assert!(
        package.is_file(),
        "{test}: DQVIEW_GLTF_VALIDATOR={} has no node_modules/gltf-validator",
        dir.display()
    );
    Some(dir)
}

/// What the Khronos glTF-Validator says about one file.
#[derive(Debug, serde::Deserialize)]
pub struct ValidatorReport {
    /// Number of errors.
    pub errors: u64,
    /// Number of warnings.
    pub warnings: u64,
    /// Each error as `CODE at POINTER: message`.
    pub messages: Vec<String>,
}

/// Runs `tests/support/validate.mjs` (node) with the validator in `validator` on `file`.
pub fn validate_gltf(validator: &std::path::Path, file: &std::path::Path) -> ValidatorReport {
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/validate.mjs");
    let out = std::process::Command::new("node")
        .arg(&script)
        .arg(validator)
        .arg(file)
        .output()
        .expect("run node (the glTF-Validator needs Node.js)");
    assert!(
        out.status.success(),
        "validate.mjs {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("validate.mjs prints one JSON object")
}

/// Positions of each `o` group of an OBJ file, in file order.
pub fn obj_groups(text: &str) -> Vec<(String, Vec<glam::Vec3>)> {
    let mut groups: Vec<(String, Vec<glam::Vec3>)> = Vec::new();
    for line in text.lines() {
        let mut parts = line.split_whitespace();
        match parts.next() {
            Some("o") | Some("g") => groups.push((parts.collect::<Vec<_>>().join(" "), Vec::new())),
            Some("v") => {
                let xyz: Vec<f32> = parts
                    .take(3)
                    .map(|x| x.parse().expect("number in v line"))
                    .collect();
                if groups.is_empty() {
                    groups.push((String::new(), Vec::new()));
                }
                if let Some(g) = groups.last_mut() {
                    g.1.push(glam::Vec3::new(xyz[0], xyz[1], xyz[2]));
                }
            }
            _ => {}
        }
    }
    groups
}

/// One row of golden/INDEX.md.
pub struct GoldenCase {
    /// Golden OBJ file name.
    pub file: String,
    /// Model path relative to the samples folder.
    pub model: String,
    /// Clip index.
    pub clip: usize,
    /// Clip time in seconds.
    pub time_s: f32,
    /// Skinning mode.
    pub mode: SkinningMode,
}

/// The rows of golden/INDEX.md.
pub fn golden_cases(index: &str) -> Vec<GoldenCase> {
    index
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line
                .trim()
                .trim_matches('|')
                .split('|')
                .map(str::trim)
                .collect();
            let [file, model, clip, time, mode] = cells[..] else {
                return None;
            };
            Some(GoldenCase {
                file: file.to_string(),
                model: model.to_string(),
                clip: clip.parse().ok()?,
                time_s: time.parse().ok()?,
                mode: SkinningMode::from_name(mode)?,
            })
        })
        .collect()
}

/// RiggedSimple, RiggedFigure and CesiumMan from the samples, then both shared characters:
/// the models a GPU method is held to its CPU reference on (those whose folder is set).
pub fn samples_and_characters(test: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    if let Some(dir) = data_dir("DQVIEW_SAMPLES", test) {
        for f in ["RiggedSimple.glb", "RiggedFigure.glb", "CesiumMan.glb"] {
            files.push(dir.join(f));
        }
    }
    if let Some(dir) = characters_dir(test) {
        files.push(dir.join("Adventurer.gltf"));
        files.push(dir.join("RobotExpressive.glb"));
    }
    files
}
