//! The viewport: camera input, joint picking, half labels, skeleton overlay and status line.
//!
//! The 3D image itself is drawn by `app` beneath egui, into the rectangles
//! [`view_rects`] returns; this module paints only what lies on top.

use egui::{Color32, Pos2, Rect, Sense, Stroke, Vec2 as EVec2};
use glam::{Vec2, Vec3};

use super::joints::{PICK_RADIUS_PX, pick_joint};
use super::orbit::{ndc_from_viewport, project_to_viewport};
use super::{SkinningSettings, ViewMode, ViewerState};
use crate::skin::SkinningMode;

/// One view of the viewport: where it is and which mode it shows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewRect {
    /// The view's rectangle in points.
    pub rect: Rect,
    /// The skinning mode of the solid mesh.
    pub mode: SkinningMode,
    /// Whether the view draws the twist-joints preview rig (in `mode`, LBS) instead of the model.
    pub twist: bool,
    /// A caption painted in the view (split view only).
    pub label: Option<&'static str>,
    /// The part of `rect` that no label or status line is painted over (set as they are
    /// painted): whole-model framing keeps the model inside it.
    pub free: Rect,
}

/// Caption of the "LBS + helpers" pane.
pub const TWIST_PANE_TITLE: &str = "LBS + helpers";

/// The views of `viewport` for `skinning`: one, or a column per chosen pane in split view.
pub fn view_rects(viewport: Rect, skinning: &SkinningSettings) -> Vec<ViewRect> {
    match skinning.view {
        ViewMode::Split => {
            // (mode, twist rig) per pane, in the panel's order.
            let mut panes: Vec<(SkinningMode, bool)> = SkinningMode::ALL
                .into_iter()
                .zip(skinning.panes)
                .filter_map(|(m, on)| on.then_some((m, false)))
                .collect();
            if skinning.panes[super::TWIST_PANE] {
                panes.push((SkinningMode::Lbs, true));
            }
            // A split needs two panes: fewer chosen falls back to LBS | DQS.
            if panes.len() < 2 {
                panes = vec![(SkinningMode::Lbs, false), (SkinningMode::Dqs, false)];
            }
            let width = viewport.width() / panes.len() as f32;
            panes
                .iter()
                .enumerate()
                .map(|(i, &(mode, twist))| {
                    let x0 = viewport.min.x + width * i as f32;
                    let rect = Rect::from_min_max(
                        egui::pos2(x0, viewport.min.y),
                        egui::pos2(x0 + width, viewport.max.y),
                    );
                    ViewRect {
                        rect,
                        free: rect,
                        mode,
                        twist,
                        label: Some(if twist {
                            TWIST_PANE_TITLE
                        } else {
                            mode.title()
                        }),
                    }
                })
                .collect()
        }
        ViewMode::Single | ViewMode::Overlay => vec![ViewRect {
            rect: viewport,
            free: viewport,
            mode: skinning.mode,
            twist: false,
            label: None,
        }],
    }
}

/// Joint positions of the shown skin at the current pose, world space.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SkeletonPose {
    /// (node, world position, parent joint's node) per joint.
    pub joints: Vec<(usize, Vec3, Option<usize>)>,
}

/// Timings and adapter for the status line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Status {
    /// Frames per second, averaged.
    pub fps: f32,
    /// Whether frames are drawn on demand (paused between them), so `fps` means nothing.
    pub on_demand: bool,
    /// CPU time of a frame, milliseconds.
    pub cpu_ms: f32,
    /// GPU time of a frame, milliseconds, where the adapter has timestamp queries.
    pub gpu_ms: Option<f32>,
    /// The adapter's name.
    pub adapter: String,
}

/// Handles input over `viewport` and paints the overlays; returns the views to draw.
pub fn viewport_ui(
    ui: &mut egui::Ui,
    viewport: Rect,
    state: &mut ViewerState,
    skeleton: &SkeletonPose,
) -> Vec<ViewRect> {
    let mut views = view_rects(viewport, &state.skinning);
    let response = ui.interact(
        viewport,
        ui.scope_id().with("viewport"),
        Sense::click_and_drag(),
    );
    let shift = ui.input(|i| i.modifiers.shift);
    let height = views.first().map_or(1.0, |v| v.rect.height());
    let delta = response.drag_delta();
    let delta = Vec2::new(delta.x, delta.y);
    let painting = state.paint.enabled;
    // While painting the left button paints and the right one orbits.
    let orbit_button = if painting {
        egui::PointerButton::Secondary
    } else {
        egui::PointerButton::Primary
    };
    let panning = response.dragged_by(egui::PointerButton::Middle)
        || (shift && response.dragged_by(orbit_button));
    let moved = delta != Vec2::ZERO;
    if panning {
        state.camera.pan(delta, height);
    } else if response.dragged_by(orbit_button) {
        state.camera.orbit(delta);
    }
    // The user takes the camera: following would fight the drag, so it stops (zoom keeps it).
    if moved && (panning || response.dragged_by(orbit_button)) {
        state.follow.stop();
    }
    if painting {
        paint_input(ui, &response, state);
    }
    if let Some(pos) = response.hover_pos() {
        let scroll = ui.input(|i| i.smooth_scroll_delta().y);
        if scroll != 0.0
            && let Some(view) = views.iter().find(|v| v.rect.contains(pos))
        {
            let size = Vec2::new(view.rect.width(), view.rect.height());
            let local = pos - view.rect.min;
            let ndc = ndc_from_viewport(Vec2::new(local.x, local.y), size);
            // One wheel notch is about 50 points of smooth scroll.
            state
                .camera
                .zoom_to_cursor(scroll / 50.0, ndc, size.x / size.y.max(1.0));
        }
    }
    let painter = ui.painter_at(viewport);
    // Labels and the status line are laid out first: whole-model framing keeps clear of them,
    // and frames before anything is projected, so this frame's overlays show the new camera.
    let labels: Vec<_> = views
        .iter()
        .map(|v| pane_label(v, state).map(|text| label_layout(&painter, v.rect, text)))
        .collect();
    let status = status_layout(
        &painter,
        viewport,
        &state.status,
        state.inspect.warning.as_deref(),
    );
    mark_covered(ui, &mut views, &labels, status.covered());
    frame_model_in(state, &views);
    let mut projected: Vec<(usize, Vec2)> = Vec::new();
    for (view, label) in views.iter().zip(labels) {
        let size = Vec2::new(view.rect.width(), view.rect.height());
        let clip_from_world = state.camera.clip_from_world(size.x / size.y.max(1.0));
        let origin = Vec2::new(view.rect.min.x, view.rect.min.y);
        let project = |p: Vec3| project_to_viewport(clip_from_world, p, size).map(|s| s + origin);
        projected.extend(
            skeleton
                .joints
                .iter()
                .filter_map(|&(node, p, _)| project(p).map(|s| (node, s))),
        );
        if state.display.skeleton {
            paint_skeleton(
                &painter.with_clip_rect(view.rect),
                skeleton,
                state.joints.selected,
                &project,
            );
        }
        if let Some((rect, galley)) = label {
            painter.galley(rect.min, galley, Color32::WHITE);
        }
    }
    if views.len() > 1
        && let Some(right) = views.get(1)
    {
        painter.vline(
            right.rect.left(),
            viewport.y_range(),
            Stroke::new(2.0, Color32::from_gray(90)),
        );
    }
    let double = super::clicks::double_clicked(&response, egui::PointerButton::Primary);
    if !painting
        && (response.clicked_by(egui::PointerButton::Primary) || double)
        && let Some(pos) = response.interact_pointer_pos()
        && let Some(node) = pick_joint(&projected, Vec2::new(pos.x, pos.y), PICK_RADIUS_PX)
    {
        state.joints.selected = Some(node);
        state.joints.reveal_selected = true;
        if double {
            state.requests.frame_joint = Some(node);
        }
    }
    state.projected_joints = projected;
    for view in &views {
        let clipped = painter.with_clip_rect(view.rect);
        let legend = match (state.heat_shown, painting) {
            (_, true) => super::paint_beta_legend(&clipped, view.rect),
            (Some((quantity, range)), false) => super::paint_heat_legend(
                &clipped,
                view.rect,
                quantity,
                range,
                state.length_scale,
                state.facts.rest_bind_legend.as_ref(),
            ),
            (None, false) => None,
        };
        if let Some(rect) = legend {
            super::probe::record(ui, "view legend", rect);
        }
    }
    paint_status(&painter, status);
    views
}

/// The caption of `view`: its mode (split view) and a note (the hybrid's map, the twist rig).
fn pane_label(view: &ViewRect, state: &ViewerState) -> Option<String> {
    let note = if view.twist {
        state.twist.pane_note().map(str::to_owned)
    } else {
        (view.mode == SkinningMode::Hybrid)
            .then(|| super::hybrid_label_note(&state.skinning))
            .flatten()
    };
    match (view.label, note) {
        (Some(label), Some(note)) => Some(format!("{label} · {note}")),
        (None, Some(note)) => Some(format!("{} · {note}", SkinningMode::Hybrid.title())),
        (label, None) => label.map(str::to_owned),
    }
}

/// A caption laid out at the top centre of `rect`: where it goes and its text.
fn label_layout(
    painter: &egui::Painter,
    rect: Rect,
    text: String,
) -> (Rect, std::sync::Arc<egui::Galley>) {
    let galley = painter.layout_no_wrap(text, egui::FontId::proportional(18.0), Color32::WHITE);
    let at = rect.center_top() + EVec2::new(0.0, 8.0);
    (
        egui::Align2::CENTER_TOP.anchor_size(at, galley.size()),
        galley,
    )
}

/// Takes what the labels and the status line (`status`) cover out of each view's free part,
/// and records them as probes.
fn mark_covered(
    ui: &egui::Ui,
    views: &mut [ViewRect],
    labels: &[Option<(Rect, std::sync::Arc<egui::Galley>)>],
    status: Rect,
) {
    for (i, (view, label)) in views.iter_mut().zip(labels).enumerate() {
        if let Some((row, _)) = label {
            view.free.min.y = view.free.min.y.max(row.bottom());
            super::probe::record(ui, &format!("view label {i}"), *row);
        }
        if view.rect.x_range().intersects(status.x_range()) {
            view.free.max.y = view.free.max.y.min(status.top());
        }
    }
    super::probe::record(ui, "status line", status);
}

/// Carries out a Frame of the whole model into the views' free parts (the box the app set
/// in `state.framed_bounds`); without views or a box the app frames it after the UI.
fn frame_model_in(state: &mut ViewerState, views: &[ViewRect]) {
    if !state.requests.frame_model {
        return;
    }
    if let Some((min, max)) = state.framed_bounds
        && let Some(area) = super::FrameArea::of_views(views)
    {
        state.camera.frame_in(min, max, area);
        state.requests.frame_model = false;
    }
}

/// Records this frame's brush dabs (spaced along the pointer's path while the left button is
/// down on the viewport) and draws the brush circle under the pointer.
fn paint_input(ui: &egui::Ui, response: &egui::Response, state: &mut ViewerState) {
    let p = &mut state.paint;
    let down = ui.input(|i| i.pointer.primary_down());
    let on_viewport =
        response.is_pointer_button_down_on() || response.dragged_by(egui::PointerButton::Primary);
    match ui.input(|i| i.pointer.interact_pos()) {
        Some(pos) if down && on_viewport => {
            p.stroke_began |= p.last_dab.is_none();
            let dabs = stroke_dabs(p.last_dab, pos, p.radius_px * DAB_SPACING);
            p.last_dab = dabs.last().copied().or(p.last_dab);
            p.dabs.extend(dabs);
        }
        _ => p.last_dab = None,
    }
    if let Some(pos) = response.hover_pos() {
        let stroke = Stroke::new(1.5, Color32::from_rgb(255, 240, 120));
        ui.painter().circle_stroke(pos, p.radius_px, stroke);
    }
}

/// Dab spacing as a fraction of the brush radius: a stroke's result does not depend on the
/// frame rate or on how long the pointer rests.
const DAB_SPACING: f32 = 0.25;

/// The dabs from the last one (`None`: a stroke starts at `to`) towards `to`, `spacing` apart.
fn stroke_dabs(last: Option<egui::Pos2>, to: egui::Pos2, spacing: f32) -> Vec<egui::Pos2> {
    let Some(from) = last else {
        return vec![to];
    };
    let length = from.distance(to);
    let spacing = spacing.max(0.5);
    let count = (length / spacing).floor() as usize;
    (1..=count)
        .map(|k| from + (to - from) * (k as f32 * spacing / length))
        .collect()
}

/// Bones as lines and joints as dots; the selected joint larger and yellow.
fn paint_skeleton(
    painter: &egui::Painter,
    skeleton: &SkeletonPose,
    selected: Option<usize>,
    project: &dyn Fn(Vec3) -> Option<Vec2>,
) {
    let pos = |v: Vec2| Pos2::new(v.x, v.y);
    let bone = Stroke::new(2.0, Color32::from_rgb(90, 200, 255));
    for &(_, p, parent) in &skeleton.joints {
        let Some(parent_pos) = parent.and_then(|pn| {
            skeleton
                .joints
                .iter()
                .find(|(n, _, _)| *n == pn)
                .map(|(_, q, _)| *q)
        }) else {
            continue;
        };
        if let (Some(a), Some(b)) = (project(p), project(parent_pos)) {
            painter.line_segment([pos(a), pos(b)], bone);
        }
    }
    for &(node, p, _) in &skeleton.joints {
        if let Some(s) = project(p) {
            if selected == Some(node) {
                painter.circle(
                    pos(s),
                    6.0,
                    Color32::from_rgb(255, 220, 40),
                    Stroke::new(1.5, Color32::BLACK),
                );
            } else {
                painter.circle(
                    pos(s),
                    3.5,
                    Color32::from_rgb(40, 160, 240),
                    Stroke::new(1.0, Color32::BLACK),
                );
            }
        }
    }
}

/// The status line and the warning above it, laid out: backing rectangles and text.
struct StatusLayout {
    /// FPS, CPU and GPU frame times and the adapter.
    line: (Rect, std::sync::Arc<egui::Galley>),
    /// The DQS flip warning, when there is one.
    warning: Option<(Rect, std::sync::Arc<egui::Galley>)>,
}

impl StatusLayout {
    /// The part of the viewport the lines cover.
    fn covered(&self) -> Rect {
        self.warning
            .as_ref()
            .map_or(self.line.0, |(w, _)| self.line.0.union(*w))
    }
}

/// Lays out FPS, CPU and GPU frame times and the adapter, bottom left of the viewport, and
/// a warning (the DQS flip) on a line above it.
fn status_layout(
    painter: &egui::Painter,
    viewport: Rect,
    status: &Status,
    warning: Option<&str>,
) -> StatusLayout {
    let gpu = status
        .gpu_ms
        .map_or_else(|| "n/a".to_owned(), |ms| format!("{ms:.2} ms"));
    let rate = if status.on_demand {
        "on demand".to_owned()
    } else {
        format!("{:.1} FPS", status.fps)
    };
    let text = format!(
        "{rate}   CPU {:.2} ms   GPU {gpu}   {}",
        status.cpu_ms, status.adapter
    );
    let at = viewport.left_bottom() + EVec2::new(8.0, -6.0);
    let galley =
        painter.layout_no_wrap(text, egui::FontId::monospace(13.0), Color32::from_gray(230));
    let rect = egui::Align2::LEFT_BOTTOM
        .anchor_size(at, galley.size())
        .expand(3.0);
    let warning = warning.map(|warning| {
        let galley = painter.layout_no_wrap(
            warning.to_owned(),
            egui::FontId::monospace(13.0),
            Color32::from_rgb(255, 200, 90),
        );
        let at = rect.left_top() + EVec2::new(0.0, -4.0);
        let warn_rect = egui::Align2::LEFT_BOTTOM
            .anchor_size(at, galley.size())
            .expand(3.0);
        (warn_rect, galley)
    });
    StatusLayout {
        line: (rect, galley),
        warning,
    }
}

/// Paints the status line and its warning on their dark backings.
fn paint_status(painter: &egui::Painter, layout: StatusLayout) {
    let (rect, galley) = layout.line;
    painter.rect_filled(rect, 3.0, Color32::from_black_alpha(150));
    painter.galley(rect.min + EVec2::splat(3.0), galley, Color32::WHITE);
    if let Some((warn_rect, galley)) = layout.warning {
        painter.rect_filled(
            warn_rect,
            3.0,
            Color32::from_rgba_unmultiplied(90, 20, 10, 200),
        );
        painter.galley(warn_rect.min + EVec2::splat(3.0), galley, Color32::WHITE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_view_is_lbs_left_dqs_right() {
        let rect = Rect::from_min_size(Pos2::new(200.0, 0.0), EVec2::new(800.0, 600.0));
        let settings = SkinningSettings {
            view: ViewMode::Split,
            mode: SkinningMode::Hybrid,
            ..SkinningSettings::default()
        };
        let views = view_rects(rect, &settings);
        assert_eq!(views.len(), 2);
        assert_eq!(views[0].mode, SkinningMode::Lbs);
        assert_eq!(views[1].mode, SkinningMode::Dqs);
        assert_eq!(views[0].rect.width(), 400.0);
        assert_eq!(views[1].rect.left(), 600.0);
        let single = view_rects(rect, &SkinningSettings::default());
        assert_eq!(single.len(), 1);
        assert_eq!(single[0].mode, SkinningMode::Dqs);
        assert_eq!(single[0].label, None);
    }

    #[test]
    fn split3_has_three_equal_columns_lbs_dqs_cor() {
        let rect = Rect::from_min_size(Pos2::new(300.0, 10.0), EVec2::new(900.0, 600.0));
        let (view, panes) = crate::ui::parse_view("split3").expect("split3 parses");
        let settings = SkinningSettings {
            view,
            panes,
            ..SkinningSettings::default()
        };
        let views = view_rects(rect, &settings);
        let modes: Vec<_> = views.iter().map(|v| v.mode).collect();
        assert_eq!(
            modes,
            [SkinningMode::Lbs, SkinningMode::Dqs, SkinningMode::Cor]
        );
        for (i, v) in views.iter().enumerate() {
            assert_eq!(v.rect.width(), 300.0);
            assert_eq!(v.rect.left(), 300.0 + 300.0 * i as f32);
            assert_eq!(v.rect.height(), 600.0);
        }
        assert_eq!(views[2].label, Some("CoR (centers of rotation)"));
        // One pane chosen is not a split: LBS | DQS.
        let lonely = SkinningSettings {
            view: ViewMode::Split,
            panes: [false, false, true, false, false, false, false],
            ..SkinningSettings::default()
        };
        let modes: Vec<_> = view_rects(rect, &lonely).iter().map(|v| v.mode).collect();
        assert_eq!(modes, [SkinningMode::Lbs, SkinningMode::Dqs]);
    }

    #[test]
    fn the_twist_pane_comes_last_as_lbs_of_the_preview_rig() {
        let rect = Rect::from_min_size(Pos2::new(0.0, 0.0), EVec2::new(900.0, 600.0));
        let settings = SkinningSettings {
            view: ViewMode::Split,
            panes: [true, true, false, false, false, false, true],
            ..SkinningSettings::default()
        };
        let views = view_rects(rect, &settings);
        let kinds: Vec<_> = views.iter().map(|v| (v.mode, v.twist)).collect();
        assert_eq!(
            kinds,
            [
                (SkinningMode::Lbs, false),
                (SkinningMode::Dqs, false),
                (SkinningMode::Lbs, true)
            ]
        );
        assert_eq!(views[2].label, Some(TWIST_PANE_TITLE));
        assert_eq!(views[2].rect.left(), 600.0);
        // split4 stays the four skinning modes.
        let (_, panes) = crate::ui::parse_view("split4").expect("split4 parses");
        assert!(!panes[crate::ui::TWIST_PANE]);
    }
}
