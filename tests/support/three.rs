//! The three.js integration (`integrations/three`) from tests: its node unit tests, the browser
//! and npm packages its renders need, `dqview render --view mask` and `render.mjs` masks of one
//! pose in one framing, comparing them, and glTF/GLB files with `VRMC_node_constraint` added.
//!
//! Masks are compared at 50% coverage. Both renderers write 4x multisampled masks with the same
//! sample positions, sRGB-encoded (render.mjs resolves as dqview's Rgba8UnormSrgb target does,
//! see `resolve4x.js`), so one threshold fits both.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

/// Image size of every mask.
pub const SIZE: &str = "384x384";

/// The npm packages `npm ci` installs in the integration (its lock file): three.js and
/// three-vrm's `VRMC_node_constraint` loader plugin (render.mjs `--constraints`) and MToon
/// plugin (`--material mtoon`).
const PACKAGES: [&str; 3] = [
    "three",
    "@pixiv/three-vrm-node-constraint",
    "@pixiv/three-vrm-materials-mtoon",
];

/// One pose of a model: the pose flags dqview takes and the joint its camera frames.
#[derive(Clone, Copy, Debug)]
pub struct Pose<'a> {
    /// Name in the printed figures.
    pub name: &'a str,
    /// `--twist JOINT=DEG` or `--clip NAME --time S` flags, for dqview and render.mjs alike.
    pub flags: &'a [&'a str],
    /// The joint whose region fills the image (`dqview render --focus`).
    pub focus: &'a str,
}

/// How render.mjs renders a mask.
#[derive(Clone, Copy, Debug)]
pub struct ThreeJob<'a> {
    /// `--method`: `lbs`, `dqs` or `hybrid` (dqview's exported shader) or `stock` (three.js's
    /// own SkinnedMesh skinning).
    pub method: &'a str,
    /// The pose flags (`--twist`, `--clip`, `--time`).
    pub flags: &'a [&'a str],
    /// `--constraints`: evaluate the model's `VRMC_node_constraint` constraints after the pose.
    pub constraints: bool,
}

/// The integration's folder.
pub fn integration_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("integrations/three")
}

/// Prints a skip line for `test`, or fails when `DQVIEW_REQUIRE_BROWSER=1` (as `.ci/run` sets).
fn skip(test: &str, why: &str) {
    let required = std::env::var("DQVIEW_REQUIRE_BROWSER").is_ok_and(|v| v == "1");
    assert!(!required, "{test}: {why}, and DQVIEW_REQUIRE_BROWSER=1");
    // Straight to stderr: the harness hides the output of passing tests.
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED {test}: {why} (DQVIEW_REQUIRE_BROWSER=1 makes this a failure)"
    );
}

/// Why the integration's npm packages cannot be used, or `None` when `npm ci` installed them.
fn packages_missing() -> Option<String> {
    PACKAGES.iter().find_map(|package| {
        let manifest = integration_dir()
            .join("node_modules")
            .join(package)
            .join("package.json");
        (!manifest.is_file())
            .then(|| format!("{package} is not installed (run `npm ci` in integrations/three)"))
    })
}

/// Runs `node --test` on `file` (relative to the integration's folder) and asserts that it
/// passes; skips without node, and with `needs_packages` without `npm ci`.
pub fn node_unit_tests(test: &str, file: &str, needs_packages: bool) {
    if !super::on_path("node") {
        skip(test, "node is not on PATH");
        return;
    }
    if let Some(why) = packages_missing().filter(|_| needs_packages) {
        skip(test, &why);
        return;
    }
    let o = Command::new("node")
        .arg("--test")
        .arg(integration_dir().join(file))
        .output()
        .expect("run node --test");
    assert!(
        o.status.success(),
        "node --test integrations/three/{file}:\n{}{}",
        String::from_utf8_lossy(&o.stdout),
        super::stderr_of(&o)
    );
}

/// Chromium, or `None` after a skip message when it, node or the npm packages (`npm ci`) are
/// missing; with `DQVIEW_REQUIRE_BROWSER=1` a missing one fails the test.
pub fn browser(test: &str) -> Option<PathBuf> {
    let chromium = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join("chromium"))
            .find(|p| p.is_file())
    });
    let missing = if chromium.is_none() {
        Some("chromium is not on PATH (apt-get install chromium)".to_string())
    } else if !super::on_path("node") {
        Some("node is not on PATH".to_string())
    } else {
        packages_missing()
    };
    if let Some(why) = missing {
        skip(test, &why);
        return None;
    }
    chromium
}

/// Which pixels of a mask PNG are covered at least half (2 of 4 samples); the image size.
///
/// Both renderers write sRGB-encoded coverage: 2 of 4 samples is 187.5, which encoders round to
/// 187 or 188; 1 of 4 is 137. So 50% coverage, rounding allowed, is 160 and up.
pub fn mask(path: &Path) -> ((u32, u32), Vec<bool>) {
    let image = image::open(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .to_luma8();
    let covered = image.pixels().map(|p| p.0[0] >= 160).collect();
    (image.dimensions(), covered)
}

/// Pixels where two masks differ, and their intersection over union.
pub fn compare(a: &Path, b: &Path) -> (usize, f64) {
    let (size_a, a) = mask(a);
    let (size_b, b) = mask(b);
    assert_eq!(size_a, size_b, "mask sizes");
    let differ = a.iter().zip(&b).filter(|(x, y)| x != y).count();
    let both = a.iter().zip(&b).filter(|(x, y)| **x && **y).count();
    let either = both + differ;
    (differ, both as f64 / either.max(1) as f64)
}

/// `dqview render MODEL --mode MODE --view mask --focus ... --size SIZE` of `pose` into `dir`
/// (`dqview_MODE.png`, `camera_MODE.json`); the mask and camera paths.
pub fn dqview_mask(model: &Path, pose: &Pose, mode: &str, dir: &Path) -> (PathBuf, PathBuf) {
    let png = dir.join(format!("dqview_{mode}.png"));
    let camera = dir.join(format!("camera_{mode}.json"));
    let mut args = vec![
        "render",
        model.to_str().expect("utf-8 path"),
        "--mode",
        mode,
        "--view",
        "mask",
        "--focus",
        pose.focus,
        "--size",
        SIZE,
        "--camera-out",
        camera.to_str().expect("utf-8 path"),
        "--out",
        png.to_str().expect("utf-8 path"),
    ];
    args.extend_from_slice(pose.flags);
    // The poses were picked for masks that differ clearly from the default direction: keep it,
    // rather than the side `--focus` picks to see the most of the region, unless the pose
    // gives its own angles.
    if !pose.flags.contains(&"--yaw") {
        args.extend(["--yaw", "19.3", "--pitch", "13.3"]);
    }
    let o = super::dqview_in(&args, &dir.join("cache"));
    assert!(
        o.status.success(),
        "dqview {args:?}: {}",
        super::stderr_of(&o)
    );
    (png, camera)
}

/// `node render.mjs MODEL --method METHOD --view VIEW --size SIZE ARGS... --camera CAMERA
/// --out OUT` in `chromium`; render.mjs's stdout (its `wrote ...` line).
pub fn render_three(
    chromium: &Path,
    model: &Path,
    (method, view): (&str, &str),
    args: &[&str],
    camera: &Path,
    out: &Path,
) -> String {
    let o = Command::new("node")
        .arg(integration_dir().join("render.mjs"))
        .arg(model)
        .args(["--method", method, "--view", view, "--size", SIZE])
        .args(args)
        .arg("--camera")
        .arg(camera)
        .arg("--browser")
        .arg(chromium)
        .arg("--out")
        .arg(out)
        .output()
        .expect("run node");
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "render.mjs {} {method} {view} {args:?}: {stdout}{}",
        model.display(),
        super::stderr_of(&o)
    );
    stdout
}

/// `node render.mjs MODEL` of `job` seen by `camera` (a `dqview render --camera-out` file) as a
/// mask at `out`; render.mjs's stdout (its `wrote ...` line, which with `--constraints` says
/// how many node constraints it evaluated).
pub fn three_mask(
    chromium: &Path,
    model: &Path,
    job: &ThreeJob,
    camera: &Path,
    out: &Path,
) -> String {
    let mut args = job.flags.to_vec();
    if job.constraints {
        args.push("--constraints");
    }
    render_three(chromium, model, (job.method, "mask"), &args, camera, out)
}

/// What a browser test needs: Chromium (for three.js), the characters folder and a GPU
/// adapter for dqview; `None` after a skip message (or a failure, per `DQVIEW_REQUIRE_*`).
pub fn browser_case(test: &str) -> Option<(PathBuf, PathBuf)> {
    let chromium = browser(test)?;
    let characters = super::characters_dir(test)?;
    super::gpu(test)?;
    Some((chromium, characters))
}

/// dqview's LBS mask of a pose, three.js's stock mask of it in the same framing, compared.
#[derive(Debug)]
pub struct StockComparison {
    /// Pixels where the masks differ.
    pub differ: usize,
    /// Their intersection over union.
    pub iou: f64,
    /// `dqview render --mode lbs --view mask`.
    pub dqview: PathBuf,
    /// `render.mjs --method stock`.
    pub three: PathBuf,
    /// What render.mjs printed (with `--constraints`, how many constraints it evaluated).
    pub three_stdout: String,
}

/// Renders `pose` of `model` with `dqview render --mode lbs` (which frames it) and with
/// three.js's stock skinning (`render.mjs --method stock`, with `--constraints` when
/// `constraints`) in that framing, both into `dir` (created), and compares the masks.
pub fn stock_against_dqview_lbs(
    chromium: &Path,
    model: &Path,
    pose: &Pose,
    constraints: bool,
    dir: &Path,
) -> StockComparison {
    std::fs::create_dir_all(dir).expect("mask folder");
    let (dqview, camera) = dqview_mask(model, pose, "lbs", dir);
    let name = if constraints {
        "three_stock_constraints.png"
    } else {
        "three_stock.png"
    };
    let three = dir.join(name);
    let job = ThreeJob {
        method: "stock",
        flags: pose.flags,
        constraints,
    };
    let three_stdout = three_mask(chromium, model, &job, &camera, &three);
    let (differ, iou) = compare(&dqview, &three);
    StockComparison {
        differ,
        iou,
        dqview,
        three,
        three_stdout,
    }
}

/// The index of the node named `name` in glTF `json`: a skin's joint of that name, else the
/// first node of that name (a rig's mesh node may share its joint's name).
pub fn node_named(json: &Value, name: &str) -> usize {
    let named = |i: &usize| json["nodes"][*i]["name"].as_str() == Some(name);
    let joints = json["skins"].as_array().into_iter().flatten();
    let joint = joints
        .flat_map(|skin| skin["joints"].as_array().into_iter().flatten())
        .filter_map(|j| j.as_u64().map(|j| j as usize))
        .find(named);
    let count = json["nodes"].as_array().map_or(0, Vec::len);
    joint
        .or_else(|| (0..count).find(named))
        .unwrap_or_else(|| panic!("no node named {name}"))
}

/// Gives node `destination` of glTF `json` the `VRMC_node_constraint` 1.0 `constraint` (e.g.
/// `{"rotation": {"source": 3}}`) and lists the extension as used.
pub fn add_node_constraint(json: &mut Value, destination: usize, constraint: Value) {
    let node = &mut json["nodes"][destination];
    node["extensions"]["VRMC_node_constraint"] =
        json!({ "specVersion": "1.0", "constraint": constraint });
    let used = &mut json["extensionsUsed"];
    if !used.is_array() {
        *used = json!([]);
    }
    let used = used.as_array_mut().expect("an array");
    if !used.iter().any(|e| e == "VRMC_node_constraint") {
        used.push(json!("VRMC_node_constraint"));
    }
}

/// The first four bytes of a GLB.
const GLB_MAGIC: &[u8; 4] = b"glTF";
/// The chunk type of a GLB's JSON chunk (`JSON`).
const GLB_JSON: u32 = 0x4E4F_534A;

/// Writes `input` (a .gltf, or a GLB: .glb or .vrm) to `output` with its JSON edited by `edit`,
/// in the same container (a GLB keeps its binary chunk as it was). A .gltf's relative URIs
/// resolve from `output`'s folder then: use it on files whose buffers are data URIs or GLBs.
pub fn edit_gltf_json(input: &Path, output: &Path, edit: impl FnOnce(&mut Value)) {
    let bytes = std::fs::read(input).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    if !bytes.starts_with(GLB_MAGIC) {
        let mut json: Value = serde_json::from_slice(&bytes).expect("glTF JSON");
        edit(&mut json);
        std::fs::write(output, serde_json::to_vec(&json).expect("JSON")).expect("write glTF");
        return;
    }
    let json_len = u32_at(12) as usize;
    assert_eq!(
        u32_at(16),
        GLB_JSON,
        "{}: first chunk is not JSON",
        input.display()
    );
    let mut json: Value = serde_json::from_slice(&bytes[20..20 + json_len]).expect("GLB JSON");
    edit(&mut json);
    let mut text = serde_json::to_vec(&json).expect("JSON");
    // Chunks are 4-byte aligned; JSON pads with spaces.
    text.resize(text.len().next_multiple_of(4), b' ');
    let rest = &bytes[20 + json_len..];
    let total = 12 + 8 + text.len() + rest.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(GLB_MAGIC);
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&u32::try_from(total).expect("GLB size").to_le_bytes());
    out.extend_from_slice(&u32::try_from(text.len()).expect("JSON size").to_le_bytes());
    out.extend_from_slice(&GLB_JSON.to_le_bytes());
    out.extend_from_slice(&text);
    out.extend_from_slice(rest);
    std::fs::write(output, out).expect("write GLB");
}

/// Smallest IoU of a three.js mask and dqview's (issue 48's target).
pub const MIN_IOU: f64 = 0.999;

/// Checks one three.js mask against dqview's: IoU at least [`MIN_IOU`] and at most a fifth of
/// the pixels where dqview's LBS and DQS differ; a failure line otherwise.
pub fn check_mask(what: &str, dqview: &Path, three: &Path, lbs_dqs: usize) -> Option<String> {
    let (differ, iou) = compare(dqview, three);
    println!("{what}: IoU {iou:.5}, {differ} pixels differ (LBS vs DQS {lbs_dqs})");
    (iou < MIN_IOU || differ * 5 > lbs_dqs).then(|| {
        format!(
            "{what}: IoU {iou:.5}, {differ} pixels differ (LBS vs DQS {lbs_dqs}); see {}",
            three.display()
        )
    })
}
