//! `BasisCurves` and `Points` prims as line and point primitives, one vertex per point as for
//! meshes, so UsdSkel skins them as it skins every point-based prim (hair and groom guides).
//!
//! A curve is drawn through its points: a linear curve is exactly that, a cubic one's points
//! are its control points (a note, as `widths` are: [`super::not_read`]).

use super::source::UsdStage;
use glam::Vec3;

use super::mesh::{MeshBudget, dqs_blend};
use super::read;
use crate::scene::{LoadOptions, Mesh, Primitive, SceneError, Topology};

/// The point-based prim types dqview loads besides `Mesh`.
pub(super) const POINT_BASED: &[&str] = &["BasisCurves", "Points"];

/// A `BasisCurves` or `Points` prim (by `type_name`) as a one-primitive mesh.
pub(super) fn load_point_based(
    stage: &UsdStage,
    path: &str,
    type_name: &str,
    (budget, options): (&mut MeshBudget, &LoadOptions),
) -> Result<Mesh, SceneError> {
    let positions = read::vec3s(read::value(stage, path, "points")?);
    budget.vertices(positions.len(), options)?;
    let n = positions.len();
    let count = u32::try_from(n).map_err(|_| bad(path, format!("{n} points (most 2^32)")))?;
    let (indices, topology) = if type_name == "BasisCurves" {
        (curve_segments(stage, path, n)?, Topology::Lines)
    } else {
        ((0..count).collect(), Topology::Points)
    };
    let normals = read::vec3s(read::value(stage, path, "normals")?);
    let normals = if normals.len() == n {
        normals
            .into_iter()
            .map(|v| v.try_normalize().unwrap_or(Vec3::Y))
            .collect()
    } else {
        // Lines and points have no surface: a fixed normal, turned with the points.
        vec![Vec3::Y; n]
    };
    let dqs_blend = dqs_blend(stage, path, n)?;
    Ok(Mesh {
        name: path.to_owned(),
        primitives: vec![Primitive {
            positions,
            normals,
            indices,
            topology,
            dqs_blend,
            ..Primitive::default()
        }],
        morph_weights: Vec::new(),
    })
}

/// The curves' segments as index pairs: consecutive points of each curve (`curveVertexCounts`),
/// closed when `wrap` is `periodic`.
fn curve_segments(stage: &UsdStage, path: &str, points: usize) -> Result<Vec<u32>, SceneError> {
    let counts = read::ints(read::value(stage, path, "curveVertexCounts")?);
    let wrap = read::token(read::value(stage, path, "wrap")?).unwrap_or_default();
    let mut out = Vec::new();
    let mut start = 0usize;
    for &count in &counts {
        let n = usize::try_from(count)
            .map_err(|_| bad(path, format!("negative curveVertexCounts entry {count}")))?;
        let end = start.saturating_add(n);
        if end > points {
            return Err(bad(
                path,
                format!("curveVertexCounts sum past its {points} points"),
            ));
        }
        // `end <= points`, which fits u32 (checked by the caller).
        let ids: Vec<u32> = (start..end).map(|i| i as u32).collect();
        for pair in ids.windows(2) {
            out.extend_from_slice(pair);
        }
        if wrap == "periodic"
            && n > 2
            && let (Some(&last), Some(&first)) = (ids.last(), ids.first())
        {
            out.extend([last, first]);
        }
        start = end;
    }
    if start != points {
        return Err(bad(
            path,
            format!("curveVertexCounts sum to {start}, not its {points} points"),
        ));
    }
    Ok(out)
}

/// A one-line error about the prim at `path`.
fn bad(path: &str, what: String) -> SceneError {
    SceneError::Usd(format!("{path}: {what}"))
}
