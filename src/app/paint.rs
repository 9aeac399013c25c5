//! The viewer's blend-map painting: strokes on the posed mesh, undo and redo, the fit to CoR.
//!
//! The painted map replaces the file's or the flags' betas while it exists; every pane and
//! the plot's hybrid line use it (the inspector is handed it), and sessions save it.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::JoinHandle;

use glam::Vec2;

use crate::analysis::{FitComparison, compare_fit, review_maps};
use crate::anim::Pose;
use crate::scene::Scene;
use crate::skin::{
    Betas, BlendFit, Dab, FitError, FitOptions, FitPose, Neighbours, ReviewPoses, SceneBetas,
    SceneCenters, apply_dab, fit_blend, mirror_partners, skin_scene,
};
use crate::ui::{OrbitCamera, ViewRect, ViewerState, project_to_viewport};

/// Most strokes kept for undo.
const UNDO_DEPTH: usize = 64;
/// Mirror partners lie within this fraction of the bounding-box diagonal.
const MIRROR_TOLERANCE_RELATIVE: f32 = 1e-4;
/// Samples per clip (or per sweep) of the viewer's fit.
const FIT_SAMPLES: usize = 24;

/// Each vertex's mirror partner (if any) and the count of vertices without one.
type MirrorPartners = (Vec<Option<u32>>, usize);

/// A fit running on another thread.
struct FitJob {
    done: Arc<AtomicUsize>,
    total: usize,
    cancel: Arc<AtomicBool>,
    handle: JoinHandle<Result<(BlendFit, FitComparison), FitError>>,
}

/// The painted map, its history and what painting needs per primitive.
#[derive(Default)]
pub struct Painter {
    /// The painted map; `None`: the file's or the flags' betas show.
    map: Option<SceneBetas>,
    /// Maps before each stroke (undo) and undone ones (redo).
    undo: Vec<Option<SceneBetas>>,
    redo: Vec<Option<SceneBetas>>,
    /// Edge neighbours (smoothing) and mirror partners, per (mesh, primitive), made on first use.
    neighbours: HashMap<(usize, usize), Neighbours>,
    mirrors: HashMap<(usize, usize), MirrorPartners>,
    fit: Option<FitJob>,
    /// Bumped on every change of the map.
    revision: u64,
}

impl Painter {
    /// Whether a fit is running on its background thread.
    #[must_use]
    pub fn is_fitting(&self) -> bool {
        self.fit.is_some()
    }

    /// The painted map, if any.
    #[must_use]
    pub fn map(&self) -> Option<&SceneBetas> {
        self.map.as_ref()
    }

    /// Bumped whenever the map changes.
    #[must_use]
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Puts a map in place (a restored session), with no history.
    pub fn restore(&mut self, map: Option<SceneBetas>) {
        self.map = map;
        self.undo.clear();
        self.redo.clear();
        self.revision += 1;
    }

    /// Carries out this frame's requests and dabs; true when the map changed (upload it).
    ///
    /// `shown` is what the mesh shows without a painted map (the flags' betas, the file's
    /// `_DQS_BLEND` where it has one), the start of a first stroke. `settle` (a scripted run)
    /// waits for a running fit, so a dump shows its outcome.
    #[allow(clippy::too_many_arguments)]
    pub fn update(
        &mut self,
        state: &mut ViewerState,
        scene: &Arc<Scene>,
        pose: &Pose,
        shown: &SceneBetas,
        views: &[ViewRect],
        centers: Option<&Arc<SceneCenters>>,
        settle: bool,
    ) -> bool {
        let before = self.revision;
        self.requests(state, scene);
        self.poll_fit(state, settle);
        // A fit waits for the CoR centers, which the frame starts computing while it waits.
        let fit = std::mem::take(&mut state.paint.requests.fit) || state.paint.fit_waiting;
        state.paint.fit_waiting = false;
        if fit && self.fit.is_none() {
            match centers {
                Some(centers) => self.start_fit(state, scene, centers, shown),
                None if state.cor.error.is_some() => {
                    state.paint.message =
                        Some("Fit to CoR needs the CoR centers, which failed".into());
                }
                None => {
                    state.paint.fit_waiting = true;
                    state.paint.message = Some("computing the CoR centers for the fit…".into());
                }
            }
        }
        if std::mem::take(&mut state.paint.requests.cancel_fit)
            && let Some(job) = &self.fit
        {
            job.cancel.store(true, Ordering::Relaxed);
        }
        let dabs = std::mem::take(&mut state.paint.dabs);
        if std::mem::take(&mut state.paint.stroke_began) {
            self.push_undo();
            if self.map.is_none() {
                self.map = Some(full_map(scene, shown));
            }
        }
        if !dabs.is_empty() {
            self.paint(state, scene, pose, views, &dabs);
        }
        let p = &mut state.paint;
        p.undo_steps = self.undo.len();
        p.redo_steps = self.redo.len();
        p.painted = self.map.is_some();
        self.revision != before
    }

    /// Undo, redo and the two clears.
    fn requests(&mut self, state: &mut ViewerState, scene: &Scene) {
        let r = &mut state.paint.requests;
        if std::mem::take(&mut r.undo)
            && let Some(previous) = self.undo.pop()
        {
            self.redo.push(std::mem::replace(&mut self.map, previous));
            self.revision += 1;
        }
        if std::mem::take(&mut r.redo)
            && let Some(next) = self.redo.pop()
        {
            self.undo.push(std::mem::replace(&mut self.map, next));
            self.revision += 1;
        }
        let to_file = std::mem::take(&mut r.clear_to_file);
        let to_flags = std::mem::take(&mut r.clear_to_flags);
        if (to_file || to_flags) && self.map.is_some() {
            self.push_undo();
            // No painted map shows the file's map (the flags where it has none); "to flags"
            // paints the flags' betas over the file's map too.
            self.map = to_flags.then(|| flags_only(scene, &state.hybrid.flags));
            self.revision += 1;
        }
    }

    /// Saves the map for undo; a new stroke drops the redo history.
    fn push_undo(&mut self) {
        self.undo.push(self.map.clone());
        if self.undo.len() > UNDO_DEPTH {
            self.undo.remove(0);
        }
        self.redo.clear();
    }

    /// Applies `dabs` (window points) to the map, each in the view under it.
    fn paint(
        &mut self,
        state: &mut ViewerState,
        scene: &Scene,
        pose: &Pose,
        views: &[ViewRect],
        dabs: &[egui::Pos2],
    ) {
        let Some(map) = self.map.as_mut() else {
            return;
        };
        let diagonal = crate::skin::rest_bounds(scene).map_or(1.0, |(lo, hi)| (hi - lo).length());
        let mut posed_by_mode = HashMap::new();
        for &at in dabs {
            let Some(view) = views.iter().find(|v| v.rect.contains(at)) else {
                continue;
            };
            let posed = posed_by_mode.entry(view.mode).or_insert_with(|| {
                // The mesh as this pane draws it, with the map's own betas for hybrid.
                skin_scene(scene, pose, view.mode, Betas::Uniform(1.0))
            });
            let screen = screen_positions(&state.camera, view, posed, state.paint.front_only);
            let dab = Dab {
                center: Vec2::new(at.x, at.y),
                radius_px: state.paint.radius_px,
                strength: state.paint.strength,
                falloff: state.paint.falloff,
                op: state.paint.brush_op(),
            };
            for (p, points) in posed.iter().zip(&screen) {
                let Some((_, prim, _)) = p.skinned_source(scene) else {
                    continue;
                };
                let key = (p.mesh, p.primitive);
                let Some(betas) = map
                    .per_primitive
                    .get_mut(p.mesh)
                    .and_then(|m| m.get_mut(p.primitive))
                else {
                    continue;
                };
                let neighbours = self.neighbours.entry(key).or_insert_with(|| {
                    Neighbours::of_triangles(prim.triangles(), prim.positions.len())
                });
                let mirror = state.paint.mirror_x.then(|| {
                    let (partners, unmatched) = self.mirrors.entry(key).or_insert_with(|| {
                        mirror_partners(&prim.positions, diagonal * MIRROR_TOLERANCE_RELATIVE)
                    });
                    state.paint.unmatched = Some(*unmatched);
                    partners.as_slice()
                });
                apply_dab(betas, points, &dab, neighbours, mirror);
            }
        }
        self.revision += 1;
    }

    /// Starts the fit over what is being reviewed: every clip, the pose on screen (its clip
    /// time and joint angles) and the selected joint's twist and bend sweeps; the thread then
    /// measures before and after at the pose on screen.
    fn start_fit(
        &mut self,
        state: &mut ViewerState,
        scene: &Arc<Scene>,
        centers: &Arc<SceneCenters>,
        shown: &SceneBetas,
    ) {
        let centers = Arc::clone(centers);
        let p = &state.playback;
        let current = FitPose {
            clip: p.clip,
            time_s: p.time_s,
            overrides: state.joints.overrides.clone(),
        };
        let review = ReviewPoses {
            clips: (0..scene.animations.len()).collect(),
            samples: FIT_SAMPLES,
            current: Some(current.clone()),
            joint: state.joints.selected,
        };
        if review.clips.is_empty() && review.joint.is_none() && current.overrides.angles.is_empty()
        {
            state.paint.message = Some(
                "nothing under review: select a joint or give one an angle to fit over its twist and bend"
                    .into(),
            );
            return;
        }
        let poses = review.poses(scene);
        let before = self.map.clone().unwrap_or_else(|| full_map(scene, shown));
        let painted = self.map.is_some();
        let flags = flags_only(scene, &state.hybrid.flags);
        let joint = state.joints.selected;
        let done = Arc::new(AtomicUsize::new(0));
        let cancel = Arc::new(AtomicBool::new(false));
        let (scene, thread_done, thread_cancel) = (scene.clone(), done.clone(), cancel.clone());
        let total = poses.len();
        let handle = std::thread::spawn(move || {
            let progress = |d: usize, _: usize| {
                thread_done.fetch_max(d, Ordering::Relaxed);
            };
            let fit = fit_blend(
                &scene,
                &centers,
                &poses,
                &FitOptions::default(),
                &progress,
                &thread_cancel,
            )?;
            // The rows `dqview blend` prints, labelled alike.
            let maps = review_maps(&flags, &before, painted, &fit.betas);
            let pose = current.to_pose(&scene);
            let comparison = compare_fit(&scene, &centers, &pose, joint, &maps);
            Ok((fit, comparison))
        });
        state.paint.fit_progress = Some(0.0);
        state.paint.message = None;
        state.paint.fit_table = None;
        self.fit = Some(FitJob {
            done,
            total,
            cancel,
            handle,
        });
    }

    /// Reports the fit's progress; takes its map (undoable) when it ends (`wait`: blocks
    /// until it does).
    fn poll_fit(&mut self, state: &mut ViewerState, wait: bool) {
        let Some(job) = &self.fit else {
            state.paint.fit_progress = None;
            return;
        };
        state.paint.fit_progress =
            Some(job.done.load(Ordering::Relaxed) as f32 / job.total.max(1) as f32);
        if !wait && !job.handle.is_finished() {
            return;
        }
        let Some(job) = self.fit.take() else { return };
        state.paint.fit_progress = None;
        match job.handle.join() {
            Ok(Ok((fit, comparison))) => {
                self.push_undo();
                self.map = Some(fit.betas);
                self.revision += 1;
                state.paint.message = Some(format!(
                    "fitted over {} poses (clips, this pose, the selected joint's sweeps; {} \
                     vertices); paint on it, undo to go back",
                    fit.poses, fit.vertices
                ));
                state.paint.fit_table = Some(comparison.table());
            }
            Ok(Err(e)) => state.paint.message = Some(format!("fit: {e}")),
            Err(_) => state.paint.message = Some("the fit panicked".into()),
        }
    }
}

/// Every posed primitive's vertices in window points as `view` draws them (`None` behind the
/// eye, and with `front_only` where the surface faces away from it).
fn screen_positions(
    camera: &OrbitCamera,
    view: &ViewRect,
    posed: &[crate::skin::PosedPrimitive],
    front_only: bool,
) -> Vec<Vec<Option<Vec2>>> {
    let size = Vec2::new(view.rect.width(), view.rect.height());
    let clip_from_world = camera.clip_from_world(size.x / size.y.max(1.0));
    let origin = Vec2::new(view.rect.min.x, view.rect.min.y);
    let eye = camera.eye();
    posed
        .iter()
        .map(|p| {
            let v = &p.vertices;
            v.positions
                .iter()
                .enumerate()
                .map(|(i, &q)| {
                    let normal = v.normals.get(i).copied().unwrap_or(glam::Vec3::ZERO);
                    // Vertices without a normal count as facing the eye.
                    if front_only && normal.dot(eye - q) < 0.0 {
                        return None;
                    }
                    project_to_viewport(clip_from_world, q, size).map(|s| s + origin)
                })
                .collect()
        })
        .collect()
}

/// The flags' betas of every skinned primitive, ignoring any `_DQS_BLEND` in the file.
fn flags_only(scene: &Scene, flags: &[crate::skin::HybridFlags]) -> SceneBetas {
    let mut out = full_map(scene, &SceneBetas::default());
    for node in &scene.nodes {
        let (Some(m), Some(skin)) = (node.mesh, node.skin) else {
            continue;
        };
        let (Some(mesh), Some(f)) = (scene.meshes.get(m), flags.get(skin)) else {
            continue;
        };
        for (p, prim) in mesh.primitives.iter().enumerate() {
            if let (Some(influences), Some(slot)) =
                (&prim.influences, out.per_primitive[m].get_mut(p))
            {
                *slot = f.betas(influences, None);
            }
        }
    }
    out
}

/// `shown` with every skinned primitive's betas spelled out (an empty list means all 1).
fn full_map(scene: &Scene, shown: &SceneBetas) -> SceneBetas {
    let per_primitive = scene
        .meshes
        .iter()
        .enumerate()
        .map(|(m, mesh)| {
            mesh.primitives
                .iter()
                .enumerate()
                .map(|(p, prim)| {
                    let betas = shown.of(m, p);
                    if prim.influences.is_none() {
                        Vec::new()
                    } else if betas.len() == prim.positions.len() {
                        betas.to_vec()
                    } else {
                        vec![1.0; prim.positions.len()]
                    }
                })
                .collect()
        })
        .collect();
    SceneBetas { per_primitive }
}
