//! Blend shapes: each blend channel of a mesh's blend deformers becomes one morph target.
//!
//! A channel's target is its full-weight shape (the last of its keyframes), scaled
//! so that weight 1 is 100 % when the file reaches the shape at another percentage;
//! a channel with in-between shapes morphs linearly towards the full shape instead
//! of through them (with a warning). Shape offsets are indexed by control point;
//! every dqview vertex of a control point (the first one and the copies made at
//! seams and hard edges) gets that control point's offset. Offsets stay in the
//! control points' space; the caller moves them with the positions.
//!
//! A shape offset costs a few bytes in the file but a displacement for every
//! vertex of the primitive in memory, so the expanded displacements count
//! against [`LoadOptions::max_buffer_bytes`](crate::scene::LoadOptions).

use glam::Vec3;

use super::convert;
use crate::scene::{MorphTarget, SceneError};

/// What is left of the byte budget for expanded displacements, and what was spent.
pub(super) struct MorphBudget {
    /// Bytes that may still be allocated.
    left: u64,
    /// The whole budget.
    limit: u64,
}

impl MorphBudget {
    /// A budget of `limit` bytes.
    pub(super) fn new(limit: u64) -> Self {
        Self { left: limit, limit }
    }

    /// Takes `bytes` from the budget, or refuses the file when they do not fit.
    fn take(&mut self, bytes: u64) -> Result<(), SceneError> {
        if bytes > self.left {
            return Err(SceneError::LimitExceeded {
                what: "bytes of blend shape displacements",
                found: (self.limit - self.left).saturating_add(bytes),
                limit: self.limit,
                flag: "--max-buffer-bytes",
                field: "max_buffer_bytes",
            });
        }
        self.left -= bytes;
        Ok(())
    }
}

/// The blend channels of one mesh, in deformer then channel order.
pub(super) struct MeshBlend<'a> {
    /// One entry per morph target.
    channels: Vec<Channel<'a>>,
    /// Control points of the mesh, the range of valid shape indices.
    control_points: usize,
}

/// The morph weights of one node: which blend channels drive them, and their defaults.
pub(super) struct MorphBinding {
    /// dqview node index of the mesh instance.
    pub node: usize,
    /// Per target, the ufbx element id of its blend channel.
    pub channels: Vec<u32>,
    /// Per target, its weight when no animation drives it.
    pub defaults: Vec<f32>,
}

/// One blend channel and its full-weight shape.
struct Channel<'a> {
    /// The ufbx channel (name, weight, element id).
    channel: &'a ufbx::BlendChannel,
    /// Its full-weight shape; `None` when the channel has none.
    shape: Option<&'a ufbx::BlendShape>,
    /// 1 / the channel weight at which the shape is reached (1 unless its
    /// `FullWeights` entry says otherwise), so a morph weight of 1 is 100 %.
    scale: f32,
}

/// Reads the mesh's blend channels; `None` when it has none.
pub(super) fn load_blend<'a>(
    mesh: &'a ufbx::Mesh,
    here: &str,
    warnings: &mut Vec<String>,
) -> Option<MeshBlend<'a>> {
    let control_points = mesh.vertices.len();
    let mut channels = Vec::new();
    for deformer in &mesh.blend_deformers {
        for channel in &deformer.channels {
            let name = &channel.element.name;
            let shape = channel.target_shape.as_deref();
            match shape {
                None => warnings.push(format!(
                    "{here}: blend channel `{name}` has no shape; it morphs nothing"
                )),
                Some(shape) => check_shape(shape, control_points, here, name, warnings),
            }
            if channel.keyframes.len() > 1 {
                warnings.push(format!(
                    "{here}: blend channel `{name}` has {} in-between shapes; \
                     approximated linearly by its full-weight shape",
                    channel.keyframes.len() - 1
                ));
            }
            let full = channel
                .keyframes
                .last()
                .map_or(1.0, |k| k.target_weight as f32);
            let scale = if full.is_finite() && full.abs() > 1e-6 {
                1.0 / full
            } else {
                1.0
            };
            channels.push(Channel {
                channel,
                shape,
                scale,
            });
        }
    }
    (!channels.is_empty()).then_some(MeshBlend {
        channels,
        control_points,
    })
}

/// Warns about offsets of `shape` whose control point is out of range (they are skipped).
fn check_shape(
    shape: &ufbx::BlendShape,
    control_points: usize,
    here: &str,
    name: &str,
    warnings: &mut Vec<String>,
) {
    let bad = shape
        .offset_vertices
        .iter()
        .filter(|&&v| v as usize >= control_points)
        .count();
    if bad > 0 {
        warnings.push(format!(
            "{here}: blend channel `{name}`: {bad} shape offsets name a control point \
             past the mesh's {control_points}; skipped"
        ));
    }
}

impl MeshBlend<'_> {
    /// The default weight of each target: the channel's `DeformPercent` / 100.
    pub(super) fn default_weights(&self) -> Vec<f32> {
        self.channels
            .iter()
            .map(|c| finite_or_zero(c.channel.weight as f32))
            .collect()
    }

    /// The ufbx element id of each target's channel (its animated `DeformPercent`).
    pub(super) fn channel_ids(&self) -> Vec<u32> {
        self.channels
            .iter()
            .map(|c| c.channel.element.element_id)
            .collect()
    }

    /// The morph targets of a primitive whose vertex `i` is control point `control_points[i]`.
    ///
    /// Targets that move no vertex of the primitive are empty (they add nothing).
    pub(super) fn targets(
        &self,
        control_points: &[usize],
        budget: &mut MorphBudget,
    ) -> Result<Vec<MorphTarget>, SceneError> {
        let vertices_of = VerticesOf::new(self.control_points, control_points);
        let n = control_points.len();
        let mut targets = Vec::with_capacity(self.channels.len());
        for c in &self.channels {
            let mut target = MorphTarget {
                name: c.channel.element.name.to_string(),
                ..MorphTarget::default()
            };
            if let Some(shape) = c.shape {
                let on_primitive = |values| spread(shape, values, c.scale, &vertices_of, n);
                target.positions = on_primitive(&shape.position_offsets).collect(budget)?;
                target.normals = on_primitive(&shape.normal_offsets).collect(budget)?;
            }
            targets.push(target);
        }
        Ok(targets)
    }
}

/// `x`, or 0 when it is not finite.
fn finite_or_zero(x: f32) -> f32 {
    if x.is_finite() { x } else { 0.0 }
}

/// The primitive's vertices of each control point (compressed rows).
struct VerticesOf {
    /// Row `cp` is `vertices[start[cp]..start[cp + 1]]`.
    start: Vec<usize>,
    /// Vertex indices grouped by control point.
    vertices: Vec<usize>,
}

impl VerticesOf {
    /// Groups the vertices `0..control_points.len()` by control point (out-of-range ones are dropped).
    fn new(point_count: usize, control_points: &[usize]) -> Self {
        let mut start = vec![0usize; point_count + 1];
        for &cp in control_points {
            if let Some(s) = start.get_mut(cp + 1) {
                *s += 1;
            }
        }
        let mut total = 0;
        for s in &mut start {
            total += *s;
            *s = total;
        }
        let mut fill = start.clone();
        let mut vertices = vec![0usize; start.last().copied().unwrap_or(0)];
        for (v, &cp) in control_points.iter().enumerate() {
            if let Some(slot) = fill.get_mut(cp)
                && let Some(dst) = vertices.get_mut(*slot)
            {
                *dst = v;
                *slot += 1;
            }
        }
        Self { start, vertices }
    }

    /// The vertices of control point `cp` (none when it is out of range).
    fn of(&self, cp: usize) -> &[usize] {
        match (self.start.get(cp), self.start.get(cp + 1)) {
            (Some(&a), Some(&b)) => self.vertices.get(a..b).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// A shape's non-zero displacements on one primitive: (primitive vertices, displacement).
struct Spread<'a> {
    /// Per shape offset, the vertices of its control point and its weighted displacement.
    moves: Vec<(&'a [usize], Vec3)>,
    /// Vertices in the primitive.
    n: usize,
}

impl Spread<'_> {
    /// The per-vertex displacements (empty when no vertex moves), paid from `budget`.
    /// Repeated control points add up, as in ufbx's own evaluation.
    fn collect(self, budget: &mut MorphBudget) -> Result<Vec<Vec3>, SceneError> {
        if self.moves.is_empty() {
            return Ok(Vec::new());
        }
        budget.take((self.n as u64).saturating_mul(size_of::<Vec3>() as u64))?;
        let mut out = vec![Vec3::ZERO; self.n];
        for (vertices, delta) in self.moves {
            for &v in vertices {
                if let Some(dst) = out.get_mut(v) {
                    *dst += delta;
                }
            }
        }
        Ok(out)
    }
}

/// The displacements of a shape's per-offset `values` (positions or normals) on the
/// primitive, times `scale`; Blender's per-offset weights scale them too.
fn spread<'v>(
    shape: &ufbx::BlendShape,
    values: &[ufbx::Vec3],
    scale: f32,
    vertices_of: &'v VerticesOf,
    n: usize,
) -> Spread<'v> {
    let mut moves = Vec::new();
    if values.len() == shape.offset_vertices.len() {
        let weights = &shape.offset_weights;
        for (i, (&cp, &value)) in shape.offset_vertices.iter().zip(values).enumerate() {
            let weight = weights.get(i).map_or(1.0, |&w| finite_or_zero(w as f32));
            let delta = convert::vec3(value) * (weight * scale);
            let vertices = vertices_of.of(cp as usize);
            if delta != Vec3::ZERO && !vertices.is_empty() {
                moves.push((vertices, delta));
            }
        }
    }
    Spread { moves, n }
}
