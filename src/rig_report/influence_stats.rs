//! Influence statistics of a scene's skinned primitives, with the weight sums as stored
//! (the loader records every sum off 1, [`crate::influences::Influences::off_sums`]).

use crate::scene::Scene;

/// Influences the GPU keeps per vertex; heavier ones win, the rest are dropped.
pub const GPU_INFLUENCES: usize = 8;
/// A stored weight sum this far from 1 counts as not normalised.
pub const SUM_TOLERANCE: f32 = 1e-3;

/// Influence counts and stored weight sums over every skinned primitive.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InfluenceStats {
    /// Vertices of the skinned primitives.
    pub vertices: usize,
    /// `histogram[k]`: vertices with exactly k influences.
    pub histogram: Vec<usize>,
    /// The most influences on one vertex.
    pub max_influences: usize,
    /// Vertices with more than 4 influences.
    pub over_4: usize,
    /// Vertices with more than 8 influences (the GPU drops the lightest).
    pub over_8: usize,
    /// The heaviest (renormalised) weight the GPU drops past 8.
    pub max_dropped_weight: f32,
    /// Weighted vertices whose stored weights do not sum to 1 (within [`SUM_TOLERANCE`]).
    pub unnormalised: usize,
    /// The stored sum farthest from 1, if any vertex is weighted.
    pub worst_sum: Option<f32>,
    /// The smallest and largest stored sums over weighted vertices.
    pub sum_range: Option<(f32, f32)>,
    /// Vertices without weights (they stay at bind pose).
    pub unweighted: usize,
    /// Weights that were negative or non-finite in the file.
    pub invalid_weights: usize,
}

impl InfluenceStats {
    /// Counts over every primitive drawn by a skinned node (each primitive once).
    #[must_use]
    pub fn of(scene: &Scene) -> Self {
        let mut out = Self::default();
        for (m, p) in crate::skin::skinned_primitives(scene) {
            let Some(influences) = scene
                .meshes
                .get(m)
                .and_then(|mesh| mesh.primitives.get(p))
                .and_then(|prim| prim.influences.as_ref())
            else {
                continue;
            };
            out.unweighted += influences.unweighted_vertices();
            out.invalid_weights += influences.invalid_weights();
            let mut off = 0;
            for &(_, sum) in influences.off_sums() {
                off += 1;
                out.add_sum(sum);
            }
            let mut weighted = 0;
            for row in influences.iter() {
                out.add_row(row.len(), row.get(GPU_INFLUENCES).map(|i| i.weight));
                weighted += usize::from(!row.is_empty());
            }
            // The other weighted vertices sum to 1 within the loader's record tolerance.
            if weighted > off {
                out.add_sum(1.0);
            }
        }
        out
    }

    /// Counts one vertex with `count` influences, the heaviest beyond the GPU's being `dropped`.
    fn add_row(&mut self, count: usize, dropped: Option<f32>) {
        self.vertices += 1;
        if self.histogram.len() <= count {
            self.histogram.resize(count + 1, 0);
        }
        if let Some(slot) = self.histogram.get_mut(count) {
            *slot += 1;
        }
        self.max_influences = self.max_influences.max(count);
        self.over_4 += usize::from(count > 4);
        self.over_8 += usize::from(count > GPU_INFLUENCES);
        if let Some(w) = dropped {
            self.max_dropped_weight = self.max_dropped_weight.max(w);
        }
    }

    /// Counts one weighted vertex's stored sum.
    fn add_sum(&mut self, sum: f32) {
        if (sum - 1.0).abs() > SUM_TOLERANCE {
            self.unnormalised += 1;
        }
        let worse = self
            .worst_sum
            .is_none_or(|w| (sum - 1.0).abs() > (w - 1.0).abs());
        if worse {
            self.worst_sum = Some(sum);
        }
        self.sum_range = Some(match self.sum_range {
            None => (sum, sum),
            Some((lo, hi)) => (lo.min(sum), hi.max(sum)),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_and_sums_are_counted() {
        let mut s = InfluenceStats::default();
        s.add_row(2, None);
        s.add_row(9, Some(0.01));
        s.add_sum(1.0);
        s.add_sum(1.5);
        s.add_sum(0.9);
        assert_eq!(s.histogram, vec![0, 0, 1, 0, 0, 0, 0, 0, 0, 1]);
        assert_eq!((s.over_4, s.over_8, s.max_influences), (1, 1, 9));
        assert_eq!(s.unnormalised, 2);
        assert_eq!(s.worst_sum, Some(1.5));
        assert_eq!(s.sum_range, Some((0.9, 1.5)));
    }
}
