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
                matches!(
                    e,
                    SceneError::Fbx(_)
                        | SceneError::LimitExceeded { .. }
                        | SceneError::MemoryLimit { .. }
                ),
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

/// Loads `bytes` (which must load), then cut copies and `rounds` byte-flipped copies;
/// returns how many damaged copies loaded and how many were refused.
fn damage(bytes: &[u8], dir: &Path, name: &str, rounds: usize, rng: &mut u64) -> (usize, usize) {
    assert!(
        load_and_skin(bytes, dir, name).is_none(),
        "{name}: the intact file must load"
    );
    let (mut loaded, mut refused) = (0, 0);
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
        match load_and_skin(&bytes[..cut], dir, &what) {
            Some(_) => refused += 1,
            None => loaded += 1,
        }
    }
    for round in 0..rounds {
        let mut copy = bytes.to_vec();
        // One to eight flipped bytes per copy, anywhere in the file.
        let flips = 1 + next(rng) % 8;
        for _ in 0..flips {
            let at = (next(rng) % len as u64) as usize;
            copy[at] ^= 1 << (next(rng) % 8);
        }
        let what = format!("{name} flip round {round}");
        match load_and_skin(&copy, dir, &what) {
            Some(_) => refused += 1,
            None => loaded += 1,
        }
    }
    (loaded, refused)
}

/// The hand-written blend shape file (ASCII, so flips hit numbers, names and braces).
#[test]
fn damaged_blend_shape_fbx_never_panics() {
    let text = support::fbx_shapes::blend_shape_fbx();
    let mut rng = 0xB1E4_u64;
    let (loaded, refused) = damage(
        text.as_bytes(),
        Path::new("."),
        "blend shapes",
        200,
        &mut rng,
    );
    assert!(refused >= 3, "only {refused} damaged copies refused");
    eprintln!("damaged blend shape copies: {loaded} loaded, {refused} refused with an error");
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
        let (l, r) = damage(&bytes, &dir, name, 24, &mut rng);
        loaded += l;
        refused += r;
    }
    // The empty file and the tiny cuts are never FBX, so some copies must be refused.
    assert!(
        refused >= 3 * files.len(),
        "only {refused} damaged copies refused"
    );
    eprintln!("damaged FBX copies: {loaded} loaded, {refused} refused with an error");
}
