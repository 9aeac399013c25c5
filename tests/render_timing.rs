//! `dqview render --frames` timing as written: GIF delays are whole centiseconds, so 24 fps
//! alternates 4 and 5 cs to keep the loop's length (and the "wrote" line says the rate the
//! delays make); APNG delays are fractions, exact. With `--focus`, an animation follows the
//! joint. The delays are read back from the written files.
//!
//! GPU cases run on lavapipe (`DQVIEW_REQUIRE_GPU=1` in CI); without an adapter they print
//! `SKIPPED` and pass.

mod support;

use std::path::Path;
use std::process::Output;

fn render(args: &[&str], dir: &Path) -> Output {
    let mut all = vec!["render", "builtin:twist", "--size", "48x48"];
    all.extend(args);
    let out = support::dqview_in(&all, dir);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        support::stderr_of(&out)
    );
    out
}

/// Each GIF frame's delay in milliseconds, as the file stores it.
fn gif_delays_ms(path: &Path) -> Vec<f64> {
    use image::AnimationDecoder;
    let file = std::io::BufReader::new(std::fs::File::open(path).expect("open"));
    let decoder = image::codecs::gif::GifDecoder::new(file).expect("gif header");
    decoder
        .into_frames()
        .map(|f| {
            let (numer, denom) = f.expect("frame").delay().numer_denom_ms();
            f64::from(numer) / f64::from(denom)
        })
        .collect()
}

/// Each APNG frame's delay in seconds (fcTL's fraction).
fn apng_delays_s(path: &Path) -> Vec<f64> {
    let file = std::io::BufReader::new(std::fs::File::open(path).expect("open"));
    let mut reader = png::Decoder::new(file).read_info().expect("png header");
    let frames = reader.info().animation_control.expect("APNG").num_frames;
    let mut buffer = vec![0; reader.output_buffer_size().expect("size")];
    (0..frames)
        .map(|_| {
            reader.next_frame(&mut buffer).expect("frame");
            let fc = reader.info().frame_control.expect("fcTL");
            let den = if fc.delay_den == 0 { 100 } else { fc.delay_den };
            f64::from(fc.delay_num) / f64::from(den)
        })
        .collect()
}

#[test]
fn gif_delays_add_up_to_the_asked_rate_and_the_line_says_the_rate_used() {
    if support::gpu("gif_delays_add_up_to_the_asked_rate").is_none() {
        return;
    }
    let dir = support::scratch_dir("render-gif-timing");
    for (frames, exact) in [(12usize, true), (13, false)] {
        let out = dir.join(format!("sweep{frames}.gif"));
        let n = frames.to_string();
        let run = render(
            &[
                "--sweep",
                "tip=0:90",
                "--frames",
                &n,
                "--fps",
                "24",
                "--out",
                out.to_str().expect("utf-8"),
            ],
            &dir,
        );
        let delays = gif_delays_ms(&out);
        assert_eq!(delays.len(), frames);
        assert!(
            delays.iter().all(|&d| d == 40.0 || d == 50.0),
            "whole centiseconds around 1/24 s: {delays:?}"
        );
        let total_ms: f64 = delays.iter().sum();
        let asked_ms = frames as f64 * 1000.0 / 24.0;
        // The loop is as long as 24 fps makes it, to the nearest centisecond.
        assert!(
            (total_ms - asked_ms).abs() <= 5.0,
            "{total_ms} ms for {asked_ms:.1} ms"
        );
        if exact {
            assert_eq!(
                total_ms, 500.0,
                "12 frames at 24 fps are half a second exactly"
            );
        }
        let real_fps = frames as f64 * 1000.0 / total_ms;
        let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
        let said = format!("{real_fps:.2} fps over the loop");
        assert!(stdout.contains(&said), "{said} not in {stdout}");
        assert!(stdout.contains("GIF delays 4-5 cs"), "{stdout}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn apng_delays_are_exact_fractions() {
    if support::gpu("apng_delays_are_exact_fractions").is_none() {
        return;
    }
    let dir = support::scratch_dir("render-apng-timing");
    for fps in ["24", "12.5"] {
        let out = dir.join(format!("sweep{fps}.png"));
        render(
            &[
                "--sweep",
                "tip=0:90",
                "--frames",
                "5",
                "--fps",
                fps,
                "--out",
                out.to_str().expect("utf-8"),
            ],
            &dir,
        );
        let want = 1.0 / fps.parse::<f64>().expect("fps");
        for d in apng_delays_s(&out) {
            assert!(
                (d - want).abs() < 1e-9,
                "{fps} fps: delay {d} s, not {want}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_animation_with_focus_follows_the_joint() {
    if support::gpu("an_animation_with_focus_follows_the_joint").is_none() {
        return;
    }
    let dir = support::scratch_dir("render-follow");
    let out = dir.join("follow.png");
    let o = out.to_str().expect("utf-8");
    let run = render(
        &[
            "--focus", "tip", "--sweep", "tip=0:90", "--frames", "3", "--out", o,
        ],
        &dir,
    );
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(stdout.contains("following tip over the frames"), "{stdout}");
    // A still frames the region instead.
    let run = render(&["--focus", "tip", "--twist", "tip=45", "--out", o], &dir);
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(stdout.contains("focus tip: "), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}
