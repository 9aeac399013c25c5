//! The per-vertex float attributes an amend writes (`_DQS_BLEND`, `_COR_CENTER`): their names,
//! components and allowed values, and the checks of new values against them.

use super::DQS_BLEND_ATTRIBUTE;
use super::container::amend_err;
use crate::scene::SceneError;

/// The attribute `dqview cor` writes each skinned vertex's centre of rotation to (VEC3, in
/// the space of POSITION).
pub const COR_CENTER_ATTRIBUTE: &str = "_COR_CENTER";

/// A per-vertex float attribute an amend writes: its name, components and allowed values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AttributeSpec {
    /// The attribute's name in the primitive.
    pub name: &'static str,
    /// Floats per vertex: 1 (SCALAR) or 3 (VEC3).
    pub components: usize,
    /// The closed range every value must lie in; `None`: any finite value.
    pub range: Option<(f32, f32)>,
}

/// Hybrid's per-vertex blend: one value in [0, 1].
pub const DQS_BLEND_SPEC: AttributeSpec = AttributeSpec {
    name: DQS_BLEND_ATTRIBUTE,
    components: 1,
    range: Some((0.0, 1.0)),
};

/// CoR's per-vertex centre: three finite coordinates.
pub const COR_CENTER_SPEC: AttributeSpec = AttributeSpec {
    name: COR_CENTER_ATTRIBUTE,
    components: 3,
    range: None,
};

impl AttributeSpec {
    /// The glTF accessor type of its components.
    pub(super) fn accessor_type(self) -> &'static str {
        match self.components {
            1 => "SCALAR",
            2 => "VEC2",
            3 => "VEC3",
            _ => "VEC4",
        }
    }

    /// Bytes a vertex takes (little-endian f32 components).
    pub(super) fn vertex_bytes(self) -> usize {
        4 * self.components
    }
}

/// Refuses no values, a non-finite value or one outside `spec`'s range.
pub(super) fn check_values(
    here: &str,
    spec: AttributeSpec,
    values: &[f32],
) -> Result<(), SceneError> {
    if values.is_empty() {
        return Err(amend_err(format!("{here}: no vertices")));
    }
    let allowed = |x: f32| match spec.range {
        Some((lo, hi)) => (lo..=hi).contains(&x),
        None => x.is_finite(),
    };
    if let Some(bad) = values.iter().find(|x| !allowed(**x)) {
        let why = spec.range.map_or("not finite".to_string(), |(lo, hi)| {
            format!("outside {lo}..{hi}")
        });
        return Err(amend_err(format!(
            "{here}: {} value {bad} is {why}",
            spec.name
        )));
    }
    Ok(())
}

/// Per component, the smallest and largest of `values` (`components` interleaved).
pub(super) fn component_bounds(components: usize, values: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let mut min = vec![f32::INFINITY; components];
    let mut max = vec![f32::NEG_INFINITY; components];
    for vertex in values.chunks_exact(components) {
        for (c, &x) in vertex.iter().enumerate() {
            min[c] = min[c].min(x);
            max[c] = max[c].max(x);
        }
    }
    (min, max)
}
