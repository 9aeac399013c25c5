//! Blender (the `bpy` module, `pip install bpy==5.0.1`) playing a glTF clip, against dqview.
//!
//! `tests/support/blender_pose.py` imports the file with Blender's glTF importer, puts the
//! clip's action on every data-block it animates (the rest stay at rest), plays it at a time
//! and writes each mesh the Armature modifier deforms (Preserve Volume off: LBS) in world
//! space, glTF axes, as OBJ. [`blender_vs_lbs_export`] compares that with
//! `dqview export --mode lbs` by nearest vertex, over the rest bounding-box diagonal.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{Grid, dqview_in, obj_vertices, stderr_of};

/// The `bpy` version `.ci/run` installs; the references in `DQVIEW_BLENDER` were made with it.
pub const BPY_VERSION: &str = "5.0.1";

/// `tests/support/blender_pose.py`.
pub fn blender_pose_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/blender_pose.py")
}

/// Whether python3 can import `bpy`; `None` after a `SKIPPED` line when not, a failure where
/// `DQVIEW_REQUIRE_DATA` is set (`.ci/run` installs it).
pub fn bpy_available(test: &str) -> Option<()> {
    let out = Command::new("python3")
        .args(["-c", "import bpy; print(bpy.app.version_string)"])
        .output();
    if let Ok(out) = &out
        && out.status.success()
    {
        return Some(());
    }
    assert!(
        std::env::var_os("DQVIEW_REQUIRE_DATA").is_none(),
        "{test}: python3 cannot import bpy (pip install bpy=={BPY_VERSION}), and DQVIEW_REQUIRE_DATA is set"
    );
    // Straight to stderr: the test harness hides eprintln! output of passing tests.
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED {test}: python3 cannot import bpy (pip install bpy=={BPY_VERSION})"
    );
    None
}

/// How rotations are interpolated between two keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rotations {
    /// Blender's own: per component, then normalised. Between keys that differ by a large
    /// angle it is off glTF's slerp (5e-5 of the diagonal on the Adventurer's Run at 0.3 s);
    /// at key times it is glTF's.
    Blender,
    /// glTF's: the script slerps linearly keyed rotations itself (`--slerp`).
    Slerp,
}

/// Runs `blender_pose.py`: Blender's skinned meshes of `model`'s clip `clip` at `time_s`,
/// LBS, written to `out` (OBJ); returns every vertex.
pub fn blender_pose(
    model: &Path,
    clip: &str,
    time_s: f32,
    rotations: Rotations,
    out: &Path,
) -> Vec<glam::Vec3> {
    let mut command = Command::new("python3");
    command
        .arg(blender_pose_script())
        .arg(model)
        .arg(clip)
        .arg(time_s.to_string())
        .arg(out);
    if rotations == Rotations::Slerp {
        command.arg("--slerp");
    }
    let run = command.output().expect("run python3");
    assert!(
        run.status.success(),
        "blender_pose.py {} {clip} {time_s}: {}{}",
        model.display(),
        String::from_utf8_lossy(&run.stdout),
        stderr_of(&run)
    );
    obj_vertices(out)
}

/// How Blender's posed mesh of a clip compares with dqview's.
#[derive(Debug, Clone)]
pub struct ClipAgreement {
    /// Largest distance from a Blender vertex to dqview's nearest, over `diagonal`.
    /// Saturates at 1e-3 (the grid cell): anything that far is plainly different.
    pub worst: f32,
    /// The rest bounding-box diagonal of the model (dqview's `rest_bounds`).
    pub diagonal: f32,
    /// Blender's posed vertices (skinned meshes only), glTF axes.
    pub blender: Vec<glam::Vec3>,
    /// Vertices dqview exported (rigid meshes under joints too).
    pub dqview_vertices: usize,
}

impl ClipAgreement {
    /// One line for the test's log.
    pub fn summary(&self) -> String {
        format!(
            "{:.1e} of the diagonal {:.4} ({} Blender vertices, {} dqview)",
            self.worst,
            self.diagonal,
            self.blender.len(),
            self.dqview_vertices
        )
    }
}

/// `dqview export MODEL --mode lbs --clip CLIP --time TIME_S` (OBJ), in `dir`; every vertex.
pub fn dqview_lbs_export(model: &Path, clip: &str, time_s: f32, dir: &Path) -> Vec<glam::Vec3> {
    let out = dir.join(format!("dqview_{}.obj", case_name(model, clip, time_s)));
    let model_arg = model.to_str().expect("utf-8 model path");
    let out_arg = out.to_str().expect("utf-8 out path");
    let time_arg = time_s.to_string();
    let args = [
        "export", model_arg, "--mode", "lbs", "--clip", clip, "--time", &time_arg, "--out", out_arg,
    ];
    let run = dqview_in(&args, dir);
    assert!(
        run.status.success(),
        "dqview {}: {}",
        args.join(" "),
        stderr_of(&run)
    );
    obj_vertices(&out)
}

/// Blender's LBS of `model`'s clip `clip` at `time_s` against `dqview export --mode lbs`
/// (files in `dir`): each Blender vertex to dqview's nearest. Call [`bpy_available`] first.
pub fn blender_vs_lbs_export(
    model: &Path,
    clip: &str,
    time_s: f32,
    rotations: Rotations,
    dir: &Path,
) -> ClipAgreement {
    let scene = dqview::model::load_model(model.to_str().expect("utf-8")).expect("model loads");
    let (lo, hi) = dqview::skin::rest_bounds(&scene).expect("rest bounds");
    let diagonal = (hi - lo).length();
    let theirs = blender_pose(
        model,
        clip,
        time_s,
        rotations,
        &dir.join(format!("blender_{}.obj", case_name(model, clip, time_s))),
    );
    assert!(!theirs.is_empty(), "Blender posed no vertices");
    let ours = dqview_lbs_export(model, clip, time_s, dir);
    ClipAgreement {
        worst: worst_relative(&theirs, &ours, diagonal),
        diagonal,
        blender: theirs,
        dqview_vertices: ours.len(),
    }
}

/// The largest distance from a vertex of `from` to the nearest of `to`, over `diagonal`
/// (at most 1e-3: cells far wider than any tolerance, far narrower than a mesh).
pub fn worst_relative(from: &[glam::Vec3], to: &[glam::Vec3], diagonal: f32) -> f32 {
    Grid::new(to.iter().copied(), diagonal * 1e-3).worst(from) / diagonal
}

/// `STEM_CLIP_TIME` of `model`, with anything but ASCII letters, digits, `-`, `_` and `.` as `_`.
fn case_name(model: &Path, clip: &str, time_s: f32) -> String {
    let stem = model
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("model");
    format!("{stem}_{clip}_{time_s}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}
