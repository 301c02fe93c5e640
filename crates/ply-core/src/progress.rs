//! Progress reports from long computations, without any terminal I/O.

/// Receives progress from a solver. The `ply` binary draws it as a bar;
/// libraries and tests pass [`NoProgress`].
pub trait Progress: Sync {
    /// A new phase begins, with `total` units of work (0 if unknown).
    fn begin(&self, phase: &str, total: u64);
    /// `done` more units of the current phase are finished.
    fn advance(&self, done: u64);
    /// The current phase is over.
    fn end(&self);
    /// A line worth keeping once the bar is gone, such as how many
    /// positions a round of retrograde analysis decided. Dropped by default.
    fn note(&self, _line: &str) {}
    /// Whether the computation should stop as soon as it can (Ctrl-C, a
    /// request whose client has gone, a budget run out). Long computations
    /// poll this between units of work and return an error when it holds.
    /// Never, by default.
    fn cancelled(&self) -> bool {
        false
    }
}

/// Discards all progress.
#[derive(Copy, Clone, Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn begin(&self, _phase: &str, _total: u64) {}
    fn advance(&self, _done: u64) {}
    fn end(&self) {}
}
