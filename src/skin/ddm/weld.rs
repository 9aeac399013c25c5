//! The welded surface of one skinned mesh: the graph Delta Mush smooths over.

use std::collections::HashMap;

use glam::DVec3;

use crate::influences::Influence;
use crate::scene::Mesh;

/// The vertices of one mesh (all its skinned primitives) with bit-identical rest positions as
/// one vertex, and its triangles of nonzero area over them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WeldedSurface {
    /// Rest positions, one per welded vertex.
    pub positions: Vec<DVec3>,
    /// Triangles over welded vertices; triangles with a repeated corner are left out.
    pub triangles: Vec<[u32; 3]>,
    /// Influences of each welded vertex (those of its first source vertex).
    pub influences: Vec<Vec<Influence>>,
    /// `vertex_of[primitive][v]`: the welded vertex of primitive vertex `v` (empty for a
    /// primitive without influences).
    pub vertex_of: Vec<Vec<u32>>,
}

impl WeldedSurface {
    /// The welded surface of `mesh`'s primitives that have influences.
    #[must_use]
    pub fn of_mesh(mesh: &Mesh) -> Self {
        let mut out = Self::default();
        let mut index: HashMap<[u32; 3], u32> = HashMap::new();
        for prim in &mesh.primitives {
            let Some(influences) = &prim.influences else {
                out.vertex_of.push(Vec::new());
                continue;
            };
            let map: Vec<u32> = prim
                .positions
                .iter()
                .enumerate()
                .map(|(v, p)| {
                    let key = [p.x.to_bits(), p.y.to_bits(), p.z.to_bits()];
                    *index.entry(key).or_insert_with(|| {
                        out.positions.push(p.as_dvec3());
                        out.influences.push(influences.of(v).to_vec());
                        (out.positions.len() - 1) as u32
                    })
                })
                .collect();
            for t in prim.triangles().chunks_exact(3) {
                let corner = |k: usize| map.get(t[k] as usize).copied();
                if let (Some(a), Some(b), Some(c)) = (corner(0), corner(1), corner(2))
                    && a != b
                    && b != c
                    && c != a
                {
                    out.triangles.push([a, b, c]);
                }
            }
            out.vertex_of.push(map);
        }
        out
    }

    /// Number of welded vertices.
    #[must_use]
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Vertices of all of `surfaces` together.
    pub fn total_len<'a>(surfaces: impl Iterator<Item = &'a Self>) -> usize {
        surfaces.map(Self::len).sum()
    }

    /// Whether the surface has no vertex.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }
}
