//! Connecting the processes of a team over TCP.
//!
//! Each process connects to the ones before it in the hosts list and
//! accepts the ones after it, within one deadline for all; both ends of
//! every connection exchange a handshake naming the process and the work
//! (a tag every process of one team computes alike), so a stray or
//! mismatched process is refused with a clear error. Every pair of
//! processes gets two connections: one for the data (handed to the engine
//! that carries the computation) and one for the heartbeats
//! ([`super::Heartbeat`]).
//!
//! (timely's own setup retries forever, prints to stdout while it waits
//! and takes any peer that connects: hence this one.)

use super::{Team, TeamError, losses};
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// The first bytes of every handshake.
const MAGIC: u64 = 0x706c_795f_6469_7374; // "ply_dist"

/// The channel of a connection that carries timely's data.
const DATA: usize = 0;
/// The channel of a connection that carries heartbeats.
const BEAT: usize = 1;

/// How long one connection attempt or one handshake may take.
const ATTEMPT: Duration = Duration::from_secs(2);

/// Connects `team`'s process to every other one of its hosts before
/// `deadline`: two sockets per other process, `None` at this one's index.
/// `tag` identifies the work; every process must have the same.
pub(crate) fn connect(team: &Team, tag: u64, deadline: Instant) -> Result<Links, TeamError> {
    let (hosts, me) = (&team.hosts, team.process);
    let name = |i: usize| team.name(i);
    // A loss recorded by an earlier run of this process is not this run's.
    losses::reset(hosts);
    let listener = TcpListener::bind(hosts[me].as_str())
        .map_err(|e| TeamError::Connect(format!("{} cannot listen: {e}", name(me))))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| TeamError::Connect(format!("{}: {e}", name(me))))?;
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
                TeamError::Connect(format!(
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
                .map_err(|why| TeamError::Connect(format!("{}: {why}", name(peer))))?;
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
                    return Err(TeamError::Connect(format!(
                        "{} did not connect to {} in time (is every process started, \
                         with the same game, workers and hosts file?)",
                        missing.join(", "),
                        name(me)
                    )));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(TeamError::Connect(format!("{}: {e}", name(me)))),
        }
    }
    let [data, beats] = sockets;
    for stream in data.iter().chain(&beats).flatten() {
        stream
            .set_nonblocking(false)
            .and_then(|()| stream.set_read_timeout(None))
            .and_then(|()| stream.set_write_timeout(None))
            .and_then(|()| stream.set_nodelay(true))
            .map_err(|e| TeamError::Connect(e.to_string()))?;
    }
    Ok(Links { data, beats })
}

/// The connections of one process to the others, `None` at its own index.
pub(crate) struct Links {
    /// The sockets timely carries the computation over.
    pub(crate) data: Vec<Option<TcpStream>>,
    /// The sockets heartbeats go over ([`Heartbeat`]).
    pub(crate) beats: Vec<Option<TcpStream>>,
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

/// The tag of a handshake for the work described by `text` (FNV-1a of
/// its bytes): processes whose texts differ refuse each other.
pub(crate) fn tag_of(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// `processes` loopback addresses whose ports were free a moment ago: a
/// team for the tests of this crate (each test asks anew, so tests
/// running at once do not meet).
#[cfg(test)]
pub(crate) fn free_hosts(processes: usize) -> Vec<String> {
    let listeners: Vec<_> = (0..processes)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0").expect("a free port"))
        .collect();
    listeners
        .iter()
        .map(|l| l.local_addr().expect("an address").to_string())
        .collect()
}
