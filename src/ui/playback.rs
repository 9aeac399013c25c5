//! Animation playback: clip, time, speed, looping, frame stepping at 30 fps, and its panel.

/// Frames per second used for frame numbers and single-frame steps.
pub const FRAME_RATE: f32 = 30.0;

/// Playback state of the current clip; times in seconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Playback {
    /// Index of the clip in `Scene::animations`; `None` shows the rest pose.
    pub clip: Option<usize>,
    /// Length of the clip in seconds (0 for no clip).
    pub duration_s: f32,
    /// Current time in the clip, in `0..=duration_s`.
    pub time_s: f32,
    /// Playback speed factor (1 is real time).
    pub speed: f32,
    /// Whether time wraps at the end instead of stopping.
    pub looping: bool,
    /// Whether time advances with the wall clock.
    pub playing: bool,
}

impl Default for Playback {
    fn default() -> Self {
        Self {
            clip: None,
            duration_s: 0.0,
            time_s: 0.0,
            speed: 1.0,
            looping: true,
            playing: false,
        }
    }
}

impl Playback {
    /// Selects clip `clip` of length `duration_s`, rewinding to the start.
    pub fn select(&mut self, clip: Option<usize>, duration_s: f32) {
        self.clip = clip;
        self.duration_s = if duration_s.is_finite() {
            duration_s.max(0.0)
        } else {
            0.0
        };
        self.time_s = 0.0;
    }

    /// Advances by `dt_s` seconds of wall clock when playing; wraps or stops at the end.
    pub fn advance(&mut self, dt_s: f32) {
        if !self.playing || !dt_s.is_finite() {
            return;
        }
        if self.duration_s <= 0.0 {
            self.time_s = 0.0;
            return;
        }
        let t = self.time_s + dt_s * self.speed;
        if self.looping {
            self.time_s = t.rem_euclid(self.duration_s);
        } else if t >= self.duration_s {
            self.time_s = self.duration_s;
            self.playing = false;
        } else if t <= 0.0 {
            // Negative speed runs backwards and stops at the start.
            self.time_s = 0.0;
            self.playing = false;
        } else {
            self.time_s = t;
        }
    }

    /// The frame shown at the current time (30 fps, frame 0 at t = 0).
    #[must_use]
    pub fn frame(&self) -> u32 {
        frame_at(self.time_s)
    }

    /// The last frame of the clip.
    #[must_use]
    pub fn last_frame(&self) -> u32 {
        frame_at(self.duration_s)
    }

    /// Pauses and moves `delta` frames, clamped to the clip.
    pub fn step(&mut self, delta: i64) {
        self.playing = false;
        let frame = (i64::from(self.frame()) + delta).clamp(0, i64::from(self.last_frame()));
        self.time_s = (frame as f32 / FRAME_RATE).min(self.duration_s);
    }

    /// Jumps to the start of the clip.
    pub fn to_start(&mut self) {
        self.time_s = 0.0;
    }

    /// Jumps to the end of the clip (and pauses: looping would wrap at once).
    pub fn to_end(&mut self) {
        self.time_s = self.duration_s;
        self.playing = false;
    }

    /// Starts or stops playback; playing from the end of a non-looping clip restarts it.
    pub fn toggle(&mut self) {
        self.playing = !self.playing;
        if self.playing && !self.looping && self.time_s >= self.duration_s {
            self.time_s = 0.0;
        }
    }
}

/// The 30 fps frame number at `time_s` (a hair of tolerance so k/30 s is frame k).
#[must_use]
pub fn frame_at(time_s: f32) -> u32 {
    if time_s.is_finite() && time_s > 0.0 {
        (time_s * FRAME_RATE + 1e-3).floor() as u32
    } else {
        0
    }
}

/// The Animation section: clip list, transport buttons, speed, loop and the timeline.
///
/// `clips` are (name, duration in seconds) per clip of the scene.
pub fn playback_ui(ui: &mut egui::Ui, playback: &mut Playback, clips: &[(String, f32)]) {
    let current = playback
        .clip
        .and_then(|c| clips.get(c))
        .map_or("(rest pose)", |(name, _)| name.as_str())
        .to_owned();
    egui::ComboBox::from_label("clip")
        .selected_text(current)
        .show_ui(ui, |ui| {
            if ui
                .selectable_label(playback.clip.is_none(), "(rest pose)")
                .clicked()
            {
                playback.select(None, 0.0);
            }
            for (i, (name, duration)) in clips.iter().enumerate() {
                let label = format!("{name} ({duration:.2} s)");
                if ui
                    .selectable_label(playback.clip == Some(i), label)
                    .clicked()
                {
                    playback.select(Some(i), *duration);
                }
            }
        });
    ui.horizontal(|ui| {
        if ui.button("|<").on_hover_text("start (Home)").clicked() {
            playback.to_start();
        }
        if ui.button("<").on_hover_text("frame back (Left)").clicked() {
            playback.step(-1);
        }
        let label = if playback.playing { "pause" } else { "play" };
        if ui
            .button(label)
            .on_hover_text("play/pause (Space)")
            .clicked()
        {
            playback.toggle();
        }
        if ui
            .button(">")
            .on_hover_text("frame forward (Right)")
            .clicked()
        {
            playback.step(1);
        }
        if ui.button(">|").on_hover_text("end (End)").clicked() {
            playback.to_end();
        }
        ui.checkbox(&mut playback.looping, "loop");
    });
    ui.add(
        egui::Slider::new(&mut playback.speed, 0.1..=4.0)
            .text("speed")
            .logarithmic(true),
    );
    let max = playback.duration_s.max(1e-3);
    let mut t = playback.time_s;
    let slider = egui::Slider::new(&mut t, 0.0..=max)
        .show_value(false)
        .text("time");
    if ui.add_enabled(playback.duration_s > 0.0, slider).changed() {
        playback.time_s = t.clamp(0.0, playback.duration_s);
    }
    ui.label(format!(
        "{:.3} s / {:.3} s   frame {} / {} (30 fps)",
        playback.time_s,
        playback.duration_s,
        playback.frame(),
        playback.last_frame()
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clip(duration: f32) -> Playback {
        let mut p = Playback::default();
        p.select(Some(0), duration);
        p.playing = true;
        p
    }

    #[test]
    fn frames_at_30_fps() {
        assert_eq!(frame_at(0.0), 0);
        assert_eq!(frame_at(1.0 / 30.0), 1);
        assert_eq!(frame_at(0.999), 29);
        assert_eq!(frame_at(2.0), 60);
        assert_eq!(frame_at(-1.0), 0);
        assert_eq!(frame_at(f32::NAN), 0);
        assert_eq!(clip(2.0).last_frame(), 60);
    }

    #[test]
    fn looping_wraps_and_one_shot_stops() {
        let mut p = clip(2.0);
        p.advance(2.5);
        assert!((p.time_s - 0.5).abs() < 1e-5);
        assert!(p.playing);
        p.looping = false;
        p.advance(3.0);
        assert_eq!(p.time_s, 2.0);
        assert!(!p.playing);
        p.toggle();
        assert_eq!(p.time_s, 0.0, "playing from the end restarts");
    }

    #[test]
    fn speed_scales_time_and_paused_stands_still() {
        let mut p = clip(10.0);
        p.speed = 2.0;
        p.advance(1.0);
        assert!((p.time_s - 2.0).abs() < 1e-5);
        p.playing = false;
        p.advance(1.0);
        assert!((p.time_s - 2.0).abs() < 1e-5);
    }

    #[test]
    fn stepping_moves_whole_frames_and_clamps() {
        let mut p = clip(1.0);
        p.step(1);
        assert!(!p.playing);
        assert_eq!(p.frame(), 1);
        p.step(-5);
        assert_eq!(p.frame(), 0);
        p.step(1000);
        assert_eq!(p.frame(), 30);
        assert_eq!(p.time_s, 1.0);
        p.to_start();
        assert_eq!(p.time_s, 0.0);
        p.to_end();
        assert_eq!(p.time_s, 1.0);
    }

    #[test]
    fn no_clip_stays_at_zero() {
        let mut p = Playback {
            playing: true,
            ..Playback::default()
        };
        p.advance(1.0);
        assert_eq!(p.time_s, 0.0);
        p.step(3);
        assert_eq!(p.time_s, 0.0);
    }
}
