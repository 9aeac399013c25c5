//! `report`'s region pictures show the region and the difference (issue 36), on lavapipe.
//!
//! The regions are those `report` pictures for a few clips of both shared characters (its own
//! `clip_report`, `worst_regions` and `pictured_regions` at its 30 samples and 2 renders per
//! mode), a finger of the Adventurer (Ring1.L in Roll) among them. For each picture:
//! - the view picked sees at least a third of the region's pixels in every pane (DM's a quarter:
//!   it mushes fingertips), counted in full-size region masks of the picture against masks of
//!   the region drawn alone;
//! - every pane is more than a flat colour: a luminance standard deviation of at least 8;
//! - where the report's ratios have LBS and CoR 0.1 or more apart, the LBS and CoR panes of the
//!   CoR distance row differ by at least 5 grey levels on average over the region's pixels.
//!
//! A second test checks the CoR distance colours against the CPU: `dqview render --view
//! cor-distance` of the twisted tube, each visible vertex's colour read back to a value and
//! compared with its CPU distance from CoR over the range the render printed.

mod support;

use std::path::Path;

use dqview::anim::{JointOverrides, Pose};
use dqview::cli::painter::Painter;
use dqview::cli::report_pictures::{RegionImages, ReportMethods, region_images, report_painter};
use dqview::render::{DebugView, RgbaImage, is_outline_pixel, is_region_pixel};
use dqview::rig_report::{
    Change, ReportOptions, WorstRegion, clip_report, pictured_regions, worst_regions,
};
use dqview::scene::Scene;
use dqview::skin::ddm::SceneDdm;
use dqview::skin::dm::SceneDm;
use dqview::skin::{CorOptions, CorProgress, SceneCenters, SkinningMode};

/// A render of one pane per mode (six), each 240 x 360: narrower than the report's default
/// 300, so the view picked must hold in less room.
const SIZE: (u32, u32) = (1440, 360);

/// Rec. 709 luminance of an 8-bit sRGB pixel, in grey levels (0..255).
fn luminance(px: &[u8]) -> f32 {
    0.2126 * f32::from(px[0]) + 0.7152 * f32::from(px[1]) + 0.0722 * f32::from(px[2])
}

/// The pane rectangles (x, width) of an image of `n` panes side by side, as `View::panes` lays them out.
fn panes(width: u32, n: u32) -> Vec<(u32, u32)> {
    let pane = width / n;
    (0..n)
        .map(|i| {
            let w = if i + 1 == n { width - pane * i } else { pane };
            (pane * i, w)
        })
        .collect()
}

/// The pixel (x, y) of `image` as RGBA bytes.
fn px(image: &RgbaImage, x: u32, y: u32) -> &[u8] {
    let i = ((y * image.width + x) * 4) as usize;
    &image.pixels[i..i + 4]
}

/// Luminance standard deviation of a pane (x0, width) of `image`.
fn luminance_std(image: &RgbaImage, (x0, w): (u32, u32)) -> f32 {
    let values: Vec<f32> = (0..image.height)
        .flat_map(|y| (x0..x0 + w).map(move |x| (x, y)))
        .map(|(x, y)| luminance(px(image, x, y)))
        .collect();
    let n = values.len() as f32;
    let mean = values.iter().sum::<f32>() / n;
    (values.iter().map(|v| (v - mean).powi(2)).sum::<f32>() / n).sqrt()
}

/// Region pixels of a pane (x0, width) of a region mask.
fn region_count(mask: &RgbaImage, (x0, w): (u32, u32)) -> u32 {
    (0..mask.height)
        .flat_map(|y| (x0..x0 + w).map(move |x| (x, y)))
        .filter(|&(x, y)| is_region_pixel(px(mask, x, y)))
        .count() as u32
}

/// Mean |luminance difference| between panes `a` and `b` of `image` over the pixels that are
/// the region in either pane's mask, leaving out the outline (drawn alike in both).
fn region_grey_difference(
    image: &RgbaImage,
    mask: &RgbaImage,
    a: (u32, u32),
    b: (u32, u32),
) -> f32 {
    let (mut sum, mut n) = (0.0, 0u32);
    for y in 0..image.height {
        for dx in 0..a.1.min(b.1) {
            let (xa, xb) = (a.0 + dx, b.0 + dx);
            let in_a = is_region_pixel(px(mask, xa, y));
            let in_b = is_region_pixel(px(mask, xb, y));
            let edge = is_outline_pixel(mask, xa, y, 2) || is_outline_pixel(mask, xb, y, 2);
            if (in_a || in_b) && !edge {
                sum += (luminance(px(image, xa, y)) - luminance(px(image, xb, y))).abs();
                n += 1;
            }
        }
    }
    if n == 0 { 0.0 } else { sum / n as f32 }
}

/// The scene, its CoR centers (through the user's cache) and the regions `report` pictures
/// for `clips`.
fn pictured(dir: &Path, file: &str, clips: &[&str]) -> (Scene, SceneCenters, Vec<WorstRegion>) {
    let scene = dqview::model::load_model(dir.join(file).to_str().expect("utf-8")).expect("load");
    let (centers, _) =
        SceneCenters::compute_cached(&scene, &CorOptions::default(), &CorProgress::new())
            .expect("centers");
    let options = ReportOptions {
        clips: Vec::new(),
        samples: 30,
        fit_samples: 1,
        overrides: JointOverrides::new(),
        worst_regions: 4,
    };
    let ddm = SceneDdm::compute(&scene, Default::default()).expect("ddm");
    let dm = dqview::skin::dm::SceneDm::compute(&scene, Default::default());
    let reports: Vec<_> = clips
        .iter()
        .map(|name| {
            let clip = scene
                .animations
                .iter()
                .position(|a| a.name == *name)
                .unwrap_or_else(|| panic!("{file} has no clip {name}"));
            clip_report(&scene, (&centers, &ddm, &dm), Some(clip), &options)
        })
        .collect();
    let loss = worst_regions(&reports, Change::Loss, 4);
    let growth = worst_regions(&reports, Change::Growth, 4);
    let regions = pictured_regions(&loss, &growth, 2)
        .into_iter()
        .cloned()
        .collect();
    (scene, centers, regions)
}

/// What one picture measures: per pane the share of the region seen, the luminance spreads,
/// and the LBS-vs-CoR grey difference of the heat row.
#[derive(Debug)]
struct Measured {
    name: String,
    seen: Vec<f32>,
    shaded_std: Vec<f32>,
    heat_std: Vec<f32>,
    lbs_cor_gap: f64,
    lbs_cor_grey: Option<f32>,
}

/// Measures `images` of `region`: the region drawn alone with the picture's camera gives each
/// pane's silhouette, the picture's masks what it shows of it.
fn measure(
    painter: &mut Painter<'_>,
    scene: &Scene,
    region: &WorstRegion,
    images: &RegionImages,
) -> Measured {
    let mut pose = Pose::rest(scene);
    pose.sample(scene, region.clip, region.time_s, &JointOverrides::new());
    painter.set_region(Some(region.joint), 1.0);
    let alone = painter
        .paint_rows(&pose, &images.view.camera, &[DebugView::Region])
        .expect("mask")
        .remove(0);
    // A pane per mode in SkinningMode::ALL's order (the painter's), or CoR's alone.
    let modes = SkinningMode::ALL.len() as u32;
    let cor = SkinningMode::Cor.index();
    let n = if images.single_pane.is_some() {
        1
    } else {
        modes
    };
    let cor_pane = if n == 1 { 0 } else { cor };
    let shown = panes(images.masks.width, n);
    let all = panes(alone.width, modes);
    let seen = shown
        .iter()
        .enumerate()
        .map(|(i, &pane)| {
            let whole = if n == 1 { all[cor] } else { all[i] };
            region_count(&images.masks, pane) as f32 / region_count(&alone, whole).max(1) as f32
        })
        .collect();
    let std_of = |image: &RgbaImage| shown.iter().map(|&p| luminance_std(image, p)).collect();
    Measured {
        name: format!(
            "{} {} {:.2} s",
            region.name, region.clip_name, region.time_s
        ),
        seen,
        shaded_std: std_of(&images.shaded),
        heat_std: images.heat.as_ref().map_or_else(Vec::new, std_of),
        lbs_cor_gap: (region.ratios[3] - region.ratios[0]).abs(),
        lbs_cor_grey: images
            .heat
            .as_ref()
            .map(|heat| region_grey_difference(heat, &images.masks, shown[0], shown[cor_pane])),
    }
}

/// Every pictured region of `clips` of `file`, measured.
fn measure_character(dir: &Path, file: &str, clips: &[&str]) -> Vec<Measured> {
    let (scene, centers, regions) = pictured(dir, file, clips);
    assert!(!regions.is_empty(), "{file}: no region to picture");
    let overrides = JointOverrides::new();
    let ddm = SceneDdm::compute(&scene, Default::default()).expect("ddm");
    let dm = SceneDm::compute(&scene, Default::default());
    let methods = ReportMethods {
        centers: &centers,
        ddm: &ddm,
        dm: &dm,
    };
    let mut painter = report_painter(&scene, methods, &overrides, SIZE).expect("painter");
    regions
        .iter()
        .map(|region| {
            let images = region_images(&mut painter, &scene, methods, region, &overrides)
                .expect("region picture");
            let m = measure(&mut painter, &scene, region, &images);
            eprintln!("{file}: {m:?}");
            m
        })
        .collect()
}

/// The three conditions on one picture.
fn check(file: &str, m: &Measured) {
    for (i, &s) in m.seen.iter().enumerate() {
        // Delta Mush's default smoothing mushes the Adventurer's fingertips (as Blender's
        // Corrective Smooth does: dqview equals it within 4.2e-5 of the diagonal), folding part
        // of a fingertip region behind itself; the view is picked on DQS's, so DM's pane is held
        // to a quarter (0.319 seen of Middle4.L in Roll at 0.34 s).
        let least = if m.seen.len() > 1 && i == SkinningMode::Dm.index() {
            0.25
        } else {
            1.0 / 3.0
        };
        assert!(
            s >= least,
            "{file} {}: pane {i} sees {s:.3} of the region",
            m.name
        );
    }
    for (i, &s) in m.shaded_std.iter().chain(&m.heat_std).enumerate() {
        assert!(
            s >= 8.0,
            "{file} {}: pane {i} is flat (luminance std {s:.2})",
            m.name
        );
    }
    if m.lbs_cor_gap >= 0.1 {
        let grey = m.lbs_cor_grey.expect("a heat row where the methods differ");
        assert!(
            grey >= 5.0,
            "{file} {}: LBS and CoR keep {:.3} apart but their panes differ by {grey:.2} grey levels",
            m.name,
            m.lbs_cor_gap
        );
    }
}

#[test]
fn adventurer_region_pictures_show_the_region_and_the_difference() {
    let test = "adventurer_region_pictures_show_the_region_and_the_difference";
    let (Some(dir), Some(_)) = (support::characters_dir(test), support::gpu(test)) else {
        return;
    };
    let measured = measure_character(&dir, "Adventurer.gltf", &["Roll", "Sword_Slash"]);
    let finger = measured
        .iter()
        .find(|m| m.name.starts_with("Ring1.L Roll"))
        .expect("Ring1.L in Roll is pictured");
    assert!(finger.lbs_cor_gap >= 0.1, "{finger:?}");
    for m in &measured {
        check("Adventurer.gltf", m);
    }
}

#[test]
fn robot_region_pictures_show_the_region_and_the_difference() {
    let test = "robot_region_pictures_show_the_region_and_the_difference";
    let (Some(dir), Some(_)) = (support::characters_dir(test), support::gpu(test)) else {
        return;
    };
    let measured = measure_character(&dir, "RobotExpressive.glb", &["Wave", "ThumbsUp"]);
    for m in &measured {
        check("RobotExpressive.glb", m);
    }
}

/// The heat position `t` in 0..1 of a linear colour of `heat_rgb`'s scale (times a light
/// factor), where its hue pins it down (0.15..0.85); `None` in the flat ends or when too dark.
fn heat_t(linear: [f32; 3]) -> Option<f32> {
    let max = linear.iter().copied().fold(0.0, f32::max);
    if max < 0.15 {
        return None;
    }
    let [r, g, b] = linear.map(|c| c / max);
    let t = if b >= g && b >= r {
        (g + 0.5) / 4.0
    } else if g >= r {
        (r - b + 4.0) / 8.0
    } else {
        (3.5 - g) / 4.0
    };
    (0.15..=0.85).contains(&t).then_some(t)
}

/// An sRGB byte as linear light.
fn linear(c: u8) -> f32 {
    let s = f32::from(c) / 255.0;
    if s <= 0.04045 {
        s / 12.92
    } else {
        ((s + 0.055) / 1.055).powf(2.4)
    }
}

#[test]
fn cor_distance_colours_match_the_cpu_distance() {
    let test = "cor_distance_colours_match_the_cpu_distance";
    if support::gpu(test).is_none() {
        return;
    }
    let dir = support::scratch_dir("cor-distance-colours");
    let (out, cam) = (dir.join("heat.png"), dir.join("camera.json"));
    let o = support::dqview_in(
        &[
            "render",
            "builtin:twist",
            "--mode",
            "lbs",
            "--view",
            "cor-distance",
            "--twist",
            "tip=150",
            "--size",
            "256x256",
            "--out",
            out.to_str().expect("utf-8"),
            "--camera-out",
            cam.to_str().expect("utf-8"),
        ],
        &dir.join("cache"),
    );
    assert!(o.status.success(), "{}", support::stderr_of(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    // "distance from CoR / bbox diagonal, 0.000% blue .. 4.321% red"
    let hi: f32 = stdout
        .split(".. ")
        .nth(1)
        .and_then(|s| s.split('%').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no range in {stdout}"));
    let hi = hi / 100.0;
    let camera: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cam).expect("camera")).expect("json");
    let matrix = |key: &str| {
        let v: Vec<f32> = camera[key]
            .as_array()
            .expect(key)
            .iter()
            .map(|x| x.as_f64().expect("number") as f32)
            .collect();
        glam::Mat4::from_cols_slice(&v)
    };
    let clip_from_world = matrix("clip_from_view") * matrix("view_from_world");
    let eye = glam::Vec3::from_slice(
        &camera["eye"]
            .as_array()
            .expect("eye")
            .iter()
            .map(|x| x.as_f64().expect("number") as f32)
            .collect::<Vec<_>>(),
    );
    let image = image::open(&out).expect("png").to_rgba8();

    // The CPU's distances: LBS and CoR positions of the same pose.
    let scene = dqview::model::load_model("builtin:twist").expect("builtin");
    let tip = dqview::scene::names::joint(&scene, "tip").expect("tip");
    let mut pose = Pose::rest(&scene);
    pose.sample(&scene, None, 0.0, &JointOverrides::twist(tip, 150.0));
    let centers = SceneCenters::compute(&scene, &CorOptions::default(), &CorProgress::new())
        .expect("centers");
    let lbs = dqview::skin::skin_scene(
        &scene,
        &pose,
        SkinningMode::Lbs,
        dqview::skin::Betas::Uniform(0.0),
    );
    let cor = dqview::skin::skin_scene_cor(&scene, &pose, &centers);
    let (lo, hi_box) = dqview::skin::rest_bounds(&scene).expect("bounds");
    let diagonal = (hi_box - lo).length();
    let (mut compared, mut worst) = (0, 0.0_f32);
    for (a, b) in lbs.iter().zip(&cor).filter(|(a, _)| a.skinned) {
        for ((p, n), q) in a
            .vertices
            .positions
            .iter()
            .zip(&a.vertices.normals)
            .zip(&b.vertices.positions)
        {
            // Vertices facing the eye squarely, away from the silhouette.
            if n.dot((eye - *p).normalize()) < 0.6 {
                continue;
            }
            let ndc = clip_from_world.project_point3(*p);
            let (x, y) = ((ndc.x * 0.5 + 0.5) * 256.0, (0.5 - ndc.y * 0.5) * 256.0);
            // Clear of the label (top left) and the colour bar with its title (bottom).
            if !(2.0..253.0).contains(&x) || !(20.0..200.0).contains(&y) {
                continue;
            }
            let rgba = image.get_pixel(x as u32, y as u32).0;
            let Some(t_gpu) = heat_t([linear(rgba[0]), linear(rgba[1]), linear(rgba[2])]) else {
                continue;
            };
            let t_cpu = (*p - *q).length() / diagonal / hi;
            worst = worst.max((t_gpu - t_cpu).abs());
            compared += 1;
        }
    }
    eprintln!("{compared} vertices compared, worst {worst:.3} of the scale (range 0..{hi})");
    assert!(compared >= 20, "only {compared} vertices compared");
    // Colours are interpolated across triangles and quantised to 8 bits: a tenth of the scale.
    assert!(worst < 0.1, "GPU and CPU differ by {worst:.3} of the scale");
}

/// The camera `report` and `render --focus` used before they picked a view: the default
/// direction, the region's sphere at the framing distance, the near plane holding the model.
fn default_view(scene: &Scene, pose: &Pose, joint: usize, aspect: f32) -> dqview::ui::OrbitCamera {
    let r = dqview::analysis::focus_region(scene, pose, joint).expect("region");
    let d = dqview::cli::render::CAMERA_DIRECTION.normalize();
    let mut camera = dqview::ui::OrbitCamera {
        yaw: d.x.atan2(d.z),
        pitch: d.y.atan2(d.x.hypot(d.z)),
        ..Default::default()
    };
    camera.frame(r.min, r.max);
    camera.distance = dqview::ui::fit_distance(camera.scene_radius, aspect);
    let (lo, hi) = dqview::skin::rest_bounds(scene).expect("bounds");
    camera.scene_radius = camera.scene_radius.max((hi - lo).length() * 0.5);
    camera
}

/// Share of the region of `joint` the DQS pane of `camera` sees, from full-size masks.
fn seen_by(
    painter: &mut Painter<'_>,
    pose: &Pose,
    joint: usize,
    camera: &dqview::ui::OrbitCamera,
) -> f32 {
    let dqs = panes(SIZE.0, 4)[1];
    painter.set_region(Some(joint), 0.0);
    let shown = painter
        .paint_rows(pose, camera, &[DebugView::Region])
        .expect("mask")
        .remove(0);
    painter.set_region(Some(joint), 1.0);
    let alone = painter
        .paint_rows(pose, camera, &[DebugView::Region])
        .expect("mask")
        .remove(0);
    region_count(&shown, dqs) as f32 / region_count(&alone, dqs).max(1) as f32
}

/// A clip, a time in seconds and a joint.
type Moment = (&'static str, f32, &'static str);

/// Regions the default view does not see (fingers curled into a fist or hidden behind the
/// hand, at rest or in a clip): the picked view sees at least a third of each in every pane.
#[test]
fn regions_hidden_from_the_default_view_are_seen_from_another_side() {
    let test = "regions_hidden_from_the_default_view_are_seen_from_another_side";
    let (Some(dir), Some(_)) = (support::characters_dir(test), support::gpu(test)) else {
        return;
    };
    let cases: [(&str, &[Moment]); 2] = [
        (
            "Adventurer.gltf",
            &[
                ("Idle", 0.0, "Ring1.R"),
                ("Roll", 0.23, "Ring3.L"),
                ("Roll", 0.23, "Wrist.R"),
            ],
        ),
        (
            "RobotExpressive.glb",
            &[("Wave", 1.52, "Ring2.L"), ("Wave", 1.52, "Middle2.L")],
        ),
    ];
    for (file, moments) in cases {
        let scene =
            dqview::model::load_model(dir.join(file).to_str().expect("utf-8")).expect("load");
        let (centers, _) =
            SceneCenters::compute_cached(&scene, &CorOptions::default(), &CorProgress::new())
                .expect("centers");
        let overrides = JointOverrides::new();
        let ddm = SceneDdm::compute(&scene, Default::default()).expect("ddm");
        let dm = SceneDm::compute(&scene, Default::default());
        let methods = ReportMethods {
            centers: &centers,
            ddm: &ddm,
            dm: &dm,
        };
        let mut painter = report_painter(&scene, methods, &overrides, SIZE).expect("painter");
        for &(clip_name, time_s, joint_name) in moments {
            let clip = scene.animations.iter().position(|a| a.name == clip_name);
            let joint = dqview::scene::names::joint(&scene, joint_name).expect("joint");
            let mut pose = Pose::rest(&scene);
            pose.sample(&scene, clip, time_s, &overrides);
            let old = default_view(&scene, &pose, joint, painter.narrowest_aspect());
            let before = seen_by(&mut painter, &pose, joint, &old);
            assert!(
                before < 1.0 / 3.0,
                "{file} {joint_name}: the default view sees {before:.3}"
            );
            let region = WorstRegion {
                mode: SkinningMode::Lbs,
                change: Change::Loss,
                joint,
                name: joint_name.into(),
                clip,
                clip_name: clip_name.into(),
                time_s,
                // Modes apart (four panes), LBS and CoR within 0.1: no grey difference asked.
                ratios: [0.9, 0.95, 0.92, 0.97, 0.96, 0.94],
            };
            let images = region_images(&mut painter, &scene, methods, &region, &overrides)
                .expect("region picture");
            let m = measure(&mut painter, &scene, &region, &images);
            eprintln!("{file} {joint_name}: default view {before:.3}, picked {m:?}");
            check(file, &m);
        }
    }
}
