//! The viewer's "LBS + helpers" pane (Xvfb): a joint found by search, added in the Helper
//! joints section, previewed beside LBS with the fitted figures in the panel, saved through the
//! dialog. The file saved is the one `dqview twist-joints --joint` writes, byte for byte (and
//! the panel's figures are the ones it prints), and the pane shows what the viewer draws
//! for that file in LBS (a second run on it, same window and camera), while the LBS pane beside
//! it shows the candy wrapper it fixes.
//!
//! Without Xvfb or the characters these tests print `SKIPPED` and pass, unless
//! `DQVIEW_REQUIRE_DISPLAY=1` / `DQVIEW_REQUIRE_DATA=1`.

mod support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::{read_dump as read, run_viewer_sized, skip_without_xvfb};

/// Window size of these runs.
const SIZE: &str = "1280x960";
/// The joint twisted and fixed.
const JOINT: &str = "LowerArm.L";
/// Its twist, in degrees: past the candy wrapper.
const TWIST: &str = "LowerArm.L=170";
/// Rows of a pane left out of the comparison: its label at the top, the status line at the bottom.
const LABEL_ROWS: u32 = 44;
/// See [`LABEL_ROWS`].
const STATUS_ROWS: u32 = 34;
/// A pixel differs when a channel differs by more than this (of 255).
const CHANNEL_TOLERANCE: u8 = 8;

/// A fresh temp folder for one test.
fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dqview_twist_view_{name}_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// A path as the script and the CLI take it.
fn text(p: &Path) -> String {
    p.to_str().expect("utf-8").to_owned()
}

/// Runs the viewer on `model` with `steps` for `frames` frames, `extra` flags.
fn run_script(dir: &Path, model: &Path, steps: &[Value], frames: u64, extra: &[&str]) {
    let script = dir.join("script.json");
    std::fs::write(&script, serde_json::to_string(steps).expect("json")).expect("script");
    let frames = frames.to_string();
    let mut args = vec![
        model.to_str().expect("utf-8"),
        "--ui-script",
        script.to_str().expect("utf-8"),
        "--exit-after-frames",
        &frames,
        "--twist",
        TWIST,
    ];
    args.extend_from_slice(extra);
    run_viewer_sized(&args, SIZE);
}

/// Steps that hide the skeleton (its dots differ between a rig and its preview) and select
/// [`JOINT`] by search.
fn select_joint() -> Vec<Value> {
    vec![
        json!({"frame": 2, "do": "click", "probe": "skeleton"}),
        json!({"frame": 3, "do": "click", "probe": "joint search"}),
        json!({"frame": 4, "do": "type", "text": JOINT}),
        json!({"frame": 4, "do": "key", "key": "Enter"}),
    ]
}

/// The pixels of view `view` of the dump, inside its label and status rows, as RGB rows.
fn pane(png: &image::RgbaImage, dump: &Value, view: usize) -> Vec<Vec<[u8; 3]>> {
    let r: Vec<u32> = dump["views"][view]["rect"]
        .as_array()
        .expect("rect")
        .iter()
        .map(|v| v.as_f64().expect("coord").round() as u32)
        .collect();
    // One pixel per point at this size (no scaling under Xvfb).
    (r[1] + LABEL_ROWS..r[3] - STATUS_ROWS)
        .map(|y| {
            (r[0] + 2..r[2] - 2)
                .map(|x| {
                    let p = png.get_pixel(x, y).0;
                    [p[0], p[1], p[2]]
                })
                .collect()
        })
        .collect()
}

/// Pixels that differ between two panes of the same size.
fn differing(a: &[Vec<[u8; 3]>], b: &[Vec<[u8; 3]>]) -> usize {
    assert_eq!(a.len(), b.len(), "pane heights");
    a.iter()
        .zip(b)
        .flat_map(|(ra, rb)| {
            assert_eq!(ra.len(), rb.len(), "pane widths");
            ra.iter().zip(rb)
        })
        .filter(|(p, q)| {
            p.iter()
                .zip(q.iter())
                .any(|(x, y)| x.abs_diff(*y) > CHANNEL_TOLERANCE)
        })
        .count()
}

#[test]
fn the_twist_pane_previews_and_saves_what_twist_joints_writes() {
    let test = "the_twist_pane_previews_and_saves_what_twist_joints_writes";
    if skip_without_xvfb(test) {
        return;
    }
    let Some(characters) = support::data_dir("DQVIEW_CHARACTERS", test) else {
        return;
    };
    let dir = temp("save");
    // A copy, so the dialog's default folder (the model's) is this test's own.
    let model = dir.join("Adventurer.gltf");
    std::fs::copy(characters.join("Adventurer.gltf"), &model).expect("copy the character");
    let input_bytes = std::fs::read(&model).expect("read");
    let mut steps = select_joint();
    steps.extend([
        // Added from the Joints section, which opens the Helper joints section (it unfolds
        // over a few frames).
        json!({"frame": 6, "do": "click", "probe": "twist add selected"}),
        json!({"frame": 14, "do": "click", "probe": "helper preview"}),
        json!({"frame": 18, "do": "dump", "path": text(&dir.join("preview.json"))}),
        json!({"frame": 18, "do": "save", "path": text(&dir.join("preview.png"))}),
        json!({"frame": 19, "do": "click", "probe": "Save helper rig"}),
        json!({"frame": 22, "do": "dump", "path": text(&dir.join("dialog.json"))}),
        json!({"frame": 23, "do": "click", "probe": "dialog ok"}),
        json!({"frame": 26, "do": "dump", "path": text(&dir.join("saved.json"))}),
    ]);
    run_script(&dir, &model, &steps, 28, &[]);

    let preview = read(&dir.join("preview.json"));
    let views: Vec<(&str, bool)> = preview["views"]
        .as_array()
        .expect("views")
        .iter()
        .map(|v| (v["mode"].as_str().expect("mode"), v["twist"] == true))
        .collect();
    assert_eq!(
        views,
        [("lbs", false), ("lbs", true)],
        "LBS | LBS + helpers"
    );
    assert_eq!(
        preview["twist"]["joints"],
        json!([{"joint": JOINT, "count": 2}]),
        "{}",
        preview["twist"]
    );
    // LowerArm.L's bone: its own junction and the wrist's, each with 2 + 2 helper joints, their
    // twins (the arm rests away from its bind pose) and the aim and frame nodes; 24 clips baked.
    let build = &preview["twist"]["build"];
    assert_eq!(
        (
            &build["state"],
            &build["roll_joints"],
            &build["junctions"],
            &build["baked_clips"]
        ),
        (&json!("ready"), &json!(20), &json!(2), &json!(24)),
        "{build}"
    );
    // The panel's fitted figures: the fit lowered the distance from CoR, and each junction's
    // held-out figures are the ones the command prints (checked against its output below).
    let fit = &build["fit"];
    let (before, after) = (fit["rms_before"].as_f64(), fit["rms_after"].as_f64());
    assert!(
        matches!((before, after), (Some(b), Some(a)) if a < b),
        "{fit}"
    );
    let figures = build["figures"].as_array().expect("figures");
    let names: Vec<&str> = figures.iter().filter_map(|f| f["joint"].as_str()).collect();
    assert_eq!(names, [JOINT, "Wrist.L"], "{build}");
    let dialog = read(&dir.join("dialog.json"));
    assert_eq!(dialog["dialog"]["title"], "Save helper rig", "{dialog}");
    assert_eq!(dialog["dialog"]["name"], "Adventurer_helpers.gltf");
    assert_eq!(dialog["dialog"]["dir"], text(&dir), "the model's folder");
    let saved = read(&dir.join("saved.json"));
    let message = saved["twist"]["message"].as_str().expect("message");
    assert!(message.starts_with("wrote "), "{message}");
    assert_eq!(
        std::fs::read(&model).expect("read"),
        input_bytes,
        "the input is untouched"
    );

    // The same file as the command writes.
    let cli_dir = dir.join("cli");
    std::fs::create_dir_all(&cli_dir).expect("dir");
    let cli_out = cli_dir.join("Adventurer_helpers.gltf");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dqview"))
        .args([
            "twist-joints",
            &text(&model),
            "--out",
            &text(&cli_out),
            "--joint",
            JOINT,
        ])
        .env("DQVIEW_CACHE_DIR", dir.join("cache"))
        .output()
        .expect("run dqview");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = String::from_utf8_lossy(&out.stdout);
    for f in figures {
        let joint = f["joint"].as_str().expect("joint");
        let twist = printed_twist_170(&printed, joint);
        for (panel, cli) in f["twist_170"].as_array().expect("twist").iter().zip(twist) {
            let panel = panel.as_f64().expect("number");
            assert!(
                (panel - cli).abs() <= 5e-6,
                "{joint}: panel {panel}, command {cli}"
            );
        }
    }
    for name in ["Adventurer_helpers.gltf", "Adventurer_helpers.twist.bin"] {
        let from_viewer = std::fs::read(dir.join(name)).expect("the viewer wrote it");
        let from_cli = std::fs::read(cli_dir.join(name)).expect("the command wrote it");
        assert!(
            from_viewer == from_cli,
            "{name}: the viewer's file is not the command's"
        );
    }

    // The saved file in LBS, same window and camera: its pane is the preview's. Opened in
    // single view like the preview's run (opening frames into the panes shown) and split after.
    let saved_model = dir.join("Adventurer_helpers.gltf");
    let mut steps = select_joint();
    steps.extend([
        json!({"frame": 6, "do": "click", "probe": "view split"}),
        json!({"frame": 10, "do": "dump", "path": text(&dir.join("reopened.json"))}),
        json!({"frame": 10, "do": "save", "path": text(&dir.join("reopened.png"))}),
    ]);
    run_script(&dir, &saved_model, &steps, 12, &[]);
    let reopened = read(&dir.join("reopened.json"));
    assert_eq!(reopened["views"][0]["mode"], "lbs", "{reopened}");
    assert_eq!(
        reopened["camera"], preview["camera"],
        "one framing for a rig and its preview"
    );
    let shot = |name: &str| image::open(dir.join(name)).expect("a PNG").to_rgba8();
    let (before, after) = (shot("preview.png"), shot("reopened.png"));
    let lbs_before = pane(&before, &preview, 0);
    let twist_pane = pane(&before, &preview, 1);
    let lbs_of_file = pane(&after, &reopened, 0);
    let fixed = differing(&lbs_before, &twist_pane);
    let off = differing(&twist_pane, &lbs_of_file);
    eprintln!("{test}: LBS vs twist pane {fixed} px; twist pane vs the saved file's LBS {off} px");
    assert!(
        fixed > 100,
        "the twist joints change the twisted forearm: {fixed} px"
    );
    assert!(
        off * 5 <= fixed,
        "the pane is the saved rig's LBS: {off} px differ (the fix moves {fixed})"
    );
    if std::env::var_os("DQVIEW_KEEP_TEST_FILES").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The mean distances (LBS, LBS + helpers, DQS) the command prints for `joint` twisted 170.
fn printed_twist_170(stdout: &str, joint: &str) -> [f64; 3] {
    let mut lines = stdout
        .lines()
        .skip_while(|l| !l.starts_with(&format!("{joint} region")));
    let row = lines
        .find(|l| l.trim_start().starts_with("twisted 170"))
        .unwrap_or_else(|| panic!("no twisted 170 row for {joint} in:\n{stdout}"));
    // `twisted 170  v v v v | m (x)  m (x)  m (x)`: the three means after the bar.
    let after_bar = row.split('|').nth(1).expect("a bar");
    let means: Vec<f64> = after_bar
        .split_whitespace()
        .filter(|w| !w.starts_with('('))
        .map(|w| w.parse().expect("a number"))
        .collect();
    [means[0], means[1], means[2]]
}
