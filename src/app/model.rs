//! A model open in the viewer: its scene, current pose and GPU resources.

use std::sync::Arc;

use anyhow::{Context, Result};
use glam::Vec3;

use crate::anim::{JointOverrides, Pose, clip_duration_s};
use crate::render::{GpuContext, LineMesh, Renderer, SceneGpu, WireScene, grid_lines};
use crate::scene::Scene;
use crate::skin::rest_bounds;
use crate::ui::{JointTree, ModelFacts, SkeletonPose};

/// One loaded model with everything the frame loop draws it with.
pub struct LoadedModel {
    /// The scene as loaded (shared with the analysis thread).
    pub scene: Arc<Scene>,
    /// The pose drawn this frame.
    pub pose: Pose,
    /// Meshes, materials and palettes on the GPU.
    pub gpu: SceneGpu,
    /// Edges for the wireframe and the overlay ghost.
    pub wire: WireScene,
    /// The ground grid under the rest pose.
    pub grid: LineMesh,
    /// Rest-pose bounds (min, max), world space.
    pub bounds: (Vec3, Vec3),
    /// The CoR precompute of this model (started the first time CoR is shown).
    pub cor: super::cor_job::CorJob,
}

impl LoadedModel {
    /// Loads `spec` (path or `builtin:NAME`) and uploads it.
    pub fn open(ctx: &GpuContext, renderer: &Renderer, spec: &str) -> Result<Self> {
        let scene =
            crate::model::load_model(spec).with_context(|| format!("cannot load {spec}"))?;
        Self::from_scene(ctx, renderer, scene)
    }

    /// Uploads `scene`.
    pub fn from_scene(
        ctx: &GpuContext,
        renderer: &Renderer,
        scene: impl Into<Arc<Scene>>,
    ) -> Result<Self> {
        let scene: Arc<Scene> = scene.into();
        let pose = Pose::rest(&scene);
        let bounds = rest_bounds(&scene).unwrap_or((Vec3::splat(-1.0), Vec3::splat(1.0)));
        let gpu = SceneGpu::new(ctx, renderer, &scene, &pose)
            .context("cannot upload the model to the GPU")?;
        let wire = WireScene::new(ctx, renderer, &scene, &pose)
            .context("cannot upload the model's edges")?;
        let size = (bounds.1 - bounds.0).max_element().max(1e-3);
        // A grid of 20 cells about twice the model's size, at its feet.
        let spacing = 10f32.powf((size * 0.1).log10().round());
        let center = Vec3::new(
            (bounds.0.x + bounds.1.x) * 0.5,
            bounds.0.y,
            (bounds.0.z + bounds.1.z) * 0.5,
        );
        let cells = ((size * 2.0 / spacing).ceil() as u32).clamp(4, 200) & !1;
        let grid = LineMesh::new(ctx, &grid_lines(snap(center, spacing), spacing, cells));
        Ok(Self {
            scene,
            pose,
            gpu,
            wire,
            grid,
            bounds,
            cor: super::cor_job::CorJob::default(),
        })
    }

    /// Samples clip `clip` at `time_s` with `overrides` and writes the palettes (no GPU allocation).
    pub fn pose_at(
        &mut self,
        ctx: &GpuContext,
        clip: Option<usize>,
        time_s: f32,
        overrides: &JointOverrides,
    ) {
        self.pose.sample(&self.scene, clip, time_s, overrides);
        self.gpu.update(ctx, &self.scene, &self.pose);
        self.wire.update(ctx, &self.scene, &self.pose);
    }

    /// Clip names and durations for the panel.
    #[must_use]
    pub fn clips(&self) -> Vec<(String, f32)> {
        self.scene
            .animations
            .iter()
            .map(|a| (a.name.clone(), clip_duration_s(a)))
            .collect()
    }

    /// Joint trees, one per skin.
    #[must_use]
    pub fn trees(&self) -> Vec<JointTree> {
        (0..self.scene.skins.len())
            .map(|s| JointTree::of_skin(&self.scene, s))
            .collect()
    }

    /// Counts for the Model section.
    #[must_use]
    pub fn facts(&self) -> ModelFacts {
        ModelFacts::of(&self.scene)
    }

    /// World positions of the joints of tree `tree` at the current pose.
    #[must_use]
    pub fn skeleton(&self, tree: Option<&JointTree>) -> SkeletonPose {
        let joints = tree.map_or_else(Vec::new, |t| {
            t.rows
                .iter()
                .map(|r| {
                    let p = self
                        .pose
                        .global
                        .get(r.node)
                        .map_or(Vec3::ZERO, |m| m.w_axis.truncate());
                    (r.node, p, r.parent)
                })
                .collect()
        });
        SkeletonPose { joints }
    }
}

/// `p` with x and z rounded to multiples of `step`, so grid lines fall on round numbers.
fn snap(p: Vec3, step: f32) -> Vec3 {
    Vec3::new(
        (p.x / step).round() * step,
        p.y,
        (p.z / step).round() * step,
    )
}
