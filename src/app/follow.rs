//! Follow joint in the window: after the frame's pose is set, the camera moves with the
//! selected joint's region (measured again only when the pose changes).

use super::viewer::Running;
use crate::render::{Camera, ProbeCamera};
use crate::ui::{OrbitCamera, ViewRect};

impl Running {
    /// Frames the region of the joint a Frame asked for, at this frame's pose, from the view
    /// that sees the most of it (the rule of `render --focus` and `report`,
    /// [`crate::ui::pick_region_view`], the current angles counting as the usual front), and
    /// follows it from there (on by default after Frame; the framed view is the first followed one).
    pub(super) fn frame_joint(&mut self, views: &[ViewRect]) {
        let Some(node) = self.state.requests.frame_joint.take() else {
            return;
        };
        match self.model.joint_region(node) {
            Ok((min, max)) => {
                // Fit the narrowest pane; the far plane keeps holding the whole model.
                let model_radius = (self.model.bounds.1 - self.model.bounds.0).length() * 0.5;
                let aspect = narrowest_aspect(views);
                let mut framed = self.state.camera;
                framed.frame_part(min, max, aspect, model_radius);
                self.state.camera = self.pick_view(node, framed, aspect);
                let p = &self.state.playback;
                let overrides = &self.state.joints.overrides;
                let centre = (min + max) * 0.5;
                self.state
                    .follow
                    .start(node, centre, p.clip, p.time_s, overrides);
            }
            Err(e) => self.state.error = Some(e.to_string()),
        }
    }

    /// Moves the camera with the followed joint's region at this frame's pose; a joint
    /// followed instead of another is framed first. `views` size the framing (the narrowest
    /// pane).
    pub(super) fn follow_joint(&mut self, views: &[ViewRect]) {
        let follow = &mut self.state.follow;
        let Some(node) = follow.joint(self.state.joints.selected) else {
            follow.reset();
            return;
        };
        let p = &self.state.playback;
        if !follow.pose_changed(node, p.clip, p.time_s, &self.state.joints.overrides) {
            return;
        }
        match self.model.joint_region(node) {
            Ok((min, max)) => {
                let camera = &mut self.state.camera;
                if follow.track(camera, node, (min + max) * 0.5) {
                    let aspect = narrowest_aspect(views);
                    let model_radius = (self.model.bounds.1 - self.model.bounds.0).length() * 0.5;
                    camera.frame_part(min, max, aspect, model_radius);
                }
            }
            Err(e) => {
                // A joint that moves no vertex has no region to follow: say so and stop.
                self.state.error = Some(format!("follow: {e}"));
                follow.enabled = false;
                follow.reset();
            }
        }
    }
}

impl Running {
    /// `framed` turned to the direction that sees the most of joint node `node`'s region in
    /// the current mode, counted in region masks of the posed model; `framed` as it is when
    /// the probe fails (said in the log).
    fn pick_view(&self, node: usize, framed: OrbitCamera, aspect: f32) -> OrbitCamera {
        let first = (framed.yaw.to_degrees(), framed.pitch.to_degrees());
        let angles = crate::ui::candidate_angles(first);
        let joint = self
            .model
            .scene
            .skins
            .get(self.state.joints.skin)
            .and_then(|s| s.joints.iter().position(|&j| j == node))
            .map_or(u32::MAX, |i| i as u32);
        let (ctx, renderer, gpu) = (&self.gpu.ctx, &self.graphics.renderer, &self.model.gpu);
        let mode = (self.state.skinning.mode, joint);
        let picked = crate::ui::pick_region_view(framed, &angles, aspect, |cameras| {
            let probes: Vec<ProbeCamera> = cameras
                .iter()
                .map(|(camera, cut_depth)| ProbeCamera {
                    camera: Camera {
                        clip_from_world: camera.clip_from_world(aspect),
                    },
                    cut_depth: *cut_depth,
                })
                .collect();
            renderer.region_coverage(ctx, gpu, mode, &probes, aspect)
        });
        match picked {
            Ok(view) => view.camera,
            Err(e) => {
                log::warn!("cannot pick the view of the joint's region: {e}");
                framed
            }
        }
    }
}

/// The aspect (width / height) of the narrowest of `views` (1 when there is none).
#[must_use]
pub fn narrowest_aspect(views: &[ViewRect]) -> f32 {
    let aspect = views
        .iter()
        .map(|v| v.rect.width() / v.rect.height().max(1.0))
        .fold(f32::INFINITY, f32::min);
    if aspect.is_finite() { aspect } else { 1.0 }
}
