//! The Helper joints section of the panel: the joints to fix and their counts, the
//! "LBS + helpers" pane, the fitted figures, and Save; `app` builds the rig and reports back here.

use super::probe;

/// Roll joints per family a newly added joint gets (`dqview twist-joints --count`'s default).
pub const DEFAULT_TWIST_COUNT: usize = crate::twist_joints::DEFAULT_COUNT;

/// One joint to fix, as `--joint JOINT=N` takes it: both ends of its bone get roll joints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TwistJointRow {
    /// Node index of the joint.
    pub node: usize,
    /// Node name, as shown.
    pub name: String,
    /// Roll joints per family (1 to [`crate::twist_joints::MAX_COUNT`]).
    pub count: usize,
}

/// One chosen junction's figures at poses the fit never saw: the region's mean vertex distance
/// from CoR over the rest diagonal, as (LBS, LBS + helpers, DQS).
#[derive(Clone, Debug, PartialEq)]
pub struct HelperFigures {
    /// The junction joint's name.
    pub name: String,
    /// Helpers per family.
    pub count: usize,
    /// Twisted 170 degrees at rest.
    pub twist: [f64; 3],
    /// Bent 120 degrees at rest in its main bending plane.
    pub bend: [f64; 3],
    /// Averaged over the held-out clip keys (`None`: no clip moves it).
    pub clips: Option<[f64; 3]>,
}

/// What the weight fit did, for the panel.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HelperFit {
    /// Vertices whose weights were fitted.
    pub vertices: usize,
    /// Poses fitted over.
    pub poses: usize,
    /// RMS distance from CoR over those poses before the fit, over the rest diagonal.
    pub rms_before: f64,
    /// After.
    pub rms_after: f64,
}

/// Where the preview rig stands (written by `app`).
#[derive(Clone, Debug, Default, PartialEq)]
pub enum TwistBuild {
    /// No joints chosen, or the pane is not shown.
    #[default]
    Idle,
    /// The rig is being built on a background thread.
    Building,
    /// The pane shows this rig.
    Ready {
        /// Roll joints added (nodes), as written.
        roll_joints: usize,
        /// Junctions fixed.
        junctions: usize,
        /// Clips baked, of the model's clips.
        baked_clips: usize,
        /// The weight fit.
        fit: HelperFit,
        /// Per junction with a region, its figures at held-out poses.
        figures: Vec<HelperFigures>,
    },
    /// Why the rig could not be built.
    Failed(String),
}

/// One-shot requests of the section.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TwistRequests {
    /// Add the selected joint to the list.
    pub add_selected: bool,
    /// Show the "LBS + helpers" pane (split view beside LBS).
    pub show_pane: bool,
    /// Write the previewed rig through the save dialog.
    pub save: bool,
}

/// The Helper joints section's state.
#[derive(Clone, Debug, PartialEq)]
pub struct TwistState {
    /// The joints to fix, in the order added.
    pub joints: Vec<TwistJointRow>,
    /// Most influences per vertex written: 4 (JOINTS_0) or 8 (JOINTS_0 and JOINTS_1).
    pub max_influences: usize,
    /// The preview rig's state.
    pub build: TwistBuild,
    /// The last save's outcome.
    pub message: Option<String>,
    /// Requests `app` carries out.
    pub requests: TwistRequests,
    /// Open the section next frame (a joint was just added from the Joints section).
    pub reveal: bool,
}

impl Default for TwistState {
    fn default() -> Self {
        Self {
            joints: Vec::new(),
            max_influences: 4,
            build: TwistBuild::Idle,
            message: None,
            requests: TwistRequests::default(),
            reveal: false,
        }
    }
}

impl TwistState {
    /// The joints as (node, count) pairs, as `twist_joints::bone_requests` takes them.
    #[must_use]
    pub fn chosen(&self) -> Vec<(usize, usize)> {
        self.joints.iter().map(|r| (r.node, r.count)).collect()
    }

    /// Adds `node` (named `name`) with the default count, unless it is listed already.
    pub fn add(&mut self, node: usize, name: &str) {
        if !self.joints.iter().any(|r| r.node == node) {
            self.joints.push(TwistJointRow {
                node,
                name: name.to_owned(),
                count: DEFAULT_TWIST_COUNT,
            });
        }
    }

    /// The note beside the pane's label: what the pane shows while no rig is ready.
    #[must_use]
    pub fn pane_note(&self) -> Option<&'static str> {
        match self.build {
            TwistBuild::Ready { .. } => None,
            TwistBuild::Building => Some("building…"),
            TwistBuild::Failed(_) => Some("failed (showing the input)"),
            TwistBuild::Idle if self.joints.is_empty() => Some("no joints chosen (the input)"),
            TwistBuild::Idle => Some("the input"),
        }
    }
}

/// A button that scripts can probe; true when clicked.
fn probed_button(ui: &mut egui::Ui, enabled: bool, label: &str, hover: &str) -> bool {
    let r = ui.add_enabled(enabled, egui::Button::new(label));
    probe::record(ui, label, r.rect);
    r.on_hover_text(hover).clicked()
}

/// Shows the section: the joint list with counts, max influences, the pane and Save buttons.
pub fn twist_ui(ui: &mut egui::Ui, t: &mut TwistState, selected: Option<&str>) {
    let hover = "twist and bend helper joints along the selected joint's bone (both ends), as \
                 `dqview helper-joints --joint JOINT` adds them";
    let add_label = match selected {
        Some(name) => format!("add {name}"),
        None => "add the selected joint".to_owned(),
    };
    let add = ui.add_enabled(selected.is_some(), egui::Button::new(add_label));
    probe::record(ui, "twist add", add.rect);
    t.requests.add_selected |= add.on_hover_text(hover).clicked();
    let mut remove = None;
    for (i, row) in t.joints.iter_mut().enumerate() {
        ui.horizontal(|ui| {
            ui.label(&row.name);
            let count = ui.add(
                egui::DragValue::new(&mut row.count)
                    .range(1..=crate::twist_joints::MAX_COUNT)
                    .suffix(" per family"),
            );
            probe::record(ui, &format!("twist count {}", row.name), count.rect);
            if ui
                .small_button("×")
                .on_hover_text("drop this joint")
                .clicked()
            {
                remove = Some(i);
            }
        });
    }
    if let Some(i) = remove {
        t.joints.remove(i);
    }
    ui.horizontal(|ui| {
        ui.label("max influences");
        ui.selectable_value(&mut t.max_influences, 4, "4")
            .on_hover_text("JOINTS_0 only: what stock three.js and Unity's default read");
        ui.selectable_value(&mut t.max_influences, 8, "8")
            .on_hover_text("JOINTS_0 and JOINTS_1");
    });
    let ready = matches!(t.build, TwistBuild::Ready { .. });
    ui.horizontal(|ui| {
        t.requests.show_pane |= probed_button(
            ui,
            !t.joints.is_empty(),
            "helper preview",
            "split view with an \"LBS + helpers\" pane beside LBS",
        );
        t.requests.save |= probed_button(
            ui,
            ready,
            "Save helper rig",
            "write the model with these helper joints, fitted weights, baked clips and \
             VRMC_node_constraint rules (a .glb/.vrm for a binary file, a .gltf for a JSON one)",
        );
    });
    match &t.build {
        TwistBuild::Idle => {}
        TwistBuild::Building => {
            ui.small("building the rig…");
        }
        TwistBuild::Ready {
            roll_joints,
            junctions,
            baked_clips,
            fit,
            figures,
        } => {
            ui.small(format!(
                "{roll_joints} nodes added at {junctions} junctions; {baked_clips} clips baked"
            ));
            figures_ui(ui, fit, figures);
        }
        TwistBuild::Failed(e) => {
            ui.colored_label(egui::Color32::from_rgb(255, 110, 100), e);
        }
    }
    if let Some(m) = &t.message {
        ui.small(m);
    }
}

/// `d` (a share of the diagonal) as a percentage with 3 decimals.
fn percent(d: f64) -> String {
    format!("{:.3}%", 100.0 * d)
}

/// One cell: LBS -> LBS + helpers, and DQS beside.
fn figure_cell(d: &[f64; 3]) -> String {
    format!(
        "{} -> {} (DQS {})",
        percent(d[0]),
        percent(d[1]),
        percent(d[2])
    )
}

/// The fit's summary and, per junction, its mean distance from CoR at poses the fit never saw.
fn figures_ui(ui: &mut egui::Ui, fit: &HelperFit, figures: &[HelperFigures]) {
    ui.small(format!(
        "weights of {} vertices fitted to CoR over {} poses: RMS distance from it {} -> {} of the diagonal",
        fit.vertices,
        fit.poses,
        percent(fit.rms_before),
        percent(fit.rms_after)
    ));
    if figures.is_empty() {
        return;
    }
    ui.small("mean distance from CoR at poses the fit never saw: LBS -> LBS + helpers (DQS)");
    // Wrapped lines, not a grid: the figures must not widen the panel (and move the panes).
    for f in figures {
        let clips = f
            .clips
            .as_ref()
            .map_or_else(|| "no clip moves it".into(), figure_cell);
        ui.small(format!(
            "{} (N = {}): twisted 170°: {}; bent 120°: {}; held-out clip keys: {clips}",
            f.name,
            f.count,
            figure_cell(&f.twist),
            figure_cell(&f.bend)
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joints_are_listed_once_with_the_default_count() {
        let mut t = TwistState::default();
        t.add(7, "LowerArm.L");
        t.add(7, "LowerArm.L");
        t.add(3, "UpperArm.L");
        assert_eq!(t.chosen(), vec![(7, 2), (3, 2)]);
        assert_eq!(t.pane_note(), Some("the input"));
        t.build = TwistBuild::Ready {
            roll_joints: 8,
            junctions: 2,
            baked_clips: 0,
            fit: HelperFit::default(),
            figures: Vec::new(),
        };
        assert_eq!(t.pane_note(), None);
        assert_eq!(TwistState::default().max_influences, 4);
    }
}
