//! Stopping long work cleanly on SIGINT or SIGTERM (Ctrl-C, `kill`): the
//! first such signal only cancels the work's [`Budget`], so that it returns
//! [`PlyError::Cancelled`](crate::PlyError::Cancelled) through its usual
//! path and cleans up after itself (an export removes its temporary file);
//! a second one ends the process at once.

use ply_core::{Budget, Progress};
use std::sync::Arc;

/// A budget around `inner` that is cancelled by SIGINT, SIGTERM or SIGQUIT
/// (the handlers stay for the rest of the process).
pub fn on_signal(inner: &dyn Progress) -> std::io::Result<Budget<'_>> {
    let budget = Budget::new(inner);
    let stopped = budget.flag();
    for &signal in signal_hook::consts::TERM_SIGNALS {
        // Registered first, so it sees the flag the first signal set: only
        // a second signal ends the process (exit code 128 + n).
        signal_hook::flag::register_conditional_shutdown(
            signal,
            128 + signal,
            Arc::clone(&stopped),
        )?;
        signal_hook::flag::register(signal, Arc::clone(&stopped))?;
    }
    Ok(budget)
}
