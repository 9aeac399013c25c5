//! UsdSkel skeletons as joint nodes under the Skeleton prim's node, and their bound
//! `SkelAnimation` (through `skel:animationSource`) as keyframe channels on those joints.

use std::collections::HashMap;

use super::source::UsdStage;
use super::traverse::PrimPath;
use glam::DMat4;

use super::nodes::{StageNodes, TimedChannel, node_transform};
use super::read;
use crate::scene::{DataFault, FaultKind, LoadOptions, Node, Property, SceneError};

/// One loaded Skeleton prim.
pub(super) struct SkelInfo {
    /// The Skeleton prim's path.
    pub path: String,
    /// Joint paths (`skel:joints` tokens), the skeleton's joint order.
    pub joints: Vec<String>,
    /// Node of each joint.
    pub joint_nodes: Vec<usize>,
    /// `bindTransforms` (skeleton space), column-vector form.
    pub bind: Vec<DMat4>,
    /// The bound animation's blend shape weights, when it has any.
    pub blend_shapes: Option<BlendShapeWeights>,
    /// The bound SkelAnimation prim's name.
    pub animation: Option<String>,
    /// Bad data found in the skeleton and its animation.
    pub faults: Vec<DataFault>,
}

/// A SkelAnimation's `blendShapes` order and its `blendShapeWeights` keys.
pub(super) struct BlendShapeWeights {
    /// Blend shape names, the order of each key's weights.
    pub names: Vec<String>,
    /// Key times in time codes.
    pub codes: Vec<f64>,
    /// Weights per key, `names.len()` each.
    pub weights: Vec<Vec<f32>>,
}

/// Joints counted so far against `--max-joints`.
pub(super) struct JointBudget {
    used: u64,
}

impl JointBudget {
    /// No joints yet.
    pub fn new() -> Self {
        Self { used: 0 }
    }

    /// Counts `n` more joints, refusing past the limit.
    fn take(&mut self, n: usize, options: &LoadOptions) -> Result<(), SceneError> {
        self.used += n as u64;
        if self.used > options.max_joints {
            return Err(SceneError::LimitExceeded {
                what: "joints",
                found: self.used,
                limit: options.max_joints,
                flag: "--max-joints",
                field: "max_joints",
            });
        }
        Ok(())
    }
}

/// Every Skeleton prim that has a node, with its joints added as nodes and its animation as channels.
pub(super) fn load_skeletons(
    stage: &UsdStage,
    nodes: &mut StageNodes,
    options: &LoadOptions,
    warnings: &mut Vec<String>,
) -> Result<Vec<SkelInfo>, SceneError> {
    let skeleton_nodes: Vec<(usize, PrimPath)> = nodes
        .prims
        .iter()
        .enumerate()
        .filter(|(_, p)| p.type_name == "Skeleton")
        .map(|(i, p)| (i, p.path.clone()))
        .collect();
    let mut budget = JointBudget::new();
    let mut out = Vec::new();
    for (node, path) in skeleton_nodes {
        out.push(load_skeleton(
            stage,
            nodes,
            node,
            &path,
            (&mut budget, options),
            warnings,
        )?);
    }
    Ok(out)
}

/// One skeleton: joints, bind and rest transforms, and the bound animation.
fn load_skeleton(
    stage: &UsdStage,
    nodes: &mut StageNodes,
    skel_node: usize,
    path: &str,
    (budget, options): (&mut JointBudget, &LoadOptions),
    warnings: &mut Vec<String>,
) -> Result<SkelInfo, SceneError> {
    let joints = read::tokens(read::value(stage, path, "joints")?);
    budget.take(joints.len(), options)?;
    let bind = read::matrices(read::value(stage, path, "bindTransforms")?);
    if bind.len() != joints.len() {
        return Err(SceneError::Usd(format!(
            "Skeleton {path}: {} bindTransforms for {} joints",
            bind.len(),
            joints.len()
        )));
    }
    let (bind, mut faults) = checked_bind_transforms(bind, path);
    let mut rest = read::matrices(read::value(stage, path, "restTransforms")?);
    let index_of: HashMap<&str, usize> = joints
        .iter()
        .enumerate()
        .map(|(i, j)| (j.as_str(), i))
        .collect();
    let parents: Vec<Option<usize>> = joints
        .iter()
        .enumerate()
        .map(|(i, j)| {
            let p = index_of.get(read::parent_path(j)?).copied()?;
            // UsdSkel orders parents before children; anything else is a root here.
            (p < i).then_some(p)
        })
        .collect();
    if rest.is_empty() {
        // No rest pose: the bind pose, made parent-relative.
        warnings.push(format!(
            "Skeleton {path}: no restTransforms; the bind pose is the rest pose"
        ));
        rest = (0..joints.len())
            .map(|i| match parents[i] {
                Some(p) => bind[p].inverse() * bind[i],
                None => bind[i],
            })
            .collect();
    } else if rest.len() != joints.len() {
        return Err(SceneError::Usd(format!(
            "Skeleton {path}: {} restTransforms for {} joints",
            rest.len(),
            joints.len()
        )));
    }
    let first = nodes.nodes.len();
    for (i, joint) in joints.iter().enumerate() {
        let index = first + i;
        let parent = parents[i].map_or(skel_node, |p| first + p);
        nodes.nodes.push(Node {
            name: read::leaf(joint).to_owned(),
            parent: Some(parent),
            transform: node_transform(rest[i]),
            ..Node::default()
        });
        nodes.nodes[parent].children.push(index);
    }
    let joint_nodes: Vec<usize> = (first..first + joints.len()).collect();
    let mut info = SkelInfo {
        path: path.to_owned(),
        joints,
        joint_nodes,
        bind,
        blend_shapes: None,
        animation: None,
        faults: Vec::new(),
    };
    if let Some(anim) = read::inherited_target(stage, path, "skel:animationSource")? {
        load_animation(stage, &anim, &mut info, &mut nodes.channels, warnings)?;
    }
    faults.append(&mut info.faults);
    info.faults = faults;
    Ok(info)
}

/// `bindTransforms` with the non-finite and singular ones replaced by the identity (their
/// inverses are undefined), and a fault for each kind.
fn checked_bind_transforms(bind: Vec<DMat4>, path: &str) -> (Vec<DMat4>, Vec<DataFault>) {
    let narrow: Vec<glam::Mat4> = bind.iter().map(DMat4::as_mat4).collect();
    let place = format!("Skeleton {path} bindTransforms");
    let (_, faults) = crate::scene::faults::checked_binds(narrow, &place);
    let fixed = bind
        .into_iter()
        .map(|m| {
            let bad = !m.is_finite() || crate::scene::faults::is_singular_bind(&m.as_mat4());
            if bad { DMat4::IDENTITY } else { m }
        })
        .collect();
    (fixed, faults)
}

/// The SkelAnimation `anim` bound to `skel`: joint channels, and blend shape weights kept for the meshes.
fn load_animation(
    stage: &UsdStage,
    anim: &str,
    skel: &mut SkelInfo,
    channels: &mut Vec<TimedChannel>,
    warnings: &mut Vec<String>,
) -> Result<(), SceneError> {
    if stage.type_name(anim)? != "SkelAnimation" {
        warnings.push(format!(
            "Skeleton {}: skel:animationSource <{anim}> is not a SkelAnimation; not animated",
            skel.path
        ));
        return Ok(());
    }
    skel.animation = Some(read::leaf(anim).to_owned());
    let anim_joints = read::tokens(read::value(stage, anim, "joints")?);
    let skel_index: HashMap<&str, usize> = skel
        .joints
        .iter()
        .enumerate()
        .map(|(i, j)| (j.as_str(), i))
        .collect();
    // Animation joint order -> skeleton joint (by path token, as UsdSkel's AnimMapper).
    let map: Vec<Option<usize>> = anim_joints
        .iter()
        .map(|j| skel_index.get(j.as_str()).copied())
        .collect();
    let unmapped = map.iter().filter(|m| m.is_none()).count();
    if unmapped > 0 {
        warnings.push(format!(
            "SkelAnimation {anim}: {unmapped} joints are not in Skeleton {}; ignored",
            skel.path
        ));
    }
    let mut zero_rotations = (0, None);
    let mut sampled = false;
    for (name, property) in [
        ("translations", Property::Translation),
        ("rotations", Property::Rotation),
        ("scales", Property::Scale),
    ] {
        sampled |= !read::sample_times(stage, anim, name)?.is_empty();
        let keys = keys_of(stage, anim, name)?;
        let width = if property == Property::Rotation { 4 } else { 3 };
        let mut per_joint: Vec<Vec<f32>> = vec![Vec::new(); anim_joints.len()];
        for (k, (code, value)) in keys.iter().enumerate() {
            let flat: Vec<f32> = if property == Property::Rotation {
                let quats = read::quats(value.clone());
                let zero = quats.iter().filter(|q| is_zero_rotation(**q)).count();
                if zero > 0 {
                    zero_rotations.0 += zero;
                    zero_rotations.1.get_or_insert(k);
                }
                quats
                    .iter()
                    .flat_map(|q| unit_rotation(*q).to_array())
                    .collect()
            } else {
                read::vec3s(value.clone())
                    .iter()
                    .flat_map(|v| v.to_array())
                    .collect()
            };
            if flat.len() != anim_joints.len() * width {
                return Err(SceneError::Usd(format!(
                    "SkelAnimation {anim}.{name} at time {code}: {} values for {} joints",
                    flat.len() / width,
                    anim_joints.len()
                )));
            }
            for (j, chunk) in flat.chunks_exact(width).enumerate() {
                per_joint[j].extend_from_slice(chunk);
            }
        }
        if keys.is_empty() {
            continue;
        }
        let codes: Vec<f64> = keys.iter().map(|(c, _)| *c).collect();
        for (j, values) in per_joint.into_iter().enumerate() {
            let Some(k) = map[j] else { continue };
            channels.push(TimedChannel {
                node: skel.joint_nodes[k],
                property,
                codes: codes.clone(),
                values,
            });
        }
    }
    skel.faults
        .extend(animation_faults(anim, zero_rotations, sampled));
    let names = read::tokens(read::value(stage, anim, "blendShapes")?);
    if !names.is_empty() {
        let keys = keys_of(stage, anim, "blendShapeWeights")?;
        let mut weights = Vec::with_capacity(keys.len());
        for (code, value) in &keys {
            let w = read::floats(value.clone());
            if w.len() != names.len() {
                return Err(SceneError::Usd(format!(
                    "SkelAnimation {anim}.blendShapeWeights at time {code}: {} weights for {} blend shapes",
                    w.len(),
                    names.len()
                )));
            }
            weights.push(w);
        }
        skel.blend_shapes = Some(BlendShapeWeights {
            names,
            codes: keys.iter().map(|(c, _)| *c).collect(),
            weights,
        });
    }
    Ok(())
}

/// Whether `q` is finite but of (near) zero length: it names no rotation.
fn is_zero_rotation(q: glam::Quat) -> bool {
    q.is_finite() && q.length_squared() <= 1e-12
}

/// `q` normalised; a zero rotation becomes the identity (a NaN one stays NaN, for the
/// non-finite sweep to count and replace).
fn unit_rotation(q: glam::Quat) -> glam::Quat {
    if is_zero_rotation(q) {
        glam::Quat::IDENTITY
    } else {
        q.normalize()
    }
}

/// The faults of SkelAnimation `anim`: zero rotations (how many, first key), and no samples.
fn animation_faults(
    anim: &str,
    (zero, first): (usize, Option<usize>),
    sampled: bool,
) -> Vec<DataFault> {
    let place = format!("SkelAnimation {anim}");
    let mut faults = Vec::new();
    if zero > 0 {
        let kind = FaultKind::ZeroRotationKeys;
        let action = "replaced by the identity rotation";
        faults.push(DataFault::new(kind, &place, zero, first, action));
    }
    if !sampled {
        let kind = FaultKind::AnimationWithoutSamples;
        let action = "its default values hold at every time (UsdSkel's fallback): a still pose, no clip to play";
        faults.push(DataFault::new(kind, &place, 1, None, action));
    }
    faults
}

/// The keys of `prim.name`: each time sample, or its default value as one key at time 0.
fn keys_of(
    stage: &UsdStage,
    prim: &str,
    name: &str,
) -> Result<Vec<(f64, Option<openusd::sdf::Value>)>, SceneError> {
    let keys = read::samples(stage, prim, name)?;
    if keys.is_empty() {
        return Ok(match read::value(stage, prim, name)? {
            Some(v) => vec![(0.0, Some(v))],
            None => Vec::new(),
        });
    }
    Ok(keys)
}
