//! The viewer's side of rig sessions: what is captured from the UI state and put back.

use std::path::PathBuf;

use super::ViewerOptions;
use super::viewer::Running;
use crate::anim::JointAngles;
use crate::render::DebugView;
use crate::scene::Scene;
use crate::scene::names;
use crate::session::{
    CameraState, JointOverrideEntry, ModelKey, MorphWeightEntry, Session, SessionStore,
};
use crate::skin::SkinningMode;
use crate::ui::{ViewMode, ViewerState};

/// The session of the model `key` as the viewer shows it now.
#[must_use]
pub fn capture(
    state: &ViewerState,
    scene: &Scene,
    key: ModelKey,
    blend_map: Option<&crate::skin::SceneBetas>,
) -> Session {
    let name = |n: usize| {
        scene
            .nodes
            .get(n)
            .map(|n| n.name.clone())
            .unwrap_or_default()
    };
    let cam = &state.camera;
    Session {
        model: key,
        camera: Some(CameraState {
            target: cam.target.to_array(),
            yaw_deg: cam.yaw.to_degrees(),
            pitch_deg: cam.pitch.to_degrees(),
            distance: cam.distance,
        }),
        mode: state.skinning.mode.name().to_owned(),
        map_strength: Some(state.skinning.beta),
        uniform_beta: state.skinning.uniform_beta,
        view: state.skinning.view.name().to_owned(),
        shading: state.skinning.shading.name().to_owned(),
        clip: state
            .playback
            .clip
            .and_then(|c| scene.animations.get(c))
            .map(|a| a.name.clone()),
        time_s: state.playback.time_s,
        playing: state.playback.playing,
        follow: state.follow.enabled,
        selected_joint: state.joints.selected.map(name),
        joint_overrides: state
            .joints
            .overrides
            .angles
            .iter()
            .filter(|(_, a)| !a.is_zero())
            .map(|(&node, a)| JointOverrideEntry {
                joint: name(node),
                node,
                twist_deg: a.twist_deg,
                bend_deg: a.bend_deg,
                roll_deg: a.roll_deg,
            })
            .collect(),
        morph_weights: state
            .joints
            .overrides
            .morph_weights
            .iter()
            .map(|(&(node, target), &weight)| MorphWeightEntry {
                node_name: name(node),
                node,
                target,
                weight,
            })
            .collect(),
        hybrid_dqs_joints: flagged_joint_names(state, scene),
        blend_map: blend_map.map(|m| m.per_primitive.clone()),
        ..Session::default()
    }
}

/// Names of the joints whose hybrid DQS flag is set, over every skin.
fn flagged_joint_names(state: &ViewerState, scene: &Scene) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (skin, flags) in scene.skins.iter().zip(&state.hybrid.flags) {
        for (&node, _) in skin.joints.iter().zip(&flags.dqs).filter(|(_, on)| **on) {
            if let Some(n) = scene.nodes.get(node)
                && !names.contains(&n.name)
            {
                names.push(n.name.clone());
            }
        }
    }
    names
}

/// Sets the hybrid DQS flags to exactly the joints named in `names` (an empty list keeps
/// the defaults the viewer chose).
fn apply_hybrid_flags(names: &[String], state: &mut ViewerState, scene: &Scene) {
    if names.is_empty() {
        return;
    }
    for (skin, flags) in scene.skins.iter().zip(&mut state.hybrid.flags) {
        for (&node, flag) in skin.joints.iter().zip(&mut flags.dqs) {
            *flag = scene
                .nodes
                .get(node)
                .is_some_and(|n| names.contains(&n.name));
        }
    }
    state.hybrid.revision += 1;
}

/// Puts `session` into the UI state; unknown names and nodes are skipped with a log line.
///
/// `durations` are the clip lengths in seconds, in clip order.
pub fn apply(session: &Session, state: &mut ViewerState, scene: &Scene, durations: &[f32]) {
    if let Some(c) = session.camera {
        // The saved view, not a fresh framing.
        state.requests.frame_model = false;
        let cam = &mut state.camera;
        cam.target = glam::Vec3::from_array(c.target);
        cam.yaw = c.yaw_deg.to_radians();
        // Stay inside the orbit camera's pitch range.
        cam.pitch = c.pitch_deg.to_radians().clamp(-1.55, 1.55);
        if c.distance.is_finite() && c.distance > 0.0 {
            cam.distance = c.distance;
        }
    }
    if let Some(mode) = SkinningMode::from_name(&session.mode) {
        state.skinning.mode = mode;
    }
    let strength = session.map_strength.unwrap_or(1.0);
    state.skinning.beta = if strength.is_finite() {
        strength.clamp(0.0, 1.0)
    } else {
        1.0
    };
    state.skinning.uniform_beta = session
        .uniform_beta
        .filter(|b| b.is_finite())
        .map(|b| b.clamp(0.0, 1.0));
    if let Some(view) = ViewMode::from_name(&session.view) {
        state.skinning.view = view;
    }
    if let Some(shading) = DebugView::from_name(&session.shading) {
        state.skinning.shading = shading;
    }
    let clip = session
        .clip
        .as_deref()
        .and_then(|c| names::clip(scene, c).ok());
    let duration = clip.and_then(|c| durations.get(c).copied()).unwrap_or(0.0);
    state.playback.select(clip, duration);
    // Paused unless it was saved playing (and there is a clip to play).
    state.playback.playing = session.playing && clip.is_some();
    if session.time_s.is_finite() {
        state.playback.time_s = session.time_s.clamp(0.0, duration);
    }
    state.follow.enabled = session.follow;
    if let Some(joint) = session.selected_joint.as_deref() {
        state.joints.selected = names::node(scene, joint)
            .ok()
            .filter(|n| scene.skins.iter().any(|s| s.joints.contains(n)));
    }
    let node_of = |name: &str, index: usize| {
        names::node(scene, name)
            .ok()
            .or_else(|| (index < scene.nodes.len()).then_some(index))
    };
    state.joints.overrides.clear();
    for e in &session.joint_overrides {
        match node_of(&e.joint, e.node) {
            Some(node) => state.joints.overrides.set(
                node,
                JointAngles {
                    twist_deg: e.twist_deg,
                    bend_deg: e.bend_deg,
                    roll_deg: e.roll_deg,
                },
            ),
            None => log::warn!("session: no joint `{}`; override skipped", e.joint),
        }
    }
    apply_hybrid_flags(&session.hybrid_dqs_joints, state, scene);
    for e in &session.morph_weights {
        match node_of(&e.node_name, e.node) {
            Some(node) => state
                .joints
                .overrides
                .set_morph_weight(node, e.target, e.weight),
            None => log::warn!("session: no mesh node `{}`; weight skipped", e.node_name),
        }
    }
}

/// Where the viewer reads and saves sessions.
#[derive(Debug, Default)]
pub struct SessionHooks {
    /// `--session FILE`: read at start, written at exit.
    explicit: Option<PathBuf>,
    /// The user's store; `None` in scripted runs, which must leave the user's files alone.
    pub(super) store: Option<SessionStore>,
    /// The key of the model shown (`None` when it could not be read).
    key: Option<ModelKey>,
    /// The model the explicit file belongs to: the one opened at start.
    explicit_key: Option<ModelKey>,
    /// Whether the start model's session has been restored.
    started: bool,
}

impl SessionHooks {
    /// The hooks for `options`: the explicit file if given, the user store for interactive runs.
    #[must_use]
    pub fn new(options: &ViewerOptions) -> Self {
        Self {
            explicit: options.session.clone(),
            store: if options.is_scripted() {
                None
            } else {
                SessionStore::user()
            },
            key: None,
            explicit_key: None,
            started: false,
        }
    }
}

/// A session's painted map; an error when it does not fit `scene` (every primitive's length its
/// vertex count) or holds a beta outside [0, 1].
fn blend_map_of(
    session: &Session,
    scene: &Scene,
) -> Result<Option<crate::skin::SceneBetas>, String> {
    let Some(map) = session.blend_map.as_ref() else {
        return Ok(None);
    };
    let fits = scene.meshes.len() == map.len()
        && scene.meshes.iter().zip(map).all(|(mesh, prims)| {
            mesh.primitives.len() == prims.len()
                && mesh
                    .primitives
                    .iter()
                    .zip(prims)
                    .all(|(p, b)| b.is_empty() || b.len() == p.positions.len())
        });
    if !fits {
        return Err(
            "the session's painted blend map does not fit this model's meshes; left out".into(),
        );
    }
    let valid = map
        .iter()
        .flatten()
        .flatten()
        .all(|b| (0.0..=1.0).contains(b));
    if !valid {
        return Err("the session's painted blend map has betas outside [0, 1]; left out".into());
    }
    Ok(Some(crate::skin::SceneBetas {
        per_primitive: map.clone(),
    }))
}

/// The files the viewer reads and writes: saved images and sessions.
pub(super) struct ModelFiles {
    /// Where the next frame is saved as a PNG (Save image, or a script's `save`).
    pub pending_save: Option<PathBuf>,
    /// Where the session is read from and saved to.
    pub sessions: SessionHooks,
}

impl ModelFiles {
    /// Nothing to save yet; the session hooks `options` ask for.
    pub fn new(options: &ViewerOptions) -> Self {
        Self {
            pending_save: None,
            sessions: SessionHooks::new(options),
        }
    }
}

impl Running {
    /// Applies the saved session of `model` (the explicit file first) and lists it as recent.
    pub(super) fn restore_session(&mut self, model: &str) {
        let key = ModelKey::of_model(model).ok();
        self.files.sessions.key.clone_from(&key);
        // The explicit file belongs to the model opened at start; later models use the store.
        let explicit = if std::mem::replace(&mut self.files.sessions.started, true) {
            None
        } else {
            self.files.sessions.explicit_key.clone_from(&key);
            self.files.sessions.explicit.clone()
        };
        let durations: Vec<f32> = self.state.clips.iter().map(|c| c.1).collect();
        let saved = match (&explicit, &self.files.sessions.store, &key) {
            (Some(path), _, _) if path.exists() => Some(Session::read(path)),
            (Some(_), _, _) => None,
            (None, Some(store), Some(key)) => store.load(key).transpose(),
            _ => None,
        };
        match saved {
            Some(Ok(session)) => {
                if key
                    .as_ref()
                    .is_some_and(|k| k.content_hash != session.model.content_hash)
                {
                    log::warn!(
                        "session was saved for {} with other contents; applied anyway",
                        session.model.path
                    );
                }
                apply(&session, &mut self.state, &self.model.scene, &durations);
                let map = blend_map_of(&session, &self.model.scene).unwrap_or_else(|e| {
                    self.state.error = Some(e);
                    None
                });
                self.model.paint.restore(map);
            }
            Some(Err(e)) => self.state.error = Some(e),
            None => {}
        }
        self.remember_recent(model);
    }

    /// Saves the session of the model shown (to the explicit file, else the user store).
    pub(super) fn save_session(&self) {
        let Some(key) = self.files.sessions.key.clone() else {
            return;
        };
        let session = capture(&self.state, &self.model.scene, key, self.model.paint.map());
        let explicit = self
            .files
            .sessions
            .explicit
            .as_ref()
            .filter(|_| self.files.sessions.explicit_key.as_ref() == Some(&session.model));
        let result = match (explicit, &self.files.sessions.store) {
            (Some(path), _) => session.write(path),
            (None, Some(store)) => store.save(&session),
            (None, None) => Ok(()),
        };
        if let Err(e) = result {
            log::warn!("cannot save the session: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin;

    #[test]
    fn a_session_saved_paused_or_older_than_play_state_opens_paused() {
        let scene = builtin::builtin_scene("arm").expect("builtin rig");
        let durations: Vec<f32> = scene
            .animations
            .iter()
            .map(crate::anim::clip_duration_s)
            .collect();
        assert!(!durations.is_empty(), "the arm rig has a clip");
        let mut state = ViewerState::default();
        assert!(!state.playback.playing, "the viewer's default is paused");
        state.playback.select(Some(0), durations[0]);
        let key = ModelKey {
            path: "builtin:arm".into(),
            content_hash: String::new(),
        };
        let saved = capture(&state, &scene, key, None);
        assert!(!saved.playing);
        let mut restored = ViewerState::default();
        restored.playback.playing = true;
        apply(&saved, &mut restored, &scene, &durations);
        assert!(!restored.playback.playing, "saved paused, restored paused");
        // A file written before play state was saved has no `playing`: paused.
        let mut old: serde_json::Value = serde_json::from_str(&saved.to_json()).expect("json");
        old.as_object_mut().expect("object").remove("playing");
        let old = Session::from_json(&old.to_string()).expect("old file parses");
        let mut restored = ViewerState::default();
        restored.playback.playing = true;
        apply(&old, &mut restored, &scene, &durations);
        assert!(!restored.playback.playing);
    }

    #[test]
    fn capture_then_apply_restores_the_view() {
        let scene = builtin::builtin_scene("arm").expect("builtin rig");
        let durations: Vec<f32> = scene
            .animations
            .iter()
            .map(crate::anim::clip_duration_s)
            .collect();
        let mut state = ViewerState::default();
        state.skinning.mode = SkinningMode::Hybrid;
        state.skinning.beta = 0.3;
        state.skinning.view = ViewMode::Split;
        state.camera.yaw = 0.7;
        state.camera.distance = 3.5;
        let joint = scene.skins[0].joints[1];
        state.joints.overrides.set(
            joint,
            JointAngles {
                twist_deg: 45.0,
                ..JointAngles::default()
            },
        );
        if let Some(d) = durations.first() {
            state.playback.select(Some(0), *d);
            state.playback.time_s = d * 0.5;
        }
        // Flag only the second joint: the defaults would differ, so a lost flag shows.
        let joints = scene.skins[0].joints.len();
        state.hybrid.flags = vec![crate::skin::HybridFlags {
            dqs: (0..joints).map(|j| j == 1).collect(),
        }];
        let key = ModelKey {
            path: "builtin:arm".into(),
            content_hash: String::new(),
        };
        state.playback.playing = true;
        state.follow.enabled = true;
        state.joints.selected = Some(joint);
        let session = capture(&state, &scene, key, None);
        let text = session.to_json();
        let back = Session::from_json(&text).expect("parse");
        assert_eq!(back.hybrid_dqs_joints.len(), 1, "one flagged joint saved");
        let mut restored = ViewerState::default();
        restored.hybrid.flags = vec![crate::skin::HybridFlags {
            dqs: vec![true; joints],
        }];
        apply(&back, &mut restored, &scene, &durations);
        assert_eq!(restored.hybrid.flags, state.hybrid.flags);
        assert!(restored.hybrid.revision > 0, "betas re-uploaded");
        assert_eq!(restored.skinning, state.skinning);
        assert_eq!(restored.joints.overrides, state.joints.overrides);
        assert_eq!(restored.playback.clip, state.playback.clip);
        assert!((restored.playback.time_s - state.playback.time_s).abs() < 1e-6);
        assert!(restored.playback.playing, "saved playing, restored playing");
        assert!(restored.follow.enabled);
        assert_eq!(restored.joints.selected, Some(joint));
        assert!((restored.camera.yaw - 0.7).abs() < 1e-6);
        assert_eq!(restored.camera.distance, 3.5);
    }
}
