//! The range of finite numbers dqview accepts from a file, checked once after every loader.
//!
//! Loaders replace non-finite numbers; a finite but huge one (an inverse bind matrix entry of
//! 1e30, a key time of 3e38 s, a vertex at 1e20) would skin to positions whose squared lengths
//! and triangle volumes overflow f32, and every measure built on them would print NaN or
//! infinity. Such a file is refused with the value named instead. The limits are far beyond
//! any character (a 2 m rig in millimetres reaches 2e3, a scene a kilometre wide in
//! centimetres 1e5) and low enough that a triple product of skinned positions stays finite.

use glam::Mat4;

use crate::scene::{NodeTransform, Property, Scene, SceneError};

/// Largest magnitude of a length or matrix entry: positions, morph offsets, node transforms,
/// inverse bind matrices and key values. Skinned positions then stay near 1e12 at most, whose
/// cubes (triangle volumes) still fit an f32.
pub const MAX_MAGNITUDE: f32 = 1e6;

/// Largest key time magnitude in seconds (about 28 hours): below it an f32 time still resolves 1/128 s.
pub const MAX_KEY_TIME_S: f32 = 1e5;

/// Why [`MAX_MAGNITUDE`] is there, as the error says it.
const MAGNITUDE_REASON: &str = "the range dqview can skin and measure in f32";
/// Why [`MAX_KEY_TIME_S`] is there.
const TIME_REASON: &str = "past which f32 seconds cannot tell frames apart";

/// Refuses a scene holding a finite value beyond [`MAX_MAGNITUDE`] or a key time beyond
/// [`MAX_KEY_TIME_S`]; the error names the first such value and where it is.
///
/// Every loader calls it on the scene it built (non-finite values are the loader's to replace).
pub fn check_ranges(scene: &Scene) -> Result<(), SceneError> {
    check_nodes(scene)?;
    check_meshes(scene)?;
    check_skins(scene)?;
    check_animations(scene)
}

/// The first value of `values` whose magnitude is above `limit` (NaN is not: loaders replace it).
fn beyond(values: impl IntoIterator<Item = f32>, limit: f32) -> Option<f32> {
    values.into_iter().find(|v| v.abs() > limit)
}

/// The error for a length or matrix entry `value` found in `what`.
fn magnitude_error(what: String, quantity: &'static str, value: f32) -> SceneError {
    SceneError::ValueOutOfRange {
        what,
        quantity,
        value,
        limit: MAX_MAGNITUDE,
        unit: "",
        reason: MAGNITUDE_REASON,
    }
}

/// Node transforms: translation, rotation and scale, or every matrix entry.
fn check_nodes(scene: &Scene) -> Result<(), SceneError> {
    for (n, node) in scene.nodes.iter().enumerate() {
        let values: Vec<f32> = match &node.transform {
            NodeTransform::Trs(t) => t
                .translation
                .to_array()
                .into_iter()
                .chain(t.rotation.to_array())
                .chain(t.scale.to_array())
                .collect(),
            NodeTransform::Matrix(m) => m.to_cols_array().to_vec(),
        };
        if let Some(v) = beyond(values, MAX_MAGNITUDE) {
            let what = format!("the transform of node {n} (`{}`)", node.name);
            return Err(magnitude_error(what, "an entry", v));
        }
    }
    Ok(())
}

/// Vertex positions and morph target position offsets.
fn check_meshes(scene: &Scene) -> Result<(), SceneError> {
    for (m, mesh) in scene.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            let flat = prim.positions.iter().flat_map(|v| v.to_array());
            if let Some(v) = beyond(flat, MAX_MAGNITUDE) {
                let what = format!("a vertex of mesh {m} (`{}`) primitive {p}", mesh.name);
                return Err(magnitude_error(what, "a coordinate", v));
            }
            for (t, target) in prim.morph_targets.iter().enumerate() {
                let flat = target.positions.iter().flat_map(|v| v.to_array());
                if let Some(v) = beyond(flat, MAX_MAGNITUDE) {
                    let what = format!("morph target {t} of mesh {m} primitive {p}");
                    return Err(magnitude_error(what, "an offset", v));
                }
            }
        }
    }
    Ok(())
}

/// Inverse bind matrix entries.
fn check_skins(scene: &Scene) -> Result<(), SceneError> {
    for (s, skin) in scene.skins.iter().enumerate() {
        for (j, m) in skin.inverse_bind.iter().enumerate() {
            if let Some(v) = beyond(Mat4::to_cols_array(m), MAX_MAGNITUDE) {
                let node = skin.joints.get(j).and_then(|&n| scene.nodes.get(n));
                let name = node.map_or_else(String::new, |n| format!("`{}`, ", n.name));
                let what = format!("the inverse bind matrix of joint {j} ({name}skin {s})");
                return Err(magnitude_error(what, "an entry", v));
            }
        }
    }
    Ok(())
}

/// Key times and key values of every channel.
fn check_animations(scene: &Scene) -> Result<(), SceneError> {
    for (a, anim) in scene.animations.iter().enumerate() {
        for (c, channel) in anim.channels.iter().enumerate() {
            let here = || format!("animation {a} (`{}`) channel {c}", anim.name);
            if let Some(t) = beyond(channel.times_s.iter().copied(), MAX_KEY_TIME_S) {
                return Err(SceneError::ValueOutOfRange {
                    what: here(),
                    quantity: "a key time",
                    value: t,
                    limit: MAX_KEY_TIME_S,
                    unit: " s",
                    reason: TIME_REASON,
                });
            }
            if let Some(v) = beyond(channel.values.iter().copied(), MAX_MAGNITUDE) {
                let quantity = match channel.property {
                    Property::Translation => "a translation key",
                    Property::Rotation => "a rotation key",
                    Property::Scale => "a scale key",
                    Property::MorphWeights(_) => "a morph weight key",
                };
                return Err(magnitude_error(here(), quantity, v));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Animation, Channel, Interpolation, Node, Skin};

    fn scene_with(ibm: Mat4, time: f32) -> Scene {
        Scene {
            nodes: vec![Node {
                name: "hips".into(),
                ..Node::default()
            }],
            skins: vec![Skin {
                joints: vec![0],
                inverse_bind: vec![ibm],
                ..Skin::default()
            }],
            animations: vec![Animation {
                name: "walk".into(),
                channels: vec![Channel {
                    node: 0,
                    property: Property::Translation,
                    interpolation: Interpolation::Linear,
                    times_s: vec![0.0, time],
                    values: vec![0.0; 6],
                }],
            }],
            ..Scene::default()
        }
    }

    #[test]
    fn values_at_the_limits_load_and_beyond_them_are_named() {
        let at_limit = Mat4::from_translation(glam::Vec3::splat(MAX_MAGNITUDE));
        assert!(check_ranges(&scene_with(at_limit, MAX_KEY_TIME_S)).is_ok());
        let huge = Mat4::from_scale(glam::Vec3::splat(1e30));
        let err = check_ranges(&scene_with(huge, 1.0))
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "the inverse bind matrix of joint 0 (`hips`, skin 0) has an entry 1e30: beyond ±1e6, \
             the range dqview can skin and measure in f32; the file is refused"
        );
        let err = check_ranges(&scene_with(Mat4::IDENTITY, 3e38))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("animation 0 (`walk`) channel 0 has a key time 3e38 s: beyond ±1e5 s"),
            "{err}"
        );
        let err = check_ranges(&scene_with(Mat4::IDENTITY, -2e5))
            .unwrap_err()
            .to_string();
        assert!(err.contains("key time -2e5 s"), "{err}");
    }
}
