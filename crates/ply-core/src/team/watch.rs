//! The peers' heartbeat files as one process sees them: a peer whose file
//! has not changed for the timeout, measured on the watcher's own clock,
//! is lost.

use super::heartbeat::{Beat, heartbeat_path};
use super::{Team, TeamError};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The peers' heartbeats (written by [`super::Heartbeat::in_dir`]) as one
/// process sees them.
pub(crate) struct Watch {
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
    pub(crate) fn new(dir: &Path, game: &str, team: &Team) -> Watch {
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
    pub(crate) fn alive(&mut self, process: usize) -> Result<(), TeamError> {
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
        let host = beat.as_ref().map(|beat| beat.host.clone());
        if let Some(beat) = &beat
            && *live
            && (beat.processes != self.team.processes || beat.process != process)
        {
            return Err(TeamError::Lost {
                process,
                host,
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
                "its heartbeat {} (pid {}) has not changed for {} s: it was killed, \
                 stopped or cut off; rerun every process to resume",
                path.display(),
                beat.pid,
                silent.as_secs()
            ),
            None => format!(
                "no heartbeat {} appeared in the {} s since this process started: start it \
                 (with the same --processes and the same database directory)",
                path.display(),
                now.duration_since(self.started).as_secs()
            ),
        };
        Err(TeamError::Lost { process, host, why })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::team::Heartbeat;
    use std::time::Duration;

    #[test]
    fn a_peer_whose_heartbeat_stops_is_named_with_its_host() {
        let dir = tempfile::tempdir().unwrap();
        let timeout = Duration::from_millis(300);
        let me = Team::new(2, 0, timeout).unwrap();
        let peer = Team::new(2, 1, timeout).unwrap();
        let beat = Heartbeat::in_dir(dir.path(), "g", &peer).unwrap();
        let mut watch = Watch::new(dir.path(), "g", &me);
        assert!(watch.alive(1).is_ok());
        // A beat the peer wrote after the watch began: it is alive, and its
        // host is known from then on.
        std::thread::sleep(Duration::from_millis(150));
        assert!(watch.alive(1).is_ok());
        drop(beat);
        let until = Instant::now() + Duration::from_secs(10);
        let error = loop {
            match watch.alive(1) {
                Err(error) => break error,
                Ok(()) if Instant::now() < until => std::thread::sleep(Duration::from_millis(50)),
                Ok(()) => panic!("the stopped peer was never found lost"),
            }
        };
        let TeamError::Lost { process, host, .. } = &error else {
            panic!("not a lost peer: {error}");
        };
        assert_eq!(*process, 1);
        assert!(host.is_some(), "{error}");
        assert!(!heartbeat_path(dir.path(), "g", 1).exists(), "removed");
    }
}
