//! The viewer's files: the in-window dialog for Open, Save image, Save blend map, Save helper
//! rig and Save CoR centres, with the model's folder and name as the default, and File > Recent
//! for files opened or saved.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::viewer::Running;
use crate::blend_file::{MapSource, OutKind, write_output};
use crate::output_files::InputKind;
use crate::scene::Scene;
use crate::skin::SceneBetas;
use crate::ui::{DialogPurpose, FileDialog};

/// The folder a dialog starts in and the model's file stem: the model's own folder, or the
/// current folder for a built-in rig.
#[must_use]
pub fn model_folder_and_stem(model: &str) -> (PathBuf, String) {
    if let Some(name) = model.strip_prefix("builtin:") {
        return (PathBuf::from("."), name.to_owned());
    }
    let path = Path::new(model);
    let folder = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let stem = path
        .file_stem()
        .map_or_else(|| "model".into(), |s| s.to_string_lossy().into_owned());
    (folder, stem)
}

/// The name "Save blend map" offers: `NAME_blend.gltf` for a .gltf model (the map amends its
/// JSON), `NAME_blend.usda` (a layer) for USD, else `NAME_blend.glb` (a .glb amended, or the whole rig for FBX and built-ins).
#[must_use]
pub fn blend_map_name(model: &str) -> String {
    amended_name(model, "blend")
}

/// `NAME_TAG.EXT` in the kind a map or centres of `model` are written as: `.gltf` for a .gltf
/// (amended), `.usda` (a layer) for USD, else `.glb`.
fn amended_name(model: &str, tag: &str) -> String {
    let (_, stem) = model_folder_and_stem(model);
    let ext = match InputKind::of(model) {
        InputKind::Gltf => "gltf",
        InputKind::Usd => "usda",
        InputKind::Glb | InputKind::Fbx | InputKind::Builtin => "glb",
    };
    format!("{stem}_{tag}.{ext}")
}

/// Writes the model with `centers` as its `_COR_CENTER` to `out`; says what it wrote.
///
/// # Errors
/// The reason, in one line, when `out` cannot hold this model's kind or cannot be written.
pub fn save_cor_centers(
    scene: &Scene,
    centers: &crate::skin::SceneCenters,
    out: &Path,
) -> Result<String, String> {
    let model = scene.source.as_str();
    let fail = |e: anyhow::Error| {
        format!(
            "cannot save the CoR centres: {}",
            crate::report::error_message(&e)
        )
    };
    let kind = crate::cor_file::cor_out_kind(out, model).map_err(fail)?;
    let never = crate::interrupt::Interrupt::new();
    let report = crate::cor_file::write_cor_centers(scene, model, out, kind, centers, &never)
        .map_err(fail)?;
    Ok(said(out, &report))
}

/// "wrote OUT" and the report's notes and warnings, on one line.
fn said(out: &Path, report: &crate::output_files::WriteReport) -> String {
    let mut text = format!("wrote {}", out.display());
    for note in report.notes.iter().chain(&report.warnings) {
        text.push_str("; ");
        text.push_str(note);
    }
    text
}

/// The name "Save helper rig" offers: `NAME_helpers` with the model's own extension (the rig
/// amends the file in place, so it keeps its container).
#[must_use]
pub fn twist_rig_name(model: &str) -> String {
    let (_, stem) = model_folder_and_stem(model);
    let ext = Path::new(model)
        .extension()
        .and_then(|e| e.to_str())
        .map_or_else(|| "glb".to_owned(), str::to_ascii_lowercase);
    format!("{stem}_helpers.{ext}")
}

/// Writes `rig` (built from the file `model`) to `out`; says what it wrote.
///
/// # Errors
/// The reason, in one line, when the model is no glTF file or `out` cannot be written.
pub fn save_twist_rig(
    model: &str,
    rig: &crate::twist_joints::TwistRig,
    max_influences: usize,
    out: &Path,
) -> Result<String, String> {
    let never = crate::interrupt::Interrupt::new();
    let report = crate::rig_file::write_twist_rig(model, out, rig, max_influences, &never)
        .map_err(|e| {
            format!(
                "cannot save the twist rig: {}",
                crate::report::error_message(&e)
            )
        })?;
    let mut text = format!("wrote {}", report.file_list());
    for note in report.notes.iter().chain(&report.warnings) {
        text.push_str("; ");
        text.push_str(note);
    }
    Ok(text)
}

/// Writes the model with `map` as its `_DQS_BLEND` to `out`; says what it wrote.
///
/// # Errors
/// The reason, in one line, when `out` cannot hold this model's kind or cannot be written.
pub fn save_map(scene: &Scene, map: &SceneBetas, out: &Path) -> Result<String, String> {
    let model = scene.source.as_str();
    let fail = |e: anyhow::Error| {
        format!(
            "cannot save the blend map: {}",
            crate::report::error_message(&e)
        )
    };
    let kind = OutKind::of(out, None).map_err(fail)?;
    kind.check_input(InputKind::of(model), crate::blend_file::BLEND_MAP)
        .map_err(fail)?;
    let source = MapSource {
        model,
        out,
        poses: 0,
        smooth: 0,
    };
    let never = crate::interrupt::Interrupt::new();
    let report = write_output(scene, &source, kind, map, &never).map_err(fail)?;
    Ok(said(out, &report))
}

impl Running {
    /// Carries out the panels' file requests: shows the dialog for Open, Save image and Save
    /// blend map, acts on its answer, and opens a Recent entry.
    pub(super) fn handle_file_requests(&mut self) -> bool {
        let requests = &mut self.state.requests;
        let open = std::mem::take(&mut requests.open_dialog);
        let image = std::mem::take(&mut requests.save_image);
        let blend = std::mem::take(&mut self.state.paint.requests.save);
        let twist = std::mem::take(&mut self.state.twist.requests.save);
        let cor = std::mem::take(&mut self.state.cor.save);
        let (folder, stem) = model_folder_and_stem(&self.model.scene.source);
        if self.state.file_dialog.is_none() {
            let purpose = if open {
                Some((DialogPurpose::OpenModel, String::new()))
            } else if image {
                Some((DialogPurpose::SaveImage, format!("{stem}.png")))
            } else if blend && self.model.paint.map().is_none() {
                self.state.paint.message = Some("nothing painted to save".into());
                None
            } else if blend {
                let name = blend_map_name(&self.model.scene.source);
                Some((DialogPurpose::SaveBlendMap, name))
            } else if twist {
                self.twist_save_dialog()
            } else if cor {
                let name = amended_name(&self.model.scene.source, "cor");
                Some((DialogPurpose::SaveCorCenters, name))
            } else {
                None
            };
            if let Some((purpose, name)) = purpose {
                self.state.file_dialog = Some(FileDialog::new(purpose, &folder, &name));
            }
        }
        let picked = self.state.requests.picked.is_some();
        if let Some((purpose, path)) = self.state.requests.picked.take() {
            self.use_picked(purpose, &path);
        }
        let recent = self.state.requests.open_recent.is_some();
        if let Some(model) = self.state.requests.open_recent.take() {
            self.open_path(Path::new(&model));
        }
        open || image || blend || twist || cor || picked || recent
    }

    /// The Save helper rig dialog's purpose and name, or why there is nothing to save (in the section).
    fn twist_save_dialog(&mut self) -> Option<(DialogPurpose, String)> {
        let model = &self.model.scene.source;
        if !matches!(InputKind::of(model), InputKind::Glb | InputKind::Gltf) {
            self.state.twist.message = Some(format!(
                "Save helper rig amends glTF files (.gltf, .glb, .vrm); {model} is not one: \
                 export it to .glb first (dqview export)"
            ));
            return None;
        }
        if self.model.twist.current(&self.state.twist).is_none() {
            self.state.twist.message =
                Some("no helper rig built yet: show the LBS + helpers pane".into());
            return None;
        }
        Some((DialogPurpose::SaveTwistRig, twist_rig_name(model)))
    }

    /// Opens, saves the next frame to, or writes the blend map to `path`.
    fn use_picked(&mut self, purpose: DialogPurpose, path: &Path) {
        match purpose {
            DialogPurpose::OpenModel => self.open_path(path),
            DialogPurpose::SaveImage => self.files.pending_save = Some(path.to_path_buf()),
            DialogPurpose::SaveBlendMap => {
                let Some(map) = self.model.paint.map() else {
                    self.state.paint.message = Some("nothing painted to save".into());
                    return;
                };
                match save_map(&self.model.scene, map, path) {
                    Ok(message) => {
                        self.state.paint.message = Some(message);
                        self.remember_recent(&path.display().to_string());
                    }
                    Err(message) => self.state.paint.message = Some(message),
                }
            }
            DialogPurpose::SaveCorCenters => {
                let Some(centers) = self.model.cor.centers().cloned() else {
                    self.state.cor.message = Some("no centres computed yet".into());
                    return;
                };
                let said = save_cor_centers(&self.model.scene, &centers, path);
                if said.is_ok() {
                    self.remember_recent(&path.display().to_string());
                }
                self.state.cor.message = Some(said.unwrap_or_else(|e| e));
            }
            DialogPurpose::SaveTwistRig => {
                let Some((rig, max)) = self.model.twist.current(&self.state.twist) else {
                    self.state.twist.message = Some("no twist rig built yet".into());
                    return;
                };
                let (rig, model) = (Arc::clone(rig), self.model.scene.source.clone());
                let said = save_twist_rig(&model, &rig, max, path);
                if said.is_ok() {
                    self.remember_recent(&path.display().to_string());
                }
                self.state.twist.message = Some(said.unwrap_or_else(|e| e));
            }
        }
    }

    /// Puts `model` first in File > Recent (and in the user's list, outside scripted runs).
    pub(super) fn remember_recent(&mut self, model: &str) {
        self.state.recent = match &self.files.sessions.store {
            Some(store) => match store.push_recent(model) {
                Ok(list) => list.into_iter().map(|r| r.model).collect(),
                Err(e) => {
                    log::warn!("cannot update the recent files list: {e}");
                    return;
                }
            },
            None => {
                let list = self
                    .state
                    .recent
                    .iter()
                    .map(|m| crate::session::RecentModel { model: m.clone() })
                    .collect();
                crate::session::with_recent(list, model)
                    .into_iter()
                    .map(|r| r.model)
                    .collect()
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dialogs_start_in_the_model_folder_with_its_name() {
        assert_eq!(
            model_folder_and_stem("/data/rigs/hero.fbx"),
            (PathBuf::from("/data/rigs"), "hero".to_owned())
        );
        assert_eq!(
            model_folder_and_stem("builtin:twist"),
            (PathBuf::from("."), "twist".to_owned())
        );
        assert_eq!(blend_map_name("builtin:arm"), "arm_blend.glb");
        assert_eq!(blend_map_name("/nowhere/hero.fbx"), "hero_blend.glb");
        assert_eq!(blend_map_name("/nowhere/hero.gltf"), "hero_blend.gltf");
    }

    #[test]
    fn a_blend_map_goes_where_the_dialog_says_in_a_kind_the_model_allows() {
        let scene = crate::model::load_model("builtin:twist").expect("builtin");
        let map = SceneBetas::defaults(&scene, None, &crate::anim::JointOverrides::new());
        let dir = std::env::temp_dir().join(format!("dqview_save_map_{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let out = dir.join("chosen name.glb");
        let said = save_map(&scene, &map, &out).expect("written");
        assert!(said.contains("chosen name.glb"), "{said}");
        let back = crate::model::load_model(out.to_str().expect("utf-8")).expect("reads back");
        assert!(back.meshes[0].primitives[0].dqs_blend.is_some());
        let err = save_map(&scene, &map, &dir.join("x.gltf")).expect_err("a built-in is a .glb");
        assert!(err.contains(".glb"), "{err}");
        std::fs::remove_dir_all(&dir).expect("clean");
    }

    #[test]
    fn cor_centres_go_where_the_dialog_says_and_read_back() {
        let scene = crate::model::load_model("builtin:twist").expect("builtin");
        let centers = crate::skin::SceneCenters::compute(
            &scene,
            &crate::skin::CorOptions::default(),
            &crate::skin::CorProgress::new(),
        )
        .expect("centres");
        assert_eq!(amended_name("/nowhere/hero.gltf", "cor"), "hero_cor.gltf");
        assert_eq!(amended_name("/nowhere/hero.usdc", "cor"), "hero_cor.usda");
        let dir = std::env::temp_dir().join(format!("dqview_save_cor_{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let out = dir.join("twist cor.glb");
        let said = save_cor_centers(&scene, &centers, &out).expect("written");
        assert!(said.contains("twist cor.glb"), "{said}");
        let bytes = std::fs::read(&out).expect("written");
        let gltf = gltf::Gltf::from_slice(&bytes).expect("a GLB");
        let prim = gltf
            .meshes()
            .next()
            .and_then(|m| m.primitives().next())
            .expect("prim");
        let accessor = prim
            .attributes()
            .find(|(s, _)| *s == gltf::Semantic::Extras("COR_CENTER".into()))
            .map(|(_, a)| a)
            .expect("_COR_CENTER");
        assert_eq!(accessor.count(), centers.per_primitive[0][0].len());
        assert_eq!(accessor.dimensions(), gltf::accessor::Dimensions::Vec3);
        let err = save_cor_centers(&scene, &centers, &dir.join("x.json")).expect_err("no JSON");
        assert!(err.contains("_COR_CENTER"), "{err}");
        std::fs::remove_dir_all(&dir).expect("clean");
    }
}
