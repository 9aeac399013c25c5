//! Framing in the viewer (Xvfb): on open, the framed model lies inside the part of each pane
//! that the pane labels and the status line leave free, with a margin; Frame on a joint looks
//! from a side that sees its region (the rule `render --focus` and `report` use).
//!
//! The viewer dumps its camera, views and the rectangles of its labels and status line (as
//! probes); the test poses the model itself and projects the framed box's corners and the
//! skinned vertices. Without Xvfb (or the characters) these tests print `SKIPPED` and pass,
//! unless `DQVIEW_REQUIRE_DISPLAY=1` (`DQVIEW_REQUIRE_DATA=1`).

mod support;

use std::path::{Path, PathBuf};

use dqview::anim::{JointOverrides, Pose};
use dqview::skin::{Betas, SkinningMode, rest_bounds, skin_scene};
use dqview::ui::{OrbitCamera, project_to_viewport};
use glam::{Vec2, Vec3};
use serde_json::{Value, json};
use support::{read_dump, run_viewer_sized, skip_without_xvfb};

/// The least margin between the framed box and the free part's edges, as a share of the
/// free part's width or height (framing leaves 15% on each side of the tighter way).
const MARGIN: f32 = 0.1;

fn floats(v: &Value) -> Vec<f32> {
    v.as_array()
        .expect("numbers")
        .iter()
        .map(|x| x.as_f64().expect("number") as f32)
        .collect()
}

/// A dumped `[x0, y0, x1, y1]` rectangle as (min, max).
fn rect(v: &Value) -> (Vec2, Vec2) {
    let r = floats(v);
    (Vec2::new(r[0], r[1]), Vec2::new(r[2], r[3]))
}

/// The dumped camera (glTF's axes: both models here have them).
fn camera(dump: &Value) -> OrbitCamera {
    let cam = &dump["camera"];
    let t = floats(&cam["target"]);
    let num = |k: &str| cam[k].as_f64().expect("camera field") as f32;
    OrbitCamera {
        target: Vec3::new(t[0], t[1], t[2]),
        yaw: num("yaw"),
        pitch: num("pitch"),
        distance: num("distance"),
        scene_radius: num("scene_radius"),
        focus_radius: cam["focus_radius"].as_f64().map(|r| r as f32),
        ..OrbitCamera::default()
    }
}

/// Opens `model` with `extra` arguments at 1280x720 and dumps frame 4.
fn framed_dump(name: &str, model: &str, extra: &[&str]) -> Value {
    let dumps = scripted_dumps(name, model, extra, &[], &[4]);
    dumps.into_iter().next().expect("a dump")
}

/// Opens `model` with `extra` arguments at 1280x720, runs `steps` and dumps (and saves a
/// screenshot) at each of `frames`, in order.
fn scripted_dumps(
    name: &str,
    model: &str,
    extra: &[&str],
    steps: &[Value],
    frames: &[u64],
) -> Vec<Value> {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("dqview_framing_{name}_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut steps = steps.to_vec();
    let mut dumps = Vec::new();
    for &frame in frames {
        let dump = dir.join(format!("frame{frame}.json"));
        let shot = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("viewer_framing_{name}_{frame}.png"));
        steps.push(json!({"frame": frame, "do": "dump", "path": dump.to_str().expect("utf-8")}));
        steps.push(json!({"frame": frame, "do": "save", "path": shot.to_str().expect("utf-8")}));
        dumps.push(dump);
    }
    let last = frames.iter().max().copied().unwrap_or(4) + 2;
    let script = dir.join("script.json");
    std::fs::write(&script, serde_json::to_string(&steps).expect("json")).expect("script");
    let mut args = vec![model];
    args.extend(extra);
    let last = last.to_string();
    args.extend([
        "--ui-script",
        script.to_str().expect("utf-8"),
        "--exit-after-frames",
        &last,
    ]);
    run_viewer_sized(&args, "1280x720");
    let values = dumps.iter().map(|d| read_dump(d)).collect();
    let _ = std::fs::remove_dir_all(&dir);
    values
}

/// Checks, in every dumped view, that the framed box's corners lie inside the view minus
/// its label and the status line with [`MARGIN`], and the skinned vertices inside it.
/// Returns the number of views checked.
fn assert_framed_clear_of_labels(model: &str, dump: &Value) -> usize {
    let scene = dqview::model::load_model(model).expect("model");
    let (min, max) = rest_bounds(&scene).expect("bounds");
    let corners: Vec<Vec3> = (0..8)
        .map(|k| {
            let pick = |bit: usize, lo: f32, hi: f32| if k & bit == 0 { lo } else { hi };
            Vec3::new(
                pick(1, min.x, max.x),
                pick(2, min.y, max.y),
                pick(4, min.z, max.z),
            )
        })
        .collect();
    let clip = dump["playback"]["clip"].as_u64().map(|c| c as usize);
    let time_s = dump["playback"]["time_s"].as_f64().expect("time") as f32;
    let mut pose = Pose::rest(&scene);
    pose.sample(&scene, clip, time_s, &JointOverrides::new());
    let skinned: Vec<Vec3> = skin_scene(&scene, &pose, SkinningMode::Lbs, Betas::Uniform(0.0))
        .iter()
        .flat_map(|p| p.vertices.positions.clone())
        .collect();
    let probes = &dump["probes"];
    let status = rect(&probes["status line"]["rect"]);
    let cam = camera(dump);
    let views = dump["views"].as_array().expect("views");
    for (i, view) in views.iter().enumerate() {
        let (lo, hi) = rect(&view["rect"]);
        let size = hi - lo;
        // What nothing covers: below the label, above the status line where it reaches.
        let mut free = (lo, hi);
        if let Some(label) = probes.get(format!("view label {i}")) {
            free.0.y = free.0.y.max(rect(&label["rect"]).1.y);
        }
        if status.0.x < hi.x && status.1.x > lo.x {
            free.1.y = free.1.y.min(status.0.y);
        }
        let clip_from_world = cam.clip_from_world(size.x / size.y);
        let on_screen = |p: &Vec3| {
            project_to_viewport(clip_from_world, *p, size).expect("ahead of the camera") + lo
        };
        let (box_lo, box_hi) = corners
            .iter()
            .map(on_screen)
            .fold((Vec2::MAX, Vec2::MIN), |(a, b), p| (a.min(p), b.max(p)));
        let margin = (free.1 - free.0) * MARGIN;
        let case = format!("{model} view {i} free {free:?}: framed box {box_lo}..{box_hi}");
        assert!((box_lo - free.0).cmpge(margin).all(), "{case}");
        assert!((free.1 - box_hi).cmpge(margin).all(), "{case}");
        for p in &skinned {
            let s = on_screen(p);
            assert!(
                s.cmpge(free.0).all() && s.cmple(free.1).all(),
                "{case}: vertex {p} at {s}"
            );
        }
    }
    views.len()
}

#[test]
fn the_twist_tube_opens_in_split_view_clear_of_the_pane_labels() {
    let test = "the_twist_tube_opens_in_split_view_clear_of_the_pane_labels";
    if skip_without_xvfb(test) {
        return;
    }
    let dump = framed_dump("twist_split", "builtin:twist", &["--view", "split"]);
    assert!(
        dump["probes"]["view label 0"].is_object(),
        "split panes have labels"
    );
    assert_eq!(assert_framed_clear_of_labels("builtin:twist", &dump), 2);
}

#[test]
fn a_character_opens_in_single_view_clear_of_the_status_line() {
    let test = "a_character_opens_in_single_view_clear_of_the_status_line";
    let Some(chars) = support::data_dir("DQVIEW_CHARACTERS", test) else {
        return;
    };
    if skip_without_xvfb(test) {
        return;
    }
    let model = chars.join("Adventurer.gltf");
    let model = model.to_str().expect("utf-8");
    let dump = framed_dump("adventurer_single", model, &[]);
    assert_eq!(assert_framed_clear_of_labels(model, &dump), 1);
}

/// The share of `joint`'s region (at `pose`) a DQS pane of 300 x 360 seen by `camera` shows,
/// counted in region masks drawn past the model and alone.
fn region_seen(
    scene: &dqview::scene::Scene,
    pose: &Pose,
    joint: usize,
    camera: &OrbitCamera,
) -> f32 {
    use dqview::cli::painter::{Painter, RenderLook};
    use dqview::render::{DebugView, is_region_pixel};
    let look = RenderLook::default();
    let mut painter =
        Painter::new(scene, pose, &[SkinningMode::Dqs], look, [300, 360]).expect("painter");
    let mut count = |cut_depth: f32| {
        painter.set_region(Some(joint), cut_depth);
        let mask = painter
            .paint_rows(pose, camera, &[DebugView::Region])
            .expect("mask")
            .remove(0);
        mask.pixels
            .chunks_exact(4)
            .filter(|p| is_region_pixel(p))
            .count() as f32
    };
    let shown = count(0.0);
    shown / count(1.0).max(1.0)
}

#[test]
fn frame_on_a_hidden_finger_looks_from_a_side_that_sees_it() {
    let test = "frame_on_a_hidden_finger_looks_from_a_side_that_sees_it";
    let Some(chars) = support::data_dir("DQVIEW_CHARACTERS", test) else {
        return;
    };
    if skip_without_xvfb(test) || support::gpu(test).is_none() {
        return;
    }
    let model = chars.join("Adventurer.gltf");
    let model = model.to_str().expect("utf-8");
    // The right ring finger, curled into the fist at the start of Idle.
    let steps = [
        json!({"frame": 3, "do": "click", "probe": "joint search"}),
        json!({"frame": 4, "do": "type", "text": "Ring1.R"}),
        json!({"frame": 5, "do": "key", "key": "Enter"}),
        json!({"frame": 8, "do": "key", "key": "F"}),
    ];
    let dumps = scripted_dumps("finger", model, &["--clip", "Idle"], &steps, &[6, 11]);
    let (before, after) = (camera(&dumps[0]), camera(&dumps[1]));
    assert_eq!(dumps[1]["selected"], "Ring1.R");
    let scene = dqview::model::load_model(model).expect("model");
    let joint = dqview::scene::names::joint(&scene, "Ring1.R").expect("joint");
    let clip = dumps[1]["playback"]["clip"].as_u64().map(|c| c as usize);
    let time_s = dumps[1]["playback"]["time_s"].as_f64().expect("time") as f32;
    let mut pose = Pose::rest(&scene);
    pose.sample(&scene, clip, time_s, &JointOverrides::new());
    // Framed as before Frame picked a side: the angles the viewer had, the near plane holding
    // the model.
    let unpicked = OrbitCamera {
        yaw: before.yaw,
        pitch: before.pitch,
        focus_radius: None,
        ..after
    };
    let hidden = region_seen(&scene, &pose, joint, &unpicked);
    let seen = region_seen(&scene, &pose, joint, &after);
    eprintln!("Ring1.R: {hidden:.3} seen from the opening angles, {seen:.3} after Frame");
    assert!(
        hidden < 1.0 / 3.0,
        "the opening angles already see {hidden:.3}"
    );
    assert!(seen >= 1.0 / 3.0, "Frame sees {seen:.3} of the region");
}
