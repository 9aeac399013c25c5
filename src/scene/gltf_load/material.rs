//! Materials: base colour factor and texture, double-sidedness, alpha mode.

use std::collections::HashMap;

use glam::Vec4;
use gltf::json::texture::Info;
use gltf::json::validation::Checked;

use super::source::Data;
use super::texture::load_image;
use crate::scene::{AlphaMode, Material, SceneError, Texture};

/// Decoded images: image index -> slot in the texture list, or `None` when decoding failed.
#[derive(Default)]
struct Decoded {
    /// Textures in `Scene::textures` order.
    textures: Vec<Texture>,
    /// Which slot each image went to.
    by_image: HashMap<usize, Option<usize>>,
    /// RGBA8 bytes decoded so far.
    bytes: u64,
}

/// Converts every material and decodes the images their base colour textures use.
///
/// Each image is decoded once, however many materials use it. An image that
/// cannot be decoded is a warning: the material is then drawn without it.
pub(super) fn load_materials(
    data: &Data<'_>,
    warnings: &mut Vec<String>,
) -> Result<(Vec<Material>, Vec<Texture>), SceneError> {
    let mut materials = Vec::with_capacity(data.json.materials.len());
    let mut decoded = Decoded::default();
    for (i, material) in data.json.materials.iter().enumerate() {
        let pbr = &material.pbr_metallic_roughness;
        let mut factor = Vec4::from_array(pbr.base_color_factor.0);
        if !factor.is_finite() {
            let kind = crate::scene::FaultKind::NonFiniteMaterial;
            let place = format!("material {i}");
            let fault = crate::scene::DataFault::new(kind, place, 1, None, "set to white");
            data.fault(fault);
            factor = Vec4::ONE;
        }
        let base_color_texture = match &pbr.base_color_texture {
            Some(info) => base_color_texture(data, i, info, &mut decoded, warnings)?,
            None => None,
        };
        materials.push(Material {
            name: material
                .name
                .clone()
                .unwrap_or_else(|| format!("material {i}")),
            base_color_factor: factor,
            base_color_texture,
            double_sided: material.double_sided,
            alpha_mode: alpha_mode(data, i, material, warnings),
        });
    }
    Ok((materials, decoded.textures))
}

/// Material `i`'s alpha mode; an unknown mode is opaque and a bad cutoff 0.5, with a warning.
fn alpha_mode(
    data: &Data<'_>,
    i: usize,
    material: &gltf::json::Material,
    warnings: &mut Vec<String>,
) -> AlphaMode {
    use gltf::json::material::AlphaMode as Json;
    match material.alpha_mode {
        Checked::Valid(Json::Opaque) => AlphaMode::Opaque,
        Checked::Valid(Json::Blend) => AlphaMode::Blend,
        Checked::Valid(Json::Mask) => {
            let cutoff = material
                .alpha_cutoff
                .map_or(AlphaMode::DEFAULT_CUTOFF, |c| c.0);
            if cutoff.is_finite() && cutoff >= 0.0 {
                AlphaMode::Mask { cutoff }
            } else {
                data.count_sanitized(1);
                warnings.push(format!(
                    "material {i}: alphaCutoff {cutoff} is not a number >= 0; 0.5 used"
                ));
                AlphaMode::Mask {
                    cutoff: AlphaMode::DEFAULT_CUTOFF,
                }
            }
        }
        Checked::Invalid => {
            warnings.push(format!("material {i}: unknown alphaMode; drawn opaque"));
            AlphaMode::Opaque
        }
    }
}

/// The image index an `extensions.NAME.source` of `texture` names, if any.
fn extension_source(texture: &gltf::json::Texture, name: &str) -> Option<usize> {
    let source = texture
        .extensions
        .as_ref()?
        .others
        .get(name)?
        .get("source")?;
    usize::try_from(source.as_u64()?).ok()
}

/// The image a texture shows: its `EXT_texture_webp` source (WebP is decoded) over the core
/// `source` (a fallback PNG or JPEG), else the core one; `None` when it has neither.
fn image_source(texture: &gltf::json::Texture) -> Option<usize> {
    // gltf-json's stand-in for an absent `source`, which glTF allows (an extension may supply one).
    let core = Some(texture.source.value()).filter(|&s| s != u32::MAX as usize);
    extension_source(texture, "EXT_texture_webp").or(core)
}

/// Resolves material `i`'s base colour texture to a slot in the texture list, decoding its image if new.
fn base_color_texture(
    data: &Data<'_>,
    i: usize,
    info: &Info,
    decoded: &mut Decoded,
    warnings: &mut Vec<String>,
) -> Result<Option<usize>, SceneError> {
    let json = data.json;
    let t = info.index.value();
    let texture = json
        .textures
        .get(t)
        .ok_or_else(|| SceneError::IndexOutOfRange {
            referrer: format!("material {i} (baseColorTexture)"),
            kind: "texture",
            index: t,
            count: json.textures.len(),
        })?;
    let Some(image) = image_source(texture) else {
        let why = if extension_source(texture, "KHR_texture_basisu").is_some() {
            "its only image is KTX2 (KHR_texture_basisu), which dqview does not decode"
        } else {
            "it has no image source dqview reads"
        };
        warnings.push(format!(
            "texture {t}: {why}; material {i} shows its base colour factor"
        ));
        return Ok(None);
    };
    if image >= json.images.len() {
        return Err(SceneError::IndexOutOfRange {
            referrer: format!("texture {t} (source)"),
            kind: "image",
            index: image,
            count: json.images.len(),
        });
    }
    if let Some(&slot) = decoded.by_image.get(&image) {
        return Ok(slot);
    }
    let budget = data.options.max_texture_bytes.saturating_sub(decoded.bytes);
    let slot = match load_image(data, image, budget) {
        Ok(texture) => {
            decoded.bytes += texture.rgba8.len() as u64;
            decoded.textures.push(texture);
            Some(decoded.textures.len() - 1)
        }
        Err(reason) => {
            warnings.push(format!(
                "image {image}: {reason}; materials using it have no base colour texture"
            ));
            None
        }
    };
    decoded.by_image.insert(image, slot);
    Ok(slot)
}
