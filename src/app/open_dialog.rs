//! The native "open model" dialog, run without blocking the frame loop.

use std::path::PathBuf;
use std::sync::mpsc::{Receiver, TryRecvError, channel};

use winit::window::Window;

/// File types the dialog offers.
const EXTENSIONS: &[&str] = &["glb", "gltf", "fbx"];

/// An open dialog in flight: the window keeps drawing while the user picks.
pub(super) struct OpenDialog {
    picked: Receiver<Option<PathBuf>>,
}

impl OpenDialog {
    /// Shows the dialog over `window`; the answer arrives through [`OpenDialog::poll`].
    ///
    /// rfd recommends creating dialogs on the main thread and awaiting them elsewhere.
    pub fn show(window: &Window) -> Self {
        let pending = rfd::AsyncFileDialog::new()
            .set_title("Open a model")
            .add_filter("Models", EXTENSIONS)
            .add_filter("All files", &["*"])
            .set_parent(window)
            .pick_file();
        let (send, picked) = channel();
        let spawned = std::thread::Builder::new()
            .name("dqview-open-dialog".into())
            .spawn(move || {
                let path = pollster::block_on(pending).map(|f| f.path().to_path_buf());
                // The viewer may have closed meanwhile: nobody to tell, nothing to do.
                let _ = send.send(path);
            });
        if let Err(e) = spawned {
            log::error!("cannot start the open dialog: {e}");
        }
        Self { picked }
    }

    /// `None` while the dialog is open; then `Some(path)` once, or `Some(None)` if cancelled.
    pub fn poll(&self) -> Option<Option<PathBuf>> {
        match self.picked.try_recv() {
            Ok(answer) => Some(answer),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(None),
        }
    }
}
