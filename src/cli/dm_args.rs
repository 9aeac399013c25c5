//! Delta Mush's parameters as flags (named as Blender's Corrective Smooth names them), checked.

use anyhow::{Result, bail};
use clap::Args;

use crate::scene::Scene;
use crate::skin::dm::{DmParams, SceneDm};

/// Delta Mush options.
#[derive(Clone, Debug, Args)]
pub struct DmArgs {
    /// DM smoothing iterations (Blender's Repeat), 1 to 1000.
    #[arg(long, value_name = "N", default_value_t = DmParams::DEFAULT.iterations)]
    pub dm_iterations: u32,
    /// DM step towards the neighbours' mean per iteration (Blender's Factor), in (0, 1].
    #[arg(long, value_name = "F", default_value_t = DmParams::DEFAULT.factor)]
    pub dm_factor: f32,
}

impl Default for DmArgs {
    fn default() -> Self {
        Self {
            dm_iterations: DmParams::DEFAULT.iterations,
            dm_factor: DmParams::DEFAULT.factor,
        }
    }
}

impl DmArgs {
    /// The parameters, checked.
    pub fn params(&self) -> Result<DmParams> {
        let params = DmParams {
            iterations: self.dm_iterations,
            factor: self.dm_factor,
        };
        if let Some(problem) = params.iterations_problem() {
            bail!("--dm-iterations: {problem}");
        }
        if let Some(problem) = params.factor_problem() {
            bail!("--dm-factor: {problem}");
        }
        Ok(params)
    }

    /// The flags that differ from their defaults.
    #[must_use]
    pub fn given(&self) -> Vec<&'static str> {
        let d = Self::default();
        [
            (self.dm_iterations != d.dm_iterations, "--dm-iterations"),
            (
                self.dm_factor.to_bits() != d.dm_factor.to_bits(),
                "--dm-factor",
            ),
        ]
        .into_iter()
        .filter_map(|(given, flag)| given.then_some(flag))
        .collect()
    }

    /// Refuses DM flags where nothing runs DM; `why` ends the sentence.
    pub fn refuse_unused(&self, why: &str) -> Result<()> {
        super::flag_rules::refuse_setup(&self.given(), "Delta Mush", why)
    }

    /// Every skinned mesh of `scene` welded, with its rest deltas (milliseconds: no cache).
    pub fn compute(&self, scene: &Scene) -> Result<SceneDm> {
        Ok(SceneDm::compute(scene, self.params()?))
    }
}
