//! Cost that follows the work (issue 35, item 6): `analyze` of a 48-vertex mesh bound to
//! 100,000 joints must cost about what posing 100,000 joints and skinning 48 vertices cost, not
//! joints times vertices.
//!
//! `write_many_joints` (ignored; run it by name) writes the timing files:
//! `cargo test --release --test analyze_cost -- --ignored --nocapture` prints their paths, to
//! time `dqview analyze FILE` and `dqview analyze FILE --clip wave --samples 4`.

use dqview::analysis::{AnalyzeOptions, analyze};
use dqview::anim::JointOverrides;
use dqview::scene::{Scene, load_gltf_slice};
use dqview::skin::{
    BetaSources, CorOptions, CorProgress, SceneCenters, cpu_skinned_vertices, hybrid_betas,
    work_visits,
};
use serde_json::{Value, json};

/// Joints in the big skin: the most `--max-joints` allows by default.
const JOINTS: usize = 100_000;

/// How the skin's joints hang.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// Every joint but the first a child of the first.
    Flat,
    /// Each joint the child of the one before.
    Chain,
}

/// Little-endian bytes of `values`.
fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Rest translation of joint `k` relative to its parent: joint 1 one unit above the root, joint
/// 2 one unit above joint 1 (so 2 above the root), the rest where their parent is.
fn joint_translation(k: usize, shape: Shape) -> [f32; 3] {
    match (k, shape) {
        (1, _) | (2, Shape::Chain) => [0.0, 1.0, 0.0],
        (2, Shape::Flat) => [0.0, 2.0, 0.0],
        _ => [0.0; 3],
    }
}

/// Rest height of joint `k` above the root.
fn joint_height(k: usize, shape: Shape) -> f32 {
    match (k, shape) {
        (0, _) | (3.., Shape::Flat) => 0.0,
        (1, _) => 1.0,
        _ => 2.0,
    }
}

/// A closed square tube of 12 rings of 4 vertices (48), 3 units tall, capped, weighted across
/// joints 0, 1 and 2 by height: (positions, joints, weights, indices).
fn tube() -> (Vec<f32>, Vec<u8>, Vec<f32>, Vec<u16>) {
    let (mut positions, mut joints, mut weights) = (Vec::new(), Vec::new(), Vec::new());
    for ring in 0..12u8 {
        let y = f32::from(ring) * 3.0 / 11.0;
        for [x, z] in [[-0.2f32, -0.2], [0.2, -0.2], [0.2, 0.2], [-0.2, 0.2]] {
            positions.extend([x, y, z]);
            // Between joints 0 and 1 below y = 1.5, between 1 and 2 above.
            let (lower, upper, w) = if y < 1.5 {
                (0u8, 1u8, y / 1.5)
            } else {
                (1, 2, (y - 1.5) / 1.5)
            };
            joints.extend([lower, upper, 0, 0]);
            weights.extend([1.0 - w, w, 0.0, 0.0]);
        }
    }
    let mut indices: Vec<u16> = Vec::new();
    for ring in 0..11u16 {
        for side in 0..4u16 {
            let (a, b) = (ring * 4 + side, ring * 4 + (side + 1) % 4);
            indices.extend([a, b, b + 4, a, b + 4, a + 4]);
        }
    }
    indices.extend([0, 2, 1, 0, 3, 2, 44, 45, 46, 44, 46, 47]);
    (positions, joints, weights, indices)
}

/// The buffer's chunks (each 4-byte aligned) and their views.
fn pack(chunks: &[Vec<u8>]) -> (Vec<u8>, Vec<Value>) {
    let (mut bin, mut views) = (Vec::new(), Vec::new());
    for c in chunks {
        views.push(json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": c.len()}));
        bin.extend_from_slice(c);
        while bin.len() % 4 != 0 {
            bin.push(0);
        }
    }
    (bin, views)
}

/// Nodes: 0 draws the tube with skin 0; node `k + 1` is joint `k`, hung per `shape`.
fn nodes(joints: usize, shape: Shape) -> Vec<Value> {
    let mut all = vec![json!({"name": "tube", "mesh": 0, "skin": 0})];
    all.extend(
        (0..joints)
            .map(|k| json!({"name": format!("j{k}"), "translation": joint_translation(k, shape)})),
    );
    match shape {
        Shape::Flat => all[1]["children"] = json!((2..=joints).collect::<Vec<_>>()),
        Shape::Chain => {
            for (n, node) in all.iter_mut().enumerate().take(joints).skip(1) {
                node["children"] = json!([n + 1]);
            }
        }
    }
    all
}

/// A GLB: the 48-vertex tube bound to a skin of `joints` joints hung per `shape`, and a 1 s
/// clip `wave` that twists joints 1 and 2 by 90 degrees about +Y.
fn many_joints_glb(joints: usize, shape: Shape) -> Vec<u8> {
    assert!(joints >= 3);
    let (positions, joint_ids, weights, indices) = tube();
    let mut inverse_bind = Vec::with_capacity(16 * joints);
    for k in 0..joints {
        let y = joint_height(k, shape);
        inverse_bind.extend([
            1.0f32, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0,
        ]);
        inverse_bind.extend([0.0, -y, 0.0, 1.0]);
    }
    let half = std::f32::consts::FRAC_1_SQRT_2;
    let (bin, views) = pack(&[
        f32_bytes(&positions),
        joint_ids,
        f32_bytes(&weights),
        indices.iter().flat_map(|v| v.to_le_bytes()).collect(),
        f32_bytes(&inverse_bind),
        f32_bytes(&[0.0, 1.0]),
        f32_bytes(&[0.0, 0.0, 0.0, 1.0, 0.0, half, 0.0, half]),
    ]);
    let channel = |node: usize| json!({"sampler": 0, "target": {"node": node, "path": "rotation"}});
    let root = json!({
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": views,
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 48, "type": "VEC3",
             "min": [-0.2, 0.0, -0.2], "max": [0.2, 3.0, 0.2]},
            {"bufferView": 1, "componentType": 5121, "count": 48, "type": "VEC4"},
            {"bufferView": 2, "componentType": 5126, "count": 48, "type": "VEC4"},
            {"bufferView": 3, "componentType": 5123, "count": indices.len(), "type": "SCALAR"},
            {"bufferView": 4, "componentType": 5126, "count": joints, "type": "MAT4"},
            {"bufferView": 5, "componentType": 5126, "count": 2, "type": "SCALAR",
             "min": [0.0], "max": [1.0]},
            {"bufferView": 6, "componentType": 5126, "count": 2, "type": "VEC4"},
        ],
        "meshes": [{"primitives": [{
            "attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2}, "indices": 3,
        }]}],
        "skins": [{"joints": (1..=joints).collect::<Vec<_>>(), "inverseBindMatrices": 4}],
        "animations": [{
            "name": "wave",
            "samplers": [{"input": 5, "output": 6}],
            "channels": [channel(2), channel(3)],
        }],
        "nodes": nodes(joints, shape),
        "scenes": [{"nodes": [0, 1]}],
        "scene": 0,
    });
    dqview::scene::glb_container(root.to_string().into_bytes(), bin).expect("GLB")
}

/// `analyze` as the CLI runs it (every mode, CoR included) over `samples` of the clip, or at
/// rest when `samples` is 0: the joint and vertex entries its passes visited.
fn analyze_visits(scene: &Scene, samples: usize) -> u64 {
    let overrides = JointOverrides::new();
    let clip = (samples > 0).then_some(0);
    let centers = SceneCenters::compute(scene, &CorOptions::default(), &CorProgress::new());
    // The hybrid's default betas (joint flags) are part of the work: they look at every joint.
    let before = work_visits() + cpu_skinned_vertices();
    let options = AnalyzeOptions {
        clip,
        samples: samples.max(1),
        hybrid: hybrid_betas(scene, &BetaSources::stored(clip, &overrides)).betas,
        hybrid_scale: 1.0,
        cor_centers: Some(centers.expect("centers")),
        ..AnalyzeOptions::default()
    };
    let analysis = analyze(scene, &options, &|_, _| {});
    assert_eq!(analysis.times_s.len(), samples.max(1));
    work_visits() + cpu_skinned_vertices() - before
}

#[test]
fn analyze_work_follows_joints_plus_vertices_not_their_product() {
    // 4 modes per sample, each skinned and measured: a few passes over the joints and the 48
    // vertices apiece (about 7.5 entries per mode-sample). Before the fix the bulge's skeleton
    // searched the joint list per joint (4e10 visits at rest, flat) and the clip's joint flags
    // searched every skin per joint's child (1e10 on the chain); joints times vertices would be
    // 4.8e6 per mode-sample, far above this bound.
    let units = (JOINTS + 48) as u64;
    for shape in [Shape::Flat, Shape::Chain] {
        let scene = load_gltf_slice(&many_joints_glb(JOINTS, shape), None, "many").expect("load");
        for samples in [0, 4] {
            let visits = analyze_visits(&scene, samples);
            let passes = 4 * samples.max(1) as u64;
            assert!(
                visits < 16 * passes * units,
                "{shape:?}, {samples} samples: {visits} visits for {passes} mode-samples of \
                 {JOINTS} joints and 48 vertices"
            );
            println!(
                "{shape:?} samples {samples}: {visits} visits ({:.2} per mode-sample per entry)",
                visits as f64 / (passes * units) as f64
            );
        }
    }
}

#[test]
#[ignore = "writes large files for timing by hand"]
fn write_many_joints() {
    for shape in [Shape::Flat, Shape::Chain] {
        let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("many_joints_{JOINTS}_{shape:?}.glb"));
        std::fs::write(&path, many_joints_glb(JOINTS, shape)).expect("write");
        println!("{}", path.display());
    }
}
