//! The viewer's crowd: K copies of the model through the compute skinning path.

use crate::anim::JointOverrides;
use crate::render::{Crowd, FrameBinding, GpuContext, Renderer, SkinPath};
use crate::scene::Scene;
use crate::skin::SkinningMode;

/// The crowd drawn instead of the model when the crowd slider is above 1.
#[derive(Default)]
pub struct ViewerCrowd {
    /// The crowd for the current model and count, or `None` at a count of 1.
    crowd: Option<Crowd>,
    /// Why the last crowd could not be built (shown once in the panel).
    pub error: Option<String>,
}

impl ViewerCrowd {
    /// Builds, resizes or drops the crowd so it has `count` instances of `scene`.
    ///
    /// Returns true when the crowd changed (the camera may reframe).
    pub fn resize(
        &mut self,
        ctx: &GpuContext,
        renderer: &Renderer,
        scene: &Scene,
        count: u32,
    ) -> bool {
        let count = count as usize;
        let current = self.crowd.as_ref().map_or(1, Crowd::instances);
        if current == count {
            return false;
        }
        self.crowd = None;
        if count > 1 {
            match Crowd::new(ctx, renderer, scene, count, SkinPath::Compute) {
                Ok(crowd) => self.crowd = Some(crowd),
                Err(e) => self.error = Some(format!("cannot build a crowd of {count}: {e}")),
            }
        }
        true
    }

    /// Drops the crowd (a new model was opened).
    pub fn clear(&mut self) {
        self.crowd = None;
    }

    /// The crowd's bounds for one model's bounds `min..max`, when there is a crowd.
    #[must_use]
    pub fn bounds(&self, min: glam::Vec3, max: glam::Vec3) -> Option<(glam::Vec3, glam::Vec3)> {
        self.crowd.as_ref().map(|c| c.bounds(min, max))
    }

    /// Poses every instance at its own clip time and uploads what changed.
    pub fn update(
        &mut self,
        ctx: &GpuContext,
        scene: &Scene,
        clip: Option<usize>,
        time_s: f32,
        overrides: &JointOverrides,
        beta: f32,
    ) {
        if let Some(crowd) = &mut self.crowd {
            crowd.update(ctx, scene, clip, time_s, overrides);
            crowd.set_beta(ctx, beta);
        }
    }

    /// Records the compute pass in `mode` (before the scene pass); views in `mode` then draw the crowd.
    pub fn encode_skinning(&self, encoder: &mut wgpu::CommandEncoder, mode: SkinningMode) {
        if let Some(crowd) = &self.crowd {
            crowd.encode_skinning(encoder, mode, None);
        }
    }

    /// Draws the crowd into a view in `mode` if the compute pass skinned in `skinned` mode;
    /// false (nothing drawn) when the view must draw the model itself.
    pub fn draw(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        renderer: &Renderer,
        frame: &FrameBinding,
        (mode, skinned): (SkinningMode, Option<SkinningMode>),
    ) -> bool {
        match &self.crowd {
            Some(crowd) if skinned == Some(mode) => {
                crowd.draw(pass, renderer, frame, mode);
                true
            }
            _ => false,
        }
    }
}
