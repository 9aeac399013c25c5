//! Fitting per-vertex hybrid blend weights (`_DQS_BLEND`) to centers-of-rotation skinning.
//!
//! The hybrid puts a vertex at h = l + beta (q - l), with l and q its LBS and DQS
//! positions. Over a set of poses t, the beta that brings h closest to the vertex's
//! CoR position c in the least-squares sense is
//!
//! beta = clamp(sum_t (q - l) . (c - l) / sum_t |q - l|^2, 0, 1),
//!
//! and 0.5 where the denominator is negligible: below `poses * (NEGLIGIBLE_GAP_RELATIVE * d)^2`,
//! d the rest-pose bounding-box diagonal, i.e. where LBS and DQS never part by more than
//! about 1e-5 of the model (one-influence vertices, unweighted ones), so beta cannot matter.
//! l, q and c come from the CPU reference ([`skin_scene`], [`skin_scene_cor`]); a mesh used by
//! several skinned nodes gets one beta per vertex, fitted over all of them. The result is
//! optionally smoothed over the mesh edges ([`smooth_betas`]).

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use glam::Vec3;
use rayon::prelude::*;

use super::blend_smooth::smooth_betas;
use super::{
    Betas, PosedPrimitive, SceneBetas, SceneCenters, SkinningMode, rest_bounds, skin_scene,
    skin_scene_cor,
};
use crate::anim::{JointAngles, JointOverrides, Pose, clip_duration_s};
use crate::scene::Scene;

/// Where LBS and DQS part by less than this fraction of the bounding-box diagonal (RMS over the poses), beta is 0.5.
pub const NEGLIGIBLE_GAP_RELATIVE: f64 = 1e-5;

/// Poses skinned in parallel before their terms are summed (in pose order).
const POSE_BATCH: usize = 16;

/// Welding distance of the smoothing, as a fraction of the bounding-box diagonal.
const WELD_RELATIVE: f32 = 1e-6;

/// One pose the fit samples: a clip time (or the rest pose) with joint angles on top.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FitPose {
    /// Clip to sample; `None` for the rest pose.
    pub clip: Option<usize>,
    /// Time in the clip, in seconds.
    pub time_s: f32,
    /// Joint angles applied on top.
    pub overrides: JointOverrides,
}

/// Which angle of a joint a sweep drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SweepKind {
    /// About the bone axis ([`JointAngles::twist_deg`]).
    Twist,
    /// About the bend axis ([`JointAngles::bend_deg`]).
    Bend,
}

/// A sweep of one joint angle from `from_deg` to `to_deg` on the rest pose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointSweep {
    /// The joint's node index.
    pub node: usize,
    /// The angle swept.
    pub kind: SweepKind,
    /// First angle, in degrees.
    pub from_deg: f32,
    /// Last angle, in degrees.
    pub to_deg: f32,
}

impl FitPose {
    /// `samples` times evenly over clip `clip`, both ends included (one sample: time 0).
    #[must_use]
    pub fn clip_samples(scene: &Scene, clip: usize, samples: usize) -> Vec<Self> {
        let duration = scene.animations.get(clip).map_or(0.0, clip_duration_s);
        spread(samples)
            .map(|s| Self {
                clip: Some(clip),
                time_s: duration * s,
                overrides: JointOverrides::new(),
            })
            .collect()
    }

    /// `samples` angles of `sweep`, both ends included (one sample: `to_deg`), on the rest pose.
    #[must_use]
    pub fn sweep_samples(sweep: &JointSweep, samples: usize) -> Vec<Self> {
        let steps: Vec<f32> = if samples <= 1 {
            vec![1.0]
        } else {
            spread(samples).collect()
        };
        steps
            .into_iter()
            .map(|s| {
                let deg = sweep.from_deg + (sweep.to_deg - sweep.from_deg) * s;
                let angles = match sweep.kind {
                    SweepKind::Twist => JointAngles {
                        twist_deg: deg,
                        ..JointAngles::default()
                    },
                    SweepKind::Bend => JointAngles {
                        bend_deg: deg,
                        ..JointAngles::default()
                    },
                };
                let mut overrides = JointOverrides::new();
                overrides.set(sweep.node, angles);
                Self {
                    clip: None,
                    time_s: 0.0,
                    overrides,
                }
            })
            .collect()
    }

    /// This pose of `sweep` on top of `base`: every joint keeps its angles from `base`, the
    /// swept joint all but the swept angle, which comes from this pose.
    #[must_use]
    pub fn over(mut self, base: &JointOverrides, sweep: &JointSweep) -> Self {
        let swept = self.overrides.get(sweep.node);
        let mut angles = base.get(sweep.node);
        match sweep.kind {
            SweepKind::Twist => angles.twist_deg = swept.twist_deg,
            SweepKind::Bend => angles.bend_deg = swept.bend_deg,
        }
        self.overrides = base.clone();
        self.overrides.set(sweep.node, angles);
        self
    }

    /// The pose itself.
    #[must_use]
    pub fn to_pose(&self, scene: &Scene) -> Pose {
        let mut pose = Pose::rest(scene);
        self.pose_into(scene, &mut pose);
        pose
    }

    /// Poses `pose` as this (reusing it: a fresh rest pose costs a pass over every node).
    pub fn pose_into(&self, scene: &Scene, pose: &mut Pose) {
        pose.sample(scene, self.clip, self.time_s, &self.overrides);
    }
}

/// What a rigger is reviewing, for a fit: clips, the pose on screen and a joint's sweeps.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReviewPoses {
    /// Clips sampled over their whole length.
    pub clips: Vec<usize>,
    /// Samples per clip and per sweep.
    pub samples: usize,
    /// The pose under review (clip, time, joint angles): it counts `samples` times, as much as
    /// one sweep, so the fit cannot trade it away for the clips.
    pub current: Option<FitPose>,
    /// A joint whose twist (-180 to 180 degrees, the plot's range up to the flip) and bend (0 to
    /// 120) sweeps are fitted, on top of the current pose's other joint angles.
    pub joint: Option<usize>,
}

impl ReviewPoses {
    /// Every pose of the review: the clips, the current pose (repeated), the joint's sweeps.
    #[must_use]
    pub fn poses(&self, scene: &Scene) -> Vec<FitPose> {
        let samples = self.samples.max(1);
        let mut poses: Vec<FitPose> = self
            .clips
            .iter()
            .flat_map(|&c| FitPose::clip_samples(scene, c, samples))
            .collect();
        if let Some(current) = &self.current {
            poses.extend(std::iter::repeat_n(current.clone(), samples));
        }
        let Some(node) = self.joint else {
            return poses;
        };
        let base = self
            .current
            .as_ref()
            .map_or_else(JointOverrides::new, |c| c.overrides.clone());
        for (kind, from_deg, to_deg) in [
            (SweepKind::Twist, -180.0, 180.0),
            (SweepKind::Bend, 0.0, 120.0),
        ] {
            let sweep = JointSweep {
                node,
                kind,
                from_deg,
                to_deg,
            };
            poses.extend(
                FitPose::sweep_samples(&sweep, samples)
                    .into_iter()
                    .map(|p| p.over(&base, &sweep)),
            );
        }
        poses
    }
}

/// Fractions 0..=1 in `samples` even steps (one sample: 0).
fn spread(samples: usize) -> impl Iterator<Item = f32> {
    let n = samples.max(1);
    (0..n).map(move |k| {
        if n == 1 {
            0.0
        } else {
            k as f32 / (n - 1) as f32
        }
    })
}

/// How the fit is finished.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FitOptions {
    /// Iterations of edge-neighbour averaging after the fit (0: the raw fit).
    pub smooth_iterations: usize,
}

/// The fitted map and what went into it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BlendFit {
    /// One beta per vertex of every skinned primitive, by mesh and primitive index (empty: not skinned).
    pub betas: SceneBetas,
    /// Poses fitted over.
    pub poses: usize,
    /// Vertices given a beta.
    pub vertices: usize,
    /// Of those, vertices whose LBS and DQS positions never parted (beta 0.5 before smoothing).
    pub degenerate_vertices: usize,
}

/// Why a fit gave no map.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FitError {
    /// The pose list was empty.
    #[error("no poses to fit over")]
    NoPoses,
    /// No primitive of the scene is skinned by a node.
    #[error("the model has no skinned primitives")]
    NotSkinned,
    /// `cancel` was set.
    #[error("cancelled")]
    Cancelled,
}

/// Per vertex: sum_t (q - l) . (c - l) and sum_t |q - l|^2, by mesh and primitive.
type Sums = Vec<Vec<Vec<[f64; 2]>>>;

/// Fits one beta per vertex of every skinned primitive over `poses` (see the module comment).
///
/// Poses run in parallel, their sums are added in pose order (the result is the
/// same on any number of threads); `progress(done, total)` is called after each,
/// and `cancel` is checked before each (the fit then returns [`FitError::Cancelled`]).
pub fn fit_blend(
    scene: &Scene,
    centers: &SceneCenters,
    poses: &[FitPose],
    options: &FitOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
    cancel: &AtomicBool,
) -> Result<BlendFit, FitError> {
    if poses.is_empty() {
        return Err(FitError::NoPoses);
    }
    let skinned = skinned_primitives(scene);
    if skinned.is_empty() {
        return Err(FitError::NotSkinned);
    }
    // Poses run in parallel a batch at a time; their terms are added in pose order, so the
    // result does not depend on the thread count or scheduling.
    let mut sums = empty_sums(scene, &skinned);
    let done = AtomicUsize::new(0);
    // A run of identical poses (the pose under review, repeated to weigh more) is skinned once.
    let runs: Vec<&[FitPose]> = poses.chunk_by(|a, b| a == b).collect();
    for batch in runs.chunks(POSE_BATCH) {
        let terms = batch
            .par_iter()
            .with_min_len(crate::anim::items_per_worker(batch.len()))
            .map_init(
                || Pose::rest(scene),
                |pose, run| {
                    if cancel.load(Ordering::Relaxed) {
                        return Err(FitError::Cancelled);
                    }
                    let mut terms = empty_sums(scene, &skinned);
                    run[0].pose_into(scene, pose);
                    accumulate(scene, pose, centers, &mut terms);
                    progress(
                        done.fetch_add(run.len(), Ordering::Relaxed) + run.len(),
                        poses.len(),
                    );
                    Ok((terms, run.len() as f64))
                },
            )
            .collect::<Result<Vec<_>, FitError>>()?;
        for (terms, weight) in terms {
            add_sums(&mut sums, &terms, weight);
        }
    }
    if cancel.load(Ordering::Relaxed) {
        return Err(FitError::Cancelled);
    }
    let diagonal = rest_bounds(scene).map_or(1.0, |(lo, hi)| (hi - lo).length());
    let negligible = poses.len() as f64 * (NEGLIGIBLE_GAP_RELATIVE * f64::from(diagonal)).powi(2);
    let mut fit = BlendFit {
        poses: poses.len(),
        ..BlendFit::default()
    };
    let mut per_primitive: Vec<Vec<Vec<f32>>> = Vec::with_capacity(sums.len());
    for (m, mesh_sums) in sums.iter().enumerate() {
        let mut prims = Vec::with_capacity(mesh_sums.len());
        for (p, vertex_sums) in mesh_sums.iter().enumerate() {
            let mut betas: Vec<f32> = vertex_sums
                .iter()
                .map(|&[num, den]| fit_beta(num, den, negligible))
                .collect();
            fit.vertices += betas.len();
            fit.degenerate_vertices += vertex_sums.iter().filter(|s| s[1] <= negligible).count();
            if let Some(prim) = scene.meshes.get(m).and_then(|mesh| mesh.primitives.get(p)) {
                let weld = WELD_RELATIVE * diagonal;
                smooth_betas(
                    &mut betas,
                    &prim.positions,
                    prim.triangles(),
                    options.smooth_iterations,
                    weld,
                );
            }
            prims.push(betas);
        }
        per_primitive.push(prims);
    }
    fit.betas = SceneBetas { per_primitive };
    Ok(fit)
}

/// The least-squares beta from its two sums, clamped to [0, 1]; 0.5 when `denominator <= negligible`.
#[must_use]
pub fn fit_beta(numerator: f64, denominator: f64, negligible: f64) -> f32 {
    if !numerator.is_finite() || !denominator.is_finite() || denominator <= negligible {
        return 0.5;
    }
    (numerator / denominator).clamp(0.0, 1.0) as f32
}

/// Adds one vertex's pose to its sums: (q - l) . (c - l) and |q - l|^2.
#[must_use]
pub fn beta_terms(lbs: Vec3, dqs: Vec3, cor: Vec3) -> [f64; 2] {
    let gap = (dqs - lbs).as_dvec3();
    [gap.dot((cor - lbs).as_dvec3()), gap.length_squared()]
}

/// (mesh, primitive) of every primitive with influences drawn by a node with a skin, in order.
#[must_use]
pub fn skinned_primitives(scene: &Scene) -> BTreeSet<(usize, usize)> {
    let mut out = BTreeSet::new();
    for node in &scene.nodes {
        let (Some(m), Some(s)) = (node.mesh, node.skin) else {
            continue;
        };
        let Some(mesh) = scene.meshes.get(m).filter(|_| s < scene.skins.len()) else {
            continue;
        };
        for (p, prim) in mesh.primitives.iter().enumerate() {
            if prim.influences.is_some() {
                out.insert((m, p));
            }
        }
    }
    out
}

/// Zero sums for the vertices of every skinned primitive, empty lists elsewhere.
fn empty_sums(scene: &Scene, skinned: &BTreeSet<(usize, usize)>) -> Sums {
    scene
        .meshes
        .iter()
        .enumerate()
        .map(|(m, mesh)| {
            mesh.primitives
                .iter()
                .enumerate()
                .map(|(p, prim)| {
                    if skinned.contains(&(m, p)) {
                        vec![[0.0; 2]; prim.positions.len()]
                    } else {
                        Vec::new()
                    }
                })
                .collect()
        })
        .collect()
}

/// Adds `weight` times `b` into `a` (same layout).
fn add_sums(a: &mut Sums, b: &Sums, weight: f64) {
    for (am, bm) in a.iter_mut().zip(b) {
        for (ap, bp) in am.iter_mut().zip(bm) {
            for (x, y) in ap.iter_mut().zip(bp) {
                x[0] += weight * y[0];
                x[1] += weight * y[1];
            }
        }
    }
}

/// Skins `pose` in LBS, DQS and CoR (all three morphed first) and adds every skinned
/// vertex's terms to `sums`.
fn accumulate(scene: &Scene, pose: &Pose, centers: &SceneCenters, sums: &mut Sums) {
    let lbs = skin_scene(scene, pose, SkinningMode::Lbs, Betas::Uniform(0.0));
    let dqs = skin_scene(scene, pose, SkinningMode::Dqs, Betas::Uniform(1.0));
    let cor = skin_scene_cor(scene, pose, centers);
    // The three passes list the same primitives in the same order (node, then primitive).
    for ((l, q), c) in lbs.iter().zip(&dqs).zip(&cor) {
        if l.skinned_source(scene).is_none() || !same_primitive(l, q) || !same_primitive(l, c) {
            continue;
        }
        let Some(slot) = sums.get_mut(l.mesh).and_then(|m| m.get_mut(l.primitive)) else {
            continue;
        };
        let positions = l
            .vertices
            .positions
            .iter()
            .zip(&q.vertices.positions)
            .zip(&c.vertices.positions);
        for (s, ((&pl, &pq), &pc)) in slot.iter_mut().zip(positions) {
            let [num, den] = beta_terms(pl, pq, pc);
            s[0] += num;
            s[1] += den;
        }
    }
}

/// Whether two posed primitives are the same node's same primitive.
fn same_primitive(a: &PosedPrimitive, b: &PosedPrimitive) -> bool {
    (a.node, a.mesh, a.primitive) == (b.node, b.mesh, b.primitive)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cor_at_dqs_gives_one_at_lbs_zero_halfway_half() {
        let l = Vec3::new(0.0, 1.0, 0.0);
        let q = Vec3::new(0.2, 1.0, -0.1);
        for (c, want) in [(q, 1.0), (l, 0.0), ((l + q) * 0.5, 0.5)] {
            let [num, den] = beta_terms(l, q, c);
            let got = fit_beta(num, den, 1e-12);
            assert!((got - want).abs() < 1e-6, "{c}: {got} vs {want}");
        }
        // Off the LBS-DQS line only the projection counts: c = l + 0.25 (q - l) + a perpendicular.
        let gap = q - l;
        let perpendicular = gap.any_orthonormal_vector() * 3.0;
        let [num, den] = beta_terms(l, q, l + gap * 0.25 + perpendicular);
        assert!((fit_beta(num, den, 1e-12) - 0.25).abs() < 1e-5);
    }

    #[test]
    fn beyond_the_segment_clamps_and_a_negligible_gap_gives_half() {
        let l = Vec3::ZERO;
        let q = Vec3::X;
        let [num, den] = beta_terms(l, q, Vec3::new(2.5, 0.0, 0.0));
        assert_eq!(fit_beta(num, den, 1e-12), 1.0);
        let [num, den] = beta_terms(l, q, Vec3::new(-0.5, 0.0, 0.0));
        assert_eq!(fit_beta(num, den, 1e-12), 0.0);
        // LBS and DQS agree: any CoR position gives 0.5.
        let [num, den] = beta_terms(l, l, Vec3::new(0.3, 0.1, 0.0));
        assert_eq!(fit_beta(num, den, 1e-12), 0.5);
        // A gap at the threshold counts as negligible, a larger one does not.
        assert_eq!(fit_beta(0.9, 1.0, 1.0), 0.5);
        assert!((fit_beta(0.9, 1.0, 0.999) - 0.9).abs() < 1e-6);
        assert_eq!(fit_beta(f64::NAN, 1.0, 0.0), 0.5);
    }

    #[test]
    fn sums_over_poses_weight_by_the_gap() {
        // Pose 1: CoR at DQS with a gap of 1; pose 2: CoR at LBS with a gap of 3.
        // beta = (1 + 0) / (1 + 9) = 0.1, not the mean of the per-pose betas (0.5).
        let a = beta_terms(Vec3::ZERO, Vec3::X, Vec3::X);
        let b = beta_terms(Vec3::ZERO, Vec3::Y * 3.0, Vec3::ZERO);
        let beta = fit_beta(a[0] + b[0], a[1] + b[1], 1e-12);
        assert!((beta - 0.1).abs() < 1e-6, "{beta}");
    }

    #[test]
    fn sweep_samples_span_the_range() {
        let sweep = JointSweep {
            node: 3,
            kind: SweepKind::Bend,
            from_deg: -30.0,
            to_deg: 90.0,
        };
        let poses = FitPose::sweep_samples(&sweep, 5);
        let angles: Vec<f32> = poses.iter().map(|p| p.overrides.get(3).bend_deg).collect();
        assert_eq!(angles, vec![-30.0, 0.0, 30.0, 60.0, 90.0]);
        assert!(poses.iter().all(|p| p.overrides.get(3).twist_deg == 0.0));
        let one = FitPose::sweep_samples(&sweep, 1);
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].overrides.get(3).bend_deg, 90.0);
    }
}
