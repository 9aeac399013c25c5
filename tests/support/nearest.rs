//! Nearest-vertex distances between posed meshes (Blender keeps only the skinned meshes and
//! its own vertex order, so meshes are matched by nearest vertex, not by index).

use std::collections::HashMap;
use std::path::Path;

use glam::{IVec3, Vec3};

/// Vertices hashed into cubes of side `cell` for nearest-vertex queries within one cell.
pub struct Grid {
    cell: f32,
    cells: HashMap<IVec3, Vec<Vec3>>,
}

impl Grid {
    /// The grid of `points`.
    pub fn new(points: impl Iterator<Item = Vec3>, cell: f32) -> Self {
        let mut cells: HashMap<IVec3, Vec<Vec3>> = HashMap::new();
        for p in points {
            cells.entry(cell_of(p, cell)).or_default().push(p);
        }
        Self { cell, cells }
    }

    /// Distance from `p` to the nearest point, or `cell` when none lies within one cell.
    pub fn nearest(&self, p: Vec3) -> f32 {
        let k = cell_of(p, self.cell);
        let mut best = self.cell;
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let Some(points) = self.cells.get(&(k + IVec3::new(dx, dy, dz))) else {
                        continue;
                    };
                    for q in points {
                        best = best.min(p.distance(*q));
                    }
                }
            }
        }
        best
    }

    /// The largest distance from a point of `from` to its nearest point here (at most `cell`).
    pub fn worst(&self, from: &[Vec3]) -> f32 {
        from.iter().map(|&p| self.nearest(p)).fold(0.0, f32::max)
    }
}

/// The cell of `p`.
fn cell_of(p: Vec3, cell: f32) -> IVec3 {
    (p / cell).floor().as_ivec3()
}

/// Every vertex of the OBJ at `path`, all groups together.
pub fn obj_vertices(path: &Path) -> Vec<Vec3> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    super::obj_groups(&text)
        .into_iter()
        .flat_map(|(_, v)| v)
        .collect()
}
