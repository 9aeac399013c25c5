//! The in-window file dialog for Open, Save blend map and Save image: a folder listing, a
//! name field, and a confirm before a save replaces a file.
//!
//! It is drawn by egui, so it works wherever the window does (a bare X session has no
//! desktop portal or zenity for a native dialog). Reading a folder is the only file access.

use std::path::{Path, PathBuf};

/// What the dialog picks a file for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DialogPurpose {
    /// A model to open.
    OpenModel,
    /// Where "Save blend map" writes the model with its painted `_DQS_BLEND`.
    SaveBlendMap,
    /// Where "Save image" writes the window as a PNG.
    SaveImage,
    /// Where "Save twist rig" writes the model with the previewed roll joints.
    SaveTwistRig,
    /// Where "Save CoR centres" writes the model with its `_COR_CENTER`.
    SaveCorCenters,
}

impl DialogPurpose {
    /// The window title.
    #[must_use]
    pub fn title(self) -> &'static str {
        match self {
            Self::OpenModel => "Open a model",
            Self::SaveBlendMap => "Save blend map",
            Self::SaveImage => "Save image",
            Self::SaveTwistRig => "Save helper rig",
            Self::SaveCorCenters => "Save CoR centres",
        }
    }

    /// Whether the dialog writes a file (and so asks before replacing one).
    #[must_use]
    pub fn saves(self) -> bool {
        self != Self::OpenModel
    }

    /// The extensions listed (lower case, no dot).
    #[must_use]
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            Self::OpenModel => &crate::model::MODEL_EXTENSIONS,
            Self::SaveBlendMap => &["glb", "gltf", "usda"],
            Self::SaveImage => &["png"],
            Self::SaveTwistRig => &["glb", "gltf", "vrm"],
            Self::SaveCorCenters => &["glb", "gltf", "vrm", "usda"],
        }
    }
}

/// One row of the listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirEntry {
    /// The file or folder name.
    pub name: String,
    /// Whether it is a folder.
    pub is_dir: bool,
}

/// The dialog's state while it is up.
#[derive(Clone, Debug, PartialEq)]
pub struct FileDialog {
    /// What the file is for.
    pub purpose: DialogPurpose,
    /// The folder listed.
    pub dir: PathBuf,
    /// The name field: a name in `dir`, or a whole path.
    pub name: String,
    /// The folder's folders, then its files of the purpose's extensions, sorted by name.
    pub entries: Vec<DirEntry>,
    /// List every file, not only the purpose's extensions.
    pub all_files: bool,
    /// Why the folder could not be listed, or the name cannot be used.
    pub error: Option<String>,
    /// A save asked to replace this existing file: waiting for the user's yes or no.
    pub confirm_overwrite: Option<PathBuf>,
}

/// What the user did with the dialog this frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DialogOutcome {
    /// Still choosing.
    Open,
    /// Picked this file (for a save: new, or replacing one the user agreed to replace).
    Picked(PathBuf),
    /// Closed without a file.
    Cancelled,
}

impl FileDialog {
    /// A dialog for `purpose` listing `dir`, the name field holding `name`.
    #[must_use]
    pub fn new(purpose: DialogPurpose, dir: &Path, name: &str) -> Self {
        let mut dialog = Self {
            purpose,
            dir: PathBuf::new(),
            name: name.to_owned(),
            entries: Vec::new(),
            all_files: false,
            error: None,
            confirm_overwrite: None,
        };
        dialog.go_to(dir);
        dialog
    }

    /// Lists `dir` (made absolute when it can be), keeping the name field.
    pub fn go_to(&mut self, dir: &Path) {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        self.dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        match list_dir(&self.dir, self.purpose.extensions(), self.all_files) {
            Ok(entries) => {
                self.entries = entries;
                self.error = None;
            }
            Err(e) => {
                self.entries.clear();
                self.error = Some(format!("cannot list {}: {e}", self.dir.display()));
            }
        }
    }

    /// The file the name field names: a path as typed when absolute, else in the listed folder.
    #[must_use]
    pub fn chosen_path(&self) -> Option<PathBuf> {
        let name = self.name.trim();
        if name.is_empty() {
            return None;
        }
        let typed = Path::new(name);
        Some(if typed.is_absolute() {
            typed.to_path_buf()
        } else {
            self.dir.join(typed)
        })
    }

    /// The OK button: opens a folder the field names, else checks the file and picks it
    /// (a save over an existing file first asks for a confirm).
    pub fn accept(&mut self) -> DialogOutcome {
        let Some(path) = self.chosen_path() else {
            self.error = Some("type or click a file name".into());
            return DialogOutcome::Open;
        };
        if path.is_dir() {
            self.name.clear();
            self.go_to(&path);
            return DialogOutcome::Open;
        }
        if self.purpose.saves() {
            return self.accept_save(path);
        }
        if path.is_file() {
            DialogOutcome::Picked(path)
        } else {
            self.error = Some(format!("{} is not a file", path.display()));
            DialogOutcome::Open
        }
    }

    /// A save to `path`: refuses a missing folder or a wrong extension; asks before replacing.
    fn accept_save(&mut self, path: PathBuf) -> DialogOutcome {
        let exts = self.purpose.extensions();
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        if !exts.contains(&ext.as_str()) {
            self.error = Some(format!(
                "the name must end in .{} for {}",
                exts.join(" or ."),
                self.purpose.title().to_lowercase()
            ));
            return DialogOutcome::Open;
        }
        if path.parent().is_some_and(|d| !d.is_dir()) {
            self.error = Some(format!(
                "no folder {}",
                path.parent().unwrap_or(&path).display()
            ));
            return DialogOutcome::Open;
        }
        if path.exists() {
            self.confirm_overwrite = Some(path);
            return DialogOutcome::Open;
        }
        DialogOutcome::Picked(path)
    }

    /// The answer to the overwrite question: yes picks the file, no goes back to the dialog.
    pub fn answer_overwrite(&mut self, replace: bool) -> DialogOutcome {
        match self.confirm_overwrite.take() {
            Some(path) if replace => DialogOutcome::Picked(path),
            _ => DialogOutcome::Open,
        }
    }

    /// A listing row clicked (`double`: opened): a folder is entered on a double click, a
    /// file's name goes into the field, and a double-clicked file is accepted.
    pub fn click_entry(&mut self, index: usize, double: bool) -> DialogOutcome {
        let Some(entry) = self.entries.get(index).cloned() else {
            return DialogOutcome::Open;
        };
        if entry.is_dir {
            if double {
                let dir = if entry.name == ".." {
                    self.dir
                        .parent()
                        .map_or_else(|| self.dir.clone(), Path::to_path_buf)
                } else {
                    self.dir.join(&entry.name)
                };
                self.go_to(&dir);
            }
            return DialogOutcome::Open;
        }
        self.name = entry.name;
        if double {
            self.accept()
        } else {
            DialogOutcome::Open
        }
    }
}

/// The folders (with `..` first where there is a parent) and files of `dir` that end in one
/// of `exts` (any case), or every file with `all`; hidden entries left out; sorted by name.
///
/// # Errors
/// When the folder cannot be read.
pub fn list_dir(dir: &Path, exts: &[&str], all: bool) -> std::io::Result<Vec<DirEntry>> {
    let mut dirs = Vec::new();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let Ok(entry) = entry else { continue };
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        // Follows links: a link to a folder lists as a folder.
        let path = entry.path();
        if path.is_dir() {
            dirs.push(name);
        } else if path.is_file() {
            let ext = path
                .extension()
                .and_then(|e| e.to_str())
                .unwrap_or("")
                .to_ascii_lowercase();
            if all || exts.contains(&ext.as_str()) {
                files.push(name);
            }
        }
    }
    dirs.sort_by_key(|n| n.to_lowercase());
    files.sort_by_key(|n| n.to_lowercase());
    let up = dir.parent().map(|_| "..".to_owned());
    Ok(up
        .into_iter()
        .chain(dirs)
        .map(|name| DirEntry { name, is_dir: true })
        .chain(files.into_iter().map(|name| DirEntry {
            name,
            is_dir: false,
        }))
        .collect())
}

/// Draws the dialog as a window over the viewer; returns what the user did.
pub fn file_dialog_ui(ctx: &egui::Context, dialog: &mut FileDialog) -> DialogOutcome {
    let mut outcome = DialogOutcome::Open;
    let mut open = true;
    egui::Window::new(dialog.purpose.title())
        .id(egui::Id::unique("dqview file dialog"))
        .collapsible(false)
        .resizable(true)
        .default_size([520.0, 420.0])
        .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
        .open(&mut open)
        .show(ctx, |ui| {
            outcome = if dialog.confirm_overwrite.is_some() {
                confirm_ui(ui, dialog)
            } else {
                browse_ui(ui, dialog)
            };
        });
    if open {
        outcome
    } else {
        DialogOutcome::Cancelled
    }
}

/// The overwrite question.
fn confirm_ui(ui: &mut egui::Ui, dialog: &mut FileDialog) -> DialogOutcome {
    let path = dialog.confirm_overwrite.clone().unwrap_or_default();
    ui.label(format!("{} already exists.", path.display()));
    ui.label("Replace it?");
    let mut outcome = DialogOutcome::Open;
    ui.horizontal(|ui| {
        let yes = ui.button("Replace");
        super::probe::record(ui, "dialog replace", yes.rect);
        if yes.clicked() {
            outcome = dialog.answer_overwrite(true);
        }
        let no = ui.button("Keep it");
        super::probe::record(ui, "dialog keep", no.rect);
        if no.clicked() {
            outcome = dialog.answer_overwrite(false);
        }
    });
    outcome
}

/// The folder row, the listing, the name field and the buttons.
fn browse_ui(ui: &mut egui::Ui, dialog: &mut FileDialog) -> DialogOutcome {
    let mut outcome = DialogOutcome::Open;
    ui.horizontal(|ui| {
        ui.label("folder");
        ui.monospace(dialog.dir.display().to_string());
    });
    let list_height = (ui.available_height() - 90.0).max(120.0);
    egui::ScrollArea::vertical()
        .id_salt("dialog listing")
        .max_height(list_height)
        .auto_shrink([false, true])
        .show(ui, |ui| {
            for i in 0..dialog.entries.len() {
                let entry = &dialog.entries[i];
                let text = if entry.is_dir {
                    format!("[{}]", entry.name)
                } else {
                    entry.name.clone()
                };
                let chosen = !entry.is_dir && dialog.name == entry.name;
                let r = ui.selectable_label(chosen, text);
                super::probe::record(ui, &format!("dialog entry {}", entry.name), r.rect);
                if super::clicks::double_clicked(&r, egui::PointerButton::Primary) {
                    outcome = dialog.click_entry(i, true);
                } else if r.clicked() {
                    outcome = dialog.click_entry(i, false);
                }
                if outcome != DialogOutcome::Open || dialog.entries.len() <= i {
                    break;
                }
            }
        });
    let filter = ui.checkbox(&mut dialog.all_files, "all files");
    if filter.changed() {
        let dir = dialog.dir.clone();
        dialog.go_to(&dir);
    }
    let mut enter = false;
    ui.horizontal(|ui| {
        ui.label("name");
        let field = ui.add(
            egui::TextEdit::singleline(&mut dialog.name)
                .desired_width(f32::INFINITY)
                .hint_text("a file name, or a whole path"),
        );
        super::probe::record(ui, "dialog name", field.rect);
        enter = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
    });
    if let Some(e) = &dialog.error {
        ui.colored_label(egui::Color32::from_rgb(255, 110, 100), e);
    }
    ui.horizontal(|ui| {
        let label = if dialog.purpose.saves() {
            "Save"
        } else {
            "Open"
        };
        let ok = ui.button(label);
        super::probe::record(ui, "dialog ok", ok.rect);
        if ok.clicked() || enter {
            outcome = dialog.accept();
        }
        let cancel = ui.button("Cancel");
        super::probe::record(ui, "dialog cancel", cancel.rect);
        if cancel.clicked() {
            outcome = DialogOutcome::Cancelled;
        }
    });
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("dqview_dialog_{name}_{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).expect("temp dir");
        for f in [
            "b.glb",
            "A.gltf",
            "notes.txt",
            ".hidden.glb",
            "c.FBX",
            "d.vrm",
        ] {
            std::fs::write(dir.join(f), b"x").expect("file");
        }
        dir
    }

    #[test]
    fn the_listing_has_folders_first_then_the_purpose_files() {
        let dir = temp("list");
        let names = |all: bool| -> Vec<(String, bool)> {
            list_dir(&dir, DialogPurpose::OpenModel.extensions(), all)
                .expect("lists")
                .into_iter()
                .map(|e| (e.name, e.is_dir))
                .collect()
        };
        let s = |n: &str, d: bool| (n.to_owned(), d);
        assert_eq!(
            names(false),
            vec![
                s("..", true),
                s("sub", true),
                s("A.gltf", false),
                s("b.glb", false),
                s("c.FBX", false),
                s("d.vrm", false)
            ]
        );
        assert!(names(true).contains(&s("notes.txt", false)));
        assert!(!names(true).iter().any(|(n, _)| n.starts_with(".h")));
        let missing = FileDialog::new(DialogPurpose::OpenModel, &dir.join("nope"), "");
        assert!(
            missing
                .error
                .as_deref()
                .is_some_and(|e| e.contains("cannot list"))
        );
        std::fs::remove_dir_all(&dir).expect("clean");
    }

    #[test]
    fn open_picks_files_and_enters_folders() {
        let dir = temp("open");
        let mut d = FileDialog::new(DialogPurpose::OpenModel, &dir, "");
        assert_eq!(d.accept(), DialogOutcome::Open, "no name yet");
        assert!(d.error.is_some());
        let b = d.entries.iter().position(|e| e.name == "b.glb").expect("b");
        assert_eq!(d.click_entry(b, false), DialogOutcome::Open);
        assert_eq!(d.name, "b.glb");
        assert_eq!(
            d.click_entry(b, true),
            DialogOutcome::Picked(dir.join("b.glb"))
        );
        let sub = d.entries.iter().position(|e| e.name == "sub").expect("sub");
        d.click_entry(sub, true);
        assert_eq!(d.dir, dir.join("sub"));
        d.click_entry(0, true);
        assert_eq!(d.dir, dir, "`..` is the parent");
        d.name = "missing.glb".into();
        assert_eq!(d.accept(), DialogOutcome::Open);
        assert!(d.error.as_deref().is_some_and(|e| e.contains("not a file")));
        std::fs::remove_dir_all(&dir).expect("clean");
    }

    /// One egui frame at `time_s` with `events`, the dialog drawn; what it returned.
    fn frame(
        ctx: &egui::Context,
        dialog: &mut FileDialog,
        time_s: f64,
        events: Vec<egui::Event>,
    ) -> DialogOutcome {
        let mut outcome = DialogOutcome::Open;
        crate::ui::input_order::frame(ctx, time_s, events, |ui| {
            outcome = file_dialog_ui(ui.ctx(), dialog);
        });
        outcome
    }

    /// A press and a release at `pos`.
    fn click_at(pos: egui::Pos2) -> [egui::Event; 2] {
        [true, false].map(|pressed| crate::ui::input_order::button(pos, pressed))
    }

    #[test]
    fn a_double_click_soon_after_another_click_still_opens_the_file() {
        let dir = temp("quick");
        let mut d = FileDialog::new(DialogPurpose::OpenModel, &dir, "");
        let ctx = egui::Context::default();
        for k in 0..3 {
            frame(&ctx, &mut d, 0.01 * f64::from(k), Vec::new());
        }
        let pos = crate::ui::probe::take(&ctx)["dialog entry b.glb"]
            .rect
            .center();
        // A click elsewhere 0.1 s before: egui makes the double click's second click a triple.
        let mut events = vec![egui::Event::PointerMoved(egui::pos2(5.0, 5.0))];
        events.extend(click_at(egui::pos2(5.0, 5.0)));
        frame(&ctx, &mut d, 0.05, events);
        let mut events = vec![egui::Event::PointerMoved(pos)];
        events.extend(click_at(pos));
        events.extend(click_at(pos));
        assert_eq!(
            frame(&ctx, &mut d, 0.15, events),
            DialogOutcome::Picked(dir.join("b.glb"))
        );
        std::fs::remove_dir_all(&dir).expect("clean");
    }

    #[test]
    fn a_save_over_a_file_asks_first() {
        let dir = temp("save");
        let mut d = FileDialog::new(DialogPurpose::SaveBlendMap, &dir, "new_blend.glb");
        assert_eq!(d.accept(), DialogOutcome::Picked(dir.join("new_blend.glb")));
        d.name = "b.glb".into();
        assert_eq!(d.accept(), DialogOutcome::Open, "asks before replacing");
        assert_eq!(d.confirm_overwrite, Some(dir.join("b.glb")));
        assert_eq!(d.answer_overwrite(false), DialogOutcome::Open);
        assert_eq!(d.confirm_overwrite, None, "back to the listing");
        d.accept();
        assert_eq!(
            d.answer_overwrite(true),
            DialogOutcome::Picked(dir.join("b.glb"))
        );
        d.name = "out.png".into();
        assert_eq!(d.accept(), DialogOutcome::Open);
        assert!(
            d.error
                .as_deref()
                .is_some_and(|e| e.contains(".glb or .gltf"))
        );
        let elsewhere = dir.join("sub").join("x.glb");
        d.name = elsewhere.display().to_string();
        assert_eq!(d.accept(), DialogOutcome::Picked(elsewhere));
        d.name = dir.join("no_dir").join("x.glb").display().to_string();
        assert_eq!(d.accept(), DialogOutcome::Open);
        assert!(d.error.as_deref().is_some_and(|e| e.contains("no folder")));
        std::fs::remove_dir_all(&dir).expect("clean");
    }
}
