//! Work a session does once and keeps (a table), built by one request at a
//! time; the others wait, but only while their progress is not cancelled,
//! so a request with a budget never waits out another's long build.

use crate::error::PlyError;
use ply_core::Progress;
use std::sync::{Mutex, MutexGuard, OnceLock, TryLockError};
use std::time::Duration;

/// How long a waiter sleeps between two looks at a busy lock.
const POLL: Duration = Duration::from_millis(5);

/// Locks `mutex`, giving up with [`PlyError::Cancelled`] (saying `what` it
/// waited for) if `progress` is cancelled first.
pub fn lock_within<'a, T>(
    mutex: &'a Mutex<T>,
    progress: &dyn Progress,
    what: &str,
) -> Result<MutexGuard<'a, T>, PlyError> {
    loop {
        match mutex.try_lock() {
            Ok(guard) => return Ok(guard),
            // What the lock guards stays usable: take it as it is.
            Err(TryLockError::Poisoned(poisoned)) => return Ok(poisoned.into_inner()),
            Err(TryLockError::WouldBlock) => {
                if progress.cancelled() {
                    return Err(PlyError::Cancelled(format!("waiting for {what}")));
                }
                std::thread::sleep(POLL);
            }
        }
    }
}

/// A value built on first use and kept; a failed or cancelled build keeps
/// nothing, so the next use tries again.
pub struct Once<T> {
    value: OnceLock<T>,
    building: Mutex<()>,
}

impl<T> Default for Once<T> {
    fn default() -> Self {
        Self {
            value: OnceLock::new(),
            building: Mutex::new(()),
        }
    }
}

impl<T> Once<T> {
    /// The value, built now with `build` if no earlier build finished.
    /// Waits for a build under way unless `progress` is cancelled.
    pub fn get_or_build(
        &self,
        progress: &dyn Progress,
        what: &str,
        build: impl FnOnce() -> Result<T, PlyError>,
    ) -> Result<&T, PlyError> {
        if let Some(value) = self.value.get() {
            return Ok(value);
        }
        let _building = lock_within(&self.building, progress, what)?;
        if let Some(value) = self.value.get() {
            return Ok(value);
        }
        let value = build()?;
        Ok(self.value.get_or_init(|| value))
    }

    /// The value, if a build has finished.
    pub fn get(&self) -> Option<&T> {
        self.value.get()
    }

    /// Whether the value has been built.
    pub fn is_built(&self) -> bool {
        self.value.get().is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ply_core::{Budget, NoProgress};
    use std::sync::Arc;

    #[test]
    fn a_failed_build_is_tried_again() {
        let once: Once<u32> = Once::default();
        let failed = once.get_or_build(&NoProgress, "x", || Err(PlyError::argument("no")));
        assert!(failed.is_err());
        assert!(!once.is_built());
        assert_eq!(*once.get_or_build(&NoProgress, "x", || Ok(7)).unwrap(), 7);
        assert_eq!(*once.get_or_build(&NoProgress, "x", || Ok(8)).unwrap(), 7);
    }

    #[test]
    fn a_cancelled_waiter_stops_waiting() {
        let mutex = Arc::new(Mutex::new(()));
        let _held = mutex.lock().unwrap();
        let budget = Budget::new(&NoProgress).with_limit(Duration::from_millis(20));
        let waited = lock_within(&mutex, &budget, "the lock");
        assert!(matches!(waited, Err(PlyError::Cancelled(_))));
    }
}
