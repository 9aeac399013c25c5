//! Input that arrives within one slow frame is not lost (headless egui, the widgets the panels use):
//! a press and release is a click on the widget under the press, a drag that starts on a
//! slider stays on it, and text typed arrives in order. Also the headless frame other egui tests use.

/// One headless egui frame at `time_s` with `events`, `draw` laid out (nothing is rendered):
/// the shapes it drew.
pub(super) fn frame(
    ctx: &egui::Context,
    time_s: f64,
    events: Vec<egui::Event>,
    draw: impl FnMut(&mut egui::Ui),
) -> Vec<egui::epaint::ClippedShape> {
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
    output.shapes
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
    /// Three empty frames at 0.0 to 0.2 s, so every widget has its rect.
    fn settle(&mut self, ctx: &egui::Context) {
        for k in 0..3 {
            frame(ctx, 0.1 * f64::from(k), Vec::new(), |ui| self.draw(ui));
        }
    }

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
    w.settle(&ctx);
    // Moved, pressed and released before the next frame: one slow frame's worth of input.
    frame(&ctx, 0.25, click(w.check.center()), |ui| w.draw(ui));
    assert!(w.checked, "the click inside one frame toggled the checkbox");
    let start = egui::pos2(w.slider.left() + 4.0, w.slider.center().y);
    // Press on the slider's left end, then move far right and down over the button and hold
    // through a frame.
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

/// Frames at `time_s` onwards until `events`, paced by an [`InputPacer`], are all in egui.
fn paced_frames(
    ctx: &egui::Context,
    time_s: f64,
    events: Vec<egui::Event>,
    w: &mut Widgets,
) -> usize {
    let mut pacer = super::InputPacer::default();
    let mut raw = egui::RawInput {
        events,
        ..Default::default()
    };
    for k in 0..10 {
        pacer.pace(&mut raw);
        frame(
            ctx,
            time_s + 0.02 * k as f64,
            std::mem::take(&mut raw.events),
            |ui| w.draw(ui),
        );
        if !pacer.has_deferred() {
            return k + 1;
        }
    }
    panic!("the pacer still held events after 10 frames");
}

#[test]
fn a_whole_drag_inside_one_frame_moves_the_slider_once_paced() {
    let ctx = egui::Context::default();
    let mut w = Widgets::default();
    w.settle(&ctx);
    let start = egui::pos2(w.slider.left() + 4.0, w.slider.center().y);
    let end = egui::pos2(w.slider.right() - 4.0, w.below.center().y);
    let drag = vec![
        egui::Event::PointerMoved(start),
        button(start, true),
        egui::Event::PointerMoved(egui::pos2(w.slider.center().x, start.y)),
        egui::Event::PointerMoved(end),
        button(end, false),
    ];
    // Unpaced, egui drops the drag: press, moves and release in one step move nothing.
    let unpaced = egui::Context::default();
    let mut u = Widgets::default();
    u.settle(&unpaced);
    frame(&unpaced, 0.3, drag.clone(), |ui| u.draw(ui));
    assert_eq!(u.value, 0.0, "egui alone loses a drag inside one frame");
    let frames = paced_frames(&ctx, 0.3, drag, &mut w);
    assert_eq!(frames, 3, "press, moves, release: three frames");
    assert!(
        w.value > 90.0,
        "the slider followed the paced drag: {}",
        w.value
    );
    assert!(!w.clicked, "the release over the button is no click on it");
    // A click inside one frame stays one frame and still clicks.
    let before = w.checked;
    let click = click(w.check.center());
    assert_eq!(paced_frames(&ctx, 1.0, click, &mut w), 1);
    assert_ne!(w.checked, before, "the paced click toggled the checkbox");
}
