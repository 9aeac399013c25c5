//! Opening a model by file path or as `builtin:NAME`.

use std::path::Path;

use crate::builtin::builtin_scene;
use crate::scene::{
    LoadOptions, Scene, SceneError, is_usd_path, load_fbx_path_with, load_gltf_path_with,
    load_usd_path_with,
};

/// The model opened when none is named.
pub const DEFAULT_MODEL: &str = "builtin:twist";

/// The extensions of model files (lower case, no dot), as the file dialog lists them and
/// `check` searches folders for them: glTF (`.vrm` is a GLB with a VRM extension), FBX, USD.
pub const MODEL_EXTENSIONS: [&str; 8] =
    ["glb", "gltf", "vrm", "fbx", "usd", "usda", "usdc", "usdz"];

/// Loads `spec`: `builtin:NAME` for a built-in rig, else a `.fbx`, `.usd`/`.usda`/`.usdc`/`.usdz` or `.gltf`/`.glb`/`.vrm` path ([`LoadOptions::DEFAULT`]).
///
/// Any other path is read as glTF, which tells JSON from GLB by the file's first bytes.
pub fn load_model(spec: &str) -> Result<Scene, SceneError> {
    load_model_with(spec, &LoadOptions::DEFAULT)
}

/// Loads `spec` like [`load_model`]; a file is loaded within the limits and URI policy of `options`.
pub fn load_model_with(spec: &str, options: &LoadOptions) -> Result<Scene, SceneError> {
    match spec.strip_prefix("builtin:") {
        Some(name) => builtin_scene(name),
        None => {
            let path = Path::new(spec);
            let is_fbx = path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("fbx"));
            if is_fbx {
                load_fbx_path_with(path, options)
            } else if is_usd_path(path) {
                load_usd_path_with(path, options)
            } else {
                load_gltf_path_with(path, options)
            }
        }
    }
}
