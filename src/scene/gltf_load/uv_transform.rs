//! Which texture coordinate set a primitive's base colour texture reads, and its
//! `KHR_texture_transform`, baked into the coordinates at load.
//!
//! dqview draws one texture per material, so each primitive's coordinates can
//! carry that texture's transform exactly; the shaders need no change.

use glam::Vec2;
use gltf::json::Root;

/// The set and transform of material `material`'s base colour texture.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct UvSource {
    /// TEXCOORD_n index (the transform's `texCoord` overrides the texture info's).
    pub set: u32,
    /// (offset, rotation in radians, scale), when the texture has a transform.
    pub transform: Option<([f32; 2], f32, [f32; 2])>,
}

impl UvSource {
    /// The source for a primitive with material `material` (set 0, no transform without a texture).
    pub fn of(json: &Root, material: Option<usize>) -> Self {
        let info = material
            .and_then(|m| json.materials.get(m))
            .and_then(|m| m.pbr_metallic_roughness.base_color_texture.as_ref());
        let Some(info) = info else {
            return Self {
                set: 0,
                transform: None,
            };
        };
        let ext = info
            .extensions
            .as_ref()
            .and_then(|e| e.texture_transform.as_ref());
        Self {
            set: ext.and_then(|t| t.tex_coord).unwrap_or(info.tex_coord),
            transform: ext.map(|t| (t.offset.0, t.rotation.0, t.scale.0)),
        }
    }
}

/// Applies a texture transform to every coordinate: T * R * S as KHR_texture_transform defines.
///
/// Returns false (coordinates untouched) when the transform has a non-finite number.
pub(super) fn apply_transform(
    uvs: &mut [Vec2],
    (offset, rotation, scale): ([f32; 2], f32, [f32; 2]),
) -> bool {
    if !(offset.iter().chain(&scale).all(|x| x.is_finite()) && rotation.is_finite()) {
        return false;
    }
    let (sin, cos) = rotation.sin_cos();
    for uv in uvs {
        let (u, v) = (uv.x * scale[0], uv.y * scale[1]);
        // The spec's rotation matrix [[cos, sin], [-sin, cos]] turns the image clockwise.
        *uv = Vec2::new(
            cos * u + sin * v + offset[0],
            -sin * u + cos * v + offset[1],
        );
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transform_matches_the_extension_samples() {
        // KHR_texture_transform's README: rotation 90 degrees maps (1, 0) to (0, -1).
        let mut uvs = [Vec2::new(1.0, 0.0), Vec2::new(0.0, 1.0)];
        assert!(apply_transform(
            &mut uvs,
            ([0.0; 2], std::f32::consts::FRAC_PI_2, [1.0; 2])
        ));
        assert!(uvs[0].abs_diff_eq(Vec2::new(0.0, -1.0), 1e-6), "{}", uvs[0]);
        assert!(uvs[1].abs_diff_eq(Vec2::new(1.0, 0.0), 1e-6), "{}", uvs[1]);
        // Scale first, then offset.
        let mut uvs = [Vec2::new(0.5, 0.5)];
        assert!(apply_transform(&mut uvs, ([0.25, -0.5], 0.0, [2.0, 4.0])));
        assert_eq!(uvs[0], Vec2::new(1.25, 1.5));
        assert!(!apply_transform(&mut uvs, ([f32::NAN, 0.0], 0.0, [1.0; 2])));
        assert_eq!(uvs[0], Vec2::new(1.25, 1.5));
    }
}
