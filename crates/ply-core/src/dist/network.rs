//! Connecting the processes of a cluster, and noticing when one is lost.
//!
//! timely's own setup retries forever, prints to stdout while it waits and
//! takes any peer that connects. Here each process connects to the ones
//! before it in the hosts list and accepts the ones after it, within one
//! deadline for all; both ends of every connection exchange a handshake
//! naming the process and the analysis (game, workers, partition), so a
//! stray or mismatched process is refused with a clear error. The connected
//! sockets are then handed to timely.
//!
//! Once running, timely's network threads panic when a peer's socket
//! closes, and the workers of this process then panic in turn. A panic
//! hook ([`watch_peers`]) keeps those panics off stderr and records the
//! first one with the peer it names, so the error says which process was
//! lost.
//!
//! A peer that is frozen (stopped, swapping for ever) or cut off closes no
//! socket. So each pair of processes also keeps a heartbeat connection:
//! every process sends a byte a second to every other one, and a peer
//! silent for the peer timeout ([`Heartbeat`]) is recorded as lost and its
//! data socket shut, which makes timely's threads fail as if it had died.
//!
//! A process that finds a peer lost then ends, and its own sockets close:
//! a third process that had not yet found the loss itself (its timeout
//! running later, or the lost host cut off from some peers only) would
//! blame the process that ended. So the first loss a process finds is told
//! at once to every other peer on the heartbeat connection, before this
//! process shuts anything, and a process blames the peer it was told of
//! rather than the teller ([`lost`]).

use super::DistError;
use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::time::{Duration, Instant};

/// The first bytes of every handshake.
const MAGIC: u64 = 0x706c_795f_6469_7374; // "ply_dist"

/// The channel of a connection that carries timely's data.
const DATA: usize = 0;
/// The channel of a connection that carries heartbeats.
const BEAT: usize = 1;

/// How long one connection attempt or one handshake may take.
const ATTEMPT: Duration = Duration::from_secs(2);

/// Connects this process (`me`) to every other one listed in `hosts`
/// before `deadline`: one socket per other process, `None` at `me`. `tag`
/// identifies the analysis; every process must have the same.
pub(super) fn connect(
    hosts: &[String],
    me: usize,
    tag: u64,
    deadline: Instant,
) -> Result<Links, DistError> {
    let name = |i: usize| format!("process {i} ({})", hosts[i]);
    // A loss recorded by an earlier run of this process is not this run's.
    if let Ok(mut lost) = LOST.lock() {
        lost.seen = None;
        lost.told.clear();
        lost.hosts = hosts.to_vec();
    }
    let listener = TcpListener::bind(hosts[me].as_str())
        .map_err(|e| DistError::Connect(format!("{} cannot listen: {e}", name(me))))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| DistError::Connect(format!("{}: {e}", name(me))))?;
    let none = || {
        (0..hosts.len())
            .map(|_| None)
            .collect::<Vec<Option<TcpStream>>>()
    };
    // One socket per peer and channel: the data timely carries, and the
    // heartbeats that show the peer is still running.
    let mut sockets = [none(), none()];
    for (peer, host) in hosts.iter().enumerate().take(me) {
        for channel in [DATA, BEAT] {
            let stream = dial(host, deadline).map_err(|why| {
                DistError::Connect(format!(
                    "{} is unreachable from {}: {why}",
                    name(peer),
                    name(me)
                ))
            })?;
            let stream = handshake(stream, me, channel, tag, deadline)
                .and_then(|(stream, index, _)| {
                    if index == peer {
                        Ok(stream)
                    } else {
                        Err(format!("process {index} answered there"))
                    }
                })
                .map_err(|why| DistError::Connect(format!("{}: {why}", name(peer))))?;
            sockets[channel][peer] = Some(stream);
        }
    }
    let complete = |sockets: &[Vec<Option<TcpStream>>; 2], i: usize| {
        sockets[DATA][i].is_some() && sockets[BEAT][i].is_some()
    };
    while let Some(missing) = (me + 1..hosts.len()).find(|&i| !complete(&sockets, i)) {
        match listener.accept() {
            Ok((stream, _)) => {
                // A stray connection (or a process of another analysis) is
                // refused; the listener keeps waiting for the right ones.
                if let Ok((stream, index, channel)) = handshake(stream, me, DATA, tag, deadline)
                    && index > me
                    && index < hosts.len()
                    && sockets[channel][index].is_none()
                {
                    sockets[channel][index] = Some(stream);
                }
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    let missing: Vec<String> = (missing..hosts.len())
                        .filter(|&i| !complete(&sockets, i))
                        .map(name)
                        .collect();
                    return Err(DistError::Connect(format!(
                        "{} did not connect to {} in time (is every process started, \
                         with the same game, workers and hosts file?)",
                        missing.join(", "),
                        name(me)
                    )));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(DistError::Connect(format!("{}: {e}", name(me)))),
        }
    }
    let [data, beats] = sockets;
    for stream in data.iter().chain(&beats).flatten() {
        stream
            .set_nonblocking(false)
            .and_then(|()| stream.set_read_timeout(None))
            .and_then(|()| stream.set_write_timeout(None))
            .and_then(|()| stream.set_nodelay(true))
            .map_err(|e| DistError::Connect(e.to_string()))?;
    }
    Ok(Links { data, beats })
}

/// The connections of one process to the others, `None` at its own index.
pub(super) struct Links {
    /// The sockets timely carries the computation over.
    pub data: Vec<Option<TcpStream>>,
    /// The sockets heartbeats go over ([`Heartbeat`]).
    pub beats: Vec<Option<TcpStream>>,
}

/// Opens a connection to `host`, retrying until `deadline`.
fn dial(host: &str, deadline: Instant) -> Result<TcpStream, String> {
    let addresses: Vec<SocketAddr> = host
        .to_socket_addrs()
        .map_err(|e| format!("bad address: {e}"))?
        .collect();
    let mut last = "no address".to_string();
    loop {
        for address in &addresses {
            match TcpStream::connect_timeout(address, ATTEMPT) {
                Ok(stream) => return Ok(stream),
                Err(e) => last = e.to_string(),
            }
        }
        if Instant::now() >= deadline {
            return Err(format!("{last}, until the connection timeout"));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Sends this process's handshake on `stream` for `channel` and reads the
/// other end's: returns the stream, the other process's index and the
/// channel it asked for (the accepting end answers on any channel).
fn handshake(
    mut stream: TcpStream,
    me: usize,
    channel: usize,
    tag: u64,
    deadline: Instant,
) -> Result<(TcpStream, usize, usize), String> {
    let limit = deadline
        .saturating_duration_since(Instant::now())
        .clamp(Duration::from_millis(100), ATTEMPT);
    let io = |e: std::io::Error| format!("handshake failed: {e}");
    stream.set_nonblocking(false).map_err(io)?;
    stream.set_read_timeout(Some(limit)).map_err(io)?;
    stream.set_write_timeout(Some(limit)).map_err(io)?;
    let mut out = [0u8; 24];
    out[..8].copy_from_slice(&MAGIC.to_le_bytes());
    out[8..16].copy_from_slice(&((me as u64) | (channel as u64) << 32).to_le_bytes());
    out[16..].copy_from_slice(&tag.to_le_bytes());
    stream.write_all(&out).map_err(io)?;
    let mut back = [0u8; 24];
    stream.read_exact(&mut back).map_err(io)?;
    let word = |i: usize| {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(&back[i * 8..i * 8 + 8]);
        u64::from_le_bytes(bytes)
    };
    if word(0) != MAGIC {
        return Err("the other end is not a ply analyze process".into());
    }
    if word(2) != tag {
        return Err(format!(
            "process {} runs another analysis (a different game, worker count or partition)",
            word(1) & 0xffff_ffff
        ));
    }
    let (index, channel) = (word(1) & 0xffff_ffff, word(1) >> 32);
    if channel > BEAT as u64 {
        return Err("the other end sent an unknown channel".into());
    }
    Ok((stream, index as usize, channel as usize))
}

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

    /// The error naming the peer to blame ([`Losses::blame`]) and its host.
    fn describe(&self) -> Option<String> {
        let name = |p: usize| match self.hosts.get(p) {
            Some(host) => format!("process {p} ({host})"),
            None => format!("process {p}"),
        };
        Some(match self.blame()? {
            (Some(peer), why, by) => format!(
                "lost {}: {why}{} (it stopped or failed; see its own error)",
                name(peer),
                by.map_or_else(String::new, |b| format!(", as {} found", name(b)))
            ),
            (None, why, _) => format!("lost a peer process: {why}"),
        })
    }
}

/// Records `why`, naming `peer`, as this process's first network failure
/// (later ones are kept out) and, if it is the first, tells every other
/// peer at once.
fn record(peer: Option<usize>, why: String) {
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
type Writers = Arc<Mutex<Vec<(usize, TcpStream)>>>;

/// The heartbeat writers of the run going on in this process, for telling
/// a loss (like [`LOST`], one run per process at a time).
static TELL: Mutex<Option<Writers>> = Mutex::new(None);

/// A heartbeat frame: one byte.
const BEAT_FRAME: u8 = 1;
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

/// Installs, once per process, a panic hook that keeps the panics of
/// timely's threads (named `timely:...`) off stderr and records the first
/// network failure; other panics go to the hook that was there before.
pub(super) fn watch_peers() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let thread = std::thread::current();
            let message = info
                .payload()
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            // A panic that cannot unwind aborts the process right after this
            // hook: say first what was lost, so the clear error is not lost too.
            if message.contains("cannot unwind")
                && let Some(lost) = LOST.lock().ok().and_then(|lost| lost.describe())
            {
                eprintln!("ply: {lost}");
                return;
            }
            // Dropping timely's guards after its network thread failed
            // panics in turn, on the thread that drops them ("Send thread
            // panic"): the failure is already recorded, so say nothing.
            let guard_drop = (message.starts_with("Send thread panic")
                || message.starts_with("Recv thread panic"))
                && LOST.lock().is_ok_and(|lost| lost.seen.is_some());
            if guard_drop {
                return;
            }
            let Some(name) = thread.name().filter(|n| n.starts_with("timely:")) else {
                previous(info);
                return;
            };
            if let Some(why) = message.strip_prefix("timely communication error: ") {
                let peer = name
                    .strip_prefix("timely:recv-")
                    .or_else(|| name.strip_prefix("timely:send-"))
                    .and_then(|n| n.parse().ok());
                record(peer, why.to_string());
            }
        }));
    });
}

/// How long [`lost`] waits for the peer it would blame to have told of a
/// loss of its own: the teller writes that before it shuts any socket,
/// but another thread here reads it.
const TOLD_GRACE: Duration = Duration::from_millis(200);

/// What was lost, if a network thread failed or a peer went silent: names
/// the process, and the one that found it if this process was told.
pub(super) fn lost() -> Option<String> {
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
            return lost.describe();
        }
        drop(lost);
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// How the heartbeats say a peer went silent.
const SILENT: &str = "no heartbeat for";

/// How often a process tells the others it is running.
const BEAT_EVERY: Duration = Duration::from_millis(500);

/// The heartbeats of one process: a thread that sends a byte to every peer
/// each [`BEAT_EVERY`], and one per peer that waits for the peer's. A peer
/// silent for the timeout is recorded as lost ([`lost`]) and its data
/// socket shut down. A peer whose heartbeat connection closes has ended
/// (or died, which its data sockets report): it is no longer watched.
/// Dropping the heartbeat stops it and closes its connections.
pub(super) struct Heartbeat {
    stop: Arc<AtomicBool>,
    beats: Vec<TcpStream>,
    writers: Writers,
}

impl Heartbeat {
    /// Starts the heartbeats over `links.beats`, watching each peer for
    /// `timeout`; `data` are clones of the data sockets, shut down when
    /// their peer goes silent.
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
        if let Ok(mut tell) = TELL.lock() {
            *tell = Some(writers.clone());
        }
        let running = stop.clone();
        let sending = writers.clone();
        std::thread::Builder::new()
            .name("ply:heartbeat".into())
            .spawn(move || {
                while !running.load(Ordering::Relaxed) {
                    // Under the lock, so a loss told at the same time goes
                    // out whole between two beats.
                    if let Ok(writers) = sending.lock() {
                        for (_, mut writer) in writers.iter().map(|(p, w)| (*p, w)) {
                            // A peer that cannot take a byte is found
                            // silent from its own side; nothing to do here.
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

impl Drop for Heartbeat {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Ok(mut tell) = TELL.lock()
            && tell.as_ref().is_some_and(|t| Arc::ptr_eq(t, &self.writers))
        {
            *tell = None;
        }
        for beat in &self.beats {
            // The peers see the end of the stream: this process has ended.
            let _ = beat.shutdown(Shutdown::Both);
        }
    }
}

/// Waits for `peer`'s heartbeats on `reader` until `stop`, the end of its
/// stream, or `timeout` without one (then the peer is lost).
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
                    if let Ok(mut losses) = LOST.lock() {
                        losses.told.push((peer, lost, why));
                    }
                }
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => return,
        }
        if heard.elapsed() >= timeout && !stop.load(Ordering::Relaxed) {
            record(
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

/// The frames of one peer's heartbeat stream, as they arrive in pieces.
#[derive(Default)]
struct Frames {
    pending: Vec<u8>,
}

impl Frames {
    /// Takes `bytes`, the next of the stream: the losses told in the
    /// frames they complete, as (the lost peer, what happened).
    fn push(&mut self, bytes: &[u8]) -> Vec<(usize, String)> {
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
        assert_eq!(
            losses.describe().as_deref(),
            Some(
                "lost process 2 (c:3): no heartbeat for 3 s, as process 0 (a:1) found \
                 (it stopped or failed; see its own error)"
            )
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
        assert_eq!(losses.blame(), Some((Some(1), closed, None)));
    }
}
