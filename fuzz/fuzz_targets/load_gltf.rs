//! The glTF loader on arbitrary bytes: it must return a scene or an error, never panic, hang or
//! allocate what an unchecked count claims (run with `-malloc_limit_mb`, see README "Fuzzing").
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    if let Ok(scene) = dqview::scene::load_gltf_slice(bytes, None, "fuzz") {
        // A loaded scene is fit for skinning: every output is finite.
        let pose = dqview::anim::Pose::rest(&scene);
        for mode in dqview::skin::SkinningMode::ALL {
            let posed =
                dqview::skin::skin_scene(&scene, &pose, mode, dqview::skin::Betas::Uniform(0.5));
            for p in &posed {
                assert!(p.vertices.positions.iter().all(|v| v.is_finite()));
                assert!(p.vertices.normals.iter().all(|v| v.is_finite()));
                assert!(p.vertices.tangents.iter().all(|v| v.is_finite()));
            }
        }
    }
});
