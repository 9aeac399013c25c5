//! A generated rig of any size, for benchmarks: a long tube on a chain of joints.

use glam::{Mat4, Vec3, Vec4};

use super::cylinder::{TubeSpec, tube};
use super::{keys, rotation_channel};
use crate::influences::Influences;
use crate::scene::{Animation, Material, Mesh, Node, NodeTransform, Primitive, Scene, Skin, Trs};

/// Vertices around each ring of the generated tube.
const SEGMENTS: u32 = 64;

/// A tube of about `vertices` vertices along +Y on a chain of `joints` joints one unit apart,
/// each vertex weighted by the 4 nearest joints, with a clip `wave` that bends and twists them.
#[must_use]
pub fn generated_rig(vertices: usize, joints: usize) -> Scene {
    let joints = joints.clamp(2, u16::MAX as usize);
    // Each ring has SEGMENTS + 1 vertices (duplicated seam); caps add a few more.
    let rings = ((vertices.max(100) as u32) / (SEGMENTS + 1)).max(2);
    let length = joints as f32;
    let mesh = tube(&TubeSpec {
        y_start: 0.0,
        y_end: length,
        radius_start: 0.3,
        radius_end: 0.3,
        segments: SEGMENTS,
        rings,
    });
    let influences = Influences::from_rows(mesh.positions.iter().map(|p| weights(p.y, joints)));
    let mut nodes: Vec<Node> = (0..joints)
        .map(|j| Node {
            name: format!("joint_{j}"),
            parent: j.checked_sub(1),
            children: if j + 1 < joints {
                vec![j + 1]
            } else {
                Vec::new()
            },
            transform: NodeTransform::Trs(Trs {
                translation: if j == 0 { Vec3::ZERO } else { Vec3::Y },
                ..Trs::IDENTITY
            }),
            mesh: None,
            skin: None,
            morph_weights: Vec::new(),
        })
        .collect();
    nodes.push(Node {
        name: "generated_mesh".into(),
        mesh: Some(0),
        skin: Some(0),
        ..Node::default()
    });
    // Odd joints twist about the bone, even ones bend: both artifacts at once.
    let channels = (1..joints)
        .map(|j| {
            let phase = j as f32 / joints as f32;
            let axis = if j % 2 == 1 { Vec3::Y } else { Vec3::Z };
            let amplitude = if j % 2 == 1 { 60.0 } else { 25.0 };
            rotation_channel(
                j,
                axis,
                &keys(9, 2.0, |s| {
                    amplitude * (std::f32::consts::TAU * (s + phase)).sin()
                }),
            )
        })
        .collect();
    Scene {
        source: format!("generated:{}x{joints}", mesh.positions.len()),
        roots: vec![0, joints],
        meshes: vec![Mesh {
            name: "generated_tube".into(),
            primitives: vec![Primitive {
                positions: mesh.positions,
                normals: mesh.normals,
                uvs: Some(mesh.uvs),
                indices: mesh.indices,
                influences: Some(influences),
                material: Some(0),
                ..Primitive::default()
            }],
            morph_weights: Vec::new(),
        }],
        skins: vec![Skin {
            name: "generated_skin".into(),
            joints: (0..joints).collect(),
            inverse_bind: (0..joints)
                .map(|j| Mat4::from_translation(Vec3::new(0.0, -(j as f32), 0.0)))
                .collect(),
            skeleton: Some(0),
        }],
        materials: vec![Material {
            name: "generated_material".into(),
            base_color_factor: Vec4::new(0.7, 0.6, 0.5, 1.0),
            ..Material::default()
        }],
        animations: vec![Animation {
            name: "wave".into(),
            channels,
        }],
        nodes,
        ..Scene::default()
    }
}

/// Four influences for height `y`: the joints around it, weighted by a smooth falloff.
fn weights(y: f32, joints: usize) -> Vec<(u16, f32)> {
    let centre = (y - 0.5).floor() as i64;
    (centre - 1..=centre + 2)
        .map(|j| j.clamp(0, joints as i64 - 1))
        .map(|j| {
            let d = (y - (j as f32 + 0.5)).abs();
            (j as u16, (1.6 - d).max(0.01).powi(2))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_rig_has_the_size_asked_and_four_influences() {
        let scene = generated_rig(10_000, 20);
        let prim = &scene.meshes[0].primitives[0];
        let n = prim.positions.len();
        assert!((9_000..11_000).contains(&n), "{n}");
        let inf = prim.influences.as_ref().expect("influences");
        assert!(inf.max_influences() <= 4);
        assert!(inf.iter().filter(|r| r.len() == 4).count() > n / 2);
        assert_eq!(scene.skins[0].joints.len(), 20);
        // Rest pose is the bind pose.
        let pose = crate::anim::Pose::rest(&scene);
        let mut m = Vec::new();
        pose.skinning_matrices(&scene, 0, &mut m);
        assert!(m.iter().all(|m| m.abs_diff_eq(Mat4::IDENTITY, 1e-5)));
    }
}
