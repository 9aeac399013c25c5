//! Morph targets on the CPU: the reference that `morph_vertex` in `shaders/skin_compute.wgsl` mirrors.
//!
//! Displacements are added in bind space, before skinning (glTF 2.0, 3.7.2.2):
//! p' = p + sum_t w_t dp_t, and likewise for normals and tangent directions,
//! which are then renormalised. Targets are summed in file order, skipping
//! zero and non-finite weights, on the CPU and on the GPU alike.

use glam::{Vec3, Vec4};

use crate::scene::MorphTarget;

/// Bind-pose vertices after morphing; buffers are reused across frames.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MorphedVertices {
    /// Morphed positions.
    pub positions: Vec<Vec3>,
    /// Morphed unit normals (empty when the mesh has none).
    pub normals: Vec<Vec3>,
    /// Morphed tangents, handedness in w unchanged (empty when the mesh has none).
    pub tangents: Vec<Vec4>,
}

/// The weight of target `t` as applied: missing and non-finite weights count as 0.
#[must_use]
pub fn effective_weight(weights: &[f32], t: usize) -> f32 {
    weights
        .get(t)
        .copied()
        .filter(|w| w.is_finite())
        .unwrap_or(0.0)
}

/// Whether any of `targets` has a non-zero effective weight (else morphing changes nothing).
#[must_use]
pub fn has_active_morphs(targets: &[MorphTarget], weights: &[f32]) -> bool {
    (0..targets.len()).any(|t| effective_weight(weights, t) != 0.0)
}

/// Morphs bind-pose vertices by `targets` at `weights` into `out` (resized to fit).
///
/// A target's displacement list that is empty (or of the wrong length) adds
/// nothing. A normal or tangent whose morphed direction has zero length keeps
/// its bind-pose value.
pub fn morph_vertices(
    positions: &[Vec3],
    normals: &[Vec3],
    tangents: &[Vec4],
    targets: &[MorphTarget],
    weights: &[f32],
    out: &mut MorphedVertices,
) {
    let n = positions.len();
    out.positions.clear();
    out.positions.extend_from_slice(positions);
    out.normals.clear();
    out.normals.extend_from_slice(normals);
    out.tangents.clear();
    out.tangents.extend_from_slice(tangents);
    let mut tangent_dirs: Vec<Vec3> = tangents.iter().map(|t| t.truncate()).collect();
    for (t, target) in targets.iter().enumerate() {
        let w = effective_weight(weights, t);
        if w == 0.0 {
            continue;
        }
        add_scaled(&mut out.positions, &target.positions, w, n);
        add_scaled(&mut out.normals, &target.normals, w, n);
        add_scaled(&mut tangent_dirs, &target.tangents, w, n);
    }
    for (morphed, &bind) in out.normals.iter_mut().zip(normals) {
        *morphed = morphed.try_normalize().unwrap_or(bind);
    }
    for ((morphed, dir), &bind) in out.tangents.iter_mut().zip(&tangent_dirs).zip(tangents) {
        *morphed = dir.try_normalize().map_or(bind, |d| d.extend(bind.w));
    }
}

/// `values[v] += w * deltas[v]` when both have `n` entries.
fn add_scaled(values: &mut [Vec3], deltas: &[Vec3], w: f32, n: usize) {
    if values.len() != n || deltas.len() != n {
        return;
    }
    for (v, d) in values.iter_mut().zip(deltas) {
        *v += w * *d;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(dp: Vec3, dn: Vec3) -> MorphTarget {
        MorphTarget {
            positions: vec![dp; 2],
            normals: vec![dn; 2],
            ..MorphTarget::default()
        }
    }

    #[test]
    fn weighted_deltas_add_in_bind_space() {
        let targets = [target(Vec3::X, Vec3::ZERO), target(Vec3::Y, Vec3::ZERO)];
        let mut out = MorphedVertices::default();
        let base = [Vec3::ZERO, Vec3::new(1.0, 2.0, 3.0)];
        morph_vertices(&base, &[Vec3::Z; 2], &[], &targets, &[0.5, -2.0], &mut out);
        assert_eq!(out.positions[0], Vec3::new(0.5, -2.0, 0.0));
        assert_eq!(out.positions[1], Vec3::new(1.5, 0.0, 3.0));
        assert_eq!(out.normals, vec![Vec3::Z; 2]);
        assert!(out.tangents.is_empty());
    }

    #[test]
    fn normals_are_renormalised_and_degenerate_ones_kept() {
        let targets = [target(Vec3::ZERO, Vec3::new(1.0, 0.0, -1.0))];
        let mut out = MorphedVertices::default();
        let base = [Vec3::ZERO; 2];
        morph_vertices(&base, &[Vec3::Z; 2], &[], &targets, &[0.5], &mut out);
        let expected = Vec3::new(0.5, 0.0, 0.5).normalize();
        assert!(
            out.normals[0].abs_diff_eq(expected, 1e-6),
            "{}",
            out.normals[0]
        );
        // Weight 1 cancels the normal exactly: the bind normal stays.
        morph_vertices(&base, &[Vec3::Z; 2], &[], &targets, &[1.0], &mut out);
        assert_eq!(out.normals[0], Vec3::new(1.0, 0.0, 0.0));
        let cancel = [target(Vec3::ZERO, -Vec3::Z)];
        morph_vertices(&base, &[Vec3::Z; 2], &[], &cancel, &[1.0], &mut out);
        assert_eq!(out.normals[0], Vec3::Z);
    }

    #[test]
    fn tangents_keep_handedness() {
        let targets = [MorphTarget {
            tangents: vec![Vec3::Y; 1],
            ..MorphTarget::default()
        }];
        let mut out = MorphedVertices::default();
        let tangent = [Vec4::new(1.0, 0.0, 0.0, -1.0)];
        morph_vertices(&[Vec3::ZERO], &[], &tangent, &targets, &[1.0], &mut out);
        let expected = Vec3::new(1.0, 1.0, 0.0).normalize().extend(-1.0);
        assert!(out.tangents[0].abs_diff_eq(expected, 1e-6));
    }

    #[test]
    fn missing_and_non_finite_weights_do_nothing() {
        let targets = [target(Vec3::X, Vec3::ZERO), target(Vec3::Y, Vec3::ZERO)];
        assert!(!has_active_morphs(&targets, &[0.0, f32::NAN]));
        assert!(!has_active_morphs(&targets, &[]));
        assert!(has_active_morphs(&targets, &[0.0, 0.1]));
        let mut out = MorphedVertices::default();
        let base = [Vec3::ONE; 2];
        morph_vertices(&base, &[], &[], &targets, &[f32::INFINITY], &mut out);
        assert_eq!(out.positions, base.to_vec());
    }
}
