//! On-disk cache of centers of rotation, so reopening a rig skips the precompute.
//!
//! Files live in the user's cache directory (`$DQVIEW_CACHE_DIR`, else
//! `$XDG_CACHE_HOME/dqview`, else `~/.cache/dqview`; `%LOCALAPPDATA%\dqview` on
//! Windows), never next to the model. Each is named by a hash of the mesh
//! (positions, triangles, influences) and the options, so an edited rig gets
//! new centers. A cache that cannot be read or written is only a warning.

use std::io::Write;
use std::path::{Path, PathBuf};

use glam::Vec3;

use super::cor_precompute::{CorError, CorMethod, CorOptions, CorProgress, cor_centers};
use crate::influences::Influences;

/// First bytes of a cache file (format version in the last two).
const MAGIC: &[u8; 8] = b"DQVCOR01";

/// The cache directory, if the environment names one.
#[must_use]
pub fn cor_cache_dir() -> Option<PathBuf> {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    env("DQVIEW_CACHE_DIR")
        .or_else(|| env("XDG_CACHE_HOME").map(|d| d.join("dqview")))
        .or_else(|| env("LOCALAPPDATA").map(|d| d.join("dqview")))
        .or_else(|| env("HOME").map(|d| d.join(".cache").join("dqview")))
}

/// FNV-1a, 64 bits: stable across runs and platforms (std's hasher is not).
pub(crate) struct Fnv(pub(crate) u64);

impl Fnv {
    /// FNV-1a's offset basis.
    pub(crate) fn new() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }

    /// Hashes `bytes` in.
    pub(crate) fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// The cache key of one mesh's centers under `options`.
#[must_use]
pub fn cor_cache_key(
    positions: &[Vec3],
    indices: &[u32],
    influences: &Influences,
    options: &CorOptions,
) -> u64 {
    let mut h = Fnv::new();
    h.bytes(&(positions.len() as u64).to_le_bytes());
    h.bytes(bytemuck::cast_slice(positions));
    h.bytes(&(indices.len() as u64).to_le_bytes());
    h.bytes(bytemuck::cast_slice(indices));
    h.bytes(bytemuck::cast_slice(influences.offsets()));
    for i in influences.entries() {
        h.bytes(&i.joint.to_le_bytes());
        h.bytes(&i.weight.to_le_bytes());
    }
    h.bytes(&options.sigma.to_le_bytes());
    h.bytes(&[u8::from(options.subdivide)]);
    let method = match options.method {
        CorMethod::Naive => 0u32,
        CorMethod::PairBuckets => 1,
        CorMethod::Clustered { bins } => 2 + u32::from(bins),
    };
    h.bytes(&method.to_le_bytes());
    h.0
}

/// Where a mesh's centers came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CorSource {
    /// Read from the cache.
    Cache,
    /// Computed (and written to the cache when possible).
    Computed,
}

/// The centers of one mesh from the cache in `dir` (or [`cor_cache_dir`]), else computed and cached.
///
/// Cache problems are logged as warnings and never fail the call.
pub fn cor_centers_cached(
    positions: &[Vec3],
    indices: &[u32],
    influences: &Influences,
    options: &CorOptions,
    progress: &CorProgress,
    dir: Option<&Path>,
) -> Result<(Vec<Vec3>, CorSource), CorError> {
    let dir = dir.map(Path::to_path_buf).or_else(cor_cache_dir);
    let key = cor_cache_key(positions, indices, influences, options);
    let file = dir.as_ref().map(|d| d.join(format!("cor-{key:016x}.bin")));
    if let Some(file) = &file
        && let Some(centers) = read(file, positions.len())
    {
        progress.add_done(positions.len());
        return Ok((centers, CorSource::Cache));
    }
    let centers = cor_centers(positions, indices, influences, options, progress)?;
    if let (Some(dir), Some(file)) = (&dir, &file)
        && let Err(e) = write(dir, file, &centers)
    {
        log::warn!("cannot cache centers of rotation in {}: {e}", dir.display());
    }
    Ok((centers, CorSource::Computed))
}

/// Reads a cache file holding exactly `count` centers; `None` when absent or malformed.
fn read(file: &Path, count: usize) -> Option<Vec<Vec3>> {
    let bytes = std::fs::read(file).ok()?;
    let rest = bytes.strip_prefix(MAGIC.as_slice())?;
    let (n, data) = rest.split_at_checked(8)?;
    let n = u64::from_le_bytes(n.try_into().ok()?);
    if n != count as u64 || data.len() != count * 12 {
        if file.exists() {
            log::warn!("ignoring malformed cache file {}", file.display());
        }
        return None;
    }
    let floats: Vec<f32> = data
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let centers: Vec<Vec3> = floats.chunks_exact(3).map(Vec3::from_slice).collect();
    centers.iter().all(|c| c.is_finite()).then_some(centers)
}

/// Writes a cache file atomically (temporary file, then rename).
fn write(dir: &Path, file: &Path, centers: &[Vec3]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let tmp = file.with_extension(format!("tmp{}", std::process::id()));
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        f.write_all(MAGIC)?;
        f.write_all(&(centers.len() as u64).to_le_bytes())?;
        for c in centers {
            for x in c.to_array() {
                f.write_all(&x.to_le_bytes())?;
            }
        }
        f.flush()?;
    }
    std::fs::rename(&tmp, file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mesh() -> (Vec<Vec3>, Vec<u32>, Influences) {
        let positions = vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::ONE];
        let rows = [
            vec![(0u16, 1.0f32)],
            vec![(0, 0.5), (1, 0.5)],
            vec![(0, 0.3), (1, 0.7)],
            vec![(1, 1.0)],
        ];
        (
            positions,
            vec![0, 1, 2, 1, 3, 2],
            Influences::from_rows(rows),
        )
    }

    #[test]
    fn second_open_reads_the_cache_and_edits_change_the_key() {
        let dir = std::env::temp_dir().join(format!("dqview-cor-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (p, i, w) = mesh();
        let options = CorOptions::default();
        let progress = CorProgress::new();
        let (a, first) = cor_centers_cached(&p, &i, &w, &options, &progress, Some(&dir)).unwrap();
        let (b, second) = cor_centers_cached(&p, &i, &w, &options, &progress, Some(&dir)).unwrap();
        assert_eq!((first, second), (CorSource::Computed, CorSource::Cache));
        assert_eq!(a, b);
        let mut moved = p.clone();
        moved[3].z = 0.5;
        assert_ne!(
            cor_cache_key(&p, &i, &w, &options),
            cor_cache_key(&moved, &i, &w, &options)
        );
        let sharper = CorOptions {
            sigma: 0.05,
            ..options
        };
        assert_ne!(
            cor_cache_key(&p, &i, &w, &options),
            cor_cache_key(&p, &i, &w, &sharper)
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn unwritable_cache_only_warns() {
        // A file where the directory should be: creating the directory fails.
        let blocker =
            std::env::temp_dir().join(format!("dqview-cor-blocker-{}", std::process::id()));
        std::fs::write(&blocker, b"not a directory").unwrap();
        let (p, i, w) = mesh();
        let progress = CorProgress::new();
        let out = cor_centers_cached(
            &p,
            &i,
            &w,
            &CorOptions::default(),
            &progress,
            Some(&blocker),
        );
        assert_eq!(out.map(|x| x.1), Ok(CorSource::Computed));
        let _ = std::fs::remove_file(&blocker);
    }
}
