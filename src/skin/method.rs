//! Every skinning method behind one call: the precomputed data a method needs travels in
//! [`MethodData`], and [`skin_scene_method`] poses the scene with it.

use super::ddm::{SceneDdm, skin_scene_ddm};
use super::dm::{SceneDm, skin_scene_dm};
use super::{PosedPrimitive, SceneBetas, SceneCenters, SkinningMode, skin_scene_cor};
use crate::anim::Pose;
use crate::scene::Scene;

/// What the methods with a precompute or a map read: hybrid betas, CoR centers, DDM
/// matrices, DM rest deltas.
#[derive(Clone, Copy, Debug)]
pub struct MethodData<'a> {
    /// Per-vertex hybrid betas (empty: beta 1 everywhere).
    pub betas: &'a SceneBetas,
    /// Strength of the betas, in [0, 1].
    pub beta_scale: f32,
    /// CoR's centers, when computed.
    pub centers: Option<&'a SceneCenters>,
    /// Direct Delta Mush's matrices, when computed.
    pub ddm: Option<&'a SceneDdm>,
    /// Delta Mush's welded surfaces and rest deltas, when computed.
    pub dm: Option<&'a SceneDm>,
}

impl MethodData<'_> {
    /// Whether `mode` can run: CoR needs its centers and DDM its matrices.
    #[must_use]
    pub fn has(&self, mode: SkinningMode) -> bool {
        match mode {
            SkinningMode::Cor => self.centers.is_some(),
            SkinningMode::Ddm => self.ddm.is_some(),
            SkinningMode::Dm => self.dm.is_some(),
            SkinningMode::Lbs | SkinningMode::Dqs | SkinningMode::Hybrid => true,
        }
    }
}

/// `scene` at `pose` by `mode`; `None` when `mode` needs data `data` lacks.
#[must_use]
pub fn skin_scene_method(
    scene: &Scene,
    pose: &Pose,
    mode: SkinningMode,
    data: &MethodData<'_>,
) -> Option<Vec<PosedPrimitive>> {
    Some(match mode {
        SkinningMode::Cor => skin_scene_cor(scene, pose, data.centers?),
        SkinningMode::Ddm => skin_scene_ddm(scene, pose, data.ddm?),
        SkinningMode::Dm => skin_scene_dm(scene, pose, data.dm?),
        SkinningMode::Lbs | SkinningMode::Dqs | SkinningMode::Hybrid => {
            super::skin_scene_hybrid(scene, pose, mode, data.betas, data.beta_scale)
        }
    })
}
