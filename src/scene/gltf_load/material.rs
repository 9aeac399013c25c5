//! Materials: base colour factor and texture, double-sidedness.

use std::collections::HashMap;

use glam::Vec4;

use super::source::Data;
use super::texture::load_image;
use crate::scene::{Material, SceneError, Texture};

/// Converts every material and decodes the images their base colour textures use.
///
/// Each image is decoded once, however many materials use it. An image that
/// cannot be decoded is a warning: the material is then drawn without it.
pub(super) fn load_materials(
    data: &Data<'_>,
    warnings: &mut Vec<String>,
) -> Result<(Vec<Material>, Vec<Texture>), SceneError> {
    let json = data.json;
    let mut materials = Vec::with_capacity(json.materials.len());
    let mut textures = Vec::new();
    // Image index -> slot in `textures`, or None when decoding failed.
    let mut decoded: HashMap<usize, Option<usize>> = HashMap::new();
    for (i, material) in json.materials.iter().enumerate() {
        let pbr = &material.pbr_metallic_roughness;
        let mut factor = Vec4::from_array(pbr.base_color_factor.0);
        if !factor.is_finite() {
            warnings.push(format!(
                "material {i}: non-finite base colour factor; set to white"
            ));
            factor = Vec4::ONE;
        }
        let base_color_texture = match &pbr.base_color_texture {
            None => None,
            Some(info) => {
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
                let image = texture.source.value();
                if image >= json.images.len() {
                    return Err(SceneError::IndexOutOfRange {
                        referrer: format!("texture {t} (source)"),
                        kind: "image",
                        index: image,
                        count: json.images.len(),
                    });
                }
                if info.tex_coord != 0 {
                    warnings.push(format!(
                        "material {i}: base colour texture uses TEXCOORD_{}; dqview reads TEXCOORD_0",
                        info.tex_coord
                    ));
                }
                *decoded.entry(image).or_insert_with(|| match load_image(data, image) {
                    Ok(texture) => {
                        textures.push(texture);
                        Some(textures.len() - 1)
                    }
                    Err(reason) => {
                        warnings.push(format!(
                            "image {image}: {reason}; materials using it have no base colour texture"
                        ));
                        None
                    }
                })
            }
        };
        materials.push(Material {
            name: material
                .name
                .clone()
                .unwrap_or_else(|| format!("material {i}")),
            base_color_factor: factor,
            base_color_texture,
            double_sided: material.double_sided,
        });
    }
    Ok((materials, textures))
}
