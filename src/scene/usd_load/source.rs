//! The stage the loader reads: the crate's composed [`Stage`], read from its root layer's specs
//! where composition is the identity ([`flat`]), so every query answers the same either way.

use std::ops::Deref;

use openusd::sdf;
use openusd::usd::{Prim, Stage};

use super::flat;
use super::read::usd_error;
use crate::scene::SceneError;

/// An opened stage and how its prims are read.
pub(super) struct UsdStage {
    /// The crate's stage (layers, stage metadata and, unless flat, composition).
    stage: Stage,
    /// Whether the stage is one layer without arcs, read from its specs.
    flat: bool,
}

impl Deref for UsdStage {
    type Target = Stage;

    fn deref(&self) -> &Stage {
        &self.stage
    }
}

impl UsdStage {
    /// The stage, flat when [`flat::is_flat`] says composing it changes nothing.
    pub fn new(stage: Stage) -> Self {
        let flat = flat::is_flat(&stage);
        Self { stage, flat }
    }

    /// The stage, always read through the crate's composition (for tests that compare).
    #[cfg(test)]
    pub fn composed(stage: Stage) -> Self {
        Self { stage, flat: false }
    }

    /// Whether prims are read from the root layer's specs.
    pub fn is_flat(&self) -> bool {
        self.flat
    }

    /// The prim's type name (`Mesh`, `Skeleton`, ...; empty when untyped).
    pub fn type_name(&self, prim: &str) -> Result<String, SceneError> {
        if self.flat {
            return Ok(
                match flat::layer_field(self, &prim_path(prim)?, "typeName") {
                    Some(sdf::Value::Token(t)) => t.as_str().to_owned(),
                    _ => String::new(),
                },
            );
        }
        Ok(self
            .prim(prim)
            .type_name()
            .map_err(|e| usd_error(prim, &e))?
            .map(|t| t.as_str().to_owned())
            .unwrap_or_default())
    }

    /// The paths of the prim's children in their composed order (`/` for the root's).
    pub fn children(&self, prim: &str) -> Result<Vec<String>, SceneError> {
        let path = prim_path(prim)?;
        if self.flat {
            return flat::names(self, &path, sdf::ChildrenKey::PrimChildren.as_str())
                .iter()
                .map(|name| child_path(&path, name))
                .collect();
        }
        let children = self
            .prim(path)
            .children()
            .map_err(|e| usd_error(prim, &e))?;
        Ok(children
            .iter()
            .map(|c| c.path().as_str().to_owned())
            .collect())
    }

    /// The names of the prim's properties, in authored order.
    pub fn property_names(&self, prim: &str) -> Result<Vec<String>, SceneError> {
        if self.flat {
            let key = sdf::ChildrenKey::PropertyChildren.as_str();
            return Ok(flat::names(self, &prim_path(prim)?, key));
        }
        let names = self
            .prim(prim)
            .property_names()
            .map_err(|e| usd_error(prim, &e))?;
        Ok(names.iter().map(|t| t.as_str().to_owned()).collect())
    }

    /// Whether the prim, whose parent the default traversal visits, is visited too: it has a
    /// spec, is active, defined (`def`, not `class` or `over`) and loaded.
    pub fn visits(&self, prim: &str) -> Result<bool, SceneError> {
        let path = prim_path(prim)?;
        if self.flat {
            return Ok(flat::defined_and_active(self, &path));
        }
        passes(&self.prim(path), self.load_rules().is_empty()).map_err(|e| usd_error(prim, &e))
    }
}

/// `text` as a prim path, or an error naming it.
fn prim_path(text: &str) -> Result<sdf::Path, SceneError> {
    sdf::Path::new(text).map_err(|e| usd_error(text, &e))
}

/// The path of child `name` of `parent`.
fn child_path(parent: &sdf::Path, name: &str) -> Result<String, SceneError> {
    let text = if parent.is_abs_root() {
        format!("/{name}")
    } else {
        format!("{}/{name}", parent.as_str())
    };
    prim_path(&text).map(|p| p.as_str().to_owned())
}

/// Whether the composed `prim`, whose parent passed, is active, loaded, defined and not abstract.
///
/// The parent passing means every ancestor is active, defined (`def` or `class`), loaded and not
/// a `class`, so only the prim's own opinions remain: a composed spec, `active` not `false`,
/// the specifier `def` (a `class` is abstract, an `over` undefined) and, under load rules, loaded.
fn passes(prim: &Prim, all_loaded: bool) -> anyhow::Result<bool> {
    if !prim.is_valid()? {
        return Ok(false);
    }
    // A prim's composed `active` field, read as metadata on its own path (the crate reads it so).
    let active = prim
        .stage()
        .attribute(prim.path().clone())
        .get_metadata::<bool>("active")?
        .unwrap_or(true);
    if !active || prim.specifier()? != Some(sdf::Specifier::Def) {
        return Ok(false);
    }
    Ok(all_loaded || prim.is_loaded()?)
}
