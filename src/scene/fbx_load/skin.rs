//! Skins: FBX skin deformer clusters as dqview joints, weights and inverse bind matrices.
//!
//! A cluster's `geometry_to_bone` maps the mesh's control points (geometric
//! transform included) into its bone's space at bind time, so it is exactly
//! dqview's `joint_from_bind` for positions taken straight from the control
//! points. FBX moves control points no cluster weights with the mesh node;
//! when a mesh has such vertices dqview gives them one extra joint, the mesh
//! node itself, whose inverse bind is the node's geometric transform.

use glam::Mat4;

use super::convert;
use crate::influences::Influences;
use crate::scene::{Primitive, SceneError, Skin, SkinningMethod};

/// The skin of one mesh instance, ready to attach to its primitives.
pub(super) struct MeshSkin<'a> {
    /// The dqview skin (clusters, then the mesh node).
    pub skin: Skin,
    /// The ufbx deformer the weights come from.
    deformer: &'a ufbx::SkinDeformer,
    /// dqview joint index of each cluster; `None` for clusters without a bone.
    joint_of_cluster: Vec<Option<u16>>,
    /// The joint that stands for the mesh node, when some control point has no weight.
    mesh_joint: Option<u16>,
    /// The method the file asks for.
    method: SkinningMethod,
}

/// Reads the mesh's first skin deformer, if any, as a dqview skin for the node `node_index`.
pub(super) fn load_skin<'a>(
    mesh: &'a ufbx::Mesh,
    node: &ufbx::Node,
    node_index: usize,
    index_of: &[Option<usize>],
    here: &str,
    warnings: &mut Vec<String>,
) -> Result<Option<MeshSkin<'a>>, SceneError> {
    let Some(deformer) = mesh.skin_deformers.first() else {
        return Ok(None);
    };
    if mesh.skin_deformers.len() > 1 {
        warnings.push(format!(
            "{here}: {} skin deformers; only the first is used",
            mesh.skin_deformers.len()
        ));
    }
    let mut skin = Skin {
        name: if deformer.element.name.is_empty() {
            format!("skin of {}", node.element.name)
        } else {
            deformer.element.name.to_string()
        },
        ..Skin::default()
    };
    let mut joint_of_cluster = Vec::with_capacity(deformer.clusters.len());
    let mut boneless = 0;
    for cluster in &deformer.clusters {
        let bone = match &cluster.bone_node {
            Some(b) => super::nodes::lookup(index_of, b.element.typed_id)?,
            None => None,
        };
        let Some(bone) = bone else {
            boneless += 1;
            joint_of_cluster.push(None);
            continue;
        };
        joint_of_cluster.push(Some(joint_index(skin.joints.len(), here)?));
        skin.joints.push(bone);
        skin.inverse_bind
            .push(convert::mat4(&cluster.geometry_to_bone));
    }
    if boneless > 0 {
        warnings.push(format!(
            "{here}: {boneless} skin clusters have no bone; their weights are ignored"
        ));
    }
    let unweighted =
        (0..mesh.num_vertices).any(|cp| weights(deformer, &joint_of_cluster, cp).is_empty());
    let mesh_joint = if unweighted {
        let j = joint_index(skin.joints.len(), here)?;
        skin.joints.push(node_index);
        skin.inverse_bind.push(if node.has_geometry_transform {
            convert::mat4(&node.geometry_to_node)
        } else {
            Mat4::IDENTITY
        });
        Some(j)
    } else {
        None
    };
    let method = match deformer.skinning_method {
        ufbx::SkinningMethod::DualQuaternion => SkinningMethod::DualQuaternion,
        ufbx::SkinningMethod::BlendedDqLinear => SkinningMethod::Blended,
        ufbx::SkinningMethod::Linear | ufbx::SkinningMethod::Rigid => SkinningMethod::Linear,
    };
    Ok(Some(MeshSkin {
        skin,
        deformer,
        joint_of_cluster,
        mesh_joint,
        method,
    }))
}

/// The (joint, weight) pairs of control point `cp`, or none when its valid weights sum to zero.
fn weights(d: &ufbx::SkinDeformer, joint_of_cluster: &[Option<u16>], cp: usize) -> Vec<(u16, f32)> {
    let mut row: Vec<(u16, f32)> = Vec::new();
    if let Some(v) = d.vertices.get(cp) {
        let begin = v.weight_begin as usize;
        let end = begin.saturating_add(v.num_weights as usize);
        for w in d.weights.get(begin..end).unwrap_or(&[]) {
            if let Some(j) = joint_of_cluster
                .get(w.cluster_index as usize)
                .copied()
                .flatten()
            {
                row.push((j, w.weight as f32));
            }
        }
    }
    let total: f32 = row.iter().map(|(_, w)| w.max(0.0)).sum();
    if total.is_nan() || total <= crate::influences::MIN_WEIGHT {
        row.clear();
    }
    row
}

/// A joint count as a `u16` joint index, or an error past what influences can index.
fn joint_index(count: usize, here: &str) -> Result<u16, SceneError> {
    u16::try_from(count)
        .map_err(|_| SceneError::Fbx(format!("{here}: more than 65535 skin clusters")))
}

impl MeshSkin<'_> {
    /// Sets the influences, skinning method and (for blended skins) per-vertex DQ weights
    /// of `prim`, whose vertex `i` is control point `control_points[i]`.
    pub(super) fn attach(
        &self,
        prim: &mut Primitive,
        control_points: &[usize],
        here: &str,
        warnings: &mut Vec<String>,
    ) {
        let d = self.deformer;
        let mut unskinned = 0;
        let rows = control_points.iter().map(|&cp| {
            let row = weights(d, &self.joint_of_cluster, cp);
            match self.mesh_joint {
                Some(mesh_joint) if row.is_empty() => {
                    unskinned += 1;
                    vec![(mesh_joint, 1.0)]
                }
                _ => row,
            }
        });
        let influences = Influences::from_rows(rows.collect::<Vec<_>>());
        if unskinned > 0 {
            warnings.push(format!(
                "{here}: {unskinned} vertices have no skin weight; they follow the mesh node"
            ));
        }
        if influences.invalid_weights() > 0 {
            warnings.push(format!(
                "{here}: {} skin weights were negative or non-finite; ignored",
                influences.invalid_weights()
            ));
        }
        prim.influences = Some(influences);
        prim.skinning_method = Some(self.method);
        if self.method == SkinningMethod::Blended {
            prim.dqs_blend = Some(
                control_points
                    .iter()
                    .map(|&cp| {
                        let b = d.vertices.get(cp).map_or(0.0, |v| v.dq_weight as f32);
                        if b.is_nan() { 1.0 } else { b.clamp(0.0, 1.0) }
                    })
                    .collect(),
            );
        }
    }
}
