//! Scripted input for tests and bug reports (`--ui-script FILE`): clicks, keys and text fed
//! to egui at given frames, and dumps of what the window shows.
//!
//! The script is JSON: a list of steps `{"frame": N, "do": ACTION, ...}`. Actions:
//! - `click`: `"probe": NAME` (a widget the panels record, see `ui::probe`) or
//!   `"joint": NAME` (its dot in the first view), optional `"double": true`;
//! - `drag`: from `"probe"`'s centre (or `"at": [x, y]` in window points) by `"dx"`, `"dy"`
//!   points (pressed on the step's frame, moved over the next `"frames"` (default 2), released
//!   after, as a hand would);
//! - `type`: `"text"`; `key`: `"key"` (an egui key name such as `Enter`, `ArrowDown`, `F`, `M`,
//!   `Z`), with `"ctrl": true` and `"shift": true` for chords;
//! - `dump`: `"path"`, writes the probes, selection, camera and joint positions as JSON;
//! - `save`: `"path"`, writes this frame as a PNG, as the Save image button does.
//!
//! Events go through egui exactly as a user's do; positions come from the previous
//! frame's layout, so scripts name widgets instead of guessing pixels.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Value, json};

use crate::ui::ViewerState;
use crate::ui::probe::Probes;

/// One step of a script.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Click (or double-click) at a probed widget or a joint's dot.
    Click {
        /// What to click.
        at: Target,
        /// Two clicks at once.
        double: bool,
    },
    /// Press at a probed widget's centre or a point, move by (dx, dy) points, release.
    Drag {
        /// Where the drag starts.
        from: Target,
        /// Points to move right and down.
        delta: egui::Vec2,
        /// Frames the move takes.
        frames: u64,
    },
    /// Text typed into the focused widget.
    Type(String),
    /// A key pressed and released, with modifiers.
    Key(egui::Key, egui::Modifiers),
    /// Write the dump to this file.
    Dump(PathBuf),
    /// Write this frame to this PNG.
    Save(PathBuf),
}

/// Where a click lands.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    /// A probed widget's centre.
    Probe(String),
    /// The dot of the joint with this name.
    Joint(String),
    /// A point, in window points.
    Point(egui::Pos2),
}

/// A script: its steps, by frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UiScript {
    steps: Vec<(u64, Step)>,
}

impl UiScript {
    /// Reads and checks the script at `path`.
    pub fn load(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the UI script {}", path.display()))?;
        Self::parse(&text).with_context(|| format!("in the UI script {}", path.display()))
    }

    /// Parses script text (see the module comment).
    pub fn parse(text: &str) -> Result<Self> {
        let value: Value = serde_json::from_str(text).context("not JSON")?;
        let list = value
            .as_array()
            .ok_or_else(|| anyhow!("not a list of steps"))?;
        let steps = list
            .iter()
            .enumerate()
            .map(|(i, s)| parse_step(s).with_context(|| format!("step {i}")))
            .collect::<Result<Vec<_>>>()?;
        Ok(Self { steps })
    }

    /// The steps of frame `frame`.
    pub fn steps_at(&self, frame: u64) -> impl Iterator<Item = &Step> {
        self.steps
            .iter()
            .filter(move |(f, _)| *f == frame)
            .map(|(_, s)| s)
    }
}

/// One step from its JSON object.
fn parse_step(s: &Value) -> Result<(u64, Step)> {
    let frame = s["frame"]
        .as_u64()
        .ok_or_else(|| anyhow!("\"frame\" must be a whole number"))?;
    let text = |key: &str| {
        s[key]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| anyhow!("\"{key}\" must be a string"))
    };
    let step = match s["do"].as_str() {
        Some("click") => Step::Click {
            at: target(s)?,
            double: s["double"].as_bool().unwrap_or(false),
        },
        Some("drag") => Step::Drag {
            from: target(s)?,
            delta: egui::vec2(
                s["dx"].as_f64().unwrap_or(0.0) as f32,
                s["dy"].as_f64().unwrap_or(0.0) as f32,
            ),
            frames: s["frames"].as_u64().unwrap_or(2).clamp(1, 600),
        },
        Some("type") => Step::Type(text("text")?),
        Some("key") => {
            let name = text("key")?;
            let key = egui::Key::from_name(&name).ok_or_else(|| anyhow!("unknown key `{name}`"))?;
            let flag = |k: &str| s[k].as_bool().unwrap_or(false);
            let modifiers = egui::Modifiers {
                ctrl: flag("ctrl"),
                command: flag("ctrl"),
                shift: flag("shift"),
                ..egui::Modifiers::NONE
            };
            Step::Key(key, modifiers)
        }
        Some("dump") => Step::Dump(text("path")?.into()),
        Some("save") => Step::Save(text("path")?.into()),
        other => bail!("unknown action {other:?} (click, drag, type, key, dump, save)"),
    };
    Ok((frame, step))
}

/// The target a click or drag names: `"probe"`, `"joint"` or `"at": [x, y]`.
fn target(s: &Value) -> Result<Target> {
    match (s["probe"].as_str(), s["joint"].as_str(), s["at"].as_array()) {
        (Some(p), None, None) => Ok(Target::Probe(p.into())),
        (None, Some(j), None) => Ok(Target::Joint(j.into())),
        (None, None, Some(at)) => {
            let coord = |k: usize| at.get(k).and_then(Value::as_f64).map(|v| v as f32);
            match (coord(0), coord(1)) {
                (Some(x), Some(y)) => Ok(Target::Point(egui::pos2(x, y))),
                _ => bail!("\"at\" must be [x, y]"),
            }
        }
        _ => bail!("name one \"probe\", one \"joint\" or one \"at\": [x, y]"),
    }
}

/// The egui events of `step` for its own frame and the following ones (index 0 is the
/// step's frame), positioned by last frame's `probes` and joint positions.
pub fn events_of(
    step: &Step,
    probes: &Probes,
    state: &ViewerState,
    scene: &crate::scene::Scene,
) -> Result<Vec<Vec<egui::Event>>> {
    let press = |pos: egui::Pos2, pressed: bool| egui::Event::PointerButton {
        pos,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    };
    let probe_at = |name: &str| {
        probes
            .get(name)
            .map(|p| p.rect.center())
            .ok_or_else(|| anyhow!("no widget `{name}` on screen (probes: {:?})", probes.keys()))
    };
    Ok(match step {
        Step::Click { at, double } => {
            let pos = match at {
                Target::Probe(name) => probe_at(name)?,
                Target::Joint(name) => joint_at(state, scene, name)?,
                Target::Point(p) => *p,
            };
            let mut events = vec![
                egui::Event::PointerMoved(pos),
                press(pos, true),
                press(pos, false),
            ];
            if *double {
                events.extend([press(pos, true), press(pos, false)]);
            }
            vec![events]
        }
        Step::Drag {
            from,
            delta,
            frames,
        } => {
            let from = match from {
                Target::Probe(name) => probe_at(name)?,
                Target::Joint(name) => joint_at(state, scene, name)?,
                Target::Point(p) => *p,
            };
            let mut parts = vec![vec![egui::Event::PointerMoved(from), press(from, true)]];
            for k in 1..=*frames {
                let at = from + *delta * (k as f32 / *frames as f32);
                parts.push(vec![egui::Event::PointerMoved(at)]);
            }
            parts.push(vec![press(from + *delta, false)]);
            parts
        }
        Step::Type(text) => vec![vec![egui::Event::Text(text.clone())]],
        Step::Key(key, modifiers) => vec![
            [true, false]
                .map(|pressed| egui::Event::Key {
                    key: *key,
                    physical_key: None,
                    pressed,
                    repeat: false,
                    modifiers: *modifiers,
                })
                .to_vec(),
        ],
        Step::Dump(_) | Step::Save(_) => Vec::new(),
    })
}

/// Where the dot of joint `name` was drawn last frame.
fn joint_at(state: &ViewerState, scene: &crate::scene::Scene, name: &str) -> Result<egui::Pos2> {
    let node = crate::scene::names::joint(scene, name).map_err(|e| anyhow!("{e}"))?;
    state
        .projected_joints
        .iter()
        .find(|(n, _)| *n == node)
        .map(|(_, p)| egui::pos2(p.x, p.y))
        .ok_or_else(|| anyhow!("joint `{name}` is not on screen"))
}

/// What the window shows beyond the panel state, for dumps.
pub struct Shown<'a> {
    /// The model.
    pub scene: &'a crate::scene::Scene,
    /// Window size in pixels.
    pub window: [u32; 2],
    /// The views laid out this frame.
    pub views: &'a [crate::ui::ViewRect],
    /// The betas the mesh shows: the painted map, else the file's or the flags'.
    pub betas: &'a crate::skin::SceneBetas,
    /// Whether `betas` is a painted map.
    pub painted: bool,
}

/// The file dialog as a dump shows it.
fn dialog_dump(d: &crate::ui::FileDialog) -> Value {
    json!({
        "title": d.purpose.title(),
        "dir": d.dir.display().to_string(),
        "name": d.name,
        "entries": d.entries.iter().map(|e| &e.name).collect::<Vec<_>>(),
        "error": d.error,
        "confirm_overwrite": d.confirm_overwrite.as_ref().map(|p| p.display().to_string()),
    })
}

/// The dump: window, probes, selection, search, camera, joints, views, playback and betas.
#[must_use]
pub fn dump(state: &ViewerState, probes: &Probes, shown: &Shown) -> Value {
    let scene = shown.scene;
    let name = |n: usize| {
        scene
            .nodes
            .get(n)
            .map_or_else(String::new, |n| n.name.clone())
    };
    let rect = |r: egui::Rect| json!([r.min.x, r.min.y, r.max.x, r.max.y]);
    let probes: serde_json::Map<String, Value> = probes
        .iter()
        .map(|(k, p)| {
            let v = json!({"rect": rect(p.rect), "clip": rect(p.clip), "visible": p.is_visible()});
            (k.clone(), v)
        })
        .collect();
    let joints: serde_json::Map<String, Value> = state
        .projected_joints
        .iter()
        .map(|(n, p)| (name(*n), json!([p.x, p.y])))
        .collect();
    let cam = &state.camera;
    json!({
        "window": shown.window,
        "views": shown.views.iter().map(|v| json!({"rect": rect(v.rect), "mode": v.mode.name(), "twist": v.twist})).collect::<Vec<_>>(),
        "playback": {"clip": state.playback.clip, "time_s": state.playback.time_s, "playing": state.playback.playing},
        "follow": state.follow.enabled,
        // The clip time the camera last moved with the followed region (the frame drawn last).
        "follow_time_s": state.follow.measured_at.as_ref().map(|m| m.1),
        "source": scene.source,
        "recent": state.recent,
        "error": state.error,
        "dialog": state.file_dialog.as_ref().map(dialog_dump),
        "plot_legend": {
            "folded": state.inspect.legend_folded,
            "entries": state.inspect.series.as_deref().map(crate::ui::legend_entries).unwrap_or_default()
                .iter().map(|e| json!({"name": e.name, "under": e.under})).collect::<Vec<_>>(),
        },
        "heat": state.heat_shown.map(|(q, r)| json!({"quantity": format!("{q:?}"), "lo": r.lo, "hi": r.hi})),
        "probes": probes,
        "selected": state.joints.selected.map(name),
        "search": state.joints.search,
        "collapsed": state.joints.collapsed.iter().map(|&n| name(n)).collect::<Vec<_>>(),
        "camera": {"target": cam.target.to_array(), "distance": cam.distance, "yaw": cam.yaw, "pitch": cam.pitch, "scene_radius": cam.scene_radius, "focus_radius": cam.focus_radius},
        "joints": joints,
        "paint": {
            "painted": shown.painted,
            "betas": &shown.betas.per_primitive,
            "undo_steps": state.paint.undo_steps,
            "redo_steps": state.paint.redo_steps,
            "radius_px": state.paint.radius_px,
            "message": state.paint.message,
            // The last fit's before/after, as `dqview blend` prints it.
            "fit_table": state.paint.fit_table.as_ref().map(crate::analysis::FitTable::lines),
        },
        "twist": {
            "joints": state.twist.joints.iter().map(|r| json!({"joint": r.name, "count": r.count})).collect::<Vec<_>>(),
            "max_influences": state.twist.max_influences,
            "build": twist_build_json(&state.twist.build),
            "message": state.twist.message,
        },
        "cor": {"ready": state.cor.ready, "progress": state.cor.progress, "message": state.cor.message},
        "overrides": state.joints.overrides.angles.iter().map(|(&n, a)| json!({"joint": name(n), "twist_deg": a.twist_deg, "bend_deg": a.bend_deg, "roll_deg": a.roll_deg})).collect::<Vec<_>>(),
    })
}

/// The helper rig's state as the dump writes it: `state` (idle, building, ready, failed) and,
/// when ready, its counts, the fit and the figures at held-out poses.
fn twist_build_json(build: &crate::ui::TwistBuild) -> serde_json::Value {
    use crate::ui::TwistBuild;
    match build {
        TwistBuild::Idle => json!({"state": "idle"}),
        TwistBuild::Building => json!({"state": "building"}),
        TwistBuild::Failed(e) => json!({"state": "failed", "error": e}),
        TwistBuild::Ready {
            roll_joints,
            junctions,
            baked_clips,
            fit,
            figures,
        } => json!({
            "state": "ready",
            "roll_joints": roll_joints,
            "junctions": junctions,
            "baked_clips": baked_clips,
            "fit": {"vertices": fit.vertices, "poses": fit.poses, "rms_before": fit.rms_before, "rms_after": fit.rms_after},
            "figures": figures.iter().map(|f| json!({
                "joint": f.name,
                "count": f.count,
                "twist_170": f.twist,
                "bend_120": f.bend,
                "clips_held_out": f.clips,
            })).collect::<Vec<_>>(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_parse_and_bad_steps_say_which() {
        let script = UiScript::parse(
            r#"[{"frame": 2, "do": "click", "probe": "joint search"},
                {"frame": 3, "do": "type", "text": "fore"},
                {"frame": 3, "do": "key", "key": "Enter"},
                {"frame": 4, "do": "click", "joint": "tip", "double": true},
                {"frame": 5, "do": "dump", "path": "out.json"}]"#,
        )
        .expect("parses");
        assert_eq!(script.steps_at(3).count(), 2);
        assert_eq!(
            script.steps_at(4).next(),
            Some(&Step::Click {
                at: Target::Joint("tip".into()),
                double: true
            })
        );
        for bad in [
            r#"{"frame": 1}"#,
            r#"[{"do": "type", "text": "x"}]"#,
            r#"[{"frame": 1, "do": "key", "key": "NoSuchKey"}]"#,
            r#"[{"frame": 1, "do": "click"}]"#,
            r#"[{"frame": 1, "do": "fly"}]"#,
        ] {
            assert!(UiScript::parse(bad).is_err(), "{bad}");
        }
    }
}

/// The viewer's scripted input: the script, and the widgets laid out last frame.
#[derive(Default)]
pub struct ScriptHooks {
    /// The script, in scripted runs with `--ui-script`.
    script: Option<UiScript>,
    /// Where the probed widgets were last frame (clicks aim at them).
    probes: Probes,
    /// Events of earlier steps due on later frames (the rest of a drag), by frame.
    pending: Vec<(u64, Vec<egui::Event>)>,
}

impl ScriptHooks {
    /// Hooks running `script`, if any.
    #[must_use]
    pub fn new(script: Option<UiScript>) -> Self {
        Self {
            script,
            probes: Probes::new(),
            pending: Vec::new(),
        }
    }

    /// Whether a script drives this run (its dumps must show settled results).
    #[must_use]
    pub fn is_scripted(&self) -> bool {
        self.script.is_some()
    }

    /// The input events of frame `frame`: its steps', aimed by last frame's layout, and the
    /// rest of earlier steps that span frames.
    pub fn events(
        &mut self,
        frame: u64,
        state: &ViewerState,
        scene: &crate::scene::Scene,
    ) -> Result<Vec<egui::Event>> {
        let Some(script) = &self.script else {
            return Ok(Vec::new());
        };
        let mut events = Vec::new();
        for step in script.steps_at(frame) {
            for (k, part) in events_of(step, &self.probes, state, scene)?
                .into_iter()
                .enumerate()
            {
                self.pending.push((frame + k as u64, part));
            }
        }
        self.pending.retain(|(f, part)| {
            if *f == frame {
                events.extend(part.iter().cloned());
            }
            *f > frame
        });
        Ok(events)
    }

    /// After the UI ran: keeps this frame's probes, writes the dumps of frame `frame`, and
    /// returns where this frame should be saved as a PNG, if a step asks.
    pub fn after_ui(
        &mut self,
        frame: u64,
        ctx: &egui::Context,
        state: &ViewerState,
        shown: &Shown,
    ) -> Result<Option<PathBuf>> {
        self.probes = crate::ui::probe::take(ctx);
        let Some(script) = &self.script else {
            return Ok(None);
        };
        let mut save = None;
        for step in script.steps_at(frame) {
            match step {
                Step::Dump(path) => {
                    let text = serde_json::to_string_pretty(&dump(state, &self.probes, shown))?;
                    std::fs::write(path, text)
                        .with_context(|| format!("cannot write {}", path.display()))?;
                }
                Step::Save(path) => save = Some(path.clone()),
                _ => {}
            }
        }
        Ok(save)
    }
}
