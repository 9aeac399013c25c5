//! On-disk cache of Direct Delta Mush's matrices, beside CoR's centers (same directory,
//! [`crate::skin::cor_cache_dir`]): each file is named by a hash of the welded surface and the
//! parameters, so an edited rig or another setting gets its own. A cache that cannot be read
//! or written is only a warning.

use std::io::Write;
use std::path::Path;

use super::precompute::Sym4;
use super::{DdmParams, DdmWeights, WeldedSurface};
use crate::skin::cor_cache::Fnv;

/// First bytes of a cache file (format version in the last two).
const MAGIC: &[u8; 8] = b"DQVDDM01";

/// The cache key of `surface`'s matrices under `params`.
#[must_use]
pub fn ddm_cache_key(surface: &WeldedSurface, params: DdmParams) -> u64 {
    let mut h = Fnv::new();
    h.bytes(&(surface.positions.len() as u64).to_le_bytes());
    for p in &surface.positions {
        h.bytes(bytemuck::cast_slice(&p.to_array()));
    }
    h.bytes(&(surface.triangles.len() as u64).to_le_bytes());
    for t in &surface.triangles {
        h.bytes(bytemuck::cast_slice(t));
    }
    for row in &surface.influences {
        h.bytes(&(row.len() as u32).to_le_bytes());
        for i in row {
            h.bytes(&i.joint.to_le_bytes());
            h.bytes(&i.weight.to_le_bytes());
        }
    }
    h.bytes(&params.p.to_le_bytes());
    for x in [params.lambda, params.kappa, params.alpha] {
        h.bytes(&x.to_le_bytes());
    }
    h.0
}

/// The cached matrices of `surface` under `params` in `dir`, if a well-formed file holds them.
#[must_use]
pub fn read_cached(dir: &Path, surface: &WeldedSurface, params: DdmParams) -> Option<DdmWeights> {
    let file = dir.join(format!("ddm-{:016x}.bin", ddm_cache_key(surface, params)));
    let bytes = std::fs::read(&file).ok()?;
    let parsed = parse(&bytes, surface.len());
    if parsed.is_none() {
        log::warn!("ignoring malformed cache file {}", file.display());
    }
    parsed
}

/// Writes `weights` for `surface` under `params` into `dir`; a failure is logged, not returned.
pub fn write_cached(dir: &Path, surface: &WeldedSurface, params: DdmParams, weights: &DdmWeights) {
    let file = dir.join(format!("ddm-{:016x}.bin", ddm_cache_key(surface, params)));
    if let Err(e) = write(dir, &file, weights) {
        log::warn!("cannot cache DDM matrices in {}: {e}", dir.display());
    }
}

/// Little-endian u32 words of `bytes` from `at`, `count` of them, advancing `at`.
fn words(bytes: &[u8], at: &mut usize, count: usize) -> Option<Vec<u32>> {
    let end = at.checked_add(count.checked_mul(4)?)?;
    let part = bytes.get(*at..end)?;
    *at = end;
    Some(
        part.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    )
}

/// A cache file's matrices for a surface of `n` vertices; `None` when anything is off.
fn parse(bytes: &[u8], n: usize) -> Option<DdmWeights> {
    let mut at = MAGIC.len();
    if bytes.get(..at)? != MAGIC.as_slice() {
        return None;
    }
    let head = words(bytes, &mut at, 4)?;
    let [vertices, pairs, conditioned, keeps] =
        [head[0], head[1], head[2], head[3]].map(|w| w as usize);
    if vertices != n || keeps > 1 {
        return None;
    }
    let offsets = words(bytes, &mut at, n + 1)?;
    let monotonic = offsets.windows(2).all(|w| w[0] <= w[1]);
    if offsets.first() != Some(&0) || offsets.last() != Some(&(pairs as u32)) || !monotonic {
        return None;
    }
    let joints = words(bytes, &mut at, pairs)?;
    let joints: Vec<u16> = joints
        .iter()
        .map(|&j| u16::try_from(j).ok())
        .collect::<Option<_>>()?;
    let omega_bits = words(bytes, &mut at, pairs.checked_mul(10)?)?;
    let omega: Vec<Sym4> = omega_bits
        .chunks_exact(10)
        .map(|c| std::array::from_fn(|k| f32::from_bits(c[k])))
        .collect();
    let conditioned = words(bytes, &mut at, conditioned)?;
    let all_finite = omega.iter().flatten().all(|x| x.is_finite());
    let in_range = conditioned.iter().all(|&v| (v as usize) < n);
    (at == bytes.len() && all_finite && in_range).then_some(DdmWeights {
        offsets,
        joints,
        omega,
        conditioned,
        keeps_constants: keeps == 1,
    })
}

/// Writes a cache file atomically (temporary file, then rename).
fn write(dir: &Path, file: &Path, w: &DdmWeights) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let tmp = file.with_extension(format!("tmp{}", std::process::id()));
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        f.write_all(MAGIC)?;
        let n = w.offsets.len().saturating_sub(1);
        let head = [
            n,
            w.joints.len(),
            w.conditioned.len(),
            usize::from(w.keeps_constants),
        ];
        for x in head {
            f.write_all(&(x as u32).to_le_bytes())?;
        }
        for x in &w.offsets {
            f.write_all(&x.to_le_bytes())?;
        }
        for &j in &w.joints {
            f.write_all(&u32::from(j).to_le_bytes())?;
        }
        for x in w.omega.iter().flatten() {
            f.write_all(&x.to_le_bytes())?;
        }
        for x in &w.conditioned {
            f.write_all(&x.to_le_bytes())?;
        }
        f.flush()?;
    }
    std::fs::rename(&tmp, file)
}
