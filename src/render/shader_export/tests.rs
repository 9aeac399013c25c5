use super::*;

const METHODS: [SkinningMode; 3] = [SkinningMode::Lbs, SkinningMode::Dqs, SkinningMode::Hybrid];
const STAGES: [ExportStage; 2] = [ExportStage::Vertex, ExportStage::Compute];
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
                for palette in PALETTES {
                    let r = request(target, method, palette, stage);
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
    assert_eq!(names(SkinningMode::Lbs), ["skin", "joint_matrices"]);
    assert_eq!(
        names(SkinningMode::Dqs),
        ["skin", "joint_dual_quats", "joint_scale_shears"]
    );
    assert_eq!(
        names(SkinningMode::Hybrid),
        [
            "skin",
            "joint_dual_quats",
            "joint_matrices",
            "joint_scale_shears"
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
            "skin",
            "joint_dual_quats",
            "joint_scale_shears",
            "bind_positions",
            "bind_normals",
            "vertex_joints",
            "vertex_weights",
            "skinned"
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
        SkinningMode::Cor,
        ExportPalette::Storage,
        ExportStage::Vertex,
    );
    assert!(matches!(
        export_shader(&r),
        Err(ShaderExportError::Method(_))
    ));
}
