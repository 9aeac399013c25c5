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

/// The loader's options, so ufbx's own view matches what the loader saw.
fn loader_opts() -> ufbx::LoadOpts<'static> {
    ufbx::LoadOpts {
        inherit_mode_handling: ufbx::InheritModeHandling::HelperNodes,
        geometry_transform_handling: ufbx::GeometryTransformHandling::Preserve,
        generate_missing_normals: true,
        ..Default::default()
    }
}

/// Blend shapes of the shared files (the barbarian has three channels, two of them animated)
/// against ufbx's own evaluation: each target's displacement of control point `i` (vertex `i`
/// of a one-material mesh) and each clip's weights at its frames.
#[test]
fn blend_shapes_match_ufbx_evaluation() {
    let mut checked = (0, 0);
    for path in fbx_files() {
        let bytes = std::fs::read(&path).unwrap();
        let scene =
            super::load_fbx_slice_with(&bytes, None, "test", &LoadOptions::DEFAULT).unwrap();
        let fbx = ufbx::load_memory(&bytes, loader_opts()).unwrap();
        let index_of = super::nodes::load_nodes(&fbx).unwrap().index_of;
        for node in &fbx.nodes {
            let Some(mesh) = &node.mesh else { continue };
            let channels: Vec<&ufbx::BlendChannel> = mesh
                .blend_deformers
                .iter()
                .flat_map(|d| d.channels.iter().map(|c| &**c))
                .collect();
            if channels.is_empty() {
                continue;
            }
            let n = index_of[node.element.typed_id as usize].unwrap();
            let ours = &scene.meshes[scene.nodes[n].mesh.unwrap()];
            let weights: Vec<f32> = channels.iter().map(|c| c.weight as f32).collect();
            assert_eq!(ours.morph_weights, weights, "{}", node.element.name);
            let linear = if mesh.skin_deformers.is_empty() && node.has_geometry_transform {
                glam::Mat3::from_mat4(convert::mat4(&node.geometry_to_node))
            } else {
                glam::Mat3::IDENTITY
            };
            if mesh.material_parts.len() > 1 {
                continue;
            }
            let prim = &ours.primitives[0];
            assert_eq!(prim.morph_targets.len(), channels.len());
            for (target, channel) in prim.morph_targets.iter().zip(&channels) {
                assert_eq!(target.name, channel.element.name.to_string());
                let shape = channel.target_shape.as_ref().unwrap();
                let mut theirs = vec![ufbx::Vec3::default(); mesh.num_vertices];
                // At the weight where the file reaches the shape (100 % unless `FullWeights` says).
                let full = channel.keyframes.last().map_or(1.0, |k| k.target_weight);
                ufbx::add_blend_shape_vertex_offsets(shape, &mut theirs, 1.0 / full);
                for (i, t) in theirs.iter().enumerate() {
                    let expected = linear * convert::vec3(*t);
                    let got = target.positions.get(i).copied().unwrap_or_default();
                    assert!(
                        got.abs_diff_eq(expected, 1e-5 * expected.length().max(1.0)),
                        "{} {}: control point {i}: {got} vs ufbx {expected}",
                        node.element.name,
                        target.name
                    );
                }
                checked.0 += 1;
            }
            for (clip, stack) in fbx.anim_stacks.iter().enumerate() {
                let fps = fbx.settings.frames_per_second;
                let mut pose = Pose::rest(&scene);
                for frame in 0..=((stack.time_end - stack.time_begin) * fps) as i64 {
                    let t = stack.time_begin + frame as f64 / fps;
                    pose.sample(
                        &scene,
                        Some(clip),
                        t as f32,
                        &crate::anim::JointOverrides::new(),
                    );
                    for (c, channel) in channels.iter().enumerate() {
                        let theirs = ufbx::evaluate_blend_weight(&stack.anim, channel, t) as f32;
                        let got = pose.morph_weights_of(n)[c];
                        assert!(
                            (got - theirs).abs() < 1e-4,
                            "{} {} at {t} s: {got} vs ufbx {theirs}",
                            node.element.name,
                            channel.element.name
                        );
                    }
                    checked.1 += 1;
                }
            }
        }
    }
    eprintln!(
        "blend shapes checked: {} targets, {} frames",
        checked.0, checked.1
    );
}
