//! `dqview shader --target three`: the skinning of one method as a GLSL ES 3.00 chunk for
//! three.js's built-in materials (integrations/three patches it in with `onBeforeCompile`).
//!
//! The chunk is dq.wgsl and skin.wgsl as the renderer runs them, with the palette read from
//! one float texture (`export_palette_texture.wgsl`: three's built-in materials bind no uniform
//! blocks) and `skin_three` of `export_three.wgsl` as its one function to call. naga writes the
//! module as a GLSL ES vertex shader; the chunk keeps its declarations and functions, drops the
//! version, precision, inputs and `main`, and prefixes every global name with `dqview_` so it
//! cannot meet three's own.

use naga::back::glsl;

use super::translate::rename_identifiers;
use super::{
    DQ_WGSL, ExportInfluences, ExportPalette, ExportStage, SKIN_WGSL, ShaderExportError,
    ShaderRequest, ShaderTarget, shader_text,
};
use crate::skin::SkinningMode;

/// The texture palette of the three.js chunk.
pub const EXPORT_PALETTE_TEXTURE_WGSL: &str =
    include_str!("../../../shaders/export_palette_texture.wgsl");
/// The three.js chunk's function `skin_three` and the entry point naga writes it for.
pub const EXPORT_THREE_WGSL: &str = include_str!("../../../shaders/export_three.wgsl");

/// The prefix of every global name in the chunk.
pub const THREE_PREFIX: &str = "dqview_";
/// The palette texture's name in the chunk (a `uniform highp sampler2D`): three's own bone
/// texture's, since three binds the skeleton's `boneTexture` for every skinned mesh it draws.
pub const THREE_PALETTE_UNIFORM: &str = "boneTexture";
/// Texels in one joint's row of the palette texture (its width).
pub const THREE_TEXELS_PER_JOINT: u32 = 9;
/// The source entry point the chunk's functions are written for.
const THREE_ENTRY: &str = "vs_skin_three";

/// The methods the chunk is written for.
pub const THREE_METHODS: [SkinningMode; 4] = [
    SkinningMode::Lbs,
    SkinningMode::Dqs,
    SkinningMode::Hybrid,
    SkinningMode::Cor,
];

/// dq.wgsl's influence count, which the loops of every method run to.
const INFLUENCES_DECLARATION: &str = "const MAX_INFLUENCES: u32 = 8u;";

/// The request `method`'s chunk is written from (GLSL ES, vertex).
fn three_request(method: SkinningMode, influences: ExportInfluences) -> ShaderRequest {
    ShaderRequest {
        target: ShaderTarget::GlslEs,
        method,
        palette: ExportPalette::Uniform(1),
        stage: ExportStage::Vertex,
        influences,
    }
}

/// The assembled WGSL of `method`'s chunk: dq, texture palette, skin, `skin_three`, method line.
/// With four influences the loops stop at four (the call still passes eight, the last four
/// unread): a vertex stage a quarter shorter for the meshes most files have.
pub fn three_wgsl_source(
    method: SkinningMode,
    influences: ExportInfluences,
) -> Result<String, ShaderExportError> {
    if !THREE_METHODS.contains(&method) {
        return Err(ShaderExportError::Method(method.name()));
    }
    let dq = shader_text("dq.wgsl", DQ_WGSL).replacen(
        INFLUENCES_DECLARATION,
        &format!("const MAX_INFLUENCES: u32 = {}u;", influences.count()),
        1,
    );
    let mut parts = vec![
        dq,
        shader_text("export_palette_texture.wgsl", EXPORT_PALETTE_TEXTURE_WGSL).into_owned(),
        shader_text("skin.wgsl", SKIN_WGSL).into_owned(),
        shader_text("export_three.wgsl", EXPORT_THREE_WGSL).into_owned(),
        three_request(method, influences).method_line()?.to_string(),
    ];
    if method == SkinningMode::Cor {
        parts.push(super::cor_source());
    }
    Ok(parts.join("\n"))
}

/// The validated module of `method`'s chunk, every global name prefixed.
pub fn three_module(
    method: SkinningMode,
    influences: ExportInfluences,
) -> Result<(naga::Module, naga::valid::ModuleInfo), ShaderExportError> {
    let source = three_wgsl_source(method, influences)?;
    let mut module = naga::front::wgsl::parse_str(&source)
        .map_err(|e| ShaderExportError::Naga(e.emit_to_string(&source)))?;
    module.entry_points.retain(|e| e.name == THREE_ENTRY);
    naga::compact::compact(&mut module, naga::compact::KeepUnused::No);
    for (_, f) in module.functions.iter_mut() {
        f.name = f.name.take().map(|n| format!("{THREE_PREFIX}{n}"));
    }
    for (_, c) in module.constants.iter_mut() {
        c.name = c.name.take().map(|n| format!("{THREE_PREFIX}{n}"));
    }
    for (_, g) in module.global_variables.iter_mut() {
        g.name = g.name.take().map(|n| format!("{THREE_PREFIX}{n}"));
    }
    let info = super::validate(&module)?;
    Ok((module, info))
}

/// The GLSL ES 3.00 chunk of `method` reading `influences` of the eight it is passed, with its
/// header comment.
pub fn three_chunk(
    method: SkinningMode,
    influences: ExportInfluences,
) -> Result<String, ShaderExportError> {
    let (module, info) = three_module(method, influences)?;
    let options = glsl::Options {
        version: glsl::Version::Embedded {
            version: 300,
            is_webgl: true,
        },
        writer_flags: glsl::WriterFlags::empty(),
        binding_map: glsl::BindingMap::default(),
        zero_initialize_workgroup_memory: true,
    };
    let pipeline = glsl::PipelineOptions {
        shader_stage: naga::ShaderStage::Vertex,
        entry_point: THREE_ENTRY.to_string(),
        multiview: None,
    };
    let mut text = String::new();
    glsl::Writer::new(
        &mut text,
        &module,
        &info,
        &options,
        &pipeline,
        naga::proc::BoundsCheckPolicies::default(),
    )
    .and_then(|mut w| w.write())
    .map_err(|e| ShaderExportError::Naga(e.to_string()))?;
    let body = chunk_body(&text)?;
    // Struct names are types naga keeps as written: prefixed here, like every other global.
    let renames = module
        .types
        .iter()
        .filter_map(|(_, t)| t.name.clone())
        .map(|n| (n.clone(), format!("{THREE_PREFIX}{n}")))
        .chain([(
            "_group_0_binding_0_vs".to_string(),
            THREE_PALETTE_UNIFORM.to_string(),
        )])
        .collect();
    let body = rename_identifiers(&body, &renames)?;
    Ok(format!("{}{body}", three_header(method, influences)))
}

/// naga's vertex shader without its version, precision, inputs and `main`: the declarations
/// and functions; an error when naga's layout is not the one expected.
fn chunk_body(text: &str) -> Result<String, ShaderExportError> {
    let (functions, _main) = text
        .split_once("void main()")
        .ok_or_else(|| ShaderExportError::Naga("naga wrote no `void main()`".to_string()))?;
    let body: Vec<&str> = functions
        .lines()
        .filter(|l| {
            !(l.starts_with("#version")
                || l.starts_with("precision ")
                || l.starts_with("layout(location")
                || l.starts_with("invariant gl_Position"))
        })
        .collect();
    let body = body.join("\n");
    if !body.contains("uniform highp sampler2D _group_0_binding_0_vs;") {
        return Err(ShaderExportError::Naga(
            "naga wrote the palette texture under another name".to_string(),
        ));
    }
    Ok(format!("{}\n", body.trim()))
}

/// The chunk's header: what wrote it and how three.js calls it.
fn three_header(method: SkinningMode, influences: ExportInfluences) -> String {
    let lines = [
        format!(
            "dqview {}: {} skinning for three.js's built-in materials (GLSL ES 3.00 chunk, no #version); naga from dqview's shaders/dq.wgsl, skin.wgsl, export_palette_texture.wgsl, export_three.wgsl.",
            env!("CARGO_PKG_VERSION"),
            method.short_label()
        ),
        format!(
            "Written by: dqview shader --target three --method {} --influences {}",
            method.name(),
            influences.count()
        ),
        format!(
            "Call: {THREE_PREFIX}Skinned s = {THREE_PREFIX}skin_three(position, normal, tangent, joints0, joints1, weights0, weights1, blend, center); influences heaviest first, weights summing to 1; the first {} are read; center: the bind-space centre of rotation (_COR_CENTER, which dqview cor writes), read by CoR only.",
            influences.count()
        ),
        format!(
            "Palette: uniform highp sampler2D {THREE_PALETTE_UNIFORM}, RGBA float, {THREE_TEXELS_PER_JOINT} texels wide: texel (0, 0) = (joint_count, non_rigid, beta_scale, 0); row 1 + j = joint j: dual quaternion (2 texels), matrix columns (4), scale/shear columns xyz (3)."
        ),
        "Where a result is not finite, the bind-pose value is kept; a vertex with all weights 0 keeps its bind pose.".to_string(),
    ];
    lines.iter().map(|l| format!("// {l}\n")).collect()
}
