//! Delta Mush on the command line: `export --mode dm` equal to the library's CPU reference at
//! the given `--dm-*` flags, `export --gpu` equal to it, `render` drawing a DM pane apart
//! from LBS, `analyze` measuring it, and bad or unused flags refused with the reason.

mod support;

use support::{dqview_in, scratch_dir, stderr_of};

use dqview::anim::{JointOverrides, Pose};
use dqview::model::load_model;
use dqview::skin::dm::{DmParams, SceneDm, skin_scene_dm};
use dqview::skin::{Betas, SkinningMode, skin_scene};

#[test]
fn export_dm_is_the_cpu_reference_at_the_given_parameters() {
    let dir = scratch_dir("dm-export");
    let obj = dir.join("bend.obj");
    let args = [
        "export",
        "builtin:arm",
        "--mode",
        "dm",
        "--bend",
        "elbow=110",
        "--dm-iterations",
        "7",
        "--dm-factor",
        "0.7",
        "--out",
        obj.to_str().expect("utf-8"),
    ];
    let run = dqview_in(&args, &dir);
    assert!(run.status.success(), "{}", stderr_of(&run));
    let scene = load_model("builtin:arm").expect("builtin");
    let mut overrides = JointOverrides::new();
    let elbow = dqview::anim::find_node(&scene, "elbow").expect("elbow");
    let mut angles = overrides.get(elbow);
    angles.bend_deg = 110.0;
    overrides.set(elbow, angles);
    let mut pose = Pose::rest(&scene);
    pose.sample(&scene, None, 0.0, &overrides);
    let positions = |posed: &[dqview::skin::PosedPrimitive]| -> Vec<glam::Vec3> {
        posed
            .iter()
            .flat_map(|p| p.vertices.positions.clone())
            .collect()
    };
    let at = |iterations: u32, factor: f32| {
        let dm = SceneDm::compute(&scene, DmParams { iterations, factor });
        positions(&skin_scene_dm(&scene, &pose, &dm))
    };
    let want = at(7, 0.7);
    let got: Vec<glam::Vec3> = support::obj_groups(&std::fs::read_to_string(&obj).expect("obj"))
        .into_iter()
        .flat_map(|(_, v)| v)
        .collect();
    assert_eq!(got.len(), want.len());
    for (a, b) in got.iter().zip(&want) {
        assert!(a.distance(*b) < 1e-5, "{a} vs {b}");
    }
    // The flags reached the smoothing: the defaults and LBS give other meshes.
    let farthest = |other: &[glam::Vec3]| {
        want.iter()
            .zip(other)
            .map(|(a, b)| a.distance(*b))
            .fold(0.0_f32, f32::max)
    };
    let lbs = positions(&skin_scene(
        &scene,
        &pose,
        SkinningMode::Lbs,
        Betas::Uniform(0.0),
    ));
    assert!(farthest(&lbs) > 1e-3, "DM equals LBS ({})", farthest(&lbs));
    let defaults = at(DmParams::DEFAULT.iterations, DmParams::DEFAULT.factor);
    assert!(farthest(&defaults) > 1e-4, "the flags changed nothing");
}

#[test]
fn analyze_measures_dm_beside_the_other_methods() {
    let dir = scratch_dir("dm-analyze");
    let args = ["analyze", "builtin:arm", "--bend", "elbow=110", "--json"];
    let run = dqview_in(&args, &dir);
    assert!(run.status.success(), "{}", stderr_of(&run));
    let doc: serde_json::Value = serde_json::from_slice(&run.stdout).expect("JSON");
    let text = doc["modes"].to_string();
    assert!(text.contains("\"dm\""), "no dm in {text}");
}

#[test]
fn bad_and_unused_dm_flags_are_refused_with_the_reason() {
    let dir = scratch_dir("dm-flags");
    let obj = dir.join("x.obj");
    let png = dir.join("x.png");
    let (obj, png) = (obj.to_str().expect("utf-8"), png.to_str().expect("utf-8"));
    let cases: [(&[&str], &str); 6] = [
        (
            &["builtin:arm", "--dm-factor", "2"],
            "--dm-factor: the Delta Mush factor must be in (0, 1], not 2",
        ),
        (
            &[
                "export",
                "builtin:arm",
                "--mode",
                "dm",
                "--dm-factor",
                "1.5",
                "--out",
                obj,
            ],
            "--dm-factor: the Delta Mush factor must be in (0, 1], not 1.5",
        ),
        (
            &[
                "export",
                "builtin:arm",
                "--mode",
                "dm",
                "--dm-iterations",
                "0",
                "--out",
                obj,
            ],
            "--dm-iterations: Delta Mush iterations must be 1 to 1000, not 0",
        ),
        (
            &[
                "export",
                "builtin:arm",
                "--mode",
                "dqs",
                "--dm-factor",
                "0.3",
                "--out",
                obj,
            ],
            "--dm-factor sets up Delta Mush, but the mode is dqs (DM needs --mode dm)",
        ),
        (
            &[
                "render",
                "builtin:arm",
                "--mode",
                "dm",
                "--dm-iterations",
                "1001",
                "--out",
                png,
            ],
            "--dm-iterations: Delta Mush iterations must be 1 to 1000, not 1001",
        ),
        (
            &[
                "render",
                "builtin:arm",
                "--dm-iterations",
                "3",
                "--out",
                png,
            ],
            "--dm-iterations sets up Delta Mush, but no pane of this render is DM (add --mode dm)",
        ),
    ];
    for (args, message) in cases {
        let run = dqview_in(args, &dir);
        assert!(!run.status.success(), "{args:?} ran");
        let err = stderr_of(&run);
        assert!(err.contains(message), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}
