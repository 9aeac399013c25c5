//! A Mesh's normals and texture coordinates in any UsdGeom interpolation (`constant`,
//! `uniform`, `vertex`, `varying`, `faceVarying`, indexed or not), and the vertices they need.
//!
//! dqview draws one vertex per attribute set, as glTF does. Vertex `p` is point `p` for every
//! point (so the point order is still the first vertices' order and exports compare with USD's
//! points); a corner whose face-varying normal or coordinate differs from the one its point's
//! vertex has gets a vertex of its own, appended after the points, which repeats its point's
//! position, influences, blend shapes and beta ([`Split`]).

use std::collections::HashMap;

use super::source::UsdStage;
use glam::{Vec2, Vec3};

use super::read;
use crate::scene::SceneError;

/// A primvar's values, one per point or one per face corner (faceVertexIndices order).
pub(super) enum Spread<T> {
    /// One value per point.
    Points(Vec<T>),
    /// One value per face corner.
    Corners(Vec<T>),
}

/// What the mesh's faces are, for resolving primvars: `faceVertexCounts` and the point count.
pub(super) struct Faces<'a> {
    /// `faceVertexCounts` (checked non-negative and within the corners by triangulation).
    pub counts: &'a [i32],
    /// The corner count (`faceVertexIndices` length).
    pub corners: usize,
    /// The point count.
    pub points: usize,
}

/// The first of `names` authored on `path`, resolved by its interpolation and indices; one that
/// does not fit the mesh (a count or index off) is warned about and not used.
pub(super) fn resolve<T: Copy>(
    stage: &UsdStage,
    path: &str,
    names: &[&str],
    faces: &Faces<'_>,
    decode: fn(Option<openusd::sdf::Value>) -> Vec<T>,
    warnings: &mut Vec<String>,
) -> Result<Option<Spread<T>>, SceneError> {
    for name in names {
        let Some(value) = read::value(stage, path, name)? else {
            continue;
        };
        let mut values = decode(Some(value));
        let interpolation = read::token(read::metadata(stage, path, name, "interpolation")?)
            .unwrap_or_else(|| String::from("vertex"));
        if let Some(indices) = read::value(stage, path, &format!("{name}:indices"))? {
            let indices = read::ints(Some(indices));
            let picked: Option<Vec<T>> = indices
                .iter()
                .map(|&i| usize::try_from(i).ok().and_then(|i| values.get(i).copied()))
                .collect();
            let Some(picked) = picked else {
                warnings.push(format!(
                    "Mesh {path}: {name}:indices has an entry past its {} values; not used",
                    values.len()
                ));
                return Ok(None);
            };
            values = picked;
        }
        let faces_n = faces.counts.len();
        let found = values.len();
        let spread = match interpolation.as_str() {
            "constant" if !values.is_empty() => Some(Spread::Points(vec![values[0]; faces.points])),
            "vertex" | "varying" if values.len() == faces.points => Some(Spread::Points(values)),
            "faceVarying" if values.len() == faces.corners => Some(Spread::Corners(values)),
            "uniform" if values.len() == faces_n => Some(Spread::Corners(
                faces
                    .counts
                    .iter()
                    .zip(values)
                    .flat_map(|(&n, v)| std::iter::repeat_n(v, usize::try_from(n).unwrap_or(0)))
                    .collect(),
            )),
            _ => None,
        };
        if spread.is_none() {
            warnings.push(format!(
                "Mesh {path}: {name} has {found} {interpolation} values for {} points, {faces_n} faces and {} corners; not used",
                faces.points,
                faces.corners
            ));
        }
        return Ok(spread);
    }
    Ok(None)
}

/// A corner's normal and coordinate bits, for telling vertices apart.
type Key = (Option<[u32; 3]>, Option<[u32; 2]>);

/// The vertices of a mesh: each point's, then one per corner whose values differ from its point's.
pub(super) struct Split {
    /// The vertex of each corner.
    pub vertex_of_corner: Vec<u32>,
    /// The point of each vertex after the points (vertex `points + k` is point `extra[k]`).
    pub extra: Vec<u32>,
    /// Per vertex: normal, else `None` (computed).
    pub normals: Option<Vec<Vec3>>,
    /// Per vertex: texture coordinate, else `None`.
    pub uvs: Option<Vec<Vec2>>,
}

/// Splits the points where per-corner `normals` or `uvs` differ; `corner_points` is
/// `faceVertexIndices` (each entry checked below the point count).
pub(super) fn split(
    corner_points: &[u32],
    points: usize,
    normals: Option<Spread<Vec3>>,
    uvs: Option<Spread<Vec2>>,
) -> Split {
    /// A corner's value of a spread attribute, and its bits for telling values apart.
    fn at<T: Copy>(s: &Option<Spread<T>>, corner: usize, point: usize) -> Option<T> {
        match s {
            Some(Spread::Points(v)) => v.get(point).copied(),
            Some(Spread::Corners(v)) => v.get(corner).copied(),
            None => None,
        }
    }
    let bits = |n: Option<Vec3>, uv: Option<Vec2>| {
        let n = n.map(|n| n.to_array().map(f32::to_bits));
        let uv = uv.map(|uv| uv.to_array().map(f32::to_bits));
        (n, uv)
    };
    let mut vertex_normals = normals.as_ref().map(|_| vec![Vec3::Y; points]);
    let mut vertex_uvs = uvs.as_ref().map(|_| vec![Vec2::ZERO; points]);
    if let (Some(Spread::Points(v)), Some(out)) = (&normals, &mut vertex_normals) {
        out.copy_from_slice(&v[..points]);
    }
    if let (Some(Spread::Points(v)), Some(out)) = (&uvs, &mut vertex_uvs) {
        out.copy_from_slice(&v[..points]);
    }
    let mut first: Vec<Option<Key>> = vec![None; points];
    let mut made: HashMap<(u32, Key), u32> = HashMap::new();
    let mut extra = Vec::new();
    let mut vertex_of_corner = Vec::with_capacity(corner_points.len());
    for (c, &p) in corner_points.iter().enumerate() {
        let (n, uv) = (at(&normals, c, p as usize), at(&uvs, c, p as usize));
        let key = bits(n, uv);
        let slot = &mut first[p as usize];
        let vertex = match slot {
            None => {
                *slot = Some(key);
                if let (Some(out), Some(n)) = (&mut vertex_normals, n) {
                    out[p as usize] = n;
                }
                if let (Some(out), Some(uv)) = (&mut vertex_uvs, uv) {
                    out[p as usize] = uv;
                }
                p
            }
            Some(k) if *k == key => p,
            Some(_) => *made.entry((p, key)).or_insert_with(|| {
                extra.push(p);
                if let (Some(out), Some(n)) = (&mut vertex_normals, n) {
                    out.push(n);
                }
                if let (Some(out), Some(uv)) = (&mut vertex_uvs, uv) {
                    out.push(uv);
                }
                (points + extra.len() - 1) as u32
            }),
        };
        vertex_of_corner.push(vertex);
    }
    Split {
        vertex_of_corner,
        extra,
        normals: vertex_normals,
        uvs: vertex_uvs,
    }
}

/// Gives the vertices after the points (vertex `points + k` is point `extra[k]`) their point's
/// position, blend shape offsets and beta, and records every vertex's point in
/// `control_points`; the influences were read per vertex already.
pub(super) fn extend_points(prim: &mut crate::scene::Primitive, extra: &[u32]) {
    if extra.is_empty() {
        return;
    }
    fn extend<T: Copy>(values: &mut Vec<T>, extra: &[u32]) {
        let added: Vec<T> = extra.iter().map(|&p| values[p as usize]).collect();
        values.extend(added);
    }
    let points = prim.positions.len();
    extend(&mut prim.positions, extra);
    for target in &mut prim.morph_targets {
        if target.positions.len() == points {
            extend(&mut target.positions, extra);
        }
        if target.normals.len() == points {
            extend(&mut target.normals, extra);
        }
    }
    if let Some(betas) = &mut prim.dqs_blend {
        extend(betas, extra);
    }
    let all = (0..points as u32).chain(extra.iter().copied());
    prim.control_points = Some(all.collect());
}
