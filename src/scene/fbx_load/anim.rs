//! Animation stacks as clips: ufbx bakes each stack's curves (Euler rotations,
//! pivots, layers) into linear TRS keys per node.
//!
//! Keys are resampled at the file's own frame rate, so at every frame the clip
//! holds exactly the transforms the authoring tool evaluates there; between
//! frames dqview's linear/slerp sampling stands in for FBX's curves. Key times
//! stay absolute (a take that starts at frame 20 has its first key there), so
//! the times the tools quote for a take sample the same pose in dqview.

use super::convert;
use crate::scene::{Animation, Channel, Interpolation, Property, SceneError};

/// Frame rate used to resample when the file states none (FBX's default).
const DEFAULT_FPS: f64 = 30.0;

/// Bakes every animation stack into a clip named after the stack.
pub(super) fn load_animations(
    fbx: &ufbx::Scene,
    index_of: &[Option<usize>],
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
