//! The Morph targets section: one slider per target of every mesh node that has targets.
//!
//! A slider shows the weight in use (the clip's, or the default); dragging it
//! sets an override in [`JointOverrides::morph_weights`], which wins over the
//! clip until released with its `clip` button.

use crate::anim::{JointOverrides, Pose};
use crate::scene::Scene;

/// Slider range: glTF allows any weight, but blend shapes are authored for [0, 1].
const WEIGHT_RANGE: std::ops::RangeInclusive<f32> = -1.0..=2.0;

/// One mesh node with morph targets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MorphNode {
    /// Node index.
    pub node: usize,
    /// The node's name (and its mesh's).
    pub label: String,
    /// Target names (`target N` when the file has none).
    pub targets: Vec<String>,
    /// Weights in use at the current pose, one per target.
    pub weights: Vec<f32>,
}

/// Every mesh node with morph targets, and the weights of the current pose.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MorphsState {
    /// Mesh nodes in node order.
    pub nodes: Vec<MorphNode>,
}

impl MorphsState {
    /// The mesh nodes of `scene` with morph targets; weights from `pose`.
    #[must_use]
    pub fn of_scene(scene: &Scene, pose: &Pose) -> Self {
        let mut out = Self::default();
        for (n, node) in scene.nodes.iter().enumerate() {
            let Some(mesh) = node.mesh.and_then(|m| scene.meshes.get(m)) else {
                continue;
            };
            // Names come from the first primitive with targets (glTF: all have the same count).
            let Some(prim) = mesh.primitives.iter().find(|p| !p.morph_targets.is_empty()) else {
                continue;
            };
            out.nodes.push(MorphNode {
                node: n,
                label: format!("{} ({})", node.name, mesh.name),
                targets: prim
                    .morph_targets
                    .iter()
                    .enumerate()
                    .map(|(t, target)| {
                        if target.name.is_empty() {
                            format!("target {t}")
                        } else {
                            target.name.clone()
                        }
                    })
                    .collect(),
                weights: Vec::new(),
            });
        }
        out.update_weights(pose);
        out
    }

    /// Copies the weights of `pose` (after overrides) for display.
    pub fn update_weights(&mut self, pose: &Pose) {
        for row in &mut self.nodes {
            row.weights.clear();
            row.weights
                .extend_from_slice(pose.morph_weights_of(row.node));
            row.weights.resize(row.targets.len(), 0.0);
        }
    }
}

/// The Morph targets section: a slider per target; `clip` hands a target back to the animation.
pub fn morphs_ui(ui: &mut egui::Ui, state: &MorphsState, overrides: &mut JointOverrides) {
    if state.nodes.is_empty() {
        ui.label("no morph targets");
        return;
    }
    for row in &state.nodes {
        ui.label(egui::RichText::new(&row.label).strong());
        for (t, name) in row.targets.iter().enumerate() {
            let hand_set = overrides.morph_weight(row.node, t);
            let mut weight = hand_set.unwrap_or_else(|| row.weights.get(t).copied().unwrap_or(0.0));
            ui.horizontal(|ui| {
                let slider = egui::Slider::new(&mut weight, WEIGHT_RANGE).text(name);
                if ui.add(slider).changed() {
                    overrides.set_morph_weight(row.node, t, weight);
                }
                if hand_set.is_some() && ui.small_button("clip").clicked() {
                    overrides.clear_morph_weight(row.node, t);
                }
            });
        }
    }
    if !overrides.morph_weights.is_empty() && ui.button("Release all morph weights").clicked() {
        overrides.morph_weights.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Mesh, MorphTarget, Node, Primitive};

    fn scene() -> Scene {
        let target = |name: &str| MorphTarget {
            name: name.to_owned(),
            positions: vec![glam::Vec3::X],
            ..MorphTarget::default()
        };
        Scene {
            nodes: vec![
                Node {
                    name: "face".into(),
                    mesh: Some(0),
                    morph_weights: vec![0.0, 0.5],
                    ..Node::default()
                },
                Node {
                    name: "plain".into(),
                    mesh: Some(1),
                    ..Node::default()
                },
            ],
            roots: vec![0, 1],
            meshes: vec![
                Mesh {
                    name: "head".into(),
                    primitives: vec![Primitive {
                        positions: vec![glam::Vec3::ZERO],
                        morph_targets: vec![target("smile"), target("")],
                        ..Primitive::default()
                    }],
                    morph_weights: vec![1.0, 1.0],
                },
                Mesh {
                    name: "box".into(),
                    primitives: vec![Primitive::default()],
                    morph_weights: Vec::new(),
                },
            ],
            ..Scene::default()
        }
    }

    #[test]
    fn lists_nodes_with_targets_and_their_weights() {
        let scene = scene();
        let mut pose = Pose::rest(&scene);
        let state = MorphsState::of_scene(&scene, &pose);
        assert_eq!(state.nodes.len(), 1, "the box has no targets");
        let row = &state.nodes[0];
        assert_eq!(row.targets, vec!["smile".to_owned(), "target 1".to_owned()]);
        // The node's weights win over the mesh's.
        assert_eq!(row.weights, vec![0.0, 0.5]);
        let mut overrides = JointOverrides::new();
        overrides.set_morph_weight(0, 0, 0.25);
        pose.sample(&scene, None, 0.0, &overrides);
        let mut state = state;
        state.update_weights(&pose);
        assert_eq!(state.nodes[0].weights, vec![0.25, 0.5]);
    }
}
