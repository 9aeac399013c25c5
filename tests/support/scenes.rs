//! Scene comparison, a minimal GLB reader, rest-pose globals.
//!
//! Each test crate uses a different subset, hence the blanket `dead_code` allowance.

use dqview::influences::Influences;
use dqview::scene::{Mesh, Node, NodeTransform, Primitive, Scene, Trs};
use dqview::skin::SkinnedVertices;
use glam::{Mat4, Vec2, Vec3, Vec4};

/// Asserts two float slices have equal length and agree within `tol`, naming the first difference.
pub fn assert_floats_close(a: &[f32], b: &[f32], tol: f32, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths differ");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= tol,
            "{what}[{i}]: {x} vs {y} (difference {}, tolerance {tol})",
            (x - y).abs()
        );
    }
}

fn flat3(v: &[Vec3]) -> Vec<f32> {
    v.iter().flat_map(|v| v.to_array()).collect()
}

fn flat4(v: &[Vec4]) -> Vec<f32> {
    v.iter().flat_map(|v| v.to_array()).collect()
}

fn flat2(v: &[Vec2]) -> Vec<f32> {
    v.iter().flat_map(|v| v.to_array()).collect()
}

fn flat_mat(v: &[Mat4]) -> Vec<f32> {
    v.iter().flat_map(|m| m.to_cols_array()).collect()
}

/// Asserts two scenes agree field by field (floats within `tol`); `source` and `warnings` are ignored.
///
/// Intended for round trips (`write_glb` then a loader). Influences are compared
/// per vertex in their sorted order, joint by joint.
pub fn assert_scenes_match(a: &Scene, b: &Scene, tol: f32) {
    assert_eq!(a.nodes.len(), b.nodes.len(), "node count");
    for (i, (na, nb)) in a.nodes.iter().zip(&b.nodes).enumerate() {
        assert_eq!(na.name, nb.name, "node {i} name");
        assert_eq!(na.parent, nb.parent, "node {i} parent");
        assert_eq!(na.children, nb.children, "node {i} children");
        assert_eq!(na.mesh, nb.mesh, "node {i} mesh");
        assert_eq!(na.skin, nb.skin, "node {i} skin");
        let what = format!("node {i} morph weights");
        assert_floats_close(&na.morph_weights, &nb.morph_weights, tol, &what);
        match (&na.transform, &nb.transform) {
            (NodeTransform::Trs(ta), NodeTransform::Trs(tb)) => {
                let what = format!("node {i} TRS");
                assert_floats_close(&trs_floats(ta), &trs_floats(tb), tol, &what);
            }
            (NodeTransform::Matrix(ma), NodeTransform::Matrix(mb)) => {
                let what = format!("node {i} matrix");
                assert_floats_close(&ma.to_cols_array(), &mb.to_cols_array(), tol, &what);
            }
            (ta, tb) => panic!("node {i} transform kinds differ: {ta:?} vs {tb:?}"),
        }
    }
    assert_eq!(a.roots, b.roots, "roots");

    assert_eq!(a.meshes.len(), b.meshes.len(), "mesh count");
    for (m, (ma, mb)) in a.meshes.iter().zip(&b.meshes).enumerate() {
        assert_eq!(ma.name, mb.name, "mesh {m} name");
        let what = format!("mesh {m} morph weights");
        assert_floats_close(&ma.morph_weights, &mb.morph_weights, tol, &what);
        assert_eq!(
            ma.primitives.len(),
            mb.primitives.len(),
            "mesh {m} primitives"
        );
        for (p, (pa, pb)) in ma.primitives.iter().zip(&mb.primitives).enumerate() {
            assert_primitives_match(pa, pb, tol, &format!("mesh {m} primitive {p}"));
        }
    }

    assert_eq!(a.skins.len(), b.skins.len(), "skin count");
    for (s, (sa, sb)) in a.skins.iter().zip(&b.skins).enumerate() {
        assert_eq!(sa.name, sb.name, "skin {s} name");
        assert_eq!(sa.joints, sb.joints, "skin {s} joints");
        assert_eq!(sa.skeleton, sb.skeleton, "skin {s} skeleton");
        let what = format!("skin {s} inverse bind");
        assert_floats_close(
            &flat_mat(&sa.inverse_bind),
            &flat_mat(&sb.inverse_bind),
            tol,
            &what,
        );
    }

    assert_eq!(a.materials.len(), b.materials.len(), "material count");
    for (i, (ma, mb)) in a.materials.iter().zip(&b.materials).enumerate() {
        assert_eq!(ma.name, mb.name, "material {i} name");
        let what = format!("material {i} base colour");
        assert_floats_close(
            &ma.base_color_factor.to_array(),
            &mb.base_color_factor.to_array(),
            tol,
            &what,
        );
        assert_eq!(
            ma.base_color_texture, mb.base_color_texture,
            "material {i} texture"
        );
        assert_eq!(
            ma.double_sided, mb.double_sided,
            "material {i} double sided"
        );
        assert_eq!(ma.alpha_mode, mb.alpha_mode, "material {i} alpha mode");
    }

    assert_eq!(a.textures.len(), b.textures.len(), "texture count");
    for (i, (ta, tb)) in a.textures.iter().zip(&b.textures).enumerate() {
        assert_eq!(
            (ta.width, ta.height),
            (tb.width, tb.height),
            "texture {i} size"
        );
        assert!(ta.rgba8 == tb.rgba8, "texture {i} pixels differ");
    }

    assert_eq!(a.animations.len(), b.animations.len(), "animation count");
    for (i, (aa, ab)) in a.animations.iter().zip(&b.animations).enumerate() {
        assert_eq!(aa.name, ab.name, "animation {i} name");
        assert_eq!(
            aa.channels.len(),
            ab.channels.len(),
            "animation {i} channels"
        );
        for (c, (ca, cb)) in aa.channels.iter().zip(&ab.channels).enumerate() {
            let at = format!("animation {i} channel {c}");
            assert_eq!(ca.node, cb.node, "{at} node");
            assert_eq!(ca.property, cb.property, "{at} property");
            assert_eq!(ca.interpolation, cb.interpolation, "{at} interpolation");
            assert_floats_close(&ca.times_s, &cb.times_s, tol, &format!("{at} times"));
            assert_floats_close(&ca.values, &cb.values, tol, &format!("{at} values"));
        }
    }
}

fn trs_floats(t: &Trs) -> Vec<f32> {
    let mut v = t.translation.to_array().to_vec();
    v.extend(t.rotation.to_array());
    v.extend(t.scale.to_array());
    v
}

fn assert_primitives_match(a: &Primitive, b: &Primitive, tol: f32, at: &str) {
    assert_floats_close(
        &flat3(&a.positions),
        &flat3(&b.positions),
        tol,
        &format!("{at} positions"),
    );
    assert_floats_close(
        &flat3(&a.normals),
        &flat3(&b.normals),
        tol,
        &format!("{at} normals"),
    );
    match (&a.tangents, &b.tangents) {
        (Some(ta), Some(tb)) => {
            assert_floats_close(&flat4(ta), &flat4(tb), tol, &format!("{at} tangents"));
        }
        (None, None) => {}
        _ => panic!("{at}: tangents present in only one scene"),
    }
    match (&a.dqs_blend, &b.dqs_blend) {
        (Some(x), Some(y)) => assert_floats_close(x, y, tol, &format!("{at} _DQS_BLEND")),
        (None, None) => {}
        _ => panic!("{at}: _DQS_BLEND present in only one scene"),
    }
    match (&a.uvs, &b.uvs) {
        (Some(ua), Some(ub)) => {
            assert_floats_close(&flat2(ua), &flat2(ub), tol, &format!("{at} uvs"));
        }
        (None, None) => {}
        _ => panic!("{at}: uvs present in only one scene"),
    }
    match (&a.colors, &b.colors) {
        (Some(ca), Some(cb)) => {
            let flat = |c: &[glam::Vec4]| c.iter().flat_map(|v| v.to_array()).collect::<Vec<_>>();
            assert_floats_close(&flat(ca), &flat(cb), tol, &format!("{at} colours"));
        }
        (None, None) => {}
        _ => panic!("{at}: vertex colours present in only one scene"),
    }
    assert_eq!(a.indices, b.indices, "{at} indices");
    assert_eq!(a.material, b.material, "{at} material");
    assert_eq!(
        a.morph_targets.len(),
        b.morph_targets.len(),
        "{at} morph target count"
    );
    for (t, (ta, tb)) in a.morph_targets.iter().zip(&b.morph_targets).enumerate() {
        assert_eq!(ta.name, tb.name, "{at} morph target {t} name");
        for (name, da, db) in [
            ("positions", &ta.positions, &tb.positions),
            ("normals", &ta.normals, &tb.normals),
            ("tangents", &ta.tangents, &tb.tangents),
        ] {
            let what = format!("{at} morph target {t} {name}");
            assert_floats_close(&flat3(da), &flat3(db), tol, &what);
        }
    }
    match (&a.influences, &b.influences) {
        (Some(ia), Some(ib)) => assert_influences_match(ia, ib, tol, at),
        (None, None) => {}
        _ => panic!("{at}: influences present in only one scene"),
    }
}

fn assert_influences_match(a: &Influences, b: &Influences, tol: f32, at: &str) {
    assert_eq!(a.vertex_count(), b.vertex_count(), "{at} influence rows");
    for (v, (ra, rb)) in a.iter().zip(b.iter()).enumerate() {
        assert_eq!(ra.len(), rb.len(), "{at} vertex {v} influence count");
        for (ia, ib) in ra.iter().zip(rb) {
            assert_eq!(ia.joint, ib.joint, "{at} vertex {v} joints");
            assert!(
                (ia.weight - ib.weight).abs() <= tol,
                "{at} vertex {v} weight {} vs {}",
                ia.weight,
                ib.weight
            );
        }
    }
}

/// `world_from_node` of every node at rest: `global = parent_global * local`, walking up parents.
pub fn global_matrices(scene: &Scene) -> Vec<Mat4> {
    fn global(nodes: &[Node], i: usize, depth: usize) -> Mat4 {
        assert!(depth <= nodes.len(), "cycle through node {i}");
        let node = &nodes[i];
        let local = node.transform.to_mat4();
        match node.parent {
            Some(p) => global(nodes, p, depth + 1) * local,
            None => local,
        }
    }
    (0..scene.nodes.len())
        .map(|i| global(&scene.nodes, i, 0))
        .collect()
}

/// Reads a GLB with dqview's own loader, for round trips; panics with the loader's message on failure.
pub fn scene_from_glb(glb: &[u8]) -> Scene {
    dqview::scene::load_gltf_slice(glb, None, "round trip")
        .unwrap_or_else(|e| panic!("loader: {e}"))
}

/// Reads a little-endian u32 at byte `at`.
pub fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

/// Checks the GLB container: header, chunk types, lengths, 4-byte alignment and padding bytes.
///
/// Returns the JSON chunk's text (padding included) and the BIN chunk's bytes, if any.
pub fn check_glb_container(glb: &[u8]) -> (String, Option<Vec<u8>>) {
    assert!(glb.len() >= 20, "GLB too short");
    assert_eq!(&glb[0..4], b"glTF", "magic");
    assert_eq!(u32_at(glb, 4), 2, "version");
    assert_eq!(u32_at(glb, 8) as usize, glb.len(), "total length");
    assert_eq!(glb.len() % 4, 0, "total length aligned");
    let json_len = u32_at(glb, 12) as usize;
    assert_eq!(json_len % 4, 0, "JSON chunk aligned");
    assert_eq!(&glb[16..20], b"JSON", "first chunk is JSON");
    let json = String::from_utf8(glb[20..20 + json_len].to_vec()).expect("UTF-8 JSON");
    // Only spaces may follow the JSON text.
    let trimmed = json.trim_end_matches(' ');
    assert!(trimmed.ends_with('}'), "JSON chunk padding is not spaces");
    serde_json::from_str::<serde_json::Value>(trimmed).expect("JSON chunk parses");
    let rest = &glb[20 + json_len..];
    if rest.is_empty() {
        return (json, None);
    }
    let bin_len = u32_at(rest, 0) as usize;
    assert_eq!(bin_len % 4, 0, "BIN chunk aligned");
    assert_eq!(&rest[4..8], b"BIN\0", "second chunk is BIN");
    assert_eq!(rest.len(), 8 + bin_len, "nothing after the BIN chunk");
    (json, Some(rest[8..].to_vec()))
}

/// A scene of `posed` as an unskinned mesh with `source`'s triangles and material.
pub fn static_scene(source: &Primitive, posed: &SkinnedVertices) -> Scene {
    let mut scene = dqview::model::load_model("builtin:twist").expect("builtin");
    scene.meshes = vec![Mesh {
        name: "posed".into(),
        primitives: vec![Primitive {
            positions: posed.positions.clone(),
            normals: posed.normals.clone(),
            indices: source.indices.clone(),
            material: source.material,
            ..Primitive::default()
        }],
        morph_weights: Vec::new(),
    }];
    scene.skins.clear();
    scene.animations.clear();
    scene.nodes = vec![Node {
        name: "posed".into(),
        mesh: Some(0),
        ..Node::default()
    }];
    scene.roots = vec![0];
    scene
}
