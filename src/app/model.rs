//! A model open in the viewer: its scene, current pose and GPU resources.

use std::sync::Arc;

use anyhow::{Context, Result};
use glam::{Vec3, Vec4};

use crate::anim::{JointOverrides, Pose, clip_duration_s};
use crate::render::{GpuContext, Renderer, SceneGpu};
use crate::scene::Scene;
use crate::skin::rest_bounds;
use crate::ui::{JointTree, ModelFacts, SkeletonPose};

/// One loaded model with everything the frame loop draws it with.
pub struct LoadedModel {
    /// The scene as loaded (shared with the analysis thread).
    pub scene: Arc<Scene>,
    /// The pose drawn this frame.
    pub pose: Pose,
    /// Geometries, materials and palettes on the GPU, for every crowd instance.
    pub gpu: SceneGpu,
    /// The ground grid under the rest pose (a line list drawn by the wire pipelines).
    pub grid: SceneGpu,
    /// Rest-pose bounds (min, max), world space.
    pub bounds: (Vec3, Vec3),
    /// The CoR precompute of this model (started the first time CoR is shown).
    pub cor: super::cor_job::CorJob,
    /// The Direct Delta Mush precompute (started when a DDM view is first shown).
    pub ddm: super::ddm_job::DdmJob,
    /// Delta Mush's rest deltas on the GPU (made when a DM view is first shown).
    pub dm: Option<Arc<crate::skin::dm::SceneDm>>,
    /// The painted DQS blend map and its history.
    pub paint: super::paint::Painter,
    /// The heatmap views' colour range, kept while the pose holds still.
    pub heat: super::heat::HeatRanges,
    /// The "LBS + twist joints" pane's rig.
    pub twist: super::twist_job::TwistPreview,
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
        let size = (bounds.1 - bounds.0).max_element().max(1e-3);
        // A grid of 20 cells about twice the model's size, at its feet (the file's up axis).
        let spacing = 10f32.powf((size * 0.1).log10().round());
        let axes = crate::ui::ViewAxes::of(&scene.source_info);
        let mid = (bounds.0 + bounds.1) * 0.5;
        let lowest = axes.up.dot(bounds.0).min(axes.up.dot(bounds.1));
        let center = mid - axes.up * (axes.up.dot(mid) - lowest);
        let cells = ((size * 2.0 / spacing).ceil() as u32).clamp(4, 200) & !1;
        let (points, colors) = grid_lines(snap(center, spacing, axes), spacing, cells, axes);
        let grid = SceneGpu::lines(ctx, renderer, &points, &colors)
            .context("cannot upload the ground grid")?;
        Ok(Self {
            scene,
            pose,
            gpu,
            grid,
            bounds,
            cor: super::cor_job::CorJob::default(),
            ddm: super::ddm_job::DdmJob::default(),
            dm: None,
            paint: super::paint::Painter::default(),
            heat: super::heat::HeatRanges::default(),
            twist: super::twist_job::TwistPreview::default(),
        })
    }

    /// Samples clip `clip` at `time_s` with `overrides` and writes the palettes (no GPU
    /// allocation); crowd instances play at their own offsets into the clip.
    pub fn pose_at(
        &mut self,
        ctx: &GpuContext,
        clip: Option<usize>,
        time_s: f32,
        overrides: &JointOverrides,
    ) {
        self.pose.sample(&self.scene, clip, time_s, overrides);
        if self.gpu.instances() > 1 {
            self.gpu
                .update_crowd(ctx, &self.scene, clip, time_s, overrides);
        } else {
            self.gpu.update(ctx, &self.scene, &self.pose);
        }
    }

    /// Draws `count` instances from now on (1 to [`crate::ui::MAX_CROWD`]); true when that
    /// changed the count (the camera may reframe). On failure the count is unchanged.
    pub fn set_instances(
        &mut self,
        ctx: &GpuContext,
        renderer: &Renderer,
        count: u32,
    ) -> Result<bool> {
        let count = count.clamp(1, crate::ui::MAX_CROWD) as usize;
        if count == self.gpu.instances() {
            return Ok(false);
        }
        self.gpu
            .set_instances(ctx, renderer, &self.scene, &self.pose, count)
            .with_context(|| format!("cannot build a crowd of {count}"))?;
        Ok(true)
    }

    /// The box around the region joint `node` moves at the current pose, as `render --focus`
    /// frames it; an error when it is no joint or moves no vertex.
    pub fn joint_region(&self, node: usize) -> Result<(Vec3, Vec3), crate::analysis::FocusError> {
        crate::analysis::focus_region(&self.scene, &self.pose, node).map(|r| (r.min, r.max))
    }

    /// The box every drawn instance fits in.
    #[must_use]
    pub fn drawn_bounds(&self) -> (Vec3, Vec3) {
        self.gpu.bounds(self.bounds.0, self.bounds.1)
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

/// `p` with its right and front coordinates rounded to multiples of `step`, so grid lines fall on round numbers.
fn snap(p: Vec3, step: f32, axes: crate::ui::ViewAxes) -> Vec3 {
    let on = |axis: Vec3| axis * ((axis.dot(p) / step).round() * step - axis.dot(p));
    p + on(axes.right) + on(axes.front)
}

/// A ground grid of `lines` x `lines` cells of `spacing` world units, centred on `center` in
/// the plane of `axes`' right and front: segment endpoints in pairs, with their colours (the
/// axes brighter).
fn grid_lines(
    center: Vec3,
    spacing: f32,
    lines: u32,
    axes: crate::ui::ViewAxes,
) -> (Vec<Vec3>, Vec<Vec4>) {
    let (r, f) = (axes.right, axes.front);
    let half = lines as f32 * 0.5 * spacing;
    let (mut points, mut colors) = (Vec::new(), Vec::new());
    for i in 0..=lines {
        let o = -half + i as f32 * spacing;
        let color = if i == lines / 2 {
            Vec4::new(0.55, 0.55, 0.6, 0.9)
        } else {
            Vec4::new(0.3, 0.3, 0.34, 0.6)
        };
        for (a, b) in [
            (r * o - f * half, r * o + f * half),
            (f * o - r * half, f * o + r * half),
        ] {
            points.extend([center + a, center + b]);
            colors.extend([color, color]);
        }
    }
    (points, colors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_has_two_segments_per_step_and_brighter_axes() {
        let (points, colors) = grid_lines(
            Vec3::new(0.0, 2.0, 0.0),
            1.0,
            10,
            crate::ui::ViewAxes::default(),
        );
        assert_eq!(points.len(), 11 * 4);
        assert_eq!(colors.len(), points.len());
        assert!(points.iter().all(|p| p.y == 2.0 && p.x.abs() <= 5.0));
        // Line 5 of 0..=10 is the axis: x = 0 along z, z = 0 along x.
        assert_eq!(points[20], Vec3::new(0.0, 2.0, -5.0));
        assert!(colors[20].w > colors[0].w);
    }
}
