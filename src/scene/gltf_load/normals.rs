//! Vertex normals: smooth area-weighted normals for files without them, and repair of bad ones.

use glam::Vec3;

/// Smooth, area-weighted vertex normals of a triangle list.
///
/// Each triangle adds its unnormalised cross product (length twice its area)
/// to its three corners, so big triangles weigh more. Vertices on no triangle,
/// or only on degenerate ones, get +Y.
#[must_use]
pub(in crate::scene) fn smooth_normals(positions: &[Vec3], indices: &[u32]) -> Vec<Vec3> {
    let mut sums = vec![Vec3::ZERO; positions.len()];
    for tri in indices.chunks_exact(3) {
        let &[i, j, k] = tri else {
            continue;
        };
        let corners = [i, j, k].map(|i| i as usize);
        let [Some(a), Some(b), Some(c)] = corners.map(|i| positions.get(i).copied()) else {
            continue;
        };
        let n = (b - a).cross(c - a);
        if !n.is_finite() {
            continue;
        }
        for i in corners {
            if let Some(sum) = sums.get_mut(i) {
                *sum += n;
            }
        }
    }
    sums.into_iter()
        .map(|n| n.try_normalize().unwrap_or(Vec3::Y))
        .collect()
}

/// Normalises file normals, replacing non-finite or zero-length ones by smooth normals.
///
/// Returns how many normals were replaced.
pub(super) fn repair_normals(normals: &mut [Vec3], positions: &[Vec3], indices: &[u32]) -> usize {
    let bad = normals
        .iter()
        .filter(|n| n.try_normalize().is_none())
        .count();
    // Smooth normals cost a pass over the triangles; only pay it when needed.
    let smooth = if bad > 0 {
        smooth_normals(positions, indices)
    } else {
        Vec::new()
    };
    for (i, n) in normals.iter_mut().enumerate() {
        *n = n
            .try_normalize()
            .unwrap_or_else(|| smooth.get(i).copied().unwrap_or(Vec3::Y));
    }
    bad
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn area_weighting_favours_big_triangles() {
        // A big triangle in the XY plane and a small one tilted, sharing vertex 0.
        let p = [
            Vec3::ZERO,
            Vec3::new(10.0, 0.0, 0.0),
            Vec3::new(0.0, 10.0, 0.0),
            Vec3::new(0.0, 0.0, 0.1),
            Vec3::new(0.1, 0.0, 0.0),
        ];
        let n = smooth_normals(&p, &[0, 1, 2, 0, 3, 4]);
        assert!(n[0].z > 0.99, "{:?}", n[0]);
        assert!((n[0].length() - 1.0).abs() < 1e-6);
        assert!(
            (n[3] - Vec3::Y).length() < 1e-6,
            "small triangle normal is +Y: {:?}",
            n[3]
        );
    }

    #[test]
    fn unused_and_degenerate_vertices_point_up() {
        let p = [Vec3::ZERO, Vec3::X, Vec3::X * 2.0, Vec3::Z];
        let n = smooth_normals(&p, &[0, 1, 2]);
        assert_eq!(n, vec![Vec3::Y; 4]);
    }

    #[test]
    fn repair_replaces_only_bad_normals() {
        let p = [Vec3::ZERO, Vec3::X, Vec3::Y];
        let mut n = [Vec3::new(0.0, 0.0, 2.0), Vec3::NAN, Vec3::ZERO];
        assert_eq!(repair_normals(&mut n, &p, &[0, 1, 2]), 2);
        assert_eq!(n, [Vec3::Z; 3]);
    }
}
