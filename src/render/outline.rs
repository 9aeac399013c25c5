//! A region's outline burnt into a picture, traced from its [`super::DebugView::Region`] mask.

use super::offscreen::RgbaImage;
use super::region_probe::is_region_pixel;

/// The outline's colour: magenta, which neither the heat scale nor skin, cloth or the dark
/// background uses.
pub const OUTLINE_RGBA: [u8; 4] = [255, 0, 255, 255];

/// Whether pixel (`x`, `y`) of `mask` is on the region's edge: a region pixel with a pixel
/// that is not the region (or the image's border) within `width - 1` pixels each way.
#[must_use]
pub fn is_outline_pixel(mask: &RgbaImage, x: u32, y: u32, width: u32) -> bool {
    let at = |x: i64, y: i64| -> bool {
        if x < 0 || y < 0 || x >= i64::from(mask.width) || y >= i64::from(mask.height) {
            return false;
        }
        let i = ((y as usize) * mask.width as usize + x as usize) * 4;
        mask.pixels.get(i..i + 4).is_some_and(is_region_pixel)
    };
    let (x, y) = (i64::from(x), i64::from(y));
    if !at(x, y) {
        return false;
    }
    let r = i64::from(width.max(1)) - 1;
    // The 4-neighbours at distance r + 1 and everything nearer.
    (-r - 1..=r + 1).any(|d| !at(x + d, y) || !at(x, y + d))
}

/// Draws the edge of `mask`'s region (a mask of the same size as `image`) into `image`,
/// `width` pixels wide inside the region, in [`OUTLINE_RGBA`].
pub fn draw_outline(image: &mut RgbaImage, mask: &RgbaImage, width: u32) {
    if (image.width, image.height) != (mask.width, mask.height) {
        return;
    }
    for y in 0..image.height {
        for x in 0..image.width {
            if is_outline_pixel(mask, x, y, width) {
                let i = ((y * image.width + x) * 4) as usize;
                if let Some(px) = image.pixels.get_mut(i..i + 4) {
                    px.copy_from_slice(&OUTLINE_RGBA);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_outline_runs_round_the_region_inside_it() {
        // A 4x4 square of region in an 8x8 mask.
        let (w, h) = (8u32, 8u32);
        let mut mask = RgbaImage {
            width: w,
            height: h,
            pixels: vec![0; (w * h * 4) as usize],
        };
        for y in 2..6 {
            for x in 2..6 {
                let i = ((y * w + x) * 4) as usize;
                mask.pixels[i..i + 4].copy_from_slice(&[255, 255, 255, 255]);
            }
        }
        let mut image = RgbaImage {
            width: w,
            height: h,
            pixels: vec![10; (w * h * 4) as usize],
        };
        draw_outline(&mut image, &mask, 1);
        let magenta = |x: u32, y: u32| {
            let i = ((y * w + x) * 4) as usize;
            image.pixels[i..i + 4] == OUTLINE_RGBA
        };
        // The square's ring is outlined, its middle and everything outside are not.
        assert!(magenta(2, 2) && magenta(5, 3) && magenta(3, 5));
        assert!(!magenta(3, 3) && !magenta(4, 4));
        assert!(!magenta(1, 1) && !magenta(6, 6) && !magenta(0, 4));
        let ring = (0..h)
            .flat_map(|y| (0..w).map(move |x| (x, y)))
            .filter(|&(x, y)| magenta(x, y))
            .count();
        assert_eq!(ring, 12);
    }
}
