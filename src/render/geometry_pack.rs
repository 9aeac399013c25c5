//! Packing one primitive into the geometry's words: vertex records, influences, morph
//! deltas (see `shaders/geometry.wgsl` for the layouts), and edge lists.

use glam::{Vec2, Vec3, Vec4};

use super::geometry::GeometrySource;
use super::gpu_data::{ABSENT, GpuGeometryParams, pack_color};
use crate::influences::Influences;
use crate::scene::MorphTarget;

/// The geometry's parameters for `source`: record layout, influence words, morph count.
pub(super) fn params_of(source: &GeometrySource<'_>) -> GpuGeometryParams {
    let n = source.positions.len();
    let mut words = 6;
    let mut at = |present: bool, size: u32| {
        if present {
            words += size;
            words - size
        } else {
            ABSENT
        }
    };
    let uv_at = at(source.uvs.is_some_and(|u| u.len() == n), 2);
    let color_at = at(source.colors.is_some_and(|c| c.len() == n), 2);
    let tangent_at = at(!source.tangents.is_empty(), 4);
    let influence_words = match source.influences {
        None => 0,
        Some(inf) if inf.max_influences() > 4 => 12,
        Some(_) => 6,
    };
    GpuGeometryParams {
        vertex_count: n as u32,
        record_words: words,
        uv_at,
        color_at,
        tangent_at,
        influence_words,
        morph_count: source.morph_targets.len() as u32,
        ..GpuGeometryParams::default()
    }
}

/// Appends vertex `v`'s record: position, normal, then the optional parts `params` places.
pub(super) fn push_record(
    source: &GeometrySource<'_>,
    params: &GpuGeometryParams,
    v: usize,
    out: &mut Vec<u32>,
) {
    let f = |x: f32| x.to_bits();
    let p = source.positions[v];
    let normal = source.normals.get(v).copied().unwrap_or(Vec3::Y);
    out.extend([p.x, p.y, p.z, normal.x, normal.y, normal.z].map(f));
    if params.uv_at != ABSENT {
        let uv = source
            .uvs
            .and_then(|u| u.get(v))
            .copied()
            .unwrap_or(Vec2::ZERO);
        out.extend([uv.x, uv.y].map(f));
    }
    if params.color_at != ABSENT {
        let c = source
            .colors
            .and_then(|c| c.get(v))
            .copied()
            .unwrap_or(Vec4::ONE);
        out.extend(pack_color(c));
    }
    if params.tangent_at != ABSENT {
        let t = source
            .tangents
            .get(v)
            .copied()
            .unwrap_or(Vec4::new(1.0, 0.0, 0.0, 1.0));
        out.extend(t.to_array().map(f));
    }
}

/// Appends vertex `v`'s influences: joints as u16 pairs, then weights, heaviest first,
/// renormalised over the ones kept (as `Influences::to_fixed_sets`); a vertex with none gets zero weights.
pub(super) fn push_influences(influences: &Influences, v: usize, words: u32, out: &mut Vec<u32>) {
    let slots = if words == 12 { 8 } else { 4 };
    let row = influences.of(v);
    let kept = &row[..row.len().min(slots)];
    let sum: f32 = kept.iter().map(|i| i.weight).sum();
    let scale = if sum > 0.0 { 1.0 / sum } else { 0.0 };
    let joint = |k: usize| kept.get(k).map_or(0, |i| u32::from(i.joint));
    for k in (0..slots).step_by(2) {
        out.push(joint(k) | (joint(k + 1) << 16));
    }
    for k in 0..slots {
        out.push(kept.get(k).map_or(0.0, |i| i.weight * scale).to_bits());
    }
}

/// Appends item `i` of the target-major deltas: target `i / n`, vertex `i % n`, three `vec4`s.
///
/// Delta lists of the wrong length add nothing, as in `morph_vertices`.
pub(super) fn push_morph_delta(targets: &[MorphTarget], n: usize, i: usize, out: &mut Vec<u32>) {
    let (t, v) = (i / n.max(1), i % n.max(1));
    let target = targets.get(t);
    for list in [
        target.map(|t| &t.positions),
        target.map(|t| &t.normals),
        target.map(|t| &t.tangents),
    ] {
        let d = list
            .filter(|l| l.len() == n)
            .and_then(|l| l.get(v))
            .copied()
            .unwrap_or(Vec3::ZERO);
        out.extend([d.x, d.y, d.z, 0.0].map(f32::to_bits));
    }
}

/// Unique undirected edges of a triangle list, as a line-list index buffer; bad indices are skipped.
#[must_use]
pub fn edges_of(indices: &[u32], vertex_count: usize) -> Vec<u32> {
    let mut edges: Vec<(u32, u32)> = indices
        .chunks_exact(3)
        .flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])])
        .filter(|&(a, b)| a != b && (a as usize) < vertex_count && (b as usize) < vertex_count)
        .map(|(a, b)| (a.min(b), a.max(b)))
        .collect();
    edges.sort_unstable();
    edges.dedup();
    edges.into_iter().flat_map(|(a, b)| [a, b]).collect()
}

/// One primitive's Direct Delta Mush pairs as `shaders/geometry.wgsl`'s `vertex_ddm`: the
/// `n + 1` pair offsets of its `n` vertices, then each pair's joint and Omega's 10 entries.
/// `vertex_of[v]` is vertex `v`'s welded vertex in `ddm`; one past it gets no pairs (LBS).
#[must_use]
pub fn ddm_words(ddm: &crate::skin::ddm::MeshDdm, vertex_of: &[u32]) -> Vec<u32> {
    let n = vertex_of.len();
    let pairs: usize = vertex_of
        .iter()
        .map(|&w| ddm.weights.of(w as usize).0.len())
        .sum();
    let mut words = Vec::with_capacity(n + 1 + pairs * super::gpu_data::DDM_PAIR_WORDS);
    let mut at = 0u32;
    words.push(0);
    for &w in vertex_of {
        at += ddm.weights.of(w as usize).0.len() as u32;
        words.push(at);
    }
    for &w in vertex_of {
        let (joints, omega) = ddm.weights.of(w as usize);
        for (&j, o) in joints.iter().zip(omega) {
            words.push(u32::from(j));
            words.extend(o.iter().map(|x| x.to_bits()));
        }
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_are_unique_and_bounded() {
        // Two triangles sharing an edge: 5 unique edges.
        let e = edges_of(&[0, 1, 2, 2, 1, 3, 0, 0, 9], 4);
        assert_eq!(e.len(), 10);
        assert_eq!(&e[..2], &[0, 1]);
        assert!(e.iter().all(|&i| i < 4));
    }

    #[test]
    fn records_place_only_what_the_primitive_has() {
        let positions = [Vec3::new(1.0, 2.0, 3.0)];
        let uvs = [Vec2::new(0.25, 0.5)];
        let colors = [Vec4::new(1.0, 0.0, 128.0 / 255.0, 0.2)];
        let source = GeometrySource {
            positions: &positions,
            uvs: Some(&uvs),
            colors: Some(&colors),
            ..GeometrySource::default()
        };
        let params = params_of(&source);
        assert_eq!(
            (params.uv_at, params.color_at, params.tangent_at),
            (6, 8, ABSENT)
        );
        assert_eq!(params.record_words, 10);
        assert_eq!(params.influence_words, 0, "no influences: rigid");
        let mut out = Vec::new();
        push_record(&source, &params, 0, &mut out);
        assert_eq!(f32::from_bits(out[2]), 3.0);
        assert_eq!(f32::from_bits(out[4]), 1.0, "missing normal is +Y");
        assert_eq!(f32::from_bits(out[7]), 0.5);
        // unorm16: 8-bit values survive exactly (x 257), x and z in the low halves.
        assert_eq!(out[8], 65535, "r 1, g 0");
        assert_eq!(out[9] & 0xffff, 128 * 257);
        assert_eq!(out[9] >> 16, 13107, "a 0.2");
    }

    #[test]
    fn influences_keep_the_heaviest_and_renormalise() {
        let rows = Influences::from_rows([
            vec![(3u16, 0.5f32), (7, 0.3), (1, 0.2)],
            (0..6u16).map(|j| (j, 1.0 + f32::from(j))).collect(),
            vec![],
        ]);
        let mut four = Vec::new();
        push_influences(&rows, 0, 6, &mut four);
        assert_eq!(four[0], 3 | (7 << 16));
        assert_eq!(four[1], 1, "joint 1 then padding joint 0");
        let w: Vec<f32> = four[2..6].iter().map(|&b| f32::from_bits(b)).collect();
        assert!((w[0] - 0.5).abs() < 1e-6 && w[3] == 0.0, "{w:?}");
        // Six influences kept to four: the heaviest (5, 4, 3, 2), summing to 1.
        let mut kept = Vec::new();
        push_influences(&rows, 1, 6, &mut kept);
        assert_eq!(kept[0], 5 | (4 << 16));
        let sum: f32 = kept[2..6].iter().map(|&b| f32::from_bits(b)).sum();
        assert!((sum - 1.0).abs() < 1e-6, "{sum}");
        let mut eight = Vec::new();
        push_influences(&rows, 1, 12, &mut eight);
        assert_eq!(eight.len(), 12);
        assert_eq!(
            eight[2], 1,
            "joints 1 and 0 (low half first) in the third word"
        );
        let mut none = Vec::new();
        push_influences(&rows, 2, 6, &mut none);
        assert!(
            none[2..].iter().all(|&b| b == 0),
            "no influence: zero weights"
        );
    }

    #[test]
    fn morph_deltas_are_target_major() {
        let targets = [
            MorphTarget {
                positions: vec![Vec3::X, Vec3::Y],
                ..MorphTarget::default()
            },
            MorphTarget {
                normals: vec![Vec3::Z, Vec3::Z],
                positions: vec![Vec3::ONE],
                ..MorphTarget::default()
            },
        ];
        let mut out = Vec::new();
        push_morph_delta(&targets, 2, 1, &mut out);
        assert_eq!(f32::from_bits(out[1]), 1.0, "target 0 vertex 1 moves +Y");
        out.clear();
        push_morph_delta(&targets, 2, 3, &mut out);
        assert_eq!(
            f32::from_bits(out[0]),
            0.0,
            "a list of the wrong length adds nothing"
        );
        assert_eq!(f32::from_bits(out[6]), 1.0, "target 1's normal delta");
    }
}
