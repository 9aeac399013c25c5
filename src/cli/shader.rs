//! `dqview shader`: write the skinning shader for an engine (see render::shader_export).

use std::path::PathBuf;

use anyhow::{Context, Result, anyhow, bail};

use crate::render::shader_export::{
    DEFAULT_EXPORT_JOINTS, ExportInfluences, ExportPalette, ExportStage, ShaderRequest,
    ShaderTarget, export_shader,
};
use crate::skin::SkinningMode;

/// Options of `dqview shader`.
#[derive(Clone, Debug, clap::Args)]
pub struct ShaderArgs {
    /// Language: wgsl, glsl, glsl-es, hlsl, msl or spirv.
    #[arg(long, value_name = "wgsl|glsl|glsl-es|hlsl|msl|spirv")]
    pub target: String,
    /// Skinning method: lbs, dqs, hybrid or ddm (its matrices from `dqview ddm`).
    #[arg(long, value_name = "lbs|dqs|hybrid|ddm", default_value = "dqs")]
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
    #[arg(long, value_name = "4|8", default_value_t = 4)]
    pub influences: u32,
    /// Output file.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

impl ShaderArgs {
    /// The request these flags name.
    pub fn request(&self) -> Result<ShaderRequest> {
        let target = ShaderTarget::from_name(&self.target).ok_or_else(|| {
            anyhow!(
                "unknown --target `{}` (valid: wgsl, glsl, glsl-es, hlsl, msl, spirv)",
                self.target
            )
        })?;
        let method = match SkinningMode::from_name(&self.method) {
            Some(
                m @ (SkinningMode::Lbs
                | SkinningMode::Dqs
                | SkinningMode::Hybrid
                | SkinningMode::Ddm),
            ) => m,
            Some(SkinningMode::Dm) => bail!(
                "--method dm: Delta Mush smooths the whole mesh each frame (compute passes over \
                 its edges), which one vertex's shader cannot; export lbs, dqs, hybrid or ddm"
            ),
            _ => bail!(
                "unknown --method `{}` (valid: lbs, dqs, hybrid, ddm)",
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
        let influences = ExportInfluences::from_count(self.influences)
            .ok_or_else(|| anyhow!("--influences {}: the shader reads 4 or 8", self.influences))?;
        Ok(ShaderRequest {
            target,
            method,
            palette,
            stage,
            influences,
        })
    }
}

/// Writes the shader `args` names to `args.out`.
pub fn run(args: &ShaderArgs) -> Result<()> {
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
