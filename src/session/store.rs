//! Where sessions live: one file per model and a recent-models list in a folder.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{ModelKey, Session};

/// Models kept in the recent list.
pub const MAX_RECENT: usize = 10;

/// One entry of File > Recent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecentModel {
    /// What to open: a path or `builtin:NAME`, as given when it was opened.
    pub model: String,
}

/// A folder of session files (`sessions/*.json`) and `recent.json`.
///
/// [`SessionStore::user`] is the user's config directory; tests use
/// [`SessionStore::at`] with a temporary folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionStore {
    dir: PathBuf,
}

impl SessionStore {
    /// The store in the user's config directory (`~/.config/dqview` on Linux), if there is one.
    #[must_use]
    pub fn user() -> Option<Self> {
        directories::ProjectDirs::from("", "", "dqview").map(|d| Self::at(d.config_dir()))
    }

    /// A store in `dir` (created on first write).
    #[must_use]
    pub fn at(dir: &Path) -> Self {
        Self {
            dir: dir.to_owned(),
        }
    }

    /// The store's folder.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The session file of `key`.
    #[must_use]
    pub fn session_path(&self, key: &ModelKey) -> PathBuf {
        self.dir.join("sessions").join(key.file_name())
    }

    /// The saved session of `key`, if any; a file for another key (a hash collision) is ignored.
    ///
    /// # Errors
    /// When the file exists but cannot be read or parsed.
    pub fn load(&self, key: &ModelKey) -> Result<Option<Session>, String> {
        let path = self.session_path(key);
        if !path.exists() {
            return Ok(None);
        }
        let session = Session::read(&path)?;
        Ok((session.model == *key).then_some(session))
    }

    /// Saves `session` under its own key.
    ///
    /// # Errors
    /// When the folder or file cannot be written.
    pub fn save(&self, session: &Session) -> std::io::Result<()> {
        session.write(&self.session_path(&session.model))
    }

    /// The recent models, most recent first (an unreadable list counts as empty).
    #[must_use]
    pub fn recent(&self) -> Vec<RecentModel> {
        std::fs::read_to_string(self.recent_path())
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default()
    }

    /// Puts `model` first in the recent list (once), keeping at most [`MAX_RECENT`].
    ///
    /// # Errors
    /// When the list cannot be written.
    pub fn push_recent(&self, model: &str) -> std::io::Result<Vec<RecentModel>> {
        let list = with_recent(self.recent(), model);
        std::fs::create_dir_all(&self.dir)?;
        let text = serde_json::to_string_pretty(&list).unwrap_or_default();
        std::fs::write(self.recent_path(), text)?;
        Ok(list)
    }

    fn recent_path(&self) -> PathBuf {
        self.dir.join("recent.json")
    }
}

/// `list` with `model` moved (or added) to the front, at most [`MAX_RECENT`] long.
#[must_use]
pub fn with_recent(mut list: Vec<RecentModel>, model: &str) -> Vec<RecentModel> {
    list.retain(|r| r.model != model);
    list.insert(
        0,
        RecentModel {
            model: model.to_owned(),
        },
    );
    list.truncate(MAX_RECENT);
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_store(name: &str) -> SessionStore {
        let dir = std::env::temp_dir().join(format!("dqview-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        SessionStore::at(&dir)
    }

    #[test]
    fn recent_list_is_most_recent_first_without_duplicates_and_capped() {
        let store = temp_store("recent");
        assert!(store.recent().is_empty());
        for i in 0..12 {
            store.push_recent(&format!("m{i}.glb")).unwrap();
        }
        let list = store.recent();
        assert_eq!(list.len(), MAX_RECENT);
        assert_eq!(list[0].model, "m11.glb");
        assert_eq!(list[9].model, "m2.glb");
        // Reopening moves a model to the front instead of listing it twice.
        let list = store.push_recent("m5.glb").unwrap();
        assert_eq!(list.len(), MAX_RECENT);
        assert_eq!(list[0].model, "m5.glb");
        assert_eq!(list.iter().filter(|r| r.model == "m5.glb").count(), 1);
        assert_eq!(store.recent(), list);
        std::fs::remove_dir_all(store.dir()).unwrap();
    }

    #[test]
    fn sessions_round_trip_per_key_and_ignore_other_keys() {
        let store = temp_store("sessions");
        let key = ModelKey {
            path: "/m.glb".into(),
            content_hash: "0000000000000001".into(),
        };
        assert_eq!(store.load(&key).unwrap(), None);
        let session = Session {
            model: key.clone(),
            mode: "lbs".into(),
            time_s: 0.5,
            ..Session::default()
        };
        store.save(&session).unwrap();
        let back = store.load(&key).unwrap().unwrap();
        assert_eq!(back.mode, "lbs");
        assert_eq!(back.time_s, 0.5);
        // The same path with other bytes has its own (empty) session.
        let edited = ModelKey {
            content_hash: "0000000000000002".into(),
            ..key.clone()
        };
        assert_eq!(store.load(&edited).unwrap(), None);
        // A corrupt file is an error, not a silent reset.
        std::fs::write(store.session_path(&key), "{").unwrap();
        assert!(store.load(&key).is_err());
        std::fs::remove_dir_all(store.dir()).unwrap();
    }
}
