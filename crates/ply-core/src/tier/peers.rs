//! The team of processes building one game's tiers through a shared
//! directory, and how each knows the others are alive: every process keeps
//! a heartbeat file there (`GAME.process-I.heartbeat`: its index, pid,
//! host, a beat count and the time), rewritten atomically several times
//! per timeout. A process waiting on another's tier takes it as lost once
//! its heartbeat has not changed for the timeout, measured on the waiter's
//! own clock (so clocks of different machines need not agree): a process
//! killed, stopped (SIGSTOP) or cut off is named, never waited on forever.

use super::TierError;
use crate::db;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// One process's place in a team building a game's tiers together.
#[derive(Clone, Debug)]
pub struct Team {
    /// How many processes take part.
    pub processes: usize,
    /// Which one this is, from 0.
    pub process: usize,
    /// How long a peer's heartbeat may stay unchanged before it is lost.
    pub peer_timeout: Duration,
}

impl Team {
    /// Process `process` of `processes`, taking a peer as lost after
    /// `peer_timeout`; fails unless `process < processes`.
    pub fn new(processes: usize, process: usize, peer_timeout: Duration) -> Result<Team, String> {
        if process >= processes {
            return Err(format!(
                "process {process} must be below the number of processes, {processes}"
            ));
        }
        Ok(Team {
            processes,
            process,
            peer_timeout,
        })
    }
}

/// The heartbeat file of process `process` of the game named `game` in `dir`.
pub fn heartbeat_path(dir: &Path, game: &str, process: usize) -> PathBuf {
    dir.join(format!("{}process-{process}.heartbeat", db::stem(game)))
}

/// This machine's name, as the heartbeat gives it.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "an unnamed host".into())
}

/// What a heartbeat file says.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Beat {
    process: usize,
    processes: usize,
    pid: u32,
    host: String,
    beat: u64,
}

impl Beat {
    fn text(&self) -> String {
        let time = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        format!(
            "process {} of {}\npid {}\nhost {}\nbeat {}\ntime {time}\n",
            self.process, self.processes, self.pid, self.host, self.beat
        )
    }

    fn parse(text: &str) -> Option<Beat> {
        let field = |name: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
                .map(str::to_string)
        };
        let of = field("process")?;
        let (process, processes) = of.split_once(" of ")?;
        Some(Beat {
            process: process.parse().ok()?,
            processes: processes.parse().ok()?,
            pid: field("pid")?.parse().ok()?,
            host: field("host")?,
            beat: field("beat")?.parse().ok()?,
        })
    }
}

/// Writes the file atomically: a temporary beside it, renamed over it.
fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let temp = db::temporary::path_for(path);
    std::fs::write(&temp, text)?;
    std::fs::rename(&temp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&temp);
    })
}

/// This process's heartbeat: rewritten by a thread until dropped, then
/// removed (a finished process is waited on by nobody).
pub struct Heartbeat {
    path: PathBuf,
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Heartbeat {
    /// Starts the heartbeat of `team`'s process for the game `game` in
    /// `dir`, writing the first beat before returning.
    pub fn start(dir: &Path, game: &str, team: &Team) -> Result<Heartbeat, TierError> {
        std::fs::create_dir_all(dir).map_err(|e| db::DbError::io(dir, e))?;
        let path = heartbeat_path(dir, game, team.process);
        let mut beat = Beat {
            process: team.process,
            processes: team.processes,
            pid: std::process::id(),
            host: host_name(),
            beat: 0,
        };
        write_atomically(&path, &beat.text()).map_err(|e| db::DbError::io(&path, e))?;
        let every = (team.peer_timeout / 5).min(Duration::from_millis(500));
        let (stop, stopped) = mpsc::channel::<()>();
        let file = path.clone();
        let thread = std::thread::spawn(move || {
            while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                beat.beat += 1;
                // A beat that cannot be written is missed; the peers then
                // take this process as lost, which is what it is to them.
                let _ = write_atomically(&file, &beat.text());
            }
        });
        Ok(Heartbeat {
            path,
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The peers' heartbeats as one process sees them.
pub struct Watch {
    dir: PathBuf,
    game: String,
    team: Team,
    started: Instant,
    /// Per process: the heartbeat last read, when it last changed, and
    /// whether it changed since this watch began (else it may be left by
    /// an earlier run).
    seen: Vec<(Option<String>, Instant, bool)>,
}

impl Watch {
    /// Watches the peers of `team`'s process, from now.
    pub fn new(dir: &Path, game: &str, team: &Team) -> Watch {
        let started = Instant::now();
        let seen = (0..team.processes)
            .map(|p| {
                let text = std::fs::read_to_string(heartbeat_path(dir, game, p)).ok();
                (text, started, false)
            })
            .collect();
        Watch {
            dir: dir.to_path_buf(),
            game: game.to_string(),
            team: team.clone(),
            started,
            seen,
        }
    }

    /// Fails, naming `process`, if its heartbeat has not changed for the
    /// timeout (or never appeared since this watch began), or if it is of
    /// a team of another size.
    pub fn alive(&mut self, process: usize) -> Result<(), TierError> {
        let path = heartbeat_path(&self.dir, &self.game, process);
        let text = std::fs::read_to_string(&path).ok();
        let now = Instant::now();
        let (last, since, live) = &mut self.seen[process];
        if text.is_some() && text != *last {
            *last = text;
            *since = now;
            *live = true;
        }
        let beat = last.as_deref().and_then(Beat::parse);
        if let Some(beat) = &beat
            && *live
            && (beat.processes != self.team.processes || beat.process != process)
        {
            return Err(TierError::Lost {
                process,
                why: format!(
                    "its heartbeat {} says it is process {} of {}, but this is process {} of {}: \
                     start every process with the same --processes",
                    path.display(),
                    beat.process,
                    beat.processes,
                    self.team.process,
                    self.team.processes
                ),
            });
        }
        let silent = now.duration_since(*since);
        if silent <= self.team.peer_timeout {
            return Ok(());
        }
        let why = match beat {
            Some(beat) => format!(
                "its heartbeat {} (pid {} on {}) has not changed for {} s: it was killed, \
                 stopped or cut off; rerun every process to resume",
                path.display(),
                beat.pid,
                beat.host,
                silent.as_secs()
            ),
            None => format!(
                "no heartbeat {} appeared in the {} s since this process started: start it \
                 (with the same --processes and the same database directory)",
                path.display(),
                now.duration_since(self.started).as_secs()
            ),
        };
        Err(TierError::Lost { process, why })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_heartbeat_reads_back() {
        let beat = Beat {
            process: 2,
            processes: 3,
            pid: 77,
            host: "node-a".into(),
            beat: 9,
        };
        assert_eq!(Beat::parse(&beat.text()), Some(beat));
        assert_eq!(Beat::parse("process 1\npid 2\n"), None);
    }
}
