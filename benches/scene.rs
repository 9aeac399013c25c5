//! Criterion bench: loading CesiumMan and sampling its clip 1,000 times (needs DQVIEW_SAMPLES).

use criterion::{Criterion, criterion_group, criterion_main};
use dqview::anim::{JointOverrides, Pose, clip_duration_s};
use dqview::model::load_model;
use std::hint::black_box;

fn bench_cesium_man(c: &mut Criterion) {
    let Some(dir) = std::env::var_os("DQVIEW_SAMPLES") else {
        eprintln!(
            "SKIPPED scene bench: DQVIEW_SAMPLES is not set (point it at ../shared/testdata/models)"
        );
        return;
    };
    let path = std::path::Path::new(&dir).join("CesiumMan.glb");
    let path = path.to_string_lossy().into_owned();
    let Ok(scene) = load_model(&path) else {
        eprintln!("SKIPPED scene bench: cannot load {path}");
        return;
    };
    let duration = clip_duration_s(&scene.animations[0]);
    let none = JointOverrides::new();
    c.bench_function("cesium_man_load", |b| {
        b.iter(|| load_model(black_box(&path)))
    });
    c.bench_function("cesium_man_sample_1000", |b| {
        let mut pose = Pose::rest(&scene);
        let mut matrices = Vec::new();
        b.iter(|| {
            for k in 0..1000 {
                pose.sample(&scene, Some(0), duration * k as f32 / 1000.0, &none);
                pose.skinning_matrices(&scene, 0, &mut matrices);
            }
            black_box(&matrices);
        });
    });
}

criterion_group!(benches, bench_cesium_man);
criterion_main!(benches);
