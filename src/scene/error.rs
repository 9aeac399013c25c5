//! Errors from loading a scene.

use std::path::PathBuf;

/// Why a file could not be loaded; each variant names what was wrong and where.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The gltf crate refused the file (not glTF, bad JSON, bad GLB header, ...).
    #[error("not a valid glTF file: {0}")]
    Gltf(#[from] gltf::Error),
    /// A `builtin:NAME` that does not exist.
    #[error("unknown built-in rig `{0}` (known: twist, elbow, arm)")]
    UnknownBuiltin(String),
    /// The data is structurally wrong in a way the gltf crate did not catch.
    #[error("{0}")]
    Invalid(String),
    /// The scene cannot be written as GLB (dangling index, mismatched lengths, too many joints, ...).
    #[error("cannot write GLB: {0}")]
    Write(String),
}
