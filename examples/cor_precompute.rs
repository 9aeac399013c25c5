//! Times the CoR precompute (naive, exact pair buckets, clustered) on a model and reports
//! the fast methods' error against the naive formula.
//!
//! `cargo run --release --example cor_precompute -- MODEL|gen:VERTICES [--no-naive]`

use std::time::Instant;

use dqview::builtin::generated_rig;
use dqview::model::load_model;
use dqview::skin::{CorMethod, CorOptions, CorProgress, cor_centers};
use glam::Vec3;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let spec = args.first().map_or("builtin:elbow", String::as_str);
    let naive = !args.iter().any(|a| a == "--no-naive");
    let scene = match spec.strip_prefix("gen:") {
        Some(n) => generated_rig(n.parse()?, 32),
        None => load_model(spec)?,
    };
    let threads = rayon::current_num_threads();
    let mut reference: Vec<Vec<Vec3>> = Vec::new();
    let mut methods = vec![
        ("exact", CorMethod::PairBuckets),
        ("clustered64", CorMethod::Clustered { bins: 64 }),
        ("clustered32", CorMethod::Clustered { bins: 32 }),
    ];
    if naive {
        methods.insert(0, ("naive", CorMethod::Naive));
    }
    for subdivide in [true, false] {
        reference.clear();
        for &(name, method) in &methods {
            let options = CorOptions {
                method,
                subdivide,
                ..CorOptions::default()
            };
            let start = Instant::now();
            let mut all = Vec::new();
            let mut vertices = 0;
            let mut triangles = 0;
            for prim in scene.meshes.iter().flat_map(|m| &m.primitives) {
                let Some(influences) = &prim.influences else {
                    continue;
                };
                vertices += prim.positions.len();
                triangles += prim.indices.len() / 3;
                let progress = CorProgress::new();
                all.push(cor_centers(
                    &prim.positions,
                    &prim.indices,
                    influences,
                    &options,
                    &progress,
                )?);
            }
            let seconds = start.elapsed().as_secs_f64();
            // Error against the first method run (naive when it runs, else exact).
            let (mut max_err, mut sum_err, mut n) = (0.0f32, 0.0f64, 0usize);
            if reference.is_empty() {
                reference = all.clone();
            } else {
                for (prim, (a, b)) in scene
                    .meshes
                    .iter()
                    .flat_map(|m| &m.primitives)
                    .filter(|p| p.influences.is_some())
                    .zip(reference.iter().zip(&all))
                {
                    let (lo, hi) = prim
                        .positions
                        .iter()
                        .fold((Vec3::MAX, Vec3::MIN), |(l, h), &p| (l.min(p), h.max(p)));
                    let diagonal = (hi - lo).length().max(1e-12);
                    for (x, y) in a.iter().zip(b) {
                        let e = (*x - *y).length() / diagonal;
                        max_err = max_err.max(e);
                        sum_err += f64::from(e);
                        n += 1;
                    }
                }
            }
            println!(
                "{spec} subdivide={subdivide} {name:<12} {vertices} vertices {triangles} triangles, {threads} threads: {seconds:.3} s; error vs {}: max {max_err:.2e}, mean {:.2e} of the diagonal",
                methods[0].0,
                sum_err / n.max(1) as f64
            );
        }
    }
    Ok(())
}
