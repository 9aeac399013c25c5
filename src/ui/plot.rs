//! The ratio plot: volume (or area) ratio to rest per skinning mode, over the clip or a twist sweep.
//!
//! `app` computes the series off the UI thread and fills [`InspectState`]; this
//! panel draws it, shows the progress, and turns clicks into a new time or twist.

use std::sync::Arc;

use egui::Color32;
use egui_plot::{HLine, Line, LineStyle, Plot, PlotPoints, Span, VLine};

use super::{JointsState, Playback};
use crate::analysis::{Measure, RatioSeries, SeriesAxis, TwistFlips};
use crate::anim::JointAngles;
use crate::skin::SkinningMode;

/// What rig inspection shows: the plot's series and progress, flips and the warning.
#[derive(Clone, Debug, Default)]
pub struct InspectState {
    /// The newest finished series.
    pub series: Option<Arc<RatioSeries>>,
    /// Samples done and in all of the analysis running now.
    pub progress: Option<(usize, usize)>,
    /// Set by the cancel button; `app` stops the running analysis and clears it.
    pub cancel: bool,
    /// Why no series is asked for (shown in place of the plot).
    pub note: Option<String>,
    /// Where twisting the selected joint flips DQS, at the current pose.
    pub flips: Option<TwistFlips>,
    /// A flip warning for the status line.
    pub warning: Option<String>,
    /// The legend strip is folded away.
    pub legend_folded: bool,
}

/// Line colour of a mode (LBS orange, DQS blue, hybrid green).
#[must_use]
pub fn mode_color(mode: SkinningMode) -> Color32 {
    match mode {
        SkinningMode::Lbs => Color32::from_rgb(240, 150, 60),
        SkinningMode::Dqs => Color32::from_rgb(90, 160, 255),
        SkinningMode::Hybrid => Color32::from_rgb(120, 215, 110),
        SkinningMode::Cor => Color32::from_rgb(210, 120, 230),
    }
}

/// Runs of consecutive flipped samples as (first x, last x).
#[must_use]
pub fn flipped_runs(x: &[f32], flipped: &[bool]) -> Vec<(f32, f32)> {
    let mut runs: Vec<(f32, f32)> = Vec::new();
    let mut open = false;
    for (&x, &f) in x.iter().zip(flipped) {
        match (f, open, runs.last_mut()) {
            (true, true, Some(run)) => run.1 = x,
            (true, _, _) => {
                runs.push((x, x));
                open = true;
            }
            (false, _, _) => open = false,
        }
    }
    runs
}

/// Moves the viewer to plot position `x`: the clip time, or the swept joint's twist. Pauses playback.
pub fn jump_to(axis: SeriesAxis, x: f64, playback: &mut Playback, joints: &mut JointsState) {
    if !x.is_finite() {
        return;
    }
    match axis {
        SeriesAxis::ClipTime { .. } => {
            playback.playing = false;
            playback.time_s = (x as f32).clamp(0.0, playback.duration_s);
        }
        SeriesAxis::Twist { joint } => {
            let angles = joints.overrides.get(joint);
            let twist_deg = (x as f32).clamp(-360.0, 360.0).round();
            joints.overrides.set(
                joint,
                JointAngles {
                    twist_deg,
                    ..angles
                },
            );
        }
    }
}

/// The plot panel: title, progress and cancel, then the series with a cursor at the current x.
pub fn plot_ui(
    ui: &mut egui::Ui,
    inspect: &mut InspectState,
    playback: &mut Playback,
    joints: &mut JointsState,
    joint_name: &dyn Fn(usize) -> String,
) {
    let series = inspect.series.clone();
    ui.horizontal(|ui| {
        let title = match series.as_deref() {
            Some(s) => {
                let what = match s.measure {
                    Measure::Volume => "Volume",
                    Measure::Area => "Area (open mesh)",
                };
                match s.axis {
                    SeriesAxis::ClipTime { .. } => format!("{what} / rest over the clip"),
                    SeriesAxis::Twist { joint } => {
                        format!(
                            "{what} / rest over a twist of {} (no clip)",
                            joint_name(joint)
                        )
                    }
                }
            }
            None => "Volume / rest".to_owned(),
        };
        let title = ui.strong(title);
        super::probe::record(ui, "plot title", title.rect);
        if let Some((done, total)) = inspect.progress {
            let fraction = done as f32 / total.max(1) as f32;
            ui.add(
                egui::ProgressBar::new(fraction)
                    .desired_width(180.0)
                    .text(format!("analysing {done}/{total}")),
            );
            if ui.small_button("cancel").clicked() {
                inspect.cancel = true;
            }
        }
        ui.label(egui::RichText::new("click or drag to jump").small().weak());
    });
    let Some(series) = series else {
        ui.label(inspect.note.as_deref().unwrap_or("no data yet"));
        return;
    };
    // The legend above the data, never over the curves or the title.
    let entries = super::plot_legend::legend_entries(&series);
    let strip = super::plot_legend::legend_strip_ui(ui, &entries, &mut inspect.legend_folded);
    super::probe::record(ui, "plot legend", strip);
    let cursor_x = match series.axis {
        SeriesAxis::ClipTime { .. } => f64::from(playback.time_s),
        SeriesAxis::Twist { joint } => f64::from(joints.overrides.get(joint).twist_deg),
    };
    let x_label = match series.axis {
        SeriesAxis::ClipTime { .. } => "time (s)",
        SeriesAxis::Twist { .. } => "twist (°)",
    };
    let runs = flipped_runs(&series.x, &series.dqs_flipped);
    // No plot background: the panel colour shows through (cheap on software rasterizers).
    let plot = Plot::new("dqview_ratio_plot")
        .show_background(false)
        .allow_zoom(false)
        .allow_drag(false)
        .allow_scroll(false)
        .allow_boxed_zoom(false)
        .allow_double_click_reset(false)
        // Rest (1) always in view; no forced 0, so a few percent of loss stays visible.
        .include_y(1.0)
        .x_axis_label(x_label)
        .height(ui.available_height().max(150.0))
        .y_axis_min_width(36.0);
    let response = plot.show(ui, |p| {
        for (lo, hi) in runs {
            p.span(
                Span::new("DQS flipped", f64::from(lo)..=f64::from(hi))
                    .fill(super::flip::FLIP_COLOR.gamma_multiply(0.25)),
            );
        }
        p.hline(
            HLine::new("", 1.0)
                .color(Color32::from_gray(140))
                .style(LineStyle::dashed_loose()),
        );
        // CoR has a line once its centers exist.
        for mode in SkinningMode::ALL
            .into_iter()
            .filter(|&m| !series.of(m).is_empty())
        {
            let points: PlotPoints<'_> = series
                .x
                .iter()
                .zip(series.of(mode))
                .map(|(&x, &y)| [f64::from(x), y])
                .collect();
            p.line(
                Line::new(mode.short_label(), points)
                    .color(mode_color(mode))
                    .width(2.0),
            );
        }
        // The selected joint's region, dashed in the same colours.
        if let Some(region) = &series.region {
            for mode in SkinningMode::ALL
                .into_iter()
                .filter(|&m| !series.region_of(m).is_empty())
            {
                let points: PlotPoints<'_> = series
                    .x
                    .iter()
                    .zip(series.region_of(mode))
                    .map(|(&x, &y)| [f64::from(x), y])
                    .collect();
                let name = format!("{} {}", mode.short_label(), region.name);
                p.line(
                    Line::new(name, points)
                        .color(mode_color(mode))
                        .style(LineStyle::dashed_dense())
                        .width(1.5),
                );
            }
        }
        p.vline(VLine::new("", cursor_x).color(Color32::WHITE).width(1.5));
    });
    let r = &response.response;
    super::probe::record(ui, "plot area", r.rect);
    if (r.clicked() || r.dragged())
        && let Some(pos) = r.interact_pointer_pos()
    {
        let x = response.transform.value_from_position(pos).x;
        jump_to(series.axis, x, playback, joints);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_of_flipped_samples() {
        let x = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
        let f = [false, true, true, false, true, true];
        assert_eq!(flipped_runs(&x, &f), vec![(1.0, 2.0), (4.0, 5.0)]);
        assert!(flipped_runs(&x, &[false; 6]).is_empty());
    }

    #[test]
    fn jumps_set_time_or_twist() {
        let mut playback = Playback::default();
        playback.select(Some(0), 2.0);
        playback.playing = true;
        let mut joints = JointsState::default();
        jump_to(
            SeriesAxis::ClipTime { clip: 0 },
            1.25,
            &mut playback,
            &mut joints,
        );
        assert_eq!(playback.time_s, 1.25);
        assert!(!playback.playing);
        jump_to(
            SeriesAxis::ClipTime { clip: 0 },
            9.0,
            &mut playback,
            &mut joints,
        );
        assert_eq!(playback.time_s, 2.0);
        jump_to(
            SeriesAxis::Twist { joint: 3 },
            179.6,
            &mut playback,
            &mut joints,
        );
        assert_eq!(joints.overrides.get(3).twist_deg, 180.0);
        jump_to(
            SeriesAxis::Twist { joint: 3 },
            f64::NAN,
            &mut playback,
            &mut joints,
        );
        assert_eq!(joints.overrides.get(3).twist_deg, 180.0);
    }
}
