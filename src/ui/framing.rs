//! Framing a box into the part of a pane that labels and the status line leave free.
//!
//! One rule for every whole-model framing (on open, Frame, a crowd resized): the box's
//! corners project inside [`FRAME_FILL`] of the free rectangle both ways, centred in it, so
//! nothing drawn over the pane covers the model and it keeps joint framing's margin.

use glam::Vec2;
use glam::Vec3;

use super::orbit::{FRAME_FILL, OrbitCamera};
use super::viewport::ViewRect;

/// A pane to frame into: its size and the part of it nothing is painted over, in pixels
/// (or points) from the pane's top-left corner, y down.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameArea {
    /// The pane's width and height.
    pub size: Vec2,
    /// The free rectangle's top-left corner.
    pub free_min: Vec2,
    /// The free rectangle's bottom-right corner.
    pub free_max: Vec2,
}

impl FrameArea {
    /// A pane of `size` with nothing over it.
    #[must_use]
    pub fn whole(size: Vec2) -> Self {
        Self {
            size,
            free_min: Vec2::ZERO,
            free_max: size,
        }
    }

    /// The area the shared camera frames into for `views`: the narrowest pane, free where
    /// every pane is free (their labels and the status line are painted over each of them
    /// at the same place relative to its corner); `None` without views.
    #[must_use]
    pub fn of_views(views: &[ViewRect]) -> Option<Self> {
        let aspect = |v: &ViewRect| v.rect.width() / v.rect.height().max(1.0);
        let narrowest = views
            .iter()
            .min_by(|a, b| aspect(a).total_cmp(&aspect(b)))?;
        let size = Vec2::new(narrowest.rect.width(), narrowest.rect.height());
        let local = |p: egui::Pos2, v: &ViewRect| Vec2::new(p.x - v.rect.min.x, p.y - v.rect.min.y);
        let (free_min, free_max) = views.iter().fold((Vec2::ZERO, size), |(lo, hi), v| {
            (lo.max(local(v.free.min, v)), hi.min(local(v.free.max, v)))
        });
        Some(Self {
            size,
            free_min,
            free_max,
        })
    }

    /// The pane's aspect (width / height).
    #[must_use]
    pub fn aspect(&self) -> f32 {
        self.size.x / self.size.y.max(1.0)
    }

    /// The free rectangle's centre and half extents in NDC (x right, y up); the whole pane
    /// when the free part is empty or not inside it.
    fn free_ndc(&self) -> (Vec2, Vec2) {
        let size = self.size.max(Vec2::ONE);
        let (lo, hi) = (self.free_min.max(Vec2::ZERO), self.free_max.min(size));
        let (lo, hi) = if (hi - lo).min_element() >= 1.0 && lo.is_finite() && hi.is_finite() {
            (lo, hi)
        } else {
            (Vec2::ZERO, size)
        };
        let mid = (lo + hi) * 0.5;
        let centre = Vec2::new(mid.x / size.x * 2.0 - 1.0, 1.0 - mid.y / size.y * 2.0);
        (centre, (hi - lo) / size)
    }
}

impl OrbitCamera {
    /// Keeps the angles and moves the target and distance so the corners of the box
    /// `min..max` project inside [`FRAME_FILL`] of `area`'s free rectangle both ways, the
    /// box's centre at the rectangle's centre (the tightest such distance).
    pub fn frame_in(&mut self, min: Vec3, max: Vec3, area: FrameArea) {
        // The sphere, sanitised box and near/far planes of the plain framing.
        self.frame(min, max);
        let centre = self.target;
        let half = Vec3::splat(self.scene_radius / 3.0_f32.sqrt());
        let (min, max) = if min.is_finite() && max.is_finite() && min.cmple(max).all() {
            (min, max)
        } else {
            (centre - half, centre + half)
        };
        let (ndc_centre, ndc_half) = area.free_ndc();
        let reach = ndc_half * FRAME_FILL;
        let ty = (Self::FOV_Y * 0.5).tan();
        let tan = Vec2::new(ty * area.aspect().max(1e-3), ty);
        let (right, up) = self.right_up();
        let back = self.back();
        // With the centre at NDC c and depth d, a corner offset (x, y) across and z towards
        // the eye lands within h of c when |x + c tan z| <= h tan (d - z): linear in d.
        let mut distance = self.scene_radius * 1.05;
        for k in 0..8 {
            let pick = |bit: usize, lo: f32, hi: f32| if k & bit == 0 { lo } else { hi };
            let corner = Vec3::new(
                pick(1, min.x, max.x),
                pick(2, min.y, max.y),
                pick(4, min.z, max.z),
            );
            let o = corner - centre;
            let across = Vec2::new(o.dot(right), o.dot(up));
            let z = o.dot(back);
            let need = (across + ndc_centre * tan * z).abs() / (reach * tan);
            distance = distance.max(z + need.max_element());
        }
        self.distance = distance;
        // The target sits at the pane's centre: shift it so the box's centre lands on the
        // free rectangle's.
        let offset = ndc_centre * tan * distance;
        self.target = centre - right * offset.x - up * offset.y;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::project_to_viewport;

    /// The projected box of `min..max` seen by `cam` in a pane of `size`: (lo, hi) pixels.
    fn projected(cam: &OrbitCamera, min: Vec3, max: Vec3, size: Vec2) -> (Vec2, Vec2) {
        let clip = cam.clip_from_world(size.x / size.y);
        let corners = (0..8).map(|k| {
            let pick = |bit: usize, lo: f32, hi: f32| if k & bit == 0 { lo } else { hi };
            let c = Vec3::new(
                pick(1, min.x, max.x),
                pick(2, min.y, max.y),
                pick(4, min.z, max.z),
            );
            project_to_viewport(clip, c, size).expect("ahead of the camera")
        });
        corners.fold((Vec2::MAX, Vec2::MIN), |(lo, hi), p| (lo.min(p), hi.max(p)))
    }

    /// A split pane of a 1280x720 window above the plot: a label row on top, the status line
    /// below.
    fn split_pane() -> FrameArea {
        FrameArea {
            size: Vec2::new(485.0, 500.0),
            free_min: Vec2::new(0.0, 32.0),
            free_max: Vec2::new(485.0, 475.0),
        }
    }

    #[test]
    fn a_framed_box_fills_the_free_part_of_the_pane_with_a_margin() {
        let boxes = [
            // The twist tube, a rod lying along x, a standing character, a flat plate.
            (Vec3::new(-0.25, 0.0, -0.25), Vec3::new(0.25, 2.0, 0.25)),
            (Vec3::new(-1.0, -0.1, -0.1), Vec3::new(1.0, 0.1, 0.1)),
            (Vec3::new(-0.4, 0.0, -0.2), Vec3::new(0.4, 1.8, 0.2)),
            (Vec3::new(-1.0, 0.0, -1.0), Vec3::new(1.0, 0.0, 1.0)),
        ];
        let areas = [
            split_pane(),
            FrameArea::whole(Vec2::new(970.0, 700.0)),
            FrameArea {
                size: Vec2::new(970.0, 500.0),
                free_min: Vec2::new(40.0, 0.0),
                free_max: Vec2::new(970.0, 460.0),
            },
        ];
        for (min, max) in boxes {
            for area in areas {
                for (yaw, pitch) in [(0.5_f32, 0.25_f32), (2.0, -0.6), (0.0, 1.2)] {
                    let mut cam = OrbitCamera {
                        yaw,
                        pitch,
                        ..OrbitCamera::default()
                    };
                    cam.frame_in(min, max, area);
                    let (lo, hi) = projected(&cam, min, max, area.size);
                    let free = area.free_max - area.free_min;
                    let margin = (1.0 - FRAME_FILL) * 0.5 * free - 0.01 * free;
                    let case = format!("{min} {max} {area:?} yaw {yaw} pitch {pitch}");
                    assert!(
                        (lo - area.free_min).min_element() >= margin.min_element(),
                        "{case}: box {lo}..{hi}"
                    );
                    assert!(
                        (area.free_max - hi).cmpge(margin).all(),
                        "{case}: box {lo}..{hi}"
                    );
                    // The tightest fit: a corner reaches FRAME_FILL of the way from the free
                    // part's centre to its edge (perspective makes the box lopsided).
                    let free_mid = (area.free_min + area.free_max) * 0.5;
                    let reach = ((hi - free_mid).max(free_mid - lo) / (free * 0.5)).max_element();
                    assert!((reach - FRAME_FILL).abs() < 1e-3, "{case}: reaches {reach}");
                }
            }
        }
    }

    #[test]
    fn the_plain_framing_puts_a_split_panes_tube_under_its_label() {
        // What the free rectangle fixes: the tube of `builtin:twist` (along +Y, 2 long, radius
        // 0.25) in a split pane, framed by its sphere at the default angles, reaches into the
        // label row.
        let (min, max) = (Vec3::new(-0.25, 0.0, -0.25), Vec3::new(0.25, 2.0, 0.25));
        let area = split_pane();
        let mut cam = OrbitCamera::default();
        cam.frame(min, max);
        let (lo, _) = projected(&cam, min, max, area.size);
        assert!(
            lo.y < area.free_min.y,
            "the old top {lo} is clear of the label"
        );
        cam.frame_in(min, max, area);
        let (lo, hi) = projected(&cam, min, max, area.size);
        assert!(lo.cmpge(area.free_min).all() && hi.cmple(area.free_max).all());
    }

    #[test]
    fn the_shared_area_is_free_in_every_pane() {
        let settings = crate::ui::SkinningSettings {
            view: crate::ui::ViewMode::Split,
            ..crate::ui::SkinningSettings::default()
        };
        let viewport = egui::Rect::from_min_size(egui::pos2(310.0, 0.0), egui::vec2(970.0, 720.0));
        let mut views = crate::ui::view_rects(viewport, &settings);
        // A label row over each pane, the status line over the left one only.
        for v in &mut views {
            v.free.min.y += 30.0;
        }
        views[0].free.max.y -= 25.0;
        let area = FrameArea::of_views(&views).expect("two panes");
        assert_eq!(area.size, Vec2::new(485.0, 720.0));
        assert_eq!(
            (area.free_min, area.free_max),
            (Vec2::new(0.0, 30.0), Vec2::new(485.0, 695.0))
        );
        assert_eq!(FrameArea::of_views(&[]), None);
    }

    #[test]
    fn a_bad_box_or_area_still_gives_a_finite_camera() {
        let mut cam = OrbitCamera::default();
        cam.frame_in(Vec3::NAN, Vec3::ONE, FrameArea::whole(Vec2::ZERO));
        assert!(cam.clip_from_world(1.0).is_finite() && cam.distance > 0.0);
        let empty = FrameArea {
            size: Vec2::new(100.0, 100.0),
            free_min: Vec2::new(60.0, 60.0),
            free_max: Vec2::new(40.0, 40.0),
        };
        cam.frame_in(Vec3::ZERO, Vec3::ONE, empty);
        assert!(cam.target.is_finite() && cam.distance.is_finite());
    }
}
