//! The processes of a team telling each other, over TCP, what they
//! finished and sending each other what they solved. A tier team tells
//! "tier T is written", "my slice of tier T is written", "I told every
//! tier I found written" and "I am done" ([`Notice`]); a table team sends each tier's cells it solved as a
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
//! A tier team's processes also fetch files from each other
//! ([`Crew::fetch`]): a process that needs a file a peer wrote (a child
//! tier's shard, a slice of a cut tier) and does not have asks that peer
//! for it, and a thread of the peer's ([`Files`] says which file) streams
//! it back in chunks of [`CHUNK`] bytes, which the asker writes to a
//! temporary file, checks and renames into place. So no directory need
//! be shared, and a file is never held whole in memory.
//!
//! A frame starts with 9 bytes: its kind, then a step of the plan (8
//! bytes, little-endian). A notice is those 9 bytes alone, as is a request
//! for a file (kind 5, the step standing for the file); a message (kind
//! 4), a chunk of a file (kind 6, the last one empty) and a file refused
//! (kind 7, with why) follow them with a length (8 bytes, little-endian)
//! and that many bytes, which the receiver checks (see the `part` module;
//! a file is checked whole by the asker). A frame of an unknown kind ends
//! the connection, and the wait for that peer fails with
//! [`TeamError::Garbled`] naming it.
//!
//! Every frame is written through one place, [`Link::put`], which counts
//! the bytes and frames this process sends ([`Traffic`]). When a team
//! ends ([`Crew::finish`]), once every process said it is done (so no
//! file is being sent any more), each process other than 0 sends process
//! 0 its count (a tally, kind 10, of 24 bytes), so that process 0 can
//! report the whole team's traffic ([`Crew::traffic`]). The tallies
//! themselves are not counted.

use super::{Heartbeat, Team, TeamError, losses};
use std::collections::{HashMap, HashSet, VecDeque};
use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, mpsc};
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
    /// The sender has told every tier it found written when it started.
    Found,
}

impl Notice {
    fn frame(self) -> [u8; 9] {
        let (kind, step) = match self {
            Notice::Tier(step) => (1, step),
            Notice::Slice(step) => (2, step),
            Notice::Bye => (3, 0),
            Notice::Found => (8, 0),
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
            8 => Some(Notice::Found),
            _ => None,
        }
    }
}

/// The kind of a frame carrying a message: a step, a length and bytes.
const MESSAGE: u8 = 4;

/// The kind of a frame asking for a file: the step names it ([`Files`]).
const REQUEST: u8 = 5;

/// The kind of a frame carrying a chunk of a file asked for: the step, a
/// length and bytes; an empty chunk ends the file.
const CHUNK_KIND: u8 = 6;

/// The kind of a frame refusing a file asked for: the step, a length and
/// why, in UTF-8.
const REFUSED: u8 = 7;

/// The kind of a frame carrying a process's [`Traffic`] to process 0 as
/// the team ends: a step of 0, a length and 24 bytes.
const TALLY: u8 = 10;

/// The most bytes of a file one chunk carries.
const CHUNK: usize = 4 << 20;

/// What one process sent its peers over the data connections, counted as
/// each frame was handed to the socket ([`Link::put`]), up to the end of
/// the team's work: its goodbyes counted, its tally not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Bytes of every frame: headers (9 bytes, 17 with a body) and bodies.
    pub bytes: u64,
    /// Frames: notices, messages, requests for files, chunks of files and
    /// refusals.
    pub frames: u64,
    /// Bytes of files sent in chunks: the chunks' bodies alone.
    pub file_bytes: u64,
}

impl Traffic {
    /// The tally's body: the three counts, little-endian.
    fn encode(self) -> [u8; 24] {
        let mut body = [0u8; 24];
        for (at, count) in [self.bytes, self.frames, self.file_bytes]
            .into_iter()
            .enumerate()
        {
            body[8 * at..8 * at + 8].copy_from_slice(&count.to_le_bytes());
        }
        body
    }

    /// The counts of a tally's body, if it has the length of one.
    fn decode(body: &[u8]) -> Option<Traffic> {
        let count = |at: usize| {
            let bytes: [u8; 8] = body.get(8 * at..8 * at + 8)?.try_into().ok()?;
            Some(u64::from_le_bytes(bytes))
        };
        (body.len() == 24).then_some(Traffic {
            bytes: count(0)?,
            frames: count(1)?,
            file_bytes: count(2)?,
        })
    }
}

/// The counts behind [`Traffic`], shared by the threads writing frames.
#[derive(Default)]
struct Counters {
    bytes: AtomicU64,
    frames: AtomicU64,
    file_bytes: AtomicU64,
}

impl Counters {
    fn now(&self) -> Traffic {
        Traffic {
            bytes: self.bytes.load(Relaxed),
            frames: self.frames.load(Relaxed),
            file_bytes: self.file_bytes.load(Relaxed),
        }
    }
}

/// A data connection to one peer, counting what is written to it.
struct Link {
    stream: TcpStream,
    sent: Arc<Counters>,
}

impl Link {
    /// Writes one frame, `header` (its kind first) then `body`, counting
    /// it first: a frame is counted once handed over, so a peer that read
    /// it and answered never finds it uncounted (one that could not take
    /// it is lost, and the run fails).
    fn put(&mut self, header: &[u8], body: &[u8]) -> std::io::Result<()> {
        let length = (header.len() + body.len()) as u64;
        self.sent.bytes.fetch_add(length, Relaxed);
        self.sent.frames.fetch_add(1, Relaxed);
        if header.first() == Some(&CHUNK_KIND) {
            self.sent.file_bytes.fetch_add(body.len() as u64, Relaxed);
        }
        self.stream.write_all(header)?;
        self.stream.write_all(body)
    }
}

/// Which file of this process a peer may fetch by a number
/// ([`Crew::fetch`]); `None` for a number standing for none.
pub(crate) type Files = Arc<dyn Fn(u64) -> Option<PathBuf> + Send + Sync>;

/// What came of a file asked for, a frame at a time.
enum Piece {
    /// The next bytes of the file.
    Chunk(Vec<u8>),
    /// The whole file came.
    End,
    /// The peer could not send it, with why.
    Refused(String),
}

/// What a reader thread heard from its peer.
enum Heard {
    /// A notice from this peer.
    Notice(usize, Notice),
    /// A message from this peer, for a step of the plan.
    Message(usize, u64, Vec<u8>),
    /// A piece of the file this peer was asked for by this number.
    Piece(usize, u64, Piece),
    /// This peer's traffic, told as the team ends.
    Tally(usize, Traffic),
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
    /// A request for the file of this number.
    Request(u64),
    /// A piece of the file of this number.
    Piece(u64, Piece),
    /// A peer's traffic.
    Tally(Traffic),
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
    let mut step = [0u8; 8];
    step.copy_from_slice(&frame[1..]);
    let step = u64::from_le_bytes(step);
    match frame[0] {
        MESSAGE | CHUNK_KIND | REFUSED | TALLY => {}
        REQUEST => return Ok(Frame::Request(step)),
        _ => {
            return match Notice::parse(frame) {
                Some(notice) => Ok(Frame::Notice(notice)),
                None => Err(Ending::Garbled(format!(
                    "a frame of unknown kind {}",
                    frame[0]
                ))),
            };
        }
    }
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
    Ok(match frame[0] {
        MESSAGE => Frame::Message(step, bytes),
        CHUNK_KIND if bytes.is_empty() => Frame::Piece(step, Piece::End),
        CHUNK_KIND => Frame::Piece(step, Piece::Chunk(bytes)),
        TALLY => match Traffic::decode(&bytes) {
            Some(traffic) => Frame::Tally(traffic),
            None => {
                return Err(Ending::Garbled(format!(
                    "a tally of {} bytes, not 24",
                    bytes.len()
                )));
            }
        },
        _ => Frame::Piece(
            step,
            Piece::Refused(String::from_utf8_lossy(&bytes).into_owned()),
        ),
    })
}

/// Writes a frame of `kind` for `step` carrying `bytes` to `stream`.
fn write_body(stream: &mut Link, kind: u8, step: u64, bytes: &[u8]) -> std::io::Result<()> {
    let mut header = [0u8; 17];
    header[0] = kind;
    header[1..9].copy_from_slice(&step.to_le_bytes());
    header[9..].copy_from_slice(&(bytes.len() as u64).to_le_bytes());
    stream.put(&header, bytes)
}

/// Sends the file `files` names by `what` to the peer at `out`, a chunk
/// of at most [`CHUNK`] bytes at a time (the lock taken per chunk, so that
/// notices go between them), then an empty chunk; or, if it cannot be
/// read, a frame saying why. A peer gone ends it.
fn serve(out: &Mutex<Link>, files: &Files, what: u64) {
    let send = |kind, bytes: &[u8]| {
        let mut stream = out.lock().unwrap_or_else(|e| e.into_inner());
        write_body(&mut stream, kind, what, bytes)
    };
    let refuse = |why: String| {
        let _ = send(REFUSED, why.as_bytes());
    };
    let Some(path) = files(what) else {
        return refuse(format!("no file is numbered {what}"));
    };
    let mut file = match std::fs::File::open(&path) {
        Ok(file) => file,
        Err(e) => return refuse(format!("cannot open {}: {e}", path.display())),
    };
    let mut chunk = vec![0u8; CHUNK];
    loop {
        let mut filled = 0;
        while filled < CHUNK {
            match file.read(&mut chunk[filled..]) {
                Ok(0) => break,
                Ok(read) => filled += read,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return refuse(format!("cannot read {}: {e}", path.display())),
            }
        }
        if send(CHUNK_KIND, &chunk[..filled]).is_err() || filled == 0 {
            return;
        }
    }
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
    /// The data connections, by peer (`None` at this process), each
    /// locked for a frame at a time: the threads sending files write
    /// there too.
    out: Vec<Option<Arc<Mutex<Link>>>>,
    /// What this process sent over them.
    sent: Arc<Counters>,
    /// What this process sent when every process had said it is done,
    /// once it had.
    done: Option<Traffic>,
    /// By peer, the traffic it told as the team ended (process 0 only).
    tallies: Vec<Option<Traffic>>,
    /// The data connections again, to shut them when this process ends
    /// (without waiting for a thread sending a file to let go).
    shut: Vec<TcpStream>,
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
    /// By peer, the pieces of the files asked of it not yet taken, by
    /// the file's number.
    pieces: Vec<HashMap<u64, VecDeque<Piece>>>,
    /// By peer, how its connection ended, once it did.
    ended: Vec<Option<Ending>>,
}

impl Crew {
    /// Connects `team`'s process to all the others (within the team's
    /// connect timeout), starts the heartbeat, and listens. `tag`
    /// identifies the work: a process with another tag is refused. No
    /// file is sent to a peer that asks for one.
    pub(crate) fn join(team: &Team, tag: u64) -> Result<Crew, TeamError> {
        Crew::join_serving(team, tag, None)
    }

    /// As [`Crew::join`], sending a peer that asks for a file by a number
    /// the file `files` gives for it ([`Crew::fetch`]).
    pub(crate) fn join_serving(
        team: &Team,
        tag: u64,
        files: Option<Files>,
    ) -> Result<Crew, TeamError> {
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
        let sent = Arc::new(Counters::default());
        let out: Vec<Option<Arc<Mutex<Link>>>> = links
            .data
            .into_iter()
            .map(|stream| {
                stream.map(|stream| {
                    let sent = Arc::clone(&sent);
                    Arc::new(Mutex::new(Link { stream, sent }))
                })
            })
            .collect();
        let mut shut = Vec::new();
        for (peer, stream) in out.iter().enumerate() {
            let Some(stream) = stream else { continue };
            let (mut reader, to_shut) = {
                let stream = stream.lock().unwrap_or_else(|e| e.into_inner());
                (
                    stream.stream.try_clone().map_err(io)?,
                    stream.stream.try_clone().map_err(io)?,
                )
            };
            shut.push(to_shut);
            let tell = tell.clone();
            let files = files.clone();
            let back = Arc::clone(stream);
            let thread = std::thread::Builder::new()
                .name(format!("ply:crew-{peer}"))
                .spawn(move || {
                    let ending = loop {
                        let heard = match read_frame(&mut reader) {
                            Ok(Frame::Notice(notice)) => Heard::Notice(peer, notice),
                            Ok(Frame::Message(step, bytes)) => Heard::Message(peer, step, bytes),
                            Ok(Frame::Piece(what, piece)) => Heard::Piece(peer, what, piece),
                            Ok(Frame::Tally(traffic)) => Heard::Tally(peer, traffic),
                            Ok(Frame::Request(what)) => {
                                // Sent from a thread of its own, so that
                                // this one keeps reading (two peers each
                                // sending the other a file would block
                                // otherwise).
                                let (back, files) = (Arc::clone(&back), files.clone());
                                let served = std::thread::Builder::new()
                                    .name(format!("ply:file-{peer}"))
                                    .spawn(move || match files {
                                        Some(files) => serve(&back, &files, what),
                                        None => {
                                            let mut stream =
                                                back.lock().unwrap_or_else(|e| e.into_inner());
                                            let why = b"this process sends no files";
                                            let _ = write_body(&mut stream, REFUSED, what, why);
                                        }
                                    });
                                if let Err(e) = served {
                                    break Ending::Closed(format!(
                                        "its request for a file found no thread here: {e}"
                                    ));
                                }
                                continue;
                            }
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
            out,
            sent,
            done: None,
            tallies: vec![None; team.processes],
            shut,
            heard: Mutex::new(heard),
            readers,
            notices: vec![HashSet::new(); team.processes],
            messages: vec![HashMap::new(); team.processes],
            pieces: (0..team.processes).map(|_| HashMap::new()).collect(),
            ended: vec![None; team.processes],
        })
    }

    /// Tells every peer `notice`. A peer that cannot take it is lost,
    /// which shows where it is waited for.
    pub(crate) fn tell(&mut self, notice: Notice) {
        let frame = notice.frame();
        for stream in self.out.iter().flatten() {
            let _ = stream
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .put(&frame, &[]);
        }
    }

    /// Sends every peer `bytes` as the message of step `step` (each takes
    /// it with [`Crew::receive`]). A peer that cannot take it is lost,
    /// which shows where it is waited for: one frozen blocks the sending
    /// only until its heartbeat's silence shuts its socket.
    pub(crate) fn send(&mut self, step: u64, bytes: &[u8]) {
        for stream in self.out.iter().flatten() {
            let mut stream = stream.lock().unwrap_or_else(|e| e.into_inner());
            let _ = write_body(&mut stream, MESSAGE, step, bytes);
        }
    }

    /// Sends process `peer` alone `bytes` as the message of step `step`
    /// (it takes it with [`Crew::receive`]), as [`Crew::send`] sends
    /// every peer; nothing where `peer` is this process or no peer. A
    /// peer that cannot take it is lost, which shows where it is waited
    /// for.
    pub(crate) fn send_to(&mut self, peer: usize, step: u64, bytes: &[u8]) {
        if let Some(Some(stream)) = self.out.get(peer) {
            let mut stream = stream.lock().unwrap_or_else(|e| e.into_inner());
            let _ = write_body(&mut stream, MESSAGE, step, bytes);
        }
    }

    /// Fetches from process `from` its file numbered `what` (`what_for`,
    /// for people: [`Files`] at `from` says which file it is) into `dest`:
    /// written to a temporary file beside it a chunk at a time, synced,
    /// found sound by `check` and renamed over `dest`. Returns its size.
    /// Fails naming `from` if it refuses the file, sends one `check`
    /// refuses, ends or is lost first; or if `cancelled` says so. A peer
    /// that said it is done still sends files until it ends.
    pub(crate) fn fetch(
        &mut self,
        (from, what): (usize, u64),
        dest: &Path,
        check: &dyn Fn(&Path) -> Result<(), String>,
        what_for: &str,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<u64, TeamError> {
        let Some(Some(stream)) = self.out.get(from).map(|s| s.as_ref().map(Arc::clone)) else {
            return Err(TeamError::Config(format!(
                "process {} cannot fetch {what_for} from process {from}",
                self.team.process
            )));
        };
        let name = dest
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let temporary =
            dest.with_file_name(format!(".{name}.from-{from}-by-{}.tmp", self.team.process));
        let fetched = self.fetch_into(
            &stream,
            (from, what),
            &temporary,
            check,
            what_for,
            cancelled,
        );
        match fetched {
            Ok(size) => match std::fs::rename(&temporary, dest) {
                Ok(()) => Ok(size),
                Err(error) => {
                    let _ = std::fs::remove_file(&temporary);
                    Err(TeamError::Io {
                        what: format!("cannot rename {} into place", temporary.display()),
                        error,
                    })
                }
            },
            Err(e) => {
                let _ = std::fs::remove_file(&temporary);
                Err(e)
            }
        }
    }

    /// Asks process `from` (over `stream`) for its file numbered `what`
    /// and writes it to `temporary` as it comes, then syncs it and has
    /// `check` find it sound; as [`Crew::fetch`], but for the rename.
    fn fetch_into(
        &mut self,
        stream: &Mutex<Link>,
        (from, what): (usize, u64),
        temporary: &Path,
        check: &dyn Fn(&Path) -> Result<(), String>,
        what_for: &str,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<u64, TeamError> {
        let io = |doing: &str| {
            let what = format!("cannot {doing} {}", temporary.display());
            move |error| TeamError::Io { what, error }
        };
        let mut file = std::fs::File::create(temporary).map_err(io("create"))?;
        let mut request = [0u8; 9];
        request[0] = REQUEST;
        request[1..].copy_from_slice(&what.to_le_bytes());
        // A peer that cannot take the request is lost, which shows in the
        // wait for its answer.
        let _ = stream
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .put(&request, &[]);
        let garbled = |crew: &Crew, why: String| TeamError::Garbled {
            process: from,
            host: crew.team.host(from).map(str::to_string),
            why,
        };
        let mut size = 0u64;
        loop {
            let piece = self.wait_until(from, what_for, cancelled, false, |crew| {
                crew.pieces[from].get_mut(&what)?.pop_front()
            })?;
            match piece {
                Piece::Chunk(bytes) => {
                    file.write_all(&bytes).map_err(io("write"))?;
                    size += bytes.len() as u64;
                }
                Piece::End => break,
                Piece::Refused(why) => {
                    return Err(garbled(
                        self,
                        format!("it could not send {what_for}: {why}"),
                    ));
                }
            }
        }
        file.sync_all().map_err(io("sync"))?;
        check(temporary).map_err(|why| garbled(self, format!("{what_for} came unsound: {why}")))?;
        Ok(size)
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
        self.wait_until(from, what, cancelled, true, |crew| {
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
        self.wait_until(from, what, cancelled, true, |crew| {
            crew.messages[from].remove(&step)
        })
    }

    /// Waits until `take` finds what process `from` was to send (`what`);
    /// with `until_bye`, fails once `from` said it is done (it tells
    /// nothing more, but still sends the files asked of it).
    fn wait_until<T>(
        &mut self,
        from: usize,
        what: &str,
        cancelled: &dyn Fn() -> bool,
        until_bye: bool,
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
            if until_bye && self.notices[from].contains(&Notice::Bye) {
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

    /// The error for process `from` having sent what does not read
    /// (`why`), naming it as a lost peer is named.
    pub(crate) fn garbled(&self, from: usize, why: String) -> TeamError {
        TeamError::Garbled {
            process: from,
            host: self.team.host(from).map(str::to_string),
            why,
        }
    }

    /// Tells every peer this process is done, then waits until each of
    /// them is done too or has ended (a frozen one is found silent within
    /// the peer timeout), so that nothing it sent is left unread here when
    /// this process closes its connections. Then no peer asks for a file
    /// any more, and what this process sent is final: a process other
    /// than 0 sends process 0 its [`Traffic`] (which the tally itself is
    /// not counted in), and process 0 waits for each peer's, or its end.
    pub(crate) fn finish(&mut self) {
        self.tell(Notice::Bye);
        let me = self.team.process;
        let peers: Vec<usize> = (0..self.team.processes).filter(|&p| p != me).collect();
        for &peer in &peers {
            while !self.notices[peer].contains(&Notice::Bye) && self.ended[peer].is_none() {
                self.hear(TICK);
            }
        }
        let done = self.sent.now();
        self.done = Some(done);
        if me != 0 {
            if let Some(Some(link)) = self.out.first() {
                let mut link = link.lock().unwrap_or_else(|e| e.into_inner());
                let _ = write_body(&mut link, TALLY, 0, &done.encode());
            }
            return;
        }
        for &peer in &peers {
            while self.tallies[peer].is_none() && self.ended[peer].is_none() {
                self.hear(TICK);
            }
        }
    }

    /// What each process of the team sent its peers, by process, once
    /// [`Crew::finish`] ended: this process's own, and at process 0 every
    /// peer's as it told (`None` for one that ended without telling, and
    /// for every peer at another process).
    pub(crate) fn traffic(&self) -> Vec<Option<Traffic>> {
        let mut all = self.tallies.clone();
        all[self.team.process] = self.done;
        all
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
                Heard::Piece(peer, what, piece) => {
                    self.pieces[peer].entry(what).or_default().push_back(piece);
                }
                Heard::Tally(peer, traffic) => self.tallies[peer] = Some(traffic),
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
        for stream in &self.shut {
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
    fn a_message_sent_to_one_peer_reaches_it_alone() {
        let hosts = hosts(3);
        let peers: Vec<_> = (1..3)
            .map(|process| {
                let team = member(&hosts, process);
                std::thread::spawn(move || {
                    let mut crew = Crew::join(&team, 6).expect("joined");
                    let never = || false;
                    let got = crew.receive(0, 7, "step 7", &never).expect("step 7");
                    assert_eq!(got, vec![process as u8; 2]);
                    // The step sent to the other peer never comes here.
                    let step = 7 + 3 - process as u64;
                    assert!(crew.receive(0, step, "another's step", &never).is_err());
                    crew.finish();
                })
            })
            .collect();
        let mut crew = Crew::join(&member(&hosts, 0), 6).expect("joined");
        for peer in 1..3 {
            crew.send_to(peer, 7, &[peer as u8; 2]);
            crew.send_to(peer, 7 + peer as u64, &[0]);
        }
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
    fn a_file_fetched_comes_in_chunks_and_one_refused_or_unsound_is_not_kept() {
        let hosts = hosts(2);
        let dir = tempfile::tempdir().expect("a directory");
        let theirs = dir.path().join("theirs");
        // Two chunks and a bit, with bytes that tell their place.
        let bytes: Vec<u8> = (0..2 * CHUNK + 1000).map(|i| (i % 251) as u8).collect();
        std::fs::write(&theirs, &bytes).expect("written");
        let other = member(&hosts, 1);
        let served = theirs.clone();
        let files: Files = Arc::new(move |what| (what == 7).then(|| served.clone()));
        let peer = std::thread::spawn(move || {
            let mut crew = Crew::join_serving(&other, 9, Some(files)).expect("joined");
            // Done, yet it sends files until process 0 is done too.
            crew.finish();
        });
        let mut crew = Crew::join(&member(&hosts, 0), 9).expect("joined");
        let never = || false;
        let sound = |_: &Path| Ok(());
        let mine = dir.path().join("mine");
        let size = crew
            .fetch((1, 7), &mine, &sound, "file 7", &never)
            .expect("fetched");
        assert_eq!(size, bytes.len() as u64);
        assert_eq!(std::fs::read(&mine).expect("in place"), bytes);
        let refused = crew
            .fetch((1, 8), &dir.path().join("none"), &sound, "file 8", &never)
            .unwrap_err();
        assert!(
            matches!(refused, TeamError::Garbled { process: 1, .. }),
            "{refused}"
        );
        assert!(refused.to_string().contains("file 8"), "{refused}");
        let unsound = |_: &Path| Err("not what was asked for".to_string());
        let bad = dir.path().join("bad");
        let error = crew
            .fetch((1, 7), &bad, &unsound, "file 7", &never)
            .unwrap_err();
        assert!(error.to_string().contains("not what was asked"), "{error}");
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .expect("listed")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            !bad.exists() && !dir.path().join("none").exists(),
            "{left:?}"
        );
        assert!(left.iter().all(|n| !n.ends_with(".tmp")), "{left:?}");
        crew.finish();
        peer.join().expect("no panic");
    }

    #[test]
    fn a_fetch_from_a_peer_that_ends_first_names_it() {
        let hosts = hosts(2);
        let other = member(&hosts, 1);
        let dir = tempfile::tempdir().expect("a directory");
        let served = dir.path().join("theirs");
        std::fs::write(&served, b"a file").expect("written");
        let files: Files = Arc::new(move |_| Some(served.clone()));
        // Joined, then gone (as if killed) without answering anything.
        let peer = std::thread::spawn(move || {
            drop(Crew::join_serving(&other, 3, Some(files)).expect("joined"));
        });
        let mut crew = Crew::join(&member(&hosts, 0), 3).expect("joined");
        peer.join().expect("no panic");
        let mine = dir.path().join("mine");
        let error = crew
            .fetch((1, 0), &mine, &|_| Ok(()), "the shard of tier 0", &|| false)
            .unwrap_err();
        assert!(
            matches!(error, TeamError::Lost { process: 1, .. }),
            "{error}"
        );
        assert!(error.to_string().contains("tier 0"), "{error}");
        assert!(!mine.exists());
        crew.finish();
    }

    /// Process 1 tells a notice, sends a message and serves a file of
    /// three chunks; process 0 asks for the file. Each counts exactly the
    /// frames it wrote, and process 0 learns process 1's count at the end.
    #[test]
    fn traffic_counts_each_frame_written_and_reaches_process_0() {
        let hosts = hosts(2);
        let dir = tempfile::tempdir().expect("a directory");
        let theirs = dir.path().join("theirs");
        let size = 2 * CHUNK + 5;
        std::fs::write(&theirs, vec![1u8; size]).expect("written");
        let other = member(&hosts, 1);
        let files: Files = Arc::new(move |_| Some(theirs.clone()));
        let peer = std::thread::spawn(move || {
            let mut crew = Crew::join_serving(&other, 4, Some(files)).expect("joined");
            crew.tell(Notice::Tier(1));
            crew.send(2, &[9; 100]);
            crew.finish();
            crew.traffic()
        });
        let mut crew = Crew::join(&member(&hosts, 0), 4).expect("joined");
        let never = || false;
        crew.receive(1, 2, "step 2", &never).expect("the message");
        let mine = dir.path().join("mine");
        let fetched = crew
            .fetch((1, 0), &mine, &|_| Ok(()), "the file", &never)
            .expect("fetched");
        assert_eq!(fetched, size as u64);
        crew.finish();
        let theirs = peer.join().expect("no panic");
        // Process 1: a notice, a message, three chunks and the empty one
        // that ends the file, and its goodbye.
        let chunks = 4u64;
        let one = Traffic {
            bytes: 9 + (17 + 100) + chunks * 17 + size as u64 + 9,
            frames: 1 + 1 + chunks + 1,
            file_bytes: size as u64,
        };
        // Process 0: the request and its goodbye.
        let zero = Traffic {
            bytes: 9 + 9,
            frames: 2,
            file_bytes: 0,
        };
        assert_eq!(theirs, vec![None, Some(one)], "process 1 knows its own");
        assert_eq!(crew.traffic(), vec![Some(zero), Some(one)]);
        assert_eq!(Traffic::decode(&one.encode()), Some(one));
        assert_eq!(Traffic::decode(&[0; 23]), None);
    }

    #[test]
    fn frames_read_back_and_tags_tell_games_apart() {
        for notice in [
            Notice::Tier(0),
            Notice::Slice(u64::MAX),
            Notice::Bye,
            Notice::Found,
        ] {
            assert_eq!(Notice::parse(notice.frame()), Some(notice));
        }
        assert_eq!(Notice::parse([9; 9]), None);
        assert_ne!(tag("quixo:3x3", 2), tag("quixo:3x3", 3));
        assert_ne!(tag("quixo:3x3", 2), tag("teeko:4x4", 2));
    }
}
