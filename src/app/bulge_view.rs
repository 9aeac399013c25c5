//! DQS with bulge compensation in the viewer: posed on the CPU, drawn as plain vertices.
//!
//! Compensation has no shader (it needs each vertex's rest distance to the hinge axis), so
//! the viewer runs `skin::skin_scene_dqs_compensated` and writes the result into the
//! compute crowd's vertex buffers (one instance), drawn in place of the GPU-skinned DQS mesh.

use crate::anim::Pose;
use crate::render::{Crowd, FrameBinding, GpuContext, Renderer, SkinPath};
use crate::scene::Scene;
use crate::skin::skin_scene_dqs_compensated;

/// The compensated DQS mesh, while the compensation slider is above 0.
#[derive(Default)]
pub struct BulgeView {
    /// One-instance crowd whose vertex buffers take the CPU-posed vertices.
    target: Option<Crowd>,
    /// Whether this frame's vertices were written (views in DQS mode draw them).
    active: bool,
}

impl BulgeView {
    /// Poses `scene` at `pose` with DQS and `amount` of compensation and uploads it; with
    /// `amount` 0 (or no skinned mesh) nothing is drawn and the GPU skin shows instead.
    pub fn update(
        &mut self,
        ctx: &GpuContext,
        renderer: &Renderer,
        scene: &Scene,
        pose: &Pose,
        amount: f32,
    ) -> Result<(), String> {
        self.active = false;
        // NaN counts as off.
        if amount.is_nan() || amount <= 0.0 {
            self.target = None;
            return Ok(());
        }
        if self.target.is_none() {
            self.target = Some(
                Crowd::new(ctx, renderer, scene, 1, SkinPath::Compute)
                    .map_err(|e| format!("cannot show bulge compensation: {e}"))?,
            );
        }
        let Some(target) = &self.target else {
            return Ok(());
        };
        let posed = skin_scene_dqs_compensated(scene, pose, amount.min(1.0));
        let mut written = 0;
        for index in 0..target.primitive_count() {
            let Some((mesh, primitive)) = target.primitive_source(index) else {
                continue;
            };
            let found = posed
                .iter()
                .find(|p| p.skinned && p.mesh == mesh && p.primitive == primitive);
            if let Some(p) = found
                && target.write_posed(&ctx.queue, index, 0, &p.vertices)
            {
                written += 1;
            }
        }
        self.active = written > 0;
        Ok(())
    }

    /// Drops the buffers (a new model was opened).
    pub fn clear(&mut self) {
        self.target = None;
        self.active = false;
    }

    /// Draws the compensated mesh into a DQS view; false when the view draws the GPU skin.
    pub fn draw(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        renderer: &Renderer,
        frame: &FrameBinding,
    ) -> bool {
        match (&self.target, self.active) {
            (Some(target), true) => {
                target.draw(pass, renderer, frame, crate::skin::SkinningMode::Dqs);
                true
            }
            _ => false,
        }
    }
}
