//! The one [`Heartbeat`] of the crate: how a process shows its peers over
//! TCP that it is still running.
//!
//! A byte every half second (`BEAT_EVERY`) to every peer on a connection
//! of its own, and a thread per peer waiting for the peer's. A peer silent
//! for the timeout is recorded as lost (see the `losses` module) and its
//! data socket shut, which makes whatever reads it fail as if the peer had
//! died. A peer whose heartbeat connection closes has ended (or died,
//! which its data sockets report): it is no longer watched.
//!
//! So a process killed, stopped (SIGSTOP) or cut off is named, never
//! waited on forever; dropping the heartbeat stops it and closes its
//! connections (a finished process is waited on by nobody).

use super::TeamError;
use std::time::Duration;

/// This process's heartbeat, beating until dropped.
pub struct Heartbeat {
    /// The connections and their threads, kept for their `Drop`, which
    /// stops the beat.
    _beat: sockets::SocketBeat,
}

impl Heartbeat {
    /// Starts the heartbeats over `links.beats`, watching each peer for
    /// `timeout`; the data sockets of `links` are shut down when their
    /// peer goes silent.
    pub(crate) fn over(links: &super::Links, timeout: Duration) -> Result<Heartbeat, TeamError> {
        let beat = sockets::SocketBeat::start(links, timeout).map_err(|error| TeamError::Io {
            what: "cannot start heartbeats".into(),
            error,
        })?;
        Ok(Heartbeat { _beat: beat })
    }
}

/// How often a process sends its heartbeat over TCP.
pub(super) const BEAT_EVERY: Duration = Duration::from_millis(500);

/// The heartbeat over TCP.
mod sockets {
    use super::BEAT_EVERY;
    use crate::team::Links;
    use crate::team::losses::{self, BEAT_FRAME, Frames, SILENT, Writers};
    use std::io::{ErrorKind, Read, Write};
    use std::net::{Shutdown, TcpStream};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    /// The heartbeats of one process over TCP: a thread that sends a
    /// byte to every peer each [`BEAT_EVERY`], and one per peer that waits
    /// for the peer's.
    pub(super) struct SocketBeat {
        stop: Arc<AtomicBool>,
        beats: Vec<TcpStream>,
        writers: Writers,
    }

    impl SocketBeat {
        /// Starts the heartbeats over `links.beats`, watching each peer for
        /// `timeout`.
        pub(super) fn start(links: &Links, timeout: Duration) -> std::io::Result<Self> {
            let stop = Arc::new(AtomicBool::new(false));
            let mut beats = Vec::new();
            for (peer, beat) in links.beats.iter().enumerate() {
                let Some(beat) = beat else { continue };
                beats.push(beat.try_clone()?);
                let data = match &links.data[peer] {
                    Some(data) => Some(data.try_clone()?),
                    None => None,
                };
                let reader = beat.try_clone()?;
                reader.set_read_timeout(Some(BEAT_EVERY))?;
                let stop = stop.clone();
                std::thread::Builder::new()
                    .name(format!("ply:watch-{peer}"))
                    .spawn(move || watch(peer, reader, data, timeout, &stop))?;
            }
            let writers = links
                .beats
                .iter()
                .enumerate()
                .filter_map(|(peer, b)| b.as_ref().map(|b| (peer, b)))
                .map(|(peer, b)| {
                    b.set_write_timeout(Some(BEAT_EVERY))?;
                    Ok((peer, b.try_clone()?))
                })
                .collect::<std::io::Result<Vec<_>>>()?;
            let writers: Writers = Arc::new(Mutex::new(writers));
            losses::tell_through(Some(writers.clone()));
            let running = stop.clone();
            let sending = writers.clone();
            std::thread::Builder::new()
                .name("ply:heartbeat".into())
                .spawn(move || {
                    while !running.load(Ordering::Relaxed) {
                        // Under the lock, so a loss told at the same time
                        // goes out whole between two beats.
                        if let Ok(writers) = sending.lock() {
                            for (_, mut writer) in writers.iter().map(|(p, w)| (*p, w)) {
                                // A peer that cannot take a byte is found
                                // silent from its own side; nothing to do.
                                let _ = writer.write_all(&[BEAT_FRAME]);
                            }
                        }
                        std::thread::sleep(BEAT_EVERY);
                    }
                })?;
            Ok(Self {
                stop,
                beats,
                writers,
            })
        }
    }

    impl Drop for SocketBeat {
        fn drop(&mut self) {
            self.stop.store(true, Ordering::Relaxed);
            losses::stop_telling_through(&self.writers);
            for beat in &self.beats {
                // The peers see the end of the stream: this process has ended.
                let _ = beat.shutdown(Shutdown::Both);
            }
        }
    }

    /// Waits for `peer`'s heartbeats on `reader` until `stop`, the end of
    /// its stream, or `timeout` without one (then the peer is lost).
    fn watch(
        peer: usize,
        mut reader: TcpStream,
        data: Option<TcpStream>,
        timeout: Duration,
        stop: &AtomicBool,
    ) {
        let mut heard = Instant::now();
        let mut buffer = [0u8; 512];
        let mut frames = Frames::default();
        while !stop.load(Ordering::Relaxed) {
            match reader.read(&mut buffer) {
                Ok(0) => return,
                Ok(n) => {
                    heard = Instant::now();
                    for (lost, why) in frames.push(&buffer[..n]) {
                        losses::told(peer, lost, why);
                    }
                }
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => return,
            }
            if heard.elapsed() >= timeout && !stop.load(Ordering::Relaxed) {
                losses::record(
                    Some(peer),
                    format!(
                        "{SILENT} {} s (frozen, overloaded or cut off)",
                        timeout.as_secs()
                    ),
                );
                if let Some(data) = data {
                    let _ = data.shutdown(Shutdown::Both);
                }
                return;
            }
        }
    }
}
