//! The Direct Delta Mush section: its parameters as sliders and the precompute's progress.

use crate::skin::ddm::DdmParams;

use super::CorState;

/// The DDM parameters asked for and where their precompute stands (written by `app`).
#[derive(Clone, Debug, PartialEq)]
pub struct DdmState {
    /// The parameters the panes should show; a change restarts the precompute.
    pub params: DdmParams,
    /// Progress, result and the Cancel/Retry requests of the precompute.
    pub job: CorState,
    /// Vertex-joint pairs and bytes of the matrices on the GPU, once computed.
    pub pairs: Option<(usize, usize)>,
}

impl Default for DdmState {
    fn default() -> Self {
        Self {
            params: DdmParams::DEFAULT,
            job: CorState::default(),
            pairs: None,
        }
    }
}

/// Shows the parameters (libigl's names), the precompute's progress with Cancel, or its result.
pub fn ddm_ui(ui: &mut egui::Ui, state: &mut DdmState) {
    let p = &mut state.params;
    let mut iterations = p.p;
    ui.add(egui::Slider::new(&mut iterations, 1..=20).text("p (iterations)"))
        .on_hover_text("smoothing iterations; more spreads each joint's influence wider");
    let mut lambda = p.lambda;
    ui.add(egui::Slider::new(&mut lambda, 0.05..=3.0).text("lambda"))
        .on_hover_text("rotation smoothing step");
    let mut kappa = p.kappa.min(lambda * 0.99);
    ui.add(egui::Slider::new(&mut kappa, 0.01..=lambda * 0.99).text("kappa"))
        .on_hover_text("translation smoothing step, below lambda");
    let mut alpha = p.alpha;
    ui.add(egui::Slider::new(&mut alpha, 0.0..=0.99).text("alpha"))
        .on_hover_text("blend of the rotation and translation parts");
    // Applied on release, so a drag does not restart the precompute at every step.
    if !ui.ctx().input(|i| i.pointer.any_down()) {
        *p = DdmParams {
            p: iterations,
            lambda,
            kappa: kappa.min(lambda * 0.99),
            alpha,
        };
    }
    if ui.small_button("defaults").clicked() {
        *p = DdmParams::DEFAULT;
    }
    if super::cor::progress_ui(
        ui,
        &mut state.job,
        "smoothing the weights (drawn as LBS until done)",
    ) {
        return;
    }
    if state.job.ready {
        if let Some((pairs, bytes)) = state.pairs {
            let mib = bytes as f64 / (1024.0 * 1024.0);
            let text = format!("{pairs} vertex-joint pairs, {mib:.1} MiB");
            ui.label(egui::RichText::new(text).small());
        }
        return;
    }
    if let Some(error) = &state.job.error {
        ui.label(egui::RichText::new(error).small());
    }
    if ui.small_button("Compute DDM").clicked() {
        state.job.retry = true;
    }
}
