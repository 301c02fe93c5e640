//! The processes of a tier team telling each other, over TCP, what they
//! finished: "tier T is written", "my slice of tier T is written", and
//! "I am done". A process waits for what it needs as a message from the
//! process that does it, never by looking for a file.
//!
//! Every process is connected to every other one ([`super::connect`]), with
//! the one [`Heartbeat`] over TCP beside each data connection: a peer
//! killed closes its sockets, and one frozen or cut off is found silent
//! within the peer timeout, its data socket then shut here. Either way
//! what is waited for from it never comes, and the wait ends with
//! [`TeamError::Lost`] naming it (or the process it lost first, as that
//! one told: the `losses` module).
//!
//! The shards themselves still go to the shared directory; only "done"
//! travels here. A frame is 9 bytes: its kind, then a step of the plan
//! (8 bytes, little-endian).

use super::{Heartbeat, Team, TeamError, losses};
use std::collections::HashSet;
use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What a process of a tier team tells the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Notice {
    /// The shard of this step of the plan is written and sound.
    Tier(u64),
    /// The sender's slice of this cut step is written and sound.
    Slice(u64),
    /// The sender has nothing more to tell.
    Bye,
}

impl Notice {
    fn frame(self) -> [u8; 9] {
        let (kind, step) = match self {
            Notice::Tier(step) => (1, step),
            Notice::Slice(step) => (2, step),
            Notice::Bye => (3, 0),
        };
        let mut frame = [0u8; 9];
        frame[0] = kind;
        frame[1..].copy_from_slice(&step.to_le_bytes());
        frame
    }

    fn parse(frame: [u8; 9]) -> Option<Notice> {
        let mut step = [0u8; 8];
        step.copy_from_slice(&frame[1..]);
        let step = u64::from_le_bytes(step);
        match frame[0] {
            1 => Some(Notice::Tier(step)),
            2 => Some(Notice::Slice(step)),
            3 => Some(Notice::Bye),
            _ => None,
        }
    }
}

/// What a reader thread heard from its peer.
enum Heard {
    /// A notice from this peer.
    Notice(usize, Notice),
    /// The peer's connection ended (it closed, failed or was shut here
    /// when the peer went silent), with what was seen.
    Ended(usize, String),
}

/// How long a wait sleeps between looks at whether the build was
/// cancelled (messages end it at once).
const TICK: Duration = Duration::from_millis(100);

/// One process's place in a tier team over TCP: its connections to the
/// others, its heartbeat, and what it heard so far.
pub(crate) struct Crew {
    team: Team,
    /// Kept for its `Drop`, which stops the heartbeat.
    _heartbeat: Heartbeat,
    /// The data connections, by peer (`None` at this process).
    out: Vec<Option<TcpStream>>,
    /// What the reader threads hear.
    heard: mpsc::Receiver<Heard>,
    /// The reader threads, ended by shutting the sockets.
    readers: Vec<JoinHandle<()>>,
    /// By peer, the notices heard from it.
    notices: Vec<HashSet<Notice>>,
    /// By peer, why its connection ended, once it did.
    ended: Vec<Option<String>>,
}

impl Crew {
    /// Connects `team`'s process to all the others (within the team's
    /// connect timeout), starts the heartbeat, and listens. `tag`
    /// identifies the work: a process with another tag is refused.
    pub(crate) fn join(team: &Team, tag: u64) -> Result<Crew, TeamError> {
        if team.hosts.len() != team.processes {
            return Err(TeamError::Config(format!(
                "a tier team of {} processes needs the address of each (it has {})",
                team.processes,
                team.hosts.len()
            )));
        }
        let links = super::connect(team, tag, Instant::now() + team.connect_timeout)?;
        let heartbeat = Heartbeat::over(&links, team.peer_timeout)?;
        let (tell, heard) = mpsc::channel();
        let mut readers = Vec::new();
        let io = |error| TeamError::Io {
            what: "cannot listen to the team's connections".into(),
            error,
        };
        for (peer, stream) in links.data.iter().enumerate() {
            let Some(stream) = stream else { continue };
            let mut reader = stream.try_clone().map_err(io)?;
            let tell = tell.clone();
            let thread = std::thread::Builder::new()
                .name(format!("ply:crew-{peer}"))
                .spawn(move || {
                    let mut frame = [0u8; 9];
                    let why = loop {
                        match reader.read_exact(&mut frame) {
                            Ok(()) => match Notice::parse(frame) {
                                Some(notice) => {
                                    if tell.send(Heard::Notice(peer, notice)).is_err() {
                                        return;
                                    }
                                }
                                None => break format!("it sent an unknown frame {}", frame[0]),
                            },
                            Err(e) if e.kind() == ErrorKind::UnexpectedEof => {
                                break "its connection closed".to_string();
                            }
                            Err(e) => break format!("its connection failed: {e}"),
                        }
                    };
                    let _ = tell.send(Heard::Ended(peer, why));
                })
                .map_err(io)?;
            readers.push(thread);
        }
        Ok(Crew {
            team: team.clone(),
            _heartbeat: heartbeat,
            out: links.data,
            heard,
            readers,
            notices: vec![HashSet::new(); team.processes],
            ended: vec![None; team.processes],
        })
    }

    /// Tells every peer `notice`. A peer that cannot take it is lost,
    /// which shows where it is waited for.
    pub(crate) fn tell(&mut self, notice: Notice) {
        let frame = notice.frame();
        for stream in self.out.iter_mut().flatten() {
            let _ = stream.write_all(&frame);
        }
    }

    /// Whether process `from` told `notice` by now.
    pub(crate) fn heard(&mut self, from: usize, notice: Notice) -> bool {
        self.hear(Duration::ZERO);
        self.notices.get(from).is_some_and(|n| n.contains(&notice))
    }

    /// Waits until process `from` tells `notice` (`what`, for people);
    /// fails naming it if it ends or is lost first, or if `cancelled`
    /// says so.
    pub(crate) fn wait_for(
        &mut self,
        from: usize,
        notice: Notice,
        what: &str,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<(), TeamError> {
        if from == self.team.process || from >= self.team.processes {
            return Err(TeamError::Config(format!(
                "process {} cannot wait for {what} from process {from}",
                self.team.process
            )));
        }
        loop {
            if self.notices[from].contains(&notice) {
                return Ok(());
            }
            if self.notices[from].contains(&Notice::Bye) {
                return Err(TeamError::Lost {
                    process: from,
                    host: self.team.host(from).map(str::to_string),
                    why: format!("it ended before it had written {what} (stopped early?)"),
                });
            }
            if let Some(why) = &self.ended[from] {
                return Err(self.lost(from, &format!("{why} before it had written {what}")));
            }
            if cancelled() {
                return Err(TeamError::Cancelled);
            }
            self.hear(TICK);
        }
    }

    /// Tells every peer this process is done, then waits until each of
    /// them is done too or has ended (a frozen one is found silent within
    /// the peer timeout), so that nothing it sent is left unread here when
    /// this process closes its connections.
    pub(crate) fn finish(mut self) {
        self.tell(Notice::Bye);
        let me = self.team.process;
        for peer in (0..self.team.processes).filter(|&p| p != me) {
            while !self.notices[peer].contains(&Notice::Bye) && self.ended[peer].is_none() {
                self.hear(TICK);
            }
        }
    }

    /// Takes what the reader threads heard, waiting up to `wait` for the
    /// first of it.
    fn hear(&mut self, wait: Duration) {
        let mut next = self.heard.recv_timeout(wait).ok();
        while let Some(heard) = next {
            match heard {
                Heard::Notice(peer, notice) => {
                    self.notices[peer].insert(notice);
                }
                Heard::Ended(peer, why) => self.ended[peer] = Some(why),
            }
            next = self.heard.try_recv().ok();
        }
    }

    /// The error for peer `from`, whose connection ended (`why`) while it
    /// was waited for: the loss this process or a peer found first (a
    /// silent peer, or the one a teller lost), else `from` itself.
    fn lost(&self, from: usize, why: &str) -> TeamError {
        losses::record(Some(from), why.to_string());
        match losses::lost() {
            Some(lost @ TeamError::Lost { process, .. }) if process != self.team.process => lost,
            _ => TeamError::Lost {
                process: from,
                host: self.team.host(from).map(str::to_string),
                why: format!("{why} (it was killed or failed; see its own error)"),
            },
        }
    }
}

impl Drop for Crew {
    fn drop(&mut self) {
        for stream in self.out.iter().flatten() {
            let _ = stream.shutdown(Shutdown::Both);
        }
        for reader in self.readers.drain(..) {
            let _ = reader.join();
        }
    }
}

/// The tag of a tier team's handshake for the game named `game` with
/// `processes` processes: processes of another game or team size are
/// refused when they connect.
pub(crate) fn tag(game: &str, processes: usize) -> u64 {
    super::tag_of(&format!("tier team {game} {processes}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::team::free_hosts as hosts;

    fn member(hosts: &[String], process: usize) -> Team {
        Team::on_hosts(hosts.to_vec(), process, Duration::from_secs(5)).expect("a team")
    }

    #[test]
    fn a_notice_reaches_the_peer_and_a_peer_ended_early_is_named() {
        let hosts = hosts(2);
        let other = member(&hosts, 1);
        let peer = std::thread::spawn(move || {
            let mut crew = Crew::join(&other, 9).expect("joined");
            crew.tell(Notice::Tier(3));
            crew.finish();
        });
        let mut crew = Crew::join(&member(&hosts, 0), 9).expect("joined");
        let never = || false;
        crew.wait_for(1, Notice::Tier(3), "tier 3", &never)
            .expect("told");
        let error = crew
            .wait_for(1, Notice::Slice(4), "its slice of tier 4", &never)
            .unwrap_err();
        assert!(
            matches!(error, TeamError::Lost { process: 1, .. }),
            "{error}"
        );
        assert!(error.to_string().contains("slice of tier 4"), "{error}");
        crew.finish();
        peer.join().expect("no panic");
    }

    #[test]
    fn frames_read_back_and_tags_tell_games_apart() {
        for notice in [Notice::Tier(0), Notice::Slice(u64::MAX), Notice::Bye] {
            assert_eq!(Notice::parse(notice.frame()), Some(notice));
        }
        assert_eq!(Notice::parse([9; 9]), None);
        assert_ne!(tag("quixo:3x3", 2), tag("quixo:3x3", 3));
        assert_ne!(tag("quixo:3x3", 2), tag("teeko:4x4", 2));
    }
}
