//! What `check` runs over: files as given, folders searched for models, `builtin:NAME`s.

use std::path::{Path, PathBuf};

/// File extensions a folder is searched for (compared without regard to case): the model files.
pub use crate::model::MODEL_EXTENSIONS;

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
    /// A path that cannot be followed, with why (`is a link that loops back on itself`, ...).
    #[error("{0}: {1}")]
    Unreachable(PathBuf, String),
    /// A `builtin:NAME` that does not exist.
    #[error("unknown built-in rig `{0}` (known: twist, elbow, arm)")]
    UnknownBuiltin(String),
    /// Nothing to check: the folders given hold no models (a CI gate must not pass on nothing).
    #[error("no .glb, .gltf, .vrm, .fbx or .usd/.usda/.usdc/.usdz files in {0}")]
    NothingFound(String),
}

/// A folder entry that looked like a model (or was a link to a folder) but was not checked.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SkippedEntry {
    /// The entry's path.
    pub path: String,
    /// Why it was skipped, e.g. `is a FIFO (named pipe)` or `is a dangling link`.
    pub reason: String,
}

/// What `check` runs over: the models, and the folder entries skipped on the way.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inputs {
    /// The models (and unreadable folders), in order.
    pub models: Vec<CheckInput>,
    /// Entries met while searching folders that are not checked, in the order met.
    pub skipped: Vec<SkippedEntry>,
}

/// The models `args` name, in order: `builtin:NAME` as is, a file as given (whatever its
/// extension and kind: the loader refuses what is not a regular file), a folder searched
/// recursively for [`MODEL_EXTENSIONS`] (entries sorted by name; symbolic links to files are
/// followed, links to folders are not, so no cycle is walked). The same path named twice is
/// checked once. Folder entries with a model extension that are no regular file (a FIFO, a
/// device, a dangling or looping link), links to folders and entries that cannot be read are
/// listed in [`Inputs::skipped`] with the reason.
pub fn collect_inputs(args: &[String]) -> Result<Inputs, InputError> {
    let mut out = Inputs::default();
    for arg in args {
        if let Some(name) = arg.strip_prefix("builtin:") {
            if !crate::builtin::BUILTIN_NAMES.contains(&name) {
                return Err(InputError::UnknownBuiltin(arg.clone()));
            }
            push_unique(&mut out.models, CheckInput::Model(arg.clone()));
            continue;
        }
        let path = Path::new(arg);
        let meta = std::fs::metadata(path).map_err(|e| unreachable(path, &e))?;
        if meta.is_dir() {
            walk(path, &mut out);
        } else {
            push_unique(&mut out.models, CheckInput::Model(arg.clone()));
        }
    }
    if out.models.is_empty() {
        let mut what = args.join(", ");
        if !out.skipped.is_empty() {
            let skipped: Vec<String> = out
                .skipped
                .iter()
                .map(|s| format!("{} {}", s.path, s.reason))
                .collect();
            what = format!("{what} (skipped: {})", skipped.join("; "));
        }
        return Err(InputError::NothingFound(what));
    }
    Ok(out)
}

/// Adds `input` unless it is already listed.
fn push_unique(out: &mut Vec<CheckInput>, input: CheckInput) {
    if !out.contains(&input) {
        out.push(input);
    }
}

/// What a folder entry is, links followed once.
enum Entry {
    /// A folder to walk.
    Folder,
    /// A regular file (or a link to one).
    File,
    /// Not checked, with the reason; `always` when it is listed whatever its name.
    Skip { reason: String, always: bool },
}

/// What the entry `path` of type `kind` (the entry's own, links not followed) is.
fn classify(path: &Path, kind: std::fs::FileType) -> Entry {
    use crate::scene::NotAFile;
    if kind.is_dir() {
        return Entry::Folder;
    }
    if kind.is_file() {
        return Entry::File;
    }
    if !kind.is_symlink() {
        let what = NotAFile::of_type(kind).map_or("not a regular file", NotAFile::describe);
        return Entry::Skip {
            reason: format!("is {what}"),
            always: false,
        };
    }
    match std::fs::metadata(path) {
        Ok(meta) => match NotAFile::of(&meta) {
            None => Entry::File,
            Some(NotAFile::Folder) => Entry::Skip {
                reason: String::from("is a link to a folder (not followed, so no cycle is walked)"),
                always: true,
            },
            Some(other) => Entry::Skip {
                reason: format!("is a link to {}", other.describe()),
                always: false,
            },
        },
        Err(e) => Entry::Skip {
            reason: link_trouble(path, &e).map_or_else(
                || format!("is a link that cannot be followed ({e})"),
                str::to_owned,
            ),
            always: false,
        },
    }
}

/// Why the path `path` named on the command line cannot be checked, given the error of
/// following it: a link loop and a dangling link say so; anything else is not found.
fn unreachable(path: &Path, e: &std::io::Error) -> InputError {
    match link_trouble(path, e) {
        Some(why) => InputError::Unreachable(path.to_owned(), why.to_owned()),
        None if e.kind() == std::io::ErrorKind::NotFound => InputError::NotFound(path.to_owned()),
        None => InputError::Unreachable(path.to_owned(), format!("cannot be read ({e})")),
    }
}

/// What is wrong with the link `path` whose following failed with `e`: a loop, or a target
/// that does not exist; `None` when `path` is no link (or the error is another).
fn link_trouble(path: &Path, e: &std::io::Error) -> Option<&'static str> {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if is_link_loop(e) {
        Some("is a link that loops back on itself")
    } else if is_link && e.kind() == std::io::ErrorKind::NotFound {
        Some("is a dangling link (its target does not exist)")
    } else {
        None
    }
}

/// Whether `e` is "too many levels of symbolic links" (ELOOP).
fn is_link_loop(e: &std::io::Error) -> bool {
    // ELOOP is 40 on Linux, 62 on macOS and the BSDs.
    matches!(e.raw_os_error(), Some(40 | 62)) && cfg!(unix)
}

/// Appends the models under folder `dir`, depth first, entries sorted by name.
fn walk(dir: &Path, out: &mut Inputs) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            out.models.push(CheckInput::Unreadable {
                path: dir.display().to_string(),
                reason: e.to_string(),
            });
            return;
        }
    };
    let mut paths: Vec<(PathBuf, Entry)> = Vec::new();
    for entry in entries {
        match entry.and_then(|e| Ok((e.path(), e.file_type()?))) {
            Ok((path, kind)) => {
                let class = classify(&path, kind);
                paths.push((path, class));
            }
            Err(e) => out.skipped.push(SkippedEntry {
                path: dir.display().to_string(),
                reason: format!("has an entry that cannot be read ({e})"),
            }),
        }
    }
    paths.sort_by(|a, b| a.0.cmp(&b.0));
    for (path, class) in paths {
        match class {
            Entry::Folder => walk(&path, out),
            Entry::File if has_model_extension(&path) => {
                push_unique(
                    &mut out.models,
                    CheckInput::Model(path.display().to_string()),
                );
            }
            Entry::File => {}
            Entry::Skip { reason, always } if always || has_model_extension(&path) => {
                out.skipped.push(SkippedEntry {
                    path: path.display().to_string(),
                    reason,
                });
            }
            Entry::Skip { .. } => {}
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
        for name in ["b.glb", "a.GLTF", "notes.txt", "sub/c.fbx", "d.VRM"] {
            std::fs::write(dir.join(name), b"x").unwrap();
        }
        let d = dir.display().to_string();
        let args = vec![String::from("builtin:arm"), d.clone(), d.clone()];
        let found = collect_inputs(&args).unwrap();
        assert!(found.skipped.is_empty(), "{:?}", found.skipped);
        let names: Vec<&str> = found.models.iter().map(CheckInput::name).collect();
        let expected = [
            String::from("builtin:arm"),
            format!("{d}/a.GLTF"),
            format!("{d}/b.glb"),
            format!("{d}/d.VRM"),
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

    #[cfg(unix)]
    #[test]
    fn entries_that_are_no_regular_file_are_listed_as_skipped() {
        use std::os::unix::fs::symlink;
        let dir = std::env::temp_dir().join(format!("dqview-check-skips-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("sub/ok.glb"), b"x").unwrap();
        std::fs::write(dir.join("notes.txt"), b"x").unwrap();
        let fifo = std::process::Command::new("mkfifo")
            .arg(dir.join("pipe.glb"))
            .status()
            .unwrap();
        assert!(fifo.success());
        symlink(dir.join("missing.glb"), dir.join("dangling.glb")).unwrap();
        symlink(dir.join("loop.glb"), dir.join("loop.glb")).unwrap();
        symlink("/dev/zero", dir.join("zero.fbx")).unwrap();
        symlink(dir.join("sub"), dir.join("sublink")).unwrap();
        symlink(dir.join("sub/ok.glb"), dir.join("linked.glb")).unwrap();
        // Not model names: not listed.
        symlink(dir.join("nowhere"), dir.join("dangling.txt")).unwrap();
        let d = dir.display().to_string();
        let found = collect_inputs(std::slice::from_ref(&d)).unwrap();
        let names: Vec<&str> = found.models.iter().map(CheckInput::name).collect();
        assert_eq!(
            names,
            [format!("{d}/linked.glb"), format!("{d}/sub/ok.glb")]
        );
        let skipped: Vec<(String, &str)> = found
            .skipped
            .iter()
            .map(|s| (s.path.replace(&d, ""), s.reason.as_str()))
            .collect();
        // Named on the command line, a loop and a dangling link say what they are.
        for (name, why) in [
            ("loop.glb", "is a link that loops back on itself"),
            (
                "dangling.glb",
                "is a dangling link (its target does not exist)",
            ),
        ] {
            let path = format!("{d}/{name}");
            let err = collect_inputs(std::slice::from_ref(&path)).unwrap_err();
            assert_eq!(err.to_string(), format!("{path}: {why}"));
        }
        let expected = [
            (
                "/dangling.glb",
                "is a dangling link (its target does not exist)",
            ),
            ("/loop.glb", "is a link that loops back on itself"),
            ("/pipe.glb", "is a FIFO (named pipe)"),
            (
                "/sublink",
                "is a link to a folder (not followed, so no cycle is walked)",
            ),
            ("/zero.fbx", "is a link to a device"),
        ];
        let expected: Vec<(String, &str)> = expected
            .iter()
            .map(|(p, r)| ((*p).to_owned(), *r))
            .collect();
        assert_eq!(skipped, expected);
        std::fs::remove_dir_all(dir.join("sub")).unwrap();
        std::fs::remove_file(dir.join("linked.glb")).unwrap();
        let Err(InputError::NothingFound(message)) = collect_inputs(&[d]) else {
            panic!("a folder of skipped entries has nothing to check");
        };
        assert!(message.contains("pipe.glb is a FIFO"), "{message}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
