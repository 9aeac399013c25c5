//! Writing output files all or none, for the commands that write into a model's file
//! (`blend_file`, `rig_file`): each file goes to a temporary name in its own folder and is
//! renamed into place only when all are complete and no Ctrl+C came first ([`Interrupt`]), so
//! a cancelled or failed run leaves no partial file. An edge module (anyhow errors).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};

use crate::interrupt::{CommitError, Interrupt};
use crate::scene::{DataFault, ExternalFile, FaultSeverity, Scene};

/// What the model is, as far as writing goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// `builtin:NAME`.
    Builtin,
    /// An FBX file.
    Fbx,
    /// A binary glTF file.
    Glb,
    /// A glTF JSON file.
    Gltf,
    /// A USD file (`.usd`, `.usda`, `.usdc`, `.usdz`).
    Usd,
}

impl InputKind {
    /// The kind of `model`: by the `builtin:` prefix, the `.fbx` extension, else the file's first bytes.
    pub fn of(model: &str) -> Self {
        if model.starts_with("builtin:") {
            return Self::Builtin;
        }
        let path = Path::new(model);
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        if ext == "fbx" {
            return Self::Fbx;
        }
        if crate::scene::is_usd_path(path) {
            return Self::Usd;
        }
        let mut magic = [0u8; 4];
        let read = std::fs::File::open(path).and_then(|mut f| {
            use std::io::Read;
            f.read_exact(&mut magic)
        });
        match read {
            Ok(()) if &magic == b"glTF" => Self::Glb,
            Ok(()) => Self::Gltf,
            Err(_) if ext == "glb" => Self::Glb,
            Err(_) => Self::Gltf,
        }
    }
}

/// What was written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WriteReport {
    /// Files written, the main one first.
    pub files: Vec<PathBuf>,
    /// Notes for the user (what a GLB from FBX lacks, repointed attributes, ...).
    pub notes: Vec<String>,
    /// What the input carried that was left out or fixed so others can open the output.
    pub warnings: Vec<String>,
}

impl WriteReport {
    /// The files written, comma-separated, the main one first.
    #[must_use]
    pub fn file_list(&self) -> String {
        let names: Vec<String> = self.files.iter().map(|f| f.display().to_string()).collect();
        names.join(", ")
    }
}

/// Refuses to amend the glTF file `model` when its data has an error fault ([`crate::scene::FaultKind::severity`]):
/// the amended file keeps the input's accessors and animations as written, so it would hold
/// the same data the glTF spec refuses and fail the glTF-Validator. Other inputs pass.
pub fn refuse_faulty_gltf(scene: &Scene, model: &str) -> Result<()> {
    if !matches!(InputKind::of(model), InputKind::Glb | InputKind::Gltf) {
        return Ok(());
    }
    let errors: Vec<String> = scene
        .faults
        .iter()
        .filter(|f| f.severity() == FaultSeverity::Error)
        .map(DataFault::message)
        .collect();
    match errors.as_slice() {
        [] => Ok(()),
        [first, rest @ ..] => bail!(
            "{model} holds data the glTF spec refuses ({first}{}); the amended file would keep it \
             as written and fail the glTF-Validator: fix the file first (`dqview check` lists each)",
            if rest.is_empty() {
                String::new()
            } else {
                format!(", and {} more", rest.len())
            }
        ),
    }
}

/// The folder a file is in (`.` for a bare name).
pub(crate) fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Copies the files the input's URIs name next to the output, when it goes to another folder.
///
/// Relative URIs resolve against the output's folder, so a `.gltf` written
/// elsewhere needs its buffers and images there too; the JSON keeps its URIs.
/// Identical files already there are left alone; a different one is an error,
/// as is a URI that climbs out of the input's folder.
pub(crate) fn copy_external_files(
    in_dir: &Path,
    out_dir: &Path,
    files: &[ExternalFile],
    staged: &mut Vec<Staged>,
    notes: &mut Vec<String>,
) -> Result<()> {
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if files.is_empty() || same(in_dir, out_dir) {
        return Ok(());
    }
    let mut copied = 0;
    for file in files {
        let Some(relative) = &file.relative_path else {
            if file.uri.starts_with('/') || file.uri.contains(':') {
                continue; // Absolute: resolves from anywhere.
            }
            bail!(
                "{} names `{}`, outside the input's folder, which would not resolve from {}: write the output into the input's folder",
                file.owner,
                file.uri,
                out_dir.display()
            );
        };
        let from = in_dir.join(relative);
        let to = out_dir.join(relative);
        let bytes =
            std::fs::read(&from).with_context(|| format!("cannot read {}", from.display()))?;
        match std::fs::read(&to) {
            Ok(existing) if existing == bytes => continue,
            Ok(_) => bail!(
                "{} names `{}`, and {} already exists with other content; not overwritten",
                file.owner,
                file.uri,
                to.display()
            ),
            Err(_) => {}
        }
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        staged.push(Staged::write(&to, &bytes)?);
        copied += 1;
    }
    if copied > 0 {
        notes.push(format!(
            "copied {copied} file(s) the input's URIs name into {}, so the output's relative URIs resolve",
            out_dir.display()
        ));
    }
    Ok(())
}

/// A file written under a temporary name in its destination's folder, renamed by [`commit`].
pub(crate) struct Staged {
    temp: PathBuf,
    dest: PathBuf,
    done: bool,
}

impl Staged {
    /// Writes `bytes` to `.NAME.PID.tmp` beside `dest`.
    pub(crate) fn write(dest: &Path, bytes: &[u8]) -> Result<Self> {
        let name = dest
            .file_name()
            .ok_or_else(|| anyhow!("{} is not a file name", dest.display()))?;
        let temp = folder_of(dest).join(format!(
            ".{}.{}.tmp",
            name.to_string_lossy(),
            std::process::id()
        ));
        let staged = Self {
            temp,
            dest: dest.to_path_buf(),
            done: false,
        };
        std::fs::write(&staged.temp, bytes)
            .with_context(|| format!("cannot write {}", dest.display()))?;
        Ok(staged)
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

/// Renames every staged file into place (the last one, the main file, last), unless an
/// interrupt came first ([`Interrupt::commit`]: one that comes later reports the files).
pub(crate) fn commit(
    mut staged: Vec<Staged>,
    interrupt: &Interrupt,
    notes: Vec<String>,
) -> Result<WriteReport> {
    let main = staged.last().map(|s| s.dest.clone()).unwrap_or_default();
    interrupt
        .commit(&main, || -> Result<()> {
            for s in &mut staged {
                std::fs::rename(&s.temp, &s.dest)
                    .with_context(|| format!("cannot write {}", s.dest.display()))?;
                s.done = true;
            }
            Ok(())
        })
        .map_err(|e| match e {
            CommitError::Cancelled => anyhow!("cancelled: no file written"),
            CommitError::Failed(e) => e,
        })?;
    let mut files: Vec<PathBuf> = staged.iter().map(|s| s.dest.clone()).collect();
    files.rotate_right(1);
    Ok(WriteReport {
        files,
        notes,
        warnings: Vec::new(),
    })
}
