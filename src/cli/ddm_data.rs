//! `dqview ddm`: Direct Delta Mush's matrices of every skinned primitive in the layout the
//! exported `--method ddm` shaders read (`dqview_ddm`), for an engine to upload.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};

use crate::render::ddm_words;
use crate::scene::Scene;
use crate::skin::ddm::SceneDdm;

/// The file's first eight bytes.
pub const DDM_FILE_MAGIC: &[u8; 8] = b"DQVDDM1\0";

/// Options of `dqview ddm`.
#[derive(Clone, Debug, clap::Args)]
pub struct DdmDataArgs {
    /// A .gltf/.glb/.vrm, .fbx or USD path, or builtin:NAME.
    #[arg(value_name = "MODEL")]
    pub model: String,
    /// Output file (binary, little-endian; layout in docs/engines.md).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Direct Delta Mush's parameters.
    #[command(flatten)]
    pub ddm: super::DdmArgs,
    /// Load limits and URI policy.
    #[command(flatten)]
    pub load: super::LoadArgs,
}

/// One skinned primitive's words as the exported shaders read them: its vertex count, then
/// the renderer's `vertex_ddm` words (per-vertex pair offsets, then the pairs).
#[must_use]
pub fn export_ddm_words(ddm: &SceneDdm, mesh: usize, primitive: usize) -> Option<Vec<u32>> {
    let m = ddm.per_mesh.get(mesh)?.as_ref()?;
    let vertex_of = m
        .surface
        .vertex_of
        .get(primitive)
        .filter(|v| !v.is_empty())?;
    let mut words = vec![u32::try_from(vertex_of.len()).ok()?];
    words.extend(ddm_words(m, vertex_of));
    Some(words)
}

/// The file: magic, primitive count, then per primitive its mesh and primitive index (the
/// file's order), word count and words ([`export_ddm_words`]).
#[must_use]
pub fn ddm_file(scene: &Scene, ddm: &SceneDdm) -> (Vec<u8>, usize) {
    let mut blocks = Vec::new();
    for (m, mesh) in scene.meshes.iter().enumerate() {
        for p in 0..mesh.primitives.len() {
            if let Some(words) = export_ddm_words(ddm, m, p) {
                blocks.push((m as u32, p as u32, words));
            }
        }
    }
    let mut out = DDM_FILE_MAGIC.to_vec();
    out.extend((blocks.len() as u32).to_le_bytes());
    for (m, p, words) in &blocks {
        out.extend(m.to_le_bytes());
        out.extend(p.to_le_bytes());
        out.extend((words.len() as u32).to_le_bytes());
        out.extend(words.iter().flat_map(|w| w.to_le_bytes()));
    }
    (out, blocks.len())
}

/// Writes the matrices of `args.model` to `args.out`.
pub fn run(args: &DdmDataArgs) -> Result<()> {
    let scene = super::load(&args.model, &args.load)?;
    let ddm = args.ddm.compute(&scene)?;
    let (bytes, primitives) = ddm_file(&scene, &ddm);
    if primitives == 0 {
        bail!(
            "{} has no skinned primitive to write matrices for",
            args.model
        );
    }
    std::fs::write(&args.out, &bytes)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    println!(
        "wrote {} ({primitives} primitives, {} vertex-joint pairs, {} bytes; p {} lambda {} kappa {} alpha {})",
        args.out.display(),
        ddm.pair_count(),
        bytes.len(),
        ddm.params.p,
        ddm.params.lambda,
        ddm.params.kappa,
        ddm.params.alpha
    );
    Ok(())
}
