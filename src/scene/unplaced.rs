//! Vertices whose file position is not finite: drawn nowhere and measured nowhere.
//!
//! Such a vertex has no place, so moving it to the origin (or anywhere) would invent geometry.
//! Every element that uses one is dropped, which keeps it out of what is drawn and out of the
//! area, volume and CoR measures; its slot stays (files are written back per vertex) and holds
//! a twin of the nearest used finite vertex, so no bound or per-vertex extreme sees it either.

use glam::Vec3;

use super::{DataFault, FaultKind, Primitive};

/// The vertices of `positions` with a NaN or infinite coordinate, ascending.
#[must_use]
pub(crate) fn non_finite_vertices(positions: &[Vec3]) -> Vec<u32> {
    (0..positions.len() as u32)
        .filter(|&v| !positions[v as usize].is_finite())
        .collect()
}

/// Removes every element (`arity` indices each) of `indices` that uses a vertex of `bad`
/// (ascending); returns how many were removed.
pub(crate) fn drop_elements_using(indices: &mut Vec<u32>, arity: usize, bad: &[u32]) -> usize {
    if bad.is_empty() || arity == 0 {
        return 0;
    }
    let is_bad = |v: &u32| bad.binary_search(v).is_ok();
    let kept: Vec<u32> = indices
        .chunks(arity)
        .filter(|e| e.len() == arity && !e.iter().any(is_bad))
        .flatten()
        .copied()
        .collect();
    let dropped = (indices.len() - kept.len()) / arity;
    *indices = kept;
    dropped
}

/// Gives each vertex of `bad` (ascending) every attribute of the nearest vertex (by index)
/// that is finite and used by an element; with none, the bad positions become the origin and
/// nothing else changes (no element uses them). Returns the twin pairs `(bad, source)`.
pub(crate) fn twin_unplaced(prim: &mut Primitive, bad: &[u32]) -> Vec<(u32, u32)> {
    let mut used = vec![false; prim.positions.len()];
    for &i in &prim.indices {
        if let Some(u) = used.get_mut(i as usize) {
            *u = true;
        }
    }
    let sources: Vec<u32> = (0..used.len() as u32)
        .filter(|&v| used[v as usize] && bad.binary_search(&v).is_err())
        .collect();
    let pairs: Vec<(u32, u32)> = bad
        .iter()
        .filter_map(|&v| nearest(&sources, v).map(|s| (v, s)))
        .collect();
    if pairs.is_empty() {
        for &v in bad {
            if let Some(p) = prim.positions.get_mut(v as usize) {
                *p = Vec3::ZERO;
            }
        }
        return pairs;
    }
    for &(to, from) in &pairs {
        copy_vertex(prim, to as usize, from as usize);
    }
    if let Some(inf) = &prim.influences {
        prim.influences = Some(inf.with_rows_copied(&pairs));
    }
    pairs
}

/// The entry of `sorted` closest to `v`, the lower on a tie.
fn nearest(sorted: &[u32], v: u32) -> Option<u32> {
    let at = sorted.partition_point(|&s| s < v);
    let below = at.checked_sub(1).and_then(|i| sorted.get(i));
    let above = sorted.get(at);
    match (below, above) {
        (Some(&b), Some(&a)) => Some(if v - b <= a - v { b } else { a }),
        (Some(&b), None) => Some(b),
        (None, Some(&a)) => Some(a),
        (None, None) => None,
    }
}

/// Copies vertex `from`'s per-vertex values (but its control point) to vertex `to`.
fn copy_vertex(prim: &mut Primitive, to: usize, from: usize) {
    fn copy<T: Copy>(values: &mut [T], to: usize, from: usize) {
        if let (Some(&v), true) = (values.get(from), to < values.len()) {
            values[to] = v;
        }
    }
    copy(&mut prim.positions, to, from);
    copy(&mut prim.normals, to, from);
    if let Some(t) = &mut prim.tangents {
        copy(t, to, from);
    }
    if let Some(uv) = &mut prim.uvs {
        copy(uv, to, from);
    }
    if let Some(c) = &mut prim.colors {
        copy(c, to, from);
    }
    if let Some(b) = &mut prim.dqs_blend {
        copy(b, to, from);
    }
    for target in &mut prim.morph_targets {
        copy(&mut target.positions, to, from);
        copy(&mut target.normals, to, from);
        copy(&mut target.tangents, to, from);
    }
}

/// The fault for `bad` vertices at `place` whose `dropped` elements (`element`, plural) went.
#[must_use]
pub(crate) fn unplaced_fault(place: &str, bad: &[u32], dropped: usize, element: &str) -> DataFault {
    DataFault::new(
        FaultKind::NonFinitePositions,
        place,
        bad.len(),
        bad.first().map(|&v| v as usize),
        format!(
            "the {dropped} {element} using them are dropped: they are drawn nowhere and left out of every measure (each slot holds a copy of the nearest finite vertex)"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::influences::Influences;

    #[test]
    fn a_bad_vertex_loses_its_triangles_and_twins_its_neighbour() {
        let mut prim = Primitive {
            positions: vec![Vec3::ZERO, Vec3::X, Vec3::new(f32::NAN, 0.0, 0.0), Vec3::Y],
            normals: vec![Vec3::Z; 4],
            indices: vec![0, 1, 3, 1, 2, 3],
            influences: Some(Influences::from_rows((0..4u16).map(|j| vec![(j, 1.0_f32)]))),
            ..Primitive::default()
        };
        let bad = non_finite_vertices(&prim.positions);
        assert_eq!(bad, [2]);
        assert_eq!(drop_elements_using(&mut prim.indices, 3, &bad), 1);
        assert_eq!(prim.indices, [0, 1, 3]);
        let pairs = twin_unplaced(&mut prim, &bad);
        // Vertices 1 and 3 are equally near; the lower wins.
        assert_eq!(pairs, [(2, 1)]);
        assert_eq!(prim.positions[2], Vec3::X);
        let inf = prim.influences.as_ref().expect("influences");
        assert_eq!(inf.of(2)[0].joint, 1);
        assert_eq!(inf.of(3)[0].joint, 3);
    }

    #[test]
    fn with_nothing_left_the_slots_hold_the_origin() {
        let mut prim = Primitive {
            positions: vec![Vec3::splat(f32::INFINITY); 3],
            indices: vec![0, 1, 2],
            ..Primitive::default()
        };
        let bad = non_finite_vertices(&prim.positions);
        assert_eq!(drop_elements_using(&mut prim.indices, 3, &bad), 1);
        assert!(twin_unplaced(&mut prim, &bad).is_empty());
        assert!(prim.positions.iter().all(|p| *p == Vec3::ZERO));
        assert!(prim.indices.is_empty());
    }
}
