//! UsdSkel bindings of a mesh: `skel:skeleton` (inherited), joint influences with
//! `elementSize` and constant (rigid) interpolation, the `skel:joints` subset,
//! `geomBindTransform`, `skinningMethod` and blend shapes.
//!
//! dqview's skin is glTF's: `world = global(joint) * inverse_bind * p`, the mesh node's own
//! transform ignored. UsdSkel's `p' = p · G · inverse(bind_j) · skelSpace_j · skelLocalToWorld`
//! (row vectors) is that with `inverse_bind = inverse(bind_j) * G` (column vectors), since the
//! joints are nodes under the Skeleton prim's node.

use std::collections::HashMap;

use super::source::UsdStage;
use glam::{DMat4, Vec3};
use openusd::sdf::Value;

use super::inbetween::{self, SubShapes};
use super::mesh::MeshBudget;
use super::nodes::TimedChannel;
use super::read;
use super::skel::SkelInfo;
use crate::influences::Influences;
use crate::scene::{LoadOptions, Mesh, MorphTarget, Property, SceneError, Skin, SkinningMethod};

/// The binding properties, looked up on the mesh and then its ancestors up to the SkelRoot.
struct Lookup<'a> {
    stage: &'a UsdStage,
    /// The mesh and its ancestors below (and including) the SkelRoot, nearest first.
    chain: Vec<&'a str>,
}

impl Lookup<'_> {
    /// The nearest authored value of `name`, with the prim that authors it.
    fn value(&self, name: &str) -> Result<Option<(String, Value)>, SceneError> {
        for prim in &self.chain {
            if let Some(v) = read::value(self.stage, prim, name)? {
                return Ok(Some(((*prim).to_owned(), v)));
            }
        }
        Ok(None)
    }

    /// The nearest authored targets of relationship `name`.
    fn targets(&self, name: &str) -> Result<Vec<String>, SceneError> {
        for prim in &self.chain {
            let t = read::targets(self.stage, prim, name)?;
            if !t.is_empty() {
                return Ok(t);
            }
        }
        Ok(Vec::new())
    }
}

/// What skinning a mesh needs from its skeleton.
pub(super) struct Bound {
    /// The skin (joints are the skeleton's joint nodes in the mesh's joint order).
    pub skin: Skin,
    /// Per-vertex influences, renormalised by dqview's load-time rule.
    pub influences: Influences,
    /// `primvars:skel:skinningMethod`, when authored.
    pub method: Option<SkinningMethod>,
}

/// The mesh and its ancestors up to its SkelRoot (nearest first, each a prefix of `path`), or
/// `None` outside any SkelRoot.
pub(super) fn skel_root_chain<'a>(
    path: &'a str,
    is_skel_root: &dyn Fn(&str) -> bool,
) -> Option<Vec<&'a str>> {
    let mut chain = vec![path];
    let mut current = path;
    while let Some(parent) = read::parent_path(current) {
        chain.push(parent);
        if is_skel_root(parent) {
            return Some(chain);
        }
        current = parent;
    }
    None
}

/// The skin binding of mesh `path` (`points` points, then vertices repeating the points
/// `extra`), or `None` when no skeleton binds it with influences.
pub(super) fn load_binding<'a>(
    stage: &'a UsdStage,
    path: &str,
    chain: Vec<&'a str>,
    skeletons: &[SkelInfo],
    (points, extra): (usize, &[u32]),
    warnings: &mut Vec<String>,
) -> Result<Option<(usize, Bound)>, SceneError> {
    let look = Lookup { stage, chain };
    let Some(skel_path) = read::inherited_target(stage, path, "skel:skeleton")? else {
        return Ok(None);
    };
    let Some(skel_index) = skeletons.iter().position(|s| s.path == skel_path) else {
        warnings.push(format!(
            "Mesh {path}: skel:skeleton <{skel_path}> is not a loaded Skeleton; not skinned"
        ));
        return Ok(None);
    };
    let skel = &skeletons[skel_index];
    let Some((owner, indices)) = look.value("primvars:skel:jointIndices")? else {
        return Ok(None);
    };
    let indices = read::ints(Some(indices));
    let weights = look
        .value("primvars:skel:jointWeights")?
        .map(|(_, v)| read::floats(Some(v)))
        .unwrap_or_default();
    let name = "primvars:skel:jointIndices";
    let element_size = read::int(read::metadata(stage, &owner, name, "elementSize")?).unwrap_or(1);
    let interpolation = read::token(read::metadata(stage, &owner, name, "interpolation")?)
        .unwrap_or_else(|| String::from("vertex"));
    let element_size = usize::try_from(element_size)
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| bad(path, format!("jointIndices elementSize {element_size}")))?;
    let rigid = match interpolation.as_str() {
        "constant" => true,
        "vertex" | "varying" => false,
        other => return Err(bad(path, format!("jointIndices interpolation `{other}`"))),
    };
    let elements = if rigid { 1 } else { points };
    if indices.len() != elements * element_size || weights.len() != indices.len() {
        return Err(bad(
            path,
            format!(
                "{} jointIndices and {} jointWeights for {elements} elements of size {element_size}",
                indices.len(),
                weights.len()
            ),
        ));
    }
    let order = joint_order(path, &look, skel)?;
    let count = order.len();
    let mut checked = Vec::with_capacity(points);
    for v in 0..points {
        let e = if rigid { 0 } else { v };
        let mut out = Vec::with_capacity(element_size);
        for k in e * element_size..(e + 1) * element_size {
            let (j, w) = (indices[k], weights[k]);
            match usize::try_from(j) {
                Ok(j) if j < count => out.push((j as u16, w)),
                // UsdSkel skips zero weights, whatever their index.
                _ if w == 0.0 => {}
                _ => {
                    return Err(bad(
                        path,
                        format!("jointIndices entry {j} is not one of its {count} joints"),
                    ));
                }
            }
        }
        checked.push(out);
    }
    // The vertices after the points repeat their point's influences.
    for &p in extra {
        checked.push(checked[p as usize].clone());
    }
    let influences = Influences::from_rows(checked);
    let geom_bind = look
        .value("primvars:skel:geomBindTransform")?
        .and_then(|(_, v)| read::matrix(Some(v)))
        .unwrap_or(DMat4::IDENTITY);
    let skin = Skin {
        name: format!("{path} -> {skel_path}"),
        joints: order.iter().map(|&s| skel.joint_nodes[s]).collect(),
        inverse_bind: order
            .iter()
            .map(|&s| (skel.bind[s].inverse() * geom_bind).as_mat4())
            .collect(),
        skeleton: None,
    };
    let method = match look
        .value("primvars:skel:skinningMethod")?
        .and_then(|(_, v)| read::token(Some(v)))
        .as_deref()
    {
        Some("dualQuaternion") => Some(SkinningMethod::DualQuaternion),
        Some("classicLinear") => Some(SkinningMethod::Linear),
        Some(other) => {
            warnings.push(format!(
                "Mesh {path}: skinningMethod `{other}` is not UsdSkel's; classicLinear is used"
            ));
            Some(SkinningMethod::Linear)
        }
        None => None,
    };
    Ok(Some((
        skel_index,
        Bound {
            skin,
            influences,
            method,
        },
    )))
}

/// The mesh's joint order as skeleton joint indices: its `skel:joints` subset, else the skeleton's.
fn joint_order(path: &str, look: &Lookup<'_>, skel: &SkelInfo) -> Result<Vec<usize>, SceneError> {
    let subset = look
        .value("skel:joints")?
        .map(|(_, v)| read::tokens(Some(v)))
        .unwrap_or_default();
    if subset.is_empty() {
        if skel.joints.len() > usize::from(u16::MAX) {
            return Err(bad(
                path,
                format!("{} joints (most 65535)", skel.joints.len()),
            ));
        }
        return Ok((0..skel.joints.len()).collect());
    }
    let index: HashMap<&str, usize> = skel
        .joints
        .iter()
        .enumerate()
        .map(|(i, j)| (j.as_str(), i))
        .collect();
    subset
        .iter()
        .map(|j| {
            index.get(j.as_str()).copied().ok_or_else(|| {
                bad(
                    path,
                    format!("skel:joints names `{j}`, not a joint of {}", skel.path),
                )
            })
        })
        .collect()
}

/// The mesh's blend shapes (`skel:blendShapes` over `skel:blendShapeTargets`) as morph targets,
/// each inbetween a target of its own (`NAME:INBETWEEN`, after its shape), and a weights channel
/// from the skeleton's animation through the sub-shapes ([`inbetween`]).
pub(super) fn load_blend_shapes<'a>(
    stage: &'a UsdStage,
    path: &str,
    chain: Vec<&'a str>,
    (node, mesh): (usize, &mut Mesh),
    skel: &SkelInfo,
    (budget, options): (&mut MeshBudget, &LoadOptions),
    warnings: &mut Vec<String>,
) -> Result<Option<TimedChannel>, SceneError> {
    let look = Lookup { stage, chain };
    let names = look
        .value("skel:blendShapes")?
        .map(|(_, v)| read::tokens(Some(v)))
        .unwrap_or_default();
    if names.is_empty() {
        return Ok(None);
    }
    let targets = look.targets("skel:blendShapeTargets")?;
    if targets.len() != names.len() {
        return Err(bad(
            path,
            format!(
                "{} skel:blendShapes for {} skel:blendShapeTargets",
                names.len(),
                targets.len()
            ),
        ));
    }
    let Some(prim) = mesh.primitives.first_mut() else {
        return Ok(None);
    };
    let n = prim.positions.len();
    let mut shapes = Vec::with_capacity(names.len());
    for (name, target) in names.iter().zip(&targets) {
        let point_indices = read::ints(read::value(stage, target, "pointIndices")?);
        let offsets = read::vec3s(read::value(stage, target, "offsets")?);
        let normal_offsets = read::vec3s(read::value(stage, target, "normalOffsets")?);
        let primary = prim.morph_targets.len();
        let mut inbetweens = Vec::new();
        let shape = std::iter::once((name.clone(), offsets, normal_offsets, None));
        let between = inbetween::read_inbetweens(stage, target, warnings)?
            .into_iter()
            .map(|b| {
                (
                    format!("{name}:{}", b.name),
                    b.offsets,
                    b.normal_offsets,
                    Some(b.weight),
                )
            });
        for (target_name, offsets, normal_offsets, weight) in shape.chain(between) {
            budget.bytes(n as u64 * 12, options)?;
            let positions = scatter(path, target, &offsets, &point_indices, n)?;
            let normals = if normal_offsets.is_empty() {
                Vec::new()
            } else {
                scatter(path, target, &normal_offsets, &point_indices, n)?
            };
            if let Some(w) = weight {
                inbetweens.push((w, prim.morph_targets.len()));
            }
            prim.morph_targets.push(MorphTarget {
                name: target_name,
                positions,
                normals,
                tangents: Vec::new(),
            });
        }
        shapes.push(SubShapes::new(primary, inbetweens));
    }
    let count = prim.morph_targets.len();
    mesh.morph_weights = vec![0.0; count];
    let Some(anim) = &skel.blend_shapes else {
        return Ok(None);
    };
    // The animation's weight of each of the mesh's shapes, per key (0 for a shape it lacks).
    let slot: Vec<Option<usize>> = names
        .iter()
        .map(|n| anim.names.iter().position(|a| a == n))
        .collect();
    let weights: Vec<Vec<f32>> = anim
        .weights
        .iter()
        .map(|w| slot.iter().map(|s| s.map_or(0.0, |i| w[i])).collect())
        .collect();
    let (codes, values) = inbetween::sub_shape_keys(&shapes, &anim.codes, &weights, count);
    Ok(Some(TimedChannel {
        node,
        property: Property::MorphWeights(count),
        codes,
        values,
    }))
}

/// Offsets over `pointIndices` (or one per point when there are none) as one offset per point.
fn scatter(
    path: &str,
    target: &str,
    offsets: &[Vec3],
    point_indices: &[i32],
    points: usize,
) -> Result<Vec<Vec3>, SceneError> {
    if point_indices.is_empty() {
        if offsets.len() != points {
            return Err(bad(
                path,
                format!(
                    "BlendShape {target}: {} offsets for {points} points",
                    offsets.len()
                ),
            ));
        }
        return Ok(offsets.to_vec());
    }
    if offsets.len() != point_indices.len() {
        return Err(bad(
            path,
            format!(
                "BlendShape {target}: {} offsets for {} pointIndices",
                offsets.len(),
                point_indices.len()
            ),
        ));
    }
    let mut out = vec![Vec3::ZERO; points];
    for (&i, &o) in point_indices.iter().zip(offsets) {
        let slot = usize::try_from(i)
            .ok()
            .and_then(|i| out.get_mut(i))
            .ok_or_else(|| {
                bad(
                    path,
                    format!("BlendShape {target}: pointIndices entry {i} out of range"),
                )
            })?;
        *slot += o;
    }
    Ok(out)
}

/// A one-line error about mesh `path`'s binding.
fn bad(path: &str, what: String) -> SceneError {
    SceneError::Usd(format!("Mesh {path}: {what}"))
}
