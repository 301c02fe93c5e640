//! The processes of a team telling each other, over TCP, what they
//! finished and sending each other what they solved. A tier team tells
//! "tier T is written", "my slice of tier T is written" and "I am done"
//! ([`Notice`]); a table team sends each tier's cells it solved as a
//! message ([`Crew::send`], [`Crew::receive`]). A process waits for what it
//! needs as a message from the process that does it, never by looking for
//! a file.
//!
//! Every process is connected to every other one ([`super::connect`]), with
//! the one [`Heartbeat`] over TCP beside each data connection: a peer
//! killed closes its sockets, and one frozen or cut off is found silent
//! within the peer timeout, its data socket then shut here. Either way
//! what is waited for from it never comes, and the wait ends with
//! [`TeamError::Lost`] naming it (or the process it lost first, as that
//! one told: the `losses` module).
//!
//! A frame starts with 9 bytes: its kind, then a step of the plan (8
//! bytes, little-endian). A notice is those 9 bytes alone; a message (kind
//! 4) follows them with its length (8 bytes, little-endian) and that many
//! bytes, which the receiver checks (see the `part` module). A frame of
//! an unknown kind ends the connection, and the wait for that peer fails
//! with [`TeamError::Garbled`] naming it.

use super::{Heartbeat, Team, TeamError, losses};
use std::collections::{HashMap, HashSet};
use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::{Mutex, mpsc};
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

/// The kind of a frame carrying a message: a step, a length and bytes.
const MESSAGE: u8 = 4;

/// What a reader thread heard from its peer.
enum Heard {
    /// A notice from this peer.
    Notice(usize, Notice),
    /// A message from this peer, for a step of the plan.
    Message(usize, u64, Vec<u8>),
    /// The peer's connection ended, with how.
    Ended(usize, Ending),
}

/// How a peer's connection ended.
#[derive(Clone, Debug)]
enum Ending {
    /// It closed, failed or was shut here when the peer went silent, with
    /// what was seen.
    Closed(String),
    /// The peer sent a frame that does not read, with what was wrong.
    Garbled(String),
}

/// One frame read from a peer.
enum Frame {
    /// A notice.
    Notice(Notice),
    /// A message, for a step of the plan.
    Message(u64, Vec<u8>),
}

/// Reads one frame from `reader`: a notice or a message.
fn read_frame(reader: &mut impl Read) -> Result<Frame, Ending> {
    let failed = |e: std::io::Error, what: &str| {
        Ending::Closed(if e.kind() == ErrorKind::UnexpectedEof {
            format!("its connection closed{what}")
        } else {
            format!("its connection failed{what}: {e}")
        })
    };
    let mut frame = [0u8; 9];
    reader.read_exact(&mut frame).map_err(|e| failed(e, ""))?;
    if frame[0] != MESSAGE {
        return match Notice::parse(frame) {
            Some(notice) => Ok(Frame::Notice(notice)),
            None => Err(Ending::Garbled(format!(
                "a frame of unknown kind {}",
                frame[0]
            ))),
        };
    }
    let mut step = [0u8; 8];
    step.copy_from_slice(&frame[1..]);
    let mut len = [0u8; 8];
    reader
        .read_exact(&mut len)
        .map_err(|e| failed(e, " inside a message's header"))?;
    let len = u64::from_le_bytes(len);
    // Read as it comes (a length that lies makes no allocation of its size).
    let mut bytes = Vec::new();
    let read = reader
        .take(len)
        .read_to_end(&mut bytes)
        .map_err(|e| failed(e, " inside a message"))?;
    if (read as u64) < len {
        return Err(Ending::Closed(format!(
            "its connection closed inside a message ({read} of its {len} bytes came)"
        )));
    }
    Ok(Frame::Message(u64::from_le_bytes(step), bytes))
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
    /// What the reader threads hear (in a mutex only so that a table
    /// team's member may be shared between the threads of a tier: it is
    /// reached through `&mut self` alone, never locked).
    heard: Mutex<mpsc::Receiver<Heard>>,
    /// The reader threads, ended by shutting the sockets.
    readers: Vec<JoinHandle<()>>,
    /// By peer, the notices heard from it.
    notices: Vec<HashSet<Notice>>,
    /// By peer, the messages heard from it and not yet taken, by step.
    messages: Vec<HashMap<u64, Vec<u8>>>,
    /// By peer, how its connection ended, once it did.
    ended: Vec<Option<Ending>>,
}

impl Crew {
    /// Connects `team`'s process to all the others (within the team's
    /// connect timeout), starts the heartbeat, and listens. `tag`
    /// identifies the work: a process with another tag is refused.
    pub(crate) fn join(team: &Team, tag: u64) -> Result<Crew, TeamError> {
        if team.hosts.len() != team.processes {
            return Err(TeamError::Config(format!(
                "a team of {} processes over TCP needs the address of each (it has {})",
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
                    let ending = loop {
                        let heard = match read_frame(&mut reader) {
                            Ok(Frame::Notice(notice)) => Heard::Notice(peer, notice),
                            Ok(Frame::Message(step, bytes)) => Heard::Message(peer, step, bytes),
                            Err(ending) => break ending,
                        };
                        if tell.send(heard).is_err() {
                            return;
                        }
                    };
                    let _ = tell.send(Heard::Ended(peer, ending));
                })
                .map_err(io)?;
            readers.push(thread);
        }
        Ok(Crew {
            team: team.clone(),
            _heartbeat: heartbeat,
            out: links.data,
            heard: Mutex::new(heard),
            readers,
            notices: vec![HashSet::new(); team.processes],
            messages: vec![HashMap::new(); team.processes],
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

    /// Sends every peer `bytes` as the message of step `step` (each takes
    /// it with [`Crew::receive`]). A peer that cannot take it is lost,
    /// which shows where it is waited for: one frozen blocks the sending
    /// only until its heartbeat's silence shuts its socket.
    pub(crate) fn send(&mut self, step: u64, bytes: &[u8]) {
        let mut header = [0u8; 17];
        header[0] = MESSAGE;
        header[1..9].copy_from_slice(&step.to_le_bytes());
        header[9..].copy_from_slice(&(bytes.len() as u64).to_le_bytes());
        for stream in self.out.iter_mut().flatten() {
            let _ = stream
                .write_all(&header)
                .and_then(|()| stream.write_all(bytes));
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
        self.wait(from, what, cancelled, |crew| {
            crew.notices[from].contains(&notice).then_some(())
        })
    }

    /// Waits for the message of step `step` from process `from` (`what`,
    /// for people) and takes it; fails naming `from` if it ends, is lost
    /// or garbles its frames first, or if `cancelled` says so.
    pub(crate) fn receive(
        &mut self,
        from: usize,
        step: u64,
        what: &str,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Vec<u8>, TeamError> {
        self.wait(from, what, cancelled, |crew| {
            crew.messages[from].remove(&step)
        })
    }

    /// Waits until `take` finds what process `from` was to send (`what`).
    fn wait<T>(
        &mut self,
        from: usize,
        what: &str,
        cancelled: &dyn Fn() -> bool,
        mut take: impl FnMut(&mut Crew) -> Option<T>,
    ) -> Result<T, TeamError> {
        if from == self.team.process || from >= self.team.processes {
            return Err(TeamError::Config(format!(
                "process {} cannot wait for {what} from process {from}",
                self.team.process
            )));
        }
        loop {
            if let Some(found) = take(self) {
                return Ok(found);
            }
            if self.notices[from].contains(&Notice::Bye) {
                return Err(TeamError::Lost {
                    process: from,
                    host: self.team.host(from).map(str::to_string),
                    why: format!("it ended before it had written {what} (stopped early?)"),
                });
            }
            match &self.ended[from] {
                Some(Ending::Closed(why)) => {
                    return Err(self.lost(from, &format!("{why} before it had written {what}")));
                }
                Some(Ending::Garbled(why)) => {
                    return Err(TeamError::Garbled {
                        process: from,
                        host: self.team.host(from).map(str::to_string),
                        why: format!("{why}, before it had sent {what}"),
                    });
                }
                None => {}
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
        let receiver = self.heard.get_mut().unwrap_or_else(|e| e.into_inner());
        let mut next = receiver.recv_timeout(wait).ok();
        while let Some(heard) = next {
            match heard {
                Heard::Notice(peer, notice) => {
                    self.notices[peer].insert(notice);
                }
                Heard::Message(peer, step, bytes) => {
                    self.messages[peer].insert(step, bytes);
                }
                Heard::Ended(peer, ending) => self.ended[peer] = Some(ending),
            }
            next = receiver.try_recv().ok();
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
    fn messages_reach_every_peer_by_step_and_one_never_sent_names_its_sender() {
        let hosts = hosts(3);
        let peers: Vec<_> = (1..3)
            .map(|process| {
                let team = member(&hosts, process);
                std::thread::spawn(move || {
                    let mut crew = Crew::join(&team, 5).expect("joined");
                    crew.send(2, &[process as u8; 3]);
                    crew.send(1, &vec![7; 1 << 20]);
                    let other = 3 - process;
                    let never = || false;
                    let got = crew.receive(other, 2, "step 2", &never).expect("step 2");
                    assert_eq!(got, vec![other as u8; 3]);
                    crew.finish();
                })
            })
            .collect();
        let mut crew = Crew::join(&member(&hosts, 0), 5).expect("joined");
        let never = || false;
        for peer in 1..3 {
            // Taken in another order than sent.
            let first = crew.receive(peer, 1, "step 1", &never).expect("step 1");
            assert_eq!(first, vec![7; 1 << 20]);
            let second = crew.receive(peer, 2, "step 2", &never).expect("step 2");
            assert_eq!(second, vec![peer as u8; 3]);
        }
        // Process 1 says it is done without a message for step 3.
        let error = crew
            .receive(1, 3, "its part of tier 3", &never)
            .unwrap_err();
        assert!(
            matches!(error, TeamError::Lost { process: 1, .. }),
            "{error}"
        );
        assert!(error.to_string().contains("part of tier 3"), "{error}");
        crew.finish();
        for peer in peers {
            peer.join().expect("no panic");
        }
    }

    #[test]
    fn a_frame_short_or_of_an_unknown_kind_is_an_ending_not_a_panic() {
        let mut message = vec![MESSAGE];
        message.extend_from_slice(&9u64.to_le_bytes());
        message.extend_from_slice(&3u64.to_le_bytes());
        message.extend_from_slice(b"abc");
        let Ok(Frame::Message(9, bytes)) = read_frame(&mut message.as_slice()) else {
            panic!("a whole message reads back");
        };
        assert_eq!(bytes, b"abc");
        let Ok(Frame::Notice(Notice::Tier(4))) = read_frame(&mut &Notice::Tier(4).frame()[..])
        else {
            panic!("a notice reads back");
        };
        for cut in [5, 12, 19] {
            match read_frame(&mut &message[..cut]) {
                Err(Ending::Closed(why)) => assert!(why.contains("closed"), "{why}"),
                _ => panic!("a frame cut at {cut} is a closed connection"),
            }
        }
        // A length far past what comes allocates nothing of its size.
        let mut lying = message.clone();
        lying[9..17].copy_from_slice(&u64::MAX.to_le_bytes());
        match read_frame(&mut lying.as_slice()) {
            Err(Ending::Closed(why)) => assert!(why.contains("3 of its"), "{why}"),
            _ => panic!("a message shorter than its length is a closed connection"),
        }
        match read_frame(&mut &[9u8; 9][..]) {
            Err(Ending::Garbled(why)) => assert!(why.contains("unknown kind 9"), "{why}"),
            _ => panic!("an unknown kind is garbled"),
        }
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
