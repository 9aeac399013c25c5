//! A running count of the joint and vertex entries the skinning-side passes visit.
//!
//! Tests read it to check that a command's work follows joints plus influenced vertices
//! (a file with 100,000 joints and 48 vertices must not cost joints times joints); a count,
//! unlike a timing, does not depend on the machine. It is one relaxed atomic add per pass.

use std::sync::atomic::{AtomicU64, Ordering};

/// Entries visited so far, process-wide.
static VISITS: AtomicU64 = AtomicU64::new(0);

/// Joint and vertex entries visited by the counted passes so far in this process (never reset:
/// read it before and after the work to measure).
#[must_use]
pub fn work_visits() -> u64 {
    VISITS.load(Ordering::Relaxed)
}

/// Adds `n` visited entries: a pass calls it once with its length, not once per entry.
pub(crate) fn count_visits(n: usize) {
    VISITS.fetch_add(n as u64, Ordering::Relaxed);
}
