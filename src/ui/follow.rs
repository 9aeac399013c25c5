//! Follow joint: the camera moves with the selected joint's region while a clip plays or the
//! joint is posed, keeping the user's own orbit, zoom and pan on top.

use glam::Vec3;

use super::OrbitCamera;
use crate::anim::JointOverrides;

/// Whether the camera follows the selected joint, and where its region was last frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FollowState {
    /// The panel's "follow" toggle.
    pub enabled: bool,
    /// The joint followed and its region's centre (world) when the camera last moved with it.
    pub anchor: Option<(usize, Vec3)>,
    /// The pose (clip, time, overrides) the anchor was measured at: an unchanged pose needs no
    /// new region.
    pub measured_at: Option<(Option<usize>, f32, JointOverrides)>,
}

impl FollowState {
    /// The joint to follow this frame: the selected one while following is on.
    #[must_use]
    pub fn joint(&self, selected: Option<usize>) -> Option<usize> {
        selected.filter(|_| self.enabled)
    }

    /// Forgets the anchor (following is off, or the model changed).
    pub fn reset(&mut self) {
        self.anchor = None;
        self.measured_at = None;
    }

    /// Whether the region must be measured again at the pose `clip`, `time_s`, `overrides`
    /// for joint `node`; records the pose when it must.
    pub fn pose_changed(
        &mut self,
        node: usize,
        clip: Option<usize>,
        time_s: f32,
        overrides: &JointOverrides,
    ) -> bool {
        let same_joint = self.anchor.is_some_and(|(n, _)| n == node);
        let same_pose = self
            .measured_at
            .as_ref()
            .is_some_and(|(c, t, o)| *c == clip && *t == time_s && o == overrides);
        if same_joint && same_pose {
            return false;
        }
        self.measured_at = Some((clip, time_s, overrides.clone()));
        true
    }

    /// Turns following on for joint `node`, just framed with its region's centre at `centre`
    /// at the pose `clip`, `time_s`, `overrides`: the camera moves on from that framing
    /// without framing again.
    pub fn start(
        &mut self,
        node: usize,
        centre: Vec3,
        clip: Option<usize>,
        time_s: f32,
        overrides: &JointOverrides,
    ) {
        self.enabled = true;
        self.anchor = centre.is_finite().then_some((node, centre));
        self.measured_at = Some((clip, time_s, overrides.clone()));
    }

    /// Moves `camera` by how far the region of joint `node` moved (its centre now `centre`).
    ///
    /// Following just switched on (no anchor) starts from the camera as it is, so the view
    /// does not jump. Returns true when another joint was followed before: the caller frames
    /// the new one's region, since it may be anywhere on screen.
    pub fn track(&mut self, camera: &mut OrbitCamera, node: usize, centre: Vec3) -> bool {
        if !centre.is_finite() {
            return false;
        }
        let previous = self.anchor.replace((node, centre));
        match previous {
            Some((n, before)) if n == node => {
                camera.target += centre - before;
                false
            }
            Some(_) => true,
            None => false,
        }
    }

    /// The user took the camera (orbit or pan): following stops, and the panel's toggle
    /// shows it off.
    pub fn stop(&mut self) {
        self.enabled = false;
        self.reset();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_camera_moves_with_the_region_and_a_new_joint_is_framed() {
        let mut follow = FollowState {
            enabled: true,
            ..FollowState::default()
        };
        assert_eq!(follow.joint(Some(4)), Some(4));
        assert_eq!(follow.joint(None), None);
        let mut camera = OrbitCamera {
            target: Vec3::new(1.0, 2.0, 3.0),
            ..OrbitCamera::default()
        };
        assert!(
            !follow.track(&mut camera, 4, Vec3::new(0.0, 1.0, 0.0)),
            "switched on: no framing, no jump"
        );
        assert_eq!(camera.target, Vec3::new(1.0, 2.0, 3.0), "the camera stays");
        // The user's pan (target off the centre by (1, 1, 3)) is kept as the region moves.
        assert!(!follow.track(&mut camera, 4, Vec3::new(0.5, 0.0, -1.0)));
        assert_eq!(camera.target, Vec3::new(1.5, 1.0, 2.0));
        let (yaw, distance) = (camera.yaw, camera.distance);
        assert!(!follow.track(&mut camera, 4, Vec3::new(0.5, 0.0, -1.0)));
        assert_eq!(
            camera.target,
            Vec3::new(1.5, 1.0, 2.0),
            "still region, still camera"
        );
        assert_eq!((camera.yaw, camera.distance), (yaw, distance));
        assert!(
            follow.track(&mut camera, 7, Vec3::ZERO),
            "another joint is framed"
        );
        assert!(!follow.track(&mut camera, 7, Vec3::NAN));
        assert_eq!(camera.target, Vec3::new(1.5, 1.0, 2.0));
        follow.enabled = false;
        assert_eq!(follow.joint(Some(4)), None);
    }

    #[test]
    fn frame_starts_following_from_the_framed_camera_and_a_drag_stops_it() {
        let mut follow = FollowState::default();
        let none = JointOverrides::new();
        let framed = OrbitCamera {
            target: Vec3::new(0.5, 1.0, 0.0),
            ..OrbitCamera::default()
        };
        let mut camera = framed;
        follow.start(3, Vec3::new(0.5, 1.0, 0.0), Some(0), 0.25, &none);
        assert_eq!(follow.joint(Some(3)), Some(3));
        // The frame that framed it: same pose, nothing to measure, the camera as framed.
        assert!(!follow.pose_changed(3, Some(0), 0.25, &none));
        assert_eq!(camera.view_from_world(), framed.view_from_world());
        // The clip moves on: the camera moves with the region, framing nothing again.
        assert!(follow.pose_changed(3, Some(0), 0.5, &none));
        assert!(!follow.track(&mut camera, 3, Vec3::new(0.7, 1.1, 0.0)));
        assert!(camera.target.abs_diff_eq(Vec3::new(0.7, 1.1, 0.0), 1e-6));
        follow.stop();
        assert!(!follow.enabled && follow.anchor.is_none());
        assert_eq!(follow.joint(Some(3)), None);
    }

    #[test]
    fn the_region_is_measured_again_only_when_the_pose_or_joint_changes() {
        let mut follow = FollowState::default();
        let none = JointOverrides::new();
        assert!(follow.pose_changed(2, Some(0), 0.5, &none));
        follow.anchor = Some((2, Vec3::ZERO));
        assert!(!follow.pose_changed(2, Some(0), 0.5, &none));
        assert!(follow.pose_changed(2, Some(0), 0.6, &none));
        let mut twisted = JointOverrides::new();
        twisted.set(
            2,
            crate::anim::JointAngles {
                twist_deg: 30.0,
                ..Default::default()
            },
        );
        assert!(follow.pose_changed(2, Some(0), 0.6, &twisted));
        assert!(
            follow.pose_changed(3, Some(0), 0.6, &twisted),
            "another joint"
        );
        follow.reset();
        assert!(follow.pose_changed(2, Some(0), 0.6, &twisted));
    }
}
