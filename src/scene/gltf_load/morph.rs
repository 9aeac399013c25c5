//! Morph targets: per-vertex position, normal and tangent displacements of a primitive.

use glam::Vec3;
use gltf::json::mesh::MorphTarget as JsonTarget;

use super::accessor;
use super::source::Data;
use crate::scene::{MorphTarget, SceneError};

/// Reads the targets of mesh `m` primitive `p` with `vertices` vertices; non-finite deltas become 0.
pub(super) fn load_targets(
    data: &Data<'_>,
    m: usize,
    p: usize,
    targets: &[JsonTarget],
    vertices: usize,
) -> Result<Vec<MorphTarget>, SceneError> {
    let mut out = Vec::with_capacity(targets.len());
    let mut bad = (0, None);
    for (t, target) in targets.iter().enumerate() {
        let mut read = |index: Option<usize>, attribute: &'static str| {
            read_deltas(data, m, p, t, index, attribute, vertices, &mut bad)
        };
        out.push(MorphTarget {
            name: String::new(),
            positions: read(target.positions.map(|i| i.value()), "POSITION")?,
            normals: read(target.normals.map(|i| i.value()), "NORMAL")?,
            tangents: read(target.tangents.map(|i| i.value()), "TANGENT")?,
        });
    }
    if bad.0 > 0 {
        let kind = crate::scene::FaultKind::NonFiniteMorphDeltas;
        let place = format!("mesh {m} primitive {p}");
        let fault = crate::scene::DataFault::new(kind, place, bad.0, bad.1, "set to 0");
        data.fault(fault);
    }
    Ok(out)
}

/// Reads one displacement accessor (empty when absent), checking its count against the vertices.
#[allow(clippy::too_many_arguments)]
fn read_deltas(
    data: &Data<'_>,
    m: usize,
    p: usize,
    t: usize,
    index: Option<usize>,
    attribute: &'static str,
    vertices: usize,
    bad: &mut (usize, Option<usize>),
) -> Result<Vec<Vec3>, SceneError> {
    let Some(index) = index else {
        return Ok(Vec::new());
    };
    let acc = data.accessor(index, &accessor::MORPH_DELTAS, &|| {
        format!("{attribute} of morph target {t} of mesh {m} primitive {p}")
    })?;
    if acc.count != vertices {
        return Err(SceneError::AttributeCountMismatch {
            mesh: m,
            primitive: p,
            attribute: format!("morph target {t} {attribute}"),
            accessor: acc.index,
            count: acc.count,
            vertices,
        });
    }
    let mut deltas: Vec<Vec3> = data
        .read_floats(&acc)?
        .into_iter()
        .map(Vec3::from_array)
        .collect();
    for (v, d) in deltas
        .iter_mut()
        .enumerate()
        .filter(|(_, d)| !d.is_finite())
    {
        *d = Vec3::ZERO;
        bad.0 += 1;
        bad.1.get_or_insert(v);
    }
    Ok(deltas)
}
