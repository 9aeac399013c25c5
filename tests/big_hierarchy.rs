//! Big hierarchies (issue 22, item 7): `report` on a file with very many nodes must cost about
//! what `analyze` costs, not grow with the square of the node count.
//!
//! `write_big_hierarchy` (ignored; run it by name) writes the timing file:
//! `DQVIEW_BIG_NODES=1000000 cargo test --release --test big_hierarchy -- --ignored --nocapture`
//! prints its path, to time `dqview report FILE --no-renders` against `dqview analyze FILE`.

mod support;

use support::hierarchy::{Shape, big_hierarchy_glb};

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
