//! `dqview shader`: write the skinning shader for an engine (see render::shader_export).

use std::path::PathBuf;

use anyhow::{Context, Result, anyhow, bail};

use crate::render::shader_export::{
    DEFAULT_EXPORT_JOINTS, ExportInfluences, ExportPalette, ExportStage, ShaderRequest,
    ShaderTarget, THREE_METHODS, export_shader, three_chunk,
};
use crate::skin::SkinningMode;

/// Options of `dqview shader`.
#[derive(Clone, Debug, clap::Args)]
pub struct ShaderArgs {
    /// Language: wgsl, glsl, glsl-es, hlsl, msl, spirv, or three (a GLSL ES chunk for
    /// three.js's built-in materials, integrations/three).
    #[arg(long, value_name = "wgsl|glsl|glsl-es|hlsl|msl|spirv|three")]
    pub target: String,
    /// Skinning method: lbs, dqs, hybrid, cor (its centres from `dqview cor`) or ddm (its
    /// matrices from `dqview ddm`).
    #[arg(long, value_name = "lbs|dqs|hybrid|cor|ddm", default_value = "dqs")]
    pub method: String,
    /// Joints the uniform palette holds (default 256, which fits GLSL ES 3.0's 16 KiB blocks).
    #[arg(long, value_name = "N", conflicts_with = "storage")]
    pub joints: Option<u32>,
    /// Read the palette from storage buffers of any length instead of uniform arrays.
    #[arg(long)]
    pub storage: bool,
    /// Stage: vertex (attributes in, clip position out) or compute (arrays in, a buffer out).
    #[arg(long, value_name = "vertex|compute", default_value = "vertex")]
    pub stage: String,
    /// Influences per vertex: 4, or 8 (influences 4 to 7 at vertex locations 5 and 6, or 8 per
    /// vertex in the compute stage's arrays), as dqview's renderer blends.
    /// Default 4 (for `--target three`, 8).
    #[arg(long, value_name = "4|8")]
    pub influences: Option<u32>,
    /// Output file.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

impl ShaderArgs {
    /// The request these flags name.
    pub fn request(&self) -> Result<ShaderRequest> {
        let target = ShaderTarget::from_name(&self.target).ok_or_else(|| {
            anyhow!(
                "unknown --target `{}` (valid: wgsl, glsl, glsl-es, hlsl, msl, spirv, three)",
                self.target
            )
        })?;
        let method = match SkinningMode::from_name(&self.method) {
            Some(
                m @ (SkinningMode::Lbs
                | SkinningMode::Dqs
                | SkinningMode::Hybrid
                | SkinningMode::Cor
                | SkinningMode::Ddm),
            ) => m,
            Some(SkinningMode::Dm) => bail!(
                "--method dm: Delta Mush smooths the whole mesh each frame (compute passes over \
                 its edges), which one vertex's shader cannot; export lbs, dqs, hybrid, cor or ddm"
            ),
            _ => bail!(
                "unknown --method `{}` (valid: lbs, dqs, hybrid, cor, ddm)",
                self.method
            ),
        };
        let stage = match self.stage.as_str() {
            "vertex" => ExportStage::Vertex,
            "compute" => ExportStage::Compute,
            other => bail!("unknown --stage `{other}` (valid: vertex, compute)"),
        };
        let palette = if self.storage {
            ExportPalette::Storage
        } else {
            ExportPalette::Uniform(self.joints.unwrap_or(DEFAULT_EXPORT_JOINTS))
        };
        let count = self.influences.unwrap_or(4);
        let influences = ExportInfluences::from_count(count)
            .ok_or_else(|| anyhow!("--influences {count}: the shader reads 4 or 8"))?;
        Ok(ShaderRequest {
            target,
            method,
            palette,
            stage,
            influences,
        })
    }
}

/// The method and influences of `--target three`, after refusing the flags the chunk does not take.
fn three_request(args: &ShaderArgs) -> Result<(SkinningMode, ExportInfluences)> {
    let refused = [
        (
            args.joints.is_some(),
            "--joints (the chunk reads a palette texture of any size)",
        ),
        (
            args.storage,
            "--storage (the chunk reads a palette texture)",
        ),
        (
            args.stage != "vertex",
            "--stage (the chunk is part of three's vertex stage)",
        ),
    ];
    if let Some((_, flag)) = refused.iter().find(|(given, _)| *given) {
        bail!("--target three takes no {flag}");
    }
    let count = args.influences.unwrap_or(8);
    let influences = ExportInfluences::from_count(count)
        .ok_or_else(|| anyhow!("--influences {count}: the chunk reads 4 or 8"))?;
    match SkinningMode::from_name(&args.method) {
        Some(m) if THREE_METHODS.contains(&m) => Ok((m, influences)),
        _ => bail!(
            "--target three: unknown or unsupported --method `{}` (valid: lbs, dqs, hybrid, cor)",
            args.method
        ),
    }
}

/// Writes the shader `args` names to `args.out`.
pub fn run(args: &ShaderArgs) -> Result<()> {
    if args.target == "three" {
        let (method, influences) = three_request(args)?;
        std::fs::write(&args.out, three_chunk(method, influences)?)
            .with_context(|| format!("cannot write {}", args.out.display()))?;
        println!(
            "wrote {} three.js chunk to {}",
            method.short_label(),
            args.out.display()
        );
        return Ok(());
    }
    let request = args.request()?;
    let shader = export_shader(&request)?;
    std::fs::write(&args.out, shader.code.to_bytes())
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    println!(
        "wrote {} {} {} shader to {}",
        request.method.short_label(),
        request.stage.name(),
        request.target.name(),
        args.out.display()
    );
    Ok(())
}
