//! Big hierarchies (issue 22, item 7): `report` on a file with very many nodes must cost about
//! what `analyze` costs, not grow with the square of the node count.
//!
//! `write_big_hierarchy` (ignored; run it by name) writes the timing file:
//! `DQVIEW_BIG_NODES=1000000 cargo test --release --test big_hierarchy -- --ignored --nocapture`
//! prints its path, to time `dqview report FILE --no-renders` against `dqview analyze FILE`.

mod support;

use dqview::anim::{JointOverrides, Pose};
use dqview::scene::load_gltf_slice;
use dqview::skin::{Betas, SkinningMode, skin_scene};
use support::hierarchy::{Shape, big_hierarchy_glb};

#[test]
fn posing_walks_only_the_nodes_skinning_reads_and_skins_as_without_the_extra_nodes() {
    let small = load_gltf_slice(&big_hierarchy_glb(3, Shape::Chain), None, "small").unwrap();
    for shape in [Shape::Chain, Shape::Wide] {
        let big = load_gltf_slice(&big_hierarchy_glb(5000, shape), None, "big").unwrap();
        let mut pose = Pose::rest(&big);
        // The mesh node, the root joint and the twisting joint; not the 4997 nodes below it.
        assert_eq!(pose.live_nodes(), [0, 1, 2], "{shape:?}");
        let mut small_pose = Pose::rest(&small);
        for k in 0..=4 {
            let t = k as f32 / 4.0;
            pose.sample(&big, Some(0), t, &JointOverrides::new());
            small_pose.sample(&small, Some(0), t, &JointOverrides::new());
            for mode in [SkinningMode::Lbs, SkinningMode::Dqs] {
                let a = skin_scene(&big, &pose, mode, Betas::Uniform(0.0));
                let b = skin_scene(&small, &small_pose, mode, Betas::Uniform(0.0));
                assert_eq!(
                    a[0].vertices.positions, b[0].vertices.positions,
                    "{shape:?} {mode:?} t={t}"
                );
            }
            // The twist really moved the tube's top ring (so equal is not trivially rest).
            if k == 4 {
                let rest = skin_scene(
                    &small,
                    &Pose::rest(&small),
                    SkinningMode::Lbs,
                    Betas::Uniform(0.0),
                );
                let moved = skin_scene(&small, &small_pose, SkinningMode::Lbs, Betas::Uniform(0.0));
                let top =
                    (moved[0].vertices.positions[12] - rest[0].vertices.positions[12]).length();
                assert!(top > 0.1, "top ring moved {top}");
            }
        }
        // A plain node keeps its rest global: nothing reads it.
        assert_eq!(pose.global[4000], Pose::rest(&big).global[4000]);
    }
}

#[test]
#[ignore = "writes a large file for timing by hand"]
fn write_big_hierarchy() {
    let nodes: usize = std::env::var("DQVIEW_BIG_NODES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000_000);
    let shape = match std::env::var("DQVIEW_BIG_SHAPE").as_deref() {
        Ok("wide") => Shape::Wide,
        _ => Shape::Chain,
    };
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("big_hierarchy_{nodes}_{shape:?}.glb"));
    std::fs::write(&path, big_hierarchy_glb(nodes, shape)).expect("write");
    println!("{}", path.display());
}
