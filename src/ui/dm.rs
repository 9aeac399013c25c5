//! The Delta Mush section: Blender's Corrective Smooth parameters for the DM panes.

use crate::skin::dm::DmParams;

/// The Delta Mush panel's state.
#[derive(Clone, Debug, Default)]
pub struct DmState {
    /// The parameters the panes should show; a change rebuilds the rest deltas.
    pub params: DmParams,
    /// Welded vertices smoothed on the GPU, once the surfaces are uploaded.
    pub welded: Option<usize>,
    /// Why the surfaces could not be uploaded, if they could not.
    pub error: Option<String>,
}

/// Shows the parameters (Blender's names) and what is smoothed.
pub fn dm_ui(ui: &mut egui::Ui, state: &mut DmState) {
    let p = &mut state.params;
    let mut iterations = p.iterations;
    ui.add(egui::Slider::new(&mut iterations, 1..=100).text("repeat (iterations)"))
        .on_hover_text("smoothing iterations of every frame (Blender's Repeat)");
    let mut factor = p.factor;
    ui.add(egui::Slider::new(&mut factor, 0.05..=1.0).text("factor"))
        .on_hover_text("step of each iteration towards the neighbours' mean (Blender's Factor)");
    // Applied on release, so a drag does not rebuild the rest deltas at every step.
    if !ui.ctx().input(|i| i.pointer.any_down()) {
        *p = DmParams { iterations, factor };
    }
    if ui.small_button("defaults").clicked() {
        *p = DmParams::DEFAULT;
    }
    if let Some(error) = &state.error {
        ui.label(egui::RichText::new(error).small());
    }
    if let Some(welded) = state.welded {
        let text = format!("{welded} welded vertices, smoothed on the GPU every frame");
        ui.label(egui::RichText::new(text).small());
    }
}
