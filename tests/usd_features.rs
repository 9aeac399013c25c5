//! The USD that Pixar's own tools write and dqview must read (issue 33, item 4): every number
//! spelling of the `.usda` grammar, skinned `BasisCurves` and `Points`, inbetween blend shapes,
//! face-varying primvars, and what is still not read named by `inspect` and `check`.
//!
//! Posed points are compared with Pixar's UsdSkel (`python3` with `pxr`, usd-core) within 1e-5
//! of the bounding-box diagonal; the stages are written here, by the tests.

mod support;

use std::path::{Path, PathBuf};

use dqview::anim::{JointOverrides, Pose};
use dqview::scene::Scene;
use dqview::skin::{Betas, PosedPrimitive, SkinningMode, skin_scene};
use glam::Vec3;
use support::usd_stages;

/// Largest allowed distance from Pixar's point to dqview's, over the bounding-box diagonal.
const TOLERANCE_RELATIVE: f32 = 1e-5;

/// Writes `text` as `name` in a fresh scratch folder for `test`.
fn stage_file(test: &str, name: &str, text: &str) -> PathBuf {
    let dir = support::scratch_dir(test);
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write the stage");
    path
}

/// Loads the stage at `path` through dqview's model loader.
fn load(path: &Path) -> Scene {
    dqview::model::load_model(path.to_str().expect("utf-8"))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The mesh named `name` (the prim path) and its first primitive's positions.
fn positions<'a>(scene: &'a Scene, name: &str) -> &'a [Vec3] {
    let mesh = scene
        .meshes
        .iter()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("no mesh {name}"));
    &mesh.primitives[0].positions
}

/// The worst distance over the diagonal between Pixar's points at time code `code` and dqview's
/// CPU pose in `mode`, for every prim Pixar skins; checks dqview skins each one.
fn worst_against_pixar(path: &Path, scene: &Scene, code: f64, mode: SkinningMode) -> f32 {
    let (_, theirs) = support::pxr_skinned_points(path, code);
    assert!(
        !theirs.is_empty(),
        "Pixar skins nothing in {}",
        path.display()
    );
    let mut pose = Pose::rest(scene);
    let tcps = scene.source_info.frames_per_second.unwrap_or(24.0);
    pose.sample(scene, Some(0), code as f32 / tcps, &JointOverrides::new());
    let posed: Vec<PosedPrimitive> = skin_scene(scene, &pose, mode, Betas::Uniform(1.0));
    let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for p in theirs.values().flatten() {
        lo = lo.min(*p);
        hi = hi.max(*p);
    }
    let diagonal = lo.distance(hi).max(1e-6);
    let mut worst = 0.0_f32;
    for (prim, points) in &theirs {
        let ours = posed
            .iter()
            .find(|p| scene.meshes[p.mesh].name == *prim)
            .unwrap_or_else(|| panic!("dqview has no {prim}"));
        assert!(ours.skinned, "{prim} is not skinned");
        // Vertices split for face-varying values follow the points and repeat their point's.
        let source = &scene.meshes[ours.mesh].primitives[ours.primitive];
        let point_of = |v: usize| source.control_points.as_ref().map_or(v, |c| c[v] as usize);
        let posed = &ours.vertices.positions;
        assert!(posed.len() >= points.len(), "{prim} points");
        for (v, b) in posed.iter().enumerate() {
            assert!(
                v >= points.len() || point_of(v) == v,
                "{prim}: vertex {v} is its point"
            );
            worst = worst.max(points[point_of(v)].distance(*b));
        }
    }
    worst / diagonal
}

#[test]
fn every_usda_number_spelling_loads_with_its_value() {
    let path = stage_file("usd_features_numbers", "numbers.usda", usd_stages::NUMBERS);
    let scene = load(&path);
    assert!(
        (scene.source_info.unit_meters - 0.01).abs() < 1e-9,
        "metersPerUnit .01"
    );
    let points = positions(&scene, "/Tri/Shape");
    let want = [
        Vec3::new(0.5, -0.5, 1.0),
        Vec3::new(1e-3, 1e3, -0.25),
        Vec3::new(10.0, 0.0, 0.125),
    ];
    assert_eq!(points, want, "points in every spelling");
    // The time sample keys `.5` and `1.e1` at 24 codes a second.
    let channel = &scene.animations[0].channels[0];
    assert_eq!(channel.times_s.len(), 2);
    assert!(
        (channel.times_s[0] - 0.5 / 24.0).abs() < 1e-7,
        "{:?}",
        channel.times_s
    );
    assert!(
        (channel.times_s[1] - 10.0 / 24.0).abs() < 1e-7,
        "{:?}",
        channel.times_s
    );
    assert_eq!(channel.values[..3], [0.25, -0.5, 1.0]);
    assert_eq!(channel.values[3..6], [1e-3, 1e3, -0.15]);
    if support::pxr_available("every_usda_number_spelling_loads_with_its_value") {
        let (meters, _) = support::pxr_skinned_points(&path, 0.0);
        assert_eq!(meters, 0.01, "Pixar reads the same file");
    }
}

#[test]
fn skinned_curves_and_points_match_pixar() {
    let test = "skinned_curves_and_points_match_pixar";
    if !support::pxr_available(test) {
        return;
    }
    let mut lines = Vec::new();
    for (method, mode) in [
        ("classicLinear", SkinningMode::Lbs),
        ("dualQuaternion", SkinningMode::Dqs),
    ] {
        let path = stage_file(
            test,
            "curves.usda",
            &usd_stages::CURVES.replace("METHOD", method),
        );
        let scene = load(&path);
        for code in [0.0, 5.0, 10.0] {
            let worst = worst_against_pixar(&path, &scene, code, mode);
            lines.push(format!("t{code} {mode:?}: {worst:.1e}"));
            assert!(worst <= TOLERANCE_RELATIVE, "t{code} {mode:?}: {worst:e}");
        }
    }
    eprintln!("{}", lines.join("\n"));
}

#[test]
fn inbetween_blend_shapes_match_pixar() {
    let test = "inbetween_blend_shapes_match_pixar";
    let path = stage_file(test, "inbetweens.usda", usd_stages::INBETWEENS);
    let scene = load(&path);
    let names: Vec<&str> = scene.meshes[0].primitives[0]
        .morph_targets
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(names, ["bulge", "bulge:low", "bulge:neg", "plain"]);
    assert!(
        !scene.warnings.iter().any(|w| w.contains("inbetween")),
        "{:?}",
        scene.warnings
    );
    if !support::pxr_available(test) {
        return;
    }
    let mut lines = Vec::new();
    // Keys (0, 4, 10), crossings of the inbetweens' weights (2.5, 3.125 ...) and between them.
    for code in [0.0, 1.0, 2.0, 2.5, 3.3, 4.0, 5.0, 7.0, 10.0] {
        let worst = worst_against_pixar(&path, &scene, code, SkinningMode::Lbs);
        lines.push(format!("t{code}: {worst:.1e}"));
        assert!(worst <= TOLERANCE_RELATIVE, "t{code}: {worst:e}");
    }
    eprintln!("{}", lines.join("\n"));
}

#[test]
fn export_writes_curves_as_lines_and_points_as_points() {
    let test = "export_writes_curves_as_lines_and_points_as_points";
    let path = stage_file(
        test,
        "curves.usda",
        &usd_stages::CURVES.replace("METHOD", "dualQuaternion"),
    );
    let dir = path.parent().expect("folder").to_owned();
    let obj = dir.join("posed.obj");
    let args = [
        "export",
        path.to_str().unwrap(),
        "--out",
        obj.to_str().unwrap(),
        "--time",
        "1",
    ];
    let out = support::dqview_in(&args, &dir);
    assert!(out.status.success(), "{}", support::stderr_of(&out));
    let text = std::fs::read_to_string(&obj).expect("OBJ");
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("l ")).collect();
    let points: Vec<&str> = text.lines().filter(|l| l.starts_with("p ")).collect();
    assert!(
        !text.lines().any(|l| l.starts_with("f ")),
        "no faces:\n{text}"
    );
    // The node order puts the curves (5 points, vertices 1..5) before the points (6..8).
    assert_eq!(lines, ["l 1 2", "l 2 3", "l 4 5"]);
    assert_eq!(points, ["p 6", "p 7", "p 8"]);
    if support::pxr_available(test) {
        let (_, theirs) = support::pxr_skinned_points(&path, 10.0);
        let ours: Vec<Vec3> = support::obj_groups(&text)
            .into_iter()
            .flat_map(|(_, v)| v)
            .collect();
        let pixar: Vec<Vec3> = ["/Root/Hair", "/Root/Dots"]
            .iter()
            .flat_map(|p| theirs[*p].clone())
            .collect();
        assert_eq!(ours.len(), pixar.len());
        let worst = ours
            .iter()
            .zip(&pixar)
            .map(|(a, b)| a.distance(*b))
            .fold(0.0, f32::max);
        assert!(worst < 1e-5, "export at t=1 s is {worst} from Pixar's");
    }
    let out = support::dqview_in(&["inspect", path.to_str().unwrap(), "--json"], &dir);
    assert!(out.status.success(), "{}", support::stderr_of(&out));
    let facts: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let kinds: Vec<(&str, u64)> = facts["primitive_list"]
        .as_array()
        .expect("primitives")
        .iter()
        .map(|p| {
            (
                p["topology"].as_str().unwrap(),
                p["elements"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(kinds, [("lines", 3), ("points", 3)]);
    assert_eq!(facts["triangles"], 0);
    let out = support::dqview_in(&["inspect", path.to_str().unwrap()], &dir);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("5 vertices (3 line segments)"), "{text}");
    assert!(text.contains("3 vertices (points)"), "{text}");
}

#[test]
fn face_varying_normals_and_coordinates_split_the_vertices() {
    let test = "face_varying_normals_and_coordinates_split_the_vertices";
    let path = stage_file(test, "face_varying.usda", usd_stages::FACE_VARYING);
    let scene = load(&path);
    let prim = &scene.meshes[0].primitives[0];
    // Points 1 and 4 (the shared edge) get a second vertex for the second face.
    assert_eq!(prim.positions.len(), 8);
    assert_eq!(
        prim.control_points.as_deref(),
        Some(&[0, 1, 2, 3, 4, 5, 1, 4][..])
    );
    assert_eq!(prim.positions[6], prim.positions[1]);
    assert_eq!(prim.normals[1], Vec3::Z);
    assert_eq!(prim.normals[6], Vec3::X);
    let uvs = prim.uvs.as_ref().expect("coordinates");
    // USD's t up, dqview's v down: (0.5, 0) -> (0.5, 1).
    assert_eq!(
        (uvs[1], uvs[6]),
        (glam::Vec2::new(0.5, 1.0), glam::Vec2::new(0.6, 1.0))
    );
    // Triangles of the second face use the split vertices, not the first face's.
    assert!(prim.indices[6..].contains(&6) && prim.indices[6..].contains(&7));
    assert!(!prim.indices[6..].contains(&1) && !prim.indices[6..].contains(&4));
    // Influences and the blend shape follow each split vertex.
    let influences = prim.influences.as_ref().expect("skinned");
    assert_eq!(influences.of(6), influences.of(1));
    assert_eq!(influences.of(7), influences.of(4));
    assert_eq!(prim.morph_targets[0].positions[7], Vec3::new(0.0, 0.0, 0.5));
    assert!(
        !scene.warnings.iter().any(|w| w.contains("not used")),
        "{:?}",
        scene.warnings
    );
    if !support::pxr_available(test) {
        return;
    }
    let mut lines = Vec::new();
    for code in [0.0, 5.0, 10.0] {
        let worst = worst_against_pixar(&path, &scene, code, SkinningMode::Dqs);
        lines.push(format!("t{code}: {worst:.1e}"));
        assert!(worst <= TOLERANCE_RELATIVE, "t{code}: {worst:e}");
    }
    eprintln!("{}", lines.join("\n"));
}

#[test]
fn what_is_not_read_is_named_by_inspect_and_check() {
    let test = "what_is_not_read_is_named_by_inspect_and_check";
    let path = stage_file(test, "not_read.usda", usd_stages::NOT_READ);
    let scene = load(&path);
    let want = [
        "USD Camera prims are not read: 1 (/World/Cam)",
        "USD Cube prims are not read: 1 (/World/Box)",
        "USD NurbsCurves prims are not read: 1 (/World/Nurbs)",
        "USD SphereLight prims are not read: 1 (/World/Lamp)",
        "1 (/World/Look/Image) UsdUVTexture shaders are not read",
        "1 (/World/Smooth/Part) GeomSubsets are not split out",
        "1 (/World/Smooth) meshes are subdivision surfaces",
        "1 (/World/Guides) cubic BasisCurves are drawn through their control points",
        "1 (/World/Guides) curve and point widths are not drawn",
    ];
    assert_eq!(scene.notes.len(), want.len(), "{:#?}", scene.notes);
    for (note, want) in scene.notes.iter().zip(want) {
        assert!(note.starts_with(want), "{note} is not {want}");
    }
    // What is read still loads: the mesh, and the curve as lines through its 4 points.
    assert_eq!(positions(&scene, "/World/Smooth").len(), 3);
    assert_eq!(scene.meshes[1].primitives[0].indices, [0, 1, 1, 2, 2, 3]);
    let dir = path.parent().expect("folder").to_owned();
    let out = support::dqview_in(&["inspect", path.to_str().unwrap()], &dir);
    assert!(out.status.success(), "{}", support::stderr_of(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    for want in want {
        assert!(
            text.contains(&format!("note        {want}")),
            "inspect lacks {want}:\n{text}"
        );
    }
    let out = support::dqview_in(&["check", path.to_str().unwrap(), "--json"], &dir);
    let report = String::from_utf8_lossy(&out.stdout);
    let json: serde_json::Value = serde_json::from_str(&report).expect("check json");
    let findings = json["files"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["rule"] == "not_read" && f["severity"] == "info")
        .count();
    assert_eq!(
        findings,
        want.len(),
        "one not_read finding per note:\n{report}"
    );
    assert!(report.contains("USD Camera prims are not read"), "{report}");
}

#[test]
fn render_draws_skinned_curves_as_lines() {
    let test = "render_draws_skinned_curves_as_lines";
    if support::gpu(test).is_none() {
        return;
    }
    let path = stage_file(
        test,
        "curves.usda",
        &usd_stages::CURVES.replace("METHOD", "dualQuaternion"),
    );
    let dir = path.parent().expect("folder").to_owned();
    let png = dir.join("curves.png");
    let args = [
        "render",
        path.to_str().unwrap(),
        "--out",
        png.to_str().unwrap(),
        "--size",
        "400x300",
        "--time",
        "1",
    ];
    let out = support::dqview_in(&args, &dir);
    assert!(out.status.success(), "{}", support::stderr_of(&out));
    let image = image::open(&png).expect("png").to_rgba8();
    let lit = |p: &image::Rgba<u8>| p.0[..3].iter().map(|&c| u32::from(c)).sum::<u32>() > 450;
    let bright = image.pixels().filter(|p| lit(p)).count();
    // Three segments about 100 pixels long, one pixel wide: lines, not filled triangles.
    eprintln!("{bright} lit pixels");
    assert!((150..2000).contains(&bright), "{bright} lit pixels");
}
