//! The peers this process knows it lost over TCP, and why, so that the
//! error names the right one.
//!
//! Whatever carries the data (timely's network threads, in the `dist`
//! module's adapter) records the first failure it sees ([`record`]), and
//! so do the heartbeats when a peer goes silent. A process that finds a
//! peer lost then ends, and its own sockets close: a third process that
//! had not yet found the loss itself (its timeout running later, or the
//! lost host cut off from some peers only) would blame the process that
//! ended. So the first loss a process finds is told at once to every other
//! peer on the heartbeat connection, before this process shuts anything,
//! and a process blames the peer it was told of rather than the teller
//! ([`lost`]).

use super::TeamError;
use std::io::Write;
use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The network failures this process knows of.
static LOST: Mutex<Losses> = Mutex::new(Losses {
    seen: None,
    told: Vec::new(),
    hosts: Vec::new(),
});

/// The network failures this process knows of: its own first one, and
/// those its peers told it of before they ended.
struct Losses {
    /// The first failure seen here, by timely's threads or the heartbeats:
    /// (the peer process it names, what happened).
    seen: Option<(Option<usize>, String)>,
    /// Losses peers told of: (the teller, the peer it lost, what happened).
    told: Vec<(usize, usize, String)>,
    /// The hosts of the run, to name the processes.
    hosts: Vec<String>,
}

impl Losses {
    /// The peer to blame and why: the first failure seen here, unless the
    /// peer it names told of a loss of its own before it ended (then that
    /// loss, followed as far as it leads), with the process that found it.
    fn blame(&self) -> Option<(Option<usize>, String, Option<usize>)> {
        let (mut peer, mut why) = self.seen.clone()?;
        let mut by = None;
        for _ in 0..self.told.len() {
            let Some(told) = peer.and_then(|p| self.told.iter().find(|(teller, ..)| *teller == p))
            else {
                break;
            };
            by = Some(told.0);
            peer = Some(told.1);
            why = told.2.clone();
        }
        Some((peer, why, by))
    }

    /// The error naming the peer to blame ([`Losses::blame`]) and its
    /// host: [`TeamError::Lost`], or a failed connection
    /// ([`TeamError::Io`]) when the failure names no peer.
    fn error(&self) -> Option<TeamError> {
        let name = |p: usize| match self.hosts.get(p) {
            Some(host) => format!("process {p} ({host})"),
            None => format!("process {p}"),
        };
        Some(match self.blame()? {
            (Some(peer), why, by) => TeamError::Lost {
                process: peer,
                host: self.hosts.get(peer).cloned(),
                why: format!(
                    "{why}{} (it stopped or failed; see its own error)",
                    by.map_or_else(String::new, |b| format!(", as {} found", name(b)))
                ),
            },
            (None, why, _) => TeamError::Io {
                what: "a connection to a peer process failed".into(),
                error: std::io::Error::other(why),
            },
        })
    }
}

/// Forgets the losses of an earlier run of this process, and names the
/// processes of this one by `hosts`.
pub(super) fn reset(hosts: &[String]) {
    if let Ok(mut lost) = LOST.lock() {
        lost.seen = None;
        lost.told.clear();
        lost.hosts = hosts.to_vec();
    }
}

/// Whether this process has seen a network failure of its own.
#[cfg(feature = "dist")]
pub(crate) fn seen_any() -> bool {
    LOST.lock().is_ok_and(|lost| lost.seen.is_some())
}

/// The error naming the peer to blame, as it stands now (without waiting
/// for a teller, unlike [`lost`]).
#[cfg(feature = "dist")]
pub(crate) fn lost_now() -> Option<TeamError> {
    LOST.lock().ok().and_then(|lost| lost.error())
}

/// Keeps what `teller` told: it lost `lost`, because of `why`.
pub(super) fn told(teller: usize, lost: usize, why: String) {
    if let Ok(mut losses) = LOST.lock() {
        losses.told.push((teller, lost, why));
    }
}

/// Records `why`, naming `peer`, as this process's first network failure
/// (later ones are kept out) and, if it is the first, tells every other
/// peer at once.
pub(crate) fn record(peer: Option<usize>, why: String) {
    let first = LOST.lock().is_ok_and(|mut lost| {
        let first = lost.seen.is_none();
        if first {
            lost.seen = Some((peer, why.clone()));
        }
        first
    });
    if let (true, Some(peer)) = (first, peer) {
        tell(peer, &why);
    }
}

/// Writers of the heartbeat connections of one run: (the peer, a writer).
/// Heartbeats and told losses go out under its lock, so frames never
/// interleave.
pub(super) type Writers = Arc<Mutex<Vec<(usize, TcpStream)>>>;

/// The heartbeat writers of the run going on in this process, for telling
/// a loss (like [`LOST`], one run per process at a time).
static TELL: Mutex<Option<Writers>> = Mutex::new(None);

/// Tells losses through `writers` (the heartbeat connections of the run
/// now going on), or through none.
pub(super) fn tell_through(writers: Option<Writers>) {
    if let Ok(mut tell) = TELL.lock() {
        *tell = writers;
    }
}

/// Stops telling losses through `writers`, if they are still the ones.
pub(super) fn stop_telling_through(writers: &Writers) {
    if let Ok(mut tell) = TELL.lock()
        && tell.as_ref().is_some_and(|t| Arc::ptr_eq(t, writers))
    {
        *tell = None;
    }
}

/// A heartbeat frame: one byte.
pub(super) const BEAT_FRAME: u8 = 1;
/// A loss frame: this byte, the lost peer (4 bytes, little-endian), the
/// length of what happened (1 byte) and its text (at most 255 bytes).
const LOSS_FRAME: u8 = 2;

/// Tells every peer but `lost` that this process lost `lost` and why.
fn tell(lost: usize, why: &str) {
    let mut end = why.len().min(255);
    while !why.is_char_boundary(end) {
        end -= 1;
    }
    let mut frame = vec![LOSS_FRAME];
    frame.extend_from_slice(&(lost as u32).to_le_bytes());
    frame.push(end as u8);
    frame.extend_from_slice(&why.as_bytes()[..end]);
    let Some(writers) = TELL.lock().ok().and_then(|tell| tell.clone()) else {
        return;
    };
    if let Ok(writers) = writers.lock() {
        for (peer, mut writer) in writers.iter().map(|(p, w)| (*p, w)) {
            if peer != lost {
                // A peer that cannot take it finds the loss by itself.
                let _ = writer.write_all(&frame);
            }
        }
    }
}

/// How long [`lost`] waits for the peer it would blame to have told of a
/// loss of its own: the teller writes that before it shuts any socket,
/// but another thread here reads it.
const TOLD_GRACE: Duration = Duration::from_millis(200);

/// What was lost, if a network thread failed or a peer went silent: the
/// process ([`TeamError::Lost`], saying which process found it if this
/// one was told), or the failed connection if no peer is known.
pub(crate) fn lost() -> Option<TeamError> {
    let until = Instant::now() + TOLD_GRACE;
    loop {
        let lost = LOST.lock().ok()?;
        let (_, _, by) = lost.blame()?;
        // A peer whose sockets closed may have told why just before.
        let closed = lost
            .seen
            .as_ref()
            .is_some_and(|(_, why)| !why.starts_with(SILENT));
        if by.is_some() || !closed || Instant::now() >= until {
            return lost.error();
        }
        drop(lost);
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// How the heartbeats say a peer went silent.
pub(super) const SILENT: &str = "no heartbeat for";

/// The frames of one peer's heartbeat stream, as they arrive in pieces.
#[derive(Default)]
pub(super) struct Frames {
    pending: Vec<u8>,
}

impl Frames {
    /// Takes `bytes`, the next of the stream: the losses told in the
    /// frames they complete, as (the lost peer, what happened).
    pub(super) fn push(&mut self, bytes: &[u8]) -> Vec<(usize, String)> {
        self.pending.extend_from_slice(bytes);
        let mut told = Vec::new();
        let mut at = 0;
        while at < self.pending.len() {
            match self.pending[at] {
                LOSS_FRAME => {
                    let Some(&len) = self.pending.get(at + 5) else {
                        break;
                    };
                    let end = at + 6 + usize::from(len);
                    if self.pending.len() < end {
                        break;
                    }
                    let mut peer = [0u8; 4];
                    peer.copy_from_slice(&self.pending[at + 1..at + 5]);
                    let why = String::from_utf8_lossy(&self.pending[at + 6..end]).into_owned();
                    told.push((u32::from_le_bytes(peer) as usize, why));
                    at = end;
                }
                // A beat, or a byte of a newer kind: it shows the peer runs.
                _ => at += 1,
            }
        }
        self.pending.drain(..at);
        told
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_read_beats_and_losses_split_anywhere() {
        let mut stream = vec![BEAT_FRAME, BEAT_FRAME, LOSS_FRAME];
        stream.extend_from_slice(&7u32.to_le_bytes());
        stream.push(5);
        stream.extend_from_slice(b"quiet");
        stream.push(BEAT_FRAME);
        stream.push(LOSS_FRAME);
        stream.extend_from_slice(&300u32.to_le_bytes());
        stream.push(0);
        for cut in 0..=stream.len() {
            let mut frames = Frames::default();
            let mut told = frames.push(&stream[..cut]);
            told.extend(frames.push(&stream[cut..]));
            assert_eq!(
                told,
                vec![(7, "quiet".to_string()), (300, String::new())],
                "cut at {cut}"
            );
            assert!(frames.pending.is_empty(), "cut at {cut}");
        }
    }

    #[test]
    fn a_loss_told_by_the_peer_that_ended_is_blamed_on_the_one_it_lost() {
        let closed = "reading data: socket closed".to_string();
        let mut losses = Losses {
            seen: Some((Some(0), closed.clone())),
            told: Vec::new(),
            hosts: vec!["a:1".into(), "b:2".into(), "c:3".into()],
        };
        assert_eq!(losses.blame(), Some((Some(0), closed.clone(), None)));
        losses.told.push((0, 2, "no heartbeat for 3 s".into()));
        assert_eq!(
            losses.blame(),
            Some((Some(2), "no heartbeat for 3 s".into(), Some(0)))
        );
        let Some(TeamError::Lost { process, host, why }) = losses.error() else {
            panic!("no lost peer");
        };
        assert_eq!((process, host.as_deref()), (2, Some("c:3")));
        assert_eq!(
            why,
            "no heartbeat for 3 s, as process 0 (a:1) found \
             (it stopped or failed; see its own error)"
        );
        // Told in a circle (two tellers each naming the other) ends.
        losses.told.push((2, 0, closed.clone()));
        assert!(losses.blame().is_some());
        // What a peer that is not blamed told changes nothing.
        let losses = Losses {
            seen: Some((Some(1), closed.clone())),
            told: vec![(0, 2, "no heartbeat for 3 s".into())],
            hosts: Vec::new(),
        };
        assert_eq!(losses.blame(), Some((Some(1), closed.clone(), None)));
        // A failure that names no peer is a failed connection, not a loss.
        let unnamed = Losses {
            seen: Some((None, closed)),
            told: Vec::new(),
            hosts: Vec::new(),
        };
        assert!(
            matches!(unnamed.error(), Some(TeamError::Io { .. })),
            "{:?}",
            unnamed.error()
        );
    }
}
