//! Every input the fuzz targets (`fuzz/`) ever crashed on, replayed through the same checks.
//!
//! Inputs live in `tests/fuzz_regressions/<target>/`; add a crash file there when a fuzz target
//! finds one. FBX findings made from the shared test files stay with them, in
//! `$DQVIEW_FBX/fuzz/` (licensed ufbx data, 585 KB), and are replayed from there. The check
//! functions mirror `fuzz/fuzz_targets/*.rs`: keep them in sync.

mod support;

use std::path::Path;

use dqview::anim::{JointOverrides, Pose};
use dqview::influences::Influences;
use dqview::scene::{LoadOptions, SceneError, load_fbx_slice_with};
use dqview::skin::{
    Betas, JointPalette, SkinMesh, SkinnedVertices, SkinningMode, skin_scene, skin_vertices,
};
use glam::{Mat4, Vec3, Vec4};

/// The files in `tests/fuzz_regressions/<target>/`, with their bytes.
fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz_regressions")
        .join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out: Vec<_> = entries
        .map(|e| e.expect("entry").path())
        .map(|p| {
            let name = p.file_name().expect("name").to_string_lossy().into_owned();
            (name, std::fs::read(&p).expect("read"))
        })
        .collect();
    out.sort();
    out
}

/// `fuzz/fuzz_targets/load_gltf.rs`.
fn load_gltf(bytes: &[u8]) {
    if let Ok(scene) = dqview::scene::load_gltf_slice(bytes, None, "fuzz") {
        let pose = Pose::rest(&scene);
        for mode in SkinningMode::ALL {
            for p in &skin_scene(&scene, &pose, mode, Betas::Uniform(0.5)) {
                assert!(p.vertices.positions.iter().all(|v| v.is_finite()));
                assert!(p.vertices.normals.iter().all(|v| v.is_finite()));
                assert!(p.vertices.tangents.iter().all(|v| v.is_finite()));
            }
        }
    }
}

/// The load targets' check of a scene that loaded: posed at 0.5 s of its first clip (if any)
/// and skinned in every mode, every position and normal finite.
fn skins_finite_mid_clip(scene: &dqview::scene::Scene) {
    let mut pose = Pose::rest(scene);
    if !scene.animations.is_empty() {
        pose.sample(scene, Some(0), 0.5, &JointOverrides::new());
    }
    for mode in SkinningMode::ALL {
        for p in &skin_scene(scene, &pose, mode, Betas::Uniform(0.5)) {
            assert!(p.vertices.positions.iter().all(|v| v.is_finite()));
            assert!(p.vertices.normals.iter().all(|v| v.is_finite()));
        }
    }
}

/// `max_buffer_bytes` of `fuzz/fuzz_targets/load_fbx.rs`: 256 MiB.
const FBX_FUZZ_BUDGET: u64 = 256 << 20;

/// `fuzz/fuzz_targets/load_fbx.rs`; returns the load error, if any.
fn load_fbx(bytes: &[u8]) -> Option<SceneError> {
    let options = LoadOptions {
        max_buffer_bytes: FBX_FUZZ_BUDGET,
        ..LoadOptions::DEFAULT
    };
    let scene = match load_fbx_slice_with(bytes, None, "fuzz", &options) {
        Ok(scene) => scene,
        Err(e) => return Some(e),
    };
    skins_finite_mid_clip(&scene);
    None
}

/// The `.fbx` files of `$DQVIEW_FBX/fuzz/`, with their bytes (none after a skip message).
fn shared_fbx_findings(test: &str) -> Vec<(String, Vec<u8>)> {
    let Some(dir) = support::data_dir("DQVIEW_FBX", test) else {
        return Vec::new();
    };
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.join("fuzz"))
        .expect("$DQVIEW_FBX/fuzz")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "fbx"))
        .map(|p| (p.display().to_string(), std::fs::read(&p).expect("read")))
        .collect();
    out.sort();
    assert!(!out.is_empty(), "$DQVIEW_FBX/fuzz holds no .fbx files");
    out
}

/// Reads little-endian values off the front of the input; zeros once it runs out.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        let (first, rest) = self.0.split_first().map_or((0, &[][..]), |(f, r)| (*f, r));
        self.0 = rest;
        first
    }
    fn f32(&mut self) -> f32 {
        f32::from_bits(u32::from_le_bytes([
            self.u8(),
            self.u8(),
            self.u8(),
            self.u8(),
        ]))
    }
    fn f32s<const N: usize>(&mut self) -> [f32; N] {
        std::array::from_fn(|_| self.f32())
    }
}

/// `fuzz/fuzz_targets/skinning.rs`.
fn skinning(data: &[u8]) {
    let mut b = Bytes(data);
    let joints = usize::from(b.u8() % 8) + 1;
    let vertices = usize::from(b.u8() % 16) + 1;
    let beta = b.f32();
    let matrices: Vec<Mat4> = (0..joints)
        .map(|_| Mat4::from_cols_array(&b.f32s::<16>()))
        .collect();
    let palette = JointPalette::from_matrices(&matrices);
    assert_eq!(palette.len(), joints);
    assert!(palette.matrices.iter().all(|m| m.is_finite()));
    assert!(palette.dual_quats.iter().all(|q| q.is_finite()));
    assert!(palette.scale_shear.iter().flatten().all(|s| s.is_finite()));
    let mut positions = Vec::new();
    let mut normals = Vec::new();
    let mut tangents = Vec::new();
    let mut rows = Vec::new();
    for _ in 0..vertices {
        positions.push(Vec3::from_array(b.f32s::<3>()));
        normals.push(Vec3::from_array(b.f32s::<3>()));
        tangents.push(Vec4::from_array(b.f32s::<4>()));
        let count = b.u8() % 9;
        let row: Vec<(u16, f32)> = (0..count)
            .map(|_| (u16::from(b.u8()) % (joints as u16 + 2), b.f32()))
            .collect();
        rows.push(row);
    }
    let influences = Influences::from_rows(rows);
    for row in influences.iter() {
        assert!(row.iter().all(|i| i.weight.is_finite() && i.weight > 0.0));
    }
    let mesh = SkinMesh {
        positions: &positions,
        normals: &normals,
        tangents: &tangents,
        influences: &influences,
    };
    let mut out = SkinnedVertices::default();
    for mode in SkinningMode::ALL {
        skin_vertices(&palette, &mesh, mode, Betas::Uniform(beta), &mut out);
        for v in 0..vertices {
            assert!(out.positions[v].is_finite(), "{mode} position {v}");
            assert!(out.normals[v].is_finite(), "{mode} normal {v}");
            assert!(out.tangents[v].is_finite(), "{mode} tangent {v}");
        }
    }
}

#[test]
fn load_gltf_crashes_stay_fixed() {
    for (name, bytes) in inputs("load_gltf") {
        eprintln!("load_gltf {name}");
        load_gltf(&bytes);
    }
}

#[test]
fn load_fbx_findings_stay_fixed() {
    let mut found = inputs("load_fbx");
    found.extend(shared_fbx_findings("load_fbx_findings_stay_fixed"));
    for (name, bytes) in found {
        eprintln!("load_fbx {name}");
        let _ = load_fbx(&bytes);
    }
}

/// `barbarian_alloc_7_7gb.fbx` makes ufbx ask for one 7.7 GB block: the budget refuses it
/// before anything is allocated, whatever the budget, and says which flag raises it.
#[test]
fn the_7_7_gb_fbx_request_is_refused_by_the_memory_budget() {
    let found = shared_fbx_findings("the_7_7_gb_fbx_request_is_refused_by_the_memory_budget");
    let Some((_, bytes)) = found
        .iter()
        .find(|(n, _)| n.ends_with("barbarian_alloc_7_7gb.fbx"))
    else {
        return;
    };
    assert!(matches!(
        load_fbx(bytes),
        Some(SceneError::MemoryLimit { .. })
    ));
    for budget in [16 << 20, LoadOptions::DEFAULT_MAX_BUFFER_BYTES] {
        let options = LoadOptions {
            max_buffer_bytes: budget,
            ..LoadOptions::DEFAULT
        };
        let err = load_fbx_slice_with(bytes, None, "fuzz", &options).expect_err("refused");
        assert!(
            matches!(err, SceneError::MemoryLimit { limit, .. } if limit == budget),
            "{err}"
        );
        assert!(err.to_string().contains("--max-buffer-bytes"), "{err}");
    }
    // The undamaged file it came from needs about 3 MB of ufbx memory.
    let dir = support::data_dir("DQVIEW_FBX", "the_7_7_gb_fbx_request_is_refused").unwrap();
    let original = std::fs::read(dir.join("blender_293_barbarian_7400_binary.fbx")).unwrap();
    let within = |budget: u64| {
        let options = LoadOptions {
            max_buffer_bytes: budget,
            ..LoadOptions::DEFAULT
        };
        load_fbx_slice_with(&original, None, "barbarian", &options)
    };
    assert!(within(16 << 20).is_ok());
    // A byte limit below the parser's floor (`MIN_PARSE_MEMORY`, 16 MiB) leaves parsing at the floor.
    assert!(within(1 << 20).is_ok());
}

#[test]
fn skinning_crashes_stay_fixed() {
    let found = inputs("skinning");
    assert!(
        !found.is_empty(),
        "the skinning regression inputs are missing"
    );
    for (name, bytes) in found {
        eprintln!("skinning {name}");
        skinning(&bytes);
    }
}

/// `max_buffer_bytes` of `fuzz/fuzz_targets/load_usd.rs`: 256 MiB.
const USD_FUZZ_BUDGET: u64 = 256 << 20;

/// `fuzz/fuzz_targets/load_usd.rs` (the input goes to a file named for its magic); returns the
/// load error, if any.
fn load_usd(bytes: &[u8], scratch: &Path) -> Option<SceneError> {
    let ext = if bytes.starts_with(b"PXR-USDC") {
        "usdc"
    } else if bytes.starts_with(b"PK") {
        "usdz"
    } else {
        "usda"
    };
    let path = scratch.join(format!("input.{ext}"));
    std::fs::write(&path, bytes).expect("scratch file");
    let options = LoadOptions {
        max_buffer_bytes: USD_FUZZ_BUDGET,
        ..LoadOptions::DEFAULT
    };
    let scene = match dqview::scene::load_usd_path_with(&path, &options) {
        Ok(scene) => scene,
        Err(e) => {
            assert!(!e.to_string().contains('\n'), "one line: {e}");
            return Some(e);
        }
    };
    skins_finite_mid_clip(&scene);
    None
}

/// The USD findings: each is a shared file (`base` in `usd`, `$DQVIEW_USD`) with byte ranges replaced
/// (`ranges`: `offset`, `hex`), kept as that patch so no copy of the data lands in the tree.
fn usd_findings(usd: &Path, folder: &str) -> Vec<(String, Vec<u8>)> {
    inputs(folder)
        .into_iter()
        .map(|(name, patch)| {
            let patch: serde_json::Value = serde_json::from_slice(&patch).expect("patch JSON");
            let base = patch["base"].as_str().expect("base");
            let mut bytes = std::fs::read(usd.join(base)).expect("base file");
            for range in patch["ranges"].as_array().expect("ranges") {
                let at = range["offset"].as_u64().expect("offset") as usize;
                let hex = range["hex"].as_str().expect("hex").as_bytes();
                let new: Vec<u8> = hex
                    .chunks(2)
                    .map(|h| {
                        u8::from_str_radix(std::str::from_utf8(h).expect("hex"), 16).expect("hex")
                    })
                    .collect();
                bytes[at..at + new.len()].copy_from_slice(&new);
            }
            (name, bytes)
        })
        .collect()
}

/// The USD findings are one-line load errors, never a crash: a count in a `.usdc` matrix array
/// that overflows the crate's `count * 16` (a panic inside openusd 0.6), and an LZ4 block whose
/// stored size of 3.5e18 bytes the crate allocated before reading (an abort). dqview's check of
/// each layer's bytes (`src/scene/usd_load/crate_check`) refuses both before the crate parses them.
#[test]
fn load_usd_findings_stay_fixed() {
    let Some(usd) = support::data_dir("DQVIEW_USD", "load_usd_findings_stay_fixed") else {
        return;
    };
    let found = usd_findings(&usd, "load_usd");
    assert!(
        found.len() >= 2,
        "tests/fuzz_regressions/load_usd holds no findings"
    );
    let scratch = support::scratch_dir("fuzz_regressions_usd");
    for (name, bytes) in &found {
        eprintln!("load_usd {name}");
        let error = load_usd(bytes, &scratch).map(|e| e.to_string());
        let error = error.unwrap_or_else(|| panic!("{name}: the damaged file is refused"));
        assert!(error.contains("not a loadable USD file"), "{error}");
        if name.starts_with("adventurer_usdc_lz4_size_abort") {
            assert!(error.contains("3.5e18"), "{error}");
        }
    }
}

/// The same findings through the binary, as a user meets them: `dqview inspect` exits 1 with a
/// one-line error (it aborted, exit 134, on the LZ4 size before the check).
#[test]
fn usd_findings_are_one_line_errors_from_the_binary() {
    let Some(usd) = support::data_dir(
        "DQVIEW_USD",
        "usd_findings_are_one_line_errors_from_the_binary",
    ) else {
        return;
    };
    let scratch = support::scratch_dir("fuzz_regressions_usd_binary");
    for (name, bytes) in usd_findings(&usd, "load_usd") {
        let path = scratch.join(format!("{name}.usdc"));
        std::fs::write(&path, bytes).expect("scratch file");
        let run = std::process::Command::new(env!("CARGO_BIN_EXE_dqview"))
            .args(["inspect", path.to_str().expect("utf-8")])
            .output()
            .expect("run dqview");
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{name}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{name}: {err}");
    }
}
