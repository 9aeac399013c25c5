//! Joint palettes and the CPU reference skinning (LBS, DQS, hybrid).
//!
//! [`skin_vertices`] defines correct output; the GPU shaders are checked against it.

mod beta_rule;
mod blend_fit;
mod blend_paint;
mod blend_smooth;
mod bulge;
mod cor;
mod cor_cache;
mod cor_precompute;
mod cpu;
pub mod ddm;
pub mod dm;
mod fast;
mod fast_kernel;
mod hybrid;
mod method;
mod morph;
mod palette;
mod posed;
mod rigid_split;
mod work;

pub use beta_rule::{BetaChoice, BetaSources, HybridBetas, hybrid_betas};
pub use blend_fit::{
    BlendFit, FitError, FitOptions, FitPose, JointSweep, NEGLIGIBLE_GAP_RELATIVE, ReviewPoses,
    SweepKind, beta_terms, fit_beta, fit_blend, skinned_primitives,
};
pub use blend_paint::{BrushOp, Dab, Falloff, Neighbours, apply_dab, mirror_partners};
pub use blend_smooth::smooth_betas;
pub use bulge::{HingeAxis, SkinSkeleton, compensate_bulge, skin_scene_dqs_compensated};
pub use cor::{SceneCenters, skin_scene_cor, skin_vertex_cor, skin_vertices_cor};
pub use cor_cache::{CorSource, cor_cache_dir, cor_cache_key, cor_centers_cached};
pub use cor_precompute::{
    CorError, CorMethod, CorOptions, CorProgress, SUBDIVIDE_WEIGHT_STEP, cor_centers,
};
pub use cpu::{Betas, SkinMesh, SkinnedVertices, cpu_skinned_vertices, skin_vertex, skin_vertices};
pub use fast::{PackedMesh, PackedPalette, skin_packed, skin_packed_hybrid};
pub use hybrid::{HybridFlags, SceneBetas, twist_swing, twist_swing_angles};
pub use method::{MethodData, skin_scene_method};
pub use morph::{MorphedVertices, effective_weight, has_active_morphs, morph_vertices};
pub use palette::{GpuDualQuat, JointPalette};
pub use posed::{
    PosePalettes, PosedPrimitive, bounds, pose_rigid_primitive, rest_bounds, skin_scene,
    skin_scene_hybrid,
};
pub(crate) use work::count_visits;
pub use work::work_visits;

/// One value per mode, in [`SkinningMode::ALL`] order.
pub type PerMode<T> = [T; SkinningMode::COUNT];

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
    /// Optimized centers of rotation (Le and Hodgins 2016): blended rotation about a precomputed center.
    Cor,
    /// Direct Delta Mush (Le and Lewis 2019): a rigid fit per vertex from precomputed smoothed matrices.
    Ddm,
    /// Delta Mush (Mancewicz et al. 2014): LBS smoothed, then the rest pose's deltas added back.
    Dm,
}

impl SkinningMode {
    /// Every mode, in display order.
    pub const ALL: [Self; Self::COUNT] = [
        Self::Lbs,
        Self::Dqs,
        Self::Hybrid,
        Self::Cor,
        Self::Ddm,
        Self::Dm,
    ];

    /// Number of modes.
    pub const COUNT: usize = 6;

    /// Position in [`SkinningMode::ALL`].
    #[must_use]
    pub fn index(self) -> usize {
        self as usize
    }

    /// Short lower-case name, as used on the command line and in JSON (`lbs`, `dqs`, `hybrid`, `cor`, `ddm`, `dm`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Lbs => "lbs",
            Self::Dqs => "dqs",
            Self::Hybrid => "hybrid",
            Self::Cor => "cor",
            Self::Ddm => "ddm",
            Self::Dm => "dm",
        }
    }

    /// Upper-case abbreviation for buttons and legends (`LBS`, `DQS`, `Hybrid`, `CoR`).
    #[must_use]
    pub fn short_label(self) -> &'static str {
        match self {
            Self::Lbs => "LBS",
            Self::Dqs => "DQS",
            Self::Hybrid => "Hybrid",
            Self::Cor => "CoR",
            Self::Ddm => "DDM",
            Self::Dm => "DM",
        }
    }

    /// Caption of a view in this mode (`LBS (linear blend)`, ...).
    #[must_use]
    pub fn title(self) -> &'static str {
        match self {
            Self::Lbs => "LBS (linear blend)",
            Self::Dqs => "DQS (dual quaternion)",
            Self::Hybrid => "Hybrid (LBS-DQS blend)",
            Self::Cor => "CoR (centers of rotation)",
            Self::Ddm => "DDM (direct delta mush)",
            Self::Dm => "DM (delta mush)",
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
