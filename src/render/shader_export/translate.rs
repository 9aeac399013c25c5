//! naga's backends, configured for engines: no coordinate-space adjustment (the engine's
//! `clip_from_model` is used as given), bindings at fixed, documented slots.

use std::collections::HashMap;

use naga::back::{glsl, hlsl, msl, spv};
use naga::{AddressSpace, Handle, Module, ResourceBinding, ShaderStage, valid::ModuleInfo};

use super::header::{Naming, header_lines};
use super::{ExportStage, ExportedShader, ShaderExportError, ShaderRequest, ShaderTarget};

/// MSL and GLSL 450 / ES 310 bind slot of WGSL `(group, binding)`: group * 8 + binding.
const SLOTS_PER_GROUP: u32 = 8;
/// The MSL buffer naga reads storage array lengths from (`--storage`, compute).
const MSL_SIZES_BUFFER: u8 = 24;

/// The exported code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShaderCode {
    /// Source text (WGSL, GLSL, HLSL, MSL).
    Text(String),
    /// SPIR-V words.
    Spirv(Vec<u32>),
}

impl ShaderCode {
    /// The bytes to write to a file (SPIR-V little-endian).
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            Self::Text(s) => s.as_bytes().to_vec(),
            Self::Spirv(words) => words.iter().flat_map(|w| w.to_le_bytes()).collect(),
        }
    }

    /// The source text, for the text targets.
    #[must_use]
    pub fn text(&self) -> Option<&str> {
        match self {
            Self::Text(s) => Some(s),
            Self::Spirv(_) => None,
        }
    }
}

fn naga_error(e: impl std::fmt::Display) -> ShaderExportError {
    ShaderExportError::Naga(e.to_string())
}

fn naga_stage(stage: ExportStage) -> ShaderStage {
    match stage {
        ExportStage::Vertex => ShaderStage::Vertex,
        ExportStage::Compute => ShaderStage::Compute,
    }
}

/// The module's bound globals: handle, binding and address space, by (group, binding).
pub(super) fn bound_globals(
    module: &Module,
) -> Vec<(Handle<naga::GlobalVariable>, ResourceBinding, AddressSpace)> {
    let mut out: Vec<_> = module
        .global_variables
        .iter()
        .filter_map(|(h, g)| g.binding.map(|b| (h, b, g.space)))
        .collect();
    out.sort_by_key(|(_, b, _)| (b.group, b.binding));
    out
}

/// The flat slot of a binding for targets with one namespace per resource kind.
fn flat_slot(b: &ResourceBinding) -> u32 {
    b.group * SLOTS_PER_GROUP + b.binding
}

/// Writes `module` in the request's target, prefixed by the header.
pub(super) fn translate(
    request: &ShaderRequest,
    module: &Module,
    info: &ModuleInfo,
) -> Result<ExportedShader, ShaderExportError> {
    let globals = bound_globals(module);
    let (code, naming) = match request.target {
        ShaderTarget::Wgsl => {
            let text = naga::back::wgsl::write_string(
                module,
                info,
                naga::back::wgsl::WriterFlags::empty(),
            )
            .map_err(naga_error)?;
            let naming = Naming::new(
                "WGSL",
                request.entry_point(),
                &globals,
                |b, _| format!("@group({}) @binding({})", b.group, b.binding),
                |loc| format!("@location({loc})"),
            );
            (text, naming)
        }
        ShaderTarget::Glsl | ShaderTarget::GlslEs => write_glsl(request, module, info, &globals)?,
        ShaderTarget::Hlsl => write_hlsl(request, module, info, &globals)?,
        ShaderTarget::Msl => write_msl(request, module, info, &globals)?,
        ShaderTarget::Spirv => {
            let words = write_spirv(module, info)?;
            let naming = Naming::new(
                "SPIR-V 1.0",
                request.entry_point(),
                &globals,
                |b, _| format!("DescriptorSet {} Binding {}", b.group, b.binding),
                |loc| format!("Location {loc}"),
            );
            let lines = header_lines(request, module, &naming);
            let words = with_source_extensions(&words, &lines);
            return Ok(ExportedShader {
                code: ShaderCode::Spirv(words),
                header: lines.join("\n"),
            });
        }
    };
    let lines = header_lines(request, module, &naming);
    let mut text = String::new();
    for line in &lines {
        text.push_str("// ");
        text.push_str(line);
        text.push('\n');
    }
    // GLSL requires `#version` as the first line: the header follows it.
    let code = match code.split_once('\n') {
        Some((version, rest)) if version.starts_with("#version") => {
            format!("{version}\n{text}{rest}")
        }
        _ => format!("{text}\n{code}"),
    };
    Ok(ExportedShader {
        code: ShaderCode::Text(code),
        header: lines.join("\n"),
    })
}

/// The GLSL version: the lowest with what the request uses (storage buffers, compute).
pub fn glsl_version(request: &ShaderRequest) -> glsl::Version {
    let storage = request.uses_storage();
    match request.target {
        ShaderTarget::GlslEs => glsl::Version::Embedded {
            version: if storage { 310 } else { 300 },
            is_webgl: false,
        },
        _ => glsl::Version::Desktop(if storage { 450 } else { 330 }),
    }
}

fn write_glsl(
    request: &ShaderRequest,
    module: &Module,
    info: &ModuleInfo,
    globals: &[(Handle<naga::GlobalVariable>, ResourceBinding, AddressSpace)],
) -> Result<(String, Naming), ShaderExportError> {
    let version = glsl_version(request);
    let explicit = request.uses_storage();
    let mut binding_map = glsl::BindingMap::default();
    if explicit {
        for (_, b, _) in globals {
            binding_map.insert(*b, flat_slot(b) as u8);
        }
    }
    let options = glsl::Options {
        version,
        writer_flags: glsl::WriterFlags::empty(),
        binding_map,
        zero_initialize_workgroup_memory: true,
    };
    let pipeline = glsl::PipelineOptions {
        shader_stage: naga_stage(request.stage),
        entry_point: request.entry_point().to_string(),
        multiview: None,
    };
    let mut text = String::new();
    let reflection = glsl::Writer::new(
        &mut text,
        module,
        info,
        &options,
        &pipeline,
        naga::proc::BoundsCheckPolicies::default(),
    )
    .map_err(naga_error)?
    .write()
    .map_err(naga_error)?;
    let (text, blocks) = glsl_stable_names(request, module, &reflection, text)?;
    let inputs = glsl_inputs(&text);
    let language = match version {
        glsl::Version::Embedded { version, .. } => format!("GLSL ES {version} es"),
        glsl::Version::Desktop(v) => format!("GLSL {v} core"),
    };
    let naming = Naming::new(
        &language,
        "main",
        globals,
        |b, h| {
            let kind = match module.global_variables[h].space {
                AddressSpace::Uniform => "uniform block",
                _ => "buffer block",
            };
            let name = blocks.get(&h).cloned().unwrap_or_default();
            let block = format!("{kind} {name} {{ {name}{GLSL_MEMBER_SUFFIX} }}");
            if explicit {
                format!("{block}, layout(binding = {})", flat_slot(b))
            } else {
                format!("{block} (bind by name: glUniformBlockBinding)")
            }
        },
        move |loc| match inputs.get(&loc) {
            Some(name) => format!("layout(location = {loc}) in {name}"),
            None => format!("layout(location = {loc})"),
        },
    );
    Ok((text, naming))
}

/// The suffix of a GLSL block's member: GLSL forbids a block member named as its block.
const GLSL_MEMBER_SUFFIX: &str = "_data";

/// `text` with naga's GLSL block names (`type_12_block_2Vertex`, which follow naga's type and
/// block counters and so differ per method) made the global's stable name, and each block's
/// member (`_group_0_binding_2_vs`) that name with [`GLSL_MEMBER_SUFFIX`]; the block name of
/// each bound global.
fn glsl_stable_names(
    request: &ShaderRequest,
    module: &Module,
    reflection: &glsl::ReflectionInfo,
    text: String,
) -> Result<(String, HashMap<Handle<naga::GlobalVariable>, String>), ShaderExportError> {
    let stage = match request.stage {
        ExportStage::Vertex => "vs",
        ExportStage::Compute => "cs",
    };
    let mut renames = HashMap::new();
    let mut blocks = HashMap::new();
    for (&h, naga_block) in &reflection.uniforms {
        let global = &module.global_variables[h];
        let (Some(name), Some(b)) = (&global.name, &global.binding) else {
            continue;
        };
        renames.insert(naga_block.clone(), name.clone());
        renames.insert(
            format!("_group_{}_binding_{}_{stage}", b.group, b.binding),
            format!("{name}{GLSL_MEMBER_SUFFIX}"),
        );
        blocks.insert(h, name.clone());
    }
    Ok((rename_identifiers(&text, &renames)?, blocks))
}

/// `text` with every identifier that is a key of `renames` replaced by its value; an error when
/// a new name is already an identifier of `text` (the rename would merge two names).
pub(super) fn rename_identifiers(
    text: &str,
    renames: &HashMap<String, String>,
) -> Result<String, ShaderExportError> {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut identifiers = std::collections::HashSet::new();
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(is_ident) {
        out.push_str(&rest[..start]);
        let token = &rest[start..];
        let end = token.find(|c| !is_ident(c)).unwrap_or(token.len());
        let word = &token[..end];
        identifiers.insert(word);
        out.push_str(renames.get(word).map_or(word, String::as_str));
        rest = &token[end..];
    }
    out.push_str(rest);
    if let Some(clash) = renames.values().find(|v| identifiers.contains(v.as_str())) {
        return Err(ShaderExportError::Naga(format!(
            "cannot name a resource `{clash}`: the shader already has that identifier"
        )));
    }
    Ok(out)
}

/// The vertex inputs the GLSL declares, `layout(location = N) in TYPE NAME;`, by location.
fn glsl_inputs(text: &str) -> HashMap<u32, String> {
    text.lines()
        .filter_map(|line| {
            let rest = line.trim().strip_prefix("layout(location = ")?;
            let (location, decl) = rest.split_once(") in ")?;
            let name = decl.trim_end_matches(';').split_whitespace().last()?;
            Some((location.parse().ok()?, name.to_string()))
        })
        .collect()
}

/// HLSL register of a WGSL binding: b for constant buffers, t for read-only, u for read-write.
fn hlsl_register(module: &Module, h: Handle<naga::GlobalVariable>, b: &ResourceBinding) -> String {
    let class = match module.global_variables[h].space {
        AddressSpace::Uniform => 'b',
        AddressSpace::Storage { access } if access.contains(naga::StorageAccess::STORE) => 'u',
        _ => 't',
    };
    format!("register({class}{}, space{})", b.binding, b.group)
}

fn write_hlsl(
    request: &ShaderRequest,
    module: &Module,
    info: &ModuleInfo,
    globals: &[(Handle<naga::GlobalVariable>, ResourceBinding, AddressSpace)],
) -> Result<(String, Naming), ShaderExportError> {
    let options = hlsl::Options::default();
    let pipeline = hlsl::PipelineOptions {
        entry_point: Some((naga_stage(request.stage), request.entry_point().to_string())),
    };
    let mut text = String::new();
    hlsl::Writer::new(&mut text, &options, &pipeline)
        .write(module, info, None)
        .map_err(naga_error)?;
    let text = zero_arrays_as_lists(&text);
    let naming = Naming::new(
        "HLSL shader model 5.1",
        request.entry_point(),
        globals,
        |b, h| hlsl_register(module, h, b),
        |loc| format!("semantic LOC{loc}"),
    );
    Ok((text, naming))
}

/// naga zero-initialises a local scalar array as `T a[N] = (T[N])0;`, which DXC and FXC take
/// but glslang's HLSL front-end (and so Unity's and Godot's glslang paths) rejects: written as
/// an initialiser list `{ 0, ... }` instead, which every HLSL compiler takes.
fn zero_arrays_as_lists(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let rewritten = line.split_once(" = (").and_then(|(decl, cast)| {
            let (ty, count) = cast.strip_suffix("])0;")?.split_once('[')?;
            let count: usize = count.parse().ok()?;
            matches!(ty, "uint" | "int" | "float")
                .then(|| format!("{decl} = {{ {} }};", vec!["0"; count].join(", ")))
        });
        out.push_str(rewritten.as_deref().unwrap_or(line));
        out.push('\n');
    }
    out
}

fn write_msl(
    request: &ShaderRequest,
    module: &Module,
    info: &ModuleInfo,
    globals: &[(Handle<naga::GlobalVariable>, ResourceBinding, AddressSpace)],
) -> Result<(String, Naming), ShaderExportError> {
    let mut resources = msl::EntryPointResources {
        sizes_buffer: Some(MSL_SIZES_BUFFER),
        ..msl::EntryPointResources::default()
    };
    for (h, b, _) in globals {
        let mutable = matches!(
            module.global_variables[*h].space,
            AddressSpace::Storage { access } if access.contains(naga::StorageAccess::STORE)
        );
        resources.resources.insert(
            *b,
            msl::BindTarget {
                buffer: Some(flat_slot(b) as u8),
                mutable,
                ..msl::BindTarget::default()
            },
        );
    }
    let options = msl::Options {
        lang_version: (2, 1),
        per_entry_point_map: [(request.entry_point().to_string(), resources)].into(),
        fake_missing_bindings: false,
        ..msl::Options::default()
    };
    let pipeline = msl::PipelineOptions {
        entry_point: Some((naga_stage(request.stage), request.entry_point().to_string())),
        ..msl::PipelineOptions::default()
    };
    let (text, _) = msl::write_string(module, info, &options, &pipeline).map_err(naga_error)?;
    let (text, sizes) = msl_stable_names(module, globals, &text)?;
    let mut naming = Naming::new(
        "Metal Shading Language 2.1",
        request.entry_point(),
        globals,
        |b, _| format!("[[buffer({})]]", flat_slot(b)),
        |loc| format!("[[attribute({loc})]]"),
    );
    if !sizes.is_empty() {
        naming.notes.push(format!(
            "[[buffer({MSL_SIZES_BUFFER})]]: constant {MSL_SIZES_TYPE}& {MSL_SIZES_NAME}, the byte size of each storage array (naga's bounds checks), in this order: {}",
            sizes.iter().map(|s| format!("uint {s}")).collect::<Vec<_>>().join(", ")
        ));
    }
    Ok((text, naming))
}

/// The MSL argument carrying the storage arrays' byte sizes (naga's `_buffer_sizes`).
const MSL_SIZES_NAME: &str = "dqview_buffer_sizes";
/// Its struct (naga's `_mslBufferSizes`).
const MSL_SIZES_TYPE: &str = "DqviewBufferSizes";

/// `text` with naga's buffer-size argument, its struct and its members (`size1`, which follow
/// the global's index and so differ per method) given stable names: `<resource>_size`. Also
/// the member names, in the struct's order.
fn msl_stable_names(
    module: &Module,
    globals: &[(Handle<naga::GlobalVariable>, ResourceBinding, AddressSpace)],
    text: &str,
) -> Result<(String, Vec<String>), ShaderExportError> {
    let mut renames = HashMap::from([
        ("_buffer_sizes".to_string(), MSL_SIZES_NAME.to_string()),
        ("_mslBufferSizes".to_string(), MSL_SIZES_TYPE.to_string()),
    ]);
    let mut order = Vec::new();
    for (h, _, _) in globals {
        let member = format!("size{}", h.index());
        let name = module.global_variables[*h].name.clone().unwrap_or_default();
        let stable = format!("{name}_size");
        if text.contains(&format!("uint {member};")) {
            order.push((text.find(&format!("uint {member};")), stable.clone()));
            renames.insert(member, stable);
        }
    }
    order.sort();
    let text = rename_identifiers(text, &renames)?;
    Ok((text, order.into_iter().map(|(_, s)| s).collect()))
}

fn write_spirv(module: &Module, info: &ModuleInfo) -> Result<Vec<u32>, ShaderExportError> {
    let options = spv::Options {
        lang_version: (1, 0),
        // DEBUG: OpName for every variable, so tools see the stable resource names.
        flags: spv::WriterFlags::LABEL_VARYINGS | spv::WriterFlags::DEBUG,
        ..spv::Options::default()
    };
    spv::write_vec(module, info, &options, None).map_err(naga_error)
}

/// SPIR-V opcodes that precede the debug section (capabilities to execution modes).
const SPIRV_PREAMBLE_OPCODES: [u32; 7] = [17, 10, 11, 14, 15, 16, 331];
/// `OpSourceExtension`.
const OP_SOURCE_EXTENSION: u32 = 4;
/// Words of the SPIR-V header.
const SPIRV_HEADER_WORDS: usize = 5;

/// `words` with each of `lines` as an `OpSourceExtension` at the start of the debug section,
/// where `spirv-dis` shows them: SPIR-V has no comments.
fn with_source_extensions(words: &[u32], lines: &[String]) -> Vec<u32> {
    let mut at = SPIRV_HEADER_WORDS;
    while let Some(&first) = words.get(at) {
        let (count, opcode) = ((first >> 16) as usize, first & 0xffff);
        if count == 0 || !SPIRV_PREAMBLE_OPCODES.contains(&opcode) {
            break;
        }
        at += count;
    }
    let at = at.min(words.len());
    let mut out = words[..at].to_vec();
    for line in lines {
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(0);
        while bytes.len() % 4 != 0 {
            bytes.push(0);
        }
        let count = 1 + bytes.len() / 4;
        out.push(((count as u32) << 16) | OP_SOURCE_EXTENSION);
        out.extend(
            bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
        );
    }
    out.extend_from_slice(&words[at..]);
    out
}
