//! Smoothing a per-vertex map over a mesh's edges (neighbour averaging).

use std::collections::HashMap;

use glam::Vec3;

/// Smooths `values` (one per vertex) over the triangle edges of `indices`, `iterations` times.
///
/// Vertices closer than `weld_distance` (same cell of a grid that size) are one
/// node first, so the copies that UV and normal seams make of a vertex share a
/// value and the seam's edges count on both sides; a node starts at the mean of
/// its vertices. Each iteration then sets every node to the mean of its own value
/// and its edge neighbours' values of the previous iteration (Jacobi): with
/// neighbours N(v), `x_v <- (x_v + sum_{u in N(v)} x_u) / (1 + |N(v)|)`. Vertices
/// on no triangle keep their value. Means of values in [0, 1] stay in [0, 1].
pub fn smooth_betas(
    values: &mut [f32],
    positions: &[Vec3],
    indices: &[u32],
    iterations: usize,
    weld_distance: f32,
) {
    if iterations == 0 || values.is_empty() {
        return;
    }
    let (node_of, nodes) = weld(positions, values.len(), weld_distance);
    let mut current = vec![0.0f64; nodes];
    let mut members = vec![0u32; nodes];
    for (v, &n) in node_of.iter().enumerate() {
        current[n] += f64::from(values[v]);
        members[n] += 1;
    }
    for (x, &m) in current.iter_mut().zip(&members) {
        *x /= f64::from(m.max(1));
    }
    let neighbours = node_neighbours(&node_of, indices, nodes);
    let mut next = current.clone();
    for _ in 0..iterations {
        for (n, out) in next.iter_mut().enumerate() {
            let around = neighbours.of(n);
            if around.is_empty() {
                *out = current[n];
                continue;
            }
            let sum: f64 = around.iter().map(|&u| current[u as usize]).sum();
            *out = (current[n] + sum) / (1 + around.len()) as f64;
        }
        std::mem::swap(&mut current, &mut next);
    }
    for (v, value) in values.iter_mut().enumerate() {
        *value = current[node_of[v]] as f32;
    }
}

/// Node of each of the first `count` vertices (positions welded on a `distance` grid), and the node count.
fn weld(positions: &[Vec3], count: usize, distance: f32) -> (Vec<usize>, usize) {
    let cell = if distance.is_finite() && distance > 0.0 {
        distance
    } else {
        f32::MIN_POSITIVE
    };
    let mut ids: HashMap<[i64; 3], usize> = HashMap::new();
    let mut next = 0usize;
    let node_of = (0..count)
        .map(|v| match positions.get(v).filter(|p| p.is_finite()) {
            Some(p) => {
                let key = (*p / cell).round().as_i64vec3().to_array();
                *ids.entry(key).or_insert_with(|| {
                    next += 1;
                    next - 1
                })
            }
            // A vertex without a usable position is its own node.
            None => {
                next += 1;
                next - 1
            }
        })
        .collect();
    (node_of, next)
}

/// Edge neighbours of every node, without repeats (compressed rows).
struct Neighbours {
    offsets: Vec<usize>,
    list: Vec<u32>,
}

impl Neighbours {
    /// The neighbours of node `n`.
    fn of(&self, n: usize) -> &[u32] {
        match (self.offsets.get(n), self.offsets.get(n + 1)) {
            (Some(&a), Some(&b)) => self.list.get(a..b).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// The neighbour lists of the triangle edges of `indices`, on welded nodes; bad indices are skipped.
fn node_neighbours(node_of: &[usize], indices: &[u32], nodes: usize) -> Neighbours {
    let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(indices.len() * 2);
    for tri in indices.chunks_exact(3) {
        let corner = |k: usize| node_of.get(tri[k] as usize).map(|&n| n as u32);
        let (Some(a), Some(b), Some(c)) = (corner(0), corner(1), corner(2)) else {
            continue;
        };
        for (x, y) in [(a, b), (b, c), (c, a)] {
            if x != y {
                pairs.push((x, y));
                pairs.push((y, x));
            }
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    let mut offsets = vec![0usize; nodes + 1];
    for &(x, _) in &pairs {
        offsets[x as usize + 1] += 1;
    }
    for n in 0..nodes {
        offsets[n + 1] += offsets[n];
    }
    Neighbours {
        offsets,
        list: pairs.into_iter().map(|(_, y)| y).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A strip of `n` quads along +X: vertices (i, 0) and (i, 1), two triangles a quad.
    fn strip(n: u32) -> (Vec<Vec3>, Vec<u32>) {
        let positions = (0..=n)
            .flat_map(|i| [Vec3::new(i as f32, 0.0, 0.0), Vec3::new(i as f32, 1.0, 0.0)])
            .collect();
        let indices = (0..n)
            .flat_map(|i| {
                let a = 2 * i;
                [a, a + 2, a + 1, a + 1, a + 2, a + 3]
            })
            .collect();
        (positions, indices)
    }

    #[test]
    fn one_iteration_is_the_mean_of_self_and_neighbours() {
        // A single triangle fan: centre 0 with ring 1..=4 (closed square around it).
        let positions = vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::NEG_X, Vec3::NEG_Y];
        let indices = vec![0, 1, 2, 0, 2, 3, 0, 3, 4, 0, 4, 1];
        let mut values = vec![1.0, 0.0, 0.0, 0.0, 0.0];
        smooth_betas(&mut values, &positions, &indices, 1, 1e-6);
        // Centre: (1 + 4 * 0) / 5. Vertex 1: neighbours 0, 2, 4: (0 + 1 + 0 + 0) / 4.
        assert!((values[0] - 0.2).abs() < 1e-6, "{values:?}");
        for v in 1..5 {
            assert!((values[v] - 0.25).abs() < 1e-6, "{values:?}");
        }
    }

    #[test]
    fn iterations_spread_a_step_and_keep_it_in_range() {
        let (positions, indices) = strip(10);
        let mut values: Vec<f32> = positions
            .iter()
            .map(|p| if p.x < 5.0 { 0.0 } else { 1.0 })
            .collect();
        let raw = values.clone();
        smooth_betas(&mut values, &positions, &indices, 0, 1e-6);
        assert_eq!(values, raw, "0 iterations change nothing");
        smooth_betas(&mut values, &positions, &indices, 3, 1e-6);
        assert!(values.iter().all(|v| (0.0..=1.0).contains(v)));
        // The step at x = 4.5 becomes a ramp: increasing along x, ends still near 0 and 1.
        let row: Vec<f32> = values.iter().step_by(2).copied().collect();
        assert!(row.windows(2).all(|w| w[1] >= w[0] - 1e-6), "{row:?}");
        assert!(row[4] > 0.05 && row[5] < 0.95, "{row:?}");
        assert!(row[0] < 1e-6 && row[10] > 1.0 - 1e-6, "{row:?}");
    }

    #[test]
    fn seam_copies_are_welded_into_one_value() {
        // Two triangles that share an edge only through duplicated vertices (a UV seam).
        let positions = vec![
            Vec3::ZERO,
            Vec3::X,
            Vec3::Y,
            Vec3::X, // copy of 1
            Vec3::Y, // copy of 2
            Vec3::ONE,
        ];
        let indices = vec![0, 1, 2, 3, 5, 4];
        let mut values = vec![0.0, 0.0, 0.0, 1.0, 1.0, 1.0];
        smooth_betas(&mut values, &positions, &indices, 1, 1e-6);
        assert_eq!(values[1], values[3]);
        assert_eq!(values[2], values[4]);
        // Welded node (0 and 1 averaged to 0.5) with neighbours 0 (0), the other seam node (0.5), 5 (1).
        assert!((values[1] - 0.5).abs() < 1e-6, "{values:?}");
        assert!(
            (values[0] - (0.0 + 0.5 + 0.5) / 3.0).abs() < 1e-6,
            "{values:?}"
        );
    }
}
