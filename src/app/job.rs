//! What the viewer's background jobs share: taking a result off a job's channel.

use std::sync::mpsc;

/// The job's result if it has landed (blocking for it when `wait`); `Empty` while it runs,
/// `Disconnected` when the job ended without one.
pub fn receive<T>(result: &mpsc::Receiver<T>, wait: bool) -> Result<T, mpsc::TryRecvError> {
    if wait {
        result.recv().map_err(|_| mpsc::TryRecvError::Disconnected)
    } else {
        result.try_recv()
    }
}
