//! Layouts checked, not copied: every `Gpu*` struct of `dqview::render` against its WGSL
//! twin, parsed by naga from the very sources the pipelines are built from. A layout change
//! on either side fails here instead of relying on "keep in sync" comments.

use dqview::render::GpuBackdrop;
use dqview::render::gpu_data::*;
use dqview::render::shaders::{
    BACKDROP_WGSL, MAX_UNIFORM_JOINTS, PaletteBinding, compute_source, dm_scatter_source,
    dm_surface_source, render_source,
};
use dqview::scene::AlphaMode;
use glam::{Mat3, Mat4, Vec3, Vec4};

/// Parses and validates WGSL `source` with naga alone (no adapter); panics with the error.
fn validate_wgsl(name: &str, source: &str) -> naga::Module {
    let module = match naga::front::wgsl::parse_str(source) {
        Ok(m) => m,
        Err(e) => panic!("{name}: {}", e.emit_to_string(source)),
    };
    let mut validator = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    );
    if let Err(e) = validator.validate(&module) {
        panic!("{name}: {e:?}");
    }
    module
}

/// A Rust struct's size and field offsets, named as its WGSL twin names its members.
struct Layout {
    rust: &'static str,
    wgsl: &'static str,
    size: usize,
    fields: Vec<(&'static str, usize)>,
}

/// The [`Layout`] of `$t`, twin of WGSL struct `$wgsl`, with its fields in order.
macro_rules! layout {
    ($t:ty, $wgsl:literal, [$($f:ident),* $(,)?]) => {
        Layout {
            rust: stringify!($t),
            wgsl: $wgsl,
            size: size_of::<$t>(),
            fields: vec![$((stringify!($f), std::mem::offset_of!($t, $f))),*],
        }
    };
}

/// The struct named `name` in `module`: its members (name, offset) and size.
fn wgsl_struct(module: &naga::Module, name: &str) -> Option<(Vec<(String, u32)>, u32)> {
    module.types.iter().find_map(|(_, ty)| match &ty.inner {
        naga::TypeInner::Struct { members, span } if ty.name.as_deref() == Some(name) => {
            let members = members
                .iter()
                .map(|m| (m.name.clone().unwrap_or_default(), m.offset))
                .collect();
            Some((members, *span))
        }
        _ => None,
    })
}

/// Asserts that `layout` matches its twin in `module`: same member names in order, offsets, size.
fn check(module: &naga::Module, layout: &Layout) {
    let Some((members, span)) = wgsl_struct(module, layout.wgsl) else {
        panic!("no WGSL struct {} (twin of {})", layout.wgsl, layout.rust);
    };
    let wgsl: Vec<(&str, usize)> = members
        .iter()
        .map(|(n, o)| (n.as_str(), *o as usize))
        .collect();
    assert_eq!(
        wgsl, layout.fields,
        "{} vs WGSL {}: (member, offset) differ",
        layout.rust, layout.wgsl
    );
    assert_eq!(
        span as usize, layout.size,
        "{} is {} bytes, WGSL {} is {span}",
        layout.rust, layout.size, layout.wgsl
    );
}

/// The value of WGSL constant `name` (a u32 or f32 literal) in `module`, as f64.
fn wgsl_constant(module: &naga::Module, name: &str) -> f64 {
    let constant = module
        .constants
        .iter()
        .find(|(_, c)| c.name.as_deref() == Some(name))
        .map(|(_, c)| c)
        .unwrap_or_else(|| panic!("no WGSL constant {name}"));
    match module.global_expressions[constant.init] {
        naga::Expression::Literal(naga::Literal::U32(v)) => f64::from(v),
        naga::Expression::Literal(naga::Literal::F32(v)) => f64::from(v),
        ref other => panic!("{name} is not a literal: {other:?}"),
    }
}

#[test]
fn layouts_match_the_wgsl() {
    for binding in PaletteBinding::ALL {
        let render = validate_wgsl("render", &render_source(binding));
        check(
            &render,
            &layout!(
                GpuSkinParams,
                "SkinParams",
                [joint_count, non_rigid, instance_count, pad]
            ),
        );
        check(
            &render,
            &layout!(
                GpuJointLinear,
                "JointLinear",
                [matrix, scale_shear, hinge, bone]
            ),
        );
        check(
            &render,
            &layout!(
                GpuGeometryParams,
                "GeometryParams",
                [
                    vertex_count,
                    record_words,
                    uv_at,
                    color_at,
                    tangent_at,
                    influence_words,
                    flags,
                    morph_count,
                    skinned_words,
                    pad0,
                    pad1,
                    pad2,
                    morph_weights,
                ]
            ),
        );
        check(
            &render,
            &layout!(
                GpuFrameUniforms,
                "FrameUniforms",
                [
                    clip_from_world,
                    key_light,
                    fill_light,
                    base_color,
                    params,
                    wire_color,
                    extra,
                    heat_range,
                ]
            ),
        );
        check(
            &render,
            &layout!(GpuMaterial, "MaterialUniforms", [base_color, alpha]),
        );
        let compute = validate_wgsl("compute", &compute_source(binding));
        check(
            &compute,
            &layout!(
                GpuComputeParams,
                "ComputeParams",
                [beta_scale, bulge, row_stride, pad]
            ),
        );
        check(
            &compute,
            &layout!(
                GpuGeometryParams,
                "GeometryParams",
                [
                    vertex_count,
                    record_words,
                    uv_at,
                    color_at,
                    tangent_at,
                    influence_words,
                    flags,
                    morph_count,
                    skinned_words,
                    pad0,
                    pad1,
                    pad2,
                    morph_weights,
                ]
            ),
        );
    }
    for binding in PaletteBinding::ALL {
        check(
            &validate_wgsl("dm_surface", &dm_surface_source(binding)),
            &layout!(
                GpuDmParams,
                "DmParams",
                [
                    welded_count,
                    row_stride,
                    factor,
                    min_corner_height,
                    rest_scale,
                    neighbours_at,
                    corner_offsets_at,
                    corners_at,
                    influence_offsets_at,
                    influences_at,
                    pad0,
                    pad1,
                ]
            ),
        );
        check(
            &validate_wgsl("dm_scatter", &dm_scatter_source(binding)),
            &layout!(
                GpuDmPrimitiveParams,
                "DmPrimitiveParams",
                [vertex_count, skinned_words, welded_count, row_stride]
            ),
        );
    }
    check(
        &validate_wgsl("backdrop", BACKDROP_WGSL),
        &layout!(GpuBackdrop, "Backdrop", [color]),
    );
}

#[test]
fn dual_quaternion_palette_matches_mat2x4() {
    for binding in PaletteBinding::ALL {
        let module = validate_wgsl("render", &render_source(binding));
        let (_, var) = module
            .global_variables
            .iter()
            .find(|(_, v)| v.name.as_deref() == Some("joint_dual_quats"))
            .expect("joint_dual_quats");
        let naga::TypeInner::Array { base, stride, .. } = module.types[var.ty].inner else {
            panic!("joint_dual_quats is not an array");
        };
        assert_eq!(stride as usize, size_of::<GpuDualQuat>());
        let naga::TypeInner::Matrix { columns, rows, .. } = module.types[base].inner else {
            panic!("joint_dual_quats holds no matrices");
        };
        assert_eq!(
            (columns, rows),
            (naga::VectorSize::Bi, naga::VectorSize::Quad)
        );
        // Column 1 (the dual part) starts 16 bytes in, as `GpuDualQuat::dual` does.
        assert_eq!(std::mem::offset_of!(GpuDualQuat, dual), 16);
    }
}

#[test]
fn constants_match_the_wgsl() {
    let render = validate_wgsl("render", &render_source(PaletteBinding::Uniform));
    let c = |name| wgsl_constant(&render, name);
    assert_eq!(c("SKIN_MODE_LBS"), f64::from(GPU_MODE_LBS));
    assert_eq!(c("SKIN_MODE_DQS"), f64::from(GPU_MODE_DQS));
    assert_eq!(c("SKIN_MODE_HYBRID"), f64::from(GPU_MODE_HYBRID));
    assert_eq!(c("SKIN_MODE_COR"), f64::from(GPU_MODE_COR));
    assert_eq!(c("SKIN_MODE_DDM"), f64::from(GPU_MODE_DDM));
    assert_eq!(c("ABSENT"), f64::from(ABSENT));
    assert_eq!(c("GEOMETRY_HAS_BETAS"), f64::from(GEOMETRY_HAS_BETAS));
    assert_eq!(c("GEOMETRY_HAS_CENTERS"), f64::from(GEOMETRY_HAS_CENTERS));
    assert_eq!(c("GEOMETRY_HAS_DDM"), f64::from(GEOMETRY_HAS_DDM));
    assert_eq!(c("DDM_PAIR_WORDS"), DDM_PAIR_WORDS as f64);
    assert_eq!(c("MAX_MORPH_TARGETS"), MAX_GPU_MORPH_TARGETS as f64);
    assert_eq!(c("ALPHA_MASK"), f64::from(GPU_ALPHA_MASK));
    assert_eq!(c("ALPHA_BLEND"), f64::from(GPU_ALPHA_BLEND));
    assert_eq!(c("MAX_UNIFORM_JOINTS"), MAX_UNIFORM_JOINTS as f64);
    let compute = validate_wgsl("compute", &compute_source(PaletteBinding::Uniform));
    let entry = compute
        .entry_points
        .iter()
        .find(|e| e.name == "cs_skin")
        .expect("cs_skin");
    assert_eq!(entry.workgroup_size, [WORKGROUP_SIZE, 1, 1]);
    let surface = validate_wgsl("dm_surface", &dm_surface_source(PaletteBinding::Uniform));
    assert_eq!(
        wgsl_constant(&surface, "DM_CORNER_WORDS"),
        DM_CORNER_WORDS as f64
    );
    assert_eq!(
        wgsl_constant(&surface, "DM_STABLE_BIT"),
        f64::from(DM_STABLE_BIT)
    );
    assert_eq!(
        wgsl_constant(&surface, "DM_SAME_DIRECTION"),
        f64::from(10.0 * f32::EPSILON)
    );
    let scatter = validate_wgsl("dm_scatter", &dm_scatter_source(PaletteBinding::Uniform));
    assert_eq!(
        wgsl_constant(&scatter, "DM_SOURCE_BIT"),
        f64::from(DM_SOURCE_BIT)
    );
    for (module, entries) in [
        (&surface, &["cs_dm_smooth", "cs_dm_correct"][..]),
        (&scatter, &["cs_dm_gather", "cs_dm_scatter"][..]),
    ] {
        for name in entries {
            let entry = module.entry_points.iter().find(|e| e.name == *name);
            let size = entry.map(|e| e.workgroup_size);
            assert_eq!(size, Some([WORKGROUP_SIZE, 1, 1]), "{name}");
        }
    }
}

#[test]
fn a_changed_layout_fails_the_check() {
    // The check itself must catch a drift: WGSL with `pad` moved before `non_rigid`.
    let module = validate_wgsl(
        "drifted",
        "struct SkinParams { joint_count: u32, pad: u32, non_rigid: u32, instance_count: u32, }\n\
         @group(0) @binding(0) var<uniform> skin: SkinParams;\n\
         @compute @workgroup_size(1) fn main() { _ = skin.joint_count; }",
    );
    let caught = std::panic::catch_unwind(|| {
        check(
            &module,
            &layout!(
                GpuSkinParams,
                "SkinParams",
                [joint_count, non_rigid, instance_count, pad]
            ),
        );
    });
    assert!(
        caught.is_err(),
        "a reordered member must fail the layout check"
    );
}

#[test]
fn colors_pack_to_unorm16_exactly_for_8_bit_values() {
    let [rg, ba] = pack_color(Vec4::new(1.0, 0.0, 128.0 / 255.0, 0.2));
    assert_eq!((rg & 0xffff, rg >> 16), (65535, 0));
    assert_eq!((ba & 0xffff, ba >> 16), (128 * 257, 13107));
    // Out of range clamps; a non-finite colour is white.
    assert_eq!(
        pack_color(Vec4::new(2.0, -1.0, f32::NAN, 0.5)),
        [u32::MAX; 2]
    );
    let m = GpuMaterial::new(Vec4::ONE, AlphaMode::Mask { cutoff: 0.3 });
    assert_eq!(m.alpha[..2], [0.3, GPU_ALPHA_MASK]);
    assert_eq!(
        GpuMaterial::new(Vec4::ONE, AlphaMode::Blend).alpha[1],
        GPU_ALPHA_BLEND
    );
}

#[test]
fn joint_linears_are_column_major_with_their_hinge() {
    let mut j = GpuJointLinear::default();
    j.set_pose(
        Mat4::from_translation(Vec3::new(1.0, 2.0, 3.0)),
        Mat3::from_cols(Vec3::X, Vec3::new(0.5, 1.0, 0.0), Vec3::Z),
    );
    assert_eq!(j.matrix[3], [1.0, 2.0, 3.0, 1.0]);
    assert_eq!(j.scale_shear[1], [0.5, 1.0, 0.0, 0.0]);
    assert_eq!(j.hinge[3], -1.0, "no parent by default");
    j.set_hinge(Vec3::Y, Some(4), Some(Vec3::Z));
    assert_eq!(j.hinge, [0.0, 1.0, 0.0, 4.0]);
    assert_eq!(j.bone, [0.0, 0.0, 1.0, 1.0]);
}
