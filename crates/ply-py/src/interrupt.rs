//! Long work with Ctrl-C: the work runs on its own thread with the GIL
//! released, while the calling (main) thread looks for signals every few
//! milliseconds; a pending KeyboardInterrupt cancels the work through its
//! [`Progress`] and is raised once the work has stopped.

use crate::errors;
use ply_core::Progress;
use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// How often the calling thread looks for signals.
const POLL: Duration = Duration::from_millis(20);

/// A [`Progress`] that is cancelled once a signal handler raised.
struct Stop(AtomicBool);

impl Progress for Stop {
    fn begin(&self, _phase: &str, _total: u64) {}
    fn advance(&self, _done: u64) {}
    fn end(&self) {}
    fn cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Runs `work`, letting Ctrl-C interrupt it (see the module docs). A ply
/// error becomes its Python exception; an interrupt raises the signal
/// handler's exception (KeyboardInterrupt).
pub fn run<T: Send>(
    py: Python<'_>,
    work: impl FnOnce(&dyn Progress) -> Result<T, ply::PlyError> + Send,
) -> PyResult<T> {
    let stop = Stop(AtomicBool::new(false));
    let done: (Mutex<Option<Result<T, ply::PlyError>>>, Condvar) =
        (Mutex::new(None), Condvar::new());
    std::thread::scope(|scope| {
        let (stop, done) = (&stop, &done);
        let worker = scope.spawn(move || {
            let result = work(stop);
            let mut slot = done.0.lock().unwrap_or_else(|p| p.into_inner());
            *slot = Some(result);
            done.1.notify_all();
        });
        let mut interrupt = None;
        loop {
            let result = py.detach(|| {
                let slot = done.0.lock().unwrap_or_else(|p| p.into_inner());
                let (mut slot, _) = done
                    .1
                    .wait_timeout_while(slot, POLL, |slot| slot.is_none())
                    .unwrap_or_else(|p| p.into_inner());
                slot.take()
            });
            if let Some(result) = result {
                return match (interrupt, result) {
                    (Some(signal), _) => Err(signal),
                    (None, Ok(value)) => Ok(value),
                    (None, Err(error)) => Err(errors::to_py(error)),
                };
            }
            if worker.is_finished() && done.0.lock().is_ok_and(|slot| slot.is_none()) {
                // It ended without an answer: it panicked. Joined here, the
                // panic is reported as an error rather than raised again.
                let _ = worker.join();
                return Err(errors::PlyError::new_err(
                    "internal error: the solver stopped without an answer",
                ));
            }
            if interrupt.is_none()
                && let Err(signal) = py.check_signals()
            {
                stop.0.store(true, Ordering::Relaxed);
                interrupt = Some(signal);
            }
        }
    })
}
