//! Images: fetching encoded bytes (buffer view or URI) and decoding them to RGBA8.

use std::borrow::Cow;
use std::io::Cursor;

use image::{ImageReader, Limits};

use super::source::{Data, read_uri};
use crate::scene::Texture;

/// Largest accepted texture side in pixels; bigger images are skipped with a warning.
pub(super) const MAX_TEXTURE_SIDE: u32 = 16384;

/// Most RGBA8 bytes all textures of one file may decode to (two maximal textures).
pub(super) const MAX_TOTAL_TEXTURE_BYTES: u64 = 2 << 30;

/// Decodes image `image` of the file to RGBA8 within `budget` bytes; the error text becomes a load warning.
pub(super) fn load_image(data: &Data<'_>, image: usize, budget: u64) -> Result<Texture, String> {
    let json = data
        .json
        .images
        .get(image)
        .ok_or_else(|| "does not exist".to_owned())?;
    let bytes: Cow<'_, [u8]> = match (&json.buffer_view, &json.uri) {
        (Some(view), _) => Cow::Borrowed(
            data.view_bytes(view.value(), &|| format!("image {image}"))
                .map_err(|e| e.to_string())?,
        ),
        (None, Some(uri)) => Cow::Owned(read_uri(uri, data.base_dir)?),
        (None, None) => return Err("has neither a bufferView nor a uri".to_owned()),
    };
    decode_rgba8(&bytes, budget)
}

/// Decodes PNG or JPEG bytes (format found from the bytes) to RGBA8, refusing oversized images.
///
/// `budget` is how many RGBA8 bytes may still be decoded for this file: small
/// compressed images can claim huge sizes, so sizes are checked before decoding.
pub(super) fn decode_rgba8(bytes: &[u8], budget: u64) -> Result<Texture, String> {
    let reader = || {
        ImageReader::new(Cursor::new(bytes))
            .with_guessed_format()
            .map_err(|e| e.to_string())
    };
    // Read the header first so an oversized image is refused before any pixel memory is taken.
    let (width, height) = reader()?.into_dimensions().map_err(|e| e.to_string())?;
    if width > MAX_TEXTURE_SIDE || height > MAX_TEXTURE_SIDE {
        return Err(format!(
            "{width}x{height} pixels is larger than {MAX_TEXTURE_SIDE}x{MAX_TEXTURE_SIDE}"
        ));
    }
    let rgba_bytes = u64::from(width) * u64::from(height) * 4;
    if rgba_bytes > budget {
        return Err(format!(
            "{width}x{height} pixels would exceed the file's {MAX_TOTAL_TEXTURE_BYTES}-byte texture budget"
        ));
    }
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_TEXTURE_SIDE);
    limits.max_image_height = Some(MAX_TEXTURE_SIDE);
    // Room for a maximal 16-bit RGBA image.
    limits.max_alloc = Some(u64::from(MAX_TEXTURE_SIDE).pow(2) * 8);
    let mut decoder = reader()?;
    decoder.limits(limits);
    let rgba = decoder.decode().map_err(|e| e.to_string())?.to_rgba8();
    Ok(Texture {
        width: rgba.width(),
        height: rgba.height(),
        rgba8: rgba.into_raw(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(width: u32, height: u32) -> Vec<u8> {
        let img = image::RgbaImage::new(width, height);
        let mut out = Cursor::new(Vec::new());
        img.write_to(&mut out, image::ImageFormat::Png).unwrap();
        out.into_inner()
    }

    #[test]
    fn sizes_are_checked_before_decoding() {
        let small = png(2, 2);
        assert_eq!(decode_rgba8(&small, 16).unwrap().rgba8.len(), 16);
        assert!(decode_rgba8(&small, 15).unwrap_err().contains("budget"));
        let wide = png(MAX_TEXTURE_SIDE + 1, 1);
        assert!(
            decode_rgba8(&wide, u64::MAX)
                .unwrap_err()
                .contains("larger than")
        );
        assert!(decode_rgba8(b"GIF89a", u64::MAX).is_err());
    }
}
