//! Opening a model by file path or as `builtin:NAME`.

use std::path::Path;

use crate::builtin::builtin_scene;
use crate::scene::{Scene, SceneError, load_gltf_path};

/// The model opened when none is named.
pub const DEFAULT_MODEL: &str = "builtin:twist";

/// Loads `spec`: `builtin:NAME` for a built-in rig, else a `.gltf`/`.glb` path.
pub fn load_model(spec: &str) -> Result<Scene, SceneError> {
    match spec.strip_prefix("builtin:") {
        Some(name) => builtin_scene(name),
        None => load_gltf_path(Path::new(spec)),
    }
}
