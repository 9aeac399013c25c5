//! Per-vertex joint influences of any count, in dqview's load-time convention.
//!
//! Every vertex's influences are sorted by weight, heaviest first, with zero
//! weights dropped and the rest renormalised to sum 1. Influence 0 is then the
//! heaviest, which makes it a sound pivot for the dual quaternion sign test.

/// One glTF JOINTS_n/WEIGHTS_n set: four joints and four weights per vertex.
pub type FixedSet = (Vec<[u16; 4]>, Vec<[f32; 4]>);

/// One joint's influence on a vertex: a joint index into the skin and a weight.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Influence {
    /// Index into the skin's joint list.
    pub joint: u16,
    /// Weight in (0, 1]; the influences of a vertex sum to 1.
    pub weight: f32,
}

/// Influences of every vertex of a mesh, stored flat (compressed rows).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Influences {
    /// `offsets[v]..offsets[v + 1]` indexes vertex `v`'s influences; length is vertices + 1.
    offsets: Vec<u32>,
    /// All influences, vertex after vertex, each vertex's sorted heaviest first.
    entries: Vec<Influence>,
    /// Vertices whose weights summed to zero (or were all invalid): they stay at bind pose.
    unweighted_vertices: usize,
    /// Weights that were negative, NaN or infinite and were treated as zero.
    invalid_weights: usize,
    /// Of those, the NaN or infinite ones, and the first vertex holding one.
    non_finite_weights: (usize, Option<u32>),
    /// Vertices whose stored weights summed off 1 by more than [`RECORDED_SUM_DEVIATION`]: (vertex, sum).
    off_sums: Vec<(u32, f32)>,
}

/// Weight below which an influence is treated as absent.
pub const MIN_WEIGHT: f32 = 1e-7;

/// Smallest deviation of a stored weight sum from 1 that [`Influences::off_sums`] records.
///
/// f32 weights written by exporters sum to 1 within a few 1e-7, and normalised u16
/// weights within 4 / 65535 (6e-5); 1e-5 keeps the former out of the list while any
/// tolerance a pipeline check would use (1e-3) still sees every vertex it must.
pub const RECORDED_SUM_DEVIATION: f64 = 1e-5;

impl Influences {
    /// Builds influences from per-vertex rows of raw (joint, weight) pairs.
    ///
    /// Rows may hold any number of pairs in any order, as read from glTF's
    /// JOINTS_n/WEIGHTS_n sets. Duplicate joints within a row are merged, weights
    /// that are negative, NaN or infinite count as zero, then the row is sorted
    /// heaviest first and renormalised.
    #[must_use]
    pub fn from_rows<R, I>(rows: R) -> Self
    where
        R: IntoIterator<Item = I>,
        I: IntoIterator<Item = (u16, f32)>,
    {
        let mut out = Self {
            offsets: vec![0],
            ..Self::default()
        };
        let mut row: Vec<Influence> = Vec::with_capacity(8);
        // Weights are summed in f64, so rows of huge weights (up to f32::MAX each) renormalise too.
        let mut wide: Vec<(u16, f64)> = Vec::with_capacity(8);
        for raw in rows {
            row.clear();
            wide.clear();
            for (joint, weight) in raw {
                if !weight.is_finite() {
                    let vertex = out.offsets.len() as u32 - 1;
                    let (n, first) = &mut out.non_finite_weights;
                    *n += 1;
                    first.get_or_insert(vertex);
                }
                if !weight.is_finite() || weight < 0.0 {
                    out.invalid_weights += 1;
                    continue;
                }
                if weight < MIN_WEIGHT {
                    continue;
                }
                match wide.iter_mut().find(|(j, _)| *j == joint) {
                    Some(existing) => existing.1 += f64::from(weight),
                    None => wide.push((joint, f64::from(weight))),
                }
            }
            let mut sum: f64 = wide.iter().map(|(_, w)| w).sum();
            if !(sum.is_finite() && sum > f64::from(MIN_WEIGHT)) {
                out.unweighted_vertices += 1;
                wide.clear();
            } else if (sum - 1.0).abs() > RECORDED_SUM_DEVIATION {
                let vertex = out.offsets.len() as u32 - 1;
                out.off_sums
                    .push((vertex, sum.min(f64::from(f32::MAX)) as f32));
            }
            // Relative to a huge weight a small one would round to 0 as f32: drop it too.
            let before = wide.len();
            wide.retain(|(_, w)| w / sum >= f64::from(MIN_WEIGHT));
            if wide.len() != before {
                sum = wide.iter().map(|(_, w)| w).sum();
            }
            row.extend(wide.iter().map(|&(joint, w)| Influence {
                joint,
                weight: (w / sum) as f32,
            }));
            // Heaviest first; ties broken by joint index so the order is deterministic.
            row.sort_by(|a, b| b.weight.total_cmp(&a.weight).then(a.joint.cmp(&b.joint)));
            out.entries.extend_from_slice(&row);
            out.offsets.push(out.entries.len() as u32);
        }
        out
    }

    /// Builds influences from fixed sets of four, one `(joints, weights)` pair per glTF set.
    ///
    /// Every set must hold one entry per vertex; returns `None` when lengths disagree.
    #[must_use]
    pub fn from_sets(sets: &[FixedSet]) -> Option<Self> {
        let vertex_count = sets.first().map_or(0, |(j, _)| j.len());
        if sets
            .iter()
            .any(|(j, w)| j.len() != vertex_count || w.len() != vertex_count)
        {
            return None;
        }
        Some(Self::from_rows((0..vertex_count).map(|v| {
            sets.iter().flat_map(move |(joints, weights)| {
                let (j, w) = (joints[v], weights[v]);
                (0..4).map(move |k| (j[k], w[k]))
            })
        })))
    }

    /// Number of vertices.
    #[must_use]
    pub fn vertex_count(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// The influences of vertex `v`, heaviest first; empty for an unweighted or out-of-range vertex.
    #[must_use]
    pub fn of(&self, v: usize) -> &[Influence] {
        match (self.offsets.get(v), self.offsets.get(v + 1)) {
            (Some(&a), Some(&b)) => self.entries.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Iterates over every vertex's influences in vertex order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[Influence]> + '_ {
        self.offsets.windows(2).map(|w| {
            self.entries
                .get(w[0] as usize..w[1] as usize)
                .unwrap_or(&[])
        })
    }

    /// The largest number of influences on any one vertex.
    #[must_use]
    pub fn max_influences(&self) -> usize {
        self.offsets
            .windows(2)
            .map(|w| (w[1] - w[0]) as usize)
            .max()
            .unwrap_or(0)
    }

    /// Number of vertices with more than `n` influences.
    #[must_use]
    pub fn vertices_with_more_than(&self, n: usize) -> usize {
        self.offsets
            .windows(2)
            .filter(|w| (w[1] - w[0]) as usize > n)
            .count()
    }

    /// Vertices whose weights summed to zero; they are left at their bind position.
    #[must_use]
    pub fn unweighted_vertices(&self) -> usize {
        self.unweighted_vertices
    }

    /// Weights that were negative, NaN or infinite in the input and were dropped.
    #[must_use]
    pub fn invalid_weights(&self) -> usize {
        self.invalid_weights
    }

    /// NaN or infinite weights in the input (dropped, counted in [`Self::invalid_weights`] too)
    /// and the first vertex that had one.
    #[must_use]
    pub fn non_finite_weights(&self) -> (usize, Option<u32>) {
        self.non_finite_weights
    }

    /// These influences with each `(to, from)` pair's vertex `to` given vertex `from`'s row
    /// (pairs out of range are skipped); the load-time counts are kept as they were.
    #[must_use]
    pub fn with_rows_copied(&self, pairs: &[(u32, u32)]) -> Self {
        let mut rows: Vec<Vec<Influence>> = self.iter().map(<[Influence]>::to_vec).collect();
        for &(to, from) in pairs {
            if let Some(row) = rows.get(from as usize).cloned()
                && let Some(slot) = rows.get_mut(to as usize)
            {
                *slot = row;
            }
        }
        let mut out = self.clone();
        out.entries.clear();
        out.offsets.clear();
        out.offsets.push(0);
        for row in rows {
            out.entries.extend_from_slice(&row);
            out.offsets.push(out.entries.len() as u32);
        }
        out
    }

    /// Vertices whose weights as stored (before renormalising) summed off 1 by more than
    /// [`RECORDED_SUM_DEVIATION`], with that sum, in vertex order; vertices summing to 0 are
    /// [`Influences::unweighted_vertices`] instead.
    #[must_use]
    pub fn off_sums(&self) -> &[(u32, f32)] {
        &self.off_sums
    }

    /// How many vertices' stored weight sums are off 1 by more than `tolerance`, and the sum
    /// farthest from 1 among them (`None` when there are none).
    #[must_use]
    pub fn sums_off_by(&self, tolerance: f32) -> (usize, Option<f32>) {
        let off = self
            .off_sums
            .iter()
            .map(|&(_, s)| s)
            .filter(|s| (s - 1.0).abs() > tolerance);
        off.fold((0, None), |(n, worst), s| {
            let worse = worst.is_none_or(|w: f32| (s - 1.0).abs() > (w - 1.0).abs());
            (n + 1, if worse { Some(s) } else { worst })
        })
    }

    /// The largest joint index referenced, if any vertex is weighted.
    #[must_use]
    pub fn max_joint(&self) -> Option<u16> {
        self.entries.iter().map(|i| i.joint).max()
    }

    /// All influences flat, vertex after vertex (for packing into GPU buffers).
    #[must_use]
    pub fn entries(&self) -> &[Influence] {
        &self.entries
    }

    /// Row offsets: vertex `v` owns `entries()[offsets()[v]..offsets()[v + 1]]`.
    #[must_use]
    pub fn offsets(&self) -> &[u32] {
        &self.offsets
    }

    /// Packs into fixed sets of four (joints, weights), padding with joint 0 at weight 0.
    ///
    /// `sets` sets hold up to `4 * sets` influences; heavier ones are kept, and a
    /// vertex that loses influences is renormalised over the ones that remain.
    #[must_use]
    pub fn to_fixed_sets(&self, sets: usize) -> Vec<FixedSet> {
        let n = self.vertex_count();
        let mut out = vec![(vec![[0u16; 4]; n], vec![[0f32; 4]; n]); sets];
        for (v, row) in self.iter().enumerate() {
            let kept = &row[..row.len().min(4 * sets)];
            let sum: f32 = kept.iter().map(|i| i.weight).sum();
            let scale = if sum > 0.0 { 1.0 / sum } else { 0.0 };
            for (k, inf) in kept.iter().enumerate() {
                let (joints, weights) = &mut out[k / 4];
                joints[v][k % 4] = inf.joint;
                weights[v][k % 4] = inf.weight * scale;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_drops_merges_and_renormalises() {
        let inf = Influences::from_rows([
            vec![(3, 0.1), (1, 0.0), (2, 0.5), (3, 0.2)],
            vec![(0, 0.0), (1, 0.0)],
            vec![(5, -1.0), (6, f32::NAN), (7, 2.0)],
        ]);
        assert_eq!(inf.vertex_count(), 3);
        let v0 = inf.of(0);
        assert_eq!(v0.len(), 2);
        assert_eq!(v0[0].joint, 2);
        assert!((v0[0].weight - 0.5 / 0.8).abs() < 1e-6);
        assert_eq!(v0[1].joint, 3);
        assert!((v0[1].weight - 0.3 / 0.8).abs() < 1e-6);
        assert!(inf.of(1).is_empty());
        assert_eq!(inf.unweighted_vertices(), 1);
        assert_eq!(
            inf.of(2),
            &[Influence {
                joint: 7,
                weight: 1.0
            }]
        );
        assert_eq!(inf.invalid_weights(), 2);
        assert_eq!(inf.max_influences(), 2);
        assert_eq!(inf.max_joint(), Some(7));
    }

    #[test]
    fn huge_and_out_of_range_weights_are_renormalised() {
        let inf = Influences::from_rows([
            vec![
                (0, f32::MAX),
                (1, f32::MAX),
                (0, f32::MAX),
                (2, f32::INFINITY),
            ],
            vec![(3, 7.0), (4, 1.0), (5, f32::NEG_INFINITY), (6, -0.5)],
            // Found by the `skinning` fuzz target: 1e-3 / f32::MAX rounded to a weight of 0.
            vec![(7, f32::MAX), (8, 1e-3)],
        ]);
        assert_eq!(
            inf.of(2),
            &[Influence {
                joint: 7,
                weight: 1.0
            }]
        );
        assert_eq!(inf.invalid_weights(), 3);
        assert_eq!(inf.unweighted_vertices(), 0);
        let v0 = inf.of(0);
        assert_eq!(v0.len(), 2);
        assert_eq!(v0[0].joint, 0);
        assert!((v0[0].weight - 2.0 / 3.0).abs() < 1e-6, "{v0:?}");
        assert!((v0[1].weight - 1.0 / 3.0).abs() < 1e-6, "{v0:?}");
        let v1 = inf.of(1);
        assert!((v1[0].weight - 0.875).abs() < 1e-6, "{v1:?}");
        for row in inf.iter() {
            let sum: f32 = row.iter().map(|i| i.weight).sum();
            assert!((sum - 1.0).abs() < 1e-6 && row.iter().all(|i| i.weight > 0.0));
        }
    }

    #[test]
    fn stored_sums_off_one_are_recorded() {
        let inf = Influences::from_rows([
            vec![(0, 0.5), (1, 0.5)],
            vec![(0, 1.0), (1, 0.755)],
            vec![(0, 0.0)],
            vec![(2, 0.6)],
            vec![(0, 0.5), (1, 0.500_002)],
        ]);
        assert_eq!(inf.off_sums(), &[(1, 1.755), (3, 0.6)]);
        assert_eq!(inf.sums_off_by(1e-3), (2, Some(1.755)));
        assert_eq!(inf.sums_off_by(0.5), (1, Some(1.755)));
        assert_eq!(inf.sums_off_by(1.0), (0, None));
        assert!((inf.of(1)[1].weight - 0.755 / 1.755).abs() < 1e-6);
    }

    #[test]
    fn two_sets_give_eight_influences() {
        let sets = vec![
            (vec![[0, 1, 2, 3]], vec![[0.1, 0.1, 0.1, 0.1]]),
            (vec![[4, 5, 6, 7]], vec![[0.1, 0.1, 0.1, 0.3]]),
        ];
        let inf = Influences::from_sets(&sets).expect("lengths agree");
        assert_eq!(inf.of(0).len(), 8);
        assert_eq!(inf.of(0)[0].joint, 7);
        assert_eq!(inf.vertices_with_more_than(4), 1);
        let packed = inf.to_fixed_sets(2);
        assert_eq!(packed[0].0[0][0], 7);
        let total: f32 = packed.iter().flat_map(|(_, w)| w[0]).sum();
        assert!((total - 1.0).abs() < 1e-6);
    }

    #[test]
    fn mismatched_sets_are_refused() {
        let sets = vec![(vec![[0u16; 4]; 2], vec![[0.25f32; 4]; 3])];
        assert!(Influences::from_sets(&sets).is_none());
    }
}
