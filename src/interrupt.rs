//! Ctrl+C for a command that writes files: it cancels for real until the output is committed
//! (the final rename), and after that it says the command finished. The handler and the commit
//! take one lock, so an interrupt lands wholly before the commit (nothing written) or after it
//! (everything written), and what it prints is true either way.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// A cancel flag for long work plus the record of what was committed.
#[derive(Debug, Default)]
pub struct Interrupt {
    /// Set by [`Interrupt::interrupt`] before the commit; long work polls it.
    cancel: AtomicBool,
    /// The main file once committed; held while committing.
    committed: Mutex<Option<PathBuf>>,
}

/// Why [`Interrupt::commit`] wrote nothing.
#[derive(Debug, thiserror::Error)]
pub enum CommitError<E> {
    /// An interrupt came first.
    #[error("cancelled: no file written")]
    Cancelled,
    /// The commit itself failed.
    #[error(transparent)]
    Failed(E),
}

impl Interrupt {
    /// Nothing interrupted, nothing committed.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            cancel: AtomicBool::new(false),
            committed: Mutex::new(None),
        }
    }

    /// The flag long work polls (set only by an interrupt before the commit).
    #[must_use]
    pub fn flag(&self) -> &AtomicBool {
        &self.cancel
    }

    /// Whether an interrupt asked to cancel.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// What the Ctrl+C handler does: cancels when nothing is committed yet, and returns the
    /// line to print (`cancelling: no file will be written` or `finished before the interrupt:
    /// wrote FILE`).
    pub fn interrupt(&self) -> String {
        let committed = self
            .committed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match committed.as_ref() {
            Some(file) => format!("finished before the interrupt: wrote {}", file.display()),
            None => {
                self.cancel.store(true, Ordering::Relaxed);
                String::from("cancelling: no file will be written")
            }
        }
    }

    /// Runs `write` (the final renames) unless an interrupt came first, and records `main` as
    /// committed when it succeeds; an interrupt meanwhile waits and then reports the file.
    pub fn commit<T, E>(
        &self,
        main: &Path,
        write: impl FnOnce() -> Result<T, E>,
    ) -> Result<T, CommitError<E>> {
        let mut committed = self
            .committed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if self.is_cancelled() {
            return Err(CommitError::Cancelled);
        }
        let out = write().map_err(CommitError::Failed)?;
        *committed = Some(main.to_owned());
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interrupt_before_the_commit_cancels_it_and_after_it_reports_the_file() {
        let early = Interrupt::new();
        assert_eq!(early.interrupt(), "cancelling: no file will be written");
        assert!(early.is_cancelled());
        let mut wrote = false;
        let out = early.commit(Path::new("a.glb"), || -> Result<(), ()> {
            wrote = true;
            Ok(())
        });
        assert!(matches!(out, Err(CommitError::Cancelled)));
        assert!(!wrote, "nothing is written after the interrupt");

        let late = Interrupt::new();
        late.commit(Path::new("out/b.glb"), || Ok::<_, ()>(()))
            .expect("commits");
        assert_eq!(
            late.interrupt(),
            "finished before the interrupt: wrote out/b.glb"
        );
        assert!(!late.is_cancelled(), "a late interrupt cancels nothing");
    }

    #[test]
    fn an_interrupt_during_the_commit_waits_for_it_and_reports_the_file() {
        let interrupt = std::sync::Arc::new(Interrupt::new());
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let handler = {
            let interrupt = interrupt.clone();
            std::thread::spawn(move || {
                started_rx.recv().expect("commit started");
                interrupt.interrupt()
            })
        };
        interrupt
            .commit(Path::new("c.usda"), || {
                started_tx.send(()).expect("handler waits");
                // The handler is blocked on the lock until this returns.
                std::thread::sleep(std::time::Duration::from_millis(50));
                Ok::<_, ()>(())
            })
            .expect("commits");
        let said = handler.join().expect("handler");
        assert_eq!(said, "finished before the interrupt: wrote c.usda");
    }

    #[test]
    fn a_failed_commit_records_nothing() {
        let interrupt = Interrupt::new();
        let out = interrupt.commit(Path::new("d.glb"), || Err::<(), _>("disk full"));
        assert!(matches!(out, Err(CommitError::Failed("disk full"))));
        assert_eq!(interrupt.interrupt(), "cancelling: no file will be written");
    }
}
