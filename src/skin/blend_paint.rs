//! Painting a per-vertex DQS blend map (0 LBS .. 1 DQS) with a screen-space brush.
//!
//! A dab weighs each vertex by where its projected position falls in the brush circle
//! (the falloff) and moves its beta towards the operation's target by `strength` of that
//! weight. With X-mirror, every vertex a dab reaches passes the same change to the vertex at
//! its mirrored bind position (x -> -x), found once per primitive.

use std::collections::HashMap;

use glam::{Vec2, Vec3};

/// What a brush does to the betas under it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BrushOp {
    /// Towards this value.
    Set(f32),
    /// Up towards 1 (DQS).
    Add,
    /// Down towards 0 (LBS).
    Subtract,
    /// Towards the mean of the vertex's edge neighbours.
    Smooth,
}

/// How a dab's weight falls from the brush centre (1) to its rim (0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Falloff {
    /// 1 everywhere inside the circle.
    Constant,
    /// 1 - r.
    Linear,
    /// Smoothstep from the rim: 1 - (3 r^2 - 2 r^3).
    #[default]
    Smooth,
}

impl Falloff {
    /// The weight at `r`, the distance from the centre over the radius (0 outside r <= 1).
    #[must_use]
    pub fn weight(self, r: f32) -> f32 {
        if !(0.0..=1.0).contains(&r) {
            return 0.0;
        }
        match self {
            Self::Constant => 1.0,
            Self::Linear => 1.0 - r,
            Self::Smooth => 1.0 - r * r * (3.0 - 2.0 * r),
        }
    }
}

/// One dab of a brush in screen space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dab {
    /// Brush centre, in the pixel space of the projected vertices.
    pub center: Vec2,
    /// Brush radius in pixels.
    pub radius_px: f32,
    /// Fraction of the way to the target a vertex at the centre moves, in [0, 1].
    pub strength: f32,
    /// Weight from the centre to the rim.
    pub falloff: Falloff,
    /// What the brush does.
    pub op: BrushOp,
}

/// Each vertex's edge neighbours, for smoothing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Neighbours {
    /// `of[v]`: the vertices sharing a triangle edge with v.
    of: Vec<Vec<u32>>,
}

impl Neighbours {
    /// The edge neighbours of the `vertex_count` vertices of a triangle list.
    #[must_use]
    pub fn of_triangles(indices: &[u32], vertex_count: usize) -> Self {
        let mut of = vec![Vec::new(); vertex_count];
        for t in indices.chunks_exact(3) {
            for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
                if (a as usize) < vertex_count && (b as usize) < vertex_count && a != b {
                    of[a as usize].push(b);
                    of[b as usize].push(a);
                }
            }
        }
        for list in &mut of {
            list.sort_unstable();
            list.dedup();
        }
        Self { of }
    }

    /// The vertices sharing a triangle edge with `v`.
    #[must_use]
    pub fn around(&self, v: usize) -> &[u32] {
        self.of.get(v).map_or(&[][..], Vec::as_slice)
    }

    /// The mean beta of `v`'s neighbours in `betas` (its own beta when it has none).
    fn mean(&self, betas: &[f32], v: usize) -> f32 {
        let values: Vec<f32> = self
            .around(v)
            .iter()
            .filter_map(|&u| betas.get(u as usize).copied())
            .collect();
        if values.is_empty() {
            return betas.get(v).copied().unwrap_or(0.0);
        }
        values.iter().sum::<f32>() / values.len() as f32
    }
}

/// Applies `dab` to `betas` (one per vertex) of vertices projected at `screen` (`None`:
/// behind the camera); returns how many vertices it changed.
///
/// `mirror[v]`, when given, is v's mirrored partner, which gets the same weight of the dab.
/// Smoothing reads the betas as they were before the dab, so its result does not depend on
/// vertex order.
pub fn apply_dab(
    betas: &mut [f32],
    screen: &[Option<Vec2>],
    dab: &Dab,
    neighbours: &Neighbours,
    mirror: Option<&[Option<u32>]>,
) -> usize {
    let radius = dab.radius_px.max(1e-3);
    let strength = dab.strength.clamp(0.0, 1.0);
    let before = betas.to_vec();
    let mut weights: HashMap<usize, f32> = HashMap::new();
    for (v, p) in screen.iter().enumerate().take(betas.len()) {
        let Some(p) = p else { continue };
        let w = dab.falloff.weight(p.distance(dab.center) / radius) * strength;
        if w > 0.0 {
            let slot = weights.entry(v).or_insert(0.0);
            *slot = slot.max(w);
            if let Some(&Some(m)) = mirror.and_then(|m| m.get(v)) {
                let slot = weights.entry(m as usize).or_insert(0.0);
                *slot = slot.max(w);
            }
        }
    }
    let mut changed = 0;
    for (&v, &w) in &weights {
        let Some(&old) = before.get(v) else { continue };
        let target = match dab.op {
            BrushOp::Set(value) => value,
            BrushOp::Add => 1.0,
            BrushOp::Subtract => 0.0,
            BrushOp::Smooth => neighbours.mean(&before, v),
        };
        let new = (old + (target - old) * w).clamp(0.0, 1.0);
        if new != old {
            betas[v] = new;
            changed += 1;
        }
    }
    changed
}

/// For each vertex, the vertex at its mirrored bind position (x -> -x) within `tolerance`,
/// and how many vertices found none (a vertex on the plane x = 0 is its own partner).
#[must_use]
pub fn mirror_partners(positions: &[Vec3], tolerance: f32) -> (Vec<Option<u32>>, usize) {
    let cell = if tolerance.is_finite() && tolerance > 0.0 {
        tolerance
    } else {
        1e-4
    };
    let key = |p: Vec3| (p / cell).floor().as_ivec3();
    let mut grid: HashMap<glam::IVec3, Vec<u32>> = HashMap::new();
    for (i, &p) in positions.iter().enumerate() {
        if p.is_finite() {
            grid.entry(key(p)).or_default().push(i as u32);
        }
    }
    let mut unmatched = 0;
    let partners = positions
        .iter()
        .map(|&p| {
            let want = Vec3::new(-p.x, p.y, p.z);
            let base = key(want);
            let mut best: Option<(u32, f32)> = None;
            for dx in -1..=1 {
                for dy in -1..=1 {
                    for dz in -1..=1 {
                        let cell = base + glam::IVec3::new(dx, dy, dz);
                        for &j in grid.get(&cell).map_or(&[][..], Vec::as_slice) {
                            let d = positions[j as usize].distance(want);
                            if d <= tolerance && best.is_none_or(|(_, bd)| d < bd) {
                                best = Some((j, d));
                            }
                        }
                    }
                }
            }
            if best.is_none() {
                unmatched += 1;
            }
            best.map(|(j, _)| j)
        })
        .collect();
    (partners, unmatched)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(n: usize) -> Vec<Option<Vec2>> {
        (0..n)
            .map(|i| Some(Vec2::new(i as f32 * 10.0, 0.0)))
            .collect()
    }

    #[test]
    fn a_dab_changes_only_the_vertices_under_it_by_the_falloff() {
        let screen = row(10);
        let mut betas = vec![0.0; 10];
        let dab = Dab {
            center: Vec2::new(30.0, 0.0),
            radius_px: 20.0,
            strength: 1.0,
            falloff: Falloff::Linear,
            op: BrushOp::Add,
        };
        let none = Neighbours::default();
        let changed = apply_dab(&mut betas, &screen, &dab, &none, None);
        // Vertices at 10..50 px lie within 20 px of 30: weights 0 (rim), 0.5, 1, 0.5, 0.
        assert_eq!(changed, 3);
        assert_eq!(betas[3], 1.0);
        assert!((betas[2] - 0.5).abs() < 1e-6 && (betas[4] - 0.5).abs() < 1e-6);
        assert!(betas[..2].iter().chain(&betas[5..]).all(|&b| b == 0.0));
        // Subtract at half strength from the centre takes half the way to 0.
        let sub = Dab {
            op: BrushOp::Subtract,
            strength: 0.5,
            ..dab
        };
        apply_dab(&mut betas, &screen, &sub, &none, None);
        assert!((betas[3] - 0.5).abs() < 1e-6, "{}", betas[3]);
        // Set moves to the value; a vertex behind the camera is never painted.
        let mut hidden = screen.clone();
        hidden[3] = None;
        let set = Dab {
            op: BrushOp::Set(0.25),
            falloff: Falloff::Constant,
            ..dab
        };
        apply_dab(&mut betas, &hidden, &set, &none, None);
        assert_eq!(betas[2], 0.25);
        assert!(
            (betas[3] - 0.5).abs() < 1e-6,
            "hidden vertex kept {}",
            betas[3]
        );
    }

    #[test]
    fn smoothing_pulls_towards_the_neighbours_and_mirror_copies_the_change() {
        // A strip 0-1-2-3 of triangles (0,1,2), (1,3,2).
        let neighbours = Neighbours::of_triangles(&[0, 1, 2, 1, 3, 2], 4);
        let mut betas = vec![0.0, 1.0, 0.0, 0.0];
        let screen = vec![None, Some(Vec2::ZERO), None, None];
        let dab = Dab {
            center: Vec2::ZERO,
            radius_px: 5.0,
            strength: 1.0,
            falloff: Falloff::Constant,
            op: BrushOp::Smooth,
        };
        apply_dab(&mut betas, &screen, &dab, &neighbours, None);
        // Vertex 1's neighbours 0, 2, 3 are all 0: full strength takes it to their mean.
        assert_eq!(betas[1], 0.0);
        let positions = [
            Vec3::new(0.5, 1.0, 0.0),
            Vec3::new(-0.5, 1.0, 0.0),
            Vec3::new(0.0, 2.0, 0.0),
            Vec3::new(0.7, 3.0, 0.0),
        ];
        let (partners, unmatched) = mirror_partners(&positions, 1e-3);
        assert_eq!(partners, [Some(1), Some(0), Some(2), None]);
        assert_eq!(unmatched, 1);
        let mut betas = vec![0.0; 4];
        let add = Dab {
            op: BrushOp::Add,
            ..dab
        };
        let screen = vec![Some(Vec2::ZERO), None, None, None];
        apply_dab(&mut betas, &screen, &add, &neighbours, Some(&partners));
        assert_eq!(betas, [1.0, 1.0, 0.0, 0.0], "vertex 0 and its mirror");
    }

    #[test]
    fn falloffs_end_at_the_rim() {
        for f in [Falloff::Constant, Falloff::Linear, Falloff::Smooth] {
            assert_eq!(f.weight(0.0), 1.0, "{f:?}");
            assert_eq!(f.weight(1.5), 0.0, "{f:?}");
            assert_eq!(f.weight(f32::NAN), 0.0, "{f:?}");
        }
        assert_eq!(Falloff::Smooth.weight(1.0), 0.0);
        assert!((Falloff::Smooth.weight(0.5) - 0.5).abs() < 1e-6);
    }
}
