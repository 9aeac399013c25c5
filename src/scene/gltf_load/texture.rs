//! Images: fetching encoded bytes (buffer view or URI) and decoding them to RGBA8.

use std::borrow::Cow;
use std::io::Cursor;

use image::{ImageReader, Limits};

use super::source::{Data, read_uri};
use crate::scene::Texture;

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
        (None, Some(uri)) => Cow::Owned(
            read_uri(
                uri,
                data.base_dir,
                data.options,
                data.options.max_buffer_bytes,
            )
            .map_err(|e| format!("cannot load `{uri}`: {e}"))?,
        ),
        (None, None) => return Err("has neither a bufferView nor a uri".to_owned()),
    };
    decode_rgba8(&bytes, data.options.max_texture_side, budget)
}

/// Decodes PNG, JPEG, GIF or WebP bytes (format found from the bytes) to RGBA8, refusing oversized images.
///
/// `max_side` is the largest width or height accepted, `budget` how many RGBA8
/// bytes may still be decoded for this file: small compressed images can claim
/// huge sizes, so sizes are read from the header and checked before decoding.
pub(in crate::scene) fn decode_rgba8(
    bytes: &[u8],
    max_side: u32,
    budget: u64,
) -> Result<Texture, String> {
    let reader = || {
        ImageReader::new(Cursor::new(bytes))
            .with_guessed_format()
            .map_err(|e| e.to_string())
    };
    // Read the header first so an oversized image is refused before any pixel memory is taken.
    let (width, height) = reader()?.into_dimensions().map_err(|e| e.to_string())?;
    if width > max_side || height > max_side {
        return Err(format!(
            "{width}x{height} pixels is larger than {max_side}x{max_side} (LoadOptions::max_texture_side)"
        ));
    }
    let rgba_bytes = u64::from(width) * u64::from(height) * 4;
    if rgba_bytes > budget {
        return Err(format!(
            "{width}x{height} pixels would exceed the file's texture budget ({budget} bytes left, LoadOptions::max_texture_bytes)"
        ));
    }
    let mut limits = Limits::default();
    limits.max_image_width = Some(width);
    limits.max_image_height = Some(height);
    // Room for this image as 16-bit RGBA, plus its RGBA8 copy.
    limits.max_alloc = Some(rgba_bytes.saturating_mul(3));
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
        assert_eq!(decode_rgba8(&small, 16, 16).unwrap().rgba8.len(), 16);
        assert!(decode_rgba8(&small, 16, 15).unwrap_err().contains("budget"));
        let wide = png(17, 1);
        assert!(
            decode_rgba8(&wide, 16, u64::MAX)
                .unwrap_err()
                .contains("larger than")
        );
        assert!(decode_rgba8(b"GIF89a", 16, u64::MAX).is_err());
    }
}
