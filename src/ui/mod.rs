//! The viewer's user interface: plain state structs and egui panel functions.
//!
//! Nothing here touches wgpu or winit: `app` owns the window and the GPU,
//! feeds this module the facts it shows, and reads back what the user changed.

mod clicks;
mod cor;
mod crowd;
mod ddm;
mod dm;
mod facts;
mod file_dialog;
mod fit_table;
mod flip;
mod follow;
mod framing;
mod heat_legend;
#[cfg(test)]
mod input_order;
mod input_pacing;
mod joint_search;
mod joints;
mod morphs;
mod orbit;
mod paint;
mod playback;
mod plot;
mod plot_legend;
mod plot_ticks;
pub mod probe;
mod region_view;
mod shortcuts;
mod twist;
mod viewport;

pub use cor::{CorState, cor_ui};
pub use crowd::{MAX_CROWD, crowd_ui};
pub use ddm::{DdmState, ddm_ui};
pub use dm::{DmState, dm_ui};
pub use facts::{ModelFacts, facts_ui};
pub use file_dialog::{
    DialogOutcome, DialogPurpose, DirEntry, FileDialog, file_dialog_ui, list_dir,
};
pub use flip::{FLIP_COLOR, flip_strip_ui, flipped_ranges, x_of_twist};
pub use follow::FollowState;
pub use framing::FrameArea;
pub use heat_legend::{HeatRangeMode, heat_range_ui, paint_beta_legend, paint_heat_legend};
pub use input_pacing::InputPacer;
pub use joint_search::{matching_rows, mirror_joint, mirror_name, shown_rows};
pub use joints::{
    HybridState, JointRow, JointTree, JointsState, PICK_RADIUS_PX, joints_ui, pick_joint,
};
pub use morphs::{MorphNode, MorphsState, morphs_ui};
pub use orbit::{
    FRAME_FILL, OrbitCamera, ViewAxes, fit_distance, fit_model_distance, ndc_from_viewport,
    project_to_viewport,
};
pub use paint::{PaintOp, PaintRequests, PaintState, paint_ui};
pub use playback::{FRAME_RATE, Playback, frame_at, playback_ui};
pub use plot::{InspectState, flipped_runs, jump_to, mode_color, plot_ui};
pub use plot_legend::{IDENTICAL_TOLERANCE, LegendEntry, identical, legend_entries};
pub use region_view::{
    FRONT_BIAS, MIN_VISIBLE, RegionView, candidate_angles, cut_depth_at, pick_region_view,
};
pub use shortcuts::{frame_selection, mirror_selection, shortcuts};
pub use twist::{
    DEFAULT_TWIST_COUNT, HelperFigures, HelperFit, TwistBuild, TwistJointRow, TwistRequests,
    TwistState, twist_ui,
};
pub use viewport::{SkeletonPose, Status, ViewRect, view_rects, viewport_ui};

use crate::render::DebugView;
use crate::skin::SkinningMode;

/// How the viewport shows the two skinning methods.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ViewMode {
    /// One view in the chosen mode.
    #[default]
    Single,
    /// Two to four modes side by side (LBS | DQS by default), one shared camera.
    Split,
    /// The chosen mode solid, the other one as a wireframe ghost.
    Overlay,
}

impl ViewMode {
    /// Every view mode, in display order.
    pub const ALL: [Self; 3] = [Self::Single, Self::Split, Self::Overlay];

    /// Lower-case name, as on the command line.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Single => "single",
            Self::Split => "split",
            Self::Overlay => "overlay",
        }
    }

    /// Parses a name as printed by [`ViewMode::name`] (case-insensitive).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(name))
    }
}

/// The mode drawn as the ghost in overlay view: the other classic method.
#[must_use]
pub fn ghost_mode(mode: SkinningMode) -> SkinningMode {
    match mode {
        SkinningMode::Dqs => SkinningMode::Lbs,
        SkinningMode::Lbs
        | SkinningMode::Hybrid
        | SkinningMode::Cor
        | SkinningMode::Ddm
        | SkinningMode::Dm => SkinningMode::Dqs,
    }
}

/// Skinning mode, hybrid blend and view layout.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SkinningSettings {
    /// The mode of the single view and of the solid mesh in overlay view.
    pub mode: SkinningMode,
    /// Strength of the hybrid's per-vertex betas, in [0, 1]: 1 shows the map as stored (the
    /// default), 0 is LBS everywhere; shown beside the hybrid pane's label when not 1.
    pub beta: f32,
    /// One beta for every vertex instead of the map or flags (`--beta B`), when set.
    pub uniform_beta: Option<f32>,
    /// Single, split or overlay.
    pub view: ViewMode,
    /// What the mesh is coloured by (shaded, weights, displacement, collapse, ...).
    pub shading: DebugView,
    /// Copies of the model drawn (1 to [`MAX_CROWD`]); above 1 through the compute crowd path.
    pub crowd: u32,
    /// Split view: which modes get a pane, in [`SkinningMode::ALL`] order (LBS, DQS, hybrid,
    /// CoR, DDM), then "LBS + twist joints" ([`TWIST_PANE`]).
    pub panes: [bool; MAX_PANES],
    /// DQS bulge compensation in [0, 1] (0: plain DQS), posed on the CPU.
    pub bulge_compensation: f32,
    /// How the displacement and collapse views choose their colour range.
    pub heat_range: HeatRangeMode,
}

impl SkinningSettings {
    /// Whether `mode` is wanted on screen: the single view's mode, or a pane of the split view.
    #[must_use]
    pub fn shows(&self, mode: SkinningMode) -> bool {
        self.mode == mode || (self.view == ViewMode::Split && self.panes[mode.index()])
    }
}

/// Most panes of the split view: one per skinning mode, and "LBS + twist joints".
pub const MAX_PANES: usize = SkinningMode::ALL.len() + 1;
/// The split view's "LBS + twist joints" pane: the model with the Twist joints section's
/// roll joints, skinned by LBS.
pub const TWIST_PANE: usize = SkinningMode::ALL.len();

/// Panes of `split`: LBS | DQS.
pub const SPLIT_PANES: [bool; MAX_PANES] = [true, true, false, false, false, false, false];
/// Panes of `split3`: LBS | DQS | CoR.
pub const SPLIT3_PANES: [bool; MAX_PANES] = [true, true, false, true, false, false, false];
/// Panes of `split4`: LBS | DQS | hybrid | CoR.
pub const SPLIT4_PANES: [bool; MAX_PANES] = [true, true, true, true, false, false, false];

/// Parses a `--view` name: single, split, split3 (LBS | DQS | CoR), split4 (LBS | DQS | hybrid
/// | CoR), overlay, or a split of the modes in a comma list (`lbs,dqs,ddm,cor`), with its panes.
#[must_use]
pub fn parse_view(name: &str) -> Option<(ViewMode, [bool; MAX_PANES])> {
    if name.contains(',') {
        let mut panes = [false; MAX_PANES];
        for mode in name.split(',') {
            let mode = SkinningMode::from_name(mode.trim())?;
            panes[mode.index()] = true;
        }
        return (panes.iter().filter(|&&p| p).count() >= 2).then_some((ViewMode::Split, panes));
    }
    if name.eq_ignore_ascii_case("split3") {
        return Some((ViewMode::Split, SPLIT3_PANES));
    }
    if name.eq_ignore_ascii_case("split4") {
        return Some((ViewMode::Split, SPLIT4_PANES));
    }
    ViewMode::from_name(name).map(|v| (v, SPLIT_PANES))
}

impl Default for SkinningSettings {
    fn default() -> Self {
        Self {
            mode: SkinningMode::Dqs,
            beta: 1.0,
            uniform_beta: None,
            view: ViewMode::Single,
            shading: DebugView::Shaded,
            crowd: 1,
            panes: SPLIT_PANES,
            bulge_compensation: 0.0,
            heat_range: HeatRangeMode::Auto,
        }
    }
}

/// Overlays and debug drawing toggles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DisplaySettings {
    /// Bones as lines and joints as dots, on top of the mesh.
    pub skeleton: bool,
    /// A ground grid at the model's feet.
    pub grid: bool,
    /// Mesh edges over the shaded surface.
    pub wireframe: bool,
    /// The ratio plot under the viewport.
    pub plot: bool,
}

impl Default for DisplaySettings {
    fn default() -> Self {
        Self {
            skeleton: true,
            grid: true,
            wireframe: false,
            plot: true,
        }
    }
}

/// One-shot requests from the panel that `app` carries out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Requests {
    /// Show the file dialog to open a model.
    pub open_dialog: bool,
    /// Fit the camera to the model.
    pub frame_model: bool,
    /// Fit the camera to the region this joint (node) moves.
    pub frame_joint: Option<usize>,
    /// Save the window's next frame as a PNG (the app asks where).
    pub save_image: bool,
    /// Open this model from File > Recent.
    pub open_recent: Option<String>,
    /// The file dialog's answer: what the file is for and where it is.
    pub picked: Option<(DialogPurpose, std::path::PathBuf)>,
}

/// Everything the panels and the viewport show and change.
#[derive(Clone, Debug, Default)]
pub struct ViewerState {
    /// Mode, beta and view layout.
    pub skinning: SkinningSettings,
    /// Clip and time.
    pub playback: Playback,
    /// Joint selection and overrides.
    pub joints: JointsState,
    /// Per-joint DQS flags for hybrid skinning.
    pub hybrid: HybridState,
    /// The ratio plot, flips and warnings.
    pub inspect: InspectState,
    /// Overlay toggles.
    pub display: DisplaySettings,
    /// The shared camera.
    pub camera: OrbitCamera,
    /// The box a whole-model Frame fits (every drawn instance; set by the app).
    pub framed_bounds: Option<(glam::Vec3, glam::Vec3)>,
    /// Facts of the loaded model.
    pub facts: ModelFacts,
    /// Clips of the loaded model: (name, duration in seconds).
    pub clips: Vec<(String, f32)>,
    /// Joint trees, one per skin.
    pub trees: Vec<JointTree>,
    /// Mesh nodes with morph targets and their current weights.
    pub morphs: MorphsState,
    /// The last error (a file that failed to load), shown until dismissed.
    pub error: Option<String>,
    /// Frame rate, timings and adapter for the status line.
    pub status: Status,
    /// What the user asked `app` to do.
    pub requests: Requests,
    /// The CoR precompute's progress and buttons.
    pub cor: CorState,
    /// Direct Delta Mush's parameters and precompute.
    pub ddm: DdmState,
    /// Delta Mush's parameters.
    pub dm: DmState,
    /// File > Recent: the last models opened or saved from the viewer, most recent first.
    pub recent: Vec<String>,
    /// The in-window file dialog, while it is up.
    pub file_dialog: Option<FileDialog>,
    /// Follow joint: the camera keeps the selected joint's region in view as it moves.
    pub follow: FollowState,
    /// The model's diagonal and the file's units, for lengths in legends (set by the app).
    pub length_scale: Option<crate::analysis::LengthScale>,
    /// Where each joint of the shown skin was drawn this frame: (node, window point), per view.
    pub projected_joints: Vec<(usize, glam::Vec2)>,
    /// The blend-map brush.
    pub paint: PaintState,
    /// The heatmap view's quantity and range on screen (set by the app each frame).
    pub heat_shown: Option<(crate::analysis::HeatQuantity, crate::analysis::HeatRange)>,
    /// The Twist joints section and its preview rig.
    pub twist: TwistState,
}

/// The left panel: file, skinning, display, animation, joints and model facts.
pub fn panel_ui(ui: &mut egui::Ui, state: &mut ViewerState) {
    egui::ScrollArea::vertical().show(ui, |ui| {
        ui.heading("dqview");
        ui.horizontal(|ui| {
            let open = ui.button("Open…");
            probe::record(ui, "open model", open.rect);
            if open.clicked() {
                state.requests.open_dialog = true;
            }
            if ui
                .button("Save image")
                .on_hover_text("the window as you see it (panes, labels, legend) as a PNG")
                .clicked()
            {
                state.requests.save_image = true;
            }
            if ui
                .button("Frame (F)")
                .on_hover_text("frame the selected joint's region, or the model")
                .clicked()
            {
                frame_selection(state);
            }

            ui.add_enabled_ui(!state.recent.is_empty(), |ui| {
                ui.menu_button("Recent", |ui| {
                    for model in &state.recent {
                        if ui.button(model).clicked() {
                            state.requests.open_recent = Some(model.clone());
                        }
                    }
                });
            });
        });
        ui.label(egui::RichText::new(&state.facts.source).small());
        if let Some(error) = state.error.clone() {
            ui.colored_label(egui::Color32::from_rgb(255, 110, 100), error);
            if ui.small_button("dismiss").clicked() {
                state.error = None;
            }
        }
        ui.separator();
        egui::CollapsingHeader::new("Skinning")
            .default_open(true)
            .show(ui, |ui| {
                skinning_ui(ui, &mut state.skinning, &mut state.display);
                if state.skinning.shading.heat_quantity().is_some() {
                    heat_range_ui(ui, &mut state.skinning.heat_range, state.heat_shown);
                }
                if state.skinning.mode == SkinningMode::Cor {
                    cor_ui(ui, &mut state.cor);
                }
                if state.skinning.shows(SkinningMode::Ddm) {
                    egui::CollapsingHeader::new("Direct Delta Mush")
                        .default_open(true)
                        .show(ui, |ui| ddm_ui(ui, &mut state.ddm));
                }
                if state.skinning.shows(SkinningMode::Dm) {
                    egui::CollapsingHeader::new("Delta Mush")
                        .default_open(true)
                        .show(ui, |ui| dm_ui(ui, &mut state.dm));
                }
            });
        // P opens the section along with paint mode; otherwise it stays as the user left it.
        let open = std::mem::take(&mut state.paint.reveal).then_some(true);
        egui::CollapsingHeader::new("Paint DQS blend")
            .default_open(state.paint.enabled)
            .open(open)
            .show(ui, |ui| paint_ui(ui, &mut state.paint));
        egui::CollapsingHeader::new("Animation")
            .default_open(true)
            .show(ui, |ui| playback_ui(ui, &mut state.playback, &state.clips));
        egui::CollapsingHeader::new("Joints")
            .default_open(true)
            .show(ui, |ui| {
                joints_ui(
                    ui,
                    &mut state.joints,
                    &state.trees,
                    &mut state.hybrid,
                    state.inspect.flips.as_ref(),
                    &mut state.requests.frame_joint,
                    &mut state.follow.enabled,
                );
            });
        // Below the joints: it acts on the selected joint, and keeps the sliders above in reach.
        add_selected_to_twist(state);
        let open = std::mem::take(&mut state.twist.reveal).then_some(true);
        egui::CollapsingHeader::new("Helper joints")
            .default_open(false)
            .open(open)
            .show(ui, |ui| twist_section(ui, state));
        if !state.morphs.nodes.is_empty() {
            egui::CollapsingHeader::new("Morph targets")
                .default_open(true)
                .show(ui, |ui| {
                    morphs_ui(ui, &state.morphs, &mut state.joints.overrides)
                });
        }
        egui::CollapsingHeader::new("Model")
            .default_open(true)
            .show(ui, |ui| facts_ui(ui, &state.facts));
    });
    dialog_ui(ui.ctx(), state);
}

/// The file dialog, while it is up: its answer goes to `requests.picked` and closes it.
fn dialog_ui(ctx: &egui::Context, state: &mut ViewerState) {
    let Some(dialog) = state.file_dialog.as_mut() else {
        return;
    };
    match file_dialog_ui(ctx, dialog) {
        DialogOutcome::Open => {}
        DialogOutcome::Picked(path) => {
            state.requests.picked = Some((dialog.purpose, path));
            state.file_dialog = None;
        }
        DialogOutcome::Cancelled => state.file_dialog = None,
    }
}

/// The hybrid's strength (1: the map as stored) and an optional uniform beta.
fn hybrid_betas_ui(ui: &mut egui::Ui, s: &mut SkinningSettings) {
    let hybrid = s.mode == SkinningMode::Hybrid || (s.view == ViewMode::Split && s.panes[2]);
    ui.add_enabled(
        hybrid && s.uniform_beta.is_none(),
        egui::Slider::new(&mut s.beta, 0.0..=1.0).text("map strength"),
    )
    .on_hover_text(
        "Hybrid: per vertex, the painted map, else the file's _DQS_BLEND as stored, else the \
         summed weight of the joints flagged DQS in the joint tree; times this strength \
         (1: as stored). 0 is LBS, 1 is DQS",
    );
    // Only where a hybrid is shown: the row would take panel height for nothing elsewhere
    // (the selected joint's sliders must stay in reach in a 600-point window).
    if !hybrid {
        return;
    }
    ui.horizontal(|ui| {
        let mut uniform = s.uniform_beta.is_some();
        if ui
            .add_enabled(
                hybrid,
                egui::Checkbox::new(&mut uniform, "one beta for all"),
            )
            .on_hover_text("One beta for every vertex over any map or flags (--beta B)")
            .changed()
        {
            s.uniform_beta = uniform.then_some(0.5);
        }
        if let Some(b) = s.uniform_beta.as_mut() {
            ui.add_enabled(hybrid, egui::Slider::new(b, 0.0..=1.0));
        }
    });
}

/// The text beside the hybrid pane's label: the uniform beta or a strength other than 1.
#[must_use]
pub fn hybrid_label_note(s: &SkinningSettings) -> Option<String> {
    match s.uniform_beta {
        Some(b) => Some(format!("uniform beta {b:.2}")),
        None if s.beta != 1.0 => Some(format!("map strength {:.2}", s.beta)),
        None => None,
    }
}

/// The Skinning section: mode, hybrid beta, view layout and overlay toggles.
pub fn skinning_ui(ui: &mut egui::Ui, s: &mut SkinningSettings, d: &mut DisplaySettings) {
    ui.horizontal(|ui| {
        ui.selectable_value(&mut s.mode, SkinningMode::Lbs, "LBS");
        ui.selectable_value(&mut s.mode, SkinningMode::Dqs, "DQS");
        ui.selectable_value(&mut s.mode, SkinningMode::Hybrid, "Hybrid");
        ui.selectable_value(&mut s.mode, SkinningMode::Cor, "CoR");
        ui.selectable_value(&mut s.mode, SkinningMode::Ddm, "DDM");
        ui.selectable_value(&mut s.mode, SkinningMode::Dm, "DM");
    });
    hybrid_betas_ui(ui, s);
    ui.horizontal(|ui| {
        ui.label("view");
        for view in ViewMode::ALL {
            let r = ui.selectable_value(&mut s.view, view, view.name());
            probe::record(ui, &format!("view {}", view.name()), r.rect);
        }
    });
    let dqs_shown = s.mode == SkinningMode::Dqs || (s.view == ViewMode::Split && s.panes[1]);
    ui.add_enabled(
        dqs_shown && s.crowd <= 1,
        egui::Slider::new(&mut s.bulge_compensation, 0.0..=1.0).text("DQS bulge fix"),
    )
    .on_hover_text(
        "pull DQS's bend outside back to its rest distance from the limb axis (CPU-posed)",
    );
    // Always laid out (disabled outside split view), so rows below never move under the cursor.
    ui.add_enabled_ui(s.view == ViewMode::Split, |ui| {
        ui.horizontal(|ui| {
            ui.label("panes");
            for (mode, on) in SkinningMode::ALL.into_iter().zip(&mut s.panes) {
                ui.checkbox(on, mode.short_label());
            }
            ui.checkbox(&mut s.panes[TWIST_PANE], "LBS+helpers")
                .on_hover_text("LBS of the model with the Helper joints section's helpers");
        })
        .response
        .on_hover_text("split view: the modes shown side by side (at least two)");
    });
    egui::ComboBox::from_label("shading")
        .selected_text(s.shading.name())
        .show_ui(ui, |ui| {
            for v in DebugView::ALL {
                ui.selectable_value(&mut s.shading, v, v.name());
            }
        });
    if s.shading != DebugView::Shaded && s.shading.heat_quantity().is_none() {
        // The legend: what the colours mean (heatmaps have their colour bar and range row).
        ui.small(s.shading.legend());
    }
    crowd_ui(ui, &mut s.crowd);
    ui.horizontal(|ui| {
        for (on, name) in [
            (&mut d.plot, "plot"),
            (&mut d.skeleton, "skeleton"),
            (&mut d.grid, "grid"),
            (&mut d.wireframe, "wireframe"),
        ] {
            let r = ui.checkbox(on, name);
            probe::record(ui, name, r.rect);
        }
    });
}

/// The selected joint's tree row, if any.
fn selected_row(state: &ViewerState) -> Option<&JointRow> {
    let node = state.joints.selected?;
    let tree = state.trees.get(state.joints.skin)?;
    tree.rows.iter().find(|r| r.node == node)
}

/// Adds the selected joint to the Twist joints list when the section's `add` button or the
/// Joints section's "add to twist joints" asked, and opens the section.
fn add_selected_to_twist(state: &mut ViewerState) {
    let from_joints = std::mem::take(&mut state.joints.add_to_twist);
    let from_section = std::mem::take(&mut state.twist.requests.add_selected);
    if (from_joints || from_section)
        && let Some(row) = selected_row(state)
    {
        let (node, name) = (row.node, row.name.clone());
        state.twist.add(node, &name);
        state.twist.reveal |= from_joints;
    }
}

/// The Twist joints section, with its request that only changes the panel's state: show the
/// pane (split view, beside LBS).
fn twist_section(ui: &mut egui::Ui, state: &mut ViewerState) {
    let selected = selected_row(state).map(|r| r.name.clone());
    twist_ui(ui, &mut state.twist, selected.as_deref());
    if std::mem::take(&mut state.twist.requests.show_pane) {
        let s = &mut state.skinning;
        if s.view != ViewMode::Split {
            s.view = ViewMode::Split;
            s.panes = [false; MAX_PANES];
        }
        s.panes[0] = true;
        s.panes[TWIST_PANE] = true;
    }
}

#[cfg(test)]
mod tests;
