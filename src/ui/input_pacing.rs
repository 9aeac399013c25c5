//! Input gathered during one slow frame, handed to egui so none of it is lost.
//!
//! egui reads a frame's events as one step: a press followed by a move in the same frame
//! never starts a drag (the slider stays where it was), and a press, move and release
//! together are no drag at all. So the events after a press wait for the next frame, which
//! is drawn at once; a press and release with nothing between stays one click.

/// Events held back for the next frame, in the order they arrived.
#[derive(Debug, Default)]
pub struct InputPacer {
    deferred: Vec<egui::Event>,
    /// Whether the primary button is held after the events handed over so far.
    down: bool,
}

impl InputPacer {
    /// Puts the held-back events before `raw`'s, then holds back what must wait again.
    pub fn pace(&mut self, raw: &mut egui::RawInput) {
        let mut events = std::mem::take(&mut self.deferred);
        events.append(&mut raw.events);
        let (cut, down) = cut_after(&events, self.down);
        self.deferred = events.split_off(cut);
        self.down = down;
        raw.events = events;
    }

    /// Whether events wait for the next frame (which should then be drawn now).
    #[must_use]
    pub fn has_deferred(&self) -> bool {
        !self.deferred.is_empty()
    }
}

/// How many of `events` egui can take in one frame (up to a press that more pointer events
/// follow, or up to a release after a move while held), and whether the button is then held.
fn cut_after(events: &[egui::Event], held: bool) -> (usize, bool) {
    let mut moved_while_down = false;
    let mut down = held;
    for (i, event) in events.iter().enumerate() {
        match event {
            egui::Event::PointerButton { pressed: true, .. } => {
                let is_click = matches!(
                    events.get(i + 1),
                    Some(egui::Event::PointerButton { pressed: false, .. })
                );
                if !is_click && events[i + 1..].iter().any(is_pointer) {
                    return (i + 1, true);
                }
                down = true;
            }
            egui::Event::PointerMoved(_) if down => moved_while_down = true,
            egui::Event::PointerButton { pressed: false, .. } if moved_while_down => {
                return (i, true);
            }
            egui::Event::PointerButton { pressed: false, .. } => down = false,
            _ => {}
        }
    }
    (events.len(), down)
}

/// Whether `event` moves or presses the pointer.
fn is_pointer(event: &egui::Event) -> bool {
    matches!(
        event,
        egui::Event::PointerMoved(_) | egui::Event::PointerButton { .. }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moved(x: f32) -> egui::Event {
        egui::Event::PointerMoved(egui::pos2(x, 0.0))
    }

    fn button(pressed: bool) -> egui::Event {
        egui::Event::PointerButton {
            pos: egui::Pos2::ZERO,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        }
    }

    /// The batches `events` reach egui in, one `pace` a frame until none is held back.
    fn batches(events: Vec<egui::Event>) -> Vec<usize> {
        let mut pacer = InputPacer::default();
        let mut raw = egui::RawInput {
            events,
            ..Default::default()
        };
        let mut sizes = Vec::new();
        loop {
            pacer.pace(&mut raw);
            sizes.push(raw.events.len());
            if !pacer.has_deferred() {
                return sizes;
            }
            raw.events.clear();
        }
    }

    #[test]
    fn a_press_and_its_drag_reach_egui_in_separate_frames_and_a_click_stays_whole() {
        // Move, press, release: one click, one frame.
        assert_eq!(batches(vec![moved(1.0), button(true), button(false)]), [3]);
        // Press, two moves, release: the press, then the moves, then the release.
        let drag = vec![
            moved(1.0),
            button(true),
            moved(5.0),
            moved(9.0),
            button(false),
        ];
        assert_eq!(batches(drag), [2, 2, 1]);
        // Keys typed after a press keep their place behind it.
        let text = egui::Event::Text("a".into());
        assert_eq!(batches(vec![button(true), text, moved(2.0)]), [1, 2]);
        // Moves alone, and a press with nothing after it, are one frame.
        assert_eq!(batches(vec![moved(1.0), moved(2.0), button(true)]), [3]);
    }

    #[test]
    fn held_back_events_come_first_next_frame() {
        let mut pacer = InputPacer::default();
        let mut raw = egui::RawInput {
            events: vec![button(true), moved(5.0)],
            ..Default::default()
        };
        pacer.pace(&mut raw);
        assert_eq!(raw.events.len(), 1);
        raw.events = vec![moved(7.0)];
        pacer.pace(&mut raw);
        assert_eq!(raw.events, vec![moved(5.0), moved(7.0)]);
        assert!(!pacer.has_deferred());
    }
}
