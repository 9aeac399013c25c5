//! The check against the shared USD files, damaged copies of them and small hand-made values.

use super::values::check_fields;
use super::*;

/// The cap the tests check with: the loader's default.
const CAP: u64 = crate::scene::LoadOptions::DEFAULT_MAX_BUFFER_BYTES;

/// The shared USD characters and tubes in `$DQVIEW_USD`.
pub(in crate::scene::usd_load) const SHARED_USD_FILES: [&str; 6] = [
    "Adventurer.usdc",
    "RobotExpressive.usdc",
    "tube_blendshape.usda",
    "tube_dqs.usda",
    "tube_lbs.usda",
    "tube_package.usdz",
];

/// The bytes of `$DQVIEW_USD/name`, or `None` (a skip) as [`shared_usd_path`] says.
pub(in crate::scene::usd_load) fn shared_usd(name: &str) -> Option<Vec<u8>> {
    shared_usd_path(name).map(|path| std::fs::read(path).expect(name))
}

/// `$DQVIEW_USD/name`, or `None` (a skip) when the variable is unset and data is not required.
pub(in crate::scene::usd_load) fn shared_usd_path(name: &str) -> Option<std::path::PathBuf> {
    match std::env::var_os("DQVIEW_USD") {
        Some(dir) => Some(std::path::Path::new(&dir).join(name)),
        None => {
            assert!(
                std::env::var_os("DQVIEW_REQUIRE_DATA").is_none(),
                "DQVIEW_USD is not set, and DQVIEW_REQUIRE_DATA is"
            );
            eprintln!("SKIPPED: DQVIEW_USD is not set");
            None
        }
    }
}

/// The file's structure, as the check reads it.
fn structure_of(bytes: &[u8]) -> Structure {
    let limits = Limits {
        len: bytes.len() as u64,
        max_bytes: CAP,
    };
    structure(bytes, &limits).expect("structure")
}

/// The start of section `name`.
fn section_start(bytes: &[u8], name: &str) -> usize {
    let toc = u64::from_le_bytes(bytes[16..24].try_into().unwrap()) as usize;
    let count = u64::from_le_bytes(bytes[toc..toc + 8].try_into().unwrap()) as usize;
    (0..count)
        .map(|i| toc + 8 + 32 * i)
        .find(|&at| bytes[at..at + 16].split(|&b| b == 0).next() == Some(name.as_bytes()))
        .map(|at| u64::from_le_bytes(bytes[at + 16..at + 24].try_into().unwrap()) as usize)
        .expect(name)
}

/// `bytes` with the u64 at `at` replaced by `value`.
fn patched(bytes: &[u8], at: usize, value: u64) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[at..at + 8].copy_from_slice(&value.to_le_bytes());
    out
}

/// Asserts `bytes` are refused with a one-line message containing `needle`.
fn refused(bytes: &[u8], needle: &str) {
    let err = check_layer_bytes(bytes, CAP).expect_err(needle);
    assert!(err.contains(needle), "{err}");
    assert!(!err.contains('\n'), "{err}");
}

/// The payload of the first field whose rep matches `pick` (type, array, inlined, compressed).
fn payload_of(bytes: &[u8], pick: impl Fn(u64, bool, bool, bool) -> bool) -> usize {
    let rep = structure_of(bytes)
        .reps
        .into_iter()
        .find(|&r| {
            let flag = |bit: u32| r & 1 << bit != 0;
            (r & ((1 << 48) - 1)) != 0 && pick((r >> 48) & 0xff, flag(63), flag(62), flag(61))
        })
        .expect("a matching field");
    (rep & ((1 << 48) - 1)) as usize
}

#[test]
fn the_shared_usd_files_pass_unchanged() {
    for name in SHARED_USD_FILES {
        let Some(bytes) = shared_usd(name) else {
            return;
        };
        let started = std::time::Instant::now();
        check_layer_bytes(&bytes, CAP).unwrap_or_else(|e| panic!("{name}: {e}"));
        eprintln!("{name}: checked in {:?}", started.elapsed());
    }
    let package = shared_usd("tube_package.usdz").unwrap();
    let entries = zip::entries(&package).unwrap();
    assert_eq!(entries.len(), 1);
    assert!(entries[0].data.starts_with(MAGIC));
    check_layer_bytes(entries[0].data, CAP).unwrap();
}

#[test]
fn damaged_structure_is_refused() {
    let Some(robot) = shared_usd("RobotExpressive.usdc") else {
        return;
    };
    let tokens = section_start(&robot, "TOKENS");
    // TOKENS: count, text size, compressed size.
    refused(
        &patched(&robot, tokens + 16, 3 << 60),
        "claims 3.5e18 compressed bytes",
    );
    refused(&patched(&robot, tokens + 8, 1 << 40), "over the limit");
    refused(
        &patched(&robot, tokens + 8, 100),
        "decodes past the 100 bytes",
    );
    refused(&patched(&robot, tokens, 7), "claim 7 tokens");
    let strings = section_start(&robot, "STRINGS");
    refused(
        &patched(&robot, strings, 1 << 26),
        "claims 67,108,864 elements of 4 bytes",
    );
    let fields = section_start(&robot, "FIELDS");
    refused(&patched(&robot, fields, u64::MAX), "claims 1.8e19 integers");
    refused(
        &patched(&robot, fields, 1 << 26),
        "its block decodes to only",
    );
    let paths = section_start(&robot, "PATHS");
    refused(&patched(&robot, paths, 1 << 40), "encode only 457 entries");
    refused(
        &patched(&robot, paths + 8, 1 << 20),
        "claims 1,048,576 integers",
    );
    let specs = section_start(&robot, "SPECS");
    refused(&patched(&robot, specs, 1 << 33), "SPECS path indices");
    // The table of contents: 64 sections, and a section past the end.
    let toc = u64::from_le_bytes(robot[16..24].try_into().unwrap()) as usize;
    refused(&patched(&robot, toc, 64), "claims 64 sections");
    refused(
        &patched(&robot, toc + 8 + 16, robot.len() as u64),
        "past the end of the file",
    );
    let mut old = robot.clone();
    old[9] = 3;
    refused(&old, "older than openusd 0.6 reads");
    old[9] = 13;
    refused(&old, "newer than openusd 0.6 reads");
}

#[test]
fn damaged_values_are_refused() {
    let Some(bytes) = shared_usd("Adventurer.usdc") else {
        return;
    };
    // An uncompressed matrix array (bind transforms), its u64 count at the payload (crate 0.8).
    let matrices = payload_of(&bytes, |t, array, inlined, _| t == 15 && array && !inlined);
    refused(&patched(&bytes, matrices, 1 << 50), "elements of 128 bytes");
    // The count times 128 overflows: a panic in the reader, refused here.
    refused(
        &patched(&bytes, matrices, 1 << 60),
        "claims 1.2e18 elements",
    );
    // A compressed integer array (face vertex indices).
    let ints = payload_of(&bytes, |t, array, _, compressed| {
        t == 3 && array && compressed
    });
    refused(&patched(&bytes, ints, 1 << 40), "over the limit");
    refused(
        &patched(&bytes, ints, 1 << 24),
        "claims 16,777,216 integers, but its block decodes to only",
    );
    refused(&patched(&bytes, ints + 8, 1 << 60), "compressed bytes");
    // A token array: an index past the tokens.
    let tokens = payload_of(&bytes, |t, array, inlined, _| t == 11 && array && !inlined);
    let mut bad = bytes.clone();
    bad[tokens + 8..tokens + 12].copy_from_slice(&u32::MAX.to_le_bytes());
    refused(&bad, "names token 4294967295");
}

/// A fuzz finding of `tests/fuzz_regressions/<folder>/<name>.json` applied to its base file.
fn finding(folder: &str, name: &str) -> Option<Vec<u8>> {
    let path = format!(
        "{}/tests/fuzz_regressions/{folder}/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let patch: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let mut bytes = shared_usd(patch["base"].as_str().unwrap())?;
    for range in patch["ranges"].as_array().unwrap() {
        let at = range["offset"].as_u64().unwrap() as usize;
        let hex = range["hex"].as_str().unwrap().as_bytes();
        for (i, pair) in hex.chunks(2).enumerate() {
            bytes[at + i] = u8::from_str_radix(std::str::from_utf8(pair).unwrap(), 16).unwrap();
        }
    }
    Some(bytes)
}

#[test]
fn the_fuzz_findings_are_refused() {
    let Some(lz4) = finding("load_usd", "adventurer_usdc_lz4_size_abort") else {
        return;
    };
    let err = check_layer_bytes(&lz4, CAP).unwrap_err();
    eprintln!("{err}");
    assert!(err.contains("3.5e18"), "{err}");
    let matrices = finding("load_usd", "robot_usdc_matrix_count_overflow").unwrap();
    let err = check_layer_bytes(&matrices, CAP).unwrap_err();
    eprintln!("{err}");
}

/// A hand-made crate body: `bytes` with one token, one string naming it and two paths.
fn walk(bytes: &[u8], reps: Vec<u64>) -> Result<(), String> {
    let structure = Structure {
        version: version(0, 8, 0),
        tokens: 1,
        strings: vec![0],
        paths: 2,
        reps,
    };
    let limits = Limits {
        len: bytes.len() as u64,
        max_bytes: 1 << 30,
    };
    check_fields(bytes, &structure, &limits)
}

/// A value rep of crate type `ty` at file offset `at`.
fn rep(ty: u64, at: usize) -> u64 {
    ty << 48 | at as u64
}

/// Crate type numbers the hand-made values use.
const INT: u64 = 3;
const DOUBLE_VECTOR: u64 = 48;
const DICTIONARY: u64 = 31;
const TIME_SAMPLES: u64 = 46;

/// A dictionary at `at` of `keys` entries, each value `value`, in USD's layout (key, forward
/// offset, then the value rep).
fn dictionary(out: &mut Vec<u8>, keys: usize, value: u64) {
    out.extend_from_slice(&(keys as u64).to_le_bytes());
    for _ in 0..keys {
        out.extend_from_slice(&0_u32.to_le_bytes());
        out.extend_from_slice(&8_i64.to_le_bytes());
        out.extend_from_slice(&value.to_le_bytes());
    }
}

#[test]
fn dictionaries_nest_at_most_64_deep() {
    // Level i sits at 8 + 28 i and holds one entry: level i + 1; the last an inlined int.
    let body = |levels: usize| {
        let mut out = vec![0_u8; 8];
        for level in 0..levels {
            let next = if level + 1 == levels {
                1 << 62 | INT << 48
            } else {
                rep(DICTIONARY, 8 + 28 * (level + 1))
            };
            dictionary(&mut out, 1, next);
        }
        out
    };
    let ok = body(64);
    assert_eq!(walk(&ok, vec![rep(DICTIONARY, 8)]), Ok(()));
    let deep = body(66);
    let err = walk(&deep, vec![rep(DICTIONARY, 8)]).unwrap_err();
    assert!(err.contains("more than 64 deep"), "{err}");
    // Shared below a deep start: the walk remembers the height, not just the value.
    let err = walk(
        &deep,
        vec![rep(DICTIONARY, 8 + 28 * 10), rep(DICTIONARY, 8)],
    )
    .unwrap_err();
    assert!(err.contains("more than 64 deep"), "{err}");
    // A dictionary holding itself.
    let mut cycle = vec![0_u8; 8];
    dictionary(&mut cycle, 1, rep(DICTIONARY, 8));
    assert!(walk(&cycle, vec![rep(DICTIONARY, 8)]).is_err());
    // An entry whose offset points back at itself would be read over and over.
    let mut back = vec![0_u8; 8];
    dictionary(&mut back, 1, 1 << 62 | INT << 48);
    back[20..28].copy_from_slice(&(-4_i64).to_le_bytes());
    let err = walk(&back, vec![rep(DICTIONARY, 8)]).unwrap_err();
    assert!(err.contains("value offset of -4"), "{err}");
}

#[test]
fn shared_dictionaries_count_once_per_use() {
    // 40 levels of 2 entries each naming the next level: 2^40 entries for the reader, over the cap.
    let mut out = vec![0_u8; 8];
    for level in 0..40 {
        dictionary(&mut out, 2, rep(DICTIONARY, 8 + 48 * (level + 1)));
    }
    dictionary(&mut out, 0, 0);
    let started = std::time::Instant::now();
    let err = walk(&out, vec![rep(DICTIONARY, 8)]).unwrap_err();
    assert!(err.contains("over the limit"), "{err}");
    assert!(started.elapsed().as_secs() < 5, "the walk is linear");
}

#[test]
fn time_samples_holding_themselves_are_refused() {
    // At 8: offset to the times rep; the times (one double, at 40); offset to the count; the
    // count, then one sample: the time samples themselves.
    let mut out = vec![0_u8; 8];
    out.extend_from_slice(&8_i64.to_le_bytes());
    out.extend_from_slice(&rep(DOUBLE_VECTOR, 48).to_le_bytes());
    out.extend_from_slice(&8_i64.to_le_bytes());
    out.extend_from_slice(&1_u64.to_le_bytes());
    out.extend_from_slice(&rep(TIME_SAMPLES, 8).to_le_bytes());
    out.extend_from_slice(&1_u64.to_le_bytes());
    out.extend_from_slice(&0_f64.to_le_bytes());
    let err = walk(&out, vec![rep(TIME_SAMPLES, 8)]).unwrap_err();
    assert!(err.contains("more than 64 deep"), "{err}");
    // The same with an inlined int sample is fine.
    out[40..48].copy_from_slice(&(1 << 62 | INT << 48).to_le_bytes());
    assert_eq!(walk(&out, vec![rep(TIME_SAMPLES, 8)]), Ok(()));
}

/// A stored ZIP of `files` (name, bytes), as USD writes packages (no alignment padding here).
fn zip_of(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in files {
        let local = out.len() as u32;
        let header = |sig: u32, out: &mut Vec<u8>| {
            out.extend_from_slice(&sig.to_le_bytes());
            out.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
            out.extend_from_slice(&(data.len() as u32).to_le_bytes());
            out.extend_from_slice(&(data.len() as u32).to_le_bytes());
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(&[0, 0]);
        };
        header(0x0403_4b50, &mut out);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        central.extend_from_slice(&0x0201_4b50_u32.to_le_bytes());
        central.extend_from_slice(&[20, 0]);
        let mut rest = Vec::new();
        header(0, &mut rest);
        central.extend_from_slice(&rest[4..]);
        central.extend_from_slice(&[0; 10]);
        central.extend_from_slice(&local.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let directory = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50_u32.to_le_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]);
    out.extend_from_slice(&(files.len() as u16).to_le_bytes());
    out.extend_from_slice(&(files.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&directory.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out
}

#[test]
fn packages_are_walked_by_hand() {
    let good = zip_of(&[("root.usda", b"#usda 1.0\n"), ("tex.png", b"png")]);
    let entries = zip::entries(&good).unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[1].name, b"tex.png");
    assert_eq!(entries[1].data, b"png");
    assert_eq!(check_layer_bytes(&good, CAP), Ok(()));
    // Compressed (deflate, method 8) in the central directory.
    let central = good.len() - 22 - 2 * 46 - "root.usda".len() - "tex.png".len();
    let mut deflated = good.clone();
    deflated[central + 10] = 8;
    refused(&deflated, "is compressed (method 8)");
    // A size past the central directory.
    let mut long = good.clone();
    long[central + 20..central + 28]
        .copy_from_slice(&[0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff, 0x7f]);
    refused(&long, "past the central directory");
    // Two names for the same bytes.
    let mut twice = good.clone();
    let second = central + 46 + "root.usda".len();
    twice[second + 42..second + 46].copy_from_slice(&0_u32.to_le_bytes());
    refused(&twice, "overlap");
    refused(
        &good[..good.len() - 1],
        "no ZIP end of central directory record",
    );
    // A damaged crate file inside is refused as the file alone is.
    if let Some(robot) = shared_usd("RobotExpressive.usdc") {
        let tokens = section_start(&robot, "TOKENS");
        let bad = patched(&robot, tokens + 16, 3 << 60);
        refused(
            &zip_of(&[("robot.usdc", &bad)]),
            "USDZ entry robot.usdc: USDC TOKENS",
        );
    }
}
