//! Camera and playback in the viewer (Xvfb): after Frame on a joint, "follow" is on and keeps
//! its region in the middle of the pane while its clip steps and plays, framing leaves a
//! margin; an orbit drag turns following off and switching it on again moves no camera; a
//! session keeps the play state, and legends stay off the plot's curves (paint mode shows one
//! for beta).
//!
//! Input is scripted (`--ui-script`); the viewer dumps its camera, views and pose, and the
//! test poses the model itself to find where the joint's region is. Without Xvfb (or the
//! characters) these tests print `SKIPPED` and pass, unless `DQVIEW_REQUIRE_DISPLAY=1`
//! (`DQVIEW_REQUIRE_DATA=1`).

mod support;

use std::path::{Path, PathBuf};

use dqview::analysis::{FocusRegion, focus_region};
use dqview::anim::{JointOverrides, Pose, find_node};
use dqview::scene::Scene;
use dqview::ui::{FRAME_FILL, OrbitCamera, project_to_viewport};
use glam::{Vec2, Vec3};
use serde_json::{Value, json};
use support::{read_dump as read, run_viewer_sized, skip_without_xvfb};

/// Window size of these runs.
const SIZE: &str = "1280x720";

/// A fresh temp folder for one test.
fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dqview_follow_{name}_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Runs the viewer with `model_args` and `steps` for `frames` frames.
fn run_script(dir: &Path, model_args: &[&str], steps: &[Value], frames: u64) {
    let script = dir.join("script.json");
    std::fs::write(&script, serde_json::to_string(steps).expect("json")).expect("script");
    let frames = frames.to_string();
    let mut args: Vec<&str> = model_args.to_vec();
    args.extend([
        "--ui-script",
        script.to_str().expect("utf-8"),
        "--exit-after-frames",
        &frames,
    ]);
    run_viewer_sized(&args, SIZE);
}

fn text(path: &Path) -> String {
    path.to_str().expect("utf-8").to_owned()
}

/// Where a screenshot for a person to look at goes: kept under the target's test folder.
fn shot(name: &str) -> String {
    text(&Path::new(env!("CARGO_TARGET_TMPDIR")).join(name))
}

fn floats(v: &Value) -> Vec<f32> {
    v.as_array()
        .expect("numbers")
        .iter()
        .map(|x| x.as_f64().expect("number") as f32)
        .collect()
}

/// The dumped camera.
fn camera(dump: &Value) -> OrbitCamera {
    let cam = &dump["camera"];
    let t = floats(&cam["target"]);
    OrbitCamera {
        target: Vec3::new(t[0], t[1], t[2]),
        yaw: cam["yaw"].as_f64().expect("yaw") as f32,
        pitch: cam["pitch"].as_f64().expect("pitch") as f32,
        distance: cam["distance"].as_f64().expect("distance") as f32,
        scene_radius: cam["scene_radius"].as_f64().expect("radius") as f32,
        // A glTF file: glTF's axes.
        ..OrbitCamera::default()
    }
}

/// The first view's origin and size, points.
fn view(dump: &Value) -> (Vec2, Vec2) {
    let r = floats(&dump["views"][0]["rect"]);
    (Vec2::new(r[0], r[1]), Vec2::new(r[2] - r[0], r[3] - r[1]))
}

/// The region of `joint` at the dumped clip and `time_s`.
fn region_at(scene: &Scene, dump: &Value, joint: usize, time_s: f32) -> FocusRegion {
    let clip = dump["playback"]["clip"].as_u64().map(|c| c as usize);
    let mut pose = Pose::rest(scene);
    pose.sample(scene, clip, time_s, &JointOverrides::new());
    focus_region(scene, &pose, joint).expect("the joint moves vertices")
}

/// The dumped clip time.
fn time_of(dump: &Value) -> f32 {
    dump["playback"]["time_s"].as_f64().expect("time") as f32
}

/// Where `p` lands in the first view of `dump`, seen by `cam`, in points from the view's corner.
fn on_screen(dump: &Value, cam: &OrbitCamera, p: Vec3) -> Vec2 {
    let (_, size) = view(dump);
    project_to_viewport(cam.clip_from_world(size.x / size.y), p, size).expect("ahead")
}

/// The share of the view's narrower side the region's box spans, seen by the dumped camera.
fn fill(dump: &Value, region: &FocusRegion) -> f32 {
    let cam = camera(dump);
    let (_, size) = view(dump);
    let (mut lo, mut hi) = (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN));
    for k in 0..8 {
        let pick = |bit: usize, a: f32, b: f32| if k & bit == 0 { a } else { b };
        let corner = Vec3::new(
            pick(1, region.min.x, region.max.x),
            pick(2, region.min.y, region.max.y),
            pick(4, region.min.z, region.max.z),
        );
        let p = on_screen(dump, &cam, corner);
        lo = lo.min(p);
        hi = hi.max(p);
    }
    (hi - lo).max_element() / size.min_element()
}

#[test]
fn follow_keeps_the_joint_region_in_the_pane_while_the_clip_steps_and_plays() {
    let test = "follow_keeps_the_joint_region_in_the_pane_while_the_clip_steps_and_plays";
    let Some(chars) = support::data_dir("DQVIEW_CHARACTERS", test) else {
        return;
    };
    if skip_without_xvfb(test) {
        return;
    }
    let model = chars.join("Adventurer.gltf");
    let dir = temp("clip");
    let dump = |name: &str| text(&dir.join(name));
    let mut steps = vec![
        json!({"frame": 3, "do": "click", "probe": "joint search"}),
        json!({"frame": 4, "do": "type", "text": "LowerArm.L"}),
        json!({"frame": 5, "do": "key", "key": "Enter"}),
        // Frame: following is on from here by default.
        json!({"frame": 8, "do": "key", "key": "F"}),
        json!({"frame": 11, "do": "dump", "path": dump("d0.json")}),
        json!({"frame": 11, "do": "save", "path": shot("viewer_follow_framed.png")}),
    ];
    // Three stretches of 8 frame steps (8 / 30 s each), a dump after each.
    let mut stepped = Vec::new();
    for k in 0..3u64 {
        let start = 12 + 12 * k;
        steps.extend(
            (start..start + 8).map(|f| json!({"frame": f, "do": "key", "key": "ArrowRight"})),
        );
        let name = format!("step{k}.json");
        steps.push(json!({"frame": start + 10, "do": "dump", "path": dump(&name)}));
        stepped.push(name);
    }
    // Then it plays: the dumps say at which time.
    steps.push(json!({"frame": 50, "do": "key", "key": "Space"}));
    let mut played = Vec::new();
    for k in 0..3u64 {
        let name = format!("play{k}.json");
        steps.push(json!({"frame": 56 + 6 * k, "do": "dump", "path": dump(&name)}));
        played.push(name);
    }
    steps.push(json!({"frame": 68, "do": "save", "path": shot("viewer_follow_followed.png")}));
    run_script(
        &dir,
        &[model.to_str().expect("utf-8"), "--clip", "Punch_Left"],
        &steps,
        70,
    );

    let scene = dqview::model::load_model(model.to_str().expect("utf-8")).expect("model");
    let joint = find_node(&scene, "LowerArm.L").expect("joint");
    let d0 = read(&dir.join("d0.json"));
    assert_eq!(d0["follow"], true, "{}", d0["follow"]);
    assert_eq!(d0["selected"], "LowerArm.L");
    let framed = region_at(&scene, &d0, joint, time_of(&d0));
    let f = fill(&d0, &framed);
    assert!(
        f <= FRAME_FILL + 0.01,
        "the framed region fills {f:.3} of the pane"
    );
    assert!(f >= 0.3, "the framed region fills only {f:.3} of the pane");
    let (_, size) = view(&d0);
    let centre = size * 0.5;
    let still = camera(&d0);
    let mut drift_px = 0.0_f32;
    for name in stepped.iter().chain(&played) {
        let d = read(&dir.join(name));
        // The camera of the frame drawn last, and that frame's pose (playing moves the clock
        // on before the next frame's dump).
        let t = d["follow_time_s"].as_f64().expect("following") as f32;
        if stepped.contains(name) {
            assert_eq!(t, time_of(&d), "{name}: stepping leaves the clock alone");
        }
        let region = region_at(&scene, &d, joint, t);
        let p = on_screen(&d, &camera(&d), region.center());
        // Where Frame put it, to within a pixel.
        assert!(
            (p - centre).length() <= 1.0,
            "{name}: the region's centre is at {p} in a {size} pane (t = {t})"
        );
        drift_px = drift_px.max((on_screen(&d, &still, region.center()) - centre).length());
    }
    let last = read(&dir.join(&played[2]));
    assert_eq!(last["playback"]["playing"], true);
    // Without following, the framed camera would have lost the region's centre this far.
    assert!(
        drift_px > 0.1 * size.min_element(),
        "the clip moved the region only {drift_px:.0} px: not a test of following"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The dumped camera's `view_from_world`, to compare two frames' views.
fn view_matrix(dump: &Value) -> glam::Mat4 {
    camera(dump).view_from_world()
}

#[test]
fn an_orbit_turns_follow_off_and_switching_it_on_moves_no_camera() {
    let test = "an_orbit_turns_follow_off_and_switching_it_on_moves_no_camera";
    let Some(chars) = support::data_dir("DQVIEW_CHARACTERS", test) else {
        return;
    };
    if skip_without_xvfb(test) {
        return;
    }
    let model = chars.join("Adventurer.gltf");
    let dir = temp("orbit");
    let dump = |name: &str| text(&dir.join(name));
    let step =
        |from: u64| (from..from + 8).map(|f| json!({"frame": f, "do": "key", "key": "ArrowRight"}));
    let mut steps = vec![
        json!({"frame": 3, "do": "click", "probe": "joint search"}),
        json!({"frame": 4, "do": "type", "text": "LowerArm.L"}),
        json!({"frame": 5, "do": "key", "key": "Enter"}),
        json!({"frame": 8, "do": "key", "key": "F"}),
        json!({"frame": 11, "do": "dump", "path": dump("framed.json")}),
        // An orbit drag over the viewport (left of the plot, right of the panel).
        json!({"frame": 12, "do": "drag", "at": [800.0, 250.0], "dx": 80.0, "dy": 0.0}),
        json!({"frame": 18, "do": "dump", "path": dump("orbited.json")}),
    ];
    steps.extend(step(19));
    steps.push(json!({"frame": 30, "do": "dump", "path": dump("stepped_off.json")}));
    steps.push(json!({"frame": 32, "do": "click", "probe": "follow joint"}));
    steps.push(json!({"frame": 35, "do": "dump", "path": dump("switched_on.json")}));
    steps.extend(step(36));
    steps.push(json!({"frame": 47, "do": "dump", "path": dump("followed.json")}));
    run_script(
        &dir,
        &[model.to_str().expect("utf-8"), "--clip", "Punch_Left"],
        &steps,
        49,
    );
    let framed = read(&dir.join("framed.json"));
    assert_eq!(framed["follow"], true, "on after Frame");
    let orbited = read(&dir.join("orbited.json"));
    assert_eq!(orbited["follow"], false, "an orbit drag turns follow off");
    assert!(
        (camera(&orbited).yaw - camera(&framed).yaw).abs() > 0.2,
        "the drag orbited: yaw {} -> {}",
        camera(&framed).yaw,
        camera(&orbited).yaw
    );
    // Off: stepping the clip leaves the camera alone.
    let off = read(&dir.join("stepped_off.json"));
    assert!(time_of(&off) > time_of(&orbited), "the clip stepped");
    assert_eq!(view_matrix(&off), view_matrix(&orbited));
    // Switched on: the same view, to float precision, and the region stays where it was.
    let on = read(&dir.join("switched_on.json"));
    assert_eq!(on["follow"], true);
    assert!(
        view_matrix(&on).abs_diff_eq(view_matrix(&off), 1e-5),
        "follow switched on moved the camera:\n{}\n{}",
        view_matrix(&off),
        view_matrix(&on)
    );
    let scene = dqview::model::load_model(model.to_str().expect("utf-8")).expect("model");
    let joint = find_node(&scene, "LowerArm.L").expect("joint");
    let at_on = region_at(&scene, &on, joint, time_of(&on)).center();
    let followed = read(&dir.join("followed.json"));
    let t = followed["follow_time_s"].as_f64().expect("following") as f32;
    assert!(t > time_of(&on), "the clip stepped while following");
    let now = region_at(&scene, &followed, joint, t).center();
    let before = on_screen(&on, &camera(&on), at_on);
    let after = on_screen(&followed, &camera(&followed), now);
    assert!(
        (after - before).length() <= 1.0,
        "followed from where it was: {before} -> {after}"
    );
    let unfollowed = on_screen(&on, &camera(&on), now);
    assert!(
        (unfollowed - before).length() > 3.0,
        "the steps moved the region only {} px: not a test of following",
        (unfollowed - before).length()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_session_keeps_the_play_state_and_opens_paused_by_default() {
    let test = "a_session_keeps_the_play_state_and_opens_paused_by_default";
    if skip_without_xvfb(test) {
        return;
    }
    let dir = temp("session");
    let session = dir.join("rig.json");
    let dump = |name: &str| text(&dir.join(name));
    let s = text(&session);
    // Opened with a clip: paused. Space plays; the session saves it playing.
    let steps = [
        json!({"frame": 2, "do": "dump", "path": dump("opened.json")}),
        json!({"frame": 3, "do": "key", "key": "Space"}),
    ];
    run_script(
        &dir,
        &["builtin:arm", "--clip", "0", "--session", &s],
        &steps,
        8,
    );
    assert_eq!(read(&dir.join("opened.json"))["playback"]["playing"], false);
    let saved = read(&session);
    assert_eq!(saved["playing"], true, "{saved}");
    // Reopened from the session: playing. Space pauses; saved paused.
    let steps = [
        json!({"frame": 2, "do": "dump", "path": dump("reopened.json")}),
        json!({"frame": 3, "do": "key", "key": "Space"}),
    ];
    run_script(&dir, &["--session", &s], &steps, 8);
    let reopened = read(&dir.join("reopened.json"));
    assert_eq!(
        reopened["playback"]["playing"], true,
        "{}",
        reopened["playback"]
    );
    assert_eq!(reopened["playback"]["clip"], 0);
    assert_eq!(read(&session)["playing"], false);
    let steps = [json!({"frame": 2, "do": "dump", "path": dump("paused.json")})];
    run_script(&dir, &["--session", &s], &steps, 4);
    assert_eq!(read(&dir.join("paused.json"))["playback"]["playing"], false);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whether two `[x0, y0, x1, y1]` rectangles overlap.
fn overlap(a: &[f32], b: &[f32]) -> bool {
    a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]
}

#[test]
fn legends_stay_off_the_curves_and_paint_mode_shows_the_beta_scale() {
    let test = "legends_stay_off_the_curves_and_paint_mode_shows_the_beta_scale";
    if skip_without_xvfb(test) {
        return;
    }
    let dir = temp("legend");
    let dump = |name: &str| text(&dir.join(name));
    let plot_png = shot("viewer_follow_plot.png");
    let steps = [
        json!({"frame": 3, "do": "dump", "path": dump("no_paint.json")}),
        json!({"frame": 4, "do": "key", "key": "P"}),
        // The screenshot frame (the last) waits for the plot's series.
        json!({"frame": 11, "do": "dump", "path": dump("plot.json")}),
    ];
    run_script(
        &dir,
        &["builtin:arm", "--clip", "0", "--screenshot", &plot_png],
        &steps,
        12,
    );
    let before = read(&dir.join("no_paint.json"));
    assert!(
        before["probes"]["view legend"].is_null(),
        "shaded view: no legend"
    );
    let d = read(&dir.join("plot.json"));
    let probe = |name: &str| floats(&d["probes"][name]["rect"]);
    let (legend, area, title) = (
        probe("plot legend"),
        probe("plot area"),
        probe("plot title"),
    );
    assert!(
        !overlap(&legend, &area),
        "legend {legend:?} over the data {area:?}"
    );
    assert!(
        !overlap(&legend, &title),
        "legend {legend:?} over the title {title:?}"
    );
    let entries = d["plot_legend"]["entries"].as_array().expect("entries");
    assert!(entries.len() >= 3, "{entries:?}");
    // Painting shows the map: its legend is in the view.
    let beta = probe("view legend");
    let (origin, size) = view(&d);
    assert!(
        beta[0] >= origin.x && beta[2] <= origin.x + size.x,
        "{beta:?}"
    );
    assert!(Path::new(&plot_png).is_file());
    let _ = std::fs::remove_dir_all(&dir);
}
