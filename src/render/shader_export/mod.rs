//! `dqview shader`: the renderer's skinning WGSL for engines, translated by naga.
//!
//! The exported module is `dq.wgsl` and `skin.wgsl` as the renderer runs them, with the
//! engine-facing palette of `export_palette.wgsl` in place of dqview's palette slots and the
//! entry point of `export_vertex.wgsl` or `export_compute.wgsl`. One line per method picks
//! `skin_lbs`, `skin_dqs` or `skin_hybrid`; DDM has its own entry points, which read each
//! vertex's matrices (`ddm.wgsl`, `export_ddm.wgsl`); CoR's entry points read each vertex's
//! centre of rotation, and only its exports carry `cor.wgsl`. naga then drops every function and
//! binding that method does not reach, validates the module and writes the target language.

mod header;
mod three;
mod translate;

use crate::skin::SkinningMode;

use super::shaders::{COR_WGSL, DDM_WGSL, DQ_WGSL, SKIN_WGSL, shader_text};

pub use three::{
    EXPORT_PALETTE_TEXTURE_WGSL, EXPORT_THREE_WGSL, THREE_METHODS, THREE_PALETTE_UNIFORM,
    THREE_PREFIX, THREE_TEXELS_PER_JOINT, three_chunk, three_module, three_wgsl_source,
};
pub use translate::ShaderCode;

/// The engine-facing palette (group 0 of the exported shaders).
pub const EXPORT_PALETTE_WGSL: &str = include_str!("../../../shaders/export_palette.wgsl");
/// The exported vertex entry points (`vs_skin`, `vs_skin_blend`, `vs_skin8`, `vs_skin8_blend`).
pub const EXPORT_VERTEX_WGSL: &str = include_str!("../../../shaders/export_vertex.wgsl");
/// The exported compute entry points (`cs_skin`, `cs_skin_blend`, `cs_skin8`, `cs_skin8_blend`).
pub const EXPORT_COMPUTE_WGSL: &str = include_str!("../../../shaders/export_compute.wgsl");
/// Direct Delta Mush's matrices in the exported shaders (`ddm_words`, `export_ddm`).
pub const EXPORT_DDM_WGSL: &str = include_str!("../../../shaders/export_ddm.wgsl");
/// Direct Delta Mush's exported vertex entry points (`vs_skin_ddm`, `vs_skin8_ddm`).
pub const EXPORT_DDM_VERTEX_WGSL: &str = include_str!("../../../shaders/export_ddm_vertex.wgsl");
/// Direct Delta Mush's exported compute entry points (`cs_skin_ddm`, `cs_skin8_ddm`).
pub const EXPORT_DDM_COMPUTE_WGSL: &str = include_str!("../../../shaders/export_ddm_compute.wgsl");

/// Joints the uniform palette holds by default: 256 skinning matrices are 16 KiB, the
/// smallest uniform block GLSL ES 3.0 guarantees (`GL_MAX_UNIFORM_BLOCK_SIZE`).
pub const DEFAULT_EXPORT_JOINTS: u32 = 256;
/// Most joints a uniform palette may hold: 1024 matrices are 64 KiB, the usual binding limit.
pub const MAX_EXPORT_JOINTS: u32 = 1024;
/// Invocations per workgroup of the exported compute stage (`@workgroup_size` in the file).
pub const EXPORT_WORKGROUP_SIZE: u32 = 64;

/// The stable name of every resource the exported shaders bind, by its name in the WGSL
/// sources, in (group, binding) order: the same in every target, method, palette and stage
/// (docs/engines.md, "Names"). The bound globals are renamed in naga's module, so every writer
/// declares them under these names; GLSL's blocks and MSL's buffer-size struct get them in
/// `translate`. skin.wgsl reads the parameters as `skin`, so the sources keep their own names.
pub const RESOURCE_NAMES: [(&str, &str); 12] = [
    ("skin", "dqview_params"),
    ("joint_dual_quats", "dqview_joint_dual_quats"),
    ("joint_matrices", "dqview_joint_matrices"),
    ("joint_scale_shears", "dqview_joint_scale_shears"),
    ("bind_positions", "dqview_bind_positions"),
    ("bind_normals", "dqview_bind_normals"),
    ("vertex_joints", "dqview_vertex_joints"),
    ("vertex_weights", "dqview_vertex_weights"),
    ("vertex_blends", "dqview_vertex_blends"),
    ("skinned", "dqview_skinned"),
    ("ddm_words", "dqview_ddm"),
    ("cor_centers", "dqview_cor_centers"),
];

/// cor.wgsl's mode constant: the renderer's, which naga would keep in every CoR export.
const COR_MODE_DECLARATION: &str = "const SKIN_MODE_COR: u32 = 3u;";

/// The joint count line of `export_palette.wgsl`, rewritten for `--joints N`.
const JOINTS_DECLARATION: &str = "const EXPORT_JOINTS: u32 = 128u;";

/// A language `dqview shader` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShaderTarget {
    /// WGSL (WebGPU, Bevy), as naga writes it back.
    Wgsl,
    /// Desktop GLSL: 330 for a uniform vertex stage, 450 with storage buffers or compute.
    Glsl,
    /// GLSL ES: 300 es (WebGL2) for a uniform vertex stage, 310 es with storage or compute.
    GlslEs,
    /// HLSL, shader model 5.1 (Unity, Unreal, Direct3D).
    Hlsl,
    /// Metal Shading Language 2.1.
    Msl,
    /// SPIR-V 1.0 binary (Vulkan).
    Spirv,
}

impl ShaderTarget {
    /// Every target.
    pub const ALL: [Self; 6] = [
        Self::Wgsl,
        Self::Glsl,
        Self::GlslEs,
        Self::Hlsl,
        Self::Msl,
        Self::Spirv,
    ];

    /// The command-line name (`wgsl`, `glsl`, `glsl-es`, `hlsl`, `msl`, `spirv`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Wgsl => "wgsl",
            Self::Glsl => "glsl",
            Self::GlslEs => "glsl-es",
            Self::Hlsl => "hlsl",
            Self::Msl => "msl",
            Self::Spirv => "spirv",
        }
    }

    /// The target named `name`, if any.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// The stage `dqview shader` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExportStage {
    /// A vertex shader: attributes in, clip position and skinned position and normal out.
    Vertex,
    /// A compute shader skinning arrays of vertices into a buffer.
    Compute,
}

impl ExportStage {
    /// The command-line name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Vertex => "vertex",
            Self::Compute => "compute",
        }
    }
}

/// Where the exported shader reads its joints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExportPalette {
    /// Uniform arrays of this many joints (`--joints N`).
    Uniform(u32),
    /// Storage arrays of any length (`--storage`).
    Storage,
}

/// Influences per vertex the exported shader reads (`--influences 4|8`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExportInfluences {
    /// Four: `joints`/`weights` (locations 2 and 3; compute: 4 per vertex).
    Four,
    /// Eight, as dqview's renderer blends: influences 4 to 7 as `joints1`/`weights1`
    /// (locations 5 and 6; compute: 8 per vertex).
    Eight,
}

impl ExportInfluences {
    /// The number of influences.
    #[must_use]
    pub fn count(self) -> u32 {
        match self {
            Self::Four => 4,
            Self::Eight => 8,
        }
    }

    /// The influences of `--influences n`, if n is 4 or 8.
    #[must_use]
    pub fn from_count(n: u32) -> Option<Self> {
        match n {
            4 => Some(Self::Four),
            8 => Some(Self::Eight),
            _ => None,
        }
    }
}

/// What `dqview shader` writes: one target, method, palette, stage and influence count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShaderRequest {
    /// The language.
    pub target: ShaderTarget,
    /// LBS, DQS, hybrid, CoR or DDM.
    pub method: SkinningMode,
    /// Uniform or storage palette.
    pub palette: ExportPalette,
    /// Vertex or compute.
    pub stage: ExportStage,
    /// Four or eight influences per vertex.
    pub influences: ExportInfluences,
}

/// Why a shader could not be exported.
#[derive(Debug, thiserror::Error)]
pub enum ShaderExportError {
    /// The method has no exported shader.
    #[error("`dqview shader` exports lbs, dqs, hybrid, cor and ddm, not {0}")]
    Method(&'static str),
    /// The uniform palette size is out of range.
    #[error(
        "--joints {0}: a uniform palette holds 1 to {MAX_EXPORT_JOINTS} joints; use --storage for more"
    )]
    Joints(u32),
    /// naga rejected the module or could not write the target (a bug in dqview's sources).
    #[error("naga: {0}")]
    Naga(String),
}

/// One exported shader: the code (its header comment included) and the header alone.
#[derive(Clone, Debug)]
pub struct ExportedShader {
    /// The code in the target language, beginning with the header (SPIR-V: as OpSourceExtension strings).
    pub code: ShaderCode,
    /// The header comment: dqview's version, the command and the interface.
    pub header: String,
}

impl ShaderRequest {
    /// The command line that writes this shader (for the header).
    #[must_use]
    pub fn command_line(&self) -> String {
        let palette = match self.palette {
            ExportPalette::Uniform(n) => format!("--joints {n}"),
            ExportPalette::Storage => "--storage".to_string(),
        };
        format!(
            "dqview shader --target {} --method {} {palette} --stage {} --influences {}",
            self.target.name(),
            self.method.name(),
            self.stage.name(),
            self.influences.count()
        )
    }

    /// Whether the shader reads storage buffers: a storage palette, the compute stage, or
    /// Direct Delta Mush's matrices.
    #[must_use]
    pub fn uses_storage(&self) -> bool {
        self.palette == ExportPalette::Storage
            || self.stage == ExportStage::Compute
            || self.method == SkinningMode::Ddm
    }

    /// The exported entry point's name in the WGSL module.
    #[must_use]
    pub fn entry_point(&self) -> &'static str {
        match self.stage {
            ExportStage::Vertex => "vs_skin",
            ExportStage::Compute => "cs_skin",
        }
    }

    /// The method's `skin_export` line: the one place the method is chosen.
    pub(super) fn method_line(&self) -> Result<&'static str, ShaderExportError> {
        Ok(match self.method {
            SkinningMode::Lbs => {
                "fn skin_export(v: SkinInput, blend: f32, center: vec3<f32>) -> Skinned { return skin_lbs(v); }"
            }
            SkinningMode::Dqs => {
                "fn skin_export(v: SkinInput, blend: f32, center: vec3<f32>) -> Skinned { return skin_dqs(v); }"
            }
            SkinningMode::Hybrid => {
                "fn skin_export(v: SkinInput, blend: f32, center: vec3<f32>) -> Skinned { return skin_hybrid(v, blend * skin.beta_scale); }"
            }
            SkinningMode::Cor => {
                "fn skin_export(v: SkinInput, blend: f32, center: vec3<f32>) -> Skinned { return skin_cor(v, center); }"
            }
            // DDM's entry points call `export_ddm` with the vertex's index; this line only
            // completes the shared entry file, and naga drops it.
            SkinningMode::Ddm => {
                "fn skin_export(v: SkinInput, blend: f32, center: vec3<f32>) -> Skinned { return skin_lbs(v); }"
            }
            SkinningMode::Dm => return Err(ShaderExportError::Method("dm")),
        })
    }
}

/// `export_palette.wgsl` for `palette`: the joint count set, or the arrays made storage.
fn palette_source(palette: ExportPalette) -> Result<String, ShaderExportError> {
    let text = shader_text("export_palette.wgsl", EXPORT_PALETTE_WGSL);
    Ok(match palette {
        ExportPalette::Uniform(n) => {
            if n == 0 || n > MAX_EXPORT_JOINTS {
                return Err(ShaderExportError::Joints(n));
            }
            text.replacen(
                JOINTS_DECLARATION,
                &format!("const EXPORT_JOINTS: u32 = {n}u;"),
                1,
            )
        }
        ExportPalette::Storage => text
            .replace("var<uniform> joint_", "var<storage, read> joint_")
            .replace(", EXPORT_JOINTS>;", ">;"),
    })
}

/// The assembled WGSL of `request`, before naga: dq, palette, skin, DDM, entry points, method line.
pub fn export_wgsl_source(request: &ShaderRequest) -> Result<String, ShaderExportError> {
    let entry = match request.stage {
        ExportStage::Vertex => shader_text("export_vertex.wgsl", EXPORT_VERTEX_WGSL),
        ExportStage::Compute => shader_text("export_compute.wgsl", EXPORT_COMPUTE_WGSL),
    };
    let palette = palette_source(request.palette)?;
    let mut parts = vec![
        shader_text("dq.wgsl", DQ_WGSL).into_owned(),
        palette,
        shader_text("skin.wgsl", SKIN_WGSL).into_owned(),
        entry.into_owned(),
        request.method_line()?.to_string(),
    ];
    // Only CoR's and DDM's exports carry their files: naga keeps a module's named constants.
    if request.method == SkinningMode::Cor {
        parts.push(cor_source());
    }
    if request.method == SkinningMode::Ddm {
        let ddm_entry = match request.stage {
            ExportStage::Vertex => shader_text("export_ddm_vertex.wgsl", EXPORT_DDM_VERTEX_WGSL),
            ExportStage::Compute => shader_text("export_ddm_compute.wgsl", EXPORT_DDM_COMPUTE_WGSL),
        };
        parts.extend([
            shader_text("ddm.wgsl", DDM_WGSL).into_owned(),
            shader_text("export_ddm.wgsl", EXPORT_DDM_WGSL).into_owned(),
            ddm_entry.into_owned(),
        ]);
    }
    Ok(parts.join("\n"))
}

/// cor.wgsl without the renderer's mode constant.
pub(super) fn cor_source() -> String {
    shader_text("cor.wgsl", COR_WGSL).replacen(COR_MODE_DECLARATION, "", 1)
}

/// The validated naga module of `request`: one entry point, named as
/// [`ShaderRequest::entry_point`], and only what it reaches.
pub fn export_module(
    request: &ShaderRequest,
) -> Result<(naga::Module, naga::valid::ModuleInfo), ShaderExportError> {
    module_from_source(request, &export_wgsl_source(request)?)
}

/// [`export_module`] of an assembled `source` (tests edit it to plant a bug).
fn module_from_source(
    request: &ShaderRequest,
    source: &str,
) -> Result<(naga::Module, naga::valid::ModuleInfo), ShaderExportError> {
    let mut module = naga::front::wgsl::parse_str(source)
        .map_err(|e| ShaderExportError::Naga(e.emit_to_string(source)))?;
    // `vs_skin`, `vs_skin8_blend`, ...: one source entry point per stage, influences and method.
    let keep = format!(
        "{}{}{}",
        request.entry_point(),
        match request.influences {
            ExportInfluences::Four => "",
            ExportInfluences::Eight => "8",
        },
        match request.method {
            SkinningMode::Hybrid => "_blend",
            SkinningMode::Ddm => "_ddm",
            SkinningMode::Cor => "_cor",
            _ => "",
        }
    );
    module.entry_points.retain(|e| e.name == keep);
    if module.entry_points.is_empty() {
        return Err(ShaderExportError::Naga(format!("no entry point `{keep}`")));
    }
    for entry in &mut module.entry_points {
        entry.name = request.entry_point().to_string();
    }
    naga::compact::compact(&mut module, naga::compact::KeepUnused::No);
    stable_resource_names(&mut module)?;
    let info = validate(&module)?;
    Ok((module, info))
}

/// Renames every bound global of `module` to its [`RESOURCE_NAMES`] name; a binding without
/// one is an error (a resource added to the sources without a documented name).
fn stable_resource_names(module: &mut naga::Module) -> Result<(), ShaderExportError> {
    for (_, global) in module.global_variables.iter_mut() {
        if global.binding.is_none() {
            continue;
        }
        let source = global.name.clone().unwrap_or_default();
        let (_, stable) = RESOURCE_NAMES
            .iter()
            .find(|(name, _)| *name == source)
            .ok_or_else(|| {
                ShaderExportError::Naga(format!(
                    "bound global `{source}` has no stable name in RESOURCE_NAMES"
                ))
            })?;
        global.name = Some((*stable).to_string());
    }
    Ok(())
}

/// naga's validation with every check on.
fn validate(module: &naga::Module) -> Result<naga::valid::ModuleInfo, ShaderExportError> {
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(module)
    .map_err(|e| ShaderExportError::Naga(format!("{:?}", e.into_inner())))
}

/// Exports `request`: the validated module written in its target, with the header.
pub fn export_shader(request: &ShaderRequest) -> Result<ExportedShader, ShaderExportError> {
    export_shader_from_source(request, &export_wgsl_source(request)?)
}

/// [`export_shader`] of an assembled WGSL `source`, as [`export_wgsl_source`] returns it:
/// for tests that plant a bug in it and check that running the result catches it.
pub fn export_shader_from_source(
    request: &ShaderRequest,
    source: &str,
) -> Result<ExportedShader, ShaderExportError> {
    let (module, info) = module_from_source(request, source)?;
    translate::translate(request, &module, &info)
}

#[cfg(test)]
mod tests;
