//! One shared GPU device per test binary, or a loud skip where there is no adapter.

use std::io::Write as _;
use std::sync::OnceLock;

use dqview::render::{ComputeSkinner, GpuContext, RenderError, RenderSettings, Renderer};

/// The device, a compute skinner and a renderer with [`RenderSettings::TESTING`].
pub struct Gpu {
    /// Device and queue.
    pub ctx: GpuContext,
    /// The compute skinning pass.
    pub skinner: ComputeSkinner,
    /// Offscreen renderer for image tests.
    pub renderer: Renderer,
}

/// The shared GPU, or `None` after a loud skip message when there is no adapter.
///
/// With `DQVIEW_REQUIRE_GPU=1` (as `.ci/run` sets) a missing adapter fails the test instead.
pub fn gpu(test: &str) -> Option<&'static Gpu> {
    static GPU: OnceLock<Result<Gpu, (bool, String)>> = OnceLock::new();
    let result = GPU.get_or_init(|| {
        let ctx = GpuContext::headless()
            .map_err(|e| (matches!(e, RenderError::NoAdapter { .. }), e.to_string()))?;
        let skinner = ComputeSkinner::new(&ctx).map_err(|e| (false, e.to_string()))?;
        let renderer =
            Renderer::new(&ctx, RenderSettings::TESTING).map_err(|e| (false, e.to_string()))?;
        Ok(Gpu {
            ctx,
            skinner,
            renderer,
        })
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
