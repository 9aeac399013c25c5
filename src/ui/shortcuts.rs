//! The viewer's keyboard: playback, framing, mirroring, paint mode, modes, undo and redo.

use super::{ViewerState, mirror_joint};

/// Applies the viewer's keyboard shortcuts unless a widget has keyboard focus.
pub fn shortcuts(ctx: &egui::Context, state: &mut ViewerState) {
    if ctx.egui_wants_keyboard_input() {
        return;
    }
    ctx.input(|i| {
        let p = &mut state.playback;
        if i.key_pressed(egui::Key::Space) {
            p.toggle();
        }
        if i.key_pressed(egui::Key::ArrowLeft) {
            p.step(-1);
        }
        if i.key_pressed(egui::Key::ArrowRight) {
            p.step(1);
        }
        if i.key_pressed(egui::Key::Home) {
            p.to_start();
        }
        if i.key_pressed(egui::Key::End) {
            p.to_end();
        }
        if i.key_pressed(egui::Key::F) {
            frame_selection(state);
        }
        if i.key_pressed(egui::Key::M) {
            mirror_selection(state);
        }
        if i.key_pressed(egui::Key::P) {
            state.paint.enabled = !state.paint.enabled;
            state.paint.reveal = state.paint.enabled;
        }
        // 1-6: LBS, DQS, hybrid, CoR, DDM, DM (the mode menu's order).
        let keys = [
            egui::Key::Num1,
            egui::Key::Num2,
            egui::Key::Num3,
            egui::Key::Num4,
            egui::Key::Num5,
            egui::Key::Num6,
        ];
        for (key, mode) in keys.into_iter().zip(crate::skin::SkinningMode::ALL) {
            if i.key_pressed(key) {
                state.skinning.mode = mode;
            }
        }
    });
    // By the key events' own modifiers (scripted input sets no modifier state), the chord first.
    ctx.input_mut(|i| {
        let redo = egui::Modifiers::COMMAND | egui::Modifiers::SHIFT;
        if i.consume_key(redo, egui::Key::Z) {
            state.paint.requests.redo = true;
        } else if i.consume_key(egui::Modifiers::COMMAND, egui::Key::Z) {
            state.paint.requests.undo = true;
        }
    });
}

/// Asks to frame the selected joint's region, or the model when no joint is selected.
pub fn frame_selection(state: &mut ViewerState) {
    match state.joints.selected {
        Some(node) => state.requests.frame_joint = Some(node),
        None => state.requests.frame_model = true,
    }
}

/// Selects the joint on the other side of the selected one (Left <-> Right), if there is one.
pub fn mirror_selection(state: &mut ViewerState) {
    let tree = state.trees.get(state.joints.skin);
    if let Some(node) = state.joints.selected
        && let Some(other) = tree.and_then(|t| mirror_joint(t, node))
    {
        state.joints.selected = Some(other);
        state.joints.reveal_selected = true;
    }
}
