//! Counting a joint region's pixels: how much of the region a camera sees past what lies in
//! front of it, from [`DebugView::Region`] masks rendered small, many cameras in one pass.

use super::offscreen::RgbaImage;
use super::renderer::{Camera, Renderer};
use super::views::View;
use super::{DebugView, GpuContext, RenderError, SceneGpu, ViewParams};
use crate::skin::SkinningMode;

/// Height in pixels of one probe pane (its width follows the aspect): enough pixels that a
/// finger's region counts in hundreds at the framing distance.
pub const PROBE_PANE_HEIGHT: u32 = 96;

/// Probe panes side by side in one row of the probe image.
const PROBE_COLUMNS: u32 = 8;

/// The least a mask pixel's red channel reads to count as the region: 4x MSAA resolved in
/// linear light and encoded sRGB reads 137 where one sample in four covers, 188 for two.
pub const REGION_PIXEL_MIN: u8 = 160;

/// How many pixels of a joint's region one camera sees.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RegionCoverage {
    /// Region pixels that win the depth test against the whole drawn scene.
    pub visible: u32,
    /// Region pixels with nothing else drawn: the region's own silhouette.
    pub total: u32,
}

impl RegionCoverage {
    /// The share of the region's pixels seen, 0 for a region out of view.
    #[must_use]
    pub fn fraction(self) -> f32 {
        if self.total == 0 {
            0.0
        } else {
            (self.visible.min(self.total) as f32) / self.total as f32
        }
    }
}

/// One camera the probe tries: where from, and the cut-away depth its picture would use.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProbeCamera {
    /// The camera, for a pane of the probe's aspect.
    pub camera: Camera,
    /// [`ViewParams::cut_depth`] of the picture (0: nothing cut away).
    pub cut_depth: f32,
}

/// Whether an RGBA pixel of a [`DebugView::Region`] render is the region.
#[must_use]
pub fn is_region_pixel(rgba: &[u8]) -> bool {
    rgba.first().is_some_and(|&r| r >= REGION_PIXEL_MIN)
}

/// Region pixels in the rectangle `[x, y, width, height]` of a region mask.
#[must_use]
pub fn count_region_pixels(image: &RgbaImage, [x, y, width, height]: [u32; 4]) -> u32 {
    let w = image.width as usize;
    let mut n = 0;
    for row in y..(y + height).min(image.height) {
        let start = (row as usize * w + x as usize) * 4;
        let end = (row as usize * w + (x + width).min(image.width) as usize) * 4;
        if let Some(px) = image.pixels.get(start..end) {
            n += px.chunks_exact(4).filter(|p| is_region_pixel(p)).count() as u32;
        }
    }
    n
}

impl Renderer {
    /// For each camera, the pixels of the region of skin joint `joint` (its index in the skin)
    /// that `mode` draws at the posed `scene`: seen past the rest of the scene (with the
    /// camera's cut-away) and alone. Every camera's two masks are small panes of `aspect`
    /// (width / height) in one image, drawn in one pass.
    pub fn region_coverage(
        &self,
        ctx: &GpuContext,
        scene: &SceneGpu,
        (mode, joint): (SkinningMode, u32),
        cameras: &[ProbeCamera],
        aspect: f32,
    ) -> Result<Vec<RegionCoverage>, RenderError> {
        if cameras.is_empty() {
            return Ok(Vec::new());
        }
        let h = PROBE_PANE_HEIGHT;
        let w = ((h as f32 * aspect.clamp(0.1, 10.0)).round() as u32).max(8);
        let panes = 2 * cameras.len() as u32;
        let columns = panes.min(PROBE_COLUMNS);
        let rows = panes.div_ceil(columns);
        let params = |cut_depth: f32| ViewParams {
            view: DebugView::Region,
            selected_joint: joint,
            cut_depth,
            ..ViewParams::shaded(1.0)
        };
        let views: Vec<View> = cameras
            .iter()
            .flat_map(|c| [params(c.cut_depth), params(1.0)].map(|p| (c.camera, p)))
            .enumerate()
            .map(|(i, (camera, params))| View {
                x: (i as u32 % columns) * w,
                y: (i as u32 / columns) * h,
                width: w,
                height: h,
                camera,
                mode,
                params,
            })
            .collect();
        let image =
            self.render_views_sized(ctx, scene, &views, [columns * w, rows * h], [0.0; 4])?;
        let counts: Vec<u32> = views
            .iter()
            .map(|v| count_region_pixels(&image, [v.x, v.y, v.width, v.height]))
            .collect();
        Ok(counts
            .chunks_exact(2)
            .map(|c| RegionCoverage {
                visible: c[0],
                total: c[1],
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coverage_is_a_share_of_the_silhouette() {
        let c = RegionCoverage {
            visible: 30,
            total: 120,
        };
        assert!((c.fraction() - 0.25).abs() < 1e-6);
        assert_eq!(RegionCoverage::default().fraction(), 0.0);
    }

    #[test]
    fn region_pixels_are_counted_inside_the_rectangle() {
        let mut image = RgbaImage {
            width: 4,
            height: 3,
            pixels: vec![0; 48],
        };
        // (1, 1) and (3, 2) white, (2, 1) one MSAA sample in four (137): not counted.
        for (x, y, v) in [(1u32, 1u32, 255u8), (3, 2, 255), (2, 1, 137)] {
            let at = ((y * 4 + x) * 4) as usize;
            image.pixels[at..at + 4].copy_from_slice(&[v, v, v, 255]);
        }
        assert_eq!(count_region_pixels(&image, [0, 0, 4, 3]), 2);
        assert_eq!(count_region_pixels(&image, [0, 0, 2, 2]), 1);
        assert_eq!(count_region_pixels(&image, [2, 0, 9, 9]), 1);
    }
}
