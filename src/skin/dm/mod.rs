//! Delta Mush (Mancewicz et al. 2014) as Blender's Corrective Smooth computes it (smooth type
//! Simple, rest source Original Coordinates, scale 1): the CPU reference.
//!
//! The posed (LBS) surface is smoothed by `iterations` Laplacian steps of `factor`; each face
//! corner then adds back the rest pose's smoothing delta, stored in the corner's tangent frame
//! of the smoothed rest surface and re-expressed in the same corner's frame of the smoothed
//! posed surface; a vertex takes its corners' deltas weighted by angle. The smoothing runs over
//! the welded surface of each skinned mesh ([`WeldedSurface`]), so seams do not tear.

mod frames;
mod scene;
mod surface;

pub use frames::{CornerFrame, corner_frame};
pub use scene::{MeshDm, Mushed, SceneDm, joint_scales, mush_welded, skin_scene_dm};
pub use surface::{
    DmCorner, DmSurface, MIN_CORNER_HEIGHT_ROUNDINGS, corner_height, smooth_positions,
};

pub use super::ddm::WeldedSurface;

/// Delta Mush's parameters, named as Blender's Corrective Smooth names them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DmParams {
    /// Smoothing iterations (Blender's Repeat), at least 1.
    pub iterations: u32,
    /// Step of each iteration towards the neighbours' mean (Blender's Factor), in (0, 1].
    pub factor: f32,
}

impl DmParams {
    /// 10 iterations of 0.5: Blender's factor; twice its 5 repeats, which leave the Adventurer's
    /// elbow and shoulder creases of LBS visible.
    pub const DEFAULT: Self = Self {
        iterations: 10,
        factor: 0.5,
    };

    /// Most iterations accepted: past this the smoothing has long converged on any mesh.
    pub const MAX_ITERATIONS: u32 = 1000;

    /// Why `self.iterations` is not valid, if it is not.
    #[must_use]
    pub fn iterations_problem(&self) -> Option<String> {
        (self.iterations == 0 || self.iterations > Self::MAX_ITERATIONS).then(|| {
            format!(
                "Delta Mush iterations must be 1 to {}, not {}",
                Self::MAX_ITERATIONS,
                self.iterations
            )
        })
    }

    /// Why `self.factor` is not valid, if it is not.
    #[must_use]
    pub fn factor_problem(&self) -> Option<String> {
        // Past 1 a step overshoots the neighbours' mean and the smoothing can oscillate.
        let valid = self.factor > 0.0 && self.factor <= 1.0;
        (!valid).then(|| {
            format!(
                "the Delta Mush factor must be in (0, 1], not {}",
                self.factor
            )
        })
    }
}

impl Default for DmParams {
    fn default() -> Self {
        Self::DEFAULT
    }
}
