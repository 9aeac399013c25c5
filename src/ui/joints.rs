//! The joint tree of a skin, joint selection, picking, and twist/bend/roll overrides.

use glam::Vec2;

use super::flip::flip_strip_ui;
use crate::analysis::TwistFlips;
use crate::anim::{JointAngles, JointOverrides};
use crate::scene::Scene;
use crate::skin::HybridFlags;

/// Pixels from a projected joint within which a click selects it.
pub const PICK_RADIUS_PX: f32 = 10.0;

/// One row of a joint tree, in depth-first order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JointRow {
    /// Node index of the joint.
    pub node: usize,
    /// Index of the joint in its skin's joint list.
    pub index: usize,
    /// Node name.
    pub name: String,
    /// The joint's VRM humanoid bone name (`leftLowerArm`), when the file maps one to it.
    pub humanoid: Option<String>,
    /// Depth below the skin's root joints (0 for roots).
    pub depth: usize,
    /// Node index of the nearest ancestor that is a joint of the same skin.
    pub parent: Option<usize>,
}

impl JointRow {
    /// The row's text: the node name, with the humanoid bone name after it (`J_Bip_L_LowerArm (leftLowerArm)`).
    #[must_use]
    pub fn label(&self) -> String {
        match &self.humanoid {
            Some(bone) if *bone != self.name => format!("{} ({bone})", self.name),
            _ => self.name.clone(),
        }
    }
}

/// A skin's joints as an indented, depth-first list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JointTree {
    /// The skin's name.
    pub skin_name: String,
    /// Rows, parents before children.
    pub rows: Vec<JointRow>,
}

impl JointTree {
    /// The tree of skin `skin`; a joint's parent is its nearest ancestor in the skin.
    #[must_use]
    pub fn of_skin(scene: &Scene, skin: usize) -> Self {
        let Some(s) = scene.skins.get(skin) else {
            return Self::default();
        };
        let joints = &s.joints;
        let joint_parent = |j: usize| {
            let mut p = scene.nodes.get(j).and_then(|n| n.parent);
            // The hop limit guards against cycles in malformed files.
            for _ in 0..=scene.nodes.len() {
                match p {
                    Some(n) if !joints.contains(&n) => {
                        p = scene.nodes.get(n).and_then(|n| n.parent);
                    }
                    _ => break,
                }
            }
            p.filter(|n| joints.contains(n))
        };
        let parents: Vec<Option<usize>> = joints.iter().map(|&j| joint_parent(j)).collect();
        let mut rows = Vec::with_capacity(joints.len());
        let mut stack: Vec<(usize, usize)> = joints
            .iter()
            .zip(&parents)
            .filter(|(_, p)| p.is_none())
            .map(|(&j, _)| (j, 0))
            .rev()
            .collect();
        while let Some((node, depth)) = stack.pop() {
            if rows.iter().any(|r: &JointRow| r.node == node) || depth > joints.len() {
                continue;
            }
            rows.push(JointRow {
                node,
                index: joints.iter().position(|&j| j == node).unwrap_or(0),
                name: scene
                    .nodes
                    .get(node)
                    .map_or_else(|| format!("node {node}"), |n| n.name.clone()),
                humanoid: crate::scene::names::humanoid_name(scene, node).map(str::to_owned),
                depth,
                parent: joint_parent(node),
            });
            stack.extend(
                joints
                    .iter()
                    .zip(&parents)
                    .filter(|(_, p)| **p == Some(node))
                    .map(|(&c, _)| (c, depth + 1))
                    .rev(),
            );
        }
        Self {
            skin_name: s.name.clone(),
            rows,
        }
    }
}

impl JointTree {
    /// Indices of the rows shown when the joints in `collapsed` have their subtrees folded.
    #[must_use]
    pub fn visible_rows(&self, collapsed: &std::collections::BTreeSet<usize>) -> Vec<usize> {
        let mut out = Vec::with_capacity(self.rows.len());
        // Rows deeper than this belong to a folded subtree (depth-first order).
        let mut hidden_below: Option<usize> = None;
        for (i, row) in self.rows.iter().enumerate() {
            if hidden_below.is_some_and(|d| row.depth > d) {
                continue;
            }
            hidden_below = collapsed.contains(&row.node).then_some(row.depth);
            out.push(i);
        }
        out
    }

    /// Whether row `i` has child rows.
    #[must_use]
    pub fn has_children(&self, i: usize) -> bool {
        match (self.rows.get(i), self.rows.get(i + 1)) {
            (Some(row), Some(next)) => next.depth > row.depth,
            _ => false,
        }
    }
}

/// Joint selection and angle overrides of the viewer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JointsState {
    /// Which skin's tree is shown.
    pub skin: usize,
    /// Selected joint (node index).
    pub selected: Option<usize>,
    /// Twist/bend/roll applied on top of the animation.
    pub overrides: JointOverrides,
    /// Joints (nodes) whose subtrees are folded away in the tree.
    pub collapsed: std::collections::BTreeSet<usize>,
    /// The tree's search text (case-insensitive substring of joint names).
    pub search: String,
    /// Which search match Enter picks (an index into the matches).
    pub search_cursor: usize,
    /// Scroll the tree to the selected joint and unfold its ancestors (after a viewport pick).
    pub reveal_selected: bool,
    /// Frames spent revealing: scrolling settles over a frame or two as the layout moves.
    pub reveal_frames: u8,
    /// Set by "add to twist joints": the panel adds the selected joint to the Twist joints list.
    pub add_to_twist: bool,
}
/// Per-joint DQS flags of every skin, as the joint tree edits them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HybridState {
    /// Flags per skin (a vertex's beta is the summed weight of its flagged joints).
    pub flags: Vec<HybridFlags>,
    /// Bumped on every edit; `app` uploads new betas when it changes.
    pub revision: u64,
    /// Request from the panel: put back the default flags.
    pub reset_defaults: bool,
}

/// The node of the joint nearest to `cursor` within `radius` pixels, if any.
///
/// `joints` are (node, projected position in the same pixel space as `cursor`).
#[must_use]
pub fn pick_joint(joints: &[(usize, Vec2)], cursor: Vec2, radius: f32) -> Option<usize> {
    joints
        .iter()
        .map(|&(node, p)| (node, p.distance_squared(cursor)))
        .filter(|&(_, d2)| d2.is_finite() && d2 <= radius * radius)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(node, _)| node)
}

/// The Joints section: skin choice, the selected joint's sliders first (so a small window
/// shows them without scrolling), the search field, the tree with DQS flags, resets.
///
/// Double-clicking a row (or the frame button) asks `app` to frame that joint (`frame_joint`);
/// `follow` is the follow-joint toggle beside it.
pub fn joints_ui(
    ui: &mut egui::Ui,
    state: &mut JointsState,
    trees: &[JointTree],
    hybrid: &mut HybridState,
    flips: Option<&TwistFlips>,
    frame_joint: &mut Option<usize>,
    follow: &mut bool,
) {
    if trees.is_empty() {
        ui.label("no skins");
        return;
    }
    if trees.len() > 1 {
        let current = trees.get(state.skin).map_or("", |t| t.skin_name.as_str());
        egui::ComboBox::from_label("skin")
            .selected_text(current.to_owned())
            .show_ui(ui, |ui| {
                for (i, t) in trees.iter().enumerate() {
                    ui.selectable_value(&mut state.skin, i, &t.skin_name);
                }
            });
    }
    let Some(tree) = trees.get(state.skin) else {
        return;
    };
    selected_joint_ui(ui, state, tree, flips, frame_joint, follow);
    search_ui(ui, state, tree);
    tree_ui(ui, state, tree, hybrid, frame_joint);
    ui.horizontal(|ui| {
        ui.label("DQS flags:");
        if ui.small_button("defaults").clicked() {
            hybrid.reset_defaults = true;
        }
        for (label, value) in [("none", false), ("all", true)] {
            if ui.small_button(label).clicked()
                && let Some(f) = hybrid.flags.get_mut(state.skin)
            {
                f.dqs.iter_mut().for_each(|d| *d = value);
                hybrid.revision += 1;
            }
        }
    });
}

/// The selected joint's name, frame and mirror buttons, follow toggle, twist (with the flip strip), bend
/// and roll sliders and resets; a hint when nothing is selected.
fn selected_joint_ui(
    ui: &mut egui::Ui,
    state: &mut JointsState,
    tree: &JointTree,
    flips: Option<&TwistFlips>,
    frame_joint: &mut Option<usize>,
    follow: &mut bool,
) {
    let Some(node) = state.selected else {
        ui.label("click a joint in the tree or the viewport");
        if !state.overrides.angles.is_empty() && ui.button("reset all").clicked() {
            state.overrides.clear();
        }
        return;
    };
    let name = tree
        .rows
        .iter()
        .find(|r| r.node == node)
        .map_or_else(|| format!("node {node}"), JointRow::label);
    ui.horizontal(|ui| {
        ui.label(format!("selected: {name}"));
        if ui
            .small_button("frame")
            .on_hover_text("frame the region this joint moves (F, or double-click)")
            .clicked()
        {
            *frame_joint = Some(node);
        }
        let mirror = super::joint_search::mirror_joint(tree, node);
        if ui
            .add_enabled(mirror.is_some(), egui::Button::new("mirror").small())
            .on_hover_text("select the joint on the other side (M)")
            .clicked()
        {
            state.selected = mirror;
            state.reveal_selected = true;
        }
        let r = ui.checkbox(follow, "follow");
        super::probe::record(ui, "follow joint", r.rect);
        r.on_hover_text(
            "follow joint: keep its region where it is on screen while a clip plays or the joint moves (on after Frame, off when you orbit or pan)",
        );
    });
    let mut a: JointAngles = state.overrides.get(node);
    let mut changed = false;
    for (k, (value, label)) in [
        (&mut a.twist_deg, "twist °"),
        (&mut a.bend_deg, "bend °"),
        (&mut a.roll_deg, "roll °"),
    ]
    .into_iter()
    .enumerate()
    {
        let response = ui.add(egui::Slider::new(value, -360.0..=360.0).text(label));
        super::probe::record(ui, label, response.rect);
        changed |= response.changed();
        if k == 0
            && let Some(f) = flips.filter(|f| f.joint == node)
        {
            flip_strip_ui(ui, &response, f, *value);
        }
    }
    if changed {
        state.overrides.set(node, a);
    }
    ui.horizontal(|ui| {
        let joint = ui.button("reset joint");
        super::probe::record(ui, "reset joint", joint.rect);
        if joint.clicked() {
            state.overrides.set(node, JointAngles::default());
        }
        if ui.button("reset all").clicked() {
            state.overrides.clear();
        }
        let twist = ui.button("add to helper joints");
        super::probe::record(ui, "twist add selected", twist.rect);
        state.add_to_twist |= twist
            .on_hover_text(
                "twist and bend helpers along this joint's bone (both ends), in the Helper joints \
                 section, as `dqview helper-joints --joint JOINT` adds them",
            )
            .clicked();
    });
}

/// The search field: typing filters the tree; Up/Down move between matches, Enter picks one.
fn search_ui(ui: &mut egui::Ui, state: &mut JointsState, tree: &JointTree) {
    let id = ui.make_persistent_id("joint search");
    // Up and Down move between matches: taken before the text field would move its cursor.
    if ui.memory(|m| m.has_focus(id)) {
        ui.input_mut(|i| {
            if i.consume_key(egui::Modifiers::NONE, egui::Key::ArrowDown) {
                state.search_cursor += 1;
            }
            if i.consume_key(egui::Modifiers::NONE, egui::Key::ArrowUp) {
                state.search_cursor = state.search_cursor.saturating_sub(1);
            }
        });
    }
    let response = ui.add(
        egui::TextEdit::singleline(&mut state.search)
            .id(id)
            .hint_text("search joints")
            .desired_width(f32::INFINITY),
    );
    super::probe::record(ui, "joint search", response.rect);
    let matches = super::joint_search::matching_rows(tree, &state.search);
    if response.changed() {
        state.search_cursor = 0;
    }
    state.search_cursor = state.search_cursor.min(matches.len().saturating_sub(1));
    let enter = ui.input(|i| i.key_pressed(egui::Key::Enter));
    let picked = matches
        .get(state.search_cursor)
        .and_then(|&i| tree.rows.get(i));
    if response.lost_focus()
        && enter
        && let Some(row) = picked
    {
        state.selected = Some(row.node);
        state.reveal_selected = true;
    }
    if !state.search.trim().is_empty() {
        ui.small(format!(
            "{} of {} joints match; Up/Down, Enter picks",
            matches.len(),
            tree.rows.len()
        ));
    }
}

/// The tree: search matches with their ancestors (or every unfolded row), fold buttons, DQS
/// flags; a click selects, a double-click selects and frames.
fn tree_ui(
    ui: &mut egui::Ui,
    state: &mut JointsState,
    tree: &JointTree,
    hybrid: &mut HybridState,
    frame_joint: &mut Option<usize>,
) {
    let selected_row = state
        .selected
        .and_then(|n| tree.rows.iter().position(|r| r.node == n));
    let reveal = state.reveal_selected;
    let mut row_visible = false;
    if reveal && let Some(row) = selected_row {
        // The row and its children show: its ancestors and itself unfold.
        state.collapsed.remove(&tree.rows[row].node);
        for ancestor in super::joint_search::ancestor_rows(tree, row) {
            state.collapsed.remove(&tree.rows[ancestor].node);
        }
    }
    let matches = super::joint_search::matching_rows(tree, &state.search);
    let cursor_row = matches.get(state.search_cursor).copied();
    let shown = super::joint_search::shown_rows(tree, &state.search, &state.collapsed);
    let area = egui::ScrollArea::vertical()
        .id_salt("joint_tree")
        .max_height(220.0)
        .show(ui, |ui| {
            for i in shown {
                let Some(row) = tree.rows.get(i) else {
                    continue;
                };
                let marked = !state.overrides.get(row.node).is_zero();
                let text = format!(
                    "{}{}{}",
                    "   ".repeat(row.depth),
                    row.label(),
                    if marked { "  *" } else { "" }
                );
                let selected = state.selected == Some(row.node);
                let mut rich = egui::RichText::new(text);
                if marked {
                    rich = rich.color(egui::Color32::from_rgb(255, 190, 80));
                }
                if cursor_row == Some(i) {
                    rich = rich.underline();
                }
                ui.horizontal(|ui| {
                    fold_button(ui, state, tree, i);
                    let flag = hybrid
                        .flags
                        .get_mut(state.skin)
                        .and_then(|f| f.dqs.get_mut(row.index));
                    if let Some(flag) = flag
                        && ui
                            .checkbox(flag, "")
                            .on_hover_text("DQS flag: hybrid beta includes this joint's weight")
                            .changed()
                    {
                        hybrid.revision += 1;
                    }
                    let label = ui.selectable_label(selected, rich);
                    if selected {
                        super::probe::record(ui, "selected joint row", label.rect);
                        row_visible = ui.clip_rect().contains_rect(label.rect);
                        if reveal {
                            // No animation: the row is in view on the next frame.
                            let now = egui::style::ScrollAnimation::none();
                            label.scroll_to_me_animation(Some(egui::Align::Center), now);
                        }
                    }
                    if label.clicked() {
                        state.selected = Some(row.node);
                    }
                    if super::clicks::double_clicked(&label, egui::PointerButton::Primary) {
                        *frame_joint = Some(row.node);
                    }
                });
            }
        });
    super::probe::record(ui, "joint tree", area.inner_rect);
    // Done once the row shows in a tree that shows; a few frames at most.
    let tree_shown = ui.clip_rect().contains_rect(area.inner_rect);
    state.reveal_frames = if reveal { state.reveal_frames + 1 } else { 0 };
    if !reveal || (row_visible && tree_shown) || state.reveal_frames > 4 {
        state.reveal_selected = false;
    }
    if reveal {
        // The tree scrolled to the row above; now the panel around it shows the tree.
        let now = egui::style::ScrollAnimation::none();
        ui.scroll_to_rect_animation(area.inner_rect, Some(egui::Align::Center), now);
    }
}

/// The `-`/`+` button folding row `i`'s children, or a gap of its size for a leaf.
fn fold_button(ui: &mut egui::Ui, state: &mut JointsState, tree: &JointTree, i: usize) {
    let Some(row) = tree.rows.get(i) else {
        return;
    };
    if !tree.has_children(i) || !state.search.trim().is_empty() {
        ui.add_space(ui.spacing().interact_size.y);
        return;
    }
    let folded = state.collapsed.contains(&row.node);
    let sign = if folded { "+" } else { "-" };
    if ui
        .small_button(sign)
        .on_hover_text("fold or unfold this joint's children")
        .clicked()
        && !state.collapsed.remove(&row.node)
    {
        state.collapsed.insert(row.node);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_nearest_joint_within_the_radius() {
        let joints = [
            (3, Vec2::new(100.0, 100.0)),
            (5, Vec2::new(106.0, 100.0)),
            (7, Vec2::new(300.0, 300.0)),
        ];
        assert_eq!(pick_joint(&joints, Vec2::new(104.0, 100.0), 10.0), Some(5));
        assert_eq!(pick_joint(&joints, Vec2::new(101.0, 101.0), 10.0), Some(3));
        assert_eq!(pick_joint(&joints, Vec2::new(200.0, 200.0), 10.0), None);
        assert_eq!(pick_joint(&[], Vec2::ZERO, 10.0), None);
        let nan = [(1, Vec2::NAN)];
        assert_eq!(pick_joint(&nan, Vec2::ZERO, 10.0), None);
    }

    #[test]
    fn tree_of_builtin_twist_is_depth_first() {
        let scene = crate::model::load_model("builtin:twist").unwrap();
        let tree = JointTree::of_skin(&scene, 0);
        assert_eq!(tree.rows.len(), scene.skins[0].joints.len());
        assert_eq!(tree.rows[0].depth, 0);
        for (i, row) in tree.rows.iter().enumerate() {
            if let Some(p) = row.parent {
                let parent_row = tree.rows.iter().position(|r| r.node == p).unwrap();
                assert!(parent_row < i);
                assert_eq!(tree.rows[parent_row].depth + 1, row.depth);
            }
        }
        assert!(JointTree::of_skin(&scene, 99).rows.is_empty());
    }

    #[test]
    fn folding_a_joint_hides_its_subtree_only() {
        let scene = crate::model::load_model("builtin:arm").unwrap();
        let tree = JointTree::of_skin(&scene, 0);
        let names: Vec<&str> = tree.rows.iter().map(|r| r.name.as_str()).collect();
        let all: Vec<usize> = (0..tree.rows.len()).collect();
        let mut collapsed = std::collections::BTreeSet::new();
        assert_eq!(tree.visible_rows(&collapsed), all, "{names:?}");
        // Fold the elbow: its descendants (deeper rows right after it) disappear.
        let elbow = tree.rows.iter().position(|r| r.name == "elbow").unwrap();
        collapsed.insert(tree.rows[elbow].node);
        let shown = tree.visible_rows(&collapsed);
        assert!(shown.contains(&elbow));
        for (i, row) in tree.rows.iter().enumerate() {
            let below_elbow = i > elbow
                && tree.rows[elbow + 1..=i]
                    .iter()
                    .all(|r| r.depth > tree.rows[elbow].depth);
            assert_eq!(shown.contains(&i), !below_elbow, "row {i} {}", row.name);
        }
        assert!(tree.has_children(elbow));
        assert!(!tree.has_children(tree.rows.len() - 1));
        // Folding the root leaves the root alone.
        collapsed.insert(tree.rows[0].node);
        assert_eq!(tree.visible_rows(&collapsed), vec![0]);
    }
}
