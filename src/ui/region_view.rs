//! Picking the view of a joint's region: one rule for `report`'s pictures, `render --focus`
//! and the viewer's Frame of a joint.
//!
//! The camera stands at the framing distance (the region's sphere spans [`super::FRAME_FILL`]
//! of the pane) with its near plane just in front of the sphere, and looks from the direction
//! of a set around the region (the usual front view, then the 6 faces, 12 edges and 8 corners
//! of a cube) that shows the most of the region's pixels past everything else, counted in a
//! mask render (a probe the caller runs, [`crate::render::Renderer::region_coverage`]).
//! Where the near plane holding the whole model sees the region as well
//! ([`KEEP_MODEL_SHARE`]), it goes back there, so nothing is cut off in front for nothing.
//! Where even the best view sees less than [`MIN_VISIBLE`] of the region, what lies in front
//! of the region's centre and is not the region is cut away.

use glam::{Mat4, Vec3};

use super::orbit::OrbitCamera;
use crate::render::RegionCoverage;

/// The share of a region's pixels a view must see for it to be shown as it is; below it (in
/// the best view), what is in front of the region's centre is cut away.
pub const MIN_VISIBLE: f32 = 1.0 / 3.0;

/// How much the usual front view is preferred: a direction's pixel count is scaled by
/// `1 + FRONT_BIAS * cos` of its angle from the front view (where that is positive), so a
/// view from behind must see a quarter more of the region to win.
pub const FRONT_BIAS: f32 = 0.25;

/// The share of the region's pixels a view whose near plane holds the whole model must see,
/// of what the same view sees with the near plane at the region, for the near plane to hold
/// the model after all: cutting the body off in front is worth it only where that shows more
/// than a tenth more of the region (the inside of a body the eye is in shows none of it).
pub const KEEP_MODEL_SHARE: f32 = 0.9;

/// Degrees the top and bottom views stay off straight up and down, where yaw is undefined.
const POLE_PITCH_DEG: f32 = 85.0;

/// The view [`pick_region_view`] chose and what it sees.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RegionView {
    /// The camera: angles picked, target, distance and near plane as framed.
    pub camera: OrbitCamera,
    /// What the picture sees of the region (after the cut-away, where there is one).
    pub coverage: RegionCoverage,
    /// What the best direction saw before any cut-away.
    pub uncut: RegionCoverage,
    /// Whether what hides the region in front of its centre is cut away.
    pub cut_away: bool,
    /// Directions tried.
    pub tried: usize,
}

impl RegionView {
    /// The cut-away depth of the picture for a pane of `aspect`: the clip depth of the
    /// region's centre with the cut-away, 0 (nothing cut) without.
    #[must_use]
    pub fn cut_depth(&self, aspect: f32) -> f32 {
        if self.cut_away {
            cut_depth_at(self.camera.clip_from_world(aspect), self.camera.target)
        } else {
            0.0
        }
    }
}

/// The clip depth (0 near .. 1 far) of `point`, 0 when it is not in front of the camera.
#[must_use]
pub fn cut_depth_at(clip_from_world: Mat4, point: Vec3) -> f32 {
    let clip = clip_from_world * point.extend(1.0);
    let depth = clip.z / clip.w;
    if clip.w > 0.0 && depth.is_finite() {
        depth.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// The (yaw, pitch) in degrees, each rounded to 0.1 so a printed command gives the same
/// camera, of `first` (the usual front view) and then the 26 directions of a cube's faces,
/// edges and corners seen from its centre, in the camera's own axes (x right, y up, z front).
#[must_use]
pub fn candidate_angles(first: (f32, f32)) -> Vec<(f32, f32)> {
    let round = |deg: f32| (deg * 10.0).round() / 10.0;
    let mut out = vec![(round(first.0), round(first.1))];
    for x in [0.0_f32, 1.0, -1.0] {
        for y in [0.0_f32, 1.0, -1.0] {
            for z in [1.0_f32, 0.0, -1.0] {
                if x == 0.0 && y == 0.0 && z == 0.0 {
                    continue;
                }
                let d = Vec3::new(x, y, z).normalize();
                let pitch =
                    d.y.asin()
                        .to_degrees()
                        .clamp(-POLE_PITCH_DEG, POLE_PITCH_DEG);
                // Straight up or down: yaw 0 (seen with the front at the bottom or top).
                let yaw = if x == 0.0 && z == 0.0 {
                    0.0
                } else {
                    d.x.atan2(d.z).to_degrees()
                };
                out.push((round(yaw), round(pitch)));
            }
        }
    }
    out
}

/// Picks the view of a region among `angles` (degrees, [`candidate_angles`]; the first is the
/// usual front) for `framed`, a camera framing the region (its target, distance and near plane
/// kept; [`OrbitCamera::frame_part`]). `probe` counts the region's pixels for cameras with
/// their cut-away depth (0: none), as [`crate::render::Renderer::region_coverage`] does.
///
/// The view that sees at least [`MIN_VISIBLE`] of the region and the most of its pixels
/// (front-biased, [`FRONT_BIAS`]) wins; where none sees that much, the one that sees the most,
/// with what hides the region in front of its centre cut away.
pub fn pick_region_view<E>(
    framed: OrbitCamera,
    angles: &[(f32, f32)],
    aspect: f32,
    mut probe: impl FnMut(&[(OrbitCamera, f32)]) -> Result<Vec<RegionCoverage>, E>,
) -> Result<RegionView, E> {
    let cameras: Vec<(OrbitCamera, f32)> = angles
        .iter()
        .map(|&(yaw, pitch)| {
            let camera = OrbitCamera {
                yaw: yaw.to_radians(),
                pitch: pitch.to_radians(),
                ..framed
            };
            (camera, 0.0)
        })
        .collect();
    let coverage = probe(&cameras)?;
    let front = cameras.first().map_or(Vec3::Z, |(c, _)| c.back());
    let score = |i: usize| -> f32 {
        let (Some((camera, _)), Some(c)) = (cameras.get(i), coverage.get(i)) else {
            return f32::MIN;
        };
        let bias = 1.0 + FRONT_BIAS * camera.back().dot(front).max(0.0);
        c.visible as f32 * bias
    };
    let best_of = |keep: &dyn Fn(&RegionCoverage) -> bool| {
        (0..cameras.len().min(coverage.len()))
            .filter(|&i| keep(&coverage[i]))
            // The first of equals wins: the usual front view before the cube's.
            .fold(None, |best: Option<usize>, i| match best {
                Some(b) if score(b) >= score(i) => Some(b),
                _ => Some(i),
            })
    };
    let seen = best_of(&|c| c.total > 0 && c.fraction() >= MIN_VISIBLE);
    let best = seen.or_else(|| best_of(&|_| true)).unwrap_or(0);
    let camera = cameras.get(best).map_or(framed, |(c, _)| *c);
    let uncut = coverage.get(best).copied().unwrap_or_default();
    let mut view = RegionView {
        camera,
        coverage: uncut,
        uncut,
        cut_away: false,
        tried: cameras.len(),
    };
    if seen.is_none() && uncut.total > 0 {
        view.cut_away = true;
        let cut = view.cut_depth(aspect);
        if let Some(c) = probe(&[(camera, cut)])?.first() {
            view.coverage = *c;
        }
    } else if camera.focus_radius.is_some() {
        // Nothing nearer than the region's sphere hides it: the near plane holds the model.
        let whole = OrbitCamera {
            focus_radius: None,
            ..camera
        };
        if let Some(c) = probe(&[(whole, 0.0)])?.first()
            && c.visible as f32 >= KEEP_MODEL_SHARE * uncut.visible as f32
        {
            view.camera = whole;
            view.coverage = *c;
            view.uncut = *c;
        }
    }
    Ok(view)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_candidates_are_the_front_then_a_cubes_26_directions() {
        let angles = candidate_angles((19.29, 13.31));
        assert_eq!(angles.len(), 27);
        assert_eq!(angles[0], (19.3, 13.3));
        // Front face first among the cube's; a corner at 45 degrees round, 35.3 up.
        assert_eq!(angles[1], (0.0, 0.0));
        assert!(angles.contains(&(45.0, 35.3)));
        assert!(angles.contains(&(180.0, 0.0)) || angles.contains(&(-180.0, 0.0)));
        assert!(angles.contains(&(0.0, 85.0)) && angles.contains(&(0.0, -85.0)));
        // 26 distinct directions after the front view.
        let mut seen = angles[1..].to_vec();
        seen.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
        seen.dedup();
        assert_eq!(seen.len(), 26);
    }

    /// A probe that sees `visible[i]` of 100 pixels from direction `i`, 90 cut away, and with
    /// the near plane holding the model `whole` times what the last best direction saw.
    fn probe_with(
        visible: Vec<u32>,
        whole: f32,
    ) -> impl FnMut(&[(OrbitCamera, f32)]) -> Result<Vec<RegionCoverage>, ()> {
        let best = visible.iter().copied().max().unwrap_or(0);
        move |cameras| {
            let one = |visible: u32| {
                vec![RegionCoverage {
                    visible,
                    total: 100,
                }]
            };
            Ok(match cameras {
                [(_, cut)] if *cut > 0.0 => one(90),
                [(camera, _)] if camera.focus_radius.is_none() => one((best as f32 * whole) as u32),
                _ => (0..cameras.len())
                    .map(|i| RegionCoverage {
                        visible: visible.get(i).copied().unwrap_or(0),
                        total: 100,
                    })
                    .collect(),
            })
        }
    }

    /// [`probe_with`] where something in front hides half the region from the model's near plane.
    fn probe(
        visible: Vec<u32>,
    ) -> impl FnMut(&[(OrbitCamera, f32)]) -> Result<Vec<RegionCoverage>, ()> {
        probe_with(visible, 0.5)
    }

    #[test]
    fn the_most_seen_direction_wins_and_the_front_breaks_ties() {
        let mut framed = OrbitCamera::default();
        framed.frame_part(Vec3::splat(-0.1), Vec3::splat(0.1), 1.0, 1.0);
        let angles = candidate_angles((19.3, 13.3));
        let mut visible = vec![40; angles.len()];
        let view = pick_region_view(framed, &angles, 1.0, probe(visible.clone())).expect("ok");
        assert_eq!(
            (view.camera.yaw, view.camera.pitch),
            (19.3_f32.to_radians(), 13.3_f32.to_radians())
        );
        assert!(!view.cut_away);
        // From behind (yaw 180) it must see a quarter more to beat the front.
        let back = angles
            .iter()
            .position(|a| a.0.abs() == 180.0 && a.1 == 0.0)
            .expect("back");
        visible[back] = 48;
        let view = pick_region_view(framed, &angles, 1.0, probe(visible.clone())).expect("ok");
        assert_eq!(
            view.camera.yaw,
            19.3_f32.to_radians(),
            "48 behind vs 40 * 1.25 in front"
        );
        visible[back] = 80;
        let view = pick_region_view(framed, &angles, 1.0, probe(visible.clone())).expect("ok");
        assert_eq!(view.camera.yaw.to_degrees().abs().round(), 180.0);
        assert_eq!(view.coverage.visible, 80);
        // Target, distance and near plane are the framing's.
        assert_eq!(view.camera.target, framed.target);
        assert_eq!(view.camera.distance, framed.distance);
        assert_eq!(view.camera.focus_radius, framed.focus_radius);
    }

    #[test]
    fn the_near_plane_holds_the_model_where_nothing_in_front_hides_the_region() {
        let mut framed = OrbitCamera::default();
        framed.frame_part(Vec3::splat(-0.1), Vec3::splat(0.1), 1.0, 1.0);
        let angles = candidate_angles((19.3, 13.3));
        let visible = vec![40; angles.len()];
        let view =
            pick_region_view(framed, &angles, 1.0, probe_with(visible.clone(), 1.0)).expect("ok");
        assert_eq!(
            view.camera.focus_radius, None,
            "nothing in front: nothing cut off"
        );
        assert_eq!(view.coverage.visible, 40);
        let view = pick_region_view(framed, &angles, 1.0, probe_with(visible, 0.8)).expect("ok");
        assert_eq!(
            view.camera.focus_radius, framed.focus_radius,
            "the body in front hides some"
        );
    }

    #[test]
    fn a_region_hidden_from_everywhere_is_cut_away() {
        let mut framed = OrbitCamera::default();
        framed.frame_part(Vec3::splat(-0.1), Vec3::splat(0.1), 1.0, 1.0);
        let angles = candidate_angles((19.3, 13.3));
        let mut visible = vec![10; angles.len()];
        visible[5] = 30;
        let view = pick_region_view(framed, &angles, 1.0, probe(visible)).expect("ok");
        assert!(view.cut_away);
        assert_eq!(view.uncut.visible, 30, "the best direction, uncut");
        assert_eq!(view.coverage.visible, 90, "seen once cut away");
        let depth = view.cut_depth(1.0);
        assert!(depth > 0.0 && depth < 1.0, "{depth}");
    }

    #[test]
    fn the_near_plane_of_a_framed_region_touches_its_sphere() {
        let mut camera = OrbitCamera::default();
        camera.frame_part(Vec3::splat(-0.1), Vec3::splat(0.1), 1.0, 5.0);
        let r = 0.1 * 3.0_f32.sqrt();
        let (near, far) = camera.near_far();
        assert!((near - (camera.distance - r)).abs() < 1e-5, "{near}");
        assert!(far > camera.distance + 5.0);
        // The whole model's framing keeps its old planes.
        camera.frame(Vec3::splat(-1.0), Vec3::ONE);
        assert_eq!(camera.focus_radius, None);
    }
}
