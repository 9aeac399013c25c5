//! Direct Delta Mush (Le and Lewis 2019), variant 0 with libigl 2.5.1's parameters: the CPU
//! reference.
//!
//! Delta Mush smooths the LBS result and re-applies the rest pose's smoothing deltas. Direct
//! Delta Mush folds the smoothing into a precomputed 4x4 matrix `Omega_ij` per vertex `i` and
//! joint `j` ([`ddm_precompute`]); at run time `Q_i = sum_j M_j Omega_ij`, and the rigid
//! transform fitted from `Q_i` moves the rest vertex ([`skin_vertex_ddm`]).
//!
//! The smoothing runs over the welded surface of one skinned mesh ([`WeldedSurface`]): vertices
//! of all its primitives with bit-identical rest positions are one vertex, so UV and normal
//! seams do not tear.

mod apply;
mod cache;
mod condition;
mod precompute;
mod scene;
mod smoothing;
mod weld;

pub use apply::{
    DdmFit, MIN_SECOND_SINGULAR, polar_rotation, skin_vertex_ddm, skin_vertex_ddm_scaled,
};
pub use cache::ddm_cache_key;
pub use condition::MIN_CONDITION;
pub use precompute::{
    DdmProgress, DdmWeights, MAX_DRIFT, Sym4, ddm_precompute, ddm_precompute_with,
};
pub use scene::{DdmPairsRef, MeshDdm, SceneDdm, ddm_vertex, skin_scene_ddm, skin_vertices_ddm};
pub use smoothing::SmoothingError;
pub use weld::WeldedSurface;

/// Direct Delta Mush's parameters, named as libigl's `direct_delta_mush_precomputation` names them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DdmParams {
    /// Smoothing iterations `p` (implicit Laplacian solves), at least 1.
    pub p: u32,
    /// Rotation smoothing step `lambda`, positive.
    pub lambda: f64,
    /// Translation smoothing step `kappa`, in (0, lambda).
    pub kappa: f64,
    /// Blend between the smoothed rotation part and the translation part, in [0, 1).
    pub alpha: f64,
}

impl DdmParams {
    /// libigl's stable setting: p 5, lambda 0.5, kappa 0.4, alpha 0.8.
    pub const DEFAULT: Self = Self {
        p: 5,
        lambda: 0.5,
        kappa: 0.4,
        alpha: 0.8,
    };
}

impl Default for DdmParams {
    fn default() -> Self {
        Self::DEFAULT
    }
}
