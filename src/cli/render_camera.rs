//! `render`'s camera: the viewer's orbit camera, aimed by `--focus`, `--yaw`, `--pitch` and
//! `--distance`, or framing the rest pose.

use anyhow::{Result, bail};
use glam::Vec3;

use super::render::CAMERA_DIRECTION;
use super::render_args::CameraFlags;
use crate::analysis::{FocusRegion, focus_region};
use crate::anim::Pose;
use crate::render::Camera;
use crate::scene::Scene;
use crate::scene::names::{self, NameError};
use crate::skin::rest_bounds;
use crate::ui::{OrbitCamera, ViewAxes, candidate_angles, fit_distance, fit_model_distance};

/// The camera flags, checked: angles in degrees, distance in model units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraRequest {
    /// Joint node whose region is framed; `None` frames the rest pose.
    pub focus: Option<usize>,
    /// Orbit angle about +Y, degrees; 0 looks from +Z.
    pub yaw_deg: f32,
    /// Elevation, degrees, inside (-90, 90).
    pub pitch_deg: f32,
    /// Eye to target distance; `None` fits the framed box.
    pub distance: Option<f32>,
    /// Whether a focused picture picks its direction among [`candidate_angles`] (no `--yaw`
    /// or `--pitch` given) rather than keeping `yaw_deg` and `pitch_deg`.
    pub pick: bool,
}

/// The yaw and pitch in degrees of [`CAMERA_DIRECTION`], the default view.
#[must_use]
pub fn default_yaw_pitch_deg() -> (f32, f32) {
    let d = CAMERA_DIRECTION.normalize();
    (
        d.x.atan2(d.z).to_degrees(),
        d.y.atan2(d.x.hypot(d.z)).to_degrees(),
    )
}

impl CameraRequest {
    /// The default view: the rest pose framed from [`CAMERA_DIRECTION`].
    #[must_use]
    pub fn default_view() -> Self {
        let (yaw_deg, pitch_deg) = default_yaw_pitch_deg();
        Self {
            focus: None,
            yaw_deg,
            pitch_deg,
            distance: None,
            pick: true,
        }
    }

    /// The directions (yaw, pitch in degrees) a focused picture picks from: the default view
    /// and a cube's 26 ([`candidate_angles`]), or the angles the flags give alone.
    #[must_use]
    pub fn angles(&self) -> Vec<(f32, f32)> {
        if self.pick {
            candidate_angles((self.yaw_deg, self.pitch_deg))
        } else {
            vec![(self.yaw_deg, self.pitch_deg)]
        }
    }

    /// Checks the flags against `scene`: finite numbers, pitch inside (-90, 90), distance
    /// above 0, a focus that names a joint (the error lists the joints).
    pub fn parse(flags: &CameraFlags, scene: &Scene) -> Result<Self> {
        let (yaw0, pitch0) = default_yaw_pitch_deg();
        let yaw_deg = flags.yaw.unwrap_or(yaw0);
        let pitch_deg = flags.pitch.unwrap_or(pitch0);
        if !yaw_deg.is_finite() {
            bail!("--yaw must be a finite number of degrees, got {yaw_deg}");
        }
        if !(pitch_deg.is_finite() && pitch_deg > -90.0 && pitch_deg < 90.0) {
            bail!("--pitch must be a number of degrees inside (-90, 90), got {pitch_deg}");
        }
        if let Some(d) = flags.distance
            && !(d.is_finite() && d > 0.0)
        {
            bail!("--distance must be a finite number of model units above 0, got {d}");
        }
        let focus = flags
            .focus
            .as_deref()
            .map(|name| focus_joint(scene, name))
            .transpose()?;
        Ok(Self {
            focus,
            yaw_deg,
            pitch_deg,
            distance: flags.distance,
            pick: flags.yaw.is_none() && flags.pitch.is_none(),
        })
    }

    /// The orbit camera for every pane of an image whose narrowest pane has `aspect`
    /// (width / height), holding the frames `poses`: the focus region over all of them
    /// (or the rest pose) just fits, unless `--distance` says how far to stand. The region
    /// comes back too (with `--focus`).
    pub fn orbit(
        &self,
        scene: &Scene,
        poses: &[Pose],
        aspect: f32,
    ) -> Result<(OrbitCamera, Option<FocusRegion>)> {
        let rest = rest_bounds(scene).unwrap_or((Vec3::splat(-1.0), Vec3::ONE));
        let mut region: Option<FocusRegion> = None;
        if let Some(joint) = self.focus {
            for pose in poses {
                let r = focus_region(scene, pose, joint)
                    .map_err(|e| anyhow::anyhow!("--focus: {e}"))?;
                region = Some(region.map_or(r, |a| a.union(r)));
            }
        }
        let (min, max) = region.map_or(rest, |r| (r.min, r.max));
        let mut camera = OrbitCamera {
            yaw: self.yaw_deg.to_radians(),
            pitch: self.pitch_deg.to_radians(),
            axes: ViewAxes::of(&scene.source_info),
            ..OrbitCamera::default()
        };
        camera.frame(min, max);
        // A joint's region gets a margin; the whole model fits as the viewer frames it.
        let fit = if region.is_some() {
            fit_distance
        } else {
            fit_model_distance
        };
        camera.distance = self
            .distance
            .unwrap_or_else(|| fit(camera.scene_radius, aspect));
        // The far plane holds the whole model; the near plane stands just in front of a
        // focused joint's region, so nothing nearer hides it.
        let rest_radius = (rest.1 - rest.0).length() * 0.5;
        if region.is_some() {
            camera.focus_radius = Some(camera.scene_radius);
        }
        camera.scene_radius = camera.scene_radius.max(rest_radius);
        Ok((camera, region))
    }
}

/// A camera that follows a joint's region over an animation's frames.
#[derive(Clone, Debug, PartialEq)]
pub struct Following {
    /// The camera of frame 0.
    pub camera: OrbitCamera,
    /// The region over all frames (its vertex count is each frame's, summed).
    pub region: FocusRegion,
    /// Each frame's camera target: its region's centre.
    pub targets: Vec<Vec3>,
}

impl CameraRequest {
    /// With `--focus`, the camera of an animation: it follows the joint's region (the target
    /// at each frame's region centre) and stands back enough for the largest frame's region,
    /// so the zoom holds still (unless `--distance` says how far); `None` without `--focus`.
    pub fn follow(&self, scene: &Scene, poses: &[Pose], aspect: f32) -> Result<Option<Following>> {
        let Some(joint) = self.focus else {
            return Ok(None);
        };
        let regions = poses
            .iter()
            .map(|pose| focus_region(scene, pose, joint))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| anyhow::anyhow!("--focus: {e}"))?;
        let Some(first) = regions.first().copied() else {
            return Ok(None);
        };
        let largest = regions.iter().map(FocusRegion::radius).fold(0.0, f32::max);
        let mut camera = OrbitCamera {
            yaw: self.yaw_deg.to_radians(),
            pitch: self.pitch_deg.to_radians(),
            axes: ViewAxes::of(&scene.source_info),
            ..OrbitCamera::default()
        };
        camera.frame(first.min, first.max);
        camera.distance = self
            .distance
            .unwrap_or_else(|| fit_distance(largest, aspect));
        // The far plane holds the whole model; the near plane stands just in front of the
        // largest frame's region.
        let rest = rest_bounds(scene).unwrap_or((Vec3::splat(-1.0), Vec3::ONE));
        camera.focus_radius = Some(largest.max(1e-3));
        camera.scene_radius = largest.max((rest.1 - rest.0).length() * 0.5);
        let region = regions[1..].iter().fold(first, |a, &r| a.union(r));
        let targets = regions.iter().map(FocusRegion::center).collect();
        Ok(Some(Following {
            camera,
            region,
            targets,
        }))
    }
}

/// The render camera of `orbit` for a pane of `aspect`.
#[must_use]
pub fn pane_camera(orbit: &OrbitCamera, aspect: f32) -> Camera {
    Camera {
        clip_from_world: orbit.clip_from_world(aspect),
    }
}

/// The camera file of `--camera-out`: `orbit` seen in an image of `size` pixels, as matrices
/// (column-major, as glam and three.js store them) and as the eye, target and lens they come from.
#[must_use]
pub fn camera_json(orbit: &OrbitCamera, size: (u32, u32)) -> serde_json::Value {
    let aspect = size.0.max(1) as f32 / size.1.max(1) as f32;
    let (near, far) = orbit.near_far();
    let view = orbit.view_from_world();
    let clip_from_view = orbit.clip_from_view(aspect);
    // OpenGL's (and three.js's) clip depth runs -1..1: z_gl = 2 z_webgpu - w.
    let gl_depth = glam::Mat4::from_cols(
        glam::Vec4::X,
        glam::Vec4::Y,
        glam::Vec4::new(0.0, 0.0, 2.0, 0.0),
        glam::Vec4::new(0.0, 0.0, -1.0, 1.0),
    );
    serde_json::json!({
        "format": "dqview camera 1",
        "width": size.0,
        "height": size.1,
        "eye": orbit.eye().to_array(),
        "target": orbit.target.to_array(),
        "up": [0.0, 1.0, 0.0],
        "fov_y_deg": OrbitCamera::FOV_Y.to_degrees(),
        "aspect": aspect,
        "near": near,
        "far": far,
        "view_from_world": view.to_cols_array(),
        "world_from_view": view.inverse().to_cols_array(),
        "clip_from_view": clip_from_view.to_cols_array(),
        "clip_from_view_gl": (gl_depth * clip_from_view).to_cols_array(),
    })
}

/// The node `name` (joint name or node index, [`names::joint`]'s rule) names, if it is a
/// joint of some skin; the error suggests the nearest joints, or says the node is no joint.
pub fn focus_joint(scene: &Scene, name: &str) -> Result<usize> {
    match names::joint(scene, name) {
        Ok(node) => Ok(node),
        Err(e @ NameError::Ambiguous { .. }) => bail!("--focus: {e}"),
        Err(e) => match names::node(scene, name) {
            Ok(node) => bail!(
                "--focus `{}`: node {node} is not a joint ({e})",
                name.trim()
            ),
            Err(_) => bail!("--focus: {e}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::builtin_scene;
    use crate::ui::project_to_viewport;
    use glam::Vec2;

    #[test]
    fn the_default_angles_look_from_the_default_direction() {
        let (yaw, pitch) = default_yaw_pitch_deg();
        let camera = OrbitCamera {
            yaw: yaw.to_radians(),
            pitch: pitch.to_radians(),
            ..OrbitCamera::default()
        };
        assert!(
            camera
                .back()
                .abs_diff_eq(CAMERA_DIRECTION.normalize(), 1e-6)
        );
    }

    #[test]
    fn focus_centres_the_joint_region_and_comes_closer() {
        let scene = builtin_scene("twist").expect("builtin");
        let pose = Pose::rest(&scene);
        let flags = |focus: Option<&str>| CameraFlags {
            focus: focus.map(String::from),
            ..CameraFlags::default()
        };
        let whole = CameraRequest::parse(&flags(None), &scene).expect("flags");
        let tip = CameraRequest::parse(&flags(Some("tip")), &scene).expect("flags");
        let (whole, none) = whole
            .orbit(&scene, std::slice::from_ref(&pose), 1.0)
            .expect("camera");
        assert!(none.is_none());
        let (near, region) = tip
            .orbit(&scene, std::slice::from_ref(&pose), 1.0)
            .expect("camera");
        let region = region.expect("a focus region");
        // The tip moves the upper two thirds of the tube: a smaller sphere, aimed higher, at the
        // distance that leaves it FRAME_FILL of the pane.
        assert!(
            region.radius() < 0.95 * whole.scene_radius,
            "{region:?} vs {whole:?}"
        );
        assert!(
            (near.distance - fit_distance(region.radius(), 1.0)).abs() < 1e-4 * near.distance,
            "{near:?} vs {region:?}"
        );
        assert!(
            near.target.y > whole.target.y + 0.2,
            "{near:?} vs {whole:?}"
        );
        let size = Vec2::splat(100.0);
        let p =
            project_to_viewport(near.clip_from_world(1.0), region.center(), size).expect("ahead");
        assert!((p - size * 0.5).length() < 0.5, "{p}");
        // The far plane still holds the whole tube; the near plane touches the region's sphere.
        assert!(near.scene_radius >= whole.scene_radius - 1e-6);
        assert_eq!(near.focus_radius, Some(region.radius()));
        let (near_plane, _) = near.near_far();
        assert!((near_plane - (near.distance - region.radius())).abs() < 1e-4);
    }

    #[test]
    fn an_animation_follows_the_region_and_leaves_a_margin() {
        let scene = builtin_scene("elbow").expect("builtin");
        let joint = scene.skins[0].joints[1];
        let name = scene.nodes[joint].name.clone();
        // A bend from 0 to 120 degrees swings the forearm's region across the model.
        let poses: Vec<Pose> = (0..6)
            .map(|i| {
                let mut overrides = crate::anim::JointOverrides::new();
                let bend_deg = 24.0 * i as f32;
                let angles = crate::anim::JointAngles {
                    bend_deg,
                    ..Default::default()
                };
                overrides.set(joint, angles);
                let mut pose = Pose::rest(&scene);
                pose.sample(&scene, None, 0.0, &overrides);
                pose
            })
            .collect();
        let flags = CameraFlags {
            focus: Some(name),
            ..CameraFlags::default()
        };
        let request = CameraRequest::parse(&flags, &scene).expect("flags");
        let aspect = 1.5;
        let follow = request
            .follow(&scene, &poses, aspect)
            .expect("camera")
            .expect("following");
        assert_eq!(follow.targets.len(), poses.len());
        let size = Vec2::new(150.0, 100.0);
        let mut moved = 0.0_f32;
        for (pose, target) in poses.iter().zip(&follow.targets) {
            let camera = OrbitCamera {
                target: *target,
                ..follow.camera
            };
            let region = focus_region(&scene, pose, joint).expect("region");
            let clip = camera.clip_from_world(aspect);
            let centre = project_to_viewport(clip, region.center(), size).expect("ahead");
            assert!((centre - size * 0.5).length() < 0.5, "{centre}");
            // Every corner of the region inside the pane, the box within 70% of its height.
            let (mut lo, mut hi) = (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN));
            for k in 0..8 {
                let pick = |bit: usize, a: f32, b: f32| if k & bit == 0 { a } else { b };
                let corner = Vec3::new(
                    pick(1, region.min.x, region.max.x),
                    pick(2, region.min.y, region.max.y),
                    pick(4, region.min.z, region.max.z),
                );
                let p = project_to_viewport(clip, corner, size).expect("ahead");
                lo = lo.min(p);
                hi = hi.max(p);
            }
            let fill = (hi - lo).max_element() / size.min_element();
            assert!(fill <= crate::ui::FRAME_FILL + 1e-3, "fills {fill}");
            moved = moved.max((*target - follow.targets[0]).length());
        }
        // The union framing of a still would have left the centre wandering by this much.
        assert!(
            moved > 0.2 * follow.region.radius(),
            "the region moved {moved}"
        );
    }

    #[test]
    fn the_camera_file_holds_the_matrices_the_render_uses() {
        let scene = crate::builtin::builtin_scene("arm").expect("builtin");
        let (orbit, _) = CameraRequest::default_view()
            .orbit(&scene, &[Pose::rest(&scene)], 1.5)
            .expect("camera");
        let json = camera_json(&orbit, (300, 200));
        let mat = |key: &str| {
            let v: Vec<f32> = json[key]
                .as_array()
                .expect(key)
                .iter()
                .map(|x| x.as_f64().expect("number") as f32)
                .collect();
            glam::Mat4::from_cols_slice(&v)
        };
        let (view, proj, gl) = (
            mat("view_from_world"),
            mat("clip_from_view"),
            mat("clip_from_view_gl"),
        );
        assert!((proj * view).abs_diff_eq(orbit.clip_from_world(1.5), 1e-5));
        assert!(mat("world_from_view").abs_diff_eq(view.inverse(), 1e-4));
        assert_eq!(json["aspect"].as_f64(), Some(1.5));
        // The target projects to the centre; near and far map to depth 0 and 1 (WebGPU)
        // and -1 and 1 (OpenGL), x and y the same in both.
        let target = (proj * view).project_point3(orbit.target);
        assert!(target.truncate().length() < 1e-5, "{target}");
        let (near, far) = (
            json["near"].as_f64().unwrap() as f32,
            json["far"].as_f64().unwrap() as f32,
        );
        for (z_view, webgpu, opengl) in [(-near, 0.0, -1.0), (-far, 1.0, 1.0)] {
            let p = glam::Vec3::new(0.3, -0.2, 1.0) * -z_view;
            let p = glam::Vec3::new(p.x, p.y, z_view);
            let (a, b) = (proj.project_point3(p), gl.project_point3(p));
            assert!(
                (a.z - webgpu).abs() < 1e-4 && (b.z - opengl).abs() < 1e-4,
                "{a} {b}"
            );
            assert!(a.truncate().abs_diff_eq(b.truncate(), 1e-5));
        }
    }

    #[test]
    fn narrow_panes_stand_further_back() {
        assert!((fit_distance(1.0, 1.0) - fit_distance(1.0, 2.0)).abs() < 1e-6);
        assert!(fit_distance(1.0, 0.5) > 1.5 * fit_distance(1.0, 1.0));
    }

    #[test]
    fn bad_flags_are_refused_with_the_reason() {
        let scene = builtin_scene("twist").expect("builtin");
        let cases: [(CameraFlags, &str); 6] = [
            (
                CameraFlags {
                    yaw: Some(f32::NAN),
                    ..CameraFlags::default()
                },
                "--yaw",
            ),
            (
                CameraFlags {
                    pitch: Some(90.0),
                    ..CameraFlags::default()
                },
                "(-90, 90)",
            ),
            (
                CameraFlags {
                    pitch: Some(-95.0),
                    ..CameraFlags::default()
                },
                "(-90, 90)",
            ),
            (
                CameraFlags {
                    distance: Some(0.0),
                    ..CameraFlags::default()
                },
                "above 0",
            ),
            (
                CameraFlags {
                    distance: Some(f32::INFINITY),
                    ..CameraFlags::default()
                },
                "above 0",
            ),
            (
                CameraFlags {
                    focus: Some("elbow".into()),
                    ..CameraFlags::default()
                },
                "did you mean `base` or `tip`",
            ),
        ];
        for (flags, needle) in cases {
            let err = CameraRequest::parse(&flags, &scene)
                .expect_err("refused")
                .to_string();
            assert!(err.contains(needle), "{flags:?}: {err}");
        }
    }
}
