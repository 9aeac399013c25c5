//! The USD loader (the openusd crate plus dqview's conversion) on arbitrary bytes: it must
//! return a scene or an error, never panic or hang; a loaded scene skins to finite vertices.
//!
//! The crate opens stages from files, so each input is written to a scratch file named for
//! its content (`PXR-USDC` magic: `.usdc`, `PK`: `.usdz`, else `.usda`) and loaded from there.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// `LoadOptions::max_buffer_bytes` for fuzzing: 256 MiB.
const FUZZ_BUDGET: u64 = 256 << 20;

fuzz_target!(
    init: {
        // dqview catches a panic inside the openusd crate and reports it as a one-line load
        // error (src/scene/usd_load), as the CLI does; libfuzzer-sys's own hook would abort on
        // it first. A panic that escapes dqview still aborts: libfuzzer-sys catches it around
        // each input and aborts.
        std::panic::set_hook(Box::new(|_| {}));
    },
    |bytes: &[u8]| {
    let ext = if bytes.starts_with(b"PXR-USDC") {
        "usdc"
    } else if bytes.starts_with(b"PK") {
        "usdz"
    } else {
        "usda"
    };
    let path = std::env::temp_dir().join(format!("dqview-fuzz-{}.{ext}", std::process::id()));
    if std::fs::write(&path, bytes).is_err() {
        return;
    }
    let options = dqview::scene::LoadOptions {
        max_buffer_bytes: FUZZ_BUDGET,
        ..dqview::scene::LoadOptions::DEFAULT
    };
    match dqview::scene::load_usd_path_with(&path, &options) {
        Ok(scene) => {
            let mut pose = dqview::anim::Pose::rest(&scene);
            if !scene.animations.is_empty() {
                let overrides = dqview::anim::JointOverrides::new();
                pose.sample(&scene, Some(0), 0.5, &overrides);
            }
            for mode in dqview::skin::SkinningMode::ALL {
                let posed = dqview::skin::skin_scene(
                    &scene,
                    &pose,
                    mode,
                    dqview::skin::Betas::Uniform(0.5),
                );
                for p in &posed {
                    assert!(p.vertices.positions.iter().all(|v| v.is_finite()));
                    assert!(p.vertices.normals.iter().all(|v| v.is_finite()));
                }
            }
        }
        // Errors are one line.
        Err(e) => assert!(!e.to_string().contains('\n'), "{e}"),
    }
}
);
