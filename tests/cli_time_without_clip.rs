//! `--time` without `--clip`, for every command with pose options (export, render, analyze, the viewer):
//! the model's only clip with a notice on stderr, or exit 1 naming the clips (several) or saying there are none.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use dqview::builtin::builtin_scene;
use dqview::scene::{Animation, write_glb};

const NOTICE: &str =
    "dqview: --time without --clip: using the model's only clip 0 \"twist_tip_180\"";

fn dqview(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dqview"))
        .args(args)
        .output()
        .expect("run dqview")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A folder with `builtin:twist` (one clip) written with no clips and with two.
struct Fixtures {
    dir: PathBuf,
    none: String,
    two: String,
}

impl Fixtures {
    fn new(test: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("dqview-{test}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let write = |name: &str, clips: usize| {
            let mut scene = builtin_scene("twist").expect("twist");
            let clip = scene.animations[0].clone();
            scene.animations = ["Walk", "Run"]
                .iter()
                .take(clips)
                .map(|name| Animation {
                    name: (*name).into(),
                    ..clip.clone()
                })
                .collect();
            let path = dir.join(name);
            std::fs::write(&path, write_glb(&scene).expect("glb")).expect("write");
            path.to_str().expect("utf-8").to_string()
        };
        let none = write("no_clips.glb", 0);
        let two = write("two_clips.glb", 2);
        Self { dir, none, two }
    }

    fn out(&self, name: &str) -> String {
        self.dir.join(name).to_str().expect("utf-8").to_string()
    }

    /// Runs `command MODEL --time 0.5 rest...` on the two-clip and no-clip models: both exit 1.
    fn assert_errors(&self, command: &[&str], rest: &[&str]) {
        for (model, needle) in [
            (
                &self.two,
                "the model has 2 clips, pick one with --clip NAME|INDEX (valid: 0: Walk, 1: Run)",
            ),
            (&self.none, "the model has no clips"),
        ] {
            let mut args = command.to_vec();
            args.extend([model.as_str(), "--time", "0.5"]);
            args.extend(rest);
            let out = dqview(&args);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
            assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
            assert!(
                err.starts_with("dqview: --time without --clip: ") && err.contains(needle),
                "{args:?}: {err}"
            );
        }
    }
}

impl Drop for Fixtures {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Whether `out` failed only for want of a GPU adapter (a loud skip unless DQVIEW_REQUIRE_GPU=1).
fn no_adapter(test: &str, out: &Output) -> bool {
    let missing = !out.status.success() && stderr(out).contains("adapter");
    if missing {
        let required = std::env::var("DQVIEW_REQUIRE_GPU").is_ok_and(|v| v == "1");
        assert!(!required, "{test}: {}", stderr(out));
        eprintln!("SKIPPED {test}: {}", stderr(out));
    }
    missing
}

#[test]
fn export_time_without_clip() {
    let f = Fixtures::new("export-time");
    let read = |path: &str| std::fs::read_to_string(path).expect("obj written");
    // One clip: used, and said so in one line; the OBJ is that of --clip 0 --time 0.5.
    let implied = f.out("implied.obj");
    let out = dqview(&[
        "export",
        "builtin:twist",
        "--time",
        "0.5",
        "--out",
        &implied,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out).lines().collect::<Vec<_>>(), [NOTICE]);
    let named = f.out("named.obj");
    let out = dqview(&[
        "export",
        "builtin:twist",
        "--clip",
        "0",
        "--time",
        "0.5",
        "--out",
        &named,
    ]);
    assert!(
        out.status.success() && stderr(&out).is_empty(),
        "{}",
        stderr(&out)
    );
    let rest = f.out("rest.obj");
    let out = dqview(&["export", "builtin:twist", "--out", &rest]);
    assert!(
        out.status.success() && stderr(&out).is_empty(),
        "{}",
        stderr(&out)
    );
    assert_eq!(read(&implied), read(&named));
    assert_ne!(
        read(&implied),
        read(&rest),
        "0.5 s into the twist is not the rest pose"
    );
    // An explicit --time 0 counts as given.
    let zero = f.out("zero.obj");
    let out = dqview(&["export", "builtin:twist", "--time", "0", "--out", &zero]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out).lines().collect::<Vec<_>>(), [NOTICE]);
    f.assert_errors(&["export"], &["--out", &f.out("never.obj")]);
    assert!(!Path::new(&f.out("never.obj")).exists());
}

#[test]
fn analyze_time_without_clip() {
    let f = Fixtures::new("analyze-time");
    let ratios = |args: &[&str]| {
        let out = dqview(args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let n = report["modes"]["dqs"]["ratios"]
            .as_array()
            .expect("ratios")
            .len();
        (n, stderr(&out))
    };
    let common = ["--json"];
    let with = |extra: &[&'static str]| {
        let mut args = vec!["analyze", "builtin:twist"];
        args.extend(extra);
        args.extend(common);
        args
    };
    // --time measures that one moment of the only clip (said on stderr); --clip samples the
    // clip; without either, the one rest pose.
    let (n, err) = ratios(&with(&["--time", "0.5"]));
    assert_eq!((n, err.lines().collect::<Vec<_>>()), (1, vec![NOTICE]));
    assert_eq!(
        ratios(&with(&["--clip", "0", "--samples", "3"])),
        (3, String::new())
    );
    assert_eq!(ratios(&with(&[])), (1, String::new()));
    f.assert_errors(&["analyze"], &common);
}

#[test]
fn render_time_without_clip() {
    let f = Fixtures::new("render-time");
    // The errors come before any GPU work.
    f.assert_errors(
        &["render"],
        &["--out", &f.out("never.png"), "--size", "64x32"],
    );
    let render = |name: &str, extra: &[&str]| {
        let path = f.out(name);
        let mut args = vec!["render", "builtin:twist", "--size", "64x32", "--out", &path];
        args.extend(extra);
        (dqview(&args), path)
    };
    let (out, implied) = render("implied.png", &["--time", "0.5"]);
    assert!(
        stderr(&out).lines().any(|l| l == NOTICE),
        "{}",
        stderr(&out)
    );
    if no_adapter("render_time_without_clip", &out) {
        return;
    }
    assert!(out.status.success(), "{}", stderr(&out));
    let (out, named) = render("named.png", &["--clip", "0", "--time", "0.5"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (out, rest) = render("rest.png", &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let pixels = |p: &str| image::open(p).expect("png").to_rgba8().into_raw();
    assert_eq!(pixels(&implied), pixels(&named));
    assert_ne!(
        pixels(&implied),
        pixels(&rest),
        "0.5 s into the twist is not the rest pose"
    );
}

#[test]
fn viewer_start_options_time_without_clip() {
    if support::skip_without_xvfb("viewer_start_options_time_without_clip") {
        return;
    }
    let f = Fixtures::new("viewer-time");
    let viewer = |model: &str| {
        Command::new("xvfb-run")
            .args(["-a", "-s", "-screen 0 640x480x24"])
            .arg(env!("CARGO_BIN_EXE_dqview"))
            .args([model, "--time", "0.5", "--exit-after-frames", "1"])
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("WAYLAND_SOCKET")
            .output()
            .expect("run xvfb-run")
    };
    let out = viewer("builtin:twist");
    if no_adapter("viewer_start_options_time_without_clip", &out) {
        return;
    }
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).lines().any(|l| l == NOTICE),
        "{}",
        stderr(&out)
    );
    for (model, needle) in [
        (&f.two, "(valid: 0: Walk, 1: Run)"),
        (&f.none, "the model has no clips"),
    ] {
        let out = viewer(model);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{model}: {err}");
        let line = err
            .lines()
            .find(|l| l.starts_with("dqview: "))
            .unwrap_or_default();
        assert!(
            line.contains("--time without --clip") && line.contains(needle),
            "{model}: {err}"
        );
    }
}
