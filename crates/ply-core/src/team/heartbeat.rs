//! The one [`Heartbeat`] of the crate: how a process shows its peers it is
//! still running, by one of two means.
//!
//! - **Through a shared directory** ([`Heartbeat::in_dir`]): the process
//!   keeps a file there (`GAME.process-I.heartbeat`: its index, pid, host,
//!   a beat count and the time), rewritten atomically several times per
//!   timeout. A peer reads it through a [`super::Watch`], on its own clock
//!   (so clocks of different machines need not agree).
//! - **Over TCP** (`Heartbeat::over`): a byte every half
//!   second (`BEAT_EVERY`) to every peer on a connection of its own, and a
//!   thread per peer waiting for the peer's. A peer silent for the timeout
//!   is recorded as lost (see the `losses` module) and its data socket
//!   shut, which makes whatever reads it fail as if the peer had died. A
//!   peer whose heartbeat connection closes has ended (or died, which its
//!   data sockets report): it is no longer watched.
//!
//! Either way a process killed, stopped (SIGSTOP) or cut off is named,
//! never waited on forever; dropping the heartbeat stops it (and removes
//! the file, or closes the connections: a finished process is waited on
//! by nobody).

use super::{Team, TeamError};
use crate::db::{self, DbError};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// This process's heartbeat, beating until dropped.
pub struct Heartbeat {
    /// Kept for its `Drop`, which stops the beat.
    _beating: Beating,
}

/// How a heartbeat beats (each kept for its `Drop`, which stops it).
enum Beating {
    /// A file in a shared directory, rewritten by a thread.
    File {
        /// The file and its thread.
        _beat: FileBeat,
    },
    /// A byte to every peer over TCP.
    Sockets {
        /// The connections and their threads.
        _beat: sockets::SocketBeat,
    },
}

impl Heartbeat {
    /// Starts the heartbeat of `team`'s process for the game `game` in the
    /// shared directory `dir`, writing the first beat before returning.
    pub fn in_dir(dir: &Path, game: &str, team: &Team) -> Result<Heartbeat, TeamError> {
        std::fs::create_dir_all(dir).map_err(|e| DbError::io(dir, e))?;
        let path = heartbeat_path(dir, game, team.process);
        let mut beat = Beat {
            process: team.process,
            processes: team.processes,
            pid: std::process::id(),
            host: host_name(),
            beat: 0,
        };
        write_atomically(&path, &beat.text()).map_err(|e| DbError::io(&path, e))?;
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
            _beating: Beating::File {
                _beat: FileBeat {
                    path,
                    stop: Some(stop),
                    thread: Some(thread),
                },
            },
        })
    }

    /// Starts the heartbeats over `links.beats`, watching each peer for
    /// `timeout`; the data sockets of `links` are shut down when their
    /// peer goes silent.
    pub(crate) fn over(links: &super::Links, timeout: Duration) -> Result<Heartbeat, TeamError> {
        let beat = sockets::SocketBeat::start(links, timeout).map_err(|error| TeamError::Io {
            what: "cannot start heartbeats".into(),
            error,
        })?;
        Ok(Heartbeat {
            _beating: Beating::Sockets { _beat: beat },
        })
    }
}

/// The heartbeat file of process `process` of the game named `game` in `dir`.
pub(super) fn heartbeat_path(dir: &Path, game: &str, process: usize) -> PathBuf {
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
pub(super) struct Beat {
    /// The process that beats.
    pub process: usize,
    /// The processes of its team.
    pub processes: usize,
    /// Its pid.
    pub pid: u32,
    /// The machine it runs on.
    pub host: String,
    /// Its beats so far.
    pub beat: u64,
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

    /// Reads a heartbeat file's text; `None` unless it is whole.
    pub(super) fn parse(text: &str) -> Option<Beat> {
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

/// A heartbeat file rewritten by a thread until dropped, then removed.
struct FileBeat {
    path: PathBuf,
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for FileBeat {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        let _ = std::fs::remove_file(&self.path);
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
