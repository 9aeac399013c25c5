//! Painting the DQS blend map in the viewer (Xvfb): a scripted stroke changes the betas under
//! the brush only, undo and redo restore them exactly, and a rig session brings the painted
//! map back.
//!
//! Input is scripted (`--ui-script`), events going through egui as a user's do; the viewer
//! dumps the betas it shows. The test finds which vertices lay under the brush on its own:
//! it poses the model as the dump says, projects it with the dumped camera into the dumped
//! view, and measures each vertex's distance from the stroke's path. Without Xvfb these
//! tests print `SKIPPED` and pass, unless `DQVIEW_REQUIRE_DISPLAY=1`.

mod support;

use std::path::{Path, PathBuf};

use dqview::anim::{JointOverrides, Pose};
use dqview::skin::{Betas, SkinningMode, skin_scene};
use dqview::ui::{OrbitCamera, project_to_viewport};
use glam::{Vec2, Vec3};
use serde_json::{Value, json};
use support::{run_viewer_sized, skip_without_xvfb};

/// Window size of these runs.
const SIZE: &str = "1024x640";
/// The brush's default radius in points (the panel's default).
const RADIUS_PX: f32 = 40.0;
/// How far the stroke moves, in points.
const STROKE_DX: f32 = 30.0;

/// A fresh temp folder for one test.
fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dqview_paint_{name}_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Runs the viewer on `model` with `steps` for `frames` frames and `extra` flags.
fn run_script(dir: &Path, model: &str, steps: &[Value], frames: u64, extra: &[&str]) {
    let script = dir.join("script.json");
    std::fs::write(&script, serde_json::to_string(steps).expect("json")).expect("script");
    let frames = frames.to_string();
    let mut args = vec![
        model,
        "--ui-script",
        script.to_str().expect("utf-8"),
        "--exit-after-frames",
        &frames,
    ];
    args.extend_from_slice(extra);
    run_viewer_sized(&args, SIZE);
}

/// A dump the viewer wrote.
fn read(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e} (the viewer wrote no dump)", path.display()));
    serde_json::from_str(&text).expect("dump is JSON")
}

/// The betas a dump shows, flattened over meshes and primitives in order.
fn betas(dump: &Value) -> Vec<f32> {
    let per_mesh = dump["paint"]["betas"].as_array().expect("betas");
    per_mesh
        .iter()
        .flat_map(|m| m.as_array().expect("mesh").iter())
        .flat_map(|p| p.as_array().expect("primitive").iter())
        .map(|b| b.as_f64().expect("beta") as f32)
        .collect()
}

/// The script steps that switch paint mode on and pick set (to 1, the default value) at
/// constant falloff.
fn paint_setup() -> Vec<Value> {
    vec![
        json!({"frame": 3, "do": "key", "key": "P"}),
        json!({"frame": 5, "do": "click", "probe": "paint set"}),
        json!({"frame": 6, "do": "click", "probe": "falloff constant"}),
    ]
}

/// One stroke from the joint `tip`'s dot, STROKE_DX points to the right.
fn stroke(frame: u64) -> Value {
    json!({"frame": frame, "do": "drag", "joint": "tip", "dx": STROKE_DX, "dy": 0.0, "frames": 3})
}

/// Each vertex's window position (points) in the dumped view, the model posed as dumped, and
/// whether its surface faces the eye.
fn screen_points(dump: &Value) -> Vec<(Option<Vec2>, bool)> {
    let scene = dqview::model::load_model("builtin:twist").expect("builtin");
    let clip = dump["playback"]["clip"].as_u64().map(|c| c as usize);
    let time_s = dump["playback"]["time_s"].as_f64().expect("time") as f32;
    let mut pose = Pose::rest(&scene);
    pose.sample(&scene, clip, time_s, &JointOverrides::new());
    let view = &dump["views"][0];
    assert_eq!(view["mode"], "dqs", "{view}");
    let r: Vec<f32> = view["rect"]
        .as_array()
        .expect("rect")
        .iter()
        .map(|v| v.as_f64().expect("coord") as f32)
        .collect();
    let (origin, size) = (Vec2::new(r[0], r[1]), Vec2::new(r[2] - r[0], r[3] - r[1]));
    let cam = &dump["camera"];
    let target: Vec<f32> = cam["target"]
        .as_array()
        .expect("target")
        .iter()
        .map(|v| v.as_f64().expect("coord") as f32)
        .collect();
    let camera = OrbitCamera {
        target: Vec3::new(target[0], target[1], target[2]),
        yaw: cam["yaw"].as_f64().expect("yaw") as f32,
        pitch: cam["pitch"].as_f64().expect("pitch") as f32,
        distance: cam["distance"].as_f64().expect("distance") as f32,
        scene_radius: cam["scene_radius"].as_f64().expect("radius") as f32,
        // A glTF file: glTF's axes.
        ..OrbitCamera::default()
    };
    let clip_from_world = camera.clip_from_world(size.x / size.y);
    let eye = camera.eye();
    skin_scene(&scene, &pose, SkinningMode::Dqs, Betas::Uniform(1.0))
        .iter()
        .flat_map(|p| {
            let v = &p.vertices;
            v.positions
                .iter()
                .copied()
                .zip(v.normals.clone())
                .collect::<Vec<_>>()
        })
        .map(|(q, n)| {
            let at = project_to_viewport(clip_from_world, q, size).map(|s| s + origin);
            (at, n.dot(eye - q) >= 0.0)
        })
        .collect()
}

/// Distance from `p` to the segment `a`..`b`.
fn distance_to_segment(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let ab = b - a;
    let t = ((p - a).dot(ab) / ab.length_squared().max(1e-12)).clamp(0.0, 1.0);
    (a + ab * t).distance(p)
}

/// The joint's dot in a dump.
fn joint_dot(dump: &Value, name: &str) -> Vec2 {
    let p = dump["joints"][name].as_array().expect("joint on screen");
    Vec2::new(
        p[0].as_f64().expect("x") as f32,
        p[1].as_f64().expect("y") as f32,
    )
}

#[test]
fn a_stroke_changes_the_betas_under_the_brush_only_and_undo_restores_them() {
    let test = "a_stroke_changes_the_betas_under_the_brush_only_and_undo_restores_them";
    if skip_without_xvfb(test) {
        return;
    }
    let dir = temp("stroke");
    let path = |f: &str| dir.join(f).to_str().expect("utf-8").to_owned();
    let mut steps = paint_setup();
    steps.extend([
        json!({"frame": 8, "do": "dump", "path": path("before.json")}),
        stroke(9),
        json!({"frame": 16, "do": "dump", "path": path("stroke.json")}),
        json!({"frame": 16, "do": "save", "path": path("stroke.png")}),
        json!({"frame": 17, "do": "key", "key": "Z", "ctrl": true}),
        json!({"frame": 19, "do": "dump", "path": path("undone.json")}),
        json!({"frame": 20, "do": "key", "key": "Z", "ctrl": true, "shift": true}),
        json!({"frame": 22, "do": "dump", "path": path("redone.json")}),
    ]);
    run_script(&dir, "builtin:twist", &steps, 24, &["--mode", "dqs"]);
    let before = read(&dir.join("before.json"));
    assert_eq!(before["paint"]["painted"], false, "{}", before["paint"]);
    let stroked = read(&dir.join("stroke.json"));
    assert_eq!(stroked["paint"]["painted"], true, "{}", stroked["paint"]);
    assert_eq!(
        stroked["paint"]["undo_steps"], 1,
        "one stroke, one undo step"
    );
    let (b0, b1) = (betas(&before), betas(&stroked));
    assert_eq!(b0.len(), b1.len());

    let start = joint_dot(&before, "tip");
    let end = start + Vec2::new(STROKE_DX, 0.0);
    let points = screen_points(&before);
    assert_eq!(points.len(), b0.len(), "one beta per vertex");
    let (mut inside, mut changed, mut far_side) = (0, 0, 0);
    for (i, (point, facing)) in points.iter().enumerate() {
        let d = point.map_or(f32::INFINITY, |p| distance_to_segment(p, start, end));
        if d < RADIUS_PX && !facing {
            far_side += 1;
        }
        if b1[i] != b0[i] {
            changed += 1;
            // Half a point of slack for where egui put the pointer on each frame.
            assert!(
                d <= RADIUS_PX + 0.5,
                "vertex {i} changed {} -> {} at {d:.1} px from the stroke",
                b0[i],
                b1[i]
            );
            assert!(
                facing,
                "vertex {i} on the far side changed (front only is the default)"
            );
            assert!(
                b1[i] > b0[i],
                "set to 1 lowered vertex {i}: {} -> {}",
                b0[i],
                b1[i]
            );
        }
        if d < RADIUS_PX - 0.5 && *facing {
            inside += 1;
            // Constant falloff at strength 0.5: at least one dab halves the way to 1.
            let most = 0.5 * (1.0 - b0[i]) + 1e-6;
            assert!(
                1.0 - b1[i] <= most,
                "vertex {i} under the brush: {} -> {}",
                b0[i],
                b1[i]
            );
        }
    }
    assert!(
        inside > 20,
        "only {inside} front vertices lay under the brush"
    );
    assert!(
        far_side > 20,
        "only {far_side} far-side vertices lay under the brush"
    );
    assert!(
        changed >= inside,
        "{changed} changed, {inside} under the brush"
    );
    assert!(
        changed < b0.len() / 2,
        "the stroke changed {changed} of {} vertices",
        b0.len()
    );

    let undone = read(&dir.join("undone.json"));
    assert_eq!(
        undone["paint"]["painted"], false,
        "undo drops the first stroke's map"
    );
    assert_eq!(betas(&undone), b0, "undo restores every beta exactly");
    assert_eq!(undone["paint"]["redo_steps"], 1);
    let redone = read(&dir.join("redone.json"));
    assert_eq!(betas(&redone), b1, "redo brings the stroke back exactly");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_rig_session_restores_the_painted_map() {
    let test = "a_rig_session_restores_the_painted_map";
    if skip_without_xvfb(test) {
        return;
    }
    let dir = temp("session");
    let path = |f: &str| dir.join(f).to_str().expect("utf-8").to_owned();
    let session = path("session.json");
    let mut steps = paint_setup();
    steps.extend([
        stroke(8),
        json!({"frame": 14, "do": "dump", "path": path("painted.json")}),
    ]);
    run_script(
        &dir,
        "builtin:twist",
        &steps,
        15,
        &["--mode", "dqs", "--session", &session],
    );
    let painted = read(&dir.join("painted.json"));
    assert_eq!(painted["paint"]["painted"], true);
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(&session).expect("session written"))
            .expect("session is JSON");
    assert!(
        saved.get("blend_map").is_some_and(|m| !m.is_null()),
        "{saved}"
    );

    let steps = [json!({"frame": 3, "do": "dump", "path": path("restored.json")})];
    run_script(&dir, "builtin:twist", &steps, 4, &["--session", &session]);
    let restored = read(&dir.join("restored.json"));
    assert_eq!(restored["paint"]["painted"], true, "{}", restored["paint"]);
    assert_eq!(
        betas(&restored),
        betas(&painted),
        "the session brings back every beta"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fit_to_cor_shows_the_before_and_after_that_blend_prints() {
    let test = "fit_to_cor_shows_the_before_and_after_that_blend_prints";
    if skip_without_xvfb(test) {
        return;
    }
    let dir = temp("fit_table");
    let path = |f: &str| dir.join(f).to_str().expect("utf-8").to_owned();
    // Select the tip, open the Paint section (P) and fit, at the tip twisted 90 degrees.
    let steps = [
        json!({"frame": 3, "do": "click", "joint": "tip"}),
        json!({"frame": 4, "do": "key", "key": "P"}),
        json!({"frame": 7, "do": "click", "probe": "Fit to CoR"}),
        json!({"frame": 12, "do": "dump", "path": path("fitted.json")}),
    ];
    run_script(&dir, "builtin:twist", &steps, 13, &["--twist", "tip=90"]);
    let dump = read(&dir.join("fitted.json"));
    assert!(dump["error"].is_null(), "{}", dump["error"]);
    let shown: Vec<String> = dump["paint"]["fit_table"]
        .as_array()
        .unwrap_or_else(|| panic!("no fit table: {}", dump["paint"]))
        .iter()
        .map(|l| l.as_str().expect("line").trim_end().to_owned())
        .collect();
    // `blend` over the poses the viewer fits: the clip, the pose on screen and the selected
    // joint's twist (-180..180) and bend (0..120) sweeps, 24 samples each.
    let out = support::dqview_in(
        &[
            "blend",
            "builtin:twist",
            "--clip",
            "all",
            "--samples",
            "24",
            "--twist",
            "tip=90",
            "--sweep",
            "tip=-180:180",
            "--bend-sweep",
            "tip=0:120",
            "--out",
            &path("fit.json"),
        ],
        &dir,
    );
    assert!(out.status.success(), "{}", support::stderr_of(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let printed: Vec<String> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("before/after at the pose under review"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| l[2..].trim_end().to_owned())
        .collect();
    assert_eq!(shown, printed, "viewer vs `dqview blend`:\n{stdout}");
    // Rows in order, the fit between LBS and CoR: a table that shows what the fit did.
    let labels: Vec<&str> = shown[1..]
        .iter()
        .map(|l| l.split("  ").next().expect("label"))
        .collect();
    assert_eq!(
        labels,
        ["LBS", "hybrid joint flags", "hybrid fitted", "DQS", "CoR"]
    );
    let _ = std::fs::remove_dir_all(&dir);
}
