//! Joint palettes and the CPU reference skinning (LBS, DQS, hybrid).
//!
//! [`skin_vertices`] defines correct output; the GPU shaders are checked against it.

mod cpu;
mod fast;
mod hybrid;
mod morph;
mod palette;
mod posed;

pub use cpu::{Betas, SkinMesh, SkinnedVertices, skin_vertex, skin_vertices};
pub use fast::{PackedMesh, PackedPalette, skin_packed};
pub use hybrid::{HybridFlags, SceneBetas, twist_swing_angles};
pub use morph::{MorphedVertices, effective_weight, has_active_morphs, morph_vertices};
pub use palette::{GpuDualQuat, JointPalette};
pub use posed::{PosedPrimitive, bounds, rest_bounds, skin_scene, skin_scene_hybrid};

/// How joint transforms are blended per vertex.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SkinningMode {
    /// Linear blend skinning: weighted sum of matrices.
    Lbs,
    /// Dual quaternion skinning: weighted, sign-aligned, normalised sum of dual quaternions.
    #[default]
    Dqs,
    /// Per-vertex beta in [0, 1]: position = lerp(LBS, DQS, beta).
    Hybrid,
}

impl SkinningMode {
    /// Every mode, in display order.
    pub const ALL: [Self; 3] = [Self::Lbs, Self::Dqs, Self::Hybrid];

    /// Short lower-case name, as used on the command line and in JSON (`lbs`, `dqs`, `hybrid`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Lbs => "lbs",
            Self::Dqs => "dqs",
            Self::Hybrid => "hybrid",
        }
    }

    /// Parses a name as printed by [`SkinningMode::name`] (case-insensitive).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(name))
    }
}

impl std::fmt::Display for SkinningMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
