//! Center-of-rotation skinning: CPU reference properties, the precompute's accuracy,
//! and the analyze numbers (volume on the twist, bulge on the elbow).

use std::process::Command;

use dqview::anim::{JointAngles, JointOverrides, Pose, find_node};
use dqview::influences::{Influence, Influences};
use dqview::model::load_model;
use dqview::skin::{
    Betas, CorMethod, CorOptions, CorProgress, JointPalette, SceneCenters, SkinMesh,
    SkinnedVertices, SkinningMode, cor_centers, skin_scene, skin_scene_cor, skin_vertex,
    skin_vertex_cor, skin_vertices_cor,
};
use glam::{Mat4, Quat, Vec3, Vec4};

mod support;

fn centers(scene: &dqview::scene::Scene, method: CorMethod) -> SceneCenters {
    let options = CorOptions {
        method,
        ..CorOptions::default()
    };
    SceneCenters::compute(scene, &options, &CorProgress::new()).expect("centers")
}

fn bent(scene: &dqview::scene::Scene, joint: &str, angles: JointAngles) -> Pose {
    let node = find_node(scene, joint).expect("joint");
    let mut overrides = JointOverrides::new();
    overrides.set(node, angles);
    let mut pose = Pose::rest(scene);
    pose.sample(scene, None, 0.0, &overrides);
    pose
}

#[test]
fn single_influence_vertices_are_lbs_on_the_elbow() {
    let scene = load_model("builtin:elbow").expect("builtin");
    let pose = bent(
        &scene,
        "lower",
        JointAngles {
            bend_deg: 90.0,
            ..JointAngles::default()
        },
    );
    let c = centers(&scene, CorMethod::Clustered { bins: 64 });
    let cor = skin_scene_cor(&scene, &pose, &c);
    let lbs = skin_scene(&scene, &pose, SkinningMode::Lbs, Betas::Uniform(0.0));
    let prim = &scene.meshes[0].primitives[0];
    let influences = prim.influences.as_ref().expect("skinned");
    let (mut single, mut blended_moved) = (0, 0);
    for (v, row) in influences.iter().enumerate() {
        let (a, b) = (cor[0].vertices.positions[v], lbs[0].vertices.positions[v]);
        if row.len() == 1 {
            assert!(a.abs_diff_eq(b, 1e-5), "vertex {v}: CoR {a} LBS {b}");
            single += 1;
        } else if (a - b).length() > 1e-3 {
            blended_moved += 1;
        }
    }
    assert!(single > 1000, "{single}");
    // In the blend zone CoR differs from LBS (it does not pinch).
    assert!(blended_moved > 100, "{blended_moved}");
}

#[test]
fn influences_sharing_one_transform_move_rigidly() {
    let m = Mat4::from_rotation_translation(
        Quat::from_axis_angle(Vec3::new(1.0, 2.0, -0.5).normalize(), 2.1),
        Vec3::new(0.3, -1.0, 2.0),
    );
    let palette = JointPalette::from_matrices(&[m, m, m]);
    let inf = [
        Influence {
            joint: 0,
            weight: 0.5,
        },
        Influence {
            joint: 1,
            weight: 0.3,
        },
        Influence {
            joint: 2,
            weight: 0.2,
        },
    ];
    for (p, center) in [
        (Vec3::new(0.2, 0.4, -0.1), Vec3::ZERO),
        (Vec3::new(-1.0, 3.0, 0.5), Vec3::new(4.0, -2.0, 1.0)),
    ] {
        let n = Vec3::new(0.0, 0.6, 0.8);
        let (q, qn, _) = skin_vertex_cor(&palette, p, n, Vec4::X, &inf, center);
        assert!(q.abs_diff_eq(m.transform_point3(p), 1e-5), "{q}");
        assert!(qn.abs_diff_eq(m.transform_vector3(n), 1e-5), "{qn}");
    }
}

#[test]
fn cor_about_the_vertex_itself_is_lbs_and_far_centers_differ() {
    // The default (no precompute) center is the vertex: exactly LBS. A real center is not.
    let palette = JointPalette::from_matrices(&[
        Mat4::IDENTITY,
        Mat4::from_rotation_z(std::f32::consts::FRAC_PI_2),
    ]);
    let inf = [
        Influence {
            joint: 0,
            weight: 0.5,
        },
        Influence {
            joint: 1,
            weight: 0.5,
        },
    ];
    let p = Vec3::new(1.0, 0.2, 0.0);
    let lbs = skin_vertex(&palette, SkinningMode::Lbs, 0.0, p, Vec3::Y, Vec4::X, &inf);
    let own = skin_vertex(&palette, SkinningMode::Cor, 0.0, p, Vec3::Y, Vec4::X, &inf);
    assert!(lbs.0.abs_diff_eq(own.0, 1e-6));
    let about_axis = skin_vertex_cor(
        &palette,
        p,
        Vec3::Y,
        Vec4::X,
        &inf,
        Vec3::new(1.0, 0.0, 0.0),
    );
    // LBS shrinks the offset 0.2 by cos 45; CoR keeps its length.
    let lbs_center = Vec3::new(0.5, 0.5, 0.0);
    assert!(((about_axis.0 - lbs_center).length() - 0.2).abs() < 1e-5);
    assert!(((lbs.0 - lbs_center).length() - 0.2).abs() > 0.05);
}

#[test]
fn skin_vertices_cor_matches_per_vertex_calls() {
    let scene = load_model("builtin:arm").expect("builtin");
    let prim = &scene.meshes[0].primitives[0];
    let influences: &Influences = prim.influences.as_ref().expect("skinned");
    let c = centers(&scene, CorMethod::PairBuckets);
    let mut pose = Pose::rest(&scene);
    pose.sample(&scene, Some(0), 1.0, &JointOverrides::new());
    let mut matrices = Vec::new();
    pose.skinning_matrices(&scene, 0, &mut matrices);
    let palette = JointPalette::from_matrices(&matrices);
    let mesh = SkinMesh {
        positions: &prim.positions,
        normals: &prim.normals,
        tangents: &[],
        influences,
    };
    let mut out = SkinnedVertices::default();
    skin_vertices_cor(&palette, &mesh, c.of(0, 0), &mut out);
    assert_eq!(out.positions.len(), prim.positions.len());
    assert!(out.tangents.is_empty());
    for v in (0..prim.positions.len()).step_by(37) {
        let (p, n, _) = skin_vertex_cor(
            &palette,
            prim.positions[v],
            prim.normals[v],
            Vec4::X,
            influences.of(v),
            c.of(0, 0)[v],
        );
        assert_eq!(out.positions[v], p);
        assert_eq!(out.normals[v], n);
    }
}

/// Largest distance between two center lists over a diagonal.
fn max_error(a: &[Vec3], b: &[Vec3], diagonal: f32) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (*x - *y).length() / diagonal)
        .fold(0.0, f32::max)
}

#[test]
fn fast_methods_agree_with_the_naive_formula() {
    let mut scenes = vec![
        load_model("builtin:elbow").expect("builtin"),
        load_model("builtin:arm").expect("builtin"),
    ];
    if let Some(dir) = support::data_dir(
        "DQVIEW_SAMPLES",
        "fast_methods_agree_with_the_naive_formula",
    ) {
        scenes.push(load_model(dir.join("CesiumMan.glb").to_str().expect("utf-8")).expect("loads"));
    }
    for scene in &scenes {
        let prim = &scene.meshes[0].primitives[0];
        let influences = prim.influences.as_ref().expect("skinned");
        let (lo, hi) = prim
            .positions
            .iter()
            .fold((Vec3::MAX, Vec3::MIN), |(l, h), &p| (l.min(p), h.max(p)));
        let diagonal = (hi - lo).length();
        let run = |method| {
            let options = CorOptions {
                method,
                ..CorOptions::default()
            };
            cor_centers(
                &prim.positions,
                &prim.indices,
                influences,
                &options,
                &CorProgress::new(),
            )
            .expect("centers")
        };
        let naive = run(CorMethod::Naive);
        let exact = run(CorMethod::PairBuckets);
        let clustered = run(CorMethod::Clustered { bins: 64 });
        let exact_error = max_error(&naive, &exact, diagonal);
        let clustered_error = max_error(&naive, &clustered, diagonal);
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            format!(
                "{}: pair buckets {exact_error:e}, clustered(64) {clustered_error:e} of the diagonal\n",
                scene.source
            )
            .as_bytes(),
        );
        // Pair buckets sum the same terms in another order: f32 rounding only.
        assert!(exact_error < 1e-4, "{}: {exact_error}", scene.source);
        assert!(
            clustered_error < 5e-3,
            "{}: {clustered_error}",
            scene.source
        );
    }
}

fn analyze_json(args: &[&str]) -> serde_json::Value {
    let cache = std::env::temp_dir().join(format!("dqview-cor-test-cache-{}", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_dqview"))
        .env("DQVIEW_CACHE_DIR", &cache)
        .arg("analyze")
        .args(args)
        .arg("--json")
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

#[test]
fn analyze_twist_180_cor_keeps_volume_like_dqs() {
    let report = analyze_json(&["builtin:twist", "--twist", "tip=180"]);
    let cor = &report["modes"]["cor"];
    let lbs_min = report["modes"]["lbs"]["min_volume_ratio"]
        .as_f64()
        .expect("lbs");
    let min = cor["min_volume_ratio"].as_f64().expect("cor min");
    let max = cor["max_volume_ratio"].as_f64().expect("cor max");
    assert!(lbs_min < 0.85, "LBS {lbs_min}");
    assert!(
        (min - 1.0).abs() < 0.02 && (max - 1.0).abs() < 0.02,
        "CoR {min}..{max}"
    );
    // The existing keys stay.
    for mode in ["lbs", "dqs", "hybrid"] {
        assert!(
            report["modes"][mode]["min_volume_ratio"].is_number(),
            "{mode}"
        );
    }
}

#[test]
fn analyze_elbow_90_cor_bulges_less_than_dqs_and_compensation_helps() {
    let report = analyze_json(&[
        "builtin:elbow",
        "--bend",
        "lower=90",
        "--bulge-compensation",
        "1",
    ]);
    let bulge = |mode: &str| {
        report["modes"][mode]["bulge"]
            .as_f64()
            .unwrap_or_else(|| panic!("{mode} bulge in {report}"))
    };
    let (lbs, dqs, cor) = (bulge("lbs"), bulge("dqs"), bulge("cor"));
    let compensated = report["dqs_compensated"]["bulge"]
        .as_f64()
        .expect("compensated bulge");
    // DQS bulges visibly at 90 degrees; CoR clearly less; LBS does not bulge outwards.
    assert!(dqs > 0.05, "DQS bulge {dqs}");
    assert!(cor < 0.7 * dqs, "CoR {cor} vs DQS {dqs}");
    assert!(lbs < 0.5 * dqs, "LBS {lbs} vs DQS {dqs}");
    assert!(
        compensated < 0.5 * dqs,
        "compensated {compensated} vs DQS {dqs}"
    );
    assert_eq!(report["dqs_compensated"]["amount"].as_f64(), Some(1.0));
}
