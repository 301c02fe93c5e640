//! Progress bars on stderr for long computations.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ply_core::Progress;
use std::io::IsTerminal;
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::Duration;

/// Draws solver progress as a bar on stderr (hidden when stderr is not a
/// terminal, so scripted use stays clean).
pub struct BarProgress {
    bar: Mutex<Option<ProgressBar>>,
    /// When it was made: notes reach a stderr that is not a terminal only
    /// once the work has gone on for [`QUIET_FOR`].
    since: std::time::Instant,
}

impl BarProgress {
    /// A progress reporter with no phase begun.
    pub fn new() -> Self {
        Self {
            bar: Mutex::new(None),
            since: std::time::Instant::now(),
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
        if let Ok(mut slot) = self.bar.lock()
            && let Some(old) = slot.replace(bar)
        {
            old.finish_and_clear();
        }
    }

    fn advance(&self, done: u64) {
        if let Ok(slot) = self.bar.lock()
            && let Some(bar) = slot.as_ref()
        {
            bar.inc(done);
        }
    }

    fn end(&self) {
        if let Ok(mut slot) = self.bar.lock()
            && let Some(bar) = slot.take()
        {
            bar.finish_and_clear();
        }
    }

    /// Above the bar on a terminal; otherwise a plain line on stderr once
    /// the work has gone on for [`QUIET_FOR`], so that the log of a long
    /// run keeps it and a quick answer stays quiet.
    fn note(&self, line: &str) {
        let bar = self.bar.lock().ok().and_then(|slot| slot.clone());
        match bar {
            Some(bar) if std::io::stderr().is_terminal() => bar.println(line),
            _ if self.since.elapsed() >= QUIET_FOR => eprintln!("{line}"),
            _ => {}
        }
    }
}

/// How long a command works before it says so when stderr is not a
/// terminal (on a terminal a spinner shows at once).
pub const QUIET_FOR: Duration = Duration::from_secs(1);

/// Says what a command is doing while it works: on a terminal, a spinner
/// with the current phase and the time elapsed; otherwise one line on
/// stderr once the work has gone on for [`QUIET_FOR`]. Stops when dropped.
pub struct Working {
    what: String,
    phase: Arc<Mutex<String>>,
    spinner: Option<ProgressBar>,
    stop: Option<mpsc::Sender<()>>,
    watcher: Option<JoinHandle<()>>,
}

impl Working {
    /// Starts saying `what` the command is doing (e.g. `solving
    /// tictactoe:5x5x4`); phases begun through [`Progress`] add to it.
    pub fn new(what: &str) -> Self {
        Self::with_terminal(what, std::io::stderr().is_terminal())
    }

    fn with_terminal(what: &str, terminal: bool) -> Self {
        let phase = Arc::new(Mutex::new(String::new()));
        if terminal {
            let spinner = ProgressBar::new_spinner();
            spinner.set_draw_target(ProgressDrawTarget::stderr());
            if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} {elapsed}") {
                spinner.set_style(style);
            }
            spinner.set_message(what.to_string());
            spinner.enable_steady_tick(Duration::from_millis(120));
            return Self {
                what: what.to_string(),
                phase,
                spinner: Some(spinner),
                stop: None,
                watcher: None,
            };
        }
        let (stop, stopped) = mpsc::channel::<()>();
        let (said, current) = (what.to_string(), phase.clone());
        let watcher = std::thread::spawn(move || {
            if stopped.recv_timeout(QUIET_FOR) == Err(mpsc::RecvTimeoutError::Timeout) {
                let phase = current.lock().map(|p| p.clone()).unwrap_or_default();
                let phase = if phase.is_empty() {
                    String::new()
                } else {
                    format!(" ({phase})")
                };
                eprintln!(
                    "ply: {said}{phase}: still working after {} s; this can take minutes",
                    QUIET_FOR.as_secs()
                );
            }
        });
        Self {
            what: what.to_string(),
            phase,
            spinner: None,
            stop: Some(stop),
            watcher: Some(watcher),
        }
    }
}

impl Progress for Working {
    fn begin(&self, phase: &str, _total: u64) {
        if let Ok(mut current) = self.phase.lock() {
            phase.clone_into(&mut current);
        }
        if let Some(spinner) = &self.spinner {
            spinner.set_message(format!("{}: {phase}", self.what));
        }
    }

    fn advance(&self, _done: u64) {}

    fn end(&self) {}
}

impl Drop for Working {
    fn drop(&mut self) {
        if let Some(spinner) = self.spinner.take() {
            spinner.finish_and_clear();
        }
        drop(self.stop.take());
        if let Some(watcher) = self.watcher.take() {
            let _ = watcher.join();
        }
    }
}
