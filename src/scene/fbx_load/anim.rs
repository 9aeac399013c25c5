//! Animation stacks as clips: ufbx bakes each stack's curves (Euler rotations,
//! pivots, layers) into linear TRS keys per node.
//!
//! Keys are resampled at the file's own frame rate, so at every frame the clip
//! holds exactly the transforms the authoring tool evaluates there; between
//! frames dqview's linear/slerp sampling stands in for FBX's curves. Key times
//! stay absolute (a take that starts at frame 20 has its first key there), so
//! the times the tools quote for a take sample the same pose in dqview.
//!
//! Blend channels' `DeformPercent` curves are baked the same way and become one
//! morph weights channel per mesh instance, keyed at the union of its curves'
//! key times; channels the stack does not animate keep their default weight.

use std::collections::HashMap;

use super::blend::MorphBinding;
use super::convert;
use crate::scene::{Animation, Channel, Interpolation, Property, SceneError};

/// Frame rate used to resample when the file states none (FBX's default).
const DEFAULT_FPS: f64 = 30.0;

/// Bakes every animation stack into a clip named after the stack; `morphs` says which
/// nodes' morph weights follow which blend channels.
pub(super) fn load_animations(
    fbx: &ufbx::Scene,
    index_of: &[Option<usize>],
    morphs: &[MorphBinding],
    warnings: &mut Vec<String>,
) -> Result<Vec<Animation>, SceneError> {
    let fps = fbx.settings.frames_per_second;
    let resample_rate = if fps.is_finite() && fps > 0.0 && fps <= 1000.0 {
        fps
    } else {
        DEFAULT_FPS
    };
    let mut animations = Vec::with_capacity(fbx.anim_stacks.len());
    for (i, stack) in fbx.anim_stacks.iter().enumerate() {
        let name = if stack.element.name.is_empty() {
            format!("clip {i}")
        } else {
            stack.element.name.to_string()
        };
        let opts = ufbx::BakeOpts {
            resample_rate,
            ..Default::default()
        };
        let baked = match ufbx::bake_anim(fbx, &stack.anim, opts) {
            Ok(b) => b,
            Err(e) => {
                warnings.push(format!(
                    "animation `{name}` could not be baked ({}); skipped",
                    e.description
                ));
                continue;
            }
        };
        let mut channels = Vec::new();
        for node in &baked.nodes {
            let Some(target) = super::nodes::lookup(index_of, node.typed_id)? else {
                continue;
            };
            channels.push(channel(
                target,
                Property::Translation,
                node.translation_keys
                    .iter()
                    .map(|k| (k.time, convert::vec3(k.value).to_array().to_vec())),
            ));
            channels.push(channel(
                target,
                Property::Rotation,
                node.rotation_keys
                    .iter()
                    .map(|k| (k.time, convert::quat(k.value).to_array().to_vec())),
            ));
            channels.push(channel(
                target,
                Property::Scale,
                node.scale_keys
                    .iter()
                    .map(|k| (k.time, convert::vec3(k.value).to_array().to_vec())),
            ));
        }
        let elements: HashMap<u32, &ufbx::BakedElement> =
            baked.elements.iter().map(|e| (e.element_id, e)).collect();
        channels.extend(morphs.iter().filter_map(|m| morph_channel(m, &elements)));
        channels.retain(|c| !c.times_s.is_empty());
        animations.push(Animation { name, channels });
    }
    Ok(animations)
}

/// A linear channel from `(time in seconds, value)` keys; times that go backwards are clamped.
fn channel(
    node: usize,
    property: Property,
    keys: impl Iterator<Item = (f64, Vec<f32>)>,
) -> Channel {
    let mut times_s: Vec<f32> = Vec::new();
    let mut values = Vec::new();
    for (time, value) in keys {
        let t = time as f32;
        let t = if t.is_finite() { t } else { 0.0 };
        let t = times_s.last().map_or(t, |&prev: &f32| t.max(prev));
        times_s.push(t);
        values.extend(value);
    }
    Channel {
        node,
        property,
        interpolation: Interpolation::Linear,
        times_s,
        values,
    }
}

/// The morph weights channel of `binding`, or `None` when the clip animates none of its blend channels.
fn morph_channel(
    binding: &MorphBinding,
    elements: &HashMap<u32, &ufbx::BakedElement>,
) -> Option<Channel> {
    let curves: Vec<Option<Vec<(f64, f32)>>> = binding
        .channels
        .iter()
        .map(|id| weight_keys(elements, *id))
        .collect();
    if curves.iter().all(Option::is_none) {
        return None;
    }
    let mut times: Vec<f64> = curves
        .iter()
        .flatten()
        .flat_map(|c| c.iter().map(|k| k.0))
        .collect();
    times.sort_by(f64::total_cmp);
    times.dedup();
    let keys = times.into_iter().map(|t| {
        let weights = curves
            .iter()
            .zip(&binding.defaults)
            .map(|(curve, &default)| curve.as_deref().map_or(default, |c| weight_at(c, t)))
            .collect();
        (t, weights)
    });
    Some(channel(
        binding.node,
        Property::MorphWeights(binding.channels.len()),
        keys,
    ))
}

/// The baked `DeformPercent` keys of blend channel `id` as (time, weight), sorted by time.
fn weight_keys(elements: &HashMap<u32, &ufbx::BakedElement>, id: u32) -> Option<Vec<(f64, f32)>> {
    let prop = elements
        .get(&id)?
        .props
        .iter()
        .find(|p| p.name == "DeformPercent")?;
    let mut keys: Vec<(f64, f32)> = prop
        .keys
        .iter()
        .filter(|k| k.time.is_finite())
        .map(|k| {
            let w = (k.value.x / 100.0) as f32;
            (k.time, if w.is_finite() { w } else { 0.0 })
        })
        .collect();
    keys.sort_by(|a, b| a.0.total_cmp(&b.0));
    (!keys.is_empty()).then_some(keys)
}

/// Linear interpolation of time-sorted `keys` at `t`, held at the first and last key.
fn weight_at(keys: &[(f64, f32)], t: f64) -> f32 {
    let after = keys.partition_point(|k| k.0 <= t);
    let before = after.checked_sub(1).and_then(|i| keys.get(i));
    match (before, keys.get(after)) {
        (Some(&(t0, v0)), Some(&(t1, v1))) if t1 > t0 => {
            v0 + (v1 - v0) * ((t - t0) / (t1 - t0)) as f32
        }
        (Some(&(_, v)), _) | (None, Some(&(_, v))) => v,
        (None, None) => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::weight_at;

    #[test]
    fn weights_interpolate_between_keys_and_hold_outside() {
        let keys = [(1.0, 0.2), (2.0, 0.6), (4.0, -0.4)];
        let close = |t: f64, w: f32| {
            let got = weight_at(&keys, t);
            assert!((got - w).abs() < 1e-6, "at {t}: {got} vs {w}");
        };
        close(0.0, 0.2);
        close(1.0, 0.2);
        close(1.5, 0.4);
        close(2.0, 0.6);
        close(3.0, 0.1);
        close(4.0, -0.4);
        close(9.0, -0.4);
        assert_eq!(weight_at(&[], 1.0), 0.0);
        // Two keys at one time: the later one holds from there on.
        close_keys(&[(0.0, 0.0), (1.0, 0.5), (1.0, 1.0)], 1.0, 1.0);
    }

    fn close_keys(keys: &[(f64, f32)], t: f64, w: f32) {
        let got = weight_at(keys, t);
        assert!((got - w).abs() < 1e-6, "at {t}: {got} vs {w}");
    }
}
