//! Follow joint in the window: after the frame's pose is set, the camera moves with the
//! selected joint's region (measured again only when the pose changes).

use super::viewer::Running;
use crate::ui::ViewRect;

impl Running {
    /// Moves the camera with the followed joint's region at this frame's pose; a joint newly
    /// followed is framed first. `views` size the framing (the narrowest pane).
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
