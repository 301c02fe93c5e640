//! Stopping long work cleanly on SIGINT or SIGTERM (Ctrl-C, `kill`): the
//! first such signal only marks the work cancelled, so that it returns
//! [`PlyError::Cancelled`](crate::PlyError::Cancelled) through its usual
//! path and cleans up after itself (an export removes its temporary file);
//! a second one ends the process at once.

use ply_core::Progress;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A [`Progress`] that passes everything to another and is cancelled once
/// a terminating signal has arrived.
pub struct OnSignal<'a> {
    inner: &'a dyn Progress,
    stopped: Arc<AtomicBool>,
}

impl<'a> OnSignal<'a> {
    /// Installs the handlers of SIGINT, SIGTERM and SIGQUIT (for the rest
    /// of the process) around `inner`.
    pub fn install(inner: &'a dyn Progress) -> std::io::Result<Self> {
        let stopped = Arc::new(AtomicBool::new(false));
        for &signal in signal_hook::consts::TERM_SIGNALS {
            // Registered first, so it sees the flag the first signal set:
            // only a second signal ends the process (exit code 128 + n).
            signal_hook::flag::register_conditional_shutdown(
                signal,
                128 + signal,
                Arc::clone(&stopped),
            )?;
            signal_hook::flag::register(signal, Arc::clone(&stopped))?;
        }
        Ok(Self { inner, stopped })
    }
}

impl Progress for OnSignal<'_> {
    fn begin(&self, phase: &str, total: u64) {
        self.inner.begin(phase, total);
    }

    fn advance(&self, done: u64) {
        self.inner.advance(done);
    }

    fn end(&self) {
        self.inner.end();
    }

    fn note(&self, line: &str) {
        self.inner.note(line);
    }

    fn cancelled(&self) -> bool {
        self.stopped.load(Ordering::Relaxed) || self.inner.cancelled()
    }
}
