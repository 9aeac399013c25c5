//! Built-in rigs: small skinned tubes that show each skinning artifact on demand.
//!
//! Every rig is a capped tube along +Y in metres, with joints on the Y axis,
//! no rest rotations, and a mesh node that is a separate root carrying the
//! skin. Joints come first in `Scene::nodes`, in skin order, so joint `j` of
//! the skin is node `j`; the mesh node is last.
//! - `twist`: the candy wrapper (LBS collapses when `tip` twists 180 degrees).
//! - `elbow`: the hinge (DQS bulges when `lower` bends).
//! - `arm`: a five-joint arm with a twist joint and the clip `twist_and_bend`.

mod arm;
mod cylinder;
mod elbow;
mod generated;
mod twist;

use glam::{Mat4, Quat, Vec3, Vec4};

use crate::influences::Influences;
use crate::scene::{
    Animation, Channel, Interpolation, Material, Mesh, Node, NodeTransform, Primitive, Property,
    Scene, SceneError, Skin, Trs, write_glb,
};

use cylinder::{TubeSpec, tube};
pub use generated::generated_rig;

/// Names accepted by [`builtin_scene`], in display order.
pub const BUILTIN_NAMES: [&str; 3] = ["twist", "elbow", "arm"];

/// Builds the built-in rig `name` (`twist`, `elbow` or `arm`; a `builtin:` prefix is accepted).
pub fn builtin_scene(name: &str) -> Result<Scene, SceneError> {
    let short = name.strip_prefix("builtin:").unwrap_or(name);
    match short {
        "twist" => Ok(twist::scene()),
        "elbow" => Ok(elbow::scene()),
        "arm" => Ok(arm::scene()),
        _ => Err(SceneError::UnknownBuiltin(name.to_owned())),
    }
}

/// The built-in rig `name` as a binary glTF file.
pub fn builtin_glb(name: &str) -> Result<Vec<u8>, SceneError> {
    write_glb(&builtin_scene(name)?)
}

/// One joint of a rig: its name, parent (an earlier joint) and rest offset from the parent.
struct JointSpec {
    /// Node and joint name.
    name: &'static str,
    /// Index of the parent joint, `None` for the skeleton root.
    parent: Option<usize>,
    /// Rest translation relative to the parent, in metres.
    translation: Vec3,
}

/// Everything that differs between rigs.
struct RigSpec<'a> {
    /// Rig name; `source` becomes `builtin:NAME` and the other names derive from it.
    name: &'static str,
    /// Joints in skin order; parents come before children.
    joints: &'a [JointSpec],
    /// The skinned tube.
    tube: TubeSpec,
    /// Raw (joint, weight) pairs for a vertex at height `y`; renormalised and sorted later.
    weights: &'a dyn Fn(f32) -> Vec<(u16, f32)>,
    /// Linear base colour.
    color: Vec4,
    /// Clips; channels target joints by joint (= node) index.
    animations: Vec<Animation>,
}

/// Assembles a rig's scene: joint nodes, mesh node, skin with exact inverse binds, material.
fn assemble(spec: RigSpec<'_>) -> Scene {
    let joint_count = spec.joints.len();
    let mut nodes: Vec<Node> = spec
        .joints
        .iter()
        .map(|j| Node {
            name: j.name.to_owned(),
            parent: j.parent,
            children: Vec::new(),
            transform: NodeTransform::Trs(Trs {
                translation: j.translation,
                ..Trs::IDENTITY
            }),
            mesh: None,
            skin: None,
            morph_weights: Vec::new(),
        })
        .collect();
    for (i, j) in spec.joints.iter().enumerate() {
        if let Some(node) = j.parent.and_then(|p| nodes.get_mut(p)) {
            node.children.push(i);
        }
    }
    let world_from_joint = global_matrices(&nodes);
    nodes.push(Node {
        name: format!("{}_mesh", spec.name),
        mesh: Some(0),
        skin: Some(0),
        ..Node::default()
    });
    let roots = (0..nodes.len())
        .filter(|&i| nodes.get(i).is_some_and(|n| n.parent.is_none()))
        .collect();

    let tube = tube(&spec.tube);
    let influences = Influences::from_rows(tube.positions.iter().map(|p| (spec.weights)(p.y)));
    let primitive = Primitive {
        dqs_blend: None,
        skinning_method: None,
        control_points: None,
        positions: tube.positions,
        normals: tube.normals,
        tangents: None,
        uvs: Some(tube.uvs),
        colors: None,
        indices: tube.indices,
        topology: crate::scene::Topology::Triangles,
        influences: Some(influences),
        material: Some(0),
        morph_targets: Vec::new(),
    };

    Scene {
        source: format!("builtin:{}", spec.name),
        nodes,
        roots,
        meshes: vec![Mesh {
            name: format!("{}_tube", spec.name),
            primitives: vec![primitive],
            morph_weights: Vec::new(),
        }],
        skins: vec![Skin {
            name: format!("{}_skin", spec.name),
            joints: (0..joint_count).collect(),
            // joint_from_bind: the rest pose is the bind pose, so M_j = I at rest.
            inverse_bind: world_from_joint.iter().map(Mat4::inverse).collect(),
            skeleton: Some(0),
        }],
        materials: vec![Material {
            name: format!("{}_material", spec.name),
            base_color_factor: spec.color,
            base_color_texture: None,
            double_sided: false,
            alpha_mode: crate::scene::AlphaMode::Opaque,
        }],
        textures: Vec::new(),
        animations: spec.animations,
        warnings: Vec::new(),
        sanitized: 0,
        ..Scene::default()
    }
}

/// `world_from_node` of every node at rest, walking up the parents.
fn global_matrices(nodes: &[Node]) -> Vec<Mat4> {
    (0..nodes.len())
        .map(|i| {
            let mut m = Mat4::IDENTITY;
            let mut at = Some(i);
            // Bounded by the node count so a malformed cycle cannot hang.
            for _ in 0..nodes.len() {
                let Some(node) = at.and_then(|a| nodes.get(a)) else {
                    break;
                };
                m = node.transform.to_mat4() * m;
                at = node.parent;
            }
            m
        })
        .collect()
}

/// Hermite smoothstep: 0 below `edge0`, 1 above `edge1`, C1-smooth in between.
fn smoothstep(edge0: f32, edge1: f32, x: f32) -> f32 {
    let t = ((x - edge0) / (edge1 - edge0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// A LINEAR rotation channel about `axis`, one key per (time in s, angle in degrees).
fn rotation_channel(node: usize, axis: Vec3, keys: &[(f32, f32)]) -> Channel {
    let axis = axis.normalize_or(Vec3::Y);
    Channel {
        node,
        property: Property::Rotation,
        interpolation: Interpolation::Linear,
        times_s: keys.iter().map(|&(t, _)| t).collect(),
        values: keys
            .iter()
            .flat_map(|&(_, deg)| {
                Quat::from_axis_angle(axis, deg.to_radians())
                    .normalize()
                    .to_array()
            })
            .collect(),
    }
}

/// `count` keys evenly spaced over `duration_s`, each with `f(s)` for s in [0, 1].
fn keys(count: usize, duration_s: f32, f: impl Fn(f32) -> f32) -> Vec<(f32, f32)> {
    let last = count.saturating_sub(1).max(1) as f32;
    (0..count)
        .map(|k| {
            let s = k as f32 / last;
            (s * duration_s, f(s))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rig_builds_and_names_its_source() {
        for name in BUILTIN_NAMES {
            let scene = builtin_scene(name).unwrap();
            assert_eq!(scene.source, format!("builtin:{name}"));
            assert_eq!(
                builtin_scene(&format!("builtin:{name}")).unwrap().source,
                scene.source
            );
        }
    }

    #[test]
    fn unknown_name_lists_the_known_ones() {
        let err = builtin_scene("knee").unwrap_err();
        assert!(matches!(err, SceneError::UnknownBuiltin(ref n) if n == "knee"));
        let msg = err.to_string();
        for name in BUILTIN_NAMES {
            assert!(msg.contains(name), "{msg} lacks {name}");
        }
    }

    #[test]
    fn smoothstep_is_clamped_and_symmetric() {
        assert_eq!(smoothstep(0.5, 1.5, 0.0), 0.0);
        assert_eq!(smoothstep(0.5, 1.5, 2.0), 1.0);
        assert!((smoothstep(0.5, 1.5, 1.0) - 0.5).abs() < 1e-6);
        let a = smoothstep(0.5, 1.5, 0.8);
        let b = smoothstep(0.5, 1.5, 1.2);
        assert!((a + b - 1.0).abs() < 1e-6);
    }

    #[test]
    fn globals_compose_parent_first() {
        let scene = builtin_scene("arm").unwrap();
        let g = global_matrices(&scene.nodes);
        let wrist = g[4].transform_point3(Vec3::ZERO);
        assert!(wrist.abs_diff_eq(Vec3::new(0.0, 2.3, 0.0), 1e-6));
    }

    #[test]
    fn rotation_keys_are_unit_quaternions() {
        let ch = rotation_channel(1, Vec3::Y, &keys(5, 2.0, |s| 180.0 * s));
        assert_eq!(ch.times_s, vec![0.0, 0.5, 1.0, 1.5, 2.0]);
        for q in ch.values.chunks_exact(4) {
            let len = q.iter().map(|v| v * v).sum::<f32>().sqrt();
            assert!((len - 1.0).abs() < 1e-6);
        }
        let last = &ch.values[16..20];
        assert!(
            last[1].abs() > 0.999_999,
            "180 degrees about Y is (0, 1, 0, 0)"
        );
    }
}
