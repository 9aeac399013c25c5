//! Options of CoR skinning and DQS bulge compensation, and the precompute with terminal progress.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow, bail};
use clap::Args;

use crate::scene::Scene;
use crate::skin::{CorMethod, CorOptions, CorProgress, SceneCenters};

/// Progress is printed once a precompute has run this long, even off a terminal.
const SLOW: Duration = Duration::from_secs(2);

/// Runs `work` on another thread; on a terminal, or once it has run [`SLOW`], shows
/// `progress` on stderr as "LABEL: done/total UNITS"; setting `cancel` cancels `progress`.
/// `Err` when `work` panicked.
pub(super) fn with_progress<T: Send>(
    label: &str,
    units: &str,
    progress: &CorProgress,
    cancel: &AtomicBool,
    work: impl FnOnce() -> T + Send,
) -> std::thread::Result<T> {
    let start = Instant::now();
    let terminal = std::io::stderr().is_terminal();
    std::thread::scope(|s| {
        let worker = s.spawn(work);
        let mut shown = false;
        while !worker.is_finished() {
            std::thread::sleep(Duration::from_millis(100));
            if cancel.load(Ordering::Relaxed) {
                progress.cancel();
            }
            if terminal || start.elapsed() > SLOW {
                let (done, total) = progress.counts();
                let _ = write!(std::io::stderr(), "\r{label}: {done}/{total} {units}");
                shown = true;
            }
        }
        if shown {
            let _ = writeln!(std::io::stderr());
        }
        worker.join()
    })
}

/// CoR precompute and bulge compensation options.
#[derive(Clone, Debug, Args)]
pub struct CorArgs {
    /// CoR similarity kernel width (Le and Hodgins' sigma).
    #[arg(long, value_name = "SIGMA", default_value_t = 0.1)]
    pub cor_sigma: f32,
    /// Skip the paper's subdivision of triangles whose weights change by more than 0.1 along an edge.
    #[arg(long)]
    pub cor_no_subdivide: bool,
    /// CoR evaluation: clustered (fast, approximate), exact (pair buckets) or naive (O(V x T)).
    #[arg(
        long,
        value_name = "clustered|exact|naive",
        default_value = "clustered"
    )]
    pub cor_method: String,
    /// Grid cells per weight axis of the clustered method.
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub cor_bins: u16,
    /// Recompute the centers instead of reading the cache (the result is still cached).
    #[arg(long)]
    pub no_cor_cache: bool,
    /// DQS bulge compensation in [0, 1] (0 off); analyze measures DQS with it as `dqs_compensated`.
    #[arg(long, value_name = "AMOUNT", default_value_t = 0.0)]
    pub bulge_compensation: f32,
}

impl Default for CorArgs {
    fn default() -> Self {
        Self {
            cor_sigma: 0.1,
            cor_no_subdivide: false,
            cor_method: "clustered".into(),
            cor_bins: 64,
            no_cor_cache: false,
            bulge_compensation: 0.0,
        }
    }
}

impl CorArgs {
    /// The precompute options, checked.
    pub fn options(&self) -> Result<CorOptions> {
        if !(self.cor_sigma.is_finite() && self.cor_sigma > 0.0) {
            bail!(
                "--cor-sigma must be a positive number, got {}",
                self.cor_sigma
            );
        }
        let method = match self.cor_method.to_ascii_lowercase().as_str() {
            "clustered" if self.cor_bins >= 1 => CorMethod::Clustered {
                bins: self.cor_bins,
            },
            "clustered" => bail!("--cor-bins must be at least 1"),
            "exact" => CorMethod::PairBuckets,
            "naive" => CorMethod::Naive,
            other => bail!("unknown --cor-method `{other}` (valid: clustered, exact, naive)"),
        };
        Ok(CorOptions {
            sigma: self.cor_sigma,
            subdivide: !self.cor_no_subdivide,
            method,
        })
    }

    /// The bulge compensation amount, checked.
    pub fn bulge_amount(&self) -> Result<f32> {
        if !(0.0..=1.0).contains(&self.bulge_compensation) {
            bail!(
                "--bulge-compensation must be from 0 to 1, got {}",
                self.bulge_compensation
            );
        }
        Ok(self.bulge_compensation)
    }

    /// Centers of rotation of every skinned primitive, from the cache or computed with progress on stderr.
    pub fn centers(&self, scene: &Scene) -> Result<SceneCenters> {
        self.centers_cancellable(scene, &AtomicBool::new(false))
    }

    /// Like [`CorArgs::centers`], cancelled by Ctrl+C (`interrupt`): then the error says no
    /// file was written.
    pub fn centers_or_cancelled(
        &self,
        scene: &Scene,
        interrupt: &crate::interrupt::Interrupt,
    ) -> Result<SceneCenters> {
        self.centers_cancellable(scene, interrupt.flag())
            .map_err(|e| {
                if interrupt.is_cancelled() {
                    anyhow!("cancelled: no file written")
                } else {
                    e
                }
            })
    }

    /// Like [`CorArgs::centers`]; setting `cancel` stops the precompute (an error) within 0.1 s.
    pub fn centers_cancellable(&self, scene: &Scene, cancel: &AtomicBool) -> Result<SceneCenters> {
        let options = self.options()?;
        let progress = CorProgress::new();
        let start = Instant::now();
        let result = with_progress("centers of rotation", "vertices", &progress, cancel, || {
            if self.no_cor_cache {
                SceneCenters::compute(scene, &options, &progress).map(|c| (c, 0))
            } else {
                SceneCenters::compute_cached(scene, &options, &progress)
            }
        });
        let (centers, from_cache) = result
            .map_err(|_| anyhow!("the center-of-rotation precompute panicked"))?
            .map_err(|e| anyhow!("{e}"))?;
        if self.no_cor_cache {
            // Said on stderr: the flag changes no number, so the user would not see it work.
            eprintln!(
                "dqview: centers of rotation recomputed (--no-cor-cache): {} vertices",
                progress.counts().1
            );
        }
        log::info!(
            "centers of rotation: {} vertices in {:.2} s ({from_cache} primitives from the cache)",
            progress.counts().1,
            start.elapsed().as_secs_f64()
        );
        Ok(centers)
    }
}
