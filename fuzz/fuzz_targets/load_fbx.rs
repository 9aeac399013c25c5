//! The FBX loader (ufbx plus dqview's conversion) on arbitrary bytes: it must return a scene
//! or an error, never panic or hang; a loaded scene skins to finite vertices in every mode.
//!
//! The memory budget (`max_buffer_bytes`, which bounds each of ufbx's allocators) is 256 MiB,
//! below `-malloc_limit_mb=1024`: an input (a few MB at most) that makes anything ask for
//! more than 1 GiB at once is then a bug in dqview's bounds, not a budget too loose to catch it.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// `LoadOptions::max_buffer_bytes` for fuzzing: 256 MiB (the barbarian character needs 3 MB).
const FUZZ_BUDGET: u64 = 256 << 20;

fuzz_target!(|bytes: &[u8]| {
    let options = dqview::scene::LoadOptions {
        max_buffer_bytes: FUZZ_BUDGET,
        ..dqview::scene::LoadOptions::DEFAULT
    };
    if let Ok(scene) = dqview::scene::load_fbx_slice_with(bytes, None, "fuzz", &options) {
        let mut pose = dqview::anim::Pose::rest(&scene);
        if !scene.animations.is_empty() {
            let overrides = dqview::anim::JointOverrides::new();
            pose.sample(&scene, Some(0), 0.5, &overrides);
        }
        for mode in dqview::skin::SkinningMode::ALL {
            let posed =
                dqview::skin::skin_scene(&scene, &pose, mode, dqview::skin::Betas::Uniform(0.5));
            for p in &posed {
                assert!(p.vertices.positions.iter().all(|v| v.is_finite()));
                assert!(p.vertices.normals.iter().all(|v| v.is_finite()));
            }
        }
    }
});
