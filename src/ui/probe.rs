//! Probes: where named widgets were laid out this frame, for scripted runs and tests.
//!
//! Panels record a few widgets by name (the selected joint's sliders, the search field);
//! a scripted run can click them by name and dump them, so tests check what a user can
//! reach without depending on pixel positions.

use std::collections::BTreeMap;

/// One probed widget: its rectangle and the visible (clip) rectangle it was drawn in, points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Probe {
    /// The widget's rectangle.
    pub rect: egui::Rect,
    /// The clip rectangle it was drawn in (a scrolled panel's visible part).
    pub clip: egui::Rect,
}

impl Probe {
    /// Whether the whole widget is inside the visible part of its panel.
    #[must_use]
    pub fn is_visible(&self) -> bool {
        self.clip.contains_rect(self.rect)
    }
}

/// The probes of one frame, by name.
pub type Probes = BTreeMap<String, Probe>;

/// Where this frame's probes are kept in egui's memory.
fn probes_id() -> egui::Id {
    egui::Id::unique("dqview::ui::probes")
}

/// Records widget `name` at `rect` as laid out in `ui` this frame.
pub fn record(ui: &egui::Ui, name: &str, rect: egui::Rect) {
    let probe = Probe {
        rect,
        clip: ui.clip_rect(),
    };
    ui.ctx().data_mut(|d| {
        d.get_temp_mut_or_default::<Probes>(probes_id())
            .insert(name.to_owned(), probe);
    });
}

/// Takes the probes recorded since the last call (call once a frame, after the UI ran).
pub fn take(ctx: &egui::Context) -> Probes {
    ctx.data_mut(|d| d.remove_temp::<Probes>(probes_id()))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_widget_outside_the_clip_is_not_visible() {
        let clip = egui::Rect::from_min_size(egui::pos2(0.0, 0.0), egui::vec2(300.0, 600.0));
        let inside = egui::Rect::from_min_size(egui::pos2(10.0, 500.0), egui::vec2(200.0, 20.0));
        let below = egui::Rect::from_min_size(egui::pos2(10.0, 590.0), egui::vec2(200.0, 20.0));
        assert!(Probe { rect: inside, clip }.is_visible());
        assert!(!Probe { rect: below, clip }.is_visible());
    }
}
