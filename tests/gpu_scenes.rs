//! The GPU compute path against the CPU reference on real models: every sample model and
//! built-in rig, several clip times and twist angles, every mode. Also `dqview render` split.
//!
//! Without an adapter these tests print `SKIPPED` and pass, unless `DQVIEW_REQUIRE_GPU=1`.

mod support;

use support::{Gpu, gpu};

use std::io::Write as _;

use dqview::anim::{JointOverrides, Pose};
use dqview::model::load_model;
use dqview::scene::Scene;
use dqview::skin::{Betas, bounds, skin_scene};

/// Compares GPU and CPU skinning of `scene` at `pose` in every mode; returns the worst relative position error.
fn compare(gpu: &Gpu, what: &str, scene: &Scene, pose: &Pose) -> f32 {
    let mut worst = 0.0f32;
    for mode in dqview::skin::SkinningMode::ALL {
        let beta = 0.3;
        let cpu = skin_scene(scene, pose, mode, Betas::Uniform(beta));
        let gpu_posed = gpu
            .skin_scene(scene, pose, mode, beta)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let what = format!("{what} {mode}");
        worst = worst.max(support::assert_posed_match(&what, &cpu, &gpu_posed));
    }
    worst
}

/// Poses: rest, clip 0 at several times, and twists of the first joints with children.
fn poses(scene: &Scene) -> Vec<(String, Pose)> {
    support::test_poses(
        scene,
        &[0.0, 0.37, 0.81, 1.0],
        &[90.0, 180.0, 250.0],
        3.0,
        true,
    )
}

#[test]
fn gpu_matches_cpu_on_builtin_rigs() {
    let Some(gpu) = gpu("gpu_matches_cpu_on_builtin_rigs") else {
        return;
    };
    for name in dqview::builtin::BUILTIN_NAMES {
        let scene = load_model(&format!("builtin:{name}")).expect("builtin");
        for (what, pose) in poses(&scene) {
            compare(gpu, &format!("builtin:{name} {what}"), &scene, &pose);
        }
    }
}

#[test]
fn gpu_matches_cpu_on_sample_models() {
    let Some(gpu) = gpu("gpu_matches_cpu_on_sample_models") else {
        return;
    };
    let Some(dir) = support::data_dir("DQVIEW_SAMPLES", "gpu_matches_cpu_on_sample_models") else {
        return;
    };
    let mut checked = 0;
    for file in [
        "SimpleSkin.gltf",
        "RiggedSimple.glb",
        "RiggedFigure.glb",
        "CesiumMan.glb",
        "extras/NegativeScaleTest.glb",
        "extras/InterpolationTest.glb",
        "extras/SimpleSparseAccessor.gltf",
        "extras/AnimatedMorphCube.glb",
        "extras/BoxInterleaved.glb",
    ] {
        let scene = load_model(dir.join(file).to_str().expect("utf-8")).expect("sample loads");
        let mut worst = 0.0f32;
        for (what, pose) in poses(&scene) {
            worst = worst.max(compare(gpu, &format!("{file} {what}"), &scene, &pose));
        }
        let _ = writeln!(
            std::io::stderr(),
            "{file}: worst GPU-CPU position error {worst:e} of the diagonal"
        );
        checked += 1;
    }
    assert_eq!(checked, 9);
}

/// `dqview render builtin:twist --mode split --twist tip=180`: the LBS half pinches, the DQS half does not.
#[test]
fn split_render_shows_the_candy_wrapper() {
    if gpu("split_render_shows_the_candy_wrapper").is_none() {
        return;
    }
    let image = render_png(
        &["builtin:twist", "--mode", "split", "--twist", "tip=180"],
        "split",
    );
    let (w, h) = image.dimensions();
    assert_eq!((w, h), (512, 256));
    let background = *image.get_pixel(w / 2, h - 1);
    // Model width (pixels unlike the background) in row `y` of the half starting at `x0`.
    let width_in = |x0: u32, y: u32| {
        (x0..x0 + w / 2)
            .filter(|&x| {
                let p = image.get_pixel(x, y);
                (0..3)
                    .map(|c| (i32::from(p[c]) - i32::from(background[c])).abs())
                    .sum::<i32>()
                    > 30
            })
            .count() as i32
    };
    // Rows of the tube: find the model's vertical extent in the DQS half.
    let rows: Vec<u32> = (0..h).filter(|&y| width_in(w / 2, y) > 0).collect();
    let (top, bottom) = (rows[0], rows[rows.len() - 1]);
    let middle = (top + bottom) / 2;
    let lbs_mid = width_in(0, middle);
    let dqs_mid = width_in(w / 2, middle);
    assert!(dqs_mid > 20, "DQS middle width {dqs_mid}");
    assert!(
        lbs_mid * 3 < dqs_mid,
        "LBS should pinch at the middle: {lbs_mid} vs DQS {dqs_mid}"
    );
    // Near the untwisted base (bottom of the picture) both halves agree.
    let base = bottom - (bottom - top) / 10;
    let (lbs_base, dqs_base) = (width_in(0, base), width_in(w / 2, base));
    assert!(
        (lbs_base - dqs_base).abs() <= 2,
        "base widths {lbs_base} vs {dqs_base}"
    );
}

/// The GPU compute path against the independent golden meshes (same tolerance as the CPU test).
#[test]
fn gpu_matches_golden_meshes() {
    let Some(gpu) = gpu("gpu_matches_golden_meshes") else {
        return;
    };
    let (Some(golden), Some(samples)) = (
        support::data_dir("DQVIEW_GOLDEN", "gpu_matches_golden_meshes"),
        support::data_dir("DQVIEW_SAMPLES", "gpu_matches_golden_meshes"),
    ) else {
        return;
    };
    let index = std::fs::read_to_string(golden.join("INDEX.md")).expect("golden INDEX.md");
    let cases = support::golden_cases(&index);
    assert!(cases.len() >= 18);
    for case in &cases {
        let scene =
            load_model(samples.join(&case.model).to_str().expect("utf-8")).expect("sample loads");
        let mut pose = Pose::rest(&scene);
        pose.sample(&scene, Some(case.clip), case.time_s, &JointOverrides::new());
        let posed = gpu
            .skin_scene(&scene, &pose, case.mode, 1.0)
            .expect("gpu skinning");
        let (lo, hi) = bounds(&posed).expect("vertices");
        let tolerance = 1e-5 * (hi - lo).length();
        let text = std::fs::read_to_string(golden.join(&case.file)).expect("golden obj");
        let groups = support::obj_groups(&text);
        let skinned: Vec<_> = posed.iter().filter(|p| p.skinned).collect();
        assert_eq!(groups.len(), skinned.len(), "{}", case.file);
        for ((name, expected), mine) in groups.iter().zip(&skinned) {
            assert_eq!(
                expected.len(),
                mine.vertices.positions.len(),
                "{} {name}",
                case.file
            );
            for (v, (e, p)) in expected.iter().zip(&mine.vertices.positions).enumerate() {
                assert!(
                    (*e - *p).length() <= tolerance,
                    "{} {name} vertex {v}: GPU {p} vs golden {e}",
                    case.file
                );
            }
        }
    }
}

/// The collapse view colours the twisted LBS middle blue (volume ratio near 0) and DQS green (1).
#[test]
fn collapse_view_marks_the_candy_wrapper() {
    if gpu("collapse_view_marks_the_candy_wrapper").is_none() {
        return;
    }
    let image = render_png(
        &[
            "builtin:twist",
            "--mode",
            "split",
            "--twist",
            "tip=180",
            "--view",
            "collapse",
        ],
        "collapse",
    );
    let (w, h) = image.dimensions();
    // Just above and below the pinch, on the tube's axis, in each half.
    let sample = |x: u32, y: u32| image.get_pixel(x, y).0;
    let lbs = sample(w / 4, h / 2 - 12);
    let dqs = sample(3 * w / 4, h / 2 - 12);
    assert!(
        lbs[2] > lbs[1] && lbs[2] > lbs[0],
        "LBS near the pinch should be blue: {lbs:?}"
    );
    assert!(
        dqs[1] > dqs[0] && dqs[1] > dqs[2],
        "DQS should be green: {dqs:?}"
    );
}

/// Runs `dqview render ... --size 512x256 --out <tmp>` and decodes the PNG.
fn render_png(args: &[&str], name: &str) -> image::RgbaImage {
    let dir = std::env::temp_dir().join(format!("dqview-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let out = dir.join(format!("{name}.png"));
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_dqview"))
        .arg("render")
        .args(args)
        .args(["--size", "512x256", "--out"])
        .arg(&out)
        .output()
        .expect("run dqview");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let image = image::open(&out).expect("png").to_rgba8();
    let _ = std::fs::remove_dir_all(&dir);
    image
}
