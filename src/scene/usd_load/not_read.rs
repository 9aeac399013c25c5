//! What a stage holds that dqview does not read or shows plainly, as [`crate::scene::Scene::notes`]
//! (`inspect` lists them, `check` reports each as a `not_read` finding): prim types it does not
//! convert, textures, GeomSubsets, subdivision, cubic curves and widths. Nothing is dropped
//! silently.

use std::collections::BTreeMap;

use super::source::UsdStage;
use super::traverse::PrimPath;

use super::read;
use crate::scene::SceneError;

/// Prim types dqview reads (or that only hold data it reads, or group prims).
const READ_TYPES: &[&str] = &[
    "",
    "Xform",
    "Scope",
    "SkelRoot",
    "Skeleton",
    "SkelAnimation",
    "BlendShape",
    "Mesh",
    "BasisCurves",
    "Points",
    "Material",
    "Shader",
    "NodeGraph",
    "GeomSubset",
];

/// Paths listed in a note before `and N more`.
const LISTED: usize = 3;

/// Prims of one kind, for one note.
#[derive(Default)]
struct Found(Vec<PrimPath>);

impl Found {
    /// The count and the first paths, e.g. `2 (/a, /b)`.
    fn said(&self) -> String {
        let list: Vec<&str> = self.0.iter().take(LISTED).map(|p| &**p).collect();
        let more = self.0.len().saturating_sub(LISTED);
        let tail = if more > 0 {
            format!(", and {more} more")
        } else {
            String::new()
        };
        format!("{} ({}{tail})", self.0.len(), list.join(", "))
    }
}

/// The notes of `stage`, whose default traversal visits `paths`: one line per kind of thing not read.
pub(super) fn notes(stage: &UsdStage, paths: &[PrimPath]) -> Result<Vec<String>, SceneError> {
    let mut types: BTreeMap<String, Found> = BTreeMap::new();
    let [
        mut textures,
        mut subsets,
        mut subdivided,
        mut cubic,
        mut widths,
    ] = std::array::from_fn::<Found, 5, _>(|_| Found::default());
    for path in paths {
        let type_name = stage.type_name(path)?;
        let list = match type_name.as_str() {
            "Shader" => {
                let id = read::token(read::value(stage, path, "info:id")?);
                (id.as_deref() == Some("UsdUVTexture")).then_some(&mut textures)
            }
            "GeomSubset" => Some(&mut subsets),
            "Mesh" => {
                // UsdGeom's fallback scheme is catmullClark: a mesh that does not say `none` is a subdivision surface.
                let scheme = read::token(read::value(stage, path, "subdivisionScheme")?);
                (scheme.as_deref() != Some("none")).then_some(&mut subdivided)
            }
            "BasisCurves" | "Points" => {
                if type_name == "BasisCurves" {
                    let kind = read::token(read::value(stage, path, "type")?);
                    if kind.as_deref() != Some("linear") {
                        cubic.0.push(path.clone());
                    }
                }
                read::value(stage, path, "widths")?.map(|_| &mut widths)
            }
            t if READ_TYPES.contains(&t) => None,
            t => Some(types.entry(t.to_owned()).or_default()),
        };
        if let Some(list) = list {
            list.0.push(path.clone());
        }
    }
    let mut out: Vec<String> = types
        .iter()
        .map(|(t, found)| format!("USD {t} prims are not read: {}", found.said()))
        .collect();
    for (found, what) in [
        (
            &textures,
            "UsdUVTexture shaders are not read (the colour is diffuseColor's value or displayColor)",
        ),
        (
            &subsets,
            "GeomSubsets are not split out (one material per mesh)",
        ),
        (
            &subdivided,
            "meshes are subdivision surfaces (subdivisionScheme is not none), drawn as their cage",
        ),
        (
            &cubic,
            "cubic BasisCurves are drawn through their control points, not evaluated",
        ),
        (
            &widths,
            "curve and point widths are not drawn (lines and points are one pixel wide)",
        ),
    ] {
        if !found.0.is_empty() {
            out.push(format!("{} {what}", found.said()));
        }
    }
    Ok(out)
}
