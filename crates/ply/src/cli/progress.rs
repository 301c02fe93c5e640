//! Progress bars on stderr for long computations.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ply_core::Progress;
use std::sync::Mutex;

/// Draws solver progress as a bar on stderr (hidden when stderr is not a
/// terminal, so scripted use stays clean).
pub struct BarProgress {
    bar: Mutex<Option<ProgressBar>>,
}

impl BarProgress {
    /// A progress reporter with no phase begun.
    pub fn new() -> Self {
        Self {
            bar: Mutex::new(None),
        }
    }
}

impl Default for BarProgress {
    fn default() -> Self {
        Self::new()
    }
}

impl Progress for BarProgress {
    fn begin(&self, phase: &str, total: u64) {
        let bar = if total == 0 {
            ProgressBar::new_spinner()
        } else {
            ProgressBar::new(total)
        };
        bar.set_draw_target(ProgressDrawTarget::stderr());
        let template = if total == 0 {
            "{spinner} {msg} {elapsed}"
        } else {
            "{msg:>12} [{bar:40}] {percent:>3}% {pos}/{len} eta {eta}"
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(phase.to_string());
        if let Ok(mut slot) = self.bar.lock() {
            if let Some(old) = slot.replace(bar) {
                old.finish_and_clear();
            }
        }
    }

    fn advance(&self, done: u64) {
        if let Ok(slot) = self.bar.lock() {
            if let Some(bar) = slot.as_ref() {
                bar.inc(done);
            }
        }
    }

    fn end(&self) {
        if let Ok(mut slot) = self.bar.lock() {
            if let Some(bar) = slot.take() {
                bar.finish_and_clear();
            }
        }
    }
}
