//! `--profile FILE.json`: every frame's spans (dqview's stages and egui's, egui-wgpu's and wgpu's
//! own profiling scopes) as a Chrome trace, and at exit a breakdown of the time per frame.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};
use tracing::span;
use tracing_subscriber::layer::{Context as LayerContext, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// The span that wraps one whole frame; the breakdown divides by how often it ran.
pub const FRAME_SPAN: &str = "frame";

/// The running profiler: the trace file's writer and the per-stage totals.
pub struct Profiler {
    trace: tracing_chrome::FlushGuard,
    totals: Arc<Totals>,
}

/// Time spent per stage name, summed over the run.
#[derive(Default)]
struct Totals {
    by_stage: Mutex<HashMap<String, Stage>>,
}

/// One stage's calls and time.
#[derive(Clone, Copy, Default)]
struct Stage {
    calls: u64,
    total: Duration,
    longest: Duration,
}

/// A span's stage name (a profiling `function_scope` names its function in a field) and entry time.
struct Timing {
    stage: String,
    entered: Option<Instant>,
}

impl Profiler {
    /// Installs the profiler as the process's tracing subscriber, writing the trace to `path`.
    pub fn start(path: &Path) -> Result<Self> {
        let file = std::fs::File::create(path)
            .with_context(|| format!("--profile: cannot write {}", path.display()))?;
        let (chrome, trace) = tracing_chrome::ChromeLayerBuilder::new()
            .writer(std::io::BufWriter::new(file))
            .include_args(true)
            .build();
        let totals = Arc::new(Totals::default());
        let subscriber = tracing_subscriber::registry()
            .with(chrome)
            .with(TotalsLayer(Arc::clone(&totals)));
        tracing::subscriber::set_global_default(subscriber)
            .map_err(|e| anyhow!("--profile: cannot install the profiler: {e}"))?;
        Ok(Self { trace, totals })
    }

    /// The time per frame of each stage, longest first, as a text table.
    #[must_use]
    pub fn breakdown(&self) -> String {
        self.trace.flush();
        let stages = self
            .totals
            .by_stage
            .lock()
            .map(|s| s.clone())
            .unwrap_or_default();
        breakdown_table(&stages)
    }
}

/// The table [`Profiler::breakdown`] prints: stage, calls per frame, mean ms per frame, longest call.
fn breakdown_table(stages: &HashMap<String, Stage>) -> String {
    let frames = stages.get(FRAME_SPAN).map_or(0, |s| s.calls);
    let mut rows: Vec<_> = stages.iter().collect();
    rows.sort_by(|a, b| b.1.total.cmp(&a.1.total).then(a.0.cmp(b.0)));
    let mut out = format!("profile: {frames} frames; per frame, longest first (ms)\n");
    let _ = writeln!(
        out,
        "{:>9} {:>8} {:>9}  stage",
        "mean ms", "calls", "max ms"
    );
    let per_frame = frames.max(1) as f64;
    for (name, stage) in rows.into_iter().take(40) {
        let _ = writeln!(
            out,
            "{:>9.3} {:>8.2} {:>9.3}  {name}",
            stage.total.as_secs_f64() * 1e3 / per_frame,
            stage.calls as f64 / per_frame,
            stage.longest.as_secs_f64() * 1e3,
        );
    }
    out
}

/// The layer that sums span time per stage.
struct TotalsLayer(Arc<Totals>);

impl<S> tracing_subscriber::Layer<S> for TotalsLayer
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &span::Attributes<'_>, id: &span::Id, ctx: LayerContext<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        let mut stage = StageName(attrs.metadata().name().to_owned(), false);
        attrs.record(&mut stage);
        span.extensions_mut().insert(Timing {
            stage: stage.0,
            entered: None,
        });
    }

    fn on_enter(&self, id: &span::Id, ctx: LayerContext<'_, S>) {
        if let Some(span) = ctx.span(id)
            && let Some(timing) = span.extensions_mut().get_mut::<Timing>()
        {
            timing.entered = Some(Instant::now());
        }
    }

    fn on_exit(&self, id: &span::Id, ctx: LayerContext<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        let mut extensions = span.extensions_mut();
        let Some(timing) = extensions.get_mut::<Timing>() else {
            return;
        };
        let Some(entered) = timing.entered.take() else {
            return;
        };
        let spent = entered.elapsed();
        if let Ok(mut stages) = self.0.by_stage.lock() {
            let stage = stages.entry(timing.stage.clone()).or_default();
            stage.calls += 1;
            stage.total += spent;
            stage.longest = stage.longest.max(spent);
        }
    }
}

/// Reads a `function_scope` span's function name (its message field) as the stage name.
struct StageName(String, bool);

impl tracing::field::Visit for StageName {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" && !self.1 {
            self.0 = format!("{value:?}");
            self.1 = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_breakdown_divides_by_frames_and_puts_the_longest_stage_first() {
        let ms = Duration::from_millis;
        let mut stages = HashMap::new();
        let stage = |calls, total, longest| Stage {
            calls,
            total,
            longest,
        };
        stages.insert(FRAME_SPAN.to_owned(), stage(4, ms(100), ms(40)));
        stages.insert("ui".to_owned(), stage(4, ms(20), ms(8)));
        stages.insert("skin".to_owned(), stage(8, ms(60), ms(9)));
        let table = breakdown_table(&stages);
        let lines: Vec<&str> = table.lines().collect();
        assert!(lines[0].starts_with("profile: 4 frames"), "{table}");
        assert!(
            lines[2].ends_with("frame") && lines[2].contains("25.000"),
            "{table}"
        );
        // 60 ms over 4 frames, 2 calls a frame, longest 9 ms.
        assert!(lines[3].ends_with("skin"), "{table}");
        assert!(
            lines[3].contains("15.000") && lines[3].contains("2.00"),
            "{table}"
        );
        assert!(lines[3].contains("9.000"), "{table}");
        assert!(
            lines[4].ends_with("ui") && lines[4].contains("5.000"),
            "{table}"
        );
    }
}
