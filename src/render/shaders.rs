//! WGSL sources, assembled from the files in `shaders/`.
//!
//! WGSL has no `#include`: a module is the concatenation of the shared skinning files
//! (`dq`, `palette`, `skin`, `cor`, `ddm`, `bulge`, `geometry`) and its entry-point files, so the
//! compute pass and the vertex shaders run the very same functions. Every file is read
//! through [`shader_text`], so an edited shader folder (`--shader-dir`) reaches every pipeline.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::RwLock;

/// Dual quaternion helpers (`rotate_vector`, `dq_translation`, `dq_blend`).
pub const DQ_WGSL: &str = include_str!("../../shaders/dq.wgsl");
/// Joint palettes (group 0) and their accessors.
pub const PALETTE_WGSL: &str = include_str!("../../shaders/palette.wgsl");
/// Skinning functions (`skin_lbs`, `skin_dqs`, `skin_hybrid`, `skin_vertex`).
pub const SKIN_WGSL: &str = include_str!("../../shaders/skin.wgsl");
/// Center-of-rotation skinning (`skin_cor`, `quat_blend`).
pub const COR_WGSL: &str = include_str!("../../shaders/cor.wgsl");
/// Direct Delta Mush's fit (`ddm_fit`, `skin_ddm`).
pub const DDM_WGSL: &str = include_str!("../../shaders/ddm.wgsl");
/// DQS bulge compensation (`compensate_bulge`).
pub const BULGE_WGSL: &str = include_str!("../../shaders/bulge.wgsl");
/// Geometry (group 1): `fetch_vertex` and `skin_geometry_vertex`, the one skinning path.
pub const GEOMETRY_WGSL: &str = include_str!("../../shaders/geometry.wgsl");
/// Debug views of the render pipelines (weights, displacement, collapse, ...).
pub const DEBUG_VIEWS_WGSL: &str = include_str!("../../shaders/debug_views.wgsl");
/// Render entry points `vs_main`, `fs_main`, `fs_wire`, frame (group 2) and material (group 3).
pub const DRAW_WGSL: &str = include_str!("../../shaders/draw.wgsl");
/// The full-viewport fill (`vs_backdrop`, `fs_backdrop`).
pub const BACKDROP_WGSL: &str = include_str!("../../shaders/backdrop.wgsl");
/// Compute entry point `cs_skin` and its group 2.
pub const SKIN_COMPUTE_WGSL: &str = include_str!("../../shaders/skin_compute.wgsl");
/// Delta Mush's smoothing and corner correction (`cs_dm_smooth`, `cs_dm_correct`).
pub const DM_SURFACE_WGSL: &str = include_str!("../../shaders/dm_surface.wgsl");
/// Delta Mush's per-primitive gather and scatter (`cs_dm_gather`, `cs_dm_scatter`).
pub const DM_SCATTER_WGSL: &str = include_str!("../../shaders/dm_scatter.wgsl");

/// Most joints whose dual quaternions fit one 64 KiB uniform binding (32 bytes each).
pub const MAX_UNIFORM_JOINTS: usize = 2048;

/// The dual quaternion declaration in `palette.wgsl`, replaced for storage palettes.
const UNIFORM_DECLARATION: &str = "var<uniform> joint_dual_quats: array<mat2x4<f32>, 2048>;";
/// Its storage-buffer replacement.
const STORAGE_DECLARATION: &str = "var<storage, read> joint_dual_quats: array<mat2x4<f32>>;";

/// Where a skin's dual quaternions live on the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PaletteBinding {
    /// A 64 KiB uniform buffer: fastest, up to [`MAX_UNIFORM_JOINTS`] joints.
    Uniform,
    /// A storage buffer, for skins with more joints.
    Storage,
}

impl PaletteBinding {
    /// Both kinds.
    pub const ALL: [Self; 2] = [Self::Uniform, Self::Storage];

    /// The kind a slot of `joint_count` entries (joints times instances) needs.
    #[must_use]
    pub fn for_joint_count(joint_count: usize) -> Self {
        if joint_count <= MAX_UNIFORM_JOINTS {
            Self::Uniform
        } else {
            Self::Storage
        }
    }

    /// Lower-case name for labels and messages.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Uniform => "uniform",
            Self::Storage => "storage",
        }
    }
}

/// A folder whose `.wgsl` files replace the built-in ones (the viewer's `--shader-dir`).
///
/// Process-wide because every pipeline constructor reads shader text; `None` (the default)
/// means the sources compiled into the binary.
static SHADER_DIR: RwLock<Option<PathBuf>> = RwLock::new(None);

/// Reads shaders from `dir` from now on (`None`: the built-in sources); pipelines built later see it.
pub fn set_shader_dir(dir: Option<PathBuf>) {
    if let Ok(mut slot) = SHADER_DIR.write() {
        *slot = dir;
    }
}

/// The folder set by [`set_shader_dir`], if any.
#[must_use]
pub fn shader_dir() -> Option<PathBuf> {
    SHADER_DIR.read().ok().and_then(|d| d.clone())
}

/// The text of shader file `name`: from the shader folder when one is set and has it, else `builtin`.
#[must_use]
pub fn shader_text(name: &str, builtin: &'static str) -> Cow<'static, str> {
    match shader_dir() {
        Some(dir) => read_override(&dir, name).map_or(Cow::Borrowed(builtin), Cow::Owned),
        None => Cow::Borrowed(builtin),
    }
}

/// `dir/name`, or `None` (logged) when it cannot be read.
fn read_override(dir: &Path, name: &str) -> Option<String> {
    let path = dir.join(name);
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) => {
            log::warn!("{}: {e}; using the built-in {name}", path.display());
            None
        }
    }
}

/// `palette.wgsl` with the dual quaternion binding declared for `binding`.
#[must_use]
pub fn palette_source(binding: PaletteBinding) -> Cow<'static, str> {
    let text = shader_text("palette.wgsl", PALETTE_WGSL);
    match binding {
        PaletteBinding::Uniform => text,
        PaletteBinding::Storage => {
            Cow::Owned(text.replacen(UNIFORM_DECLARATION, STORAGE_DECLARATION, 1))
        }
    }
}

/// A whole module: the shared skinning code (palette of kind `binding`, geometry) then `entry_points`.
#[must_use]
pub fn module_source(binding: PaletteBinding, entry_points: &[(&str, &'static str)]) -> String {
    let mut parts = vec![
        shader_text("dq.wgsl", DQ_WGSL),
        palette_source(binding),
        shader_text("skin.wgsl", SKIN_WGSL),
        shader_text("cor.wgsl", COR_WGSL),
        shader_text("ddm.wgsl", DDM_WGSL),
        shader_text("bulge.wgsl", BULGE_WGSL),
        shader_text("geometry.wgsl", GEOMETRY_WGSL),
    ];
    parts.extend(
        entry_points
            .iter()
            .map(|(name, text)| shader_text(name, text)),
    );
    let mut s = String::with_capacity(parts.iter().map(|p| p.len() + 1).sum());
    for part in &parts {
        s.push_str(part);
        s.push('\n');
    }
    s
}

/// The compute skinning module (`cs_skin`).
#[must_use]
pub fn compute_source(binding: PaletteBinding) -> String {
    module_source(binding, &[("skin_compute.wgsl", SKIN_COMPUTE_WGSL)])
}

/// Delta Mush's per-primitive module: the compute module with `cs_dm_gather`, `cs_dm_scatter`.
#[must_use]
pub fn dm_scatter_source(binding: PaletteBinding) -> String {
    module_source(
        binding,
        &[
            ("skin_compute.wgsl", SKIN_COMPUTE_WGSL),
            ("dm_scatter.wgsl", DM_SCATTER_WGSL),
        ],
    )
}

/// Delta Mush's surface module: the palette (group 0) with `cs_dm_smooth`, `cs_dm_correct`.
#[must_use]
pub fn dm_surface_source(binding: PaletteBinding) -> String {
    [
        shader_text("dq.wgsl", DQ_WGSL),
        palette_source(binding),
        shader_text("dm_surface.wgsl", DM_SURFACE_WGSL),
    ]
    .join("\n")
}

/// The render module: `vs_main`, `fs_main`, `fs_wire`.
#[must_use]
pub fn render_source(binding: PaletteBinding) -> String {
    module_source(
        binding,
        &[
            ("debug_views.wgsl", DEBUG_VIEWS_WGSL),
            ("draw.wgsl", DRAW_WGSL),
        ],
    )
}

/// Parses and validates WGSL `source` with naga alone (no adapter needed); panics with the error.
#[cfg(test)]
pub(crate) fn validate_wgsl(name: &str, source: &str) -> naga::Module {
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

#[cfg(test)]
mod tests {
    use super::*;

    use super::validate_wgsl as validate;

    /// Entry point names of a validated module, sorted.
    fn entry_points(module: &naga::Module) -> Vec<&str> {
        let mut names: Vec<&str> = module
            .entry_points
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        names.sort_unstable();
        names
    }

    #[test]
    fn shaders_validate_with_naga() {
        for binding in PaletteBinding::ALL {
            let name = format!("compute/{}", binding.name());
            let module = validate(&name, &compute_source(binding));
            assert_eq!(entry_points(&module), ["cs_skin"], "{name}");
            let name = format!("dm_scatter/{}", binding.name());
            let module = validate(&name, &dm_scatter_source(binding));
            assert_eq!(
                entry_points(&module),
                ["cs_dm_gather", "cs_dm_scatter", "cs_skin"],
                "{name}"
            );
            let name = format!("dm_surface/{}", binding.name());
            let module = validate(&name, &dm_surface_source(binding));
            assert_eq!(
                entry_points(&module),
                ["cs_dm_correct", "cs_dm_smooth"],
                "{name}"
            );
            let name = format!("render/{}", binding.name());
            let module = validate(&name, &render_source(binding));
            assert_eq!(
                entry_points(&module),
                ["fs_main", "fs_wire", "vs_main"],
                "{name}"
            );
        }
    }

    #[test]
    fn storage_variant_swaps_exactly_the_declaration() {
        assert_eq!(PALETTE_WGSL.matches(UNIFORM_DECLARATION).count(), 1);
        let storage = palette_source(PaletteBinding::Storage);
        assert!(storage.contains(STORAGE_DECLARATION));
        assert!(!storage.contains("var<uniform> joint_dual_quats"));
        assert!(PALETTE_WGSL.contains(&format!("MAX_UNIFORM_JOINTS: u32 = {MAX_UNIFORM_JOINTS}u")));
    }

    #[test]
    fn binding_kind_follows_joint_count() {
        assert_eq!(
            PaletteBinding::for_joint_count(2048),
            PaletteBinding::Uniform
        );
        assert_eq!(
            PaletteBinding::for_joint_count(2049),
            PaletteBinding::Storage
        );
    }
}
