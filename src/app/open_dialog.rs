//! The native file dialogs ("open model", "save image"), run without blocking the frame loop.

use std::path::PathBuf;
use std::sync::mpsc::{Receiver, TryRecvError, channel};

use winit::window::Window;

/// File types the dialog offers.
const EXTENSIONS: &[&str] = &["glb", "gltf", "fbx", "usd", "usda", "usdc", "usdz"];

/// A file dialog in flight: the window keeps drawing while the user picks.
pub(super) struct OpenDialog {
    picked: Receiver<Option<PathBuf>>,
}

impl OpenDialog {
    /// Shows the open dialog over `window`; the answer arrives through [`OpenDialog::poll`].
    ///
    /// rfd recommends creating dialogs on the main thread and awaiting them elsewhere.
    pub fn show(window: &Window) -> Self {
        let pending = rfd::AsyncFileDialog::new()
            .set_title("Open a model")
            .add_filter("Models", EXTENSIONS)
            .add_filter("All files", &["*"])
            .set_parent(window)
            .pick_file();
        Self::awaiting(pending)
    }

    /// Shows the save-image dialog over `window`, offering `suggested` as the file name.
    pub fn show_save(window: &Window, suggested: &str) -> Self {
        let pending = rfd::AsyncFileDialog::new()
            .set_title("Save image")
            .add_filter("PNG image", &["png"])
            .set_file_name(suggested)
            .set_parent(window)
            .save_file();
        Self::awaiting(pending)
    }

    /// Waits for `pending` on a thread; the answer arrives through [`OpenDialog::poll`].
    fn awaiting(
        pending: impl std::future::Future<Output = Option<rfd::FileHandle>> + Send + 'static,
    ) -> Self {
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
