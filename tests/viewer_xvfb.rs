//! The viewer window under Xvfb: a scripted split-view run writes its own swapchain image.
//!
//! Skipped (loudly) where `xvfb-run` is missing, unless `DQVIEW_REQUIRE_DISPLAY=1`.

mod support;

use std::path::Path;

use support::{run_viewer, skip_without_xvfb};

/// Pixels of `img` in the column range `x0..x1` and row range `y0..y1`.
fn region(img: &image::RgbaImage, x0: u32, x1: u32, y0: u32, y1: u32) -> Vec<[u8; 3]> {
    let mut v = Vec::new();
    for y in y0..y1 {
        for x in x0..x1 {
            let p = img.get_pixel(x, y).0;
            v.push([p[0], p[1], p[2]]);
        }
    }
    v
}

/// Distinct colours in `pixels` (a uniform region has one).
fn distinct(pixels: &[[u8; 3]]) -> usize {
    let mut v = pixels.to_vec();
    v.sort_unstable();
    v.dedup();
    v.len()
}

/// Pixels of the shaded mesh: it is coloured (channels spread apart), while the background
/// and grid are grey; the thin skeleton lines add a few hundred at most.
fn model_pixels(pixels: &[[u8; 3]]) -> usize {
    pixels
        .iter()
        .filter(|p| {
            let (lo, hi) = (p.iter().min().unwrap_or(&0), p.iter().max().unwrap_or(&0));
            hi - lo > 25
        })
        .count()
}

/// Column where the panel ends: the first column, from the left, whose top-right
/// neighbourhood is the viewport background (the 3D clear colour).
fn viewport_left(img: &image::RgbaImage, background: [u8; 3]) -> u32 {
    (0..img.width())
        .find(|&x| {
            let p = img.get_pixel(x, img.height() / 2).0;
            [p[0], p[1], p[2]] == background && x > 50
        })
        .unwrap_or(0)
}

#[test]
fn split_view_screenshot_shows_panel_and_both_halves() {
    if skip_without_xvfb("split_view_screenshot_shows_panel_and_both_halves") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("dqview_viewer_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("split.png");
    run_viewer(&[
        "builtin:twist",
        "--view",
        "split",
        "--twist",
        "tip=180",
        "--screenshot",
        png.to_str().unwrap(),
        "--exit-after-frames",
        "5",
    ]);
    check_split(&png);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The checks on the split-view image.
fn check_split(png: &Path) {
    let img = image::open(png).expect("decode the screenshot").to_rgba8();
    let (w, h) = img.dimensions();
    assert!(w >= 640 && h >= 360, "window image is {w}x{h}");
    // The top-right corner is 3D background (above the model, right of the panel).
    let corner = img.get_pixel(w - 3, 40).0;
    let background = [corner[0], corner[1], corner[2]];
    let left = viewport_left(&img, background);
    assert!(left > 100 && left < w / 2, "panel ends at x = {left}");
    // The panel has text and widgets: many colours, not one fill.
    let panel = region(&img, 0, left - 5, 0, h);
    assert!(
        distinct(&panel) > 20,
        "panel region looks empty ({} colours)",
        distinct(&panel)
    );
    // Both halves of the viewport show the model.
    let mid = left + (w - left) / 2;
    let (y0, y1) = (h / 8, h * 7 / 8);
    let lhs = region(&img, left + 5, mid - 5, y0, y1);
    let rhs = region(&img, mid + 5, w - 5, y0, y1);
    let (nl, nr) = (model_pixels(&lhs), model_pixels(&rhs));
    assert!(nl > 5000, "left (LBS) half has only {nl} model pixels");
    assert!(nr > 5000, "right (DQS) half has only {nr} model pixels");
    // At a 180 degree twist LBS collapses the middle and DQS does not: the halves differ there.
    let half_w = mid - left;
    let band = |x0: u32| region(&img, x0 + half_w / 4, x0 + half_w * 3 / 4, h / 4, h * 3 / 4);
    let (bl, br) = (band(left), band(mid));
    let differing = bl.iter().zip(&br).filter(|(a, b)| a != b).count();
    assert!(
        differing > bl.len() / 50,
        "LBS and DQS halves look alike in the middle ({differing} of {} pixels differ)",
        bl.len()
    );
}

/// Pixels in the error colour of the panel (a light red, 255/110/100).
fn error_text_pixels(img: &image::RgbaImage, panel_right: u32) -> usize {
    region(img, 0, panel_right, 0, img.height())
        .iter()
        .filter(|p| p[0] > 180 && p[1] < 150 && p[2] < 140 && p[0] - p[1].max(p[2]) > 60)
        .count()
}

#[test]
fn lost_device_is_recreated_and_the_model_drawn_again() {
    if skip_without_xvfb("lost_device_is_recreated_and_the_model_drawn_again") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("dqview_viewer_lost_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("after_loss.png");
    // The device is destroyed after frame 2; frames 3..6 come from a new device.
    run_viewer(&[
        "builtin:twist",
        "--view",
        "split",
        "--twist",
        "tip=180",
        "--lose-device-at-frame",
        "2",
        "--screenshot",
        png.to_str().unwrap(),
        "--exit-after-frames",
        "6",
    ]);
    check_split(&png);
    let img = image::open(&png).unwrap().to_rgba8();
    let red = error_text_pixels(&img, 300);
    assert!(
        red > 100,
        "no device-lost notice in the panel ({red} red pixels)"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn broken_shader_file_is_reported_and_the_builtin_shaders_draw() {
    if skip_without_xvfb("broken_shader_file_is_reported_and_the_builtin_shaders_draw") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("dqview_viewer_shader_{}", std::process::id()));
    let shaders = dir.join("shaders");
    std::fs::create_dir_all(&shaders).unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    for entry in std::fs::read_dir(&source).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, shaders.join(path.file_name().unwrap())).unwrap();
    }
    // An edit that does not compile: a call to a function that does not exist.
    let render = shaders.join("draw.wgsl");
    let text = std::fs::read_to_string(&render).unwrap();
    std::fs::write(
        &render,
        format!("{text}\nfn broken() -> f32 {{ return no_such_fn(); }}\n"),
    )
    .unwrap();
    let png = dir.join("broken_shader.png");
    run_viewer(&[
        "builtin:twist",
        "--view",
        "split",
        "--twist",
        "tip=180",
        "--shader-dir",
        shaders.to_str().unwrap(),
        "--screenshot",
        png.to_str().unwrap(),
        "--exit-after-frames",
        "3",
    ]);
    check_split(&png);
    let img = image::open(&png).unwrap().to_rgba8();
    let red = error_text_pixels(&img, 300);
    assert!(red > 100, "no shader error in the panel ({red} red pixels)");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Pixels within `tol` of `rgb` in every channel.
fn near(pixels: &[[u8; 3]], rgb: [u8; 3], tol: i32) -> usize {
    pixels
        .iter()
        .filter(|p| {
            p.iter()
                .zip(rgb)
                .all(|(a, b)| (i32::from(*a) - i32::from(b)).abs() <= tol)
        })
        .count()
}

#[test]
fn twist_past_180_shows_plot_lines_and_flip_band() {
    if skip_without_xvfb("twist_past_180_shows_plot_lines_and_flip_band") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("dqview_viewer_plot_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("plot.png");
    run_viewer(&[
        "builtin:twist",
        "--twist",
        "tip=190",
        "--screenshot",
        png.to_str().unwrap(),
        "--exit-after-frames",
        "4",
    ]);
    let img = image::open(&png).expect("decode the screenshot").to_rgba8();
    let (w, h) = img.dimensions();
    // The plot panel fills the bottom of the window right of the side panel.
    let plot = region(&img, w / 3, w, h - 190, h - 20);
    // LBS (orange) and DQS (blue) lines, as ui::mode_color draws them.
    let lbs = near(&plot, [240, 150, 60], 30);
    let dqs = near(&plot, [90, 160, 255], 30);
    assert!(lbs > 200, "LBS line: {lbs} pixels");
    assert!(dqs > 200, "DQS line: {dqs} pixels");
    // The flipped band (red, translucent) right of +180 degrees: its right quarter is reddish.
    let band = region(&img, w - w / 8, w - 30, h - 150, h - 60);
    let red = band
        .iter()
        .filter(|p| {
            i32::from(p[0]) > i32::from(p[2]) + 25 && i32::from(p[0]) > i32::from(p[1]) + 15
        })
        .count();
    assert!(
        red > band.len() / 3,
        "flip band: {red} of {} pixels red",
        band.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn split3_shows_lbs_dqs_and_cor_panes() {
    if skip_without_xvfb("split3_shows_lbs_dqs_and_cor_panes") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("dqview_viewer_split3_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("split3.png");
    run_viewer(&[
        "builtin:twist",
        "--view",
        "split3",
        "--twist",
        "tip=180",
        "--screenshot",
        png.to_str().unwrap(),
        "--exit-after-frames",
        "4",
    ]);
    let img = image::open(&png).expect("decode the screenshot").to_rgba8();
    let (w, h) = img.dimensions();
    let corner = img.get_pixel(w - 3, 40).0;
    let left = viewport_left(&img, [corner[0], corner[1], corner[2]]);
    let pane = (w - left) / 3;
    let (y0, y1) = (h / 8, h / 2);
    // Each third shows the model.
    for i in 0..3 {
        let x0 = left + i * pane;
        let n = model_pixels(&region(&img, x0 + 5, x0 + pane - 5, y0, y1));
        assert!(n > 2000, "pane {i} has only {n} model pixels");
    }
    // LBS (first) collapses at the twist, CoR (third) keeps the tube round: the middle of the
    // tube, a band around the joint, differs between them.
    let band = |x0: u32| region(&img, x0 + pane / 4, x0 + pane * 3 / 4, h / 4, h / 2);
    let (lbs, cor) = (band(left), band(left + 2 * pane));
    let (nl, nc) = (model_pixels(&lbs), model_pixels(&cor));
    assert!(
        nc > nl + nl / 10,
        "CoR pane ({nc} model pixels) should cover clearly more than the collapsed LBS pane ({nl})"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bulge_compensation_changes_the_dqs_half_only() {
    if skip_without_xvfb("bulge_compensation_changes_the_dqs_half_only") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("dqview_viewer_bulge_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let shot = |amount: &str| {
        let png = dir.join(format!("bulge_{amount}.png"));
        run_viewer(&[
            "builtin:elbow",
            "--view",
            "split",
            "--bend",
            "lower=100",
            "--bulge-compensation",
            amount,
            "--screenshot",
            png.to_str().unwrap(),
            "--exit-after-frames",
            "3",
        ]);
        image::open(&png).expect("decode the screenshot").to_rgba8()
    };
    let (plain, fixed) = (shot("0"), shot("1"));
    let (w, h) = plain.dimensions();
    let corner = plain.get_pixel(w - 3, 40).0;
    let left = viewport_left(&plain, [corner[0], corner[1], corner[2]]);
    let mid = left + (w - left) / 2;
    let differing = |x0: u32, x1: u32| {
        region(&plain, x0, x1, 0, h * 2 / 3)
            .iter()
            .zip(region(&fixed, x0, x1, 0, h * 2 / 3).iter())
            .filter(|(a, b)| a != b)
            .count()
    };
    let (lbs, dqs) = (differing(left + 5, mid - 5), differing(mid + 5, w - 5));
    // The compensated DQS mesh is drawn (CPU-posed) and pulls the bend's outside in.
    assert!(dqs > 300, "the DQS half barely changed ({dqs} pixels)");
    assert!(
        lbs < dqs / 10,
        "the LBS half changed too ({lbs} pixels against {dqs})"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_ddm_pane_waits_for_its_precompute_and_draws_apart_from_lbs() {
    if skip_without_xvfb("a_ddm_pane_waits_for_its_precompute_and_draws_apart_from_lbs") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("dqview_viewer_ddm_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("ddm.png");
    let cache = dir.join("cache");
    let log = support::run_viewer_logged_with(
        &[
            "builtin:twist",
            "--view",
            "lbs,ddm,dqs",
            "--twist",
            "tip=120",
            "--bend",
            "tip=60",
            "--ddm-p",
            "10",
            "--screenshot",
            png.to_str().unwrap(),
            "--exit-after-frames",
            "4",
        ],
        "1280x720",
        &[("DQVIEW_CACHE_DIR", cache.to_str().unwrap())],
    );
    assert!(log.contains("DDM matrices ready"), "{log}");
    // The precompute was cached for the next open.
    let cached = std::fs::read_dir(&cache).map(|d| d.count()).unwrap_or(0);
    assert_eq!(cached, 1, "{log}");
    let panes = three_model_panes(&png);
    // Panes in mode order, LBS | DQS | DDM: DDM is not LBS drawn again, its pixels differ.
    let differ = pixels_apart(&panes[0], &panes[2]);
    assert!(
        differ > 500,
        "DDM pane differs from LBS at only {differ} pixels"
    );
    let _ = std::fs::copy(
        &png,
        std::env::temp_dir().join("dqview_ddm_viewer_last.png"),
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_dm_pane_is_smoothed_on_the_gpu_and_draws_apart_from_lbs() {
    if skip_without_xvfb("a_dm_pane_is_smoothed_on_the_gpu_and_draws_apart_from_lbs") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("dqview_viewer_dm_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("dm.png");
    let log = support::run_viewer_logged(
        &[
            "builtin:twist",
            "--view",
            "lbs,dqs,dm",
            "--twist",
            "tip=120",
            "--bend",
            "tip=60",
            "--dm-iterations",
            "20",
            "--screenshot",
            png.to_str().unwrap(),
            "--exit-after-frames",
            "4",
        ],
        "1280x720",
    );
    assert!(
        log.contains("Delta Mush ready: 2403 welded vertices, 20 x 0.5"),
        "{log}"
    );
    let panes = three_model_panes(&png);
    // Panes in mode order, LBS | DQS | DM: the smoothing moved DM's pixels off LBS's.
    let differ = pixels_apart(&panes[0], &panes[2]);
    assert!(
        differ > 500,
        "DM pane differs from LBS at only {differ} pixels"
    );
    let _ = std::fs::copy(&png, std::env::temp_dir().join("dqview_dm_viewer_last.png"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The three panes of a split screenshot at `png` (the viewport's rows from an eighth to three
/// quarters down), each checked to show the model.
fn three_model_panes(png: &std::path::Path) -> Vec<Vec<[u8; 3]>> {
    let img = image::open(png).expect("decode the screenshot").to_rgba8();
    let (w, h) = img.dimensions();
    let corner = img.get_pixel(w - 3, 40).0;
    let left = viewport_left(&img, [corner[0], corner[1], corner[2]]);
    let pane = (w - left) / 3;
    let (y0, y1) = (h / 8, h * 3 / 4);
    let panes: Vec<Vec<[u8; 3]>> = (0..3)
        .map(|i| {
            let x0 = left + i * pane;
            region(&img, x0 + 5, x0 + pane - 5, y0, y1)
        })
        .collect();
    for (i, p) in panes.iter().enumerate() {
        let n = model_pixels(p);
        assert!(n > 2000, "pane {i} has only {n} model pixels");
    }
    panes
}

/// Pixels of `a` and `b` (the same region of two panes) differing by more than 24 in a channel.
fn pixels_apart(a: &[[u8; 3]], b: &[[u8; 3]]) -> usize {
    a.iter()
        .zip(b)
        .filter(|(p, q)| p.iter().zip(q.iter()).any(|(x, y)| x.abs_diff(*y) > 24))
        .count()
}
