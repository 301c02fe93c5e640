//! Progress on stderr for long computations, by one rule for every game
//! and command (issue 58):
//!
//! - On a terminal, a bar for a phase of known size (a spinner otherwise),
//!   with notes (a line per tier solved, per round of retrograde analysis)
//!   printed above it.
//! - When stderr is not a terminal, no bar: nothing for the first
//!   [`QUIET_FOR`], so a quick answer stays quiet; after that every note on
//!   a line of its own, and a line of how far the work is at once and
//!   whenever [`LOG_EVERY`] passes without a line, so that a log shows a
//!   line per tier or per 10 s whatever the game.
//!
//! [`BarProgress`] (solves, analyses, exports) and [`Working`] (work of
//! unknown size, such as a search) both follow it through [`Lines`].

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ply_core::Progress;
use std::io::IsTerminal;
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a command works before it writes a line when stderr is not a
/// terminal (on a terminal a bar or spinner shows at once).
pub const QUIET_FOR: Duration = Duration::from_secs(1);

/// The longest a command goes without a line of progress when stderr is
/// not a terminal, once [`QUIET_FOR`] has passed.
pub const LOG_EVERY: Duration = Duration::from_secs(10);

/// How often the watcher looks whether a line is due.
const TICK: Duration = Duration::from_millis(250);

/// The rule for lines on a stderr that is not a terminal: when a note may
/// be written and when a line of progress is due.
struct Lines {
    /// When the work began.
    since: Instant,
    /// When the last line was written, if one was.
    last: Mutex<Option<Instant>>,
    /// [`QUIET_FOR`], or less in tests.
    quiet: Duration,
    /// [`LOG_EVERY`], or less in tests.
    every: Duration,
}

impl Lines {
    fn new(quiet: Duration, every: Duration) -> Self {
        Self {
            since: Instant::now(),
            last: Mutex::new(None),
            quiet,
            every,
        }
    }

    /// Whether a note may be written now (the quiet start is over); if so,
    /// it counts as the latest line.
    fn note_now(&self) -> bool {
        if self.since.elapsed() < self.quiet {
            return false;
        }
        if let Ok(mut last) = self.last.lock() {
            *last = Some(Instant::now());
        }
        true
    }

    /// Whether a line of progress is due now: the quiet start is over and
    /// no line has been written yet, or none for [`LOG_EVERY`]. If so, the
    /// caller writes it, and it counts as the latest line.
    fn due(&self) -> bool {
        if self.since.elapsed() < self.quiet {
            return false;
        }
        let Ok(mut last) = self.last.lock() else {
            return false;
        };
        if last.is_some_and(|at| at.elapsed() < self.every) {
            return false;
        }
        *last = Some(Instant::now());
        true
    }
}

/// A thread that writes the line `status` gives whenever [`Lines::due`]
/// says one is due; stopped and joined when dropped.
struct Watcher {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Watcher {
    fn start(lines: Arc<Lines>, status: impl Fn() -> Option<String> + Send + 'static) -> Self {
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            while stopped.recv_timeout(TICK) == Err(mpsc::RecvTimeoutError::Timeout) {
                // Only when there is something to say: between phases,
                // nothing.
                if let Some(line) = status()
                    && lines.due()
                {
                    eprintln!("{line}");
                }
            }
        });
        Self {
            stop: Some(stop),
            thread: Some(thread),
        }
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Draws solver progress on stderr by the module's rule: a bar on a
/// terminal, lines otherwise.
pub struct BarProgress {
    bar: Arc<Mutex<Option<ProgressBar>>>,
    /// Whether stderr is a terminal.
    terminal: bool,
    /// The rule for lines when it is not.
    lines: Arc<Lines>,
    /// Writes the due lines (not on a terminal).
    _watcher: Option<Watcher>,
}

impl BarProgress {
    /// A progress reporter with no phase begun.
    pub fn new() -> Self {
        Self::with(std::io::stderr().is_terminal(), QUIET_FOR, LOG_EVERY)
    }

    fn with(terminal: bool, quiet: Duration, every: Duration) -> Self {
        let bar = Arc::new(Mutex::new(None));
        let lines = Arc::new(Lines::new(quiet, every));
        let watcher = (!terminal).then(|| {
            let bar = bar.clone();
            Watcher::start(lines.clone(), move || status_of(&bar))
        });
        Self {
            bar,
            terminal,
            lines,
            _watcher: watcher,
        }
    }
}

/// The line saying how far the current phase is, if one is begun: the
/// phase, how far it is, and for how long it has run.
fn status_of(bar: &Mutex<Option<ProgressBar>>) -> Option<String> {
    let bar = bar.lock().ok()?.clone()?;
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
        let target = if self.terminal {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        bar.set_draw_target(target);
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

    /// Above the bar on a terminal; otherwise a line of its own once the
    /// quiet start is over.
    fn note(&self, line: &str) {
        let bar = self.bar.lock().ok().and_then(|slot| slot.clone());
        match bar {
            Some(bar) if self.terminal => bar.println(line),
            None if self.terminal => eprintln!("{line}"),
            _ if self.lines.note_now() => eprintln!("{line}"),
            _ => {}
        }
    }
}

/// Says what a command is doing while it works, by the module's rule: on a
/// terminal, a spinner with the current phase and the time elapsed;
/// otherwise a line once the quiet start is over and another whenever
/// [`LOG_EVERY`] passes without one. Stops when dropped.
pub struct Working {
    what: String,
    phase: Arc<Mutex<String>>,
    spinner: Option<ProgressBar>,
    /// The rule for lines when stderr is not a terminal.
    lines: Arc<Lines>,
    /// Writes the due lines (not on a terminal).
    _watcher: Option<Watcher>,
}

impl Working {
    /// Starts saying `what` the command is doing (e.g. `solving
    /// tictactoe:5x5x4`); phases begun through [`Progress`] add to it.
    pub fn new(what: &str) -> Self {
        Self::with(what, std::io::stderr().is_terminal(), QUIET_FOR, LOG_EVERY)
    }

    fn with(what: &str, terminal: bool, quiet: Duration, every: Duration) -> Self {
        let phase = Arc::new(Mutex::new(String::new()));
        let lines = Arc::new(Lines::new(quiet, every));
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
                lines,
                _watcher: None,
            };
        }
        let (said, current, since) = (what.to_string(), phase.clone(), lines.since);
        let watcher = Watcher::start(lines.clone(), move || {
            Some(still_working(&said, &current, since.elapsed()))
        });
        Self {
            what: what.to_string(),
            phase,
            spinner: None,
            lines,
            _watcher: Some(watcher),
        }
    }
}

/// The line [`Working`] writes: what, the phase if one is begun, and for
/// how long.
fn still_working(what: &str, phase: &Mutex<String>, elapsed: Duration) -> String {
    let phase = phase.lock().map(|p| p.clone()).unwrap_or_default();
    let phase = if phase.is_empty() {
        String::new()
    } else {
        format!(" ({phase})")
    };
    format!(
        "ply: {what}{phase}: still working after {} s; this can take minutes",
        elapsed.as_secs()
    )
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

    /// Above the spinner on a terminal; otherwise a line of its own once
    /// the quiet start is over.
    fn note(&self, line: &str) {
        match &self.spinner {
            Some(spinner) => spinner.println(line),
            None if self.lines.note_now() => eprintln!("{line}"),
            None => {}
        }
    }
}

impl Drop for Working {
    fn drop(&mut self) {
        if let Some(spinner) = self.spinner.take() {
            spinner.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOUR: Duration = Duration::from_secs(3600);

    #[test]
    fn nothing_is_written_in_the_quiet_start() {
        let lines = Lines::new(HOUR, Duration::ZERO);
        assert!(!lines.due(), "a line in the quiet start");
        assert!(!lines.note_now(), "a note in the quiet start");
    }

    #[test]
    fn after_the_quiet_start_a_line_at_once_then_one_per_interval() {
        let lines = Lines::new(Duration::ZERO, HOUR);
        assert!(lines.due(), "the first line is due at once");
        assert!(!lines.due(), "a second line within the interval");
        let lines = Lines::new(Duration::ZERO, HOUR);
        assert!(lines.note_now(), "a note is written");
        assert!(!lines.due(), "a note counts as the latest line");
        let lines = Lines::new(Duration::ZERO, Duration::ZERO);
        assert!(lines.due() && lines.due(), "due every time at no interval");
    }

    #[test]
    fn a_phase_off_a_terminal_says_how_far_it_is() {
        let progress = BarProgress::with(false, Duration::ZERO, Duration::ZERO);
        assert_eq!(status_of(&progress.bar), None, "no phase begun");
        progress.begin("tier m9-9", 400);
        progress.advance(100);
        let line = status_of(&progress.bar).expect("a phase is begun");
        assert!(
            line.starts_with("ply: tier m9-9: 100 of 400 (25.0%) after "),
            "{line}"
        );
        progress.end();
        assert_eq!(status_of(&progress.bar), None, "the phase is over");
        // On a terminal the bar shows it: no watcher writes lines.
        let terminal = BarProgress::with(true, Duration::ZERO, Duration::ZERO);
        assert!(terminal._watcher.is_none());
        assert!(progress._watcher.is_some());
    }

    #[test]
    fn working_says_what_its_phase_is_and_for_how_long() {
        let phase = Mutex::new(String::new());
        assert_eq!(
            still_working("solving teeko", &phase, Duration::from_secs(12)),
            "ply: solving teeko: still working after 12 s; this can take minutes"
        );
        let working = Working::with("solving teeko", false, HOUR, HOUR);
        working.begin("tier 8", 0);
        assert_eq!(
            still_working("solving teeko", &working.phase, Duration::from_secs(1)),
            "ply: solving teeko (tier 8): still working after 1 s; this can take minutes"
        );
        assert!(working._watcher.is_some() && working.spinner.is_none());
    }
}
