//! The orbit camera: orbit, pan, zoom to cursor and framing, as pure math.

use glam::{Mat4, Vec2, Vec3};

/// The model's own right, up and front axes, which the camera orbits in (glTF's by default:
/// +X, +Y, +Z), so a Z-up file stands upright and yaw turns about its up axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewAxes {
    /// Right (unit).
    pub right: Vec3,
    /// Up (unit).
    pub up: Vec3,
    /// Front, towards the default eye (unit).
    pub front: Vec3,
}

impl Default for ViewAxes {
    fn default() -> Self {
        Self {
            right: Vec3::X,
            up: Vec3::Y,
            front: Vec3::Z,
        }
    }
}

impl ViewAxes {
    /// The axes a file says it has (`+Y`, `-Z`, ...); glTF's when they are not three distinct
    /// signed axes forming a right-handed frame.
    #[must_use]
    pub fn of(info: &crate::scene::SourceInfo) -> Self {
        let axis = |name: &str| -> Option<Vec3> {
            let (sign, letter) = name.split_at(name.len().checked_sub(1)?);
            let v = match letter {
                "X" => Vec3::X,
                "Y" => Vec3::Y,
                "Z" => Vec3::Z,
                _ => return None,
            };
            match sign {
                "+" | "" => Some(v),
                "-" => Some(-v),
                _ => None,
            }
        };
        match (
            axis(info.right_axis),
            axis(info.up_axis),
            axis(info.front_axis),
        ) {
            (Some(right), Some(up), Some(front)) if right.cross(up).dot(front) > 0.5 => {
                Self { right, up, front }
            }
            _ => Self::default(),
        }
    }
}

/// A camera circling a target point; angles in radians, distances in world units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrbitCamera {
    /// The point the camera looks at and orbits around.
    pub target: Vec3,
    /// Angle about the model's up axis, radians; 0 looks from its front.
    pub yaw: f32,
    /// Elevation, radians, kept inside (-pi/2, pi/2) so "up" stays defined.
    pub pitch: f32,
    /// Distance from the eye to the target.
    pub distance: f32,
    /// Radius of the model's bounding sphere: sets near/far planes and zoom limits.
    pub scene_radius: f32,
    /// The model's axes the angles are measured in.
    pub axes: ViewAxes,
    /// Radius of the framed joint region's sphere about the target, when a region is framed:
    /// the near plane then stands just in front of it, so nothing nearer the eye (the inside of
    /// the body the eye is in, an arm in the way) hides the region. `None`: the near plane
    /// holds the whole model.
    pub focus_radius: Option<f32>,
}

impl Default for OrbitCamera {
    fn default() -> Self {
        Self {
            target: Vec3::ZERO,
            yaw: 0.5,
            pitch: 0.25,
            distance: 3.0,
            scene_radius: 1.0,
            axes: ViewAxes::default(),
            focus_radius: None,
        }
    }
}

/// Radians of orbit per pixel dragged.
const ORBIT_RAD_PER_PX: f32 = 0.01;
/// Pitch stays this far from straight up or down.
const PITCH_LIMIT: f32 = std::f32::consts::FRAC_PI_2 - 0.01;

impl OrbitCamera {
    /// Vertical field of view, radians (the same as the offscreen renderer's framing).
    pub const FOV_Y: f32 = 0.61;

    /// A camera looking at the box `min..max` from the default angle, fitting it whole.
    #[must_use]
    pub fn framing(min: Vec3, max: Vec3) -> Self {
        let mut camera = Self::default();
        camera.frame(min, max);
        camera
    }

    /// Keeps the angles and moves the target and distance so the box `min..max` fits the view.
    pub fn frame(&mut self, min: Vec3, max: Vec3) {
        let (min, max) = if min.is_finite() && max.is_finite() && min.cmple(max).all() {
            (min, max)
        } else {
            (Vec3::splat(-1.0), Vec3::splat(1.0))
        };
        let radius = ((max - min).length() * 0.5).max(1e-3);
        self.target = (min + max) * 0.5;
        self.scene_radius = radius;
        self.distance = radius / (Self::FOV_Y * 0.5).sin() * 1.05;
        self.focus_radius = None;
    }

    /// Like [`Self::frame`] for a part of a model (a joint's region): the box's sphere spans
    /// [`FRAME_FILL`] of a view of `aspect` (width / height) both ways, the near plane stands
    /// just in front of that sphere ([`Self::focus_radius`]) and the far plane keeps holding
    /// a model of radius `model_radius`.
    pub fn frame_part(&mut self, min: Vec3, max: Vec3, aspect: f32, model_radius: f32) {
        self.frame(min, max);
        self.distance = fit_distance(self.scene_radius, aspect);
        self.focus_radius = Some(self.scene_radius);
        self.scene_radius = self.scene_radius.max(model_radius);
    }

    /// Unit vector from the target towards the eye.
    #[must_use]
    pub fn back(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        let a = &self.axes;
        a.right * (sy * cp) + a.up * sp + a.front * (cy * cp)
    }

    /// The eye position in world space.
    #[must_use]
    pub fn eye(&self) -> Vec3 {
        self.target + self.back() * self.distance
    }

    /// Camera right and up axes in world space (unit, orthogonal to the view direction).
    #[must_use]
    pub fn right_up(&self) -> (Vec3, Vec3) {
        let back = self.back();
        let right = self.axes.up.cross(back).normalize_or(self.axes.right);
        (right, back.cross(right))
    }

    /// `view_from_world`: right-handed look-at.
    #[must_use]
    pub fn view_from_world(&self) -> Mat4 {
        glam::camera::rh::view::look_at_mat4(self.eye(), self.target, self.axes.up)
    }

    /// The near and far plane distances: they hug the model so depth precision goes where it
    /// is; with a framed region ([`Self::focus_radius`]) the near plane touches the front of
    /// the region's sphere, so the eye is never inside what hides it.
    #[must_use]
    pub fn near_far(&self) -> (f32, f32) {
        let far = self.distance + self.scene_radius * 4.0;
        let reach = match self.focus_radius {
            Some(r) if r.is_finite() && r > 0.0 => r,
            _ => self.scene_radius * 2.0,
        };
        let near = (self.distance - reach).max(far * 1e-4);
        (near, far)
    }

    /// `clip_from_view` for a viewport of `aspect` (width / height), WebGPU depth 0..1.
    #[must_use]
    pub fn clip_from_view(&self, aspect: f32) -> Mat4 {
        let (near, far) = self.near_far();
        glam::camera::rh::proj::directx::perspective(Self::FOV_Y, aspect.max(1e-3), near, far)
    }

    /// `clip_from_world` for a viewport of `aspect` (width / height), WebGPU depth 0..1.
    #[must_use]
    pub fn clip_from_world(&self, aspect: f32) -> Mat4 {
        self.clip_from_view(aspect) * self.view_from_world()
    }

    /// Orbits by a drag of `delta_px` pixels (right drag turns the model to the right).
    pub fn orbit(&mut self, delta_px: Vec2) {
        self.yaw -= delta_px.x * ORBIT_RAD_PER_PX;
        self.pitch = (self.pitch + delta_px.y * ORBIT_RAD_PER_PX).clamp(-PITCH_LIMIT, PITCH_LIMIT);
    }

    /// World units covered by one pixel at the target's depth in a viewport `height_px` tall.
    #[must_use]
    pub fn world_per_pixel(&self, height_px: f32) -> f32 {
        2.0 * self.distance * (Self::FOV_Y * 0.5).tan() / height_px.max(1.0)
    }

    /// Pans so the point under the cursor follows a drag of `delta_px` (y down, as on screen).
    pub fn pan(&mut self, delta_px: Vec2, height_px: f32) {
        let (right, up) = self.right_up();
        let s = self.world_per_pixel(height_px);
        self.target += (-right * delta_px.x + up * delta_px.y) * s;
        // Off the framed region: the near plane holds the whole model again.
        self.focus_radius = None;
    }

    /// Zooms by `steps` wheel notches (positive zooms in), keeping the point under the cursor fixed.
    ///
    /// `cursor_ndc` is the cursor in normalised device coordinates of the viewport
    /// (x right, y up, -1..1), `aspect` its width / height. The fixed point is the one
    /// on the plane through the target facing the camera.
    pub fn zoom_to_cursor(&mut self, steps: f32, cursor_ndc: Vec2, aspect: f32) {
        if !steps.is_finite() {
            return;
        }
        let min = self.scene_radius * 1e-3;
        let max = self.scene_radius * 100.0;
        let new_distance = (self.distance * 0.85_f32.powf(steps)).clamp(min, max);
        let factor = new_distance / self.distance;
        let (right, up) = self.right_up();
        let half_h = (Self::FOV_Y * 0.5).tan() * self.distance;
        let under_cursor =
            self.target + right * (cursor_ndc.x * half_h * aspect) + up * (cursor_ndc.y * half_h);
        // Scaling about the cursor point: target moves towards it by (1 - factor).
        self.target = under_cursor + (self.target - under_cursor) * factor;
        self.distance = new_distance;
        self.focus_radius = None;
    }
}

/// The most of a pane's narrower side that a framed joint region's bounding sphere spans:
/// the rest is margin, so the region stays in view as it moves a little and reads as a part
/// of the body around it.
pub const FRAME_FILL: f32 = 0.7;

/// The distance at which a sphere of `radius` spans [`FRAME_FILL`] of the narrower side of a
/// view of `aspect` (width / height); the same distance for views at least as wide as tall.
#[must_use]
pub fn fit_distance(radius: f32, aspect: f32) -> f32 {
    let tan_narrow = (OrbitCamera::FOV_Y * 0.5).tan() * aspect.clamp(1e-3, 1.0);
    // The sphere's silhouette seen from distance d has half-angle asin(radius / d).
    let half_angle = (FRAME_FILL * tan_narrow).atan();
    radius.max(1e-3) / half_angle.sin()
}

/// The distance at which a sphere of `radius` fits a view of `aspect` both ways with the 5%
/// margin of [`OrbitCamera::frame`]: a whole model, which is larger than its sphere's silhouette
/// suggests (the same distance for views at least as wide as tall).
#[must_use]
pub fn fit_model_distance(radius: f32, aspect: f32) -> f32 {
    let half_v = OrbitCamera::FOV_Y * 0.5;
    let half_h = (half_v.tan() * aspect.max(1e-3)).atan();
    radius.max(1e-3) / half_v.min(half_h).sin() * 1.05
}

/// Projects `world` through `clip_from_world` to pixels of a viewport `size_px` (y down);
/// `None` behind the camera.
#[must_use]
pub fn project_to_viewport(clip_from_world: Mat4, world: Vec3, size_px: Vec2) -> Option<Vec2> {
    let clip = clip_from_world * world.extend(1.0);
    if clip.w <= 1e-6 {
        return None;
    }
    let ndc = clip.truncate() / clip.w;
    Some(Vec2::new(
        (ndc.x * 0.5 + 0.5) * size_px.x,
        (0.5 - ndc.y * 0.5) * size_px.y,
    ))
}

/// The cursor at `pos_px` in a viewport of `size_px` (y down) as NDC (y up, -1..1).
#[must_use]
pub fn ndc_from_viewport(pos_px: Vec2, size_px: Vec2) -> Vec2 {
    let size = size_px.max(Vec2::ONE);
    Vec2::new(pos_px.x / size.x * 2.0 - 1.0, 1.0 - pos_px.y / size.y * 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_z_up_file_orbits_about_its_own_up_axis() {
        let info = crate::scene::SourceInfo {
            up_axis: "+Z",
            front_axis: "-Y",
            right_axis: "+X",
            ..crate::scene::SourceInfo::default()
        };
        let axes = ViewAxes::of(&info);
        assert_eq!(
            (axes.right, axes.up, axes.front),
            (Vec3::X, Vec3::Z, Vec3::NEG_Y)
        );
        let mut camera = OrbitCamera {
            axes,
            yaw: 0.0,
            pitch: 0.0,
            ..OrbitCamera::default()
        };
        assert!(
            camera.back().abs_diff_eq(Vec3::NEG_Y, 1e-6),
            "yaw 0 looks from the front"
        );
        camera.pitch = 0.5;
        assert!(
            camera.back().z > 0.4,
            "a positive pitch looks from above: {}",
            camera.back()
        );
        let (right, up) = camera.right_up();
        assert!(
            right.abs_diff_eq(Vec3::X, 1e-5) && up.z > 0.8,
            "{right} {up}"
        );
        // The file's up is up on screen: a point above the target projects above the centre.
        let clip = camera.clip_from_world(1.0);
        let above = clip.project_point3(camera.target + Vec3::Z);
        assert!(above.y > 0.1 && above.x.abs() < 1e-4, "{above}");
        // Axes that are not a right-handed frame fall back to glTF's.
        let odd = crate::scene::SourceInfo {
            up_axis: "+Z",
            front_axis: "+Z",
            ..info
        };
        assert_eq!(ViewAxes::of(&odd), ViewAxes::default());
    }

    fn close(a: Vec2, b: Vec2, eps: f32) -> bool {
        (a - b).abs().max_element() <= eps
    }

    #[test]
    fn framing_puts_the_box_centre_in_the_middle() {
        let cam = OrbitCamera::framing(Vec3::new(-1.0, 0.0, -1.0), Vec3::new(1.0, 4.0, 1.0));
        let size = Vec2::new(800.0, 600.0);
        let p = project_to_viewport(cam.clip_from_world(800.0 / 600.0), cam.target, size).unwrap();
        assert!(close(p, size * 0.5, 1e-3), "{p}");
        assert_eq!(cam.target, Vec3::new(0.0, 2.0, 0.0));
    }

    #[test]
    fn orbit_keeps_distance_and_clamps_pitch() {
        let mut cam = OrbitCamera::default();
        let before = (cam.eye() - cam.target).length();
        cam.orbit(Vec2::new(37.0, 10_000.0));
        assert!(((cam.eye() - cam.target).length() - before).abs() < 1e-4);
        assert!(cam.pitch < std::f32::consts::FRAC_PI_2);
        assert!(cam.clip_from_world(1.0).is_finite());
    }

    #[test]
    fn pan_moves_the_target_point_with_the_cursor() {
        let mut cam = OrbitCamera::default();
        let size = Vec2::new(640.0, 480.0);
        let point = cam.target;
        let before = project_to_viewport(cam.clip_from_world(640.0 / 480.0), point, size).unwrap();
        cam.pan(Vec2::new(30.0, -20.0), size.y);
        let after = project_to_viewport(cam.clip_from_world(640.0 / 480.0), point, size).unwrap();
        assert!(
            close(after - before, Vec2::new(30.0, -20.0), 0.05),
            "{}",
            after - before
        );
    }

    #[test]
    fn zoom_to_cursor_keeps_the_point_under_the_cursor() {
        let mut cam = OrbitCamera::default();
        let size = Vec2::new(800.0, 600.0);
        let aspect = size.x / size.y;
        let cursor = Vec2::new(600.0, 150.0);
        let ndc = ndc_from_viewport(cursor, size);
        // The world point under the cursor on the target plane.
        let (right, up) = cam.right_up();
        let half_h = (OrbitCamera::FOV_Y * 0.5).tan() * cam.distance;
        let point = cam.target + right * ndc.x * half_h * aspect + up * ndc.y * half_h;
        let before = project_to_viewport(cam.clip_from_world(aspect), point, size).unwrap();
        assert!(close(before, cursor, 0.05), "{before}");
        let d0 = cam.distance;
        cam.zoom_to_cursor(3.0, ndc, aspect);
        assert!(cam.distance < d0);
        let after = project_to_viewport(cam.clip_from_world(aspect), point, size).unwrap();
        assert!(close(after, cursor, 0.05), "{after}");
        cam.zoom_to_cursor(-3.0, ndc, aspect);
        assert!((cam.distance - d0).abs() < 1e-4);
    }

    #[test]
    fn a_framed_part_fills_at_most_the_frame_fill_of_the_pane() {
        let (min, max) = (Vec3::new(0.2, 1.0, -0.1), Vec3::new(0.8, 1.3, 0.1));
        for aspect in [0.5_f32, 1.0, 16.0 / 9.0] {
            for yaw in [0.0_f32, 0.8, 2.0] {
                let mut cam = OrbitCamera {
                    yaw,
                    ..OrbitCamera::default()
                };
                cam.frame_part(min, max, aspect, 5.0);
                let size = Vec2::new(400.0 * aspect, 400.0);
                let clip = cam.clip_from_world(aspect);
                let corners: Vec<Vec2> = (0..8)
                    .map(|k| {
                        let pick =
                            |bit: usize, lo: f32, hi: f32| if k & bit == 0 { lo } else { hi };
                        let c = Vec3::new(
                            pick(1, min.x, max.x),
                            pick(2, min.y, max.y),
                            pick(4, min.z, max.z),
                        );
                        project_to_viewport(clip, c, size).expect("ahead")
                    })
                    .collect();
                let lo = corners.iter().copied().reduce(Vec2::min).expect("corners");
                let hi = corners.iter().copied().reduce(Vec2::max).expect("corners");
                // Of the narrower side: the strictest reading of "fills the pane".
                let fill = (hi - lo).max_element() / size.min_element();
                assert!(
                    fill <= FRAME_FILL + 1e-3,
                    "aspect {aspect} yaw {yaw}: fills {fill}"
                );
                // Not lost in the pane either: the box is most of its sphere.
                assert!(fill >= 0.4, "aspect {aspect} yaw {yaw}: fills only {fill}");
                let centre = project_to_viewport(clip, (min + max) * 0.5, size).expect("ahead");
                assert!(close(centre, size * 0.5, 0.05), "{centre}");
            }
        }
    }

    #[test]
    fn ndc_round_trip() {
        let size = Vec2::new(200.0, 100.0);
        assert_eq!(ndc_from_viewport(Vec2::ZERO, size), Vec2::new(-1.0, 1.0));
        assert_eq!(ndc_from_viewport(size, size), Vec2::new(1.0, -1.0));
    }
}
