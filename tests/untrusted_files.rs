//! Untrusted files: URIs confined to the model's folder, resource limits, counts that claim far
//! more than the file holds (refused before anything is allocated for them).

use std::path::{Path, PathBuf};
use std::process::Command;

use dqview::scene::{
    LoadOptions, SceneError, load_gltf_path, load_gltf_path_with, load_gltf_slice,
};
use dqview::scene::{load_gltf_slice_with, write_glb};
use serde_json::{Value, json};

/// A fresh, empty folder under the system temp folder.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dqview-untrusted-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp folder");
    dir
}

/// Packs JSON and binary data into a GLB container (the writer's own container code).
fn glb(json: &Value, bin: &[u8]) -> Vec<u8> {
    dqview::scene::glb_container(json.to_string().into_bytes(), bin.to_vec()).expect("small GLB")
}

/// A `.gltf` whose only buffer has URI `uri` and `byte_length` bytes, used by one accessor.
fn gltf_with_buffer_uri(uri: &str, byte_length: u64) -> String {
    json!({
        "asset": {"version": "2.0"},
        "buffers": [{"uri": uri, "byteLength": byte_length}],
        "bufferViews": [{"buffer": 0, "byteLength": byte_length}],
    })
    .to_string()
}

fn dqview(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_dqview"))
        .args(args)
        .output()
        .expect("run dqview")
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

#[test]
fn buffer_uri_naming_a_system_file_is_refused() {
    let dir = temp_dir("system");
    let model = dir.join("model.gltf");
    std::fs::write(&model, gltf_with_buffer_uri("/etc/passwd", 4)).expect("write");
    let err = load_gltf_path(&model).unwrap_err();
    assert!(
        matches!(&err, SceneError::ExternalUri { referrer, uri, .. } if referrer == "buffer 0" && uri == "/etc/passwd"),
        "{err}"
    );
    let text = err.to_string();
    assert!(
        text.contains("absolute path") && text.contains("--allow-external-uris"),
        "{text}"
    );
    // file: URIs are the same thing in another spelling.
    std::fs::write(&model, gltf_with_buffer_uri("file:///etc/passwd", 4)).expect("write");
    assert!(matches!(
        load_gltf_path(&model),
        Err(SceneError::ExternalUri { .. })
    ));
    let allowed = LoadOptions {
        allow_external_uris: true,
        ..LoadOptions::default()
    };
    load_gltf_path_with(&model, &allowed).expect("allowed when asked for");
    std::fs::write(&model, gltf_with_buffer_uri("/etc/passwd", 4)).expect("write");
    load_gltf_path_with(&model, &allowed).expect("allowed when asked for");

    let out = dqview(&["inspect", path_str(&model)]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--allow-external-uris"), "{stderr}");
    let out = dqview(&["inspect", path_str(&model), "--allow-external-uris"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn buffer_uri_climbing_out_of_the_folder_is_refused() {
    let dir = temp_dir("climb");
    for sub in ["model/sub", "model/x"] {
        std::fs::create_dir_all(dir.join(sub)).expect("mkdir");
    }
    std::fs::write(dir.join("secret.bin"), [7u8; 8]).expect("write");
    std::fs::write(dir.join("model/inside.bin"), [7u8; 8]).expect("write");
    let model = dir.join("model/model.gltf");
    for uri in ["../secret.bin", "sub/../../secret.bin", "%2E%2E/secret.bin"] {
        std::fs::write(&model, gltf_with_buffer_uri(uri, 8)).expect("write");
        let err = load_gltf_path(&model).unwrap_err();
        let text = err.to_string();
        assert!(
            matches!(err, SceneError::ExternalUri { .. }) && text.contains("climbs out"),
            "{uri}: {text}"
        );
        let allowed = LoadOptions {
            allow_external_uris: true,
            ..LoadOptions::default()
        };
        load_gltf_path_with(&model, &allowed).unwrap_or_else(|e| panic!("{uri}: {e}"));
    }
    // Inside the folder is fine, `..` included as long as it stays inside.
    for uri in ["inside.bin", "./x/../inside.bin"] {
        std::fs::write(&model, gltf_with_buffer_uri(uri, 8)).expect("write");
        load_gltf_path(&model).unwrap_or_else(|e| panic!("{uri}: {e}"));
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn image_uri_outside_the_folder_is_skipped_with_a_warning() {
    let dir = temp_dir("image");
    let model = dir.join("model.gltf");
    let text = json!({
        "asset": {"version": "2.0"},
        "images": [{"uri": "/etc/hostname"}],
        "textures": [{"source": 0}],
        "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
    });
    std::fs::write(&model, text.to_string()).expect("write");
    let scene = load_gltf_path(&model).expect("loads without the texture");
    assert!(scene.textures.is_empty());
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.contains("image 0") && w.contains("--allow-external-uris")),
        "{:?}",
        scene.warnings
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A GLB with one quad (4 vertices) skinned to `joints` joints.
fn skinned_quad_glb(joints: usize) -> Vec<u8> {
    let mut bin = Vec::new();
    for p in [
        [0.0f32, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 1.0, 0.0],
    ] {
        bin.extend(p.iter().flat_map(|v| v.to_le_bytes()));
    }
    for _ in 0..4 {
        bin.extend([0u8, 0, 0, 0]);
    }
    for _ in 0..4 {
        bin.extend([1.0f32, 0.0, 0.0, 0.0].iter().flat_map(|v| v.to_le_bytes()));
    }
    let nodes: Vec<Value> = std::iter::once(json!({"mesh": 0, "skin": 0}))
        .chain((0..joints).map(|_| json!({})))
        .collect();
    let root = json!({
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 48},
            {"buffer": 0, "byteOffset": 48, "byteLength": 16},
            {"buffer": 0, "byteOffset": 64, "byteLength": 64},
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3"},
            {"bufferView": 1, "componentType": 5121, "count": 4, "type": "VEC4"},
            {"bufferView": 2, "componentType": 5126, "count": 4, "type": "VEC4"},
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2}}]}],
        "skins": [{"joints": (1..=joints).collect::<Vec<_>>()}],
        "nodes": nodes,
    });
    glb(&root, &bin)
}

#[test]
fn limits_name_themselves_and_their_flag() {
    let file = skinned_quad_glb(3);
    load_gltf_slice(&file, None, "quad").expect("within the default limits");

    let few_vertices = LoadOptions {
        max_vertices: 3,
        ..LoadOptions::default()
    };
    let err = load_gltf_slice_with(&file, None, "quad", &few_vertices).unwrap_err();
    assert!(
        matches!(
            err,
            SceneError::LimitExceeded {
                found: 4,
                limit: 3,
                ..
            }
        ),
        "{err}"
    );
    let text = err.to_string();
    assert!(
        text.contains("4 vertices")
            && text.contains("limit of 3")
            && text.contains("--max-vertices"),
        "{text}"
    );

    let few_joints = LoadOptions {
        max_joints: 2,
        ..LoadOptions::default()
    };
    let text = load_gltf_slice_with(&file, None, "quad", &few_joints)
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("3 joints") && text.contains("--max-joints"),
        "{text}"
    );

    let few_bytes = LoadOptions {
        max_buffer_bytes: 64,
        ..LoadOptions::default()
    };
    let text = load_gltf_slice_with(&file, None, "quad", &few_bytes)
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("128 bytes of buffers") && text.contains("--max-buffer-bytes"),
        "{text}"
    );

    // The same through the command line.
    let dir = temp_dir("limits");
    let path = dir.join("quad.glb");
    std::fs::write(&path, &file).expect("write");
    let out = dqview(&["inspect", path_str(&path), "--max-vertices", "3"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--max-vertices"), "{stderr}");
    let out = dqview(&["inspect", path_str(&path), "--max-vertices", "4"]);
    assert!(out.status.success());
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_buffer_claiming_gigabytes_is_refused_before_it_is_read() {
    // Three billion bytes claimed by a file that names no such data: the limit, not a read, refuses it.
    let text = gltf_with_buffer_uri("huge.bin", 3_000_000_000);
    let err =
        load_gltf_slice(text.as_bytes(), Some(Path::new("/nonexistent")), "huge").unwrap_err();
    assert!(
        matches!(
            err,
            SceneError::LimitExceeded {
                found: 3_000_000_000,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn sparse_accessors_claiming_billions_are_refused_without_allocating() {
    // Eight bytes of sparse indices and values; the counts claim four billion elements.
    let bin: Vec<u8> = [0u32.to_le_bytes(), 1u32.to_le_bytes()].concat();
    let cases = [
        // Four billion elements, no buffer view (zeros), one sparse value.
        (4_000_000_000u64, 1u64),
        // Four elements, four billion sparse values.
        (4, 4_000_000_000),
        // Both.
        (4_000_000_000, 4_000_000_000),
    ];
    for (count, sparse_count) in cases {
        let root = json!({
            "asset": {"version": "2.0"},
            "buffers": [{"byteLength": 8}],
            "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 4}, {"buffer": 0, "byteOffset": 4, "byteLength": 4}],
            "accessors": [{
                "componentType": 5126, "count": count, "type": "SCALAR",
                "sparse": {
                    "count": sparse_count,
                    "indices": {"bufferView": 0, "componentType": 5125},
                    "values": {"bufferView": 1},
                },
            }],
            "animations": [{
                "samplers": [{"input": 0, "output": 0}],
                "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}],
            }],
            "nodes": [{}],
        });
        let err = load_gltf_slice(&glb(&root, &bin), None, "sparse").unwrap_err();
        assert!(
            matches!(
                err,
                SceneError::AccessorInvalid { accessor: 0, .. }
                    | SceneError::AccessorOutOfBounds { accessor: 0, .. }
            ),
            "count {count}, sparse {sparse_count}: {err}"
        );
    }
}

/// CRC-32 (IEEE) of `bytes`, as PNG chunks use it.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A PNG of a few dozen bytes whose header claims `width` x `height` RGBA pixels.
fn png_claiming(width: u32, height: u32) -> Vec<u8> {
    fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let mut body = kind.to_vec();
        body.extend_from_slice(data);
        out.extend_from_slice(&body);
        out.extend_from_slice(&crc32(&body).to_be_bytes());
    }
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
    chunk(&mut png, b"IHDR", &ihdr);
    // A zlib stream of a few zero bytes: far less than the image claims.
    chunk(
        &mut png,
        b"IDAT",
        &[0x78, 0x9c, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01],
    );
    chunk(&mut png, b"IEND", &[]);
    png
}

/// A GLB whose one material uses `png` as its base colour texture.
fn textured_glb(png: &[u8]) -> Vec<u8> {
    let root = json!({
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": png.len()}],
        "bufferViews": [{"buffer": 0, "byteLength": png.len()}],
        "images": [{"bufferView": 0, "mimeType": "image/png"}],
        "textures": [{"source": 0}],
        "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
    });
    glb(&root, png)
}

#[test]
fn a_small_png_claiming_100000_squared_pixels_is_refused_not_allocated() {
    let png = png_claiming(100_000, 100_000);
    assert!(png.len() < 100);
    let scene = load_gltf_slice(&textured_glb(&png), None, "png").expect("loads without it");
    assert!(scene.textures.is_empty());
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.contains("100000x100000") && w.contains("max_texture_side")),
        "{:?}",
        scene.warnings
    );
    // With the side limit raised, the memory limit refuses it (40 GB of RGBA8).
    let wide = LoadOptions {
        max_texture_side: 200_000,
        ..LoadOptions::default()
    };
    let scene = load_gltf_slice_with(&textured_glb(&png), None, "png", &wide).expect("loads");
    assert!(scene.textures.is_empty());
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.contains("100000x100000") && w.contains("max_texture_bytes")),
        "{:?}",
        scene.warnings
    );
    // A small texture limit refuses an image a real file could hold.
    let small = LoadOptions {
        max_texture_bytes: 1000,
        ..LoadOptions::default()
    };
    let scene = load_gltf_slice_with(&textured_glb(&png_claiming(16, 16)), None, "png", &small)
        .expect("loads");
    assert!(scene.textures.is_empty());
}

#[test]
fn a_written_scene_round_trips_within_default_limits() {
    let scene = dqview::model::load_model("builtin:arm").expect("builtin");
    let bytes = write_glb(&scene).expect("writes");
    let back = load_gltf_slice(&bytes, None, "arm").expect("loads");
    assert_eq!(back.sanitized, 0);
    assert!(back.warnings.is_empty(), "{:?}", back.warnings);
}
