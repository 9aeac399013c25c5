//! What `check` runs over: files as given, folders searched for models, `builtin:NAME`s.

use std::path::{Path, PathBuf};

/// File extensions a folder is searched for (compared without regard to case).
pub const MODEL_EXTENSIONS: [&str; 7] = ["glb", "gltf", "fbx", "usd", "usda", "usdc", "usdz"];

/// One entry of the check: a model to load, or a folder that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckInput {
    /// A model path or `builtin:NAME`, as [`crate::model::load_model_with`] takes it.
    Model(String),
    /// A folder met while searching that could not be listed: reported as a `load_error`.
    Unreadable {
        /// The folder.
        path: String,
        /// Why it could not be read.
        reason: String,
    },
}

impl CheckInput {
    /// The path or name the report shows.
    #[must_use]
    pub fn name(&self) -> &str {
        match self {
            Self::Model(m) => m,
            Self::Unreadable { path, .. } => path,
        }
    }
}

/// Why the inputs cannot be checked at all: a mistake in the command, not in a file.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// A path that does not exist.
    #[error("{0}: no such file or folder")]
    NotFound(PathBuf),
    /// A `builtin:NAME` that does not exist.
    #[error("unknown built-in rig `{0}` (known: twist, elbow, arm)")]
    UnknownBuiltin(String),
    /// Nothing to check: the folders given hold no models (a CI gate must not pass on nothing).
    #[error("no .glb, .gltf, .fbx or .usd/.usda/.usdc/.usdz files in {0}")]
    NothingFound(String),
}

/// The models `args` name, in order: `builtin:NAME` as is, a file as given (whatever its
/// extension), a folder searched recursively for [`MODEL_EXTENSIONS`] (entries sorted by
/// name; symbolic links to files are followed, links to folders are not, so no cycle is
/// walked). The same path named twice is checked once.
pub fn collect_inputs(args: &[String]) -> Result<Vec<CheckInput>, InputError> {
    let mut out: Vec<CheckInput> = Vec::new();
    for arg in args {
        if let Some(name) = arg.strip_prefix("builtin:") {
            if !crate::builtin::BUILTIN_NAMES.contains(&name) {
                return Err(InputError::UnknownBuiltin(arg.clone()));
            }
            push_unique(&mut out, CheckInput::Model(arg.clone()));
            continue;
        }
        let path = Path::new(arg);
        let meta = std::fs::metadata(path).map_err(|_| InputError::NotFound(path.to_owned()))?;
        if meta.is_dir() {
            walk(path, &mut out);
        } else {
            push_unique(&mut out, CheckInput::Model(arg.clone()));
        }
    }
    if out.is_empty() {
        return Err(InputError::NothingFound(args.join(", ")));
    }
    Ok(out)
}

/// Adds `input` unless it is already listed.
fn push_unique(out: &mut Vec<CheckInput>, input: CheckInput) {
    if !out.contains(&input) {
        out.push(input);
    }
}

/// Appends the models under folder `dir`, depth first, entries sorted by name.
fn walk(dir: &Path, out: &mut Vec<CheckInput>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            out.push(CheckInput::Unreadable {
                path: dir.display().to_string(),
                reason: e.to_string(),
            });
            return;
        }
    };
    let mut paths: Vec<(PathBuf, bool)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let kind = e.file_type().ok()?;
            // A link counts as a file when it points at one; links to folders are skipped.
            let is_dir = kind.is_dir();
            let is_file = kind.is_file() || (kind.is_symlink() && e.path().is_file());
            (is_dir || is_file).then(|| (e.path(), is_dir))
        })
        .collect();
    paths.sort();
    for (path, is_dir) in paths {
        if is_dir {
            walk(&path, out);
        } else if has_model_extension(&path) {
            push_unique(out, CheckInput::Model(path.display().to_string()));
        }
    }
}

/// Whether `path` ends in one of [`MODEL_EXTENSIONS`].
fn has_model_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| MODEL_EXTENSIONS.iter().any(|m| e.eq_ignore_ascii_case(m)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_files_and_folders() {
        let dir = std::env::temp_dir().join(format!("dqview-check-inputs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        for name in ["b.glb", "a.GLTF", "notes.txt", "sub/c.fbx"] {
            std::fs::write(dir.join(name), b"x").unwrap();
        }
        let d = dir.display().to_string();
        let args = vec![String::from("builtin:arm"), d.clone(), d.clone()];
        let found = collect_inputs(&args).unwrap();
        let names: Vec<&str> = found.iter().map(CheckInput::name).collect();
        let expected = [
            String::from("builtin:arm"),
            format!("{d}/a.GLTF"),
            format!("{d}/b.glb"),
            format!("{d}/sub/c.fbx"),
        ];
        assert_eq!(names, expected);
        let missing = collect_inputs(&[format!("{d}/nope.glb")]);
        assert!(matches!(missing, Err(InputError::NotFound(_))));
        let unknown = collect_inputs(&[String::from("builtin:nope")]);
        assert!(matches!(unknown, Err(InputError::UnknownBuiltin(_))));
        let empty = collect_inputs(&[format!("{d}/sub/../sub/..//sub")]);
        assert!(empty.is_ok());
        std::fs::remove_file(dir.join("sub/c.fbx")).unwrap();
        let empty = collect_inputs(&[format!("{d}/sub")]);
        assert!(matches!(empty, Err(InputError::NothingFound(_))));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
