//! The paint panel: brush settings for the per-vertex DQS blend map, and its requests.

use crate::skin::{BrushOp, Falloff};

/// What the brush does, as the panel picks it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PaintOp {
    /// Towards the set value.
    #[default]
    Set,
    /// Towards 1 (DQS).
    Add,
    /// Towards 0 (LBS).
    Subtract,
    /// Towards the neighbours' mean.
    Smooth,
}

/// The paint mode's settings, stroke in progress and one-shot requests.
#[derive(Clone, Debug, PartialEq)]
pub struct PaintState {
    /// Left-drag in the viewport paints (orbit with the right button) and the mesh shows betas.
    pub enabled: bool,
    /// Brush radius in screen points.
    pub radius_px: f32,
    /// How far a dab at the centre moves a beta towards its target, in [0, 1].
    pub strength: f32,
    /// Weight from the brush centre to its rim.
    pub falloff: Falloff,
    /// What the brush does.
    pub op: PaintOp,
    /// The value `Set` paints (0 LBS .. 1 DQS).
    pub set_value: f32,
    /// Paint the vertex at the mirrored bind position (x -> -x) too.
    pub mirror_x: bool,
    /// Vertices without a mirror partner, once the mirror is known.
    pub unmatched: Option<usize>,
    /// Strokes that can be undone and redone.
    pub undo_steps: usize,
    /// Strokes that can be redone.
    pub redo_steps: usize,
    /// Whether a painted map replaces the file's or the flags' betas.
    pub painted: bool,
    /// Brush dabs of this frame, in window points (filled by the viewport).
    pub dabs: Vec<egui::Pos2>,
    /// A stroke began this frame (the app snapshots for undo).
    pub stroke_began: bool,
    /// Requests the app carries out.
    pub requests: PaintRequests,
    /// The fit's progress in [0, 1] while it runs.
    pub fit_progress: Option<f32>,
    /// The last fit's or save's outcome, shown under the buttons.
    pub message: Option<String>,
}

/// One-shot requests of the paint panel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PaintRequests {
    /// Undo the last stroke (Ctrl+Z).
    pub undo: bool,
    /// Redo (Ctrl+Shift+Z).
    pub redo: bool,
    /// Drop the painted map: back to the file's `_DQS_BLEND` (or the flags where it has none).
    pub clear_to_file: bool,
    /// Drop the painted map and use the joint flags' betas.
    pub clear_to_flags: bool,
    /// Start fitting the map to CoR.
    pub fit: bool,
    /// Cancel the fit.
    pub cancel_fit: bool,
    /// Write the map into the model's file.
    pub save: bool,
}

impl Default for PaintState {
    fn default() -> Self {
        Self {
            enabled: false,
            radius_px: 40.0,
            strength: 0.5,
            falloff: Falloff::Smooth,
            op: PaintOp::Set,
            set_value: 1.0,
            mirror_x: false,
            unmatched: None,
            undo_steps: 0,
            redo_steps: 0,
            painted: false,
            dabs: Vec::new(),
            stroke_began: false,
            requests: PaintRequests::default(),
            fit_progress: None,
            message: None,
        }
    }
}

impl PaintState {
    /// The brush operation the settings describe.
    #[must_use]
    pub fn brush_op(&self) -> BrushOp {
        match self.op {
            PaintOp::Set => BrushOp::Set(self.set_value.clamp(0.0, 1.0)),
            PaintOp::Add => BrushOp::Add,
            PaintOp::Subtract => BrushOp::Subtract,
            PaintOp::Smooth => BrushOp::Smooth,
        }
    }
}

/// The Paint section: mode toggle, brush, mirror, undo/redo, clear, fit and save.
pub fn paint_ui(ui: &mut egui::Ui, p: &mut PaintState) {
    let toggle = ui.checkbox(&mut p.enabled, "paint DQS blend (left drag)");
    super::probe::record(ui, "paint mode", toggle.rect);
    toggle.on_hover_text("0 LBS (blue) .. 1 DQS (red); orbit with the right button while painting");
    ui.add_enabled_ui(p.enabled, |ui| {
        ui.horizontal(|ui| {
            for (op, label) in [
                (PaintOp::Set, "set"),
                (PaintOp::Add, "add"),
                (PaintOp::Subtract, "subtract"),
                (PaintOp::Smooth, "smooth"),
            ] {
                ui.selectable_value(&mut p.op, op, label);
            }
        });
        if p.op == PaintOp::Set {
            ui.add(egui::Slider::new(&mut p.set_value, 0.0..=1.0).text("value"));
        }
        ui.add(egui::Slider::new(&mut p.radius_px, 2.0..=200.0).text("radius px"));
        ui.add(egui::Slider::new(&mut p.strength, 0.0..=1.0).text("strength"));
        ui.horizontal(|ui| {
            ui.label("falloff");
            ui.selectable_value(&mut p.falloff, Falloff::Smooth, "smooth");
            ui.selectable_value(&mut p.falloff, Falloff::Linear, "linear");
            ui.selectable_value(&mut p.falloff, Falloff::Constant, "constant");
        });
        ui.horizontal(|ui| {
            ui.checkbox(&mut p.mirror_x, "X mirror");
            if let (true, Some(n)) = (p.mirror_x, p.unmatched) {
                ui.small(format!("{n} vertices without a partner"));
            }
        });
    });
    ui.horizontal(|ui| {
        let r = &mut p.requests;
        r.undo |= ui
            .add_enabled(p.undo_steps > 0, egui::Button::new("undo"))
            .on_hover_text("Ctrl+Z")
            .clicked();
        r.redo |= ui
            .add_enabled(p.redo_steps > 0, egui::Button::new("redo"))
            .on_hover_text("Ctrl+Shift+Z")
            .clicked();
        r.clear_to_file |= ui
            .add_enabled(p.painted, egui::Button::new("clear to file"))
            .on_hover_text("back to the file's _DQS_BLEND map (the flags where it has none)")
            .clicked();
        r.clear_to_flags |= ui
            .add_enabled(p.painted, egui::Button::new("to flags"))
            .on_hover_text("back to the joint flags' betas")
            .clicked();
    });
    ui.horizontal(|ui| {
        match p.fit_progress {
            Some(f) => {
                ui.add(
                    egui::ProgressBar::new(f)
                        .desired_width(120.0)
                        .text("fitting"),
                );
                p.requests.cancel_fit |= ui.button("cancel").clicked();
            }
            None => {
                p.requests.fit |= ui
                    .button("Fit to CoR")
                    .on_hover_text(
                        "per vertex, the beta that brings the hybrid closest to CoR over the \
                         clips (or the selected joint's twist and bend sweeps)",
                    )
                    .clicked();
            }
        }
        p.requests.save |= ui
            .add_enabled(p.painted, egui::Button::new("Save blend map"))
            .on_hover_text("write the map into the model's file as _DQS_BLEND")
            .clicked();
    });
    if let Some(m) = &p.message {
        ui.small(m);
    }
}
