//! The damage rules on hand-made shapes: what changed is found, what did not is left alone,
//! and the damaged and clean rectangles tile the window exactly once.

use egui::epaint::{ClippedShape, Mesh, Primitive, Shape};
use egui::{Color32, Pos2, Rect, Stroke, pos2, vec2};

use super::*;

const WINDOW: [u32; 2] = [64, 48];

/// A filled rectangle shape at `min` of `size` points, clipped to the whole window.
fn square(min: Pos2, size: f32, color: Color32) -> ClippedShape {
    ClippedShape {
        clip_rect: Rect::from_min_size(Pos2::ZERO, vec2(64.0, 48.0)),
        shape: Shape::rect_filled(Rect::from_min_size(min, vec2(size, size)), 0.0, color),
        transform_after_tessellation: egui::emath::TSTransform::IDENTITY,
    }
}

fn contains(outer: &PixelRect, inner: &PixelRect) -> bool {
    outer[0] <= inner[0] && outer[1] <= inner[1] && inner[2] <= outer[2] && inner[3] <= outer[3]
}

#[test]
fn only_the_changed_shape_is_damaged() {
    let last = vec![
        square(pos2(2.0, 2.0), 4.0, Color32::RED),
        square(pos2(30.0, 20.0), 4.0, Color32::GREEN),
        square(pos2(50.0, 40.0), 4.0, Color32::BLUE),
    ];
    assert_eq!(changed_rects(&last, &last, 1.0, WINDOW), Some(vec![]));
    let mut moved = last.clone();
    moved[1] = square(pos2(32.0, 20.0), 4.0, Color32::GREEN);
    let rects = changed_rects(&last, &moved, 1.0, WINDOW).expect("rects");
    // Where it was and where it is, each with the feather's margin; nothing of the others.
    assert_eq!(rects, vec![[28, 18, 36, 26], [30, 18, 38, 26]]);
    for r in &rects {
        assert!(!contains(r, &[2, 2, 6, 6]) && !contains(r, &[50, 40, 54, 44]));
    }
    // At two pixels a point, the same shape damages twice the pixels.
    let rects = changed_rects(&last, &moved, 2.0, [128, 96]).expect("rects");
    assert_eq!(rects[1], [62, 38, 74, 50]);
}

#[test]
fn an_inserted_shape_damages_itself_not_what_follows() {
    let last = vec![
        square(pos2(2.0, 2.0), 4.0, Color32::RED),
        square(pos2(50.0, 40.0), 4.0, Color32::BLUE),
    ];
    let mut now = last.clone();
    now.insert(1, square(pos2(20.0, 20.0), 2.0, Color32::WHITE));
    let rects = changed_rects(&last, &now, 1.0, WINDOW).expect("rects");
    assert_eq!(rects, vec![[18, 18, 24, 24]]);
    // Removed again: the same place.
    assert_eq!(changed_rects(&now, &last, 1.0, WINDOW), Some(rects));
}

#[test]
fn a_shape_outside_its_clip_or_the_window_damages_nothing() {
    let last = vec![square(pos2(2.0, 2.0), 4.0, Color32::RED)];
    let mut hidden = square(pos2(10.0, 10.0), 4.0, Color32::RED);
    hidden.clip_rect = Rect::from_min_size(pos2(40.0, 40.0), vec2(4.0, 4.0));
    let off_screen = square(pos2(100.0, 100.0), 4.0, Color32::RED);
    let now = vec![last[0].clone(), hidden, off_screen];
    assert_eq!(changed_rects(&last, &now, 1.0, WINDOW), Some(vec![]));
}

#[test]
fn overlapping_rects_merge_and_most_of_the_window_is_drawn_whole() {
    let rects = vec![
        [0, 0, 10, 10],
        [5, 5, 20, 20],
        [30, 30, 40, 40],
        [19, 0, 25, 3],
    ];
    let merged = disjoint(rects, WINDOW).expect("small");
    // The first two overlap, their union then overlaps the fourth.
    assert_eq!(merged.len(), 2, "{merged:?}");
    assert!(merged.contains(&[0, 0, 25, 20]), "{merged:?}");
    assert!(merged.contains(&[30, 30, 40, 40]), "{merged:?}");
    assert_eq!(disjoint(vec![[0, 0, 64, 47]], WINDOW), None);
    assert!(disjoint(vec![[0, 0, 60, 40]], WINDOW).is_some());
    let many: Vec<PixelRect> = (0..30).map(|i| [2 * i, 0, 2 * i + 1, 1]).collect();
    assert_eq!(disjoint(many, WINDOW), Some(vec![[0, 0, 59, 1]]));
}

#[test]
fn damaged_and_clean_rects_tile_the_window_exactly_once() {
    let sets: [&[PixelRect]; 4] = [
        &[],
        &[[0, 0, 64, 48]],
        &[[3, 4, 10, 20], [12, 0, 30, 5], [40, 30, 64, 48]],
        &[[10, 10, 20, 20], [20, 10, 30, 12], [0, 47, 1, 48]],
    ];
    for damaged in sets {
        let clean = clean_rects(WINDOW, damaged);
        let mut covered = vec![0u8; 64 * 48];
        for r in damaged.iter().chain(&clean) {
            for y in r[1]..r[3] {
                for x in r[0]..r[2] {
                    covered[(y * 64 + x) as usize] += 1;
                }
            }
        }
        assert!(covered.iter().all(|&c| c == 1), "{damaged:?} -> {clean:?}");
        assert!(clean.iter().all(|r| r[2] > r[0] && r[3] > r[1]));
    }
}

#[test]
fn cut_primitives_keep_the_triangles_that_reach_the_rect_in_order() {
    // A row of ten 4x4 squares, two triangles each, in one mesh.
    let mut mesh = Mesh::default();
    for i in 0..10 {
        let min = pos2(4.0 * i as f32, 0.0);
        mesh.add_colored_rect(Rect::from_min_size(min, vec2(4.0, 4.0)), Color32::WHITE);
    }
    let clip_rect = Rect::from_min_size(Pos2::ZERO, vec2(64.0, 48.0));
    let primitives = vec![egui::ClippedPrimitive {
        clip_rect,
        primitive: Primitive::Mesh(mesh),
    }];
    let cut = clip_primitives(primitives, &[[9, 0, 15, 2], [30, 30, 40, 40]], 1.0);
    // The second rect holds no triangle: one primitive, narrowed to the first rect.
    assert_eq!(cut.len(), 1);
    assert_eq!(
        cut[0].clip_rect,
        Rect::from_min_max(pos2(9.0, 0.0), pos2(15.0, 2.0))
    );
    let Primitive::Mesh(part) = &cut[0].primitive else {
        panic!("a mesh");
    };
    // Squares 2 and 3 (x 8..16) reach it, none other.
    assert_eq!(part.indices.len(), 2 * 2 * 3);
    let xs: Vec<f32> = part.vertices.iter().map(|v| v.pos.x).collect();
    assert!(xs.iter().all(|&x| (8.0..=16.0).contains(&x)), "{xs:?}");
    assert!(part.is_valid());
    // A stroke is a shape like any other.
    let line = ClippedShape {
        clip_rect,
        shape: Shape::line_segment(
            [pos2(0.0, 0.0), pos2(10.0, 0.0)],
            Stroke::new(1.0, Color32::RED),
        ),
        transform_after_tessellation: egui::emath::TSTransform::IDENTITY,
    };
    assert!(reaches(&line, &[9, 0, 15, 2], 1.0, WINDOW));
    assert!(!reaches(&line, &[20, 20, 30, 30], 1.0, WINDOW));
}

#[test]
fn a_paint_callback_draws_the_frame_whole() {
    let callback = egui::epaint::PaintCallback {
        rect: Rect::from_min_size(Pos2::ZERO, vec2(4.0, 4.0)),
        callback: std::sync::Arc::new(()),
    };
    let now = vec![ClippedShape {
        clip_rect: Rect::from_min_size(Pos2::ZERO, vec2(64.0, 48.0)),
        shape: Shape::Callback(callback),
        transform_after_tessellation: egui::emath::TSTransform::IDENTITY,
    }];
    assert_eq!(changed_rects(&[], &now, 1.0, WINDOW), None);
}

#[test]
fn a_glyph_added_keeps_the_texels_and_a_texture_replaced_or_freed_does_not() {
    use egui::epaint::{ColorImage, ImageDelta, TextureId};
    let image = || ColorImage::new([2, 2], vec![egui::Color32::WHITE; 4]);
    let options = egui::TextureOptions::LINEAR;
    let mut delta = egui::TexturesDelta::default();
    assert!(texels_kept(&delta));
    let atlas = TextureId::Managed(0);
    let atlas_deltas = delta.set.entry(atlas).or_default();
    atlas_deltas.push(ImageDelta::partial([4, 4], image(), options));
    assert!(texels_kept(&delta), "a partial update adds texels only");
    let atlas_deltas = delta.set.entry(atlas).or_default();
    atlas_deltas.push(ImageDelta::full(image(), options));
    assert!(!texels_kept(&delta), "a full update replaces the texture");
    // Nothing draws here: dropped unapplied on purpose.
    delta.clear();
    let mut freed = egui::TexturesDelta::default();
    freed.free.insert(TextureId::Managed(1));
    assert!(!texels_kept(&freed));
    freed.clear();
}
