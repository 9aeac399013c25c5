//! `dqview render` the way a rigger reviews a character: framing a joint (`--focus`, orbit
//! flags), heatmaps scaled to the pose with a colour bar, animations (APNG, GIF: clip,
//! sweep, turntable), and the errors of every new flag.
//!
//! The GPU cases run on lavapipe (`DQVIEW_REQUIRE_GPU=1` in CI); without an adapter they
//! print `SKIPPED` and pass. The character cases need `DQVIEW_CHARACTERS`.

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;

use dqview::anim::{JointAngles, JointOverrides, Pose, find_node};
use dqview::model::load_model;
use dqview::ui::{OrbitCamera, project_to_viewport};
use glam::{Vec2, Vec3};

/// The clear colour of renders, as the sRGB PNG stores it.
const BACKGROUND: [u8; 3] = [39, 39, 44];
/// Adventurer's left forearm joint.
const FOREARM: &str = "LowerArm.L";

fn render(args: &[&str], dir: &Path) -> Output {
    let mut all = vec!["render"];
    all.extend(args);
    support::dqview_in(&all, dir)
}

fn stdout_of(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The Adventurer's path, or `None` after a skip message (no data or no GPU).
fn adventurer(test: &str) -> Option<PathBuf> {
    support::gpu(test)?;
    Some(support::characters_dir(test)?.join("Adventurer.gltf"))
}

/// The orbit camera a render's "wrote" line reports (`camera yaw Y pitch P distance D target (x, y, z)`).
fn reported_camera(stdout: &str) -> OrbitCamera {
    let at = stdout
        .find("camera yaw ")
        .expect("camera in the wrote line");
    let text = &stdout[at..];
    let number = |key: &str| -> f32 {
        let rest = &text[text.find(key).expect(key) + key.len()..];
        let end = rest.find([' ', ')', ';', ',']).unwrap_or(rest.len());
        rest[..end].trim().parse().expect(key)
    };
    let target = &text[text.find("target (").expect("target") + 8..];
    let xyz: Vec<f32> = target[..target.find(')').expect(")")]
        .split(',')
        .map(|v| v.trim().parse().expect("target coordinate"))
        .collect();
    OrbitCamera {
        target: Vec3::new(xyz[0], xyz[1], xyz[2]),
        yaw: number("yaw ").to_radians(),
        pitch: number("pitch ").to_radians(),
        distance: number("distance "),
        scene_radius: 1.0,
        // A glTF file: glTF's axes.
        ..OrbitCamera::default()
    }
}

/// Where joint `name` of `model`, twisted by `twist_deg`, lands in a pane of `pane` pixels.
fn joint_in_pane(
    model: &Path,
    name: &str,
    twist_deg: f32,
    camera: &OrbitCamera,
    pane: Vec2,
) -> Vec2 {
    let scene = load_model(model.to_str().expect("utf-8")).expect("load");
    let joint = find_node(&scene, name).expect("joint");
    let mut overrides = JointOverrides::new();
    overrides.set(
        joint,
        JointAngles {
            twist_deg,
            ..JointAngles::default()
        },
    );
    let mut pose = Pose::rest(&scene);
    pose.sample(&scene, None, 0.0, &overrides);
    let world = pose.global[joint].w_axis.truncate();
    project_to_viewport(camera.clip_from_world(pane.x / pane.y), world, pane).expect("in front")
}

/// Pixel (x, y) of `image` as RGB.
fn rgb(image: &image::RgbaImage, x: u32, y: u32) -> [u8; 3] {
    let p = image.get_pixel(x, y).0;
    [p[0], p[1], p[2]]
}

/// Whether a pixel shows the mesh: neither background nor a label's box or text.
fn is_mesh(p: [u8; 3]) -> bool {
    let off = |a: [u8; 3], b: [u8; 3]| a.iter().zip(b).any(|(x, y)| x.abs_diff(y) > 6);
    off(p, BACKGROUND) && p != [20, 20, 24] && p != [240, 240, 240]
}

fn red(p: [u8; 3]) -> bool {
    p[0] > 80 && u16::from(p[0]) > 2 * u16::from(p[1]) && u16::from(p[0]) > 2 * u16::from(p[2])
}

fn blue(p: [u8; 3]) -> bool {
    p[2] > p[0] && p[2] > p[1]
}

/// The pixels of pane `pane` (of `panes`) between rows `top` and `bottom`, with their offsets
/// from `centre` in pane pixels.
fn pane_pixels(
    image: &image::RgbaImage,
    pane: u32,
    panes: u32,
    [top, bottom]: [u32; 2],
    centre: Vec2,
) -> Vec<([u8; 3], f32)> {
    let w = image.width() / panes;
    let mut out = Vec::new();
    for y in top..bottom {
        for x in 0..w {
            let d = (Vec2::new(x as f32 + 0.5, y as f32 + 0.5) - centre).length();
            out.push((rgb(image, pane * w + x, y), d));
        }
    }
    out
}

/// Renders the Adventurer's forearm twisted 170 degrees, split, focused on the forearm, with
/// `extra` flags at `size`: the image, the joint's pixel in a pane and the stdout.
fn forearm_split(
    model: &Path,
    dir: &Path,
    extra: &[&str],
    size: [u32; 2],
) -> (image::RgbaImage, Vec2, String) {
    let out = dir.join("forearm.png");
    let twist = format!("{FOREARM}=170");
    let size_text = format!("{}x{}", size[0], size[1]);
    let mut args = vec![
        model.to_str().expect("utf-8"),
        "--mode",
        "split",
        "--focus",
        FOREARM,
        "--twist",
        &twist,
        "--size",
        &size_text,
        "--out",
        out.to_str().expect("utf-8"),
    ];
    args.extend(extra);
    let run = render(&args, dir);
    assert!(run.status.success(), "{}", support::stderr_of(&run));
    let stdout = stdout_of(&run);
    let image = image::open(&out).expect("png").to_rgba8();
    let pane = Vec2::new(size[0] as f32 / 2.0, size[1] as f32);
    let elbow = joint_in_pane(model, FOREARM, 170.0, &reported_camera(&stdout), pane);
    assert!(
        elbow.cmpge(Vec2::ZERO).all() && elbow.cmplt(pane).all(),
        "the elbow {elbow} is outside the pane"
    );
    (image, elbow, stdout)
}

/// The share of pixel pairs of `a` and `b` (distance from the elbow alongside) that differ
/// clearly, among those nearer the elbow than `radius` (`near`) or not.
fn differing_share(a: &[([u8; 3], f32)], b: &[([u8; 3], f32)], radius: f32, near: bool) -> f32 {
    let pairs: Vec<bool> = a
        .iter()
        .zip(b)
        .filter(|((_, d), _)| (*d < radius) == near)
        .map(|((p, _), (q, _))| {
            p.iter()
                .zip(q)
                .map(|(x, y)| u32::from(x.abs_diff(*y)))
                .sum::<u32>()
                > 40
        })
        .collect();
    pairs.iter().filter(|&&d| d).count() as f32 / pairs.len().max(1) as f32
}

#[test]
fn focus_frames_the_forearm_and_the_halves_differ_at_the_elbow() {
    let Some(model) = adventurer("focus_frames_the_forearm") else {
        return;
    };
    let dir = support::scratch_dir("render-focus");
    let (image, elbow, _) = forearm_split(&model, &dir, &[], [256, 128]);
    // Below the labels (15 rows at scale 1).
    let rows = [16, 128];
    let lbs = pane_pixels(&image, 0, 2, rows, elbow);
    let dqs = pane_pixels(&image, 1, 2, rows, elbow);
    for (name, pixels) in [("LBS", &lbs), ("DQS", &dqs)] {
        let covered =
            pixels.iter().filter(|(p, _)| is_mesh(*p)).count() as f32 / pixels.len() as f32;
        eprintln!("{name} pane: {:.1}% covered", covered * 100.0);
        assert!(
            covered > 0.25,
            "{name}: the mesh covers {covered} of the pane"
        );
    }
    // A fifth of the pane's height at the old, tighter framing; the region now spans at most
    // FRAME_FILL (0.7) of the pane, 0.75 times the size on screen.
    let radius = 0.15 * 128.0;
    let (near, far) = (
        differing_share(&lbs, &dqs, radius, true),
        differing_share(&lbs, &dqs, radius, false),
    );
    eprintln!(
        "differing pixels: {:.1}% near the elbow, {:.1}% elsewhere",
        near * 100.0,
        far * 100.0
    );
    assert!(
        near > 0.10,
        "only {near} of the pixels near the elbow differ"
    );
    assert!(near > 3.0 * far, "near the elbow {near}, elsewhere {far}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Checks pane `p` of a 320x160 displacement render: red only near the elbow, blue elsewhere,
/// and a colour bar from blue to red with numbers under it.
fn check_heat_pane(image: &image::RgbaImage, p: u32, elbow: Vec2) {
    // Scale 1: labels take the top 15 rows; bar, numbers and title the bottom 4 + 19 + 11.
    let legend_top = 160 - 4 - dqview::render::legend_height(1);
    let pixels = pane_pixels(image, p, 2, [16, legend_top - 12], elbow);
    let mesh: Vec<_> = pixels.iter().filter(|(c, _)| is_mesh(*c)).collect();
    let radius = 0.25 * 160.0;
    let reds: Vec<f32> = mesh
        .iter()
        .filter(|(c, _)| red(*c))
        .map(|(_, d)| *d)
        .collect();
    let far: Vec<_> = mesh.iter().filter(|(_, d)| *d > radius).collect();
    let far_blue = far.iter().filter(|(c, _)| blue(*c)).count() as f32 / far.len().max(1) as f32;
    let reds_near = reds.iter().filter(|&&d| d < radius).count();
    eprintln!(
        "pane {p}: {} red pixels, {reds_near} near the elbow; {:.1}% of the rest blue",
        reds.len(),
        far_blue * 100.0
    );
    assert!(
        reds_near >= 10,
        "pane {p}: {reds_near} red pixels near the elbow"
    );
    assert!(
        reds_near as f32 >= 0.9 * reds.len() as f32,
        "pane {p}: red away from the elbow"
    );
    assert!(
        far_blue > 0.8,
        "pane {p}: only {far_blue} of the mesh away from the elbow is blue"
    );
    // The bar: blue at its left end, red at its right, numbers in white under it.
    let (x0, bar_y) = (p * 160, legend_top + 2);
    assert!(
        blue(rgb(image, x0 + 7, bar_y)),
        "{:?}",
        rgb(image, x0 + 7, bar_y)
    );
    assert!(
        red(rgb(image, x0 + 152, bar_y)),
        "{:?}",
        rgb(image, x0 + 152, bar_y)
    );
    let text = (legend_top + 6..160)
        .flat_map(|y| (x0..x0 + 160).map(move |x| (x, y)))
        .filter(|&(x, y)| rgb(image, x, y) == [240, 240, 240])
        .count();
    assert!(
        text > 60,
        "pane {p}: {text} white pixels of numbers under the bar"
    );
}

#[test]
fn displacement_is_red_at_the_elbow_blue_elsewhere_with_a_numbered_bar() {
    let Some(model) = adventurer("displacement_is_red_at_the_elbow") else {
        return;
    };
    let dir = support::scratch_dir("render-heat");
    // From the default direction, where the twisted elbow's inside faces the camera (the view
    // `--focus` picks, from the side, sees more of the forearm but less of the pinch).
    let angles = ["--yaw", "19.3", "--pitch", "13.3"];
    let (image, elbow, stdout) = forearm_split(
        &model,
        &dir,
        &[&["--view", "displacement"][..], &angles].concat(),
        [320, 160],
    );
    assert!(
        stdout.contains("% red (auto, the largest value)"),
        "{stdout}"
    );
    for p in 0..2 {
        check_heat_pane(&image, p, elbow);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The frame count an APNG declares and every frame it holds, RGBA.
fn apng_frames(path: &Path) -> (u32, Vec<Vec<u8>>) {
    let file = std::io::BufReader::new(std::fs::File::open(path).expect("open"));
    let mut reader = png::Decoder::new(file).read_info().expect("png header");
    let declared = reader
        .info()
        .animation_control
        .map(|a| a.num_frames)
        .expect("an APNG (acTL chunk)");
    let mut buffer = vec![0; reader.output_buffer_size().expect("size")];
    let frames = (0..declared)
        .map(|_| {
            let info = reader.next_frame(&mut buffer).expect("frame");
            buffer[..info.buffer_size()].to_vec()
        })
        .collect();
    (declared, frames)
}

/// Every frame of a GIF, RGBA.
fn gif_frames(path: &Path) -> Vec<Vec<u8>> {
    use image::AnimationDecoder;
    let file = std::io::BufReader::new(std::fs::File::open(path).expect("open"));
    let decoder = image::codecs::gif::GifDecoder::new(file).expect("gif header");
    decoder
        .into_frames()
        .map(|f| f.expect("frame").into_buffer().into_raw())
        .collect()
}

/// How many neighbouring frames differ in at least 1% of their bytes.
fn changing_steps(frames: &[Vec<u8>]) -> usize {
    frames
        .windows(2)
        .filter(|w| {
            let changed = w[0]
                .iter()
                .zip(&w[1])
                .filter(|(a, b)| a.abs_diff(**b) > 8)
                .count();
            changed * 100 > w[0].len()
        })
        .count()
}

#[test]
fn frames_over_a_clip_write_an_apng_and_a_gif() {
    let Some(model) = adventurer("frames_over_a_clip") else {
        return;
    };
    let dir = support::scratch_dir("render-clip");
    let model = model.to_str().expect("utf-8");
    for name in ["clip.png", "clip.gif"] {
        let out = dir.join(name);
        let run = render(
            &[
                model,
                "--clip",
                "Walk",
                "--frames",
                "12",
                "--size",
                "96x64",
                "--out",
                out.to_str().expect("utf-8"),
            ],
            &dir,
        );
        assert!(run.status.success(), "{name}: {}", support::stderr_of(&run));
        assert!(
            stdout_of(&run).contains("12 frames at"),
            "{}",
            stdout_of(&run)
        );
        let frames = if name.ends_with(".png") {
            let (declared, frames) = apng_frames(&out);
            assert_eq!(declared, 12);
            frames
        } else {
            gif_frames(&out)
        };
        assert_eq!(frames.len(), 12, "{name}");
        assert!(frames.iter().all(|f| f.len() == 96 * 64 * 4), "{name}");
        // A walk moves every step (the ends may repeat a loop's pose).
        assert!(
            changing_steps(&frames) >= 9,
            "{name}: {} of 11 steps change",
            changing_steps(&frames)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_sweep_keeps_one_heat_range_and_a_turntable_starts_at_the_still() {
    if support::gpu("a_sweep_keeps_one_heat_range").is_none() {
        return;
    }
    let dir = support::scratch_dir("render-sweep");
    let path = |name: &str| dir.join(name).to_str().expect("utf-8").to_string();
    let sweep = path("sweep.png");
    let run = render(
        &[
            "builtin:twist",
            "--mode",
            "lbs",
            "--sweep",
            "tip=0:180",
            "--frames",
            "5",
            "--view",
            "displacement",
            "--size",
            "96x96",
            "--out",
            &sweep,
        ],
        &dir,
    );
    assert!(run.status.success(), "{}", support::stderr_of(&run));
    let (declared, frames) = apng_frames(Path::new(&sweep));
    assert_eq!((declared, frames.len()), (5, 5));
    assert_eq!(changing_steps(&frames), 4);
    // One range for all frames (the largest, at 180 degrees): the untwisted first frame has
    // no red on the mesh, the last one has.
    let reds = |f: &[u8]| {
        f.chunks_exact(4)
            .take(96 * 60)
            .filter(|p| red([p[0], p[1], p[2]]))
            .count()
    };
    assert_eq!(reds(&frames[0]), 0);
    assert!(reds(&frames[4]) > 20, "{}", reds(&frames[4]));
    // A turntable's first frame is the still of the same flags, pixel for pixel; then it turns.
    let still = path("still.png");
    let turn = path("turn.png");
    for (out, extra) in [
        (&still, vec![]),
        (&turn, vec!["--turntable", "--frames", "4"]),
    ] {
        let mut args = vec![
            "builtin:arm",
            "--mode",
            "split",
            "--yaw",
            "-30",
            "--pitch",
            "20",
            "--size",
            "128x64",
            "--out",
            out,
        ];
        args.extend(extra);
        let run = render(&args, &dir);
        assert!(run.status.success(), "{}", support::stderr_of(&run));
    }
    let still = image::open(&still).expect("png").to_rgba8().into_raw();
    let (_, turn) = apng_frames(Path::new(&turn));
    assert_eq!(turn.len(), 4);
    assert!(
        turn[0] == still,
        "the turntable's first frame differs from the still"
    );
    assert_eq!(changing_steps(&turn), 3);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Flags `render builtin:twist` refuses, and what the one line of error says.
const BAD_FLAGS: &[(&[&str], &str)] = &[
    (
        &["--frames", "12", "--turntable", "--out", "x.jpg"],
        "--out must end in .png",
    ),
    (
        &["--frames", "0", "--turntable"],
        "--frames must be from 2 to 600, got 0",
    ),
    (
        &["--frames", "601", "--turntable"],
        "--frames must be from 2 to 600",
    ),
    (
        &["--frames", "-3", "--turntable"],
        "--frames must be from 2 to 600",
    ),
    (&["--frames", "5"], "nothing moves"),
    (
        &["--clip", "0", "--time", "0.5", "--frames", "5"],
        "nothing moves",
    ),
    (
        &["--sweep", "tip=0:90"],
        "--sweep animates a render: give --frames N",
    ),
    (&["--turntable"], "--turntable animates a render"),
    (
        &["--from", "0.1", "--frames", "4", "--turntable"],
        "--from/--to are seconds of a clip",
    ),
    (
        &["--clip", "0", "--time", "0.5", "--to", "1", "--frames", "4"],
        "--time holds the clip",
    ),
    (
        &[
            "--clip", "0", "--from", "0.5", "--to", "0.2", "--frames", "4",
        ],
        "must come before --to",
    ),
    (
        &["--clip", "0", "--to", "99", "--frames", "4"],
        "--to must be seconds from 0",
    ),
    (
        &["--fps", "0", "--frames", "4", "--turntable"],
        "--fps must be from 1 to 50",
    ),
    (
        &["--sweep", "nosuch=0:90", "--frames", "4"],
        "--sweep: unknown joint `nosuch`; did you mean",
    ),
    (
        &["--sweep", "tip=0:x", "--frames", "4"],
        "not a finite number of degrees",
    ),
    (
        &["--focus", "nosuch"],
        "--focus: unknown joint `nosuch`; did you mean",
    ),
    (&["--focus", "2"], "is not a joint"),
    (&["--yaw", "nan"], "--yaw must be a finite number"),
    (&["--pitch", "90"], "inside (-90, 90), got 90"),
    (&["--pitch", "-91"], "inside (-90, 90)"),
    (
        &["--distance", "0"],
        "--distance must be a finite number of model units above 0",
    ),
    (&["--distance", "-2"], "above 0"),
    (&["--distance", "inf"], "above 0"),
    (
        &["--range", "0.02"],
        "only the displacement, collapse and cor-distance views have a range",
    ),
    (
        &["--view", "displacement", "--range", "p0"],
        "the percentile must be above 0",
    ),
    (
        &["--view", "collapse", "--range", "1.2:0.8"],
        "LO must be below HI",
    ),
    (
        &["--view", "collapse", "--range", "lots"],
        "expected auto, pNN",
    ),
];

#[test]
fn bad_camera_range_and_motion_flags_are_one_clear_error() {
    let dir = support::scratch_dir("render-bad");
    let out = dir.join("never.png");
    let out = out.to_str().expect("utf-8");
    for (flags, needle) in BAD_FLAGS {
        let mut args = vec!["builtin:twist", "--size", "32x32"];
        if !flags.contains(&"--out") {
            args.extend(["--out", out]);
        }
        args.extend(*flags);
        let run = render(&args, &dir);
        let err = support::stderr_of(&run);
        assert_eq!(run.status.code(), Some(1), "{flags:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{flags:?}: {err}");
        assert!(err.contains(needle), "{flags:?}: {err}");
        assert!(!Path::new(out).exists(), "{flags:?} wrote a file");
    }
    // A joint that moves no vertex: the Adventurer's pole target.
    if let Some(model) = adventurer("focus_on_a_joint_without_weights") {
        let run = render(
            &[
                model.to_str().expect("utf-8"),
                "--focus",
                "PT.L",
                "--out",
                out,
            ],
            &dir,
        );
        let err = support::stderr_of(&run);
        assert_eq!(run.status.code(), Some(1), "{err}");
        assert!(
            err.contains("--focus: joint `PT.L` (node 58) influences no vertex"),
            "{err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
