//! Damaged FBX files: truncated and byte-flipped copies of every test file load to a
//! scene or a clear error, never a panic; what loads skins to finite vertices.

mod support;

use std::path::Path;

use dqview::anim::{JointOverrides, Pose, clip_duration_s};
use dqview::scene::{LoadOptions, SceneError, load_fbx_slice_with};
use dqview::skin::{Betas, SkinningMode, skin_scene};

/// Loads `bytes` and, when that works, poses and skins the scene; returns the error text if any.
fn load_and_skin(bytes: &[u8], base: &Path, what: &str) -> Option<String> {
    match load_fbx_slice_with(bytes, Some(base), what, &LoadOptions::DEFAULT) {
        Ok(scene) => {
            let mut pose = Pose::rest(&scene);
            if let Some(anim) = scene.animations.first() {
                pose.sample(
                    &scene,
                    Some(0),
                    0.5 * clip_duration_s(anim),
                    &JointOverrides::new(),
                );
            }
            for mode in SkinningMode::ALL {
                for p in skin_scene(&scene, &pose, mode, Betas::Uniform(0.5)) {
                    assert!(
                        p.vertices.positions.iter().all(|v| v.is_finite()),
                        "{what}: non-finite {mode} position"
                    );
                }
            }
            None
        }
        Err(e) => {
            let text = e.to_string();
            assert!(!text.is_empty(), "{what}: empty error message");
            assert!(
                matches!(e, SceneError::Fbx(_) | SceneError::LimitExceeded { .. }),
                "{what}: unexpected error kind: {text}"
            );
            Some(text)
        }
    }
}

/// A small deterministic generator (SplitMix64), so failures reproduce.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[test]
fn truncated_and_flipped_fbx_files_never_panic() {
    let Some(dir) = support::data_dir("DQVIEW_FBX", "truncated_and_flipped_fbx_files_never_panic")
    else {
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("read DQVIEW_FBX")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("fbx")))
        .collect();
    files.sort();
    assert!(
        files.len() >= 6,
        "expected the six FBX test files in {}",
        dir.display()
    );
    let mut rng = 0x5EED_u64;
    let (mut loaded, mut refused) = (0, 0);
    for path in &files {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?");
        let bytes = std::fs::read(path).expect("read FBX");
        assert!(
            load_and_skin(&bytes, &dir, name).is_none(),
            "{name}: the intact file must load"
        );
        let len = bytes.len();
        let cuts = [
            0,
            1,
            10,
            27,
            100,
            len / 8,
            len / 4,
            len / 2,
            3 * len / 4,
            len - 1,
        ];
        for cut in cuts {
            let what = format!("{name} cut at {cut} of {len}");
            match load_and_skin(&bytes[..cut], &dir, &what) {
                Some(_) => refused += 1,
                None => loaded += 1,
            }
        }
        for round in 0..24 {
            let mut copy = bytes.clone();
            // One to eight flipped bytes per copy, anywhere in the file.
            let flips = 1 + next(&mut rng) % 8;
            for _ in 0..flips {
                let at = (next(&mut rng) % len as u64) as usize;
                copy[at] ^= 1 << (next(&mut rng) % 8);
            }
            let what = format!("{name} flip round {round}");
            match load_and_skin(&copy, &dir, &what) {
                Some(_) => refused += 1,
                None => loaded += 1,
            }
        }
    }
    // The empty file and the tiny cuts are never FBX, so some copies must be refused.
    assert!(
        refused >= 3 * files.len(),
        "only {refused} damaged copies refused"
    );
    eprintln!("damaged FBX copies: {loaded} loaded, {refused} refused with an error");
}
