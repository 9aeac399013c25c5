//! Text labels burnt into rendered images with a built-in 5x7 bitmap font (no font files needed).

use super::offscreen::RgbaImage;

/// Glyph rows, top to bottom, as drawn: `#` a pixel, `.` none, rows separated by spaces.
const GLYPHS: &[(char, [u8; 7])] = &[
    ('A', glyph(".###. #...# #...# ##### #...# #...# #...#")),
    ('B', glyph("####. #...# #...# ####. #...# #...# ####.")),
    ('C', glyph(".###. #...# #.... #.... #.... #...# .###.")),
    ('D', glyph("####. #...# #...# #...# #...# #...# ####.")),
    ('E', glyph("##### #.... #.... ####. #.... #.... #####")),
    ('F', glyph("##### #.... #.... ####. #.... #.... #....")),
    ('G', glyph(".###. #...# #.... #.### #...# #...# .####")),
    ('H', glyph("#...# #...# #...# ##### #...# #...# #...#")),
    ('I', glyph(".###. ..#.. ..#.. ..#.. ..#.. ..#.. .###.")),
    ('J', glyph("..### ...#. ...#. ...#. ...#. #..#. .##..")),
    ('K', glyph("#...# #..#. #.#.. ##... #.#.. #..#. #...#")),
    ('L', glyph("#.... #.... #.... #.... #.... #.... #####")),
    ('M', glyph("#...# ##.## #.#.# #.#.# #...# #...# #...#")),
    ('N', glyph("#...# #...# ##..# #.#.# #..## #...# #...#")),
    ('O', glyph(".###. #...# #...# #...# #...# #...# .###.")),
    ('P', glyph("####. #...# #...# ####. #.... #.... #....")),
    ('Q', glyph(".###. #...# #...# #...# #.#.# #..#. .##.#")),
    ('R', glyph("####. #...# #...# ####. #.#.. #..#. #...#")),
    ('S', glyph(".#### #.... #.... .###. ....# ....# ####.")),
    ('T', glyph("##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#..")),
    ('U', glyph("#...# #...# #...# #...# #...# #...# .###.")),
    ('V', glyph("#...# #...# #...# #...# #...# .#.#. ..#..")),
    ('W', glyph("#...# #...# #...# #.#.# #.#.# #.#.# .#.#.")),
    ('X', glyph("#...# #...# .#.#. ..#.. .#.#. #...# #...#")),
    ('Y', glyph("#...# #...# .#.#. ..#.. ..#.. ..#.. ..#..")),
    ('Z', glyph("##### ....# ...#. ..#.. .#... #.... #####")),
    ('0', glyph(".###. #...# #..## #.#.# ##..# #...# .###.")),
    ('1', glyph("..#.. .##.. ..#.. ..#.. ..#.. ..#.. .###.")),
    ('2', glyph(".###. #...# ....# ...#. ..#.. .#... #####")),
    ('3', glyph("##### ...#. ..#.. ...#. ....# #...# .###.")),
    ('4', glyph("...#. ..##. .#.#. #..#. ##### ...#. ...#.")),
    ('5', glyph("##### #.... ####. ....# ....# #...# .###.")),
    ('6', glyph("..##. .#... #.... ####. #...# #...# .###.")),
    ('7', glyph("##### ....# ...#. ..#.. .#... .#... .#...")),
    ('8', glyph(".###. #...# #...# .###. #...# #...# .###.")),
    ('9', glyph(".###. #...# #...# .#### ....# ...#. .##..")),
    ('.', glyph("..... ..... ..... ..... ..... .##.. .##..")),
    ('=', glyph("..... ..... ##### ..... ##### ..... .....")),
    ('-', glyph("..... ..... ..... ##### ..... ..... .....")),
    (':', glyph("..... .##.. .##.. ..... .##.. .##.. .....")),
    ('%', glyph("##... ##..# ...#. ..#.. .#... #..## ...##")),
    ('+', glyph("..... ..#.. ..#.. ##### ..#.. ..#.. .....")),
    ('/', glyph("..... ....# ...#. ..#.. .#... #.... .....")),
    (' ', glyph("..... ..... ..... ..... ..... ..... .....")),
];

/// Seven 5-pixel rows (`#` set) to bits, bit 4 the leftmost pixel; any other text fails to compile.
const fn glyph(art: &str) -> [u8; 7] {
    let bytes = art.as_bytes();
    assert!(
        bytes.len() == 7 * 6 - 1,
        "seven rows of five, spaces between"
    );
    let mut rows = [0u8; 7];
    let mut i = 0;
    while i < bytes.len() {
        let (row, col) = (i / 6, i % 6);
        match (col, bytes[i]) {
            (5, b' ') | (0..=4, b'.') => {}
            (0..=4, b'#') => rows[row] |= 0b10000 >> col,
            _ => panic!("glyph art: '#' or '.' in rows of five, one space between rows"),
        }
        i += 1;
    }
    rows
}

/// The size in pixels (width, height) of the box [`draw_label`] draws for `text` at `scale`.
#[must_use]
pub fn label_size(text: &str, scale: u32) -> (u32, u32) {
    let scale = scale.max(1);
    let pad = scale * 2;
    let chars = text.chars().count() as u32;
    (chars * 6 * scale + 2 * pad, 7 * scale + 2 * pad)
}

/// Draws `text` (upper-cased; unknown characters as blanks) at (`x`, `y`), `scale` pixels per font pixel.
///
/// The text is white on a dark box so it reads on any background.
pub fn draw_label(image: &mut RgbaImage, text: &str, x: u32, y: u32, scale: u32) {
    let scale = scale.max(1);
    let chars: Vec<char> = text.chars().map(|c| c.to_ascii_uppercase()).collect();
    let pad = scale * 2;
    let (box_w, box_h) = label_size(text, scale);
    fill_rect(image, x, y, box_w, box_h, [20, 20, 24, 255]);
    for (i, c) in chars.iter().enumerate() {
        let Some((_, rows)) = GLYPHS.iter().find(|(g, _)| g == c) else {
            continue;
        };
        let gx = x + pad + i as u32 * 6 * scale;
        for (row, bits) in rows.iter().enumerate() {
            for col in 0..5u32 {
                if bits & (0b10000 >> col) != 0 {
                    fill_rect(
                        image,
                        gx + col * scale,
                        y + pad + row as u32 * scale,
                        scale,
                        scale,
                        [240, 240, 240, 255],
                    );
                }
            }
        }
    }
}

/// Fills a rectangle, clipped to the image.
pub(super) fn fill_rect(image: &mut RgbaImage, x: u32, y: u32, w: u32, h: u32, rgba: [u8; 4]) {
    let (iw, ih) = (image.width, image.height);
    for py in y.min(ih)..(y.saturating_add(h)).min(ih) {
        for px in x.min(iw)..(x.saturating_add(w)).min(iw) {
            let at = ((py * iw + px) * 4) as usize;
            if let Some(p) = image.pixels.get_mut(at..at + 4) {
                p.copy_from_slice(&rgba);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_draws_inside_the_image_only() {
        let mut image = RgbaImage {
            width: 40,
            height: 20,
            pixels: vec![0; 40 * 20 * 4],
        };
        draw_label(&mut image, "LBS", 2, 2, 1);
        let white = image.pixels.chunks(4).filter(|p| p[0] == 240).count();
        // L has 11 pixels, B 20, S 15 (glyph table).
        assert_eq!(white, 11 + 20 + 15);
        // Far off the edge: nothing panics, nothing drawn.
        let before = image.clone();
        draw_label(&mut image, "DQS", 1000, 1000, 3);
        assert_eq!(image, before);
    }
}
