//! Input that arrives within one slow frame is not lost (headless egui, the widgets the panels use):
//! a press and release is a click on the widget under the press, a drag that starts on a
//! slider stays on it, and text typed arrives in order. Also the headless frame other egui tests use.

/// One headless egui frame at `time_s` with `events`, `draw` laid out (nothing is rendered).
pub(super) fn frame(
    ctx: &egui::Context,
    time_s: f64,
    events: Vec<egui::Event>,
    draw: impl FnMut(&mut egui::Ui),
) {
    let input = egui::RawInput {
        time: Some(time_s),
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1024.0, 768.0),
        )),
        events,
        ..Default::default()
    };
    let mut draw = draw;
    let mut output = ctx.run_ui(input, |ui| draw(ui));
    // Nothing draws here: the font textures are dropped unapplied on purpose.
    output.textures_delta.clear();
}

/// A pointer button event at `pos`.
pub(super) fn button(pos: egui::Pos2, pressed: bool) -> egui::Event {
    egui::Event::PointerButton {
        pos,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    }
}

/// A checkbox, a slider, a button below it and a text field, and what they reported.
struct Widgets {
    value: f32,
    clicked: bool,
    checked: bool,
    check: egui::Rect,
    text: String,
    slider: egui::Rect,
    below: egui::Rect,
    field: egui::Rect,
}

impl Default for Widgets {
    fn default() -> Self {
        Self {
            value: 0.0,
            clicked: false,
            checked: false,
            check: egui::Rect::NOTHING,
            text: String::new(),
            slider: egui::Rect::NOTHING,
            below: egui::Rect::NOTHING,
            field: egui::Rect::NOTHING,
        }
    }
}

impl Widgets {
    /// Lays the widgets out, top to bottom.
    fn draw(&mut self, ui: &mut egui::Ui) {
        self.check = ui.checkbox(&mut self.checked, "plot").rect;
        self.slider = ui.add(egui::Slider::new(&mut self.value, 0.0..=100.0)).rect;
        let b = ui.button("below the slider");
        self.clicked |= b.clicked();
        self.below = b.rect;
        self.field = ui.text_edit_singleline(&mut self.text).rect;
    }
}

/// The pointer moved to `at`, pressed and released: a click that fits inside one frame.
fn click(at: egui::Pos2) -> Vec<egui::Event> {
    vec![
        egui::Event::PointerMoved(at),
        button(at, true),
        button(at, false),
    ]
}

#[test]
fn a_click_in_one_frame_lands_a_drag_stays_on_its_slider_and_text_keeps_its_order() {
    let ctx = egui::Context::default();
    let mut w = Widgets::default();
    for k in 0..3 {
        frame(&ctx, 0.1 * f64::from(k), Vec::new(), |ui| w.draw(ui));
    }
    // Moved, pressed and released before the next frame: one slow frame's worth of input.
    frame(&ctx, 0.25, click(w.check.center()), |ui| w.draw(ui));
    assert!(w.checked, "the click inside one frame toggled the checkbox");
    let start = egui::pos2(w.slider.left() + 4.0, w.slider.center().y);
    // Press on the slider's left end, then move far right and down over the button and hold
    // through a frame. (A press and a move inside one frame does not start egui's drag yet.)
    let over_button = egui::pos2(w.slider.right() - 4.0, w.below.center().y);
    let events = vec![egui::Event::PointerMoved(start), button(start, true)];
    frame(&ctx, 0.3, events, |ui| w.draw(ui));
    frame(
        &ctx,
        0.32,
        vec![egui::Event::PointerMoved(over_button)],
        |ui| w.draw(ui),
    );
    frame(&ctx, 0.35, Vec::new(), |ui| w.draw(ui));
    frame(&ctx, 0.4, vec![button(over_button, false)], |ui| w.draw(ui));
    assert!(
        !w.clicked,
        "releasing over the button after a slider drag is no click on it"
    );
    assert!(w.value > 50.0, "the slider followed the drag: {}", w.value);
    // Focus the text field, then text typed within one frame arrives in order.
    frame(&ctx, 0.5, click(w.field.center()), |ui| w.draw(ui));
    let typed = ["Low", "er", "Arm"]
        .map(|t| egui::Event::Text(t.to_owned()))
        .to_vec();
    frame(&ctx, 0.6, typed, |ui| w.draw(ui));
    assert_eq!(w.text, "LowerArm");
}
