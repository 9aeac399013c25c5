use std::collections::HashMap;

use super::*;

const METHODS: [SkinningMode; 5] = [
    SkinningMode::Lbs,
    SkinningMode::Dqs,
    SkinningMode::Hybrid,
    SkinningMode::Cor,
    SkinningMode::Ddm,
];
const STAGES: [ExportStage; 2] = [ExportStage::Vertex, ExportStage::Compute];
const INFLUENCES: [ExportInfluences; 2] = [ExportInfluences::Four, ExportInfluences::Eight];
const PALETTES: [ExportPalette; 2] = [
    ExportPalette::Uniform(DEFAULT_EXPORT_JOINTS),
    ExportPalette::Storage,
];

fn request(
    target: ShaderTarget,
    method: SkinningMode,
    palette: ExportPalette,
    stage: ExportStage,
) -> ShaderRequest {
    ShaderRequest {
        target,
        method,
        palette,
        stage,
        influences: ExportInfluences::Four,
    }
}

/// Names of the module's bound globals.
fn bound_names(module: &naga::Module) -> Vec<String> {
    translate::bound_globals(module)
        .iter()
        .map(|(h, _, _)| module.global_variables[*h].name.clone().unwrap_or_default())
        .collect()
}

#[test]
fn every_target_method_stage_and_palette_exports() {
    for target in ShaderTarget::ALL {
        for method in METHODS {
            for stage in STAGES {
                for (palette, influences) in PALETTES.into_iter().zip(INFLUENCES) {
                    let r = ShaderRequest {
                        influences,
                        ..request(target, method, palette, stage)
                    };
                    let out =
                        export_shader(&r).unwrap_or_else(|e| panic!("{}: {e}", r.command_line()));
                    assert!(
                        out.header.contains(&r.command_line()),
                        "{}",
                        r.command_line()
                    );
                    match &out.code {
                        ShaderCode::Text(t) => {
                            assert!(t.contains(
                                &out.header.lines().next().unwrap_or_default().to_string()
                            ));
                        }
                        ShaderCode::Spirv(words) => assert_eq!(words.first(), Some(&0x0723_0203)),
                    }
                }
            }
        }
    }
}

#[test]
fn each_method_binds_only_what_it_reads() {
    let names = |method| {
        let (module, _) = export_module(&request(
            ShaderTarget::Wgsl,
            method,
            ExportPalette::Uniform(64),
            ExportStage::Vertex,
        ))
        .expect("module");
        bound_names(&module)
    };
    assert_eq!(
        names(SkinningMode::Lbs),
        ["dqview_params", "dqview_joint_matrices"]
    );
    assert_eq!(
        names(SkinningMode::Dqs),
        [
            "dqview_params",
            "dqview_joint_dual_quats",
            "dqview_joint_scale_shears"
        ]
    );
    assert_eq!(
        names(SkinningMode::Hybrid),
        [
            "dqview_params",
            "dqview_joint_dual_quats",
            "dqview_joint_matrices",
            "dqview_joint_scale_shears"
        ]
    );
    // CoR blends the rotations, the matrices (at the centre) and for scaled joints the
    // scale/shears.
    assert_eq!(
        names(SkinningMode::Cor),
        [
            "dqview_params",
            "dqview_joint_dual_quats",
            "dqview_joint_matrices",
            "dqview_joint_scale_shears"
        ]
    );
    // DDM reads the matrices (its fit and its LBS fallback), for scaled joints the rotations
    // and scale/shears too, and its words, from storage.
    assert_eq!(
        names(SkinningMode::Ddm),
        [
            "dqview_params",
            "dqview_joint_dual_quats",
            "dqview_joint_matrices",
            "dqview_joint_scale_shears",
            "dqview_ddm"
        ]
    );
    let (module, _) = export_module(&request(
        ShaderTarget::Wgsl,
        SkinningMode::Dqs,
        ExportPalette::Storage,
        ExportStage::Compute,
    ))
    .expect("module");
    assert_eq!(
        bound_names(&module),
        [
            "dqview_params",
            "dqview_joint_dual_quats",
            "dqview_joint_scale_shears",
            "dqview_bind_positions",
            "dqview_bind_normals",
            "dqview_vertex_joints",
            "dqview_vertex_weights",
            "dqview_skinned"
        ]
    );
}

#[test]
fn exported_code_is_the_renderers_skinning_files() {
    let r = request(
        ShaderTarget::Wgsl,
        SkinningMode::Dqs,
        ExportPalette::Uniform(8),
        ExportStage::Vertex,
    );
    let source = export_wgsl_source(&r).expect("source");
    assert!(source.contains(DQ_WGSL) && source.contains(SKIN_WGSL));
    assert!(
        source.contains("array<mat2x4<f32>, EXPORT_JOINTS>")
            && source.contains("EXPORT_JOINTS: u32 = 8u;")
    );
    assert_eq!(EXPORT_PALETTE_WGSL.matches(JOINTS_DECLARATION).count(), 1);
    let storage = export_wgsl_source(&ShaderRequest {
        palette: ExportPalette::Storage,
        ..r
    })
    .expect("source");
    assert_eq!(storage.matches("var<storage, read> joint_").count(), 3);
    assert!(!storage.contains("var<uniform> joint_"));
}

#[test]
fn header_gives_the_std140_layout_and_the_glsl_names() {
    let r = request(
        ShaderTarget::GlslEs,
        SkinningMode::Hybrid,
        ExportPalette::Uniform(256),
        ExportStage::Vertex,
    );
    let out = export_shader(&r).expect("export");
    let text = out.code.text().expect("text").to_string();
    assert!(
        text.starts_with("#version 300 es\n// dqview "),
        "{}",
        &text[..200]
    );
    for needle in [
        "offset   0: mat4x4<f32> clip_from_model",
        "offset  64: u32 joint_count",
        "offset  68: u32 non_rigid",
        "offset  72: f32 beta_scale",
        "array<mat2x4<f32>, 256>, 8192 bytes",
        "array<mat4x4<f32>, 256>, 16384 bytes",
        "array<mat3x3<f32>, 256>, 12288 bytes",
        "stride 32",
        "stride 48",
        "layout(location = 4) in",
    ] {
        assert!(
            out.header.contains(needle),
            "{needle} missing from\n{}",
            out.header
        );
    }
    // Every uniform block the GLSL declares is named in the header.
    for line in text.lines().filter(|l| l.starts_with("uniform ")) {
        let block = line.split_whitespace().nth(1).unwrap_or_default();
        assert!(out.header.contains(block), "{block} not in the header");
    }
}

#[test]
fn glsl_versions_follow_storage_and_stage() {
    let version = |target, palette, stage| {
        let out =
            export_shader(&request(target, SkinningMode::Dqs, palette, stage)).expect("export");
        out.code
            .text()
            .and_then(|t| t.lines().next())
            .unwrap_or_default()
            .to_string()
    };
    let uniform = ExportPalette::Uniform(32);
    assert_eq!(
        version(ShaderTarget::GlslEs, uniform, ExportStage::Vertex),
        "#version 300 es"
    );
    assert_eq!(
        version(
            ShaderTarget::GlslEs,
            ExportPalette::Storage,
            ExportStage::Vertex
        ),
        "#version 310 es"
    );
    assert_eq!(
        version(ShaderTarget::GlslEs, uniform, ExportStage::Compute),
        "#version 310 es"
    );
    assert_eq!(
        version(ShaderTarget::Glsl, uniform, ExportStage::Vertex),
        "#version 330 core"
    );
    assert_eq!(
        version(ShaderTarget::Glsl, uniform, ExportStage::Compute),
        "#version 450 core"
    );
}

#[test]
fn bad_requests_are_errors() {
    for n in [0, MAX_EXPORT_JOINTS + 1] {
        let r = request(
            ShaderTarget::Wgsl,
            SkinningMode::Dqs,
            ExportPalette::Uniform(n),
            ExportStage::Vertex,
        );
        assert!(matches!(
            export_shader(&r),
            Err(ShaderExportError::Joints(_))
        ));
    }
    let r = request(
        ShaderTarget::Wgsl,
        SkinningMode::Dm,
        ExportPalette::Storage,
        ExportStage::Vertex,
    );
    assert!(matches!(
        export_shader(&r),
        Err(ShaderExportError::Method(_))
    ));
}

#[test]
fn cor_reads_its_centre_at_location_7_or_binding_7_and_keeps_no_renderer_constant() {
    let vertex = request(
        ShaderTarget::Wgsl,
        SkinningMode::Cor,
        ExportPalette::Uniform(64),
        ExportStage::Vertex,
    );
    let (module, _) = export_module(&vertex).expect("module");
    let entry = &module.entry_points[0];
    let locations: Vec<u32> = entry
        .function
        .arguments
        .iter()
        .filter_map(|a| match a.binding {
            Some(naga::Binding::Location { location, .. }) => Some(location),
            _ => None,
        })
        .collect();
    assert_eq!(locations, [7], "the centre is the one loose argument");
    let text = match export_shader(&vertex).expect("export").code {
        ShaderCode::Text(t) => t,
        ShaderCode::Spirv(_) => unreachable!("wgsl"),
    };
    assert!(text.contains("skin_cor"), "{text}");
    assert!(
        !text.contains("SKIN_MODE_COR"),
        "the renderer's constant was kept"
    );
    assert!(
        text.contains("@location(7): vec3<f32> cor_center"),
        "the header names location 7"
    );
    let compute = request(
        ShaderTarget::Wgsl,
        SkinningMode::Cor,
        ExportPalette::Storage,
        ExportStage::Compute,
    );
    let (module, _) = export_module(&compute).expect("module");
    assert!(bound_names(&module).contains(&"dqview_cor_centers".to_string()));
}

/// The documented name of each binding (docs/engines.md, "Names"), by WGSL (group, binding):
/// written out here, not taken from the code, so a rename is a failing test.
const DOCUMENTED_NAMES: [((u32, u32), &str); 12] = [
    ((0, 0), "dqview_params"),
    ((0, 1), "dqview_joint_dual_quats"),
    ((0, 2), "dqview_joint_matrices"),
    ((0, 3), "dqview_joint_scale_shears"),
    ((1, 0), "dqview_bind_positions"),
    ((1, 1), "dqview_bind_normals"),
    ((1, 2), "dqview_vertex_joints"),
    ((1, 3), "dqview_vertex_weights"),
    ((1, 4), "dqview_vertex_blends"),
    ((1, 5), "dqview_skinned"),
    ((1, 6), "dqview_ddm"),
    ((1, 7), "dqview_cor_centers"),
];

/// The names of the SPIR-V variables in `storage_classes` (`OpName` of each `OpVariable`).
fn spirv_variable_names(words: &[u32], storage_classes: &[u32]) -> Vec<String> {
    const OP_NAME: u32 = 5;
    const OP_VARIABLE: u32 = 59;
    let mut names = HashMap::new();
    let mut variables = Vec::new();
    let mut at = 5;
    while let Some(&first) = words.get(at) {
        let (count, opcode) = ((first >> 16) as usize, first & 0xffff);
        let operands = words.get(at + 1..at + count.max(1)).unwrap_or(&[]);
        if opcode == OP_NAME && !operands.is_empty() {
            let bytes: Vec<u8> = operands[1..].iter().flat_map(|w| w.to_le_bytes()).collect();
            let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
            let name = String::from_utf8_lossy(&bytes[..end]).into_owned();
            names.insert(operands[0], name);
        }
        if opcode == OP_VARIABLE && operands.len() >= 3 && storage_classes.contains(&operands[2]) {
            variables.push(operands[1]);
        }
        at += count.max(1);
    }
    variables
        .iter()
        .map(|id| names.get(id).cloned().unwrap_or_else(|| format!("%{id}")))
        .collect()
}

/// The names the target declares its bound resources under: WGSL `var`s, GLSL uniform and
/// buffer blocks, HLSL `cbuffer`s and buffers, MSL entry point buffers, SPIR-V variables.
fn declared_resource_names(target: ShaderTarget, code: &ShaderCode) -> Vec<String> {
    let text = match code {
        ShaderCode::Text(t) => t.as_str(),
        // Uniform (2) and StorageBuffer (12) variables.
        ShaderCode::Spirv(words) => return spirv_variable_names(words, &[2, 12]),
    };
    let code_lines = text.lines().filter(|l| !l.trim_start().starts_with("//"));
    let token_before = |line: &str, marker: &str| -> Option<String> {
        let (before, _) = line.split_once(marker)?;
        before
            .split_whitespace()
            .last()
            .map(|t| t.trim_start_matches('&').to_string())
    };
    code_lines
        .filter_map(|line| match target {
            ShaderTarget::Wgsl => {
                let rest = line.trim().strip_prefix("var<")?;
                let (space, rest) = rest.split_once("> ")?;
                (space.starts_with("uniform") || space.starts_with("storage"))
                    .then(|| rest.split(':').next().unwrap_or_default().to_string())
            }
            ShaderTarget::Glsl | ShaderTarget::GlslEs => {
                let block = [" uniform ", " buffer "]
                    .iter()
                    .find_map(|k| line.split_once(k).map(|(_, rest)| rest))?;
                block
                    .split_once(" {")
                    .map(|(name, _)| name.trim().to_string())
            }
            ShaderTarget::Hlsl => token_before(line, " : register("),
            ShaderTarget::Msl => token_before(line, " [[buffer("),
            ShaderTarget::Spirv => None,
        })
        .collect()
}

#[test]
fn every_target_and_method_binds_by_the_documented_names() {
    let naga_style = |name: &str| {
        name.starts_with("type_")
            || name.starts_with("_group_")
            || name.contains("_block_")
            || name.starts_with('%')
            || name.starts_with('_')
    };
    let mut failures = Vec::new();
    for target in ShaderTarget::ALL {
        for stage in STAGES {
            for (palette, influences) in PALETTES.into_iter().zip(INFLUENCES) {
                // The name of each binding, from the method that binds it.
                let mut seen: HashMap<(u32, u32), String> = HashMap::new();
                for method in METHODS {
                    let r = ShaderRequest {
                        influences,
                        ..request(target, method, palette, stage)
                    };
                    let out = export_shader(&r).expect("export");
                    let (module, _) = export_module(&r).expect("module");
                    let mut expected: Vec<String> = translate::bound_globals(&module)
                        .iter()
                        .map(|(_, b, _)| {
                            let (_, name) = DOCUMENTED_NAMES
                                .iter()
                                .find(|(at, _)| *at == (b.group, b.binding))
                                .expect("a documented binding");
                            name.to_string()
                        })
                        .collect();
                    let mut declared = declared_resource_names(target, &out.code);
                    declared.retain(|n| n != "dqview_buffer_sizes");
                    for name in &declared {
                        if naga_style(name) {
                            failures.push(format!("{}: naga's name {name}", r.command_line()));
                        }
                    }
                    expected.sort();
                    declared.sort();
                    if declared != expected {
                        failures.push(format!(
                            "{}: declares {declared:?}, documented {expected:?}",
                            r.command_line()
                        ));
                    }
                    for (h, b, _) in translate::bound_globals(&module) {
                        let name = module.global_variables[h].name.clone().unwrap_or_default();
                        let previous = seen.entry((b.group, b.binding)).or_insert(name.clone());
                        if *previous != name {
                            failures.push(format!(
                                "{}: binding {b:?} is {name}, {previous} in another method",
                                r.command_line()
                            ));
                        }
                        if !out.header.contains(&format!(": uniform {name}:"))
                            && !out.header.contains(&format!(" {name}: array"))
                        {
                            failures
                                .push(format!("{}: {name} not in the header", r.command_line()));
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn eight_influences_add_locations_5_and_6_or_double_the_compute_arrays() {
    for method in METHODS {
        let r = ShaderRequest {
            influences: ExportInfluences::Eight,
            ..request(
                ShaderTarget::GlslEs,
                method,
                ExportPalette::Uniform(64),
                ExportStage::Vertex,
            )
        };
        let out = export_shader(&r).expect("export");
        let text = out.code.text().expect("text");
        for needle in [
            "layout(location = 5) in uvec4 ",
            "layout(location = 6) in vec4 ",
        ] {
            assert!(text.contains(needle), "{}: no {needle}", r.command_line());
        }
        assert!(
            out.header
                .contains("vec4<u32> joints1: joint indices of influences 4 to 7")
        );
        let four = export_shader(&ShaderRequest {
            influences: ExportInfluences::Four,
            ..r
        })
        .expect("export");
        let four = four.code.text().expect("text");
        assert!(!four.contains("layout(location = 5)") && !four.contains("location = 6"));
        let compute = export_shader(&ShaderRequest {
            stage: ExportStage::Compute,
            target: ShaderTarget::Wgsl,
            ..r
        })
        .expect("export");
        assert!(compute.header.contains("joint indices, 8 u32 per vertex"));
        assert!(
            compute
                .code
                .text()
                .expect("text")
                .contains("compute_input(id.x, 8u)")
        );
    }
}
