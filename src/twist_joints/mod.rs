//! Twist (roll) joints: a fix for the LBS candy wrapper that plays in any LBS engine.
//!
//! LBS collapses a junction where a joint K twists against its parent P: a vertex weighted on
//! both blends two matrices a large angle apart. CoR and DQS turn such a vertex by K's share
//! of the blend (about `share x twist`); twist joints make LBS do the same. For each junction
//! (K, P), with N twist joints a family:
//! - `K_twist_parent_NN`, children of P at K's head, each turning by `n / (N + 1)` of K's
//!   rotation from rest (a `VRMC_node_constraint` rotation read from K): for a twist, a share
//!   of the twist; for a swing, a share of it too, so P's side of the blend follows a bend part
//!   way (a roll about K's rest axis, hung under P, turns the shoulder about the wrong axis once
//!   K swings far: the Adventurer's Punch_Right shoulder lost volume with it);
//! - `K_twist_NN`, which follow K's swing and turn by `n / (N + 1)` of its twist, so they
//!   undo the rest: they hang under `K_twist_aim` (aims at K's child: K's swing without its
//!   twist) and `K_twist_frame` (a fixed turn that lets the roll read K's twist as the
//!   specification's formula reads it, for any bone orientation);
//! - in the blend, P's weight moves onto the parent family and K's onto the joint family, each
//!   at the share of the vertex that follows K, so both parts of a vertex turn by about that
//!   share, as CoR and DQS turn it.
//!
//! Every added node equals its parent (or P's family: P) until K turns, and at rest each
//! weighted one's skinning matrix equals the joint whose weight it took, so the rest mesh is
//! unchanged. Clips are baked into rotation channels for players without constraints.
//! (The specification's roll weights are in [0, 1] and a roll is read in the source's parent
//! frame, so "K's twist undone towards P" on K's own children has no direct form: hence the
//! aim and frame nodes.)
//! - `layout`: the nodes, constraints and inverse bind matrices.
//! - `weights`: the new influences.
//! - `bake`: rotation channels per clip.
//! - `strip`: a previous run's nodes taken out.
//! - `pick`: the joints the analysis says collapse.
//! - `measure`: what the fix gains.

mod bake;
mod fit;
mod fit_unit;
mod layout;
mod measure;
mod mirror;
mod pick;
pub mod poses;
mod rest_class;
mod solve;
mod strip;

pub use fit::{FitSummary, FitTarget};
pub use layout::{Family, RollJoint};
pub use measure::{HeldOut, METHODS, MeasurePose, RegionFigures, judge_held_out, rest_reference};
pub use mirror::{Mirror, MirrorMap};
pub use pick::{PickedJoint, Picks, SWEEP_BEND_DEG, SWEEP_TWIST_DEG, pick_joints, twist_pose};

use crate::scene::Scene;
use crate::skin::SceneCenters;

/// Default twist joints per family.
pub const DEFAULT_COUNT: usize = 2;
/// Most twist joints per family.
pub const MAX_COUNT: usize = 8;

/// A twisting joint K whose junction with its parent to fix, and how many twist joints per family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TwistRequest {
    /// The joint's node index.
    pub joint: usize,
    /// Twist joints per family (1 to [`MAX_COUNT`]).
    pub count: usize,
}

/// Options of [`add_twist_joints`].
#[derive(Clone, Debug, PartialEq)]
pub struct TwistOptions {
    /// Most influences per vertex in the output (4 or 8).
    pub max_influences: usize,
    /// The clips to bake (indices); the others get no roll-joint channels.
    pub clips: Vec<usize>,
    /// What the weights are fitted to.
    pub target: FitTarget,
    /// Direct Delta Mush's parameters, for the DDM target.
    pub ddm: crate::skin::ddm::DdmParams,
    /// Delta Mush's parameters, for the DM target.
    pub dm: crate::skin::dm::DmParams,
}

/// Why roll joints could not be added.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TwistError {
    /// A joint's bone has no direction.
    #[error("{0} has no child joint, so its bone has no direction to twist about")]
    NoChild(String),
    /// A joint weights no vertex.
    #[error("{0} is not a joint that weights any vertex")]
    NotWeighted(String),
    /// A joint was chosen twice, or is a roll joint itself.
    #[error("{0}: {1}")]
    BadJoint(String, String),
    /// A node name the roll joints need is taken.
    #[error("a node is already named {0} (not one of dqview's roll joints)")]
    NameTaken(String),
    /// A previous run's roll joints are not where dqview put them.
    #[error("{0}")]
    Strip(String),
    /// A bad option.
    #[error("{0}")]
    Option(String),
}

/// The input with roll joints, and what changed.
#[derive(Clone, Debug)]
pub struct TwistRig {
    /// The rig with the roll joints, their weights, constraints and baked channels.
    pub scene: Scene,
    /// Roll joints of a previous run taken out first (the input's last nodes).
    pub removed_nodes: usize,
    /// Node index of the first roll joint added (the stripped input's node count).
    pub first_new_node: usize,
    /// The nodes added, in node order from `first_new_node`.
    pub roll_joints: Vec<RollJoint>,
    /// Skins whose joint lists changed.
    pub changed_skins: Vec<usize>,
    /// Meshes skinned by a changed skin (their influences are rewritten).
    pub changed_meshes: Vec<usize>,
    /// Per baked clip: (animation index, key times written).
    pub baked: Vec<(usize, usize)>,
    /// What the weight fit did.
    pub fit: FitSummary,
}

/// The junctions at both ends of each chosen joint's bone, as `--joint JOINT=N` means them:
/// the joint's own and its first child's (where that child has a child of its own), each once.
#[must_use]
pub fn bone_requests(scene: &Scene, joints: &[(usize, usize)]) -> Vec<TwistRequest> {
    let mut out: Vec<TwistRequest> = Vec::new();
    for &(joint, count) in joints {
        let child = crate::anim::first_child_joint(scene, joint)
            .filter(|&c| crate::anim::first_child_joint(scene, c).is_some());
        for k in std::iter::once(joint).chain(child) {
            if !out.iter().any(|r| r.joint == k) {
                out.push(TwistRequest { joint: k, count });
            }
        }
    }
    out
}

/// The junctions an earlier run of helper-joints fixed in `scene`, with their counts.
#[must_use]
pub fn earlier_requests(scene: &Scene) -> Vec<TwistRequest> {
    strip::earlier_requests(scene)
}

/// `scene` without the helper joints of an earlier run (their weight given back), and how
/// many nodes were taken out: the rig the fit's target is computed on.
pub fn without_helpers(scene: &Scene) -> Result<(Scene, usize), TwistError> {
    strip::strip_roll_joints(scene)
}

/// Adds helper joints for `requests` to `scene` (after taking out a previous run's) and fits
/// their weights to `options.target`; `centers` are the CoR centres of the input without an
/// earlier run's helpers ([`without_helpers`]), for the CoR target.
pub fn add_twist_joints(
    scene: &Scene,
    requests: &[TwistRequest],
    options: &TwistOptions,
    centers: &SceneCenters,
) -> Result<TwistRig, TwistError> {
    if ![4, 8].contains(&options.max_influences) {
        return Err(TwistError::Option(format!(
            "--max-influences {} must be 4 (JOINTS_0) or 8 (JOINTS_0 and JOINTS_1)",
            options.max_influences
        )));
    }
    let (base, removed_nodes) = strip::strip_roll_joints(scene)?;
    let first_new_node = base.nodes.len();
    let plan = layout::plan(&base, requests)?;
    let mut out = base.clone();
    layout::add_nodes(&mut out, &plan);
    // DDM's matrices of the input without helpers, the rig the fit aims to match.
    let ddm = match options.target {
        FitTarget::Ddm => Some(
            crate::skin::ddm::SceneDdm::compute(&base, options.ddm)
                .map_err(|e| TwistError::Option(format!("the DDM target: {e}")))?,
        ),
        FitTarget::Cor | FitTarget::Dqs | FitTarget::Dm => None,
    };
    let dm = (options.target == FitTarget::Dm)
        .then(|| crate::skin::dm::SceneDm::compute(&base, options.dm));
    let data = fit::TargetData {
        centers,
        ddm: ddm.as_ref(),
        dm: dm.as_ref(),
    };
    let fit = fit::fit_weights(
        &base,
        &mut out,
        &plan,
        options.max_influences,
        options.target,
        &data,
    );
    let baked = bake::bake_clips(&mut out, &plan, &options.clips, first_new_node);
    let changed_skins: Vec<usize> = (0..out.skins.len())
        .filter(|&s| {
            scene
                .skins
                .get(s)
                .is_none_or(|old| old.joints != out.skins[s].joints)
        })
        .collect();
    let mut changed_meshes: Vec<usize> = out
        .nodes
        .iter()
        .filter(|n| n.skin.is_some_and(|s| changed_skins.contains(&s)))
        .filter_map(|n| n.mesh)
        .collect();
    changed_meshes.sort_unstable();
    changed_meshes.dedup();
    Ok(TwistRig {
        scene: out,
        removed_nodes,
        first_new_node,
        roll_joints: plan.roll_joints,
        changed_skins,
        changed_meshes,
        baked,
        fit,
    })
}

#[cfg(test)]
mod tests;
