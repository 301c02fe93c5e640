//! Progress bars on stderr for long computations.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ply_core::Progress;
use std::io::IsTerminal;
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Draws solver progress as a bar on stderr. When stderr is not a
/// terminal the bar is hidden, so scripted use stays clean, and a long
/// phase writes a plain line of how far it is every [`LOG_EVERY`] instead,
/// so that the log of a run of hours shows it is moving.
pub struct BarProgress {
    bar: Mutex<Option<ProgressBar>>,
    /// When it was made: notes reach a stderr that is not a terminal only
    /// once the work has gone on for [`QUIET_FOR`].
    since: Instant,
    /// Whether stderr is a terminal.
    terminal: bool,
    /// When the last line of progress was written (not on a terminal).
    logged: Mutex<Instant>,
    /// How often such a line is written.
    log_every: Duration,
}

/// How often a phase's progress is written as a line when stderr is not a
/// terminal.
pub const LOG_EVERY: Duration = Duration::from_secs(60);

impl BarProgress {
    /// A progress reporter with no phase begun.
    pub fn new() -> Self {
        Self::with(std::io::stderr().is_terminal(), LOG_EVERY)
    }

    fn with(terminal: bool, log_every: Duration) -> Self {
        Self {
            bar: Mutex::new(None),
            since: Instant::now(),
            terminal,
            logged: Mutex::new(Instant::now()),
            log_every,
        }
    }

    /// The line of progress due now, if one is (never on a terminal): the
    /// phase, how far it is, and for how long it has run.
    fn due_line(&self) -> Option<String> {
        if self.terminal {
            return None;
        }
        let mut logged = self.logged.try_lock().ok()?;
        if logged.elapsed() < self.log_every {
            return None;
        }
        let bar = self.bar.lock().ok()?.clone()?;
        *logged = Instant::now();
        let (done, total) = (bar.position(), bar.length().unwrap_or(0));
        let share = if total == 0 {
            String::new()
        } else {
            format!(" of {total} ({:.1}%)", 100.0 * done as f64 / total as f64)
        };
        Some(format!(
            "ply: {}: {done}{share} after {} s",
            bar.message(),
            bar.elapsed().as_secs()
        ))
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
        if let Some(line) = self.due_line() {
            eprintln!("{line}");
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
            Some(bar) if self.terminal => bar.println(line),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phase_off_a_terminal_says_how_far_it_is_once_due() {
        let progress = BarProgress::with(false, Duration::ZERO);
        assert_eq!(progress.due_line(), None, "no phase begun");
        progress.begin("tier m9-9", 400);
        progress.advance(100);
        let line = progress.due_line().expect("a line is due");
        assert!(
            line.starts_with("ply: tier m9-9: 100 of 400 (25.0%) after "),
            "{line}"
        );
        let waiting = BarProgress::with(false, Duration::from_secs(3600));
        waiting.begin("tier m9-9", 400);
        waiting.advance(100);
        assert_eq!(waiting.due_line(), None, "not due for an hour");
        let terminal = BarProgress::with(true, Duration::ZERO);
        terminal.begin("tier m9-9", 400);
        assert_eq!(terminal.due_line(), None, "the bar shows it");
    }
}
