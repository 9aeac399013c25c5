//! Rig sessions: the camera, mode, view, clip, time, joint overrides, morph
//! weights and hybrid flags of one model, saved as a small JSON file.
//!
//! The viewer keeps one session per model in the user's config directory,
//! keyed by the model's canonical path and a hash of its bytes (so a changed
//! file does not inherit overrides meant for its old joints), and a list of the
//! last [`MAX_RECENT`] models. `dqview --session FILE` reads and writes an
//! explicit file instead, which a rigger can send to a colleague.
//!
//! Joints and mesh nodes are stored by name and index: names survive a
//! re-export that renumbers nodes, indices cover unnamed ones.

mod store;

pub use store::{MAX_RECENT, RecentModel, SessionStore, with_recent};

use std::path::Path;

use serde::{Deserialize, Serialize};

/// The file format version written by this build.
pub const SESSION_VERSION: u32 = 1;

/// Which model a session belongs to.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelKey {
    /// Canonical path (or `builtin:NAME`).
    pub path: String,
    /// FNV-1a 64-bit hash of the file's bytes, as 16 hex digits (empty for built-in rigs).
    pub content_hash: String,
}

impl ModelKey {
    /// The key of `model` (a path or `builtin:NAME`): canonical path and content hash.
    ///
    /// # Errors
    /// When the file cannot be read.
    pub fn of_model(model: &str) -> std::io::Result<Self> {
        if model.starts_with("builtin:") {
            return Ok(Self {
                path: model.to_owned(),
                content_hash: String::new(),
            });
        }
        let path = Path::new(model);
        let canonical = path.canonicalize()?;
        let bytes = std::fs::read(&canonical)?;
        Ok(Self {
            path: canonical.display().to_string(),
            content_hash: format!("{:016x}", fnv1a64(&bytes)),
        })
    }

    /// A file name for this key: hashes of the path and the content, so it is short and safe.
    #[must_use]
    pub fn file_name(&self) -> String {
        format!(
            "{:016x}-{}.json",
            fnv1a64(self.path.as_bytes()),
            if self.content_hash.is_empty() {
                "builtin"
            } else {
                &self.content_hash
            }
        )
    }
}

/// FNV-1a, 64 bits: cheap, dependency-free and stable across builds (unlike `DefaultHasher`).
#[must_use]
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The orbit camera.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CameraState {
    /// Look-at point, world units.
    pub target: [f32; 3],
    /// Angle about world +Y, degrees.
    pub yaw_deg: f32,
    /// Elevation, degrees.
    pub pitch_deg: f32,
    /// Eye to target, world units.
    pub distance: f32,
}

/// Twist, bend and roll of one joint, degrees.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JointOverrideEntry {
    /// Joint node name.
    pub joint: String,
    /// Joint node index (used when no node has the name).
    pub node: usize,
    /// About the bone axis.
    pub twist_deg: f32,
    /// About the bend axis.
    pub bend_deg: f32,
    /// About the roll axis.
    pub roll_deg: f32,
}

/// One hand-set morph target weight.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MorphWeightEntry {
    /// Mesh node name.
    pub node_name: String,
    /// Mesh node index (used when no node has the name).
    pub node: usize,
    /// Target index.
    pub target: usize,
    /// The weight.
    pub weight: f32,
}

/// Everything a rigger sees, for one model.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Session {
    /// [`SESSION_VERSION`] at the time of writing.
    pub version: u32,
    /// The model this session belongs to.
    pub model: ModelKey,
    /// The orbit camera.
    pub camera: Option<CameraState>,
    /// Skinning mode name (`lbs`, `dqs`, `hybrid`).
    pub mode: String,
    /// Strength of the hybrid's betas in [0, 1] (`None`: 1, the map as stored). Sessions of
    /// older builds stored a "beta scale" under `beta`, which is not read back: it drew maps at half strength.
    pub map_strength: Option<f32>,
    /// One beta for every vertex instead of the map or flags, when set.
    pub uniform_beta: Option<f32>,
    /// View layout name (`single`, `split`, `overlay`).
    pub view: String,
    /// Shading (debug view) name.
    pub shading: String,
    /// Clip name (`None`: rest pose).
    pub clip: Option<String>,
    /// Time in the clip, seconds.
    pub time_s: f32,
    /// Whether the clip was playing (the viewer opens paused otherwise).
    pub playing: bool,
    /// Whether the camera followed the selected joint.
    pub follow: bool,
    /// The selected joint's name, if one was selected.
    pub selected_joint: Option<String>,
    /// Joint overrides.
    pub joint_overrides: Vec<JointOverrideEntry>,
    /// Hand-set morph weights.
    pub morph_weights: Vec<MorphWeightEntry>,
    /// Names of joints flagged for DQS in hybrid mode (empty: the defaults).
    pub hybrid_dqs_joints: Vec<String>,
    /// A painted DQS blend map: per mesh, per primitive, one beta per vertex (empty list: none
    /// painted there); `None` when nothing was painted.
    pub blend_map: Option<Vec<Vec<Vec<f32>>>>,
}

impl Session {
    /// Parses a session file's text.
    ///
    /// # Errors
    /// On malformed JSON or a version newer than this build writes.
    pub fn from_json(text: &str) -> Result<Self, String> {
        let session: Self = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if session.version > SESSION_VERSION {
            return Err(format!(
                "session version {} is newer than this dqview's {SESSION_VERSION}",
                session.version
            ));
        }
        Ok(session)
    }

    /// The session as pretty JSON, stamped with [`SESSION_VERSION`].
    #[must_use]
    pub fn to_json(&self) -> String {
        let stamped = Self {
            version: SESSION_VERSION,
            ..self.clone()
        };
        serde_json::to_string_pretty(&stamped).unwrap_or_default()
    }

    /// Reads a session file.
    ///
    /// # Errors
    /// When the file cannot be read or parsed; the message names the file.
    pub fn read(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read session {}: {e}", path.display()))?;
        Self::from_json(&text).map_err(|e| format!("session {}: {e}", path.display()))
    }

    /// Writes the session file (through a temporary file, so a crash leaves the old one).
    ///
    /// # Errors
    /// When the folder or the file cannot be written.
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, self.to_json())?;
        std::fs::rename(&tmp, path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Session {
        Session {
            model: ModelKey {
                path: "/models/arm.glb".into(),
                content_hash: format!("{:016x}", fnv1a64(b"arm")),
            },
            camera: Some(CameraState {
                target: [0.0, 1.0, 0.5],
                yaw_deg: 30.0,
                pitch_deg: -10.0,
                distance: 4.5,
            }),
            mode: "hybrid".into(),
            map_strength: Some(0.25),
            uniform_beta: None,
            view: "split".into(),
            shading: "weights".into(),
            clip: Some("walk".into()),
            time_s: 1.25,
            joint_overrides: vec![JointOverrideEntry {
                joint: "forearm".into(),
                node: 3,
                twist_deg: 90.0,
                bend_deg: -15.0,
                roll_deg: 0.0,
            }],
            morph_weights: vec![MorphWeightEntry {
                node_name: "face".into(),
                node: 7,
                target: 1,
                weight: 0.6,
            }],
            hybrid_dqs_joints: vec!["forearm_twist".into()],
            ..Session::default()
        }
    }

    #[test]
    fn json_round_trip_keeps_everything() {
        let s = sample();
        let back = Session::from_json(&s.to_json()).unwrap();
        assert_eq!(back.version, SESSION_VERSION);
        assert_eq!(Session { version: 0, ..back }, s);
    }

    #[test]
    fn missing_fields_take_defaults_and_newer_versions_are_refused() {
        let s = Session::from_json(r#"{"version": 1, "mode": "lbs"}"#).unwrap();
        assert_eq!(s.mode, "lbs");
        assert!(s.camera.is_none() && s.joint_overrides.is_empty());
        let err = Session::from_json(r#"{"version": 99}"#).unwrap_err();
        assert!(err.contains("newer"), "{err}");
        assert!(Session::from_json("{not json").is_err());
    }

    #[test]
    fn key_changes_with_path_and_content() {
        let a = ModelKey {
            path: "/a.glb".into(),
            content_hash: "00000000000000aa".into(),
        };
        let moved = ModelKey {
            path: "/b.glb".into(),
            ..a.clone()
        };
        let edited = ModelKey {
            content_hash: "00000000000000bb".into(),
            ..a.clone()
        };
        assert_ne!(a.file_name(), moved.file_name());
        assert_ne!(a.file_name(), edited.file_name());
        assert_eq!(a.file_name(), a.clone().file_name());
        // Known FNV-1a 64 test vectors.
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn key_of_a_file_hashes_its_bytes() {
        let dir = std::env::temp_dir().join(format!("dqview-session-key-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("m.glb");
        std::fs::write(&file, b"one").unwrap();
        let k1 = ModelKey::of_model(file.to_str().unwrap()).unwrap();
        std::fs::write(&file, b"two").unwrap();
        let k2 = ModelKey::of_model(file.to_str().unwrap()).unwrap();
        assert_eq!(k1.path, k2.path);
        assert_ne!(k1.content_hash, k2.content_hash);
        assert_eq!(k1.content_hash, format!("{:016x}", fnv1a64(b"one")));
        assert!(ModelKey::of_model(dir.join("missing.glb").to_str().unwrap()).is_err());
        assert_eq!(
            ModelKey::of_model("builtin:arm").unwrap().path,
            "builtin:arm"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
