//! The heatmap views' colour range, from the pose on screen, recomputed when it changes.

use glam::Mat4;

use crate::analysis::{HeatBetas, HeatQuantity, HeatRange, HeatRangeSpec, pose_heat_range};
use crate::anim::Pose;
use crate::scene::Scene;
use crate::skin::{SceneBetas, SkinningMode};
use crate::ui::HeatRangeMode;

/// What a computed range depends on.
#[derive(Clone, Debug, PartialEq)]
struct HeatKey {
    quantity: HeatQuantity,
    modes: Vec<SkinningMode>,
    beta_scale: f32,
    betas_revision: u64,
    globals: Vec<Mat4>,
    morph_weights: Vec<Vec<f32>>,
}

/// The last computed range and what it was computed for.
#[derive(Default)]
pub struct HeatRanges {
    key: Option<HeatKey>,
    range: Option<HeatRange>,
}

/// What the range is computed from this frame.
pub struct HeatInputs<'a> {
    /// The model.
    pub scene: &'a Scene,
    /// The pose drawn.
    pub pose: &'a Pose,
    /// The panes' modes.
    pub modes: Vec<SkinningMode>,
    /// The hybrid's per-vertex betas and their revision (bumped when they change).
    pub betas: (&'a SceneBetas, u64),
    /// The beta scale.
    pub beta_scale: f32,
    /// The rest bounding-box diagonal.
    pub diagonal: f32,
}

impl HeatRanges {
    /// The range `quantity` is drawn with under `mode` (auto: of this pose, recomputed only
    /// when the pose, panes or betas change; hold: the last auto one; fixed: the default).
    pub fn range(
        &mut self,
        quantity: HeatQuantity,
        mode: HeatRangeMode,
        inputs: &HeatInputs,
    ) -> HeatRange {
        let held = self
            .range
            .filter(|_| self.key.as_ref().is_some_and(|k| k.quantity == quantity));
        match (mode, held) {
            (HeatRangeMode::Fixed, _) => return quantity.default_range(),
            (HeatRangeMode::Hold, Some(range)) => return range,
            _ => {}
        }
        let key = HeatKey {
            quantity,
            modes: inputs.modes.clone(),
            beta_scale: inputs.beta_scale,
            betas_revision: inputs.betas.1,
            globals: inputs.pose.global.clone(),
            morph_weights: inputs.pose.morph_weights.clone(),
        };
        if let (Some(range), true) = (self.range, self.key.as_ref() == Some(&key)) {
            return range;
        }
        let betas = HeatBetas {
            betas: Some(inputs.betas.0),
            scale: inputs.beta_scale,
        };
        let range = pose_heat_range(
            inputs.scene,
            inputs.pose,
            quantity,
            &inputs.modes,
            betas,
            inputs.diagonal,
            HeatRangeSpec::default(),
        );
        self.key = Some(key);
        self.range = Some(range);
        range
    }
}
