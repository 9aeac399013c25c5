//! What a path may be when dqview opens it: a regular file, read no further than a limit.
//!
//! Every loader (glTF, FBX, and the files their URIs name) reads through [`read_regular_file`],
//! so a FIFO never blocks a load, a device such as `/dev/zero` is never read, and a file is
//! never read past its byte limit, whatever its metadata claims.

use std::fs::{FileType, Metadata};
use std::io::Read;
use std::path::Path;

use crate::scene::SceneError;

/// What a path names when it is not a regular file (links followed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotAFile {
    /// A folder.
    Folder,
    /// A named pipe: opening it would wait for a writer.
    Fifo,
    /// A character or block device (`/dev/zero`, a disk).
    Device,
    /// A Unix socket.
    Socket,
    /// Something else the platform has.
    Other,
}

impl NotAFile {
    /// The kind of `meta` (links followed), or `None` for a regular file.
    #[must_use]
    pub fn of(meta: &Metadata) -> Option<Self> {
        Self::of_type(meta.file_type())
    }

    /// The kind of `kind`, or `None` for a regular file; a link's own type is [`NotAFile::Other`].
    #[must_use]
    pub fn of_type(kind: FileType) -> Option<Self> {
        if kind.is_file() {
            return None;
        }
        if kind.is_dir() {
            return Some(Self::Folder);
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            if kind.is_fifo() {
                return Some(Self::Fifo);
            }
            if kind.is_char_device() || kind.is_block_device() {
                return Some(Self::Device);
            }
            if kind.is_socket() {
                return Some(Self::Socket);
            }
        }
        Some(Self::Other)
    }

    /// What it is, after "is": `a FIFO`, `a device`, ...
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            Self::Folder => "a folder",
            Self::Fifo => "a FIFO (named pipe)",
            Self::Device => "a device",
            Self::Socket => "a socket",
            Self::Other => "not a regular file",
        }
    }

    /// The advice after the description: for a folder, to check the models in it.
    #[must_use]
    pub fn hint(self) -> &'static str {
        match self {
            Self::Folder => ": use `dqview check DIR` to check the models in it",
            _ => ", not a regular file; only regular files are opened",
        }
    }
}

impl std::fmt::Display for NotAFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "is {}{}", self.describe(), self.hint())
    }
}

/// Why [`read_regular_file`] read nothing.
#[derive(Debug, thiserror::Error)]
pub enum FileReadError {
    /// The path names no regular file (what it is instead).
    #[error("{0}")]
    NotAFile(NotAFile),
    /// The file holds more than the bytes allowed; how many it holds (at least).
    #[error("file has more than {0} bytes")]
    TooLarge(u64),
    /// It could not be opened or read.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Reads the regular file `path` (links followed), refusing anything else before opening it,
/// and a file of more than `max_bytes` without reading past `max_bytes + 1` bytes.
pub fn read_regular_file(path: &Path, max_bytes: u64) -> Result<Vec<u8>, FileReadError> {
    let meta = std::fs::metadata(path)?;
    if let Some(kind) = NotAFile::of(&meta) {
        return Err(FileReadError::NotAFile(kind));
    }
    if meta.len() > max_bytes {
        return Err(FileReadError::TooLarge(meta.len()));
    }
    let file = std::fs::File::open(path)?;
    // The file may change between the metadata and the read: the limit holds whatever it became.
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max_bytes {
        return Err(FileReadError::TooLarge(bytes.len() as u64));
    }
    Ok(bytes)
}

/// Reads a model file for a loader: [`read_regular_file`] with its errors as a [`SceneError`]
/// (`what` and `flag` name the limit, e.g. `bytes in the file` and `--max-buffer-bytes`).
pub fn read_model_file(path: &Path, max_bytes: u64) -> Result<Vec<u8>, SceneError> {
    read_regular_file(path, max_bytes).map_err(|e| match e {
        FileReadError::NotAFile(kind) => SceneError::NotAFile {
            path: path.to_owned(),
            kind,
        },
        FileReadError::TooLarge(found) => SceneError::LimitExceeded {
            what: "bytes in the file",
            found,
            limit: max_bytes,
            flag: "--max-buffer-bytes",
            field: "max_buffer_bytes",
        },
        FileReadError::Io(source) => SceneError::Io {
            path: path.to_owned(),
            source,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_are_read_and_never_past_the_limit() {
        let dir = std::env::temp_dir().join(format!("dqview-file-read-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("a.glb");
        std::fs::write(&file, b"12345").unwrap();
        assert_eq!(read_regular_file(&file, 5).unwrap(), b"12345");
        assert!(matches!(
            read_regular_file(&file, 4),
            Err(FileReadError::TooLarge(5))
        ));
        assert!(matches!(
            read_regular_file(&dir, 100),
            Err(FileReadError::NotAFile(NotAFile::Folder))
        ));
        let folder = read_model_file(&dir, 100).unwrap_err().to_string();
        assert!(folder.contains("use `dqview check DIR`"), "{folder}");
        #[cfg(unix)]
        {
            // /dev/zero has length 0 and never ends: refused before it is opened.
            assert!(matches!(
                read_regular_file(Path::new("/dev/zero"), 1 << 40),
                Err(FileReadError::NotAFile(NotAFile::Device))
            ));
            let link = dir.join("zero.glb");
            std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
            let err = read_model_file(&link, 1 << 40).unwrap_err().to_string();
            assert!(err.contains("is a device"), "{err}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
