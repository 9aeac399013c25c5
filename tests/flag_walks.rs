//! No flag silently ignored: for every command, each flag either changes the output (its
//! file, or its stdout with times left out) against the run without it, or is refused
//! with an error that says why. Small built-in rigs and small images keep this fast; the
//! GPU commands run on whatever adapter there is (lavapipe in CI) and skip loudly without one.
//!
//! `--beta` and `--hybrid-auto` are left out here: their rule is the hybrid betas rule
//! (issue 22 item 1), tested with it.

mod support;

use std::path::PathBuf;
use std::process::Output;

use support::{dqview_in, scratch_dir, stderr_of};

/// A scratch folder (outputs, CoR cache) and the model files written into it.
struct Walk {
    dir: PathBuf,
    /// `builtin:arm` written as a file (the load flags need one).
    arm: String,
}

/// What a run left: success, stdout without times, the output file's bytes.
#[derive(Debug, PartialEq)]
struct Outcome {
    ok: bool,
    text: String,
    file: Vec<u8>,
}

impl Walk {
    fn new(test: &str) -> Self {
        let dir = scratch_dir(test);
        let arm = dir.join("arm.glb");
        let glb = dqview::builtin::builtin_glb("arm").expect("arm");
        std::fs::write(&arm, glb).expect("write arm");
        let arm = arm.to_str().expect("utf-8").to_string();
        Self { dir, arm }
    }

    fn path(&self, name: &str) -> String {
        self.dir.join(name).to_str().expect("utf-8").to_string()
    }

    fn run(&self, args: &[&str]) -> Output {
        dqview_in(args, &self.dir.join("cache"))
    }

    /// Runs `args`, with `out` removed first and read after.
    fn outcome(&self, args: &[&str], out: Option<&str>) -> Outcome {
        if let Some(out) = out {
            let _ = std::fs::remove_file(out);
        }
        let o = self.run(args);
        assert!(
            o.status.success() || o.status.code() == Some(1),
            "{args:?} crashed: {o:?}"
        );
        let file = out.and_then(|p| std::fs::read(p).ok()).unwrap_or_default();
        Outcome {
            ok: o.status.success(),
            text: without_times(&String::from_utf8_lossy(&o.stdout)),
            file: without_html_timing(file),
        }
    }

    /// Asserts `base` with `flag` succeeds and differs from `base` in stdout or in `out`.
    fn changes(&self, base: &[&str], flag: &[&str], out: Option<&str>) {
        let before = self.outcome(base, out);
        assert!(before.ok, "{base:?} failed");
        let args = with(base, flag);
        let after = self.outcome(&args, out);
        assert!(after.ok, "{args:?} failed: {}", stderr_of(&self.run(&args)));
        assert_ne!(before, after, "{flag:?} changed nothing: {args:?}");
    }

    /// Asserts `args` fails with exit status 1 or 2 and one stderr line containing `why`.
    fn refused(&self, args: &[&str], why: &str) {
        let o = self.run(args);
        let err = stderr_of(&o);
        assert!(
            matches!(o.status.code(), Some(1 | 2)),
            "{args:?} was not refused: {err}"
        );
        assert!(err.contains(why), "{args:?}: expected `{why}` in: {err}");
    }

    /// True (and a loud note) when `args` fails for want of a GPU adapter.
    fn no_gpu(&self, test: &str, args: &[&str]) -> bool {
        let o = self.run(args);
        let err = stderr_of(&o);
        if o.status.success() || !err.contains("GPU adapter") {
            return false;
        }
        let required = std::env::var("DQVIEW_REQUIRE_GPU").is_ok_and(|v| v == "1");
        assert!(!required, "no adapter, and DQVIEW_REQUIRE_GPU=1: {err}");
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {err}");
        true
    }
}

/// Flags that may be given more than once (the others are replaced, not repeated).
const REPEATABLE: [&str; 5] = ["--twist", "--bend", "--roll", "--sweep", "--bend-sweep"];

/// `base` with `flag` added; a single-valued flag `base` already has takes the new value.
fn with<'a>(base: &[&'a str], flag: &[&'a str]) -> Vec<&'a str> {
    let name = flag.first().copied().unwrap_or("");
    let mut args: Vec<&str> = base.to_vec();
    if !REPEATABLE.contains(&name)
        && let Some(at) = args.iter().position(|a| *a == name)
    {
        args.drain(at..(at + 2).min(args.len()));
    }
    args.extend_from_slice(flag);
    args
}

/// `text` with every `NUMBER s` (a duration) replaced by `# s`.
fn without_times(text: &str) -> String {
    let mut out = Vec::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split(' ').collect();
        let kept: Vec<&str> = words
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let next = words.get(i + 1).copied().unwrap_or("");
                let unit = next == "s" || next.starts_with("s,") || next.starts_with("s;");
                if unit && w.parse::<f64>().is_ok() {
                    "#"
                } else {
                    w
                }
            })
            .collect();
        out.push(kept.join(" "));
    }
    out.join("\n")
}

/// A report page without its timing section (the rest of a file as it is).
fn without_html_timing(mut file: Vec<u8>) -> Vec<u8> {
    let marker = b"<h2 id=\"timing\">";
    if let Some(at) = file.windows(marker.len()).position(|w| w == marker) {
        file.truncate(at);
    }
    file
}

#[test]
fn inspect_flags_each_change_the_output_or_are_refused() {
    let w = Walk::new("flags_inspect");
    let base = ["inspect", w.arm.as_str()];
    w.changes(&base, &["--json"], None);
    w.refused(
        &[&base[..], &["--max-vertices", "10"]].concat(),
        "--max-vertices",
    );
    w.refused(
        &[&base[..], &["--max-joints", "2"]].concat(),
        "--max-joints",
    );
    w.refused(
        &[&base[..], &["--max-buffer-bytes", "64"]].concat(),
        "--max-buffer-bytes",
    );
    // Outside URIs: refused without the flag, read with it.
    let inner = w.dir.join("inner");
    std::fs::create_dir_all(&inner).expect("folder");
    std::fs::write(w.dir.join("outside.bin"), [0u8; 4]).expect("bin");
    let gltf = inner.join("model.gltf");
    let doc = r#"{"asset":{"version":"2.0"},"buffers":[{"uri":"../outside.bin","byteLength":4}],
        "bufferViews":[{"buffer":0,"byteLength":4}]}"#;
    std::fs::write(&gltf, doc).expect("gltf");
    let gltf = gltf.to_str().expect("utf-8");
    w.refused(&["inspect", gltf], "--allow-external-uris");
    assert!(
        w.run(&["inspect", gltf, "--allow-external-uris"])
            .status
            .success()
    );
    // A built-in rig reads no file: the load flags are refused, not ignored.
    w.refused(
        &["inspect", "builtin:arm", "--max-vertices", "10"],
        "--max-vertices limits loading a file; builtin:arm is made by code",
    );
}

#[test]
fn export_flags_each_change_the_output_or_are_refused() {
    let w = Walk::new("flags_export");
    let obj = w.path("posed.obj");
    let base = ["export", "builtin:arm", "--out", obj.as_str()];
    let out = Some(obj.as_str());
    for flag in [
        &["--mode", "lbs"][..],
        &["--mode", "hybrid"],
        &["--clip", "0", "--time", "1.5"],
        &["--time", "1.5"],
        &["--twist", "forearm_twist=90"],
        &["--bend", "elbow=60"],
        &["--roll", "elbow=60"],
        &["--bulge-compensation", "0.8", "--twist", "elbow=120"],
    ] {
        w.changes(&base, flag, out);
    }
    let cor = [
        &base[..],
        &["--mode", "cor", "--twist", "forearm_twist=120"],
    ]
    .concat();
    for flag in [
        &["--cor-sigma", "0.02"][..],
        &["--cor-method", "naive"],
        &["--cor-bins", "4"],
        &["--cor-no-subdivide"],
    ] {
        w.changes(&cor, flag, out);
    }
    let o = w.run(&[&cor[..], &["--no-cor-cache"]].concat());
    assert!(
        stderr_of(&o).contains("recomputed (--no-cor-cache)"),
        "{o:?}"
    );
    w.refused(
        &[&base[..], &["--cor-sigma", "0.3"]].concat(),
        "--cor-sigma sets up the CoR precompute, but the mode is dqs",
    );
    w.refused(
        &[&base[..], &["--mode", "lbs", "--bulge-compensation", "0.5"]].concat(),
        "corrects DQS only",
    );
    w.refused(
        &[&base[..], &["--max-joints", "3"]].concat(),
        "made by code",
    );
    let gpu = [&base[..], &["--gpu"]].concat();
    if !w.no_gpu("export_flags_each_change_the_output_or_are_refused", &gpu) {
        w.changes(&base, &["--gpu"], out);
    }
}

#[test]
fn analyze_flags_each_change_the_output_or_are_refused() {
    let w = Walk::new("flags_analyze");
    let base = ["analyze", "builtin:arm"];
    let clip = ["analyze", "builtin:arm", "--clip", "0"];
    w.changes(&base, &["--clip", "0"], None);
    w.changes(&clip, &["--samples", "5"], None);
    w.changes(&base, &["--json"], None);
    w.changes(&base, &["--joint", "elbow"], None);
    for flag in [
        &["--twist", "forearm_twist=120"][..],
        &["--bend", "elbow=90"],
        &["--roll", "elbow=90"],
        &["--bulge-compensation", "0.8"],
    ] {
        w.changes(&[&base[..], &["--twist", "elbow=100"]].concat(), flag, None);
    }
    let posed = [
        &base[..],
        &["--twist", "forearm_twist=150", "--bend", "elbow=90"],
    ]
    .concat();
    for flag in [&["--cor-sigma", "0.02"][..], &["--cor-no-subdivide"]] {
        w.changes(&posed, flag, None);
    }
    // --time measures that one moment of the clip, not the whole clip.
    w.changes(&clip, &["--time", "1.5"], None);
    let o = w.run(&[&clip[..], &["--time", "1.5", "--json"]].concat());
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(json["times"], serde_json::json!([1.5]), "{json}");
    let moment = w.outcome(
        &[&clip[..], &["--time", "1.5", "--joint", "elbow"]].concat(),
        None,
    );
    assert!(moment.text.contains("samples     1"), "{}", moment.text);
    w.refused(
        &[&clip[..], &["--time", "1", "--samples", "5"]].concat(),
        "--time measures one moment",
    );
    w.refused(&[&base[..], &["--samples", "5"]].concat(), "add --clip");
    w.refused(
        &[&base[..], &["--mode", "lbs"]].concat(),
        "every mode is measured",
    );
    w.refused(
        &[
            &base[..],
            &["--joint", "elbow", "--bulge-compensation", "0.5"],
        ]
        .concat(),
        "does not apply to analyze --joint",
    );
    let o = w.run(&[&base[..], &["--no-cor-cache"]].concat());
    assert!(
        stderr_of(&o).contains("recomputed (--no-cor-cache)"),
        "{o:?}"
    );
}

#[test]
fn render_flags_each_change_the_output_or_are_refused() {
    let w = Walk::new("flags_render");
    let png = w.path("out.png");
    let base = [
        "render",
        "builtin:arm",
        "--out",
        png.as_str(),
        "--size",
        "96x64",
    ];
    if w.no_gpu("render_flags_each_change_the_output_or_are_refused", &base) {
        return;
    }
    let out = Some(png.as_str());
    for flag in [
        &["--size", "80x64"][..],
        &["--view", "normals"],
        &["--focus", "elbow"],
        &["--yaw", "90"],
        &["--pitch", "40"],
        &["--distance", "9"],
        &["--mode", "split"],
        &["--time", "1.5"],
        &["--twist", "forearm_twist=120"],
        &["--bend", "elbow=90"],
        &["--roll", "elbow=90"],
        &["--frames", "2", "--turntable"],
        &["--mode", "cor", "--twist", "forearm_twist=120"],
        &["--bulge-compensation", "1", "--twist", "forearm_twist=150"],
        &["--view", "mask"],
        &["--view", "cor-distance", "--twist", "forearm_twist=120"],
    ] {
        w.changes(&base, flag, out);
    }
    // --outline draws the focus joint's region; without --focus there is none.
    let focused = [&base[..], &["--focus", "elbow"]].concat();
    w.changes(&focused, &["--outline"], out);
    w.refused(&[&base[..], &["--outline"]].concat(), "give --focus JOINT");
    // --camera-out writes its own file (the image stays as it was), one camera, one pane.
    let camera = w.path("camera.json");
    w.changes(
        &base,
        &["--camera-out", camera.as_str()],
        Some(camera.as_str()),
    );
    w.refused(
        &[
            &base[..],
            &["--camera-out", camera.as_str(), "--mode", "split"],
        ]
        .concat(),
        "--camera-out writes one pane's camera",
    );
    w.refused(
        &[
            &base[..],
            &[
                "--camera-out",
                camera.as_str(),
                "--frames",
                "2",
                "--turntable",
            ],
        ]
        .concat(),
        "this animation's camera moves",
    );
    let weights = [&base[..], &["--view", "weights"]].concat();
    w.changes(&weights, &["--joint", "wrist"], out);
    let heat = [&base[..], &["--view", "displacement", "--mode", "split"]].concat();
    w.changes(
        &[&heat[..], &["--bend", "elbow=90"]].concat(),
        &["--range", "0.5%"],
        out,
    );
    let anim = [&base[..], &["--frames", "3", "--clip", "0"]].concat();
    for flag in [&["--from", "1"][..], &["--to", "1"], &["--fps", "7"]] {
        w.changes(&anim, flag, out);
    }
    w.changes(&anim, &["--sweep", "forearm_twist=0:90"], out);
    // The CoR precompute flags move vertices by less than a pixel at this size; `export`
    // checks them (the same `CorArgs::centers`), this checks they are refused without CoR.
    w.refused(
        &[&base[..], &["--joint", "wrist"]].concat(),
        "--view weights shows",
    );
    w.refused(&[&base[..], &["--range", "p90"]].concat(), "range");
    w.refused(&[&base[..], &["--fps", "10"]].concat(), "give --frames");
    w.refused(
        &[&base[..], &["--cor-bins", "8"]].concat(),
        "--cor-bins sets up the CoR precompute, but no pane of this render is CoR",
    );
}

#[test]
fn blend_flags_each_change_the_output_or_are_refused() {
    let w = Walk::new("flags_blend");
    let json = w.path("map.json");
    let base = [
        "blend",
        "builtin:arm",
        "--out",
        json.as_str(),
        "--clip",
        "0",
        "--samples",
        "3",
    ];
    let out = Some(json.as_str());
    for flag in [
        &["--samples", "4"][..],
        &["--sweep", "forearm_twist=0:150"],
        &["--bend-sweep", "elbow=0:120"],
        &["--smooth", "3"],
        &["--cor-sigma", "0.02"],
        &["--cor-bins", "4"],
    ] {
        w.changes(&base, flag, out);
    }
    let glb = w.path("map.glb");
    w.refused(
        &[
            "blend",
            "builtin:arm",
            "--out",
            &glb,
            "--clip",
            "0",
            "--format",
            "json",
        ],
        ".json",
    );
    w.refused(
        &[&base[..], &["--bulge-compensation", "0.5"]].concat(),
        "no effect",
    );
    w.refused(
        &[&base[..], &["--max-vertices", "5"]].concat(),
        "made by code",
    );
}

#[test]
fn cor_flags_each_change_the_output_or_are_refused() {
    let w = Walk::new("flags_cor");
    let glb = w.path("arm_cor.glb");
    let base = ["cor", w.arm.as_str(), "--out", glb.as_str()];
    let out = Some(glb.as_str());
    for flag in [
        &["--cor-sigma", "0.02"][..],
        &["--cor-bins", "4"],
        &["--cor-method", "exact"],
        &["--cor-no-subdivide"],
    ] {
        w.changes(&base, flag, out);
    }
    // Recomputing changes no number, so the run says it did.
    let o = w.run(&with(&base, &["--no-cor-cache"]));
    assert!(o.status.success(), "{}", stderr_of(&o));
    assert!(stderr_of(&o).contains("recomputed (--no-cor-cache)"));
    w.refused(
        &[&base[..], &["--bulge-compensation", "0.5"]].concat(),
        "no effect on cor",
    );
    w.refused(
        &["cor", "builtin:arm", "--out", &w.path("arm.json")],
        "_COR_CENTER",
    );
    w.refused(
        &[&base[..], &["--max-vertices", "5"]].concat(),
        "more than the limit of 5",
    );
}

#[test]
fn report_flags_each_change_the_output_or_are_refused() {
    let w = Walk::new("flags_report");
    let html = w.path("report.html");
    let base = [
        "report",
        "builtin:arm",
        "--out",
        &html,
        "--no-renders",
        "--samples",
        "3",
        "--fit-samples",
        "2",
    ];
    let out = Some(html.as_str());
    for flag in [
        &["--samples", "4"][..],
        &["--fit-samples", "3"],
        &["--regions", "1"],
        &["--twist", "forearm_twist=90"],
        &["--cor-sigma", "0.02"],
    ] {
        w.changes(&base, flag, out);
    }
    for (flag, why) in [
        (&["--mode", "lbs"][..], "does not apply to report"),
        (&["--time", "1"], "does not apply to report"),
        (&["--bulge-compensation", "0.5"], "does not apply to report"),
        (&["--renders", "1"], "no effect with --no-renders"),
        (&["--size", "200x60"], "no effect with --no-renders"),
        (&["--max-joints", "2"], "made by code"),
    ] {
        w.refused(&[&base[..], flag].concat(), why);
    }
    let rendered = [
        "report",
        "builtin:arm",
        "--out",
        &html,
        "--samples",
        "3",
        "--fit-samples",
        "2",
        "--renders",
        "0",
    ];
    if !w.no_gpu(
        "report_flags_each_change_the_output_or_are_refused",
        &rendered,
    ) {
        w.changes(&rendered, &["--renders", "1", "--size", "160x60"], out);
    }
}

#[test]
fn check_flags_each_change_the_output_or_are_refused() {
    let w = Walk::new("flags_check");
    let base = ["check", w.arm.as_str()];
    w.changes(&base, &["--json"], None);
    w.changes(&base, &["--min-volume-ratio", "1"], None);
    let limited = w.outcome(&[&base[..], &["--max-vertices", "10"]].concat(), None);
    assert!(
        !limited.ok && limited.text.contains("load_error"),
        "{limited:?}"
    );
    let strict = w.outcome(
        &[&base[..], &["--min-volume-ratio", "1", "--strict"]].concat(),
        None,
    );
    assert!(!strict.ok, "a warning fails the file with --strict");
    let o = w.run(&[&base[..], &["--jobs", "1"]].concat());
    assert!(stderr_of(&o).contains("with 1 jobs"), "{o:?}");
    w.refused(&[&base[..], &["--samples", "1"]].concat(), "2 to 10000");
}

#[test]
fn bench_flags_each_change_the_output_or_are_refused() {
    let w = Walk::new("flags_bench");
    let base = [
        "bench",
        "--vertices",
        "400",
        "--frames",
        "2",
        "--size",
        "64x64",
        "--json",
    ];
    if w.no_gpu("bench_flags_each_change_the_output_or_are_refused", &base) {
        return;
    }
    let field = |args: &[&str], key: &str| -> serde_json::Value {
        let o = w.run(args);
        assert!(o.status.success(), "{args:?}: {}", stderr_of(&o));
        let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        json.pointer(key).cloned().unwrap_or_default()
    };
    for (flag, key) in [
        (&["--vertices", "800"][..], "/vertices"),
        (&["--joints", "8"], "/cpu/joints"),
        (&["--frames", "3"], "/frames"),
        (&["--size", "80x64"], "/size"),
        (&["--path", "compute"], "/path"),
        (&["--instances", "2"], "/instances"),
    ] {
        assert_ne!(
            field(&base, key),
            field(&with(&base, flag), key),
            "{flag:?}"
        );
    }
    w.refused(
        &["bench", "builtin:arm", "--vertices", "400"],
        "--vertices sizes the generated rig",
    );
    w.refused(
        &[&base[..], &["--max-vertices", "5"]].concat(),
        "without one a rig is generated",
    );
}

#[test]
fn builtin_and_viewer_flags_are_used_or_refused_before_a_window_opens() {
    let w = Walk::new("flags_builtin_viewer");
    let glb = w.path("rig.glb");
    let base = ["builtin", "arm", "--out", glb.as_str()];
    let twist = ["builtin", "twist", "--out", glb.as_str()];
    assert_ne!(w.outcome(&base, Some(&glb)), w.outcome(&twist, Some(&glb)));
    w.refused(&["builtin", "nope", "--out", &glb], "nope");
    // The viewer's CoR uses its defaults: precompute flags are refused, not ignored.
    w.refused(
        &["builtin:arm", "--cor-sigma", "0.3"],
        "the viewer precomputes CoR with the defaults",
    );
    // Viewer flags before a subcommand would be lost on it: clap refuses them.
    w.refused(
        &["--view", "split", "inspect", "builtin:arm"],
        "cannot be used with",
    );
}

/// The viewer's last frame under xvfb-run with `flags`, as PNG bytes.
fn viewer_frame(w: &Walk, flags: &[&str]) -> Vec<u8> {
    let shot = w.path("viewer.png");
    let _ = std::fs::remove_file(&shot);
    let o = std::process::Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 640x480x24"])
        .arg(env!("CARGO_BIN_EXE_dqview"))
        .args([
            "builtin:arm",
            "--screenshot",
            &shot,
            "--exit-after-frames",
            "2",
        ])
        .args(flags)
        .env("DQVIEW_CACHE_DIR", w.dir.join("cache"))
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET")
        .output()
        .expect("run xvfb-run");
    assert!(o.status.success(), "viewer {flags:?}: {}", stderr_of(&o));
    std::fs::read(&shot).expect("screenshot")
}

#[test]
fn viewer_flags_each_change_the_window() {
    if support::skip_without_xvfb("viewer_flags_each_change_the_window") {
        return;
    }
    let w = Walk::new("flags_viewer");
    // Wide enough for a viewport beside the panel: each flag must change the model's picture
    // (a narrower window showed only the panel, and a clip's time only where the panel reached).
    let size = ["--window-size", "640x360"];
    let base = viewer_frame(&w, &size);
    let twisted = [&size[..], &["--twist", "forearm_twist=150"]].concat();
    for flag in [
        &["--window-size", "600x360"][..],
        &["--view", "split"],
        &["--shading", "weights"],
        &["--clip", "0", "--time", "1.5"],
        &["--twist", "forearm_twist=150"],
    ] {
        let args = with(&size, flag);
        assert_ne!(viewer_frame(&w, &args), base, "{flag:?}");
    }
    let twisted_frame = viewer_frame(&w, &twisted);
    for flag in [&["--mode", "lbs"][..], &["--bulge-compensation", "1"]] {
        let args = [&twisted[..], flag].concat();
        assert_ne!(viewer_frame(&w, &args), twisted_frame, "{flag:?}");
    }
}
