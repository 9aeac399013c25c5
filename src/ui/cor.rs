//! The CoR section of the panel: precompute progress, cancel, what the mode does, and saving
//! the centres into the model's file.

/// Where the viewer's center-of-rotation precompute stands (written by `app`, read here).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CorState {
    /// Fraction done while the precompute runs; `None` when idle.
    pub progress: Option<f32>,
    /// Whether the loaded model's centers are on the GPU.
    pub ready: bool,
    /// Why the last precompute stopped (cancelled, bad input).
    pub error: Option<String>,
    /// Set by the Cancel button; `app` cancels the job and clears it.
    pub cancel: bool,
    /// Set by the Retry button after a cancel; `app` starts again and clears it.
    pub retry: bool,
    /// Set by the Save CoR centres button; `app` shows the save dialog and clears it.
    pub save: bool,
    /// What the last save wrote, or why it could not.
    pub message: Option<String>,
}

/// Shows the precompute's progress bar with Cancel, or its result.
pub fn cor_ui(ui: &mut egui::Ui, state: &mut CorState) {
    if progress_ui(
        ui,
        state,
        "computing centers of rotation (drawn as LBS until done)",
    ) {
        return;
    }
    if state.ready {
        ui.label(egui::RichText::new("centers of rotation ready").small());
        let save = ui.small_button("Save CoR centres");
        super::probe::record(ui, "Save CoR centres", save.rect);
        state.save |= save
            .on_hover_text(
                "write each vertex's centre of rotation into a copy of the model's file as \
                 _COR_CENTER (a layer for USD), so engines and dqview-three can skin with CoR",
            )
            .clicked();
        if let Some(message) = &state.message {
            ui.label(egui::RichText::new(message).small());
        }
        return;
    }
    if let Some(error) = &state.error {
        ui.label(egui::RichText::new(error).small());
    }
    if ui.small_button("Compute centers").clicked() {
        state.retry = true;
    }
}

/// While a precompute runs: its progress bar with Cancel and `running` under it; false when
/// none runs.
pub fn progress_ui(ui: &mut egui::Ui, state: &mut CorState, running: &str) -> bool {
    let Some(fraction) = state.progress else {
        return false;
    };
    ui.horizontal(|ui| {
        ui.add(
            egui::ProgressBar::new(fraction)
                .show_percentage()
                .desired_width(160.0),
        );
        if ui.small_button("Cancel").clicked() {
            state.cancel = true;
        }
    });
    ui.label(egui::RichText::new(running).small());
    true
}
