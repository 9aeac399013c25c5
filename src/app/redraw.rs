//! When the viewer draws its next frame: now, at a set time, or only when input arrives.
//!
//! The viewer redraws on demand, as Blender and Maya do: a playing clip, egui's own requests
//! (input, hover, animations) and background jobs ask for frames; a paused, untouched window
//! draws nothing and uses next to no CPU.

use std::time::{Duration, Instant};

use super::viewer::Running;

/// How often a running background job's progress is redrawn.
pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);

/// When the next frame is wanted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextFrame {
    /// As soon as possible (a clip plays, a scripted run, egui asked for it).
    Now,
    /// At this time (a job's progress, a debounce ending, an egui animation step).
    At(Instant),
    /// Only when input or a window event arrives.
    OnInput,
}

impl NextFrame {
    /// The sooner of the two.
    #[must_use]
    pub fn sooner(self, other: Self) -> Self {
        match (self, other) {
            (Self::Now, _) | (_, Self::Now) => Self::Now,
            (Self::At(a), Self::At(b)) => Self::At(a.min(b)),
            (Self::At(a), Self::OnInput) | (Self::OnInput, Self::At(a)) => Self::At(a),
            (Self::OnInput, Self::OnInput) => Self::OnInput,
        }
    }

    /// `Now` when `wanted`, else `OnInput`.
    #[must_use]
    pub fn now_if(wanted: bool) -> Self {
        if wanted { Self::Now } else { Self::OnInput }
    }

    /// A frame `delay` after `now`; egui's `Duration::MAX` means none, zero means now.
    #[must_use]
    pub fn after(now: Instant, delay: Duration) -> Self {
        if delay.is_zero() {
            Self::Now
        } else {
            now.checked_add(delay).map_or(Self::OnInput, Self::At)
        }
    }

    /// The job-progress redraw when `busy`, else `OnInput`.
    #[must_use]
    pub fn progress_if(now: Instant, busy: bool) -> Self {
        if busy {
            Self::after(now, PROGRESS_INTERVAL)
        } else {
            Self::OnInput
        }
    }

    /// Whether the frame is due at `now` (a time that has come counts as now).
    #[must_use]
    pub fn is_due(self, now: Instant) -> bool {
        match self {
            Self::Now => true,
            Self::At(t) => t <= now,
            Self::OnInput => false,
        }
    }
}

impl Running {
    /// The frame this state asks for after drawing one: a playing clip and held-back input
    /// draw at once, egui's requests, background jobs and the shader watch at their times, else input only.
    pub(super) fn wanted_frame(&self, egui_delay: Duration, now: Instant) -> NextFrame {
        let playing = self.state.playback.playing && self.state.playback.clip.is_some();
        let jobs = self.model.cor.is_running()
            || self.model.paint.is_fitting()
            || self.model.twist.is_building()
            || self.model.heat.is_running();
        let watch = self
            .faults
            .shader_watch
            .as_ref()
            .map_or(NextFrame::OnInput, |w| NextFrame::At(w.next_check()));
        NextFrame::now_if(playing || self.egui.pacer.has_deferred())
            .sooner(NextFrame::after(now, egui_delay))
            .sooner(NextFrame::progress_if(now, jobs))
            .sooner(self.inspector.next_frame(now))
            .sooner(watch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sooner_prefers_now_then_the_earlier_time_then_input() {
        let t0 = Instant::now();
        let t1 = t0 + Duration::from_millis(10);
        assert_eq!(
            NextFrame::At(t1).sooner(NextFrame::At(t0)),
            NextFrame::At(t0)
        );
        assert_eq!(
            NextFrame::OnInput.sooner(NextFrame::At(t1)),
            NextFrame::At(t1)
        );
        assert_eq!(NextFrame::At(t0).sooner(NextFrame::Now), NextFrame::Now);
        assert_eq!(
            NextFrame::OnInput.sooner(NextFrame::OnInput),
            NextFrame::OnInput
        );
    }

    #[test]
    fn egui_delays_map_to_now_a_time_or_nothing() {
        let t0 = Instant::now();
        assert_eq!(NextFrame::after(t0, Duration::ZERO), NextFrame::Now);
        assert_eq!(NextFrame::after(t0, Duration::MAX), NextFrame::OnInput);
        let later = NextFrame::after(t0, Duration::from_millis(50));
        assert_eq!(later, NextFrame::At(t0 + Duration::from_millis(50)));
        assert!(!later.is_due(t0));
        assert!(later.is_due(t0 + Duration::from_millis(50)));
        assert!(!NextFrame::OnInput.is_due(t0));
        assert_eq!(NextFrame::progress_if(t0, false), NextFrame::OnInput);
    }
}
