//! The asset resolver dqview opens stages with: the crate's filesystem resolver, except that
//! every asset it opens (root layer, sublayers, references, payloads, `.usdz` packages and the
//! layers packaged in them) is read whole, within the byte limit, and passes
//! [`check_layer_bytes`] before the crate parses it.
//!
//! The crate reads a layer through `Resolver::open_asset` only, so checking there covers every
//! layer a stage opens. Packaged layers are cut out of the checked package here, not by the ZIP
//! crate, so the bytes checked are the bytes parsed (a text layer's numbers respelled by
//! [`normalize_numbers`], nothing else changed).

use std::collections::HashMap;
use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use openusd::ar::{self, Asset, AssetInfo, DefaultResolver, ResolvedPath, Resolver};

use super::crate_check::{check_layer_bytes, zip};
use super::text_numbers::normalize_numbers;
use crate::scene::file_read::{FileReadError, read_regular_file};

/// An asset's bytes once checked, or why the check refused them.
type Checked = Result<Arc<Vec<u8>>, String>;

/// A [`DefaultResolver`] whose assets pass [`check_layer_bytes`] first.
pub struct GuardedResolver {
    /// Resolution, identifiers and everything else but reading.
    inner: DefaultResolver,
    /// [`crate::scene::LoadOptions::max_buffer_bytes`]: the most bytes one asset may have, and
    /// one of its values decode to.
    max_bytes: u64,
    /// Each asset read so far, by resolved path: the registry opens a `.usd` layer twice (its
    /// first bytes, then the whole), and a package once per packaged layer.
    checked: Mutex<HashMap<String, Checked>>,
}

impl GuardedResolver {
    /// A resolver reading assets of at most `max_bytes` bytes.
    #[must_use]
    pub fn new(max_bytes: u64) -> Self {
        Self {
            inner: DefaultResolver::new(),
            max_bytes,
            checked: Mutex::new(HashMap::new()),
        }
    }

    /// The checked bytes under `key`, reading and checking them with `load` the first time.
    /// A read error is not kept: it says nothing about the bytes.
    fn cached(
        &self,
        key: &str,
        load: impl FnOnce() -> io::Result<Checked>,
    ) -> io::Result<Arc<Vec<u8>>> {
        let lock = || self.checked.lock().unwrap_or_else(PoisonError::into_inner);
        let found = lock().get(key).cloned();
        let checked = match found {
            Some(checked) => checked,
            None => {
                let checked = load()?;
                lock().insert(key.to_owned(), checked.clone());
                checked
            }
        };
        checked.map_err(|why| io::Error::new(io::ErrorKind::InvalidData, format!("{key}: {why}")))
    }

    /// The file at `path`, checked as a package (`.usdz`, whatever its first bytes) or a layer.
    fn file(&self, path: &str) -> io::Result<Arc<Vec<u8>>> {
        self.cached(path, || {
            let bytes = self.read(Path::new(path))?;
            let package = Path::new(path)
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("usdz"));
            let verdict = if package {
                zip::check_package(&bytes, self.max_bytes)
            } else {
                check_layer_bytes(&bytes, self.max_bytes)
            };
            Ok(verdict.map(|()| Arc::new(bytes)))
        })
    }

    /// The packaged layer `inner` of the package at `package`, cut out of the checked package
    /// (whose check covered each packaged crate file).
    fn packaged(&self, resolved: &str, package: &str, inner: &str) -> io::Result<Arc<Vec<u8>>> {
        let archive = self.file(package)?;
        self.cached(resolved, || {
            let entries = zip::entries(&archive).map_err(io::Error::other)?;
            let entry = entries
                .iter()
                .find(|e| e.name == inner.as_bytes())
                .ok_or_else(|| {
                    io::Error::new(
                        io::ErrorKind::NotFound,
                        format!("{package} has no file {inner}"),
                    )
                })?;
            Ok(Ok(Arc::new(entry.data.to_vec())))
        })
    }

    /// Reads a regular file of at most `max_bytes` bytes, the error naming the file and the limit.
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        read_regular_file(path, self.max_bytes).map_err(|e| match e {
            FileReadError::NotAFile(kind) => io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} {kind}", path.display()),
            ),
            FileReadError::TooLarge(found) => io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{} has {found} bytes, more than the limit of {}; raise it with --max-buffer-bytes (LoadOptions::max_buffer_bytes)",
                    path.display(),
                    self.max_bytes
                ),
            ),
            FileReadError::Io(source) => {
                io::Error::new(source.kind(), format!("{}: {source}", path.display()))
            }
        })
    }
}

impl Resolver for GuardedResolver {
    fn create_identifier(&self, asset_path: &str, anchor: Option<&ResolvedPath>) -> String {
        self.inner.create_identifier(asset_path, anchor)
    }

    /// The crate's resolution, except that a path into a package whose bytes fail the check
    /// resolves without the ZIP crate opening it, so reading it reports the check's error.
    fn resolve(&self, asset_path: &str) -> Option<ResolvedPath> {
        if ar::is_package_relative_path(asset_path)
            && let Some((package, inner)) = ar::split_package_relative_path_outer(asset_path)
        {
            let resolved = self.inner.resolve(&package)?;
            let package = resolved.to_string_lossy();
            if !ar::is_package_relative_path(&package) && self.file(&package).is_err() {
                return Some(ResolvedPath::new(ar::join_package_relative_path(
                    &package, &inner,
                )));
            }
        }
        self.inner.resolve(asset_path)
    }

    fn resolve_for_new_asset(&self, asset_path: &str) -> Option<ResolvedPath> {
        self.inner.resolve_for_new_asset(asset_path)
    }

    fn open_asset(&self, resolved_path: &ResolvedPath) -> io::Result<Box<dyn Asset>> {
        let path = resolved_path.to_string_lossy();
        let bytes = match ar::split_package_relative_path_outer(&path) {
            Some((package, inner)) if ar::is_package_relative_path(&path) => {
                self.packaged(&path, &package, &inner)?
            }
            _ => self.file(&path)?,
        };
        // A text layer's Pixar-only number spellings (`.01`, `1.`) rewritten for the crate's lexer.
        let bytes = if bytes.starts_with(b"#usda") {
            normalize_numbers(&bytes).into_owned()
        } else {
            Vec::clone(&bytes)
        };
        Ok(Box::new(io::Cursor::new(bytes)))
    }

    fn get_extension<'a>(&self, asset_path: &'a str) -> &'a str {
        self.inner.get_extension(asset_path)
    }

    fn get_asset_info(&self, asset_path: &str, resolved_path: &ResolvedPath) -> AssetInfo {
        self.inner.get_asset_info(asset_path, resolved_path)
    }

    fn get_modification_timestamp(
        &self,
        asset_path: &str,
        resolved_path: &ResolvedPath,
    ) -> Option<std::time::SystemTime> {
        self.inner
            .get_modification_timestamp(asset_path, resolved_path)
    }

    fn identity(&self) -> String {
        self.inner.identity()
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::super::crate_check::tests::shared_usd;
    use crate::scene::{LoadOptions, SceneError, load_usd_path_with};

    /// A fresh scratch folder for `name`.
    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("dqview-usd-guard-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// RobotExpressive.usdc with the compressed size of its TOKENS block made absurd: the crate
    /// alone allocates 3.5e18 bytes for it and aborts.
    fn damaged_robot() -> Option<Vec<u8>> {
        let mut bytes = shared_usd("RobotExpressive.usdc")?;
        let toc = u64::from_le_bytes(bytes[16..24].try_into().unwrap()) as usize;
        // TOKENS is the first section: its start is 16 bytes into its entry.
        assert!(bytes[toc + 8..].starts_with(b"TOKENS\0"));
        let tokens = u64::from_le_bytes(bytes[toc + 24..toc + 32].try_into().unwrap()) as usize;
        bytes[tokens + 16..tokens + 24].copy_from_slice(&(3_u64 << 60).to_le_bytes());
        Some(bytes)
    }

    /// Loads `path` with the default options; the error as one line.
    fn load_error(path: &Path, options: &LoadOptions) -> String {
        let err = load_usd_path_with(path, options).expect_err("refused");
        assert!(matches!(err, SceneError::Usd(_)), "{err:?}");
        let err = err.to_string();
        assert!(!err.contains('\n'), "{err}");
        err
    }

    #[test]
    fn every_layer_passes_the_check() {
        let Some(bad) = damaged_robot() else {
            return;
        };
        let dir = scratch("layers");
        std::fs::write(dir.join("bad.usdc"), &bad).unwrap();
        let root = load_error(&dir.join("bad.usdc"), &LoadOptions::DEFAULT);
        eprintln!("{root}");
        assert!(root.contains("bad.usdc: USDC TOKENS at byte"), "{root}");
        for (name, text) in [
            (
                "sublayer.usda",
                "#usda 1.0\n(\n    subLayers = [@./bad.usdc@]\n)\n",
            ),
            (
                "reference.usda",
                "#usda 1.0\ndef Xform \"A\" (\n    references = @./bad.usdc@\n)\n{\n}\n",
            ),
            (
                "payload.usda",
                "#usda 1.0\ndef Xform \"A\" (\n    payload = @./bad.usdc@\n)\n{\n}\n",
            ),
        ] {
            std::fs::write(dir.join(name), text).unwrap();
            let err = load_error(&dir.join(name), &LoadOptions::DEFAULT);
            eprintln!("{err}");
            assert!(err.contains("USDC TOKENS at byte"), "{name}: {err}");
        }
    }

    #[test]
    fn packages_and_the_byte_limit() {
        let (Some(package), Some(bad)) = (shared_usd("tube_package.usdz"), damaged_robot()) else {
            return;
        };
        let dir = scratch("packages");
        let good = dir.join("tube.usdz");
        std::fs::write(&good, &package).unwrap();
        assert!(load_usd_path_with(&good, &LoadOptions::DEFAULT).is_ok());
        // The packaged crate file damaged in place: its TOKENS compressed size.
        let mut damaged = package.clone();
        let entry = damaged.windows(8).position(|w| w == b"PXR-USDC").unwrap();
        let toc = u64::from_le_bytes(damaged[entry + 16..entry + 24].try_into().unwrap()) as usize;
        let tokens = u64::from_le_bytes(
            damaged[entry + toc + 24..entry + toc + 32]
                .try_into()
                .unwrap(),
        );
        let at = entry + tokens as usize + 16;
        damaged[at..at + 8].copy_from_slice(&(3_u64 << 60).to_le_bytes());
        std::fs::write(dir.join("bad.usdz"), &damaged).unwrap();
        let err = load_error(&dir.join("bad.usdz"), &LoadOptions::DEFAULT);
        eprintln!("{err}");
        assert!(
            err.contains("USDZ entry tube_dqs.usdc: USDC TOKENS"),
            "{err}"
        );
        // Referenced from a text layer, as a package and as a path into it.
        for target in ["./bad.usdz", "./bad.usdz[tube_dqs.usdc]"] {
            let text =
                format!("#usda 1.0\ndef Xform \"A\" (\n    references = @{target}@\n)\n{{\n}}\n");
            std::fs::write(dir.join("refs.usda"), text).unwrap();
            let err = load_error(&dir.join("refs.usda"), &LoadOptions::DEFAULT);
            eprintln!("{err}");
            assert!(
                err.contains("USDZ entry tube_dqs.usdc: USDC TOKENS"),
                "{target}: {err}"
            );
        }
        // A layer over the byte limit, below a root within it.
        std::fs::write(dir.join("big.usdc"), &bad[..]).unwrap();
        std::fs::write(
            dir.join("root.usda"),
            "#usda 1.0\n(\n    subLayers = [@./big.usdc@]\n)\n",
        )
        .unwrap();
        let small = LoadOptions {
            max_buffer_bytes: 4096,
            ..LoadOptions::DEFAULT
        };
        let err = load_error(&dir.join("root.usda"), &small);
        eprintln!("{err}");
        assert!(err.contains("more than the limit of 4096"), "{err}");
    }
}
