//! Materials: base colour factor and texture of every FBX material.

use std::collections::HashMap;
use std::path::{Component, Path};

use glam::Vec4;

use super::convert;
use crate::scene::gltf_load::decode_rgba8;
use crate::scene::{LoadOptions, Material, Texture};

/// Converts every material (dqview index = ufbx material index) and decodes the textures they use.
///
/// A texture that cannot be loaded leaves its material untextured, with a warning.
pub(super) fn load_materials(
    fbx: &ufbx::Scene,
    base_dir: Option<&Path>,
    options: &LoadOptions,
    warnings: &mut Vec<String>,
) -> (Vec<Material>, Vec<Texture>) {
    let mut textures = Vec::new();
    // Keyed by file name: exporters often write one texture element per material for one image.
    let mut texture_of: HashMap<String, Option<usize>> = HashMap::new();
    let mut budget = options.max_texture_bytes;
    let materials = fbx
        .materials
        .iter()
        .enumerate()
        .map(|(i, mat)| {
            let pbr = &mat.pbr;
            let color = if pbr.base_color.has_value {
                convert::vec4(pbr.base_color.value_vec4)
            } else {
                convert::vec4(mat.fbx.diffuse_color.value_vec4)
            };
            let factor = if pbr.base_factor.has_value {
                pbr.base_factor.value_vec4.x as f32
            } else {
                1.0
            };
            let factor = if factor.is_finite() { factor } else { 1.0 };
            // Colours with fewer than four components leave alpha 0; FBX base colours are opaque.
            let rgb = (color.truncate() * factor).clamp(glam::Vec3::ZERO, glam::Vec3::ONE);
            let map = pbr
                .base_color
                .texture
                .as_ref()
                .or(mat.fbx.diffuse_color.texture.as_ref());
            let base_color_texture = map.and_then(|tex| {
                let tex = file_texture(tex);
                let key = if tex.content.is_empty() {
                    format!("{}|{}", tex.relative_filename, tex.absolute_filename)
                } else {
                    format!("embedded {}", tex.element.typed_id)
                };
                *texture_of.entry(key).or_insert_with(|| {
                    match load_texture(tex, base_dir, options, budget) {
                        Ok(t) => {
                            budget = budget.saturating_sub(t.rgba8.len() as u64);
                            textures.push(t);
                            Some(textures.len() - 1)
                        }
                        Err(e) => {
                            warnings.push(format!(
                                "material {i}: texture `{}` not loaded: {e}",
                                tex.relative_filename
                            ));
                            None
                        }
                    }
                })
            });
            Material {
                name: if mat.element.name.is_empty() {
                    format!("material {i}")
                } else {
                    mat.element.name.to_string()
                },
                base_color_factor: Vec4::from((rgb, 1.0)),
                base_color_texture,
                double_sided: false,
                alpha_mode: crate::scene::AlphaMode::Opaque,
            }
        })
        .collect();
    (materials, textures)
}

/// The first file texture of a layered or procedural texture, else the texture itself.
fn file_texture(tex: &ufbx::Texture) -> &ufbx::Texture {
    tex.file_textures.first().map_or(tex, |t| &**t)
}

/// Decodes a texture from the bytes embedded in the file, else from the file it names.
fn load_texture(
    tex: &ufbx::Texture,
    base_dir: Option<&Path>,
    options: &LoadOptions,
    budget: u64,
) -> Result<Texture, String> {
    if !tex.content.is_empty() {
        return decode_rgba8(&tex.content, options.max_texture_side, budget);
    }
    let base = base_dir.ok_or("the file was loaded from memory, so paths cannot be resolved")?;
    let relative = tex.relative_filename.replace('\\', "/");
    let name = if relative.is_empty() {
        tex.absolute_filename.replace('\\', "/")
    } else {
        relative
    };
    if name.is_empty() {
        return Err("names no file".into());
    }
    let path = Path::new(&name);
    let outside = path.is_absolute()
        || path
            .components()
            .any(|c| matches!(c, Component::ParentDir | Component::Prefix(_)));
    if outside && !options.allow_external_uris {
        return Err(
            "names a file outside the model's folder (pass --allow-external-uris to allow it)"
                .into(),
        );
    }
    let full = base.join(path);
    let bytes =
        crate::scene::read_regular_file(&full, options.max_buffer_bytes).map_err(|e| match e {
            crate::scene::FileReadError::TooLarge(_) => {
                format!("{} is larger than --max-buffer-bytes", full.display())
            }
            other => format!("{}: {other}", full.display()),
        })?;
    decode_rgba8(&bytes, options.max_texture_side, budget)
}
