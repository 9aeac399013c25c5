//! The ratio plot: volume (or area) ratio to rest per skinning mode, over the clip or a twist sweep.
//!
//! `app` computes the series off the UI thread and fills [`InspectState`]; this
//! panel draws it, shows the progress, and turns clicks into a new time or twist.

use std::sync::Arc;

use egui::Color32;
use egui_plot::{Axis, HLine, Line, LineStyle, Plot, PlotPoints, Span, VLine};

use super::{JointsState, Playback, plot_ticks};
use crate::analysis::{Measure, RatioSeries, SeriesAxis, TwistFlips};
use crate::anim::JointAngles;
use crate::skin::SkinningMode;

/// The plot's least height in points: three rows of tick labels and the x axis.
pub const MIN_PLOT_HEIGHT: f32 = 110.0;

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

/// Line colour of a mode (LBS orange, DQS blue, hybrid green, CoR violet, DDM teal, DM tan).
#[must_use]
pub fn mode_color(mode: SkinningMode) -> Color32 {
    match mode {
        SkinningMode::Lbs => Color32::from_rgb(240, 150, 60),
        SkinningMode::Dqs => Color32::from_rgb(90, 160, 255),
        SkinningMode::Hybrid => Color32::from_rgb(120, 215, 110),
        SkinningMode::Cor => Color32::from_rgb(210, 120, 230),
        SkinningMode::Ddm => Color32::from_rgb(70, 200, 190),
        SkinningMode::Dm => Color32::from_rgb(200, 170, 120),
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
        // At least three labelled ticks per axis, whatever the range (see `plot_ticks`).
        .grid_spacing(plot_ticks::GRID_SPACING)
        .x_grid_spacer(|input| plot_ticks::grid_marks(&input, plot_ticks::X_TICK_GAP))
        .y_grid_spacer(|input| plot_ticks::grid_marks(&input, plot_ticks::Y_TICK_GAP))
        .custom_x_axes(vec![plot_ticks::axis_hints(Axis::X, x_label)])
        .custom_y_axes(vec![plot_ticks::axis_hints(Axis::Y, "")])
        // The room the legend left, so the x axis stays inside the panel.
        .height(ui.available_height().max(MIN_PLOT_HEIGHT));
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
    use crate::ui::input_order::frame as headless_frame;

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

    /// A clip series whose ratios stay within 0.995..1.003 (the held-out character's clip),
    /// with a region whose long joint name makes long legend entries.
    fn narrow_series() -> RatioSeries {
        use crate::analysis::{Measure, RegionSeries};
        let x: Vec<f32> = (0..=40).map(|i| i as f32 / 30.0).collect();
        let wave = |a: f64, b: f64| -> Vec<f64> {
            (0..x.len())
                .map(|i| a + b * (i as f64 * 0.2).sin())
                .collect()
        };
        RatioSeries {
            measure: Measure::Volume,
            axis: SeriesAxis::ClipTime { clip: 0 },
            ratios: [
                wave(0.999, 0.003),
                wave(1.0, 0.002),
                wave(0.998, 0.003),
                Vec::new(),
                Vec::new(),
                Vec::new(),
            ],
            dqs_flipped: vec![false; x.len()],
            region: Some(RegionSeries {
                joint: 7,
                name: "mixamorig:LeftForeArmTwist".into(),
                vertices: 120,
                measure: Measure::Volume,
                ratios: [
                    wave(0.997, 0.002),
                    wave(1.001, 0.001),
                    wave(0.996, 0.002),
                    Vec::new(),
                    Vec::new(),
                    Vec::new(),
                ],
            }),
            x,
        }
    }

    /// Every text shape in `shapes`, nested ones included: (text, rectangle).
    fn texts(shapes: &[egui::epaint::ClippedShape]) -> Vec<(String, egui::Rect)> {
        fn walk(shape: &egui::Shape, out: &mut Vec<(String, egui::Rect)>) {
            match shape {
                egui::Shape::Vec(v) => v.iter().for_each(|s| walk(s, out)),
                egui::Shape::Text(t) => {
                    out.push((t.galley.text().to_owned(), t.visual_bounding_rect()))
                }
                _ => {}
            }
        }
        let mut out = Vec::new();
        shapes.iter().for_each(|c| walk(&c.shape, &mut out));
        out
    }

    #[test]
    fn a_narrow_panel_shows_three_ticks_per_axis_and_the_legend_above_the_plot() {
        let ctx = egui::Context::default();
        let panel = egui::Rect::from_min_size(egui::pos2(0.0, 500.0), egui::vec2(340.0, 220.0));
        let mut inspect = InspectState {
            series: Some(Arc::new(narrow_series())),
            ..InspectState::default()
        };
        let mut playback = Playback::default();
        playback.select(Some(0), 1.333);
        let mut joints = JointsState::default();
        let mut shapes = Vec::new();
        for frame in 0..3 {
            shapes = headless_frame(&ctx, f64::from(frame), Vec::new(), |ui| {
                let builder = egui::UiBuilder::new().max_rect(panel);
                ui.scope_builder(builder, |ui| {
                    plot_ui(ui, &mut inspect, &mut playback, &mut joints, &|j| {
                        format!("joint {j}")
                    });
                });
            });
        }
        let probes = super::super::probe::take(&ctx);
        let area = probes.get("plot area").expect("plot area probed").rect;
        let texts = texts(&shapes);
        let numbers = |keep: &dyn Fn(egui::Rect) -> bool| -> Vec<String> {
            let mut v: Vec<String> = texts
                .iter()
                .filter(|(t, r)| t.parse::<f64>().is_ok() && keep(*r))
                .map(|(t, _)| t.clone())
                .collect();
            v.sort();
            v.dedup();
            v
        };
        let y_ticks = numbers(&|r| r.max.x <= area.min.x + 1.0);
        let x_ticks = numbers(&|r| r.min.y >= area.max.y - 1.0);
        assert!(y_ticks.len() >= 3, "y ticks {y_ticks:?} in {texts:?}");
        assert!(x_ticks.len() >= 3, "x ticks {x_ticks:?} in {texts:?}");
        let legend: Vec<&(String, egui::Rect)> = texts
            .iter()
            .filter(|(t, _)| ["LBS", "DQS", "Hybrid"].iter().any(|m| t.starts_with(m)))
            .collect();
        assert!(legend.len() >= 6, "{texts:?}");
        for (text, rect) in legend {
            // One row each: a long name is cut, never wrapped onto the next row.
            assert!(rect.height() < 16.0, "legend {text:?} {rect:?} wraps");
            assert!(
                !rect.intersects(area),
                "legend {text:?} {rect:?} over the plot {area:?}"
            );
            assert!(
                rect.max.x <= panel.max.x + 0.5,
                "legend {text:?} {rect:?} past the panel"
            );
        }
        // The whole plot, x axis and its label included, fits the panel.
        assert!(
            texts.iter().all(|(_, r)| r.max.y <= panel.max.y + 0.5),
            "{texts:?}"
        );
    }
}
