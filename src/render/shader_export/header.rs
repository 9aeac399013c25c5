//! The header of an exported shader: dqview's version, the command, the method and every
//! binding, block member and attribute with its layout, in the target's own spelling.

use std::collections::HashMap;

use naga::common::wgsl::TypeContext;
use naga::{AddressSpace, Binding, Handle, Module, ResourceBinding, TypeInner};

use super::{ExportInfluences, ExportPalette, ExportStage, ShaderRequest};
use crate::skin::SkinningMode;

/// How a target spells the interface.
pub(super) struct Naming {
    /// The language and version.
    pub language: String,
    /// The entry point's name in the target.
    pub entry: String,
    /// Per bound global: its binding in the target.
    pub resources: HashMap<Handle<naga::GlobalVariable>, String>,
    /// Spelling of vertex input location n.
    pub location: Box<dyn Fn(u32) -> String>,
    /// Target-specific lines.
    pub notes: Vec<String>,
}

impl Naming {
    /// Names each bound global by `resource(binding, handle)` and each location by `location`.
    pub fn new(
        language: &str,
        entry: &str,
        globals: &[(Handle<naga::GlobalVariable>, ResourceBinding, AddressSpace)],
        resource: impl Fn(&ResourceBinding, Handle<naga::GlobalVariable>) -> String,
        location: impl Fn(u32) -> String + 'static,
    ) -> Self {
        Self {
            language: language.to_string(),
            entry: entry.to_string(),
            resources: globals
                .iter()
                .map(|(h, b, _)| (*h, resource(b, *h)))
                .collect(),
            location: Box::new(location),
            notes: Vec::new(),
        }
    }
}

/// What a palette or input member means (the WGSL comments, for the header), for a shader
/// reading `influences` per vertex.
fn meaning(name: &str, influences: ExportInfluences) -> String {
    let eight = influences == ExportInfluences::Eight;
    let n = influences.count();
    let text = match name {
        "clip_from_model" => {
            "model (bind) space to clip space, used as given (the engine's clip convention)"
        }
        "joint_count" => "joints in the palette; indices at or past it read as the identity",
        "non_rigid" => "1 when some joint has scale, shear or a mirror (DQS phase 1), else 0",
        "beta_scale" => "hybrid: beta = clamp(blend * beta_scale, 0, 1)",
        "vertex_count" => "compute: vertices to skin",
        "dqview_joint_dual_quats" => {
            "per joint: column 0 rotation quaternion (x, y, z, w), column 1 dual part"
        }
        "dqview_joint_matrices" => {
            "per joint: skinning matrix world_from_joint * inverse_bind (column-major)"
        }
        "dqview_joint_scale_shears" => {
            "per joint: S with matrix = [rotation | translation] * S (identity when rigid)"
        }
        "dqview_bind_positions" => "bind-pose positions, 3 floats per vertex",
        "dqview_bind_normals" => "bind-pose normals, 3 floats per vertex",
        "dqview_vertex_joints" => {
            return format!("joint indices, {n} u32 per vertex, heaviest influence first");
        }
        "dqview_vertex_weights" => return format!("weights, {n} per vertex, summing to 1"),
        "dqview_vertex_blends" => "per-vertex blend (_DQS_BLEND), 1 float per vertex",
        "dqview_ddm" => {
            "DDM: word 0 the vertex count n; words 1 + v to 2 + v bound vertex v's pairs; from word n + 2, 11 words a pair: joint (u32), Omega's upper triangle (10 f32, libigl's order); `dqview ddm` writes it"
        }
        "dqview_skinned" => {
            "output: skinned position (3 floats) then unit normal (3 floats) per vertex"
        }
        "position" => "bind-space position",
        "normal" => "bind-space unit normal",
        "joints" if eight => {
            "joint indices of influences 0 to 3 (uint), heaviest first: influence 0 is the DQS pivot"
        }
        "joints" => {
            "4 joint indices (uint), heaviest influence first: influence 0 is the DQS pivot"
        }
        "weights" if eight => "weights of influences 0 to 3",
        "weights" => "4 weights summing to 1",
        "joints1" => "joint indices of influences 4 to 7 (uint), 0 where unused",
        "weights1" => "weights of influences 4 to 7, 0 where unused; all 8 weights sum to 1",
        "blend" => "per-vertex blend: _DQS_BLEND (0 LBS, 1 DQS), 1 without a map",
        "cor_center" => {
            "bind-space centre of rotation: _COR_CENTER, which `dqview cor MODEL --out FILE` writes"
        }
        "dqview_cor_centers" => {
            "per-vertex centre of rotation (_COR_CENTER, which `dqview cor` writes), 3 floats per vertex"
        }
        _ => "",
    };
    text.to_string()
}

/// The method's rule, as one line.
fn method_line(method: SkinningMode) -> &'static str {
    match method {
        SkinningMode::Lbs => {
            "LBS: M = sum w_i M_i; position M p, normal by the cofactor of M's 3x3 (sign of its det), renormalised."
        }
        SkinningMode::Hybrid => {
            "Hybrid: lerp(LBS, DQS, beta) per vertex, beta = clamp(blend * beta_scale, 0, 1); normals lerped, renormalised."
        }
        SkinningMode::Cor => {
            "CoR (Le and Hodgins 2016): q = sum w_i q_i (DQS's sign rule, influence 0 the pivot), normalised; p' = R(q) S (p - c) + (sum w_i M_i) c, c the vertex's centre of rotation, S = sum w_i S_i with non_rigid, else the identity; normal R(q) S-cofactor n."
        }
        SkinningMode::Ddm => {
            "DDM (Le and Lewis 2019, variant 0): Q = sum over the vertex's pairs of M_j (origin at the bind position) Omega_vj; the rotation nearest Q's 3x3 part and its translation move the vertex; LBS where Q has rank under 2. dqview ddm MODEL --out FILE writes dqview_ddm."
        }
        _ => {
            "DQS: sum w_i q_i, q_i negated where dot(real_i, real_0) < 0 (influence 0 the pivot), normalised; with non_rigid, p = (sum w_i S_i) p first."
        }
    }
}

/// The header lines (without comment markers).
pub(super) fn header_lines(
    request: &ShaderRequest,
    module: &Module,
    naming: &Naming,
) -> Vec<String> {
    let mut lines = vec![
        format!(
            "dqview {}: {} skinning, {} stage, {} influences, {}; naga {} from dqview's shaders/dq.wgsl, skin.wgsl, export_palette.wgsl, export_{}.wgsl{}.",
            env!("CARGO_PKG_VERSION"),
            request.method.short_label(),
            request.stage.name(),
            request.influences.count(),
            naming.language,
            NAGA_VERSION,
            request.stage.name(),
            match (request.method, request.stage) {
                (SkinningMode::Ddm, ExportStage::Vertex) => {
                    ", ddm.wgsl, export_ddm.wgsl, export_ddm_vertex.wgsl"
                }
                (SkinningMode::Ddm, ExportStage::Compute) => {
                    ", ddm.wgsl, export_ddm.wgsl, export_ddm_compute.wgsl"
                }
                (SkinningMode::Cor, _) => ", cor.wgsl",
                _ => "",
            },
        ),
        format!("Written by: {}", request.command_line()),
        method_line(request.method).to_string(),
        "Where a result is not finite, the bind-pose value is kept; a vertex with all weights 0 keeps its bind pose.".to_string(),
    ];
    if request.method == SkinningMode::Hybrid {
        lines.push("Without a _DQS_BLEND map: bind blend = 1 for every vertex and set beta_scale to the uniform beta.".to_string());
    }
    lines.push(format!("Entry point: {}", naming.entry));
    if let Some(ep) = module.entry_points.first() {
        if request.stage == ExportStage::Compute {
            let [x, y, z] = ep.workgroup_size;
            lines.push(format!("Workgroup size: {x} x {y} x {z}; dispatch ceil(vertex_count / {x}) workgroups in x."));
        }
        io_lines(module, &ep.function, naming, request.influences, &mut lines);
    }
    lines.push(format!(
        "Resources ({}; uniform blocks std140, storage buffers std430, offsets in bytes):",
        match request.palette {
            ExportPalette::Uniform(n) => format!("uniform palette of {n} joints"),
            ExportPalette::Storage => "storage palette".to_string(),
        }
    ));
    resource_lines(module, naming, request.influences, &mut lines);
    lines.extend(naming.notes.iter().cloned());
    lines
}

/// naga's version, for the header.
const NAGA_VERSION: &str = "30";

/// Vertex inputs and outputs.
fn io_lines(
    module: &Module,
    function: &naga::Function,
    naming: &Naming,
    influences: ExportInfluences,
    lines: &mut Vec<String>,
) {
    let gctx = module.to_ctx();
    let mut inputs = Vec::new();
    for arg in &function.arguments {
        match (&arg.binding, &module.types[arg.ty].inner) {
            (Some(Binding::Location { location, .. }), _) => {
                inputs.push((*location, arg.name.clone().unwrap_or_default(), arg.ty));
            }
            (None, TypeInner::Struct { members, .. }) => {
                for m in members {
                    if let Some(Binding::Location { location, .. }) = m.binding {
                        inputs.push((location, m.name.clone().unwrap_or_default(), m.ty));
                    }
                }
            }
            _ => {}
        }
    }
    inputs.sort_by_key(|(l, _, _)| *l);
    if !inputs.is_empty() {
        lines.push("Vertex inputs:".to_string());
    }
    for (location, name, ty) in inputs {
        lines.push(format!(
            "  {}: {} {name}: {}",
            (naming.location)(location),
            gctx.type_to_string(ty),
            meaning(&name, influences)
        ));
    }
    if let Some(result) = &function.result
        && let TypeInner::Struct { members, .. } = &module.types[result.ty].inner
    {
        lines.push("Outputs:".to_string());
        for m in members {
            let at = match m.binding {
                Some(Binding::BuiltIn(_)) => "builtin position".to_string(),
                Some(Binding::Location { location, .. }) => format!("location {location}"),
                _ => continue,
            };
            let name = m.name.clone().unwrap_or_default();
            let what = match name.as_str() {
                "clip_position" => "clip_from_model * vec4(skinned position, 1)",
                "position" => "skinned position, model space",
                _ => "skinned unit normal, model space",
            };
            lines.push(format!(
                "  {at}: {} {name}: {what}",
                gctx.type_to_string(m.ty)
            ));
        }
    }
}

/// Every bound global with its size and, for structs, member offsets; arrays with their stride.
fn resource_lines(
    module: &Module,
    naming: &Naming,
    influences: ExportInfluences,
    lines: &mut Vec<String>,
) {
    let gctx = module.to_ctx();
    let mut layouter = naga::proc::Layouter::default();
    if layouter.update(gctx).is_err() {
        lines.push("  (layout unavailable)".to_string());
        return;
    }
    for (h, b, space) in super::translate::bound_globals(module) {
        let g = &module.global_variables[h];
        let name = g.name.clone().unwrap_or_default();
        let kind = match space {
            AddressSpace::Uniform => "uniform",
            AddressSpace::Storage { access } if access.contains(naga::StorageAccess::STORE) => {
                "storage read_write"
            }
            _ => "storage read",
        };
        let size = match &module.types[g.ty].inner {
            TypeInner::Array {
                size: naga::ArraySize::Dynamic,
                ..
            } => "runtime-sized".to_string(),
            _ => format!("{} bytes", layouter[g.ty].size),
        };
        lines.push(format!(
            "  group {} binding {} = {}: {kind} {name}: {}, {size}",
            b.group,
            b.binding,
            naming.resources.get(&h).cloned().unwrap_or_default(),
            gctx.type_to_string(g.ty),
        ));
        match &module.types[g.ty].inner {
            TypeInner::Struct { members, .. } => {
                for m in members {
                    let member = m.name.clone().unwrap_or_default();
                    lines.push(format!(
                        "    offset {:>3}: {} {member}: {}",
                        m.offset,
                        gctx.type_to_string(m.ty),
                        meaning(&member, influences)
                    ));
                }
            }
            TypeInner::Array { stride, .. } => {
                lines.push(format!(
                    "    stride {stride}: {}",
                    meaning(&name, influences)
                ));
            }
            _ => {}
        }
    }
}
