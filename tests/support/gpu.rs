//! One shared GPU device per test binary, or a loud skip where there is no adapter.

use std::io::Write as _;
use std::sync::OnceLock;

use dqview::render::{
    GpuContext, GpuSkinning, RenderError, RenderSettings, Renderer, SkinRun, skin_scene_gpu,
};
use dqview::skin::{PosedPrimitive, SkinningMode};

/// The device and a renderer with [`RenderSettings::TESTING`] (its compute pass too).
pub struct Gpu {
    /// Device and queue.
    pub ctx: GpuContext,
    /// Pipelines for image tests and the compute pass.
    pub renderer: Renderer,
}

impl Gpu {
    /// `scene` at `pose` skinned once by the compute pass in `mode` with hybrid beta `beta`.
    pub fn skin_scene(
        &self,
        scene: &dqview::scene::Scene,
        pose: &dqview::anim::Pose,
        mode: SkinningMode,
        beta: f32,
    ) -> Result<Vec<PosedPrimitive>, RenderError> {
        let skinning = GpuSkinning::new(SkinRun::new(mode, beta));
        skin_scene_gpu(&self.ctx, &self.renderer, scene, pose, &skinning)
    }
}

/// The shared GPU, or `None` after a loud skip message when there is no adapter.
///
/// With `DQVIEW_REQUIRE_GPU=1` (as `.ci/run` sets) a missing adapter fails the test instead.
pub fn gpu(test: &str) -> Option<&'static Gpu> {
    static GPU: OnceLock<Result<Gpu, (bool, String)>> = OnceLock::new();
    let result = GPU.get_or_init(|| {
        let ctx = GpuContext::headless()
            .map_err(|e| (matches!(e, RenderError::NoAdapter { .. }), e.to_string()))?;
        let renderer =
            Renderer::new(&ctx, RenderSettings::TESTING).map_err(|e| (false, e.to_string()))?;
        Ok(Gpu { ctx, renderer })
    });
    match result {
        Ok(gpu) => Some(gpu),
        Err((true, why)) => {
            let required = std::env::var("DQVIEW_REQUIRE_GPU").is_ok_and(|v| v == "1");
            assert!(!required, "{test}: {why}, and DQVIEW_REQUIRE_GPU=1");
            // Straight to stderr: the harness hides `eprintln!` output of passing tests.
            let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}");
            None
        }
        Err((false, why)) => panic!("{test}: GPU setup failed: {why}"),
    }
}
