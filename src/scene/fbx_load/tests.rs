//! The converted hierarchy against ufbx's own world matrices, on the shared FBX files.

use std::path::PathBuf;

use glam::Mat4;

use super::convert;
use crate::anim::Pose;
use crate::scene::LoadOptions;

/// The FBX test files, or none when `DQVIEW_FBX` is not set (the integration tests report the skip).
fn fbx_files() -> Vec<PathBuf> {
    let Some(dir) = std::env::var_os("DQVIEW_FBX").map(PathBuf::from) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "fbx"));
    files
}

#[test]
fn rest_globals_match_ufbx_node_to_world() {
    for path in fbx_files() {
        let bytes = std::fs::read(&path).unwrap();
        let scene =
            super::load_fbx_slice_with(&bytes, None, "test", &LoadOptions::DEFAULT).unwrap();
        let fbx = ufbx::load_memory(
            &bytes,
            ufbx::LoadOpts {
                inherit_mode_handling: ufbx::InheritModeHandling::HelperNodes,
                ..Default::default()
            },
        )
        .unwrap();
        let pose = Pose::rest(&scene);
        let index_of = super::nodes::load_nodes(&fbx).unwrap().index_of;
        for node in fbx.nodes.iter().filter(|n| !n.is_root) {
            let n = index_of[node.element.typed_id as usize].unwrap();
            let ours = pose.global[n];
            let theirs: Mat4 = convert::mat4(&node.node_to_world);
            let scale = theirs
                .abs()
                .to_cols_array()
                .iter()
                .fold(1.0f32, |a, &b| a.max(b));
            assert!(
                ours.abs_diff_eq(theirs, 1e-4 * scale),
                "{} node {}: {ours} vs ufbx {theirs}",
                path.display(),
                node.element.name
            );
        }
    }
}

#[test]
fn garbage_is_an_error_not_a_panic() {
    for bytes in [
        &b""[..],
        b"Kaydara FBX Binary  \0",
        b"; FBX 7.5.0 project file\n{{{{",
    ] {
        let err = super::load_fbx_slice_with(bytes, None, "test", &LoadOptions::DEFAULT);
        assert!(
            matches!(err, Err(crate::scene::SceneError::Fbx(_))),
            "{err:?}"
        );
    }
}

#[test]
fn limits_refuse_big_files() {
    let Some(path) = fbx_files().into_iter().next() else {
        return;
    };
    let bytes = std::fs::read(&path).unwrap();
    let options = LoadOptions {
        max_vertices: 1,
        ..LoadOptions::DEFAULT
    };
    let err = super::load_fbx_slice_with(&bytes, None, "test", &options).unwrap_err();
    assert!(err.to_string().contains("--max-vertices"), "{err}");
}
