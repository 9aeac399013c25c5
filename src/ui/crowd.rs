//! The crowd slider: how many copies of the model the viewer draws.

/// Most copies the viewer draws (the slider's top).
pub const MAX_CROWD: u32 = 64;

/// The crowd slider (1 draws the model alone; more go through the compute skinning path).
pub fn crowd_ui(ui: &mut egui::Ui, crowd: &mut u32) {
    ui.add(egui::Slider::new(crowd, 1..=MAX_CROWD).text("crowd"))
        .on_hover_text(
            "Copies of the model in a grid, each at its own clip time, \
             skinned by a compute pass (in the views of the main mode)",
        );
}
