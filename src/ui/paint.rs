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
    /// Leave vertices whose surface faces away from the eye (the far side of a limb).
    pub front_only: bool,
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
    /// The stroke's last dab, while the button is down.
    pub last_dab: Option<egui::Pos2>,
    /// Requests the app carries out.
    pub requests: PaintRequests,
    /// The fit's progress in [0, 1] while it runs.
    pub fit_progress: Option<f32>,
    /// A fit waits for the CoR centers (the viewer computes them meanwhile).
    pub fit_waiting: bool,
    /// The last fit's or save's outcome, shown under the buttons.
    pub message: Option<String>,
    /// The last fit's before/after table at the pose under review (whole mesh and the
    /// selected joint's region: volume ratio, distance from CoR), as `dqview blend` prints it.
    pub fit_table: Option<crate::analysis::FitTable>,
    /// Open the Paint section on the next frame (paint mode was switched on with P).
    pub reveal: bool,
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
            front_only: true,
            unmatched: None,
            undo_steps: 0,
            redo_steps: 0,
            painted: false,
            dabs: Vec::new(),
            stroke_began: false,
            last_dab: None,
            requests: PaintRequests::default(),
            fit_progress: None,
            fit_waiting: false,
            message: None,
            fit_table: None,
            reveal: false,
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
    let toggle = ui.checkbox(&mut p.enabled, "paint DQS blend (left drag, P)");
    super::probe::record(ui, "paint mode", toggle.rect);
    toggle.on_hover_text("0 LBS (blue) .. 1 DQS (red); orbit with the right button while painting");
    ui.add_enabled_ui(p.enabled, |ui| brush_ui(ui, p));
    ui.horizontal(|ui| history_ui(ui, p));
    ui.horizontal(|ui| fit_ui(ui, p));
    if let Some(m) = &p.message {
        ui.small(m);
    }
    if let Some(table) = &p.fit_table {
        egui::CollapsingHeader::new("fit: before and after, at this pose")
            .default_open(true)
            .show(ui, |ui| super::fit_table::fit_table_ui(ui, table));
    }
}

/// Operation, value, radius, strength, falloff and mirror.
fn brush_ui(ui: &mut egui::Ui, p: &mut PaintState) {
    ui.horizontal(|ui| {
        for (op, label) in [
            (PaintOp::Set, "set"),
            (PaintOp::Add, "add"),
            (PaintOp::Subtract, "subtract"),
            (PaintOp::Smooth, "smooth"),
        ] {
            let r = ui.selectable_value(&mut p.op, op, label);
            super::probe::record(ui, &format!("paint {label}"), r.rect);
        }
    });
    if p.op == PaintOp::Set {
        ui.add(egui::Slider::new(&mut p.set_value, 0.0..=1.0).text("value"));
    }
    ui.add(egui::Slider::new(&mut p.radius_px, 2.0..=200.0).text("radius px"));
    ui.add(egui::Slider::new(&mut p.strength, 0.0..=1.0).text("strength"));
    ui.horizontal(|ui| {
        ui.label("falloff");
        for (falloff, label) in [
            (Falloff::Smooth, "smooth"),
            (Falloff::Linear, "linear"),
            (Falloff::Constant, "constant"),
        ] {
            let r = ui.selectable_value(&mut p.falloff, falloff, label);
            super::probe::record(ui, &format!("falloff {label}"), r.rect);
        }
    });
    ui.horizontal(|ui| {
        let r = ui.checkbox(&mut p.front_only, "front only");
        super::probe::record(ui, "paint front only", r.rect);
        r.on_hover_text("leave the far side of the mesh (vertices facing away)");
        let r = ui.checkbox(&mut p.mirror_x, "X mirror");
        super::probe::record(ui, "paint mirror", r.rect);
        if let (true, Some(n)) = (p.mirror_x, p.unmatched) {
            ui.small(format!("{n} vertices without a partner"));
        }
    });
}

/// A button that can be probed by scripts; true when clicked.
fn probed_button(ui: &mut egui::Ui, enabled: bool, label: &str, hover: &str) -> bool {
    let r = ui.add_enabled(enabled, egui::Button::new(label));
    super::probe::record(ui, label, r.rect);
    r.on_hover_text(hover).clicked()
}

/// Undo, redo and the two clears.
fn history_ui(ui: &mut egui::Ui, p: &mut PaintState) {
    let r = &mut p.requests;
    r.undo |= probed_button(ui, p.undo_steps > 0, "undo", "Ctrl+Z");
    r.redo |= probed_button(ui, p.redo_steps > 0, "redo", "Ctrl+Shift+Z");
    r.clear_to_file |= probed_button(
        ui,
        p.painted,
        "clear to file",
        "back to the file's _DQS_BLEND map (the flags where it has none)",
    );
    r.clear_to_flags |= probed_button(ui, p.painted, "to flags", "back to the joint flags' betas");
}

/// Fit to CoR (or its progress and cancel) and Save blend map.
fn fit_ui(ui: &mut egui::Ui, p: &mut PaintState) {
    match p.fit_progress {
        Some(f) => {
            ui.add(
                egui::ProgressBar::new(f)
                    .desired_width(120.0)
                    .text("fitting"),
            );
            p.requests.cancel_fit |= probed_button(ui, true, "cancel fit", "stop the fit");
        }
        None => {
            p.requests.fit |= probed_button(
                ui,
                true,
                "Fit to CoR",
                "per vertex, the beta that brings the hybrid closest to CoR over the clips, \
                 the pose on screen (its joint angles) and the selected joint's twist and \
                 bend sweeps",
            );
        }
    }
    p.requests.save |= probed_button(
        ui,
        p.painted,
        "Save blend map",
        "write the map into a copy of the model's file as _DQS_BLEND",
    );
}
