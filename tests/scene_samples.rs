//! Loads the Khronos sample models and checks facts read independently from their JSON.
//!
//! The models are not in the repository: set `DQVIEW_SAMPLES` to the folder
//! holding SimpleSkin.gltf, RiggedSimple.glb, RiggedFigure.glb, CesiumMan.glb and
//! extras/. Without it every test here prints SKIPPED and passes.
//!
//! Expected values were read from each file's JSON and binary chunk with a
//! separate Python script (and agree with the Khronos model descriptions).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Once;

use dqview::scene::{
    Interpolation, NodeTransform, Property, Scene, load_gltf_path, load_gltf_slice,
};
use glam::{Mat4, Vec3};

/// The sample folder, or `None` (after saying so loudly) when `DQVIEW_SAMPLES` is unset.
fn samples() -> Option<PathBuf> {
    match std::env::var_os("DQVIEW_SAMPLES") {
        Some(dir) => Some(PathBuf::from(dir)),
        None => {
            // Written to the real stderr, not through eprintln!, which the test harness
            // captures and hides for passing tests.
            static ONCE: Once = Once::new();
            ONCE.call_once(|| {
                let _ = writeln!(
                    std::io::stderr(),
                    "SKIPPED: sample model tests did not run; set DQVIEW_SAMPLES to the Khronos sample folder \
                     (e.g. DQVIEW_SAMPLES=/work/shared/testdata/models cargo test)"
                );
            });
            None
        }
    }
}

/// Loads one sample by path relative to the folder; panics with the loader's error if it fails.
fn load(relative: &str) -> Option<Scene> {
    let path = samples()?.join(relative);
    match load_gltf_path(&path) {
        Ok(scene) => Some(scene),
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

fn assert_near(a: f32, b: f32) {
    assert!((a - b).abs() < 1e-6, "{a} != {b}");
}

fn assert_vec3_near(a: Vec3, b: [f32; 3]) {
    assert!((a - Vec3::from_array(b)).length() < 1e-6, "{a:?} != {b:?}");
}

#[test]
fn simple_skin() {
    let Some(s) = load("SimpleSkin.gltf") else {
        return;
    };
    assert_eq!(s.nodes.len(), 3);
    assert_eq!(s.roots, vec![0, 1]);
    assert_eq!(s.nodes[1].children, vec![2]);
    assert_eq!(s.nodes[2].parent, Some(1));
    assert_eq!((s.nodes[0].mesh, s.nodes[0].skin), (Some(0), Some(0)));
    let prim = &s.meshes[0].primitives[0];
    assert_eq!(prim.positions.len(), 10);
    assert_eq!(prim.indices.len(), 24);
    assert_vec3_near(prim.positions[0], [-0.5, 0.0, 0.0]);
    // The file has no NORMAL: the flat strip of quads in the XY plane gets +Z normals.
    assert_eq!(prim.normals.len(), 10);
    assert!(
        prim.normals.iter().all(|n| (n.z.abs() - 1.0).abs() < 1e-5),
        "{:?}",
        prim.normals
    );
    let inf = prim.influences.as_ref().expect("skinned");
    assert_eq!(inf.vertex_count(), 10);
    assert_eq!(inf.of(0).len(), 1);
    assert_eq!(inf.of(0)[0].joint, 0);
    let skin = &s.skins[0];
    assert_eq!(skin.joints, vec![1, 2]);
    assert_eq!(skin.skeleton, None);
    assert_eq!(
        skin.inverse_bind[0],
        Mat4::from_translation(Vec3::new(0.0, -1.0, 0.0))
    );
    assert_eq!(s.animations.len(), 1);
    let ch = &s.animations[0].channels[0];
    assert_eq!(
        (ch.node, ch.property, ch.interpolation),
        (2, Property::Rotation, Interpolation::Linear)
    );
    assert_eq!(ch.times_s.len(), 12);
    assert_near(*ch.times_s.last().unwrap(), 5.5);
    assert_eq!(ch.values.len(), 48);
    assert_eq!(&ch.values[4..8], &[0.0, 0.0, 0.383, 0.924]);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
}

#[test]
fn rigged_simple() {
    let Some(s) = load("RiggedSimple.glb") else {
        return;
    };
    assert_eq!(s.nodes.len(), 5);
    assert_eq!(s.roots, vec![0]);
    assert_eq!(s.nodes[4].name, "Bone.001");
    assert!(
        matches!(s.nodes[0].transform, NodeTransform::Matrix(_)),
        "Z_UP stores a matrix"
    );
    assert!(matches!(s.nodes[4].transform, NodeTransform::Trs(_)));
    let prim = &s.meshes[0].primitives[0];
    assert_eq!((prim.positions.len(), prim.indices.len()), (160, 564));
    assert!(prim.influences.is_some());
    assert_eq!(s.skins[0].joints, vec![3, 4]);
    assert_eq!(s.skins[0].skeleton, Some(3));
    assert_eq!(s.skins[0].inverse_bind.len(), 2);
    let anim = &s.animations[0];
    assert_eq!(anim.name, "clip 0");
    assert_eq!(anim.channels.len(), 3);
    for ch in &anim.channels {
        assert_eq!((ch.node, ch.times_s.len()), (4, 50));
        assert_near(*ch.times_s.last().unwrap(), 2.083_333);
        assert_eq!(ch.values.len(), 50 * ch.components());
    }
    let m = &s.materials[0];
    assert_eq!(m.name, "Material_001-effect");
    assert_near(m.base_color_factor.y, 0.64);
    assert_eq!(m.base_color_texture, None);
}

#[test]
fn rigged_figure() {
    let Some(s) = load("RiggedFigure.glb") else {
        return;
    };
    assert_eq!(s.nodes.len(), 22);
    let prim = &s.meshes[0].primitives[0];
    assert_eq!((prim.positions.len(), prim.indices.len()), (370, 768));
    let skin = &s.skins[0];
    assert_eq!(skin.joints.len(), 19);
    assert_eq!(skin.joints[..3], [2, 11, 12]);
    assert_eq!(skin.skeleton, Some(2));
    let inf = prim.influences.as_ref().expect("skinned");
    assert_eq!(inf.max_joint(), Some(18));
    // Vertex 0: joints [2, 6] with weights 0.5135 and 0.4865, heaviest first.
    assert_eq!((inf.of(0)[0].joint, inf.of(0)[1].joint), (2, 6));
    let anim = &s.animations[0];
    assert_eq!(anim.channels.len(), 57);
    assert!(anim.channels.iter().all(|c| c.times_s.len() == 2));
    assert_near(*anim.channels[56].times_s.last().unwrap(), 1.25);
}

#[test]
fn cesium_man() {
    let Some(s) = load("CesiumMan.glb") else {
        return;
    };
    assert_eq!(s.nodes.len(), 22);
    assert_eq!(s.nodes[2].name, "Cesium_Man");
    let prim = &s.meshes[0].primitives[0];
    assert_eq!((prim.positions.len(), prim.indices.len()), (3273, 14016));
    assert_eq!(prim.uvs.as_ref().map(Vec::len), Some(3273));
    assert_vec3_near(prim.positions[0], [0.093_429_2, 0.048_714_57, 0.973_575]);
    assert_vec3_near(prim.normals[0], [0.966_668_1, 0.242_750_4, 0.081_394_91]);
    let skin = &s.skins[0];
    assert_eq!(skin.joints.len(), 19);
    assert_eq!(
        skin.joints,
        vec![
            3, 12, 13, 20, 21, 17, 14, 18, 15, 19, 16, 8, 4, 9, 5, 10, 6, 11, 7
        ]
    );
    assert_eq!(skin.skeleton, Some(3));
    // Vertex 0: joints [0, 1, 2, 3] weights [0.172, 0.645, 0.132, 0.051]: joint 1 is heaviest.
    let v0 = prim.influences.as_ref().expect("skinned").of(0);
    assert_eq!(
        v0.iter().map(|i| i.joint).collect::<Vec<_>>(),
        vec![1, 0, 2, 3]
    );
    assert_near(v0[0].weight, 0.645_161_45);
    let anim = &s.animations[0];
    assert_eq!(anim.channels.len(), 57);
    assert!(anim.channels.iter().all(|c| c.times_s.len() == 48));
    assert_near(*anim.channels[0].times_s.last().unwrap(), 2.0);
    assert_near(anim.channels[0].times_s[0], 0.041_666_62);
    // The base colour texture is a 1024x1024 JPEG in the BIN chunk.
    assert_eq!(s.materials[0].base_color_texture, Some(0));
    assert_eq!((s.textures[0].width, s.textures[0].height), (1024, 1024));
    assert_eq!(s.textures[0].rgba8.len(), 1024 * 1024 * 4);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
}

#[test]
fn interpolation_test_keeps_cubic_triplets() {
    let Some(s) = load("extras/InterpolationTest.glb") else {
        return;
    };
    assert_eq!(s.nodes.len(), 10);
    assert_eq!(s.animations.len(), 9);
    let by_name = |name: &str| {
        s.animations
            .iter()
            .find(|a| a.name == name)
            .unwrap_or_else(|| panic!("no animation {name}"))
    };
    let step = &by_name("Step Scale").channels[0];
    assert_eq!(
        (step.node, step.interpolation, step.values.len()),
        (0, Interpolation::Step, 15)
    );
    let cubic = &by_name("CubicSpline Translation").channels[0];
    assert_eq!((cubic.node, cubic.property), (7, Property::Translation));
    assert_eq!(cubic.interpolation, Interpolation::CubicSpline);
    assert_eq!(cubic.times_s, vec![0.0, 0.5, 1.0, 1.5, 2.0]);
    assert_eq!(cubic.values.len(), 5 * 3 * 3);
    // Key 0: in-tangent (0, 0, 0), value (3.4, 6.8, 0), out-tangent (0, 0, 0).
    assert_eq!(&cubic.values[..3], &[0.0; 3]);
    assert_near(cubic.values[3], 3.4);
    assert_near(cubic.values[4], 6.8);
    assert_eq!(
        by_name("CubicSpline Rotation").channels[0].values.len(),
        5 * 3 * 4
    );
    assert_eq!((s.textures[0].width, s.textures[0].height), (1000, 100));
}

#[test]
fn negative_scale_test_loads() {
    let Some(s) = load("extras/NegativeScaleTest.glb") else {
        return;
    };
    assert_eq!(s.nodes.len(), 14);
    assert_eq!(s.roots, vec![0, 1, 2, 3, 4, 7, 10, 13]);
    let NodeTransform::Trs(trs) = s.nodes[6].transform else {
        panic!("node 6 is TRS");
    };
    assert_eq!(trs.scale, Vec3::splat(-1.0));
    assert_eq!(s.nodes[13].children, vec![11, 12]);
    assert_eq!(s.meshes.len(), 8);
    assert_eq!(s.meshes[5].primitives[0].positions.len(), 642);
    assert_eq!(s.meshes[5].primitives[0].indices.len(), 3840);
    assert_eq!(s.textures.len(), 2);
    assert!(s.materials[3].double_sided);
}

#[test]
fn simple_sparse_accessor_substitutes_positions() {
    let Some(s) = load("extras/SimpleSparseAccessor.gltf") else {
        return;
    };
    let prim = &s.meshes[0].primitives[0];
    assert_eq!(prim.indices.len(), 36);
    let expected: [[f32; 3]; 14] = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [2.0, 0.0, 0.0],
        [3.0, 0.0, 0.0],
        [4.0, 0.0, 0.0],
        [5.0, 0.0, 0.0],
        [6.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [1.0, 2.0, 0.0],
        [2.0, 1.0, 0.0],
        [3.0, 3.0, 0.0],
        [4.0, 1.0, 0.0],
        [5.0, 4.0, 0.0],
        [6.0, 1.0, 0.0],
    ];
    let got: Vec<[f32; 3]> = prim.positions.iter().map(|p| p.to_array()).collect();
    assert_eq!(
        got, expected,
        "vertices 8, 10 and 12 come from the sparse values"
    );
}

#[test]
fn animated_morph_cube_has_two_targets_and_a_weights_channel() {
    let Some(s) = load("extras/AnimatedMorphCube.glb") else {
        return;
    };
    let mesh = &s.meshes[0];
    assert_eq!(mesh.primitives[0].morph_targets.len(), 2);
    assert_eq!(mesh.morph_weights, vec![0.0, 0.0]);
    assert!(mesh.primitives[0].tangents.is_some());
    let anim = &s.animations[0];
    assert_eq!(anim.name, "Square");
    let ch = &anim.channels[0];
    assert_eq!((ch.node, ch.property), (0, Property::MorphWeights(2)));
    assert_eq!(ch.times_s.len(), 127);
    assert_eq!(ch.values.len(), 254);
    assert_near(*ch.times_s.last().unwrap(), 4.199_997_4);
    assert_near(ch.values[2], 0.001_284);
}

#[test]
fn box_interleaved_reads_strided_attributes() {
    let Some(s) = load("extras/BoxInterleaved.glb") else {
        return;
    };
    assert_eq!(s.nodes.len(), 2);
    assert!(matches!(s.nodes[0].transform, NodeTransform::Matrix(_)));
    let prim = &s.meshes[0].primitives[0];
    // NORMAL at offset 0 and POSITION at offset 12 share one view with a 24-byte stride.
    assert_eq!(prim.positions.len(), 24);
    assert_vec3_near(prim.positions[0], [-0.5, -0.5, 0.5]);
    assert_vec3_near(prim.positions[1], [0.5, -0.5, 0.5]);
    assert_vec3_near(prim.positions[2], [-0.5, 0.5, 0.5]);
    assert_vec3_near(prim.normals[0], [0.0, 0.0, 1.0]);
    assert_eq!(prim.indices[..6], [0, 1, 2, 3, 2, 1]);
    assert_near(s.materials[0].base_color_factor.x, 0.8);
}

#[test]
fn animated_cube_resolves_external_files_and_warns_about_missing_images() {
    let Some(dir) = samples() else { return };
    let path = dir.join("extras/AnimatedCube/AnimatedCube.gltf");
    let s = load_gltf_path(&path).unwrap();
    let prim = &s.meshes[0].primitives[0];
    assert_eq!(prim.positions.len(), 36);
    assert!(prim.uvs.is_some() && prim.tangents.is_some());
    let ch = &s.animations[0].channels[0];
    assert_eq!((ch.property, ch.times_s.len()), (Property::Rotation, 3));
    assert_near(*ch.times_s.last().unwrap(), 2.0);
    // The sample folder ships the .bin but not the PNGs: a warning, not an error.
    assert_eq!(s.materials[0].base_color_texture, None);
    assert!(
        s.warnings.iter().any(|w| w.starts_with("image 0:")),
        "{:?}",
        s.warnings
    );
    // The same bytes from a slice need the base folder for the external .bin.
    let bytes = std::fs::read(&path).unwrap();
    assert!(load_gltf_slice(&bytes, None, "slice").is_err());
    let again = load_gltf_slice(&bytes, path.parent(), "slice").unwrap();
    assert_eq!(again.meshes[0].primitives[0].positions, prim.positions);
}

/// Every `.gltf`/`.glb` below `dir`.
fn model_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("sample folder is readable") {
        let path = entry.expect("sample folder entry").path();
        if path.is_dir() {
            model_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "gltf" || e == "glb") {
            out.push(path);
        }
    }
}

#[test]
fn every_sample_loads() {
    let Some(dir) = samples() else { return };
    let mut files = Vec::new();
    model_files(&dir, &mut files);
    assert_eq!(files.len(), 10, "{files:?}");
    for path in files {
        let scene = load_gltf_path(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(scene.source, path.display().to_string());
        assert!(!scene.meshes.is_empty(), "{}", path.display());
    }
}
