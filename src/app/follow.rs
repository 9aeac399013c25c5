//! Follow joint in the window: after the frame's pose is set, the camera moves with the
//! selected joint's region (measured again only when the pose changes).

use super::viewer::Running;
use crate::ui::ViewRect;

impl Running {
    /// Frames the region of the joint a Frame asked for, at this frame's pose, and follows
    /// it from there (on by default after Frame; the framed view is the first followed one).
    pub(super) fn frame_joint(&mut self, views: &[ViewRect]) {
        let Some(node) = self.state.requests.frame_joint.take() else {
            return;
        };
        match self.model.joint_region(node) {
            Ok((min, max)) => {
                // Fit the narrowest pane; near and far keep holding the whole model.
                let model_radius = (self.model.bounds.1 - self.model.bounds.0).length() * 0.5;
                let camera = &mut self.state.camera;
                camera.frame_part(min, max, narrowest_aspect(views), model_radius);
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

/// The aspect (width / height) of the narrowest of `views` (1 when there is none).
#[must_use]
pub fn narrowest_aspect(views: &[ViewRect]) -> f32 {
    let aspect = views
        .iter()
        .map(|v| v.rect.width() / v.rect.height().max(1.0))
        .fold(f32::INFINITY, f32::min);
    if aspect.is_finite() { aspect } else { 1.0 }
}
