//! The "LBS + helpers" pane's rig: built on a background thread from the Helper joints
//! section's list (the same `twist_joints` calls `dqview helper-joints` makes, figures at
//! held-out poses included), uploaded as a second scene, posed with the model every frame,
//! and written by Save helper rig.

use std::sync::Arc;
use std::sync::mpsc;

use crate::anim::{JointOverrides, Pose};
use crate::render::{GpuContext, Renderer, SceneGpu};
use crate::scene::Scene;
use crate::skin::{CorOptions, CorProgress, SceneCenters};
use crate::twist_joints::{
    TwistOptions, TwistRig, add_twist_joints, bone_requests, judge_held_out, without_helpers,
};
use crate::ui::{HelperFigures, HelperFit, TwistBuild, TwistState};

/// A finished build: the rig and its figures at held-out poses.
type Built = (TwistRig, Vec<HelperFigures>);

/// What a rig is built from: the (joint, count) list and the most influences per vertex.
type BuildKey = (Vec<(usize, usize)>, usize);

/// The rig on screen, with its GPU scene and pose.
struct ShownRig {
    key: BuildKey,
    rig: Arc<TwistRig>,
    gpu: SceneGpu,
    pose: Pose,
}

/// The preview rig of one model: the build in flight and the rig shown.
#[derive(Default)]
pub struct TwistPreview {
    job: Option<(BuildKey, mpsc::Receiver<Result<Built, String>>)>,
    shown: Option<ShownRig>,
}

impl TwistPreview {
    /// Whether a build is running.
    #[must_use]
    pub fn is_building(&self) -> bool {
        self.job.is_some()
    }

    /// The rig shown and its most influences per vertex, when it is built from `state`'s
    /// current list (not while a changed list is rebuilding).
    #[must_use]
    pub fn current(&self, state: &TwistState) -> Option<(&Arc<TwistRig>, usize)> {
        let s = self.shown.as_ref()?;
        let key: BuildKey = (state.chosen(), state.max_influences);
        (s.key == key).then_some((&s.rig, s.key.1))
    }

    /// The rig's GPU scene, when one is built.
    #[must_use]
    pub fn gpu(&self) -> Option<&SceneGpu> {
        self.shown.as_ref().map(|s| &s.gpu)
    }

    /// Starts a build when the pane is `wanted` and the list changed (fitted to the CoR
    /// `centers` when the viewer has them, else computed by the build), takes a finished one
    /// (waiting for it when `wait`, a scripted frame) and uploads it; reports into `state`.
    pub fn poll(
        &mut self,
        scene: &Arc<Scene>,
        centers: Option<&Arc<SceneCenters>>,
        wanted: bool,
        wait: bool,
        state: &mut TwistState,
        (ctx, renderer): (&GpuContext, &Renderer),
    ) {
        let key: BuildKey = (state.chosen(), state.max_influences);
        if key.0.is_empty() {
            (self.job, self.shown) = (None, None);
            state.build = TwistBuild::Idle;
            return;
        }
        let stale = |k: &BuildKey| *k != key;
        if self.job.as_ref().is_some_and(|(k, _)| stale(k)) {
            // The list changed under a build: its rig is not the one asked for (it runs out unseen).
            self.job = None;
        }
        let current = self.shown.as_ref().is_some_and(|s| !stale(&s.key));
        if wanted && !current && self.job.is_none() {
            let build = start_build(Arc::clone(scene), centers.cloned(), key.clone());
            self.job = Some((key.clone(), build));
        }
        if let Some((job_key, result)) = &self.job {
            match super::job::receive(result, wait) {
                Err(mpsc::TryRecvError::Empty) => state.build = TwistBuild::Building,
                Err(mpsc::TryRecvError::Disconnected) => {
                    state.build = TwistBuild::Failed("the helper-joints build panicked".into());
                    (self.job, self.shown) = (None, None);
                }
                Ok(Err(e)) => {
                    state.build = TwistBuild::Failed(e);
                    (self.job, self.shown) = (None, None);
                }
                Ok(Ok(built)) => {
                    let job_key = job_key.clone();
                    self.job = None;
                    self.show(built, job_key, state, ctx, renderer);
                }
            }
        } else if !current {
            state.build = TwistBuild::Idle;
        }
    }

    /// Uploads a finished `rig` and makes it the one shown.
    fn show(
        &mut self,
        (rig, figures): Built,
        key: BuildKey,
        state: &mut TwistState,
        ctx: &GpuContext,
        renderer: &Renderer,
    ) {
        let pose = Pose::rest(&rig.scene);
        match SceneGpu::new(ctx, renderer, &rig.scene, &pose) {
            Ok(gpu) => {
                let mut junctions: Vec<usize> = rig.roll_joints.iter().map(|r| r.joint).collect();
                junctions.dedup();
                state.build = TwistBuild::Ready {
                    roll_joints: rig.roll_joints.len(),
                    junctions: junctions.len(),
                    baked_clips: rig.baked.len(),
                    fit: HelperFit {
                        vertices: rig.fit.vertices,
                        poses: rig.fit.poses,
                        rms_before: rig.fit.rms_before,
                        rms_after: rig.fit.rms_after,
                    },
                    figures,
                };
                self.shown = Some(ShownRig {
                    key,
                    rig: Arc::new(rig),
                    gpu,
                    pose,
                });
            }
            Err(e) => state.build = TwistBuild::Failed(format!("cannot upload the rig: {e}")),
        }
    }

    /// Poses the rig as the model is posed (`clip` at `time_s`, `overrides` on the model's
    /// own joints) and uploads its palettes.
    pub fn pose_at(
        &mut self,
        ctx: &GpuContext,
        clip: Option<usize>,
        time_s: f32,
        overrides: &JointOverrides,
    ) {
        let Some(s) = self.shown.as_mut() else {
            return;
        };
        // The model's nodes keep their indices in the rig; an override on an earlier run's
        // roll joint (stripped and rebuilt) would land on another node, so it is left out.
        let first_new = s.rig.first_new_node;
        let mut own = overrides.clone();
        own.angles.retain(|&node, _| node < first_new);
        s.pose.sample(&s.rig.scene, clip, time_s, &own);
        s.gpu.update(ctx, &s.rig.scene, &s.pose);
    }

    /// Builds the rig's wireframe edges (once), for the wireframe and overlay drawing.
    pub fn make_edges(&mut self, ctx: &GpuContext) {
        if let Some(s) = self.shown.as_mut() {
            s.gpu.make_edges(ctx, &s.rig.scene);
        }
    }
}

/// Builds the rig for `key` on a new thread; its result arrives on the returned channel.
fn start_build(
    scene: Arc<Scene>,
    centers: Option<Arc<SceneCenters>>,
    (joints, max_influences): BuildKey,
) -> mpsc::Receiver<Result<Built, String>> {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let requests = bone_requests(&scene, &joints);
        let options = TwistOptions {
            max_influences,
            clips: (0..scene.animations.len()).collect(),
            target: crate::twist_joints::FitTarget::Cor,
            ddm: crate::skin::ddm::DdmParams::DEFAULT,
            dm: crate::skin::dm::DmParams::DEFAULT,
        };
        let centers = match centers.map_or_else(|| centers_for_fit(&scene), Ok) {
            Ok(c) => c,
            Err(e) => {
                let _ = send.send(Err(format!("CoR centres for the fit: {e}")));
                return;
            }
        };
        let built = add_twist_joints(&scene, &requests, &options, &centers)
            .map_err(|e| e.to_string())
            .and_then(|rig| {
                let figures = held_out_figures(&scene, &rig, &requests, &centers)?;
                Ok((rig, figures))
            });
        let _ = send.send(built);
    });
    receive
}

/// Each requested junction's figures at the poses the fit never saw, measured on the model
/// without an earlier run's helpers (as `dqview helper-joints` prints them).
fn held_out_figures(
    scene: &Scene,
    rig: &TwistRig,
    requests: &[crate::twist_joints::TwistRequest],
    centers: &SceneCenters,
) -> Result<Vec<HelperFigures>, String> {
    let (base, _) = without_helpers(scene).map_err(|e| e.to_string())?;
    let reference = crate::analysis::RestReference::at_rest(&base);
    let diagonal = crate::skin::rest_bounds(scene).map_or(1.0, |(lo, hi)| lo.distance(hi));
    let joints: Vec<usize> = requests.iter().map(|r| r.joint).collect();
    let judged = judge_held_out(&base, &rig.scene, &joints, &reference, centers, diagonal);
    Ok(judged
        .iter()
        .map(|h| HelperFigures {
            name: base
                .nodes
                .get(h.joint)
                .map_or_else(String::new, |n| n.name.clone()),
            count: requests
                .iter()
                .find(|r| r.joint == h.joint)
                .map_or(0, |r| r.count),
            twist: h.twist.mean_distance,
            bend: h.bend.mean_distance,
            clips: (h.moments > 0).then_some(h.moments_mean_distance),
        })
        .collect())
}

/// The fit's CoR target when the viewer has not computed it: the same centres (through the
/// on-disk cache the CoR precompute fills), of the model without an earlier run's helpers.
fn centers_for_fit(scene: &Scene) -> Result<Arc<SceneCenters>, String> {
    let (base, _) = without_helpers(scene).map_err(|e| e.to_string())?;
    let (centers, _) =
        SceneCenters::compute_cached(&base, &CorOptions::default(), &CorProgress::new())
            .map_err(|e| e.to_string())?;
    Ok(Arc::new(centers))
}
