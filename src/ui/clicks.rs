//! egui's click counts, read as a user means them.

/// Whether `response` got a double click of `button`. egui counts a double click that follows
/// any other click within 0.3 s, even elsewhere (a pick, then a quick double click on a joint,
/// or the Open button, then a file), as a triple, so a triple counts as a double here.
#[must_use]
pub fn double_clicked(response: &egui::Response, button: egui::PointerButton) -> bool {
    response.double_clicked_by(button) || response.triple_clicked_by(button)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One headless frame at `time` with `events`: (egui's own double, ours) on a 100 px square.
    fn frame(ctx: &egui::Context, time: f64, events: Vec<egui::Event>) -> (bool, bool) {
        let raw = egui::RawInput {
            time: Some(time),
            events,
            ..egui::RawInput::default()
        };
        let mut seen = (false, false);
        let mut output = ctx.run_ui(raw, |ui| {
            let rect =
                egui::Rect::from_min_size(egui::pos2(200.0, 200.0), egui::vec2(100.0, 100.0));
            let r = ui.interact(rect, ui.scope_id().with("target"), egui::Sense::click());
            let button = egui::PointerButton::Primary;
            seen = (r.double_clicked_by(button), double_clicked(&r, button));
        });
        // Headless: no renderer takes the font atlas.
        output.textures_delta.clear();
        seen
    }

    /// A press and a release at `pos`, the pointer moved there first.
    fn click_at(pos: egui::Pos2) -> Vec<egui::Event> {
        let mut events = vec![egui::Event::PointerMoved(pos)];
        events.extend([true, false].map(|pressed| crate::ui::input_order::button(pos, pressed)));
        events
    }

    #[test]
    fn a_double_click_soon_after_a_click_elsewhere_is_still_a_double_click() {
        let ctx = egui::Context::default();
        frame(&ctx, 0.0, Vec::new());
        // A pick elsewhere 0.1 s before the double click, as a joint pick then a quick double click.
        frame(&ctx, 0.05, click_at(egui::pos2(20.0, 20.0)));
        let target = egui::pos2(250.0, 250.0);
        let mut events = click_at(target);
        events.extend(click_at(target));
        let (egui_double, ours) = frame(&ctx, 0.15, events);
        assert!(!egui_double, "egui counts this one a triple");
        assert!(ours);
        // A lone double click, long after: both see it.
        let mut events = click_at(target);
        events.extend(click_at(target));
        assert_eq!(frame(&ctx, 5.0, events), (true, true));
        // A single click is not a double.
        assert_eq!(frame(&ctx, 10.0, click_at(target)), (false, false));
    }
}
