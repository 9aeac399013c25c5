//! Direct Delta Mush's parameters as flags (named as libigl names them), checked, and the
//! precompute with progress on stderr when it is slow.

use std::time::Instant;

use anyhow::{Result, anyhow, bail};
use clap::Args;

use crate::scene::Scene;
use crate::skin::ddm::{DdmParams, DdmProgress, SceneDdm};

/// Direct Delta Mush precompute options.
#[derive(Clone, Debug, Args)]
pub struct DdmArgs {
    /// DDM smoothing iterations (libigl's p), at least 1.
    #[arg(long, value_name = "P", default_value_t = DdmParams::DEFAULT.p)]
    pub ddm_p: u32,
    /// DDM rotation smoothing step (libigl's lambda), positive.
    #[arg(long, value_name = "LAMBDA", default_value_t = DdmParams::DEFAULT.lambda)]
    pub ddm_lambda: f64,
    /// DDM translation smoothing step (libigl's kappa), in (0, lambda).
    #[arg(long, value_name = "KAPPA", default_value_t = DdmParams::DEFAULT.kappa)]
    pub ddm_kappa: f64,
    /// DDM blend of the rotation and translation parts (libigl's alpha), in [0, 1).
    #[arg(long, value_name = "ALPHA", default_value_t = DdmParams::DEFAULT.alpha)]
    pub ddm_alpha: f64,
}

impl Default for DdmArgs {
    fn default() -> Self {
        let d = DdmParams::DEFAULT;
        Self {
            ddm_p: d.p,
            ddm_lambda: d.lambda,
            ddm_kappa: d.kappa,
            ddm_alpha: d.alpha,
        }
    }
}

impl DdmArgs {
    /// The parameters, checked.
    pub fn params(&self) -> Result<DdmParams> {
        if self.ddm_p == 0 {
            bail!("--ddm-p must be at least 1, got 0");
        }
        if self.ddm_p > MAX_P {
            bail!("--ddm-p must be at most {MAX_P}, got {}", self.ddm_p);
        }
        if !(self.ddm_lambda.is_finite() && self.ddm_lambda > 0.0) {
            bail!(
                "--ddm-lambda must be a positive number, got {}",
                self.ddm_lambda
            );
        }
        if !(self.ddm_kappa.is_finite() && self.ddm_kappa > 0.0 && self.ddm_kappa < self.ddm_lambda)
        {
            bail!(
                "--ddm-kappa must be above 0 and below --ddm-lambda ({}), got {}",
                self.ddm_lambda,
                self.ddm_kappa
            );
        }
        if !(0.0..1.0).contains(&self.ddm_alpha) {
            bail!(
                "--ddm-alpha must be from 0 up to (not including) 1, got {}",
                self.ddm_alpha
            );
        }
        Ok(DdmParams {
            p: self.ddm_p,
            lambda: self.ddm_lambda,
            kappa: self.ddm_kappa,
            alpha: self.ddm_alpha,
        })
    }

    /// The flags that differ from their defaults.
    #[must_use]
    pub fn given(&self) -> Vec<&'static str> {
        let d = Self::default();
        [
            (self.ddm_p != d.ddm_p, "--ddm-p"),
            (self.ddm_lambda != d.ddm_lambda, "--ddm-lambda"),
            (self.ddm_kappa != d.ddm_kappa, "--ddm-kappa"),
            (self.ddm_alpha != d.ddm_alpha, "--ddm-alpha"),
        ]
        .into_iter()
        .filter_map(|(given, flag)| given.then_some(flag))
        .collect()
    }

    /// Refuses DDM flags where nothing runs DDM; `why` ends the sentence.
    pub fn refuse_unused(&self, why: &str) -> Result<()> {
        super::flag_rules::refuse_setup(&self.given(), "Direct Delta Mush", why)
    }

    /// The precompute of every skinned mesh of `scene`, from the cache where it has them, with
    /// progress on stderr when it runs on a terminal or long.
    pub fn compute(&self, scene: &Scene) -> Result<SceneDdm> {
        let params = self.params()?;
        let progress = DdmProgress::new();
        let start = Instant::now();
        let never = std::sync::atomic::AtomicBool::new(false);
        let result = super::cor_args::with_progress(
            "direct delta mush",
            "joint solves",
            &progress,
            &never,
            || SceneDdm::compute_cached(scene, params, &progress, None),
        );
        let (ddm, from_cache) = result
            .map_err(|_| anyhow!("the Direct Delta Mush precompute panicked"))?
            .map_err(|e| anyhow!("the Direct Delta Mush precompute failed: {e}"))?;
        log::info!(
            "direct delta mush: {} pairs, {} bytes in {:.2} s ({from_cache} meshes from the cache)",
            ddm.pair_count(),
            ddm.bytes(),
            start.elapsed().as_secs_f64()
        );
        Ok(ddm)
    }
}

/// Most smoothing iterations: each is a sparse solve over the whole surface per joint.
const MAX_P: u32 = 1000;
