//! Animations: channels with key times and flat output values, checked and sanitised.

use gltf::animation::{Interpolation as GltfInterpolation, Property as GltfProperty};
use gltf::json::animation::Channel as JsonChannel;
use gltf::json::validation::Checked;

use super::accessor::{self, Format};
use super::mesh::morph_target_count;
use super::source::Data;
use crate::scene::{Animation, Channel, DataFault, FaultKind, Interpolation, Property, SceneError};

/// Converts every animation. Channels the viewer cannot apply are dropped with a warning.
pub(super) fn load_animations(
    data: &Data<'_>,
    warnings: &mut Vec<String>,
) -> Result<Vec<Animation>, SceneError> {
    let mut animations = Vec::with_capacity(data.json.animations.len());
    for (a, anim) in data.json.animations.iter().enumerate() {
        let mut channels = Vec::with_capacity(anim.channels.len());
        for (c, channel) in anim.channels.iter().enumerate() {
            if let Some(channel) = load_channel(data, a, c, channel, warnings)? {
                channels.push(channel);
            }
        }
        animations.push(Animation {
            name: anim.name.clone().unwrap_or_else(|| format!("clip {a}")),
            channels,
        });
    }
    Ok(animations)
}

/// Converts channel `c` of animation `a`; `None` when it targets nothing the viewer has.
fn load_channel(
    data: &Data<'_>,
    a: usize,
    c: usize,
    channel: &JsonChannel,
    warnings: &mut Vec<String>,
) -> Result<Option<Channel>, SceneError> {
    let json = data.json;
    let here = format!("animation {a} channel {c}");
    let samplers = json
        .animations
        .get(a)
        .map_or(&[][..], |anim| &anim.samplers);
    let s = channel.sampler.value();
    let sampler = samplers.get(s).ok_or_else(|| SceneError::IndexOutOfRange {
        referrer: here.clone(),
        kind: "animation sampler",
        index: s,
        count: samplers.len(),
    })?;
    let node = channel.target.node.value();
    let target = json
        .nodes
        .get(node)
        .ok_or_else(|| SceneError::IndexOutOfRange {
            referrer: format!("{here} (target)"),
            kind: "node",
            index: node,
            count: json.nodes.len(),
        })?;
    let Checked::Valid(path) = channel.target.path else {
        // Extensions define other paths (KHR_animation_pointer's "pointer"); none drive node TRS.
        warnings.push(format!(
            "{here}: target path is not translation, rotation, scale or weights; dropped"
        ));
        return Ok(None);
    };
    let Checked::Valid(mode) = sampler.interpolation else {
        return Err(SceneError::UnknownEnumValue {
            referrer: format!("animation {a} sampler {s}"),
            field: "interpolation",
        });
    };
    let property = match path {
        GltfProperty::Translation => Property::Translation,
        GltfProperty::Rotation => Property::Rotation,
        GltfProperty::Scale => Property::Scale,
        GltfProperty::MorphTargetWeights => {
            let mesh = target.mesh.and_then(|m| json.meshes.get(m.value()));
            let targets = mesh.map_or(0, morph_target_count);
            if targets == 0 {
                warnings.push(format!(
                    "{here}: animates morph weights of node {node}, whose mesh has no morph targets; dropped"
                ));
                return Ok(None);
            }
            Property::MorphWeights(targets)
        }
    };
    let interpolation = match mode {
        GltfInterpolation::Linear => Interpolation::Linear,
        GltfInterpolation::Step => Interpolation::Step,
        GltfInterpolation::CubicSpline => Interpolation::CubicSpline,
    };

    let input = data.accessor(sampler.input.value(), &accessor::SCALAR_F32, &|| {
        format!("key times of {here}")
    })?;
    let mut times_s: Vec<f32> = data.read(&input)?;
    if times_s.is_empty() {
        let kind = FaultKind::SamplerWithoutKeys;
        data.fault(DataFault::new(
            kind,
            &here,
            1,
            None,
            "the channel is dropped",
        ));
        return Ok(None);
    }
    let non_finite = times_s.iter().filter(|t| !t.is_finite()).count();
    let fixed = sanitize_times(&mut times_s);
    if non_finite > 0 {
        let first = data
            .read::<f32>(&input)?
            .iter()
            .position(|t| !t.is_finite());
        let kind = FaultKind::NonFiniteKeyTimes;
        let action = "clamped to the previous key's time";
        data.fault(DataFault::new(kind, &here, non_finite, first, action));
    }
    if fixed > non_finite {
        data.count_sanitized(fixed - non_finite);
        warnings.push(format!(
            "{here}: {} key times were decreasing; clamped to the previous time",
            fixed - non_finite
        ));
    }

    let per_key = if interpolation == Interpolation::CubicSpline {
        3
    } else {
        1
    };
    let (format, elements_per_value): (&Format, usize) = match property {
        Property::Translation | Property::Scale => (&accessor::VEC3_F32, 1),
        Property::Rotation => (&accessor::ROTATIONS, 1),
        // Morph weights are stored as scalars, one per target.
        Property::MorphWeights(n) => (&accessor::MORPH_WEIGHTS, n),
    };
    let output = data.accessor(sampler.output.value(), format, &|| {
        format!("key values of {here}")
    })?;
    let expected = times_s
        .len()
        .saturating_mul(per_key)
        .saturating_mul(elements_per_value);
    if output.count != expected {
        return Err(SceneError::AnimationOutputCount {
            animation: a,
            channel: c,
            accessor: output.index,
            inputs: times_s.len(),
            outputs: output.count,
            expected,
        });
    }
    let mut values: Vec<f32> = match property {
        Property::Translation | Property::Scale => data
            .read::<[f32; 3]>(&output)?
            .into_iter()
            .flatten()
            .collect(),
        Property::Rotation => data
            .read_rotations(&output)?
            .into_iter()
            .flatten()
            .collect(),
        Property::MorphWeights(_) => data.read_morph_weights(&output)?,
    };
    let key_len = property_components(property) * per_key;
    let first = values
        .iter()
        .position(|v| !v.is_finite())
        .map(|i| i / key_len.max(1));
    let replaced = sanitize_values(&mut values, property, per_key);
    if replaced > 0 {
        let kind = FaultKind::NonFiniteKeyValues;
        let action = "replaced by the previous key's value (identity for the first key)";
        data.fault(DataFault::new(kind, &here, replaced, first, action));
    }
    if property == Property::Rotation {
        let (zero, first) = replace_zero_rotations(&mut values, per_key);
        if zero > 0 {
            let kind = FaultKind::ZeroRotationKeys;
            let action = "replaced by the previous key's rotation (identity for the first key)";
            data.fault(DataFault::new(kind, &here, zero, first, action));
        }
    }
    Ok(Some(Channel {
        node,
        property,
        interpolation,
        times_s,
        values,
    }))
}

/// Makes key times finite and non-decreasing by clamping each to the one before; returns how many changed.
fn sanitize_times(times: &mut [f32]) -> usize {
    let mut changed = 0;
    let mut previous: Option<f32> = None;
    for t in times.iter_mut() {
        let floor = previous.unwrap_or(0.0);
        if !t.is_finite() || previous.is_some_and(|p| *t < p) {
            *t = floor;
            changed += 1;
        }
        previous = Some(*t);
    }
    changed
}

/// Replaces non-finite values by the same slot of the previous key, or by identity for the first key.
///
/// Returns how many floats changed. A key is `per_key` groups (3 for cubic
/// splines: in-tangent, value, out-tangent) of the property's components.
fn sanitize_values(values: &mut [f32], property: Property, per_key: usize) -> usize {
    let components = property_components(property);
    let key_len = components * per_key;
    if key_len == 0 {
        return 0;
    }
    let mut changed = 0;
    for k in 0..values.len() {
        if values.get(k).is_some_and(|v| v.is_finite()) {
            continue;
        }
        let slot = k % key_len;
        let replacement = match k.checked_sub(key_len).and_then(|p| values.get(p)) {
            Some(&previous) => previous,
            None => identity_component(property, per_key, slot / components, slot % components),
        };
        if let Some(v) = values.get_mut(k) {
            *v = replacement;
            changed += 1;
        }
    }
    changed
}

/// Replaces rotation keys of (near) zero length by the previous key's rotation, or the
/// identity for the first; cubic-spline tangents are left alone (zero is a valid tangent).
/// Returns how many keys changed and the first.
fn replace_zero_rotations(values: &mut [f32], per_key: usize) -> (usize, Option<usize>) {
    let key_len = 4 * per_key;
    // The value group of a key: the middle one for cubic splines.
    let offset = if per_key == 3 { 4 } else { 0 };
    let mut previous = [0.0, 0.0, 0.0, 1.0];
    let (mut count, mut first) = (0, None);
    for (k, key) in values.chunks_exact_mut(key_len).enumerate() {
        let q = &mut key[offset..offset + 4];
        if q.iter().map(|c| c * c).sum::<f32>() <= 1e-12 {
            q.copy_from_slice(&previous);
            count += 1;
            first.get_or_insert(k);
        }
        previous.copy_from_slice(q);
    }
    (count, first)
}

/// Floats per value of a property.
fn property_components(property: Property) -> usize {
    match property {
        Property::Translation | Property::Scale => 3,
        Property::Rotation => 4,
        Property::MorphWeights(n) => n,
    }
}

/// The identity value of one float: tangents are 0, scale is 1, rotation is (0, 0, 0, 1).
fn identity_component(property: Property, per_key: usize, group: usize, component: usize) -> f32 {
    let is_tangent = per_key == 3 && group != 1;
    match property {
        _ if is_tangent => 0.0,
        Property::Scale => 1.0,
        Property::Rotation if component == 3 => 1.0,
        _ => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_rotation_keys_take_the_previous_rotation() {
        let half = std::f32::consts::FRAC_1_SQRT_2;
        let mut v = [0.0, 0.0, 0.0, 0.0, 0.0, half, 0.0, half, 0.0, 0.0, 0.0, 0.0];
        assert_eq!(replace_zero_rotations(&mut v, 1), (2, Some(0)));
        assert_eq!(v[..4], [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(v[8..], [0.0, half, 0.0, half]);
    }

    #[test]
    fn times_are_clamped_to_non_decreasing() {
        let mut t = [f32::NAN, 1.0, 0.5, f32::INFINITY, 2.0];
        assert_eq!(sanitize_times(&mut t), 3);
        assert_eq!(t, [0.0, 1.0, 1.0, 1.0, 2.0]);
    }

    #[test]
    fn non_finite_values_take_the_previous_key() {
        let mut v = [f32::NAN, 0.0, 0.0, 1.0, 0.5, f32::NAN, 0.0, f32::INFINITY];
        assert_eq!(sanitize_values(&mut v, Property::Rotation, 1), 3);
        assert_eq!(v, [0.0, 0.0, 0.0, 1.0, 0.5, 0.0, 0.0, 1.0]);
    }

    #[test]
    fn cubic_first_key_uses_zero_tangents_and_identity_value() {
        let mut v = [f32::NAN, 5.0, 5.0, f32::NAN, 2.0, 2.0, 0.0, f32::NAN, 0.0];
        assert_eq!(sanitize_values(&mut v, Property::Scale, 3), 3);
        // One key of 9 floats: in-tangent xyz, value xyz, out-tangent xyz.
        assert_eq!(v[0], 0.0, "in-tangent");
        assert_eq!(v[3], 1.0, "value");
        assert_eq!(v[7], 0.0, "out-tangent");
    }
}
