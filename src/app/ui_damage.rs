//! The parts of the window a frame must draw again, so a playing clip redraws the views and the
//! few widgets that moved (time label, slider, plot cursor) instead of every triangle of the UI.
//!
//! On a software rasterizer the egui pass costs per triangle on the submitting thread (13-17 ms
//! for the Adventurer split's 7,888 triangles), and while a clip plays almost all of them are the
//! same as last frame. A frame drawn in part is, pixel for pixel, the frame drawn whole:
//! outside the damaged rectangles it is the last frame (which drew the same shapes there), and
//! inside each one it is the scene pass's picture with every shape that reaches the rectangle
//! drawn in order, clipped to it, tessellated exactly as the whole frame would be.

use egui::epaint::{ClippedPrimitive, ClippedShape, Mesh, Primitive, Shape};
use egui::{Pos2, Rect};

/// A rectangle of physical pixels, `[x0, y0, x1, y1)`.
pub type PixelRect = [u32; 4];

/// Past this share of the window damaged, the frame is drawn whole: nothing to save. (The
/// views alone are half the window while a clip plays; the saving is in the UI's triangles.)
const MOST_OF_THE_WINDOW: f64 = 0.95;

/// Past this many separate rectangles, they merge into their bounding box.
const MAX_RECTS: usize = 24;

/// Pixels added around a changed shape's bounds: egui's anti-aliasing feather reaches half a
/// pixel past the geometry, and rounding to whole pixels adds up to one more.
const FEATHER_PX: f32 = 2.0;

/// What a frame must draw over the last one ([`super::scene_cache::SceneCache::damage`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrameDamage {
    /// Nothing changed: the last frame is the frame.
    Nothing,
    /// These disjoint rectangles (pixels) changed.
    Rects(Vec<PixelRect>),
    /// All of it.
    Whole,
}

/// Whether every texel the last frame sampled is as it was after `textures`: a glyph added to
/// the font atlas (a partial update) keeps them, a texture replaced or freed does not.
#[must_use]
pub fn texels_kept(textures: &egui::TexturesDelta) -> bool {
    textures.free.is_empty()
        && textures
            .set
            .iter()
            .all(|(_, deltas)| deltas.iter().all(|d| d.pos.is_some()))
}

/// The rectangles where `shapes` differ from `last` (shapes added, removed or changed), in
/// whole pixels of a `size` window at `ppp`; `None` where the frame must be drawn whole (a
/// paint callback anywhere: it may draw something else each frame).
#[must_use]
pub fn changed_rects(
    last: &[ClippedShape],
    shapes: &[ClippedShape],
    ppp: f32,
    size: [u32; 2],
) -> Option<Vec<PixelRect>> {
    if shapes.iter().any(|s| has_callback(&s.shape)) {
        return None;
    }
    // Shapes keep their order frame to frame; what was inserted or replaced lies between the
    // common head and the common tail.
    let head = last.iter().zip(shapes).take_while(|(a, b)| a == b).count();
    let tail = last[head..]
        .iter()
        .rev()
        .zip(shapes[head..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (old, new) = (
        &last[head..last.len() - tail],
        &shapes[head..shapes.len() - tail],
    );
    // As many shapes between as before: a widget's shapes changed in place (a label's text, a
    // slider's knob), so only the pairs that differ damage the window. Otherwise every shape
    // between does.
    let changed: Vec<&ClippedShape> = if old.len() == new.len() {
        old.iter()
            .zip(new)
            .filter(|(a, b)| a != b)
            .flat_map(|(a, b)| [a, b])
            .collect()
    } else {
        old.iter().chain(new).collect()
    };
    let mut rects = Vec::new();
    for clipped in changed {
        let bounds = clipped.transform_after_tessellation * clipped.shape.visual_bounding_rect();
        let visible = bounds.intersect(clipped.clip_rect);
        if let Some(rect) = pixel_rect(visible, ppp, FEATHER_PX, size) {
            rects.push(rect);
        }
    }
    Some(rects)
}

/// Whether `shape` is, or holds, a paint callback (drawn by code this module cannot clip).
fn has_callback(shape: &Shape) -> bool {
    match shape {
        Shape::Callback(_) => true,
        Shape::Vec(shapes) => shapes.iter().any(has_callback),
        _ => false,
    }
}

/// `rect` (points) grown by `margin_px` and rounded out to whole pixels inside the window;
/// `None` when nothing of it is on screen or it is not finite.
#[must_use]
pub fn pixel_rect(rect: Rect, ppp: f32, margin_px: f32, size: [u32; 2]) -> Option<PixelRect> {
    if !(rect.is_positive() && rect.min.is_finite() && rect.max.is_finite()) {
        return None;
    }
    let lo = |v: f32, max: u32| ((v * ppp - margin_px).floor().max(0.0) as u32).min(max);
    let hi = |v: f32, max: u32| ((v * ppp + margin_px).ceil().max(0.0) as u32).min(max);
    let r = [
        lo(rect.min.x, size[0]),
        lo(rect.min.y, size[1]),
        hi(rect.max.x, size[0]),
        hi(rect.max.y, size[1]),
    ];
    (r[2] > r[0] && r[3] > r[1]).then_some(r)
}

/// `rects` merged until no two overlap (overlapping ones become their bounding box), or `None`
/// when they cover most of a `size` window (drawing it whole is as cheap).
#[must_use]
pub fn disjoint(mut rects: Vec<PixelRect>, size: [u32; 2]) -> Option<Vec<PixelRect>> {
    let overlap =
        |a: &PixelRect, b: &PixelRect| a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
    let union = |a: &PixelRect, b: &PixelRect| {
        [
            a[0].min(b[0]),
            a[1].min(b[1]),
            a[2].max(b[2]),
            a[3].max(b[3]),
        ]
    };
    loop {
        let pair = (0..rects.len()).find_map(|i| {
            ((i + 1)..rects.len())
                .find(|&j| overlap(&rects[i], &rects[j]))
                .map(|j| (i, j))
        });
        match pair {
            Some((i, j)) => {
                let b = rects.swap_remove(j);
                rects[i] = union(&rects[i], &b);
            }
            None if rects.len() > MAX_RECTS => {
                let all = rects.iter().skip(1).fold(rects[0], |a, b| union(&a, b));
                rects = vec![all];
            }
            None => break,
        }
    }
    let area = |r: &PixelRect| f64::from(r[2] - r[0]) * f64::from(r[3] - r[1]);
    let window = f64::from(size[0]) * f64::from(size[1]);
    let damaged: f64 = rects.iter().map(area).sum();
    (damaged <= MOST_OF_THE_WINDOW * window).then_some(rects)
}

/// The part of a `size` window outside the disjoint `rects`, as rectangles (rows of cells of
/// the grid their edges make, each row's clean cells merged into runs).
#[must_use]
pub fn clean_rects(size: [u32; 2], rects: &[PixelRect]) -> Vec<PixelRect> {
    let edges = |lo: usize, hi: usize, max: u32| {
        let mut e: Vec<u32> = rects.iter().flat_map(|r| [r[lo], r[hi]]).collect();
        e.extend([0, max]);
        e.sort_unstable();
        e.dedup();
        e
    };
    let (xs, ys) = (edges(0, 2, size[0]), edges(1, 3, size[1]));
    let dirty = |x: u32, y: u32| {
        rects
            .iter()
            .any(|r| r[0] <= x && x < r[2] && r[1] <= y && y < r[3])
    };
    let mut out: Vec<PixelRect> = Vec::new();
    for row in ys.windows(2) {
        let mut run: Option<u32> = None;
        for cell in xs.windows(2) {
            match (dirty(cell[0], row[0]), run) {
                (false, None) => run = Some(cell[0]),
                (true, Some(x0)) => {
                    out.push([x0, row[0], cell[0], row[1]]);
                    run = None;
                }
                _ => {}
            }
        }
        if let Some(x0) = run {
            out.push([x0, row[0], size[0], row[1]]);
        }
    }
    out
}

/// Whether `clipped` may put a pixel inside `rect` (pixels): its bounds, clipped, grown by the
/// feather, reach it.
#[must_use]
pub fn reaches(clipped: &ClippedShape, rect: &PixelRect, ppp: f32, size: [u32; 2]) -> bool {
    if has_callback(&clipped.shape) {
        return true;
    }
    let bounds = clipped.transform_after_tessellation * clipped.shape.visual_bounding_rect();
    pixel_rect(bounds.intersect(clipped.clip_rect), ppp, FEATHER_PX, size)
        .is_some_and(|b| b[0] < rect[2] && rect[0] < b[2] && b[1] < rect[3] && rect[1] < b[3])
}

/// `primitives` (tessellated as for a whole frame) cut to `rects`: per primitive and rectangle,
/// the clip rectangle narrowed to it and only the triangles that reach it, in drawing order.
#[must_use]
pub fn clip_primitives(
    primitives: Vec<ClippedPrimitive>,
    rects: &[PixelRect],
    ppp: f32,
) -> Vec<ClippedPrimitive> {
    let mut out = Vec::new();
    for clipped in primitives {
        let Primitive::Mesh(mesh) = &clipped.primitive else {
            continue;
        };
        for r in rects {
            let rect = Rect::from_min_max(
                Pos2::new(r[0] as f32 / ppp, r[1] as f32 / ppp),
                Pos2::new(r[2] as f32 / ppp, r[3] as f32 / ppp),
            );
            let clip_rect = clipped.clip_rect.intersect(rect);
            if !clip_rect.is_positive() {
                continue;
            }
            // A triangle whose bounds miss the rectangle covers none of its pixel centres.
            let part = triangles_within(mesh, clip_rect.expand(1e-3));
            if !part.indices.is_empty() {
                out.push(ClippedPrimitive {
                    clip_rect,
                    primitive: Primitive::Mesh(part),
                });
            }
        }
    }
    out
}

/// The triangles of `mesh` whose bounding box meets `rect` (the others draw no pixel there).
fn triangles_within(mesh: &Mesh, rect: Rect) -> Mesh {
    let mut out = Mesh::with_texture(mesh.texture_id);
    let mut remap = vec![u32::MAX; mesh.vertices.len()];
    for tri in mesh.indices.chunks_exact(3) {
        let p = [tri[0], tri[1], tri[2]].map(|i| mesh.vertices.get(i as usize).map(|v| v.pos));
        let [Some(a), Some(b), Some(c)] = p else {
            continue;
        };
        let bounds = Rect::from_min_max(a.min(b).min(c), a.max(b).max(c));
        if !bounds.intersects(rect) {
            continue;
        }
        for &i in tri {
            let slot = &mut remap[i as usize];
            if *slot == u32::MAX {
                *slot = out.vertices.len() as u32;
                out.vertices.push(mesh.vertices[i as usize]);
            }
            out.indices.push(*slot);
        }
    }
    out
}

#[cfg(test)]
mod tests;
