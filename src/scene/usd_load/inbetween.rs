//! UsdSkel inbetween shapes: a `BlendShape`'s `inbetweens:NAME` offsets at their `weight`
//! metadata, applied as `UsdSkelBlendShapeQuery::ComputeSubShapeWeights` does.
//!
//! A blend shape's sub-shapes are the rest shape at weight 0, the primary `offsets` at 1 and
//! each inbetween at its weight, sorted. A weight `w` blends the two sub-shapes around it
//! linearly (beyond the ends, the two nearest are extrapolated), so the shape is piecewise
//! linear in `w`. dqview's morph targets are linear, so each sub-shape is a target of its own
//! and the animation's weight becomes the sub-shapes' weights, keyed at the animation's samples
//! and wherever a weight crosses a sub-shape's: between those keys both are linear in time, so
//! the pose is UsdSkel's at every time, not only at the samples.

use super::source::UsdStage;
use glam::Vec3;

use super::read;
use crate::scene::SceneError;

/// Prefix of an inbetween's attribute name.
const PREFIX: &str = "inbetweens:";

/// One inbetween shape of a blend shape: its name, weight and offsets (one per point).
pub(super) struct Inbetween {
    /// `NAME` of `inbetweens:NAME`.
    pub name: String,
    /// The `weight` metadata.
    pub weight: f32,
    /// Offsets over the blend shape's `pointIndices`, as authored.
    pub offsets: Vec<Vec3>,
    /// `inbetweens:NAME:normalOffsets`, as authored (empty when none).
    pub normal_offsets: Vec<Vec3>,
}

/// The inbetweens of BlendShape `target`; one without a usable weight (unauthored, not finite,
/// 0 or 1, where the rest and primary shapes are) is skipped with a warning.
pub(super) fn read_inbetweens(
    stage: &UsdStage,
    target: &str,
    warnings: &mut Vec<String>,
) -> Result<Vec<Inbetween>, SceneError> {
    let names = stage.property_names(target)?;
    let mut out = Vec::new();
    for property in &names {
        let property = property.as_str();
        let Some(name) = property.strip_prefix(PREFIX) else {
            continue;
        };
        if name.contains(':') {
            // `inbetweens:NAME:normalOffsets`, read with its inbetween.
            continue;
        }
        let weight = read::number(read::metadata(stage, target, property, "weight")?)
            .map(|w| w as f32)
            .filter(|w| w.is_finite() && *w != 0.0 && *w != 1.0);
        let Some(weight) = weight else {
            warnings.push(format!(
                "BlendShape {target}: inbetween {name} has no weight other than 0 or 1; not applied"
            ));
            continue;
        };
        out.push(Inbetween {
            name: name.to_owned(),
            weight,
            offsets: read::vec3s(read::value(stage, target, property)?),
            normal_offsets: read::vec3s(read::value(
                stage,
                target,
                &format!("{property}:normalOffsets"),
            )?),
        });
    }
    Ok(out)
}

/// A blend shape's sub-shapes: (weight, morph target, `None` for the rest shape), by weight.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct SubShapes(Vec<(f32, Option<usize>)>);

impl SubShapes {
    /// The rest shape at 0, the primary target `primary` at 1 and each (weight, target).
    pub fn new(primary: usize, inbetweens: impl IntoIterator<Item = (f32, usize)>) -> Self {
        let mut subs = vec![(0.0, None), (1.0, Some(primary))];
        subs.extend(inbetweens.into_iter().map(|(w, t)| (w, Some(t))));
        subs.sort_by(|a, b| a.0.total_cmp(&b.0));
        Self(subs)
    }

    /// Whether the shape has inbetweens (only then is it not linear in its weight).
    fn has_inbetweens(&self) -> bool {
        self.0.len() > 2
    }

    /// Adds the sub-shape weights of shape weight `w` into `out` (indexed by morph target).
    pub fn add_weights(&self, w: f32, out: &mut [f32]) {
        let subs = &self.0;
        // UsdSkel: the first sub-shape heavier than `w`, the last two or first two beyond the ends.
        let upper = subs.partition_point(|s| s.0 <= w).clamp(1, subs.len() - 1);
        let (lower, upper) = (subs[upper - 1], subs[upper]);
        let alpha = (w - lower.0) / (upper.0 - lower.0);
        for (target, weight) in [(lower.1, 1.0 - alpha), (upper.1, alpha)] {
            if let Some(slot) = target.and_then(|t| out.get_mut(t)) {
                *slot += weight;
            }
        }
    }
}

/// The morph weights of every target at each key: the blend shapes' weights (`weights[k][s]`
/// for shape `s` at `codes[k]`) through their sub-shapes, with extra keys where a weight
/// crosses a sub-shape's weight. Returns the key codes and `targets` weights per key.
pub(super) fn sub_shape_keys(
    shapes: &[SubShapes],
    codes: &[f64],
    weights: &[Vec<f32>],
    targets: usize,
) -> (Vec<f64>, Vec<f32>) {
    let mut times: Vec<f64> = codes.to_vec();
    for k in 1..codes.len().min(weights.len()) {
        let (c0, c1) = (codes[k - 1], codes[k]);
        for (s, shape) in shapes
            .iter()
            .enumerate()
            .filter(|(_, s)| s.has_inbetweens())
        {
            let (w0, w1) = (weights[k - 1][s], weights[k][s]);
            for &(b, _) in &shape.0 {
                if (b > w0.min(w1)) && (b < w0.max(w1)) {
                    let f = f64::from((b - w0) / (w1 - w0));
                    times.push(c0 + f * (c1 - c0));
                }
            }
        }
    }
    times.sort_by(f64::total_cmp);
    times.dedup();
    let mut values = Vec::with_capacity(times.len() * targets);
    let mut row = vec![0.0; targets];
    for &t in &times {
        row.iter_mut().for_each(|w| *w = 0.0);
        for (s, shape) in shapes.iter().enumerate() {
            shape.add_weights(weight_at(codes, weights, s, t), &mut row);
        }
        values.extend_from_slice(&row);
    }
    (times, values)
}

/// Shape `s`'s weight at time code `t`: linear between the keys, held before and after.
fn weight_at(codes: &[f64], weights: &[Vec<f32>], s: usize, t: f64) -> f32 {
    let w = |k: usize| {
        weights
            .get(k)
            .and_then(|r| r.get(s))
            .copied()
            .unwrap_or(0.0)
    };
    let next = codes.partition_point(|&c| c <= t);
    if next == 0 {
        return w(0);
    }
    if next >= codes.len() {
        return w(codes.len() - 1);
    }
    let (c0, c1) = (codes[next - 1], codes[next]);
    let f = if c1 > c0 {
        ((t - c0) / (c1 - c0)) as f32
    } else {
        0.0
    };
    w(next - 1) + f * (w(next) - w(next - 1))
}

#[cfg(test)]
mod tests {
    use super::{SubShapes, sub_shape_keys};

    #[test]
    fn sub_shape_weights_are_piecewise_linear() {
        // Primary target 0, an inbetween (target 1) at 0.5.
        let shape = SubShapes::new(0, [(0.5, 1)]);
        let at = |w: f32| {
            let mut out = [0.0; 2];
            shape.add_weights(w, &mut out);
            out
        };
        assert_eq!(at(0.25), [0.0, 0.5]);
        assert_eq!(at(0.5), [0.0, 1.0]);
        assert_eq!(at(0.75), [0.5, 0.5]);
        assert_eq!(at(1.0), [1.0, 0.0]);
        // Beyond the ends: the two nearest sub-shapes extrapolated.
        assert_eq!(at(1.5), [2.0, -1.0]);
        assert_eq!(at(-0.5), [0.0, -1.0]);
        // Without inbetweens the target weight is the shape's.
        let plain = SubShapes::new(0, []);
        let mut out = [0.0];
        plain.add_weights(1.25, &mut out);
        assert_eq!(out, [1.25]);
    }

    #[test]
    fn keys_are_added_where_a_weight_crosses_an_inbetween() {
        let shapes = [SubShapes::new(0, [(0.5, 1)])];
        let (codes, values) = sub_shape_keys(&shapes, &[0.0, 10.0], &[vec![0.0], vec![1.0]], 2);
        assert_eq!(codes, [0.0, 5.0, 10.0]);
        assert_eq!(values, [0.0, 0.0, 0.0, 1.0, 1.0, 0.0]);
    }
}
