//! Images: fetching encoded bytes (buffer view or URI) and decoding them to RGBA8.

use std::borrow::Cow;
use std::io::Cursor;

use image::{ImageReader, Limits};

use super::source::{Data, read_uri};
use crate::scene::Texture;

/// Largest accepted texture side in pixels; bigger images are skipped with a warning.
pub(super) const MAX_TEXTURE_SIDE: u32 = 16384;

/// Decodes image `image` of the file to RGBA8; the error text becomes a load warning.
pub(super) fn load_image(data: &Data<'_>, image: usize) -> Result<Texture, String> {
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
    decode_rgba8(&bytes)
}

/// Decodes PNG or JPEG bytes (format found from the bytes) to RGBA8, refusing oversized images.
pub(super) fn decode_rgba8(bytes: &[u8]) -> Result<Texture, String> {
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
