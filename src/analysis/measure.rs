//! Mesh measures: volume by the divergence theorem, surface area, closedness.

use std::collections::HashMap;

use glam::Vec3;

/// Signed volume enclosed by a triangle list (divergence theorem), relative to `apex`.
///
/// For a closed, outward-wound mesh this is its volume; for an open patch it is
/// the volume of the cone from `apex` to the patch.
#[must_use]
pub fn signed_volume(positions: &[Vec3], indices: &[u32], apex: Vec3) -> f64 {
    triangles(positions, indices)
        .map(|[a, b, c]| f64::from((a - apex).dot((b - apex).cross(c - apex))) / 6.0)
        .sum()
}

/// Total area of a triangle list.
#[must_use]
pub fn area(positions: &[Vec3], indices: &[u32]) -> f64 {
    triangles(positions, indices)
        .map(|[a, b, c]| f64::from((b - a).cross(c - a).length()) * 0.5)
        .sum()
}

/// Whether a triangle list is closed: after welding vertices at equal positions
/// (within `tolerance`), every edge is shared by exactly two triangles.
///
/// Welding matters: seams duplicate vertices for UVs and normals without opening the surface.
#[must_use]
pub fn is_closed(positions: &[Vec3], indices: &[u32], tolerance: f32) -> bool {
    if indices.len() < 12 {
        return false;
    }
    let cell = tolerance.max(1e-12);
    let mut ids: HashMap<[i64; 3], u32> = HashMap::new();
    let welded: Vec<u32> = positions
        .iter()
        .map(|p| {
            let key = (*p / cell).round().as_i64vec3().to_array();
            let next = ids.len() as u32;
            *ids.entry(key).or_insert(next)
        })
        .collect();
    let mut edges: HashMap<(u32, u32), u32> = HashMap::new();
    for tri in indices.chunks_exact(3) {
        let w =
            [tri[0], tri[1], tri[2]].map(|i| welded.get(i as usize).copied().unwrap_or(u32::MAX));
        if w[0] == w[1] || w[1] == w[2] || w[0] == w[2] {
            continue;
        }
        for (a, b) in [(w[0], w[1]), (w[1], w[2]), (w[2], w[0])] {
            *edges.entry((a.min(b), a.max(b))).or_insert(0) += 1;
        }
    }
    !edges.is_empty() && edges.values().all(|&n| n == 2)
}

/// The triangles of an index list as corner positions; indices out of range are skipped.
fn triangles<'a>(
    positions: &'a [Vec3],
    indices: &'a [u32],
) -> impl Iterator<Item = [Vec3; 3]> + 'a {
    indices.chunks_exact(3).filter_map(|t| {
        Some([
            *positions.get(t[0] as usize)?,
            *positions.get(t[1] as usize)?,
            *positions.get(t[2] as usize)?,
        ])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit cube with 24 vertices (split per face, as exporters write it).
    fn cube(size: f32) -> (Vec<Vec3>, Vec<u32>) {
        let mut positions = Vec::new();
        let mut indices = Vec::new();
        for axis in 0..3 {
            for sign in [-1.0f32, 1.0] {
                let n = Vec3::AXES[axis] * sign;
                let u = Vec3::AXES[(axis + 1) % 3];
                let v = n.cross(u);
                let base = positions.len() as u32;
                for (a, b) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                    positions.push((n + u * a + v * b) * size * 0.5);
                }
                indices.extend([base, base + 1, base + 2, base, base + 2, base + 3]);
            }
        }
        (positions, indices)
    }

    #[test]
    fn cube_volume_area_and_closedness() {
        let (p, i) = cube(2.0);
        assert!((signed_volume(&p, &i, Vec3::ZERO) - 8.0).abs() < 1e-5);
        // The apex does not matter for a closed mesh.
        assert!((signed_volume(&p, &i, Vec3::new(3.0, -1.0, 7.0)) - 8.0).abs() < 1e-4);
        assert!((area(&p, &i) - 24.0).abs() < 1e-5);
        assert!(is_closed(&p, &i, 1e-5));
        // Drop one face: open.
        assert!(!is_closed(&p, &i[..30], 1e-5));
    }
}
