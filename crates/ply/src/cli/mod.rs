//! The `ply` command line: one module per subcommand group.

pub mod db;
pub mod dist;
pub mod export;
pub mod octal;
pub mod progress;
pub mod stop;

use crate::error::PlyError;
use crate::session::store::{self, Store};
use crate::{judge, play, registry, serve};
use clap::{Args, Parser, Subcommand};
use progress::{BarProgress, Working};
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

/// The version line: the crate's version and how this process packs point
/// sets (`pext` or byte tables, chosen at start; issue 59).
static VERSION: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    let path =
        ply_games::colex::PackingPath::current().unwrap_or(ply_games::colex::PackingPath::Tables);
    format!("{} (packing: {})", env!("CARGO_PKG_VERSION"), path.name())
});

/// ply: strongly solve two-player, perfect-information games.
#[derive(Parser, Debug)]
#[command(name = "ply", version = VERSION.as_str(), about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Where solved databases are kept, and whether to use them.
#[derive(Args, Debug, Clone)]
struct DbArgs {
    /// The database directory (default: $PLY_DB_DIR, else the platform data
    /// directory, ~/.local/share/ply/db on Linux).
    #[arg(long, value_name = "DIR")]
    db_dir: Option<PathBuf>,
    /// Ignore saved databases: solve from scratch.
    #[arg(long)]
    no_db: bool,
}

impl DbArgs {
    /// Makes this the store every session of the process reads from; a
    /// `--db-dir` given must exist.
    fn configure(&self) -> Result<Store, PlyError> {
        self.configure_saving(false)
    }

    /// As [`DbArgs::configure`]; with `save` a `--db-dir` that does not
    /// exist yet is created (and said so).
    fn configure_saving(&self, save: bool) -> Result<Store, PlyError> {
        let store = Store::locate(self.db_dir.clone(), !self.no_db)?;
        if self.db_dir.is_some() && (save || !self.no_db) {
            store.check_named(save)?;
        }
        store::configure(store.clone());
        Ok(store)
    }
}

/// Reads a number of bytes with an optional unit: `1073741824`, `512K`,
/// `512MiB`, `1G`, `1.5GiB`, `2T`; the units are binary (K = KiB = 1024
/// bytes), case aside, with or without `iB` or `B`.
pub fn byte_size(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => {
            return Err(format!(
                "'{text}': give bytes with an optional unit, e.g. 512MiB or 1G"
            ));
        }
    };
    let bad = || format!("'{text}': give bytes with an optional unit, e.g. 512MiB or 1G");
    let value: f64 = number.parse().map_err(|_| bad())?;
    let bytes = value * (1u64 << shift) as f64;
    if !bytes.is_finite() || bytes < 0.0 || bytes >= u64::MAX as f64 {
        return Err(bad());
    }
    Ok(bytes as u64)
}

/// A `--memory` of at least 1 MiB (see [`byte_size`]).
fn memory_size(text: &str) -> Result<u64, String> {
    let bytes = byte_size(text)?;
    if bytes < 1 << 20 {
        return Err(format!("'{text}': at least 1MiB"));
    }
    Ok(bytes)
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List the built-in games and their variants.
    Games,
    /// Value and remoteness of a position, and of every move from it.
    Solve {
        /// The game, as NAME or NAME:PARAMS (e.g. euler:5x5).
        game: String,
        /// The position (boards as rows joined by '/'); the start if omitted;
        /// '-' reads it from stdin (for positions longer than an argument may be).
        position: Option<String>,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// The most memory for answering by search, in bytes with an
        /// optional binary unit (512MiB, 1G): half for database blocks kept
        /// decoded, half for the search's transposition table (Morris's
        /// placing phase, and games searched by alpha-beta such as large
        /// tic-tac-toe boards). At least 1MiB. Default: 1 GiB of blocks and
        /// a 64 MiB table.
        #[arg(long, value_name = "BYTES", value_parser = memory_size)]
        memory: Option<u64>,
        #[command(flatten)]
        db: DbArgs,
    },
    /// Strongly solve a whole game and count positions by value and remoteness.
    Analyze {
        /// The game, as NAME or NAME:PARAMS.
        game: String,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// Write the solution as a database into the database directory.
        #[arg(long)]
        save: bool,
        /// The most memory the tiers solved at the same time may use
        /// together (games solved tier by tier), in bytes with an optional
        /// binary unit (512MiB, 8G): a tier needing more alone is refused
        /// before any work.
        #[arg(long, value_name = "BYTES", value_parser = byte_size)]
        memory: Option<u64>,
        /// Solve and count only the game's end tiers (games solved tier by
        /// tier): those at most H tier steps above a tier whose moves stay
        /// in it. For Quixo, H is the most blank cubes: `--end-tiers 1`.
        #[arg(long, value_name = "H")]
        end_tiers: Option<u32>,
        #[command(flatten)]
        db: DbArgs,
        /// Solve by distributed retrograde analysis on N worker threads
        /// (per process). Games solved tier by tier on one process (quixo,
        /// teeko, morris; euler and tictactoe, whose table is built tier by
        /// tier) run their own solver on N threads instead, which cut each
        /// tier's positions between them (the same cells as without), and
        /// so does each process of a team.
        #[arg(long, value_name = "N")]
        workers: Option<usize>,
        /// Number of processes taking part, each started with --process.
        /// Games the distributed solver takes whole (euler, tictactoe,
        /// lgame, yehr, teeko) run it when --hosts is given (--workers
        /// threads each). Games solved tier by tier run a team with --save:
        /// quixo and morris (and teeko without --hosts) deal the tiers out,
        /// the processes telling each other over TCP which tier they wrote
        /// and fetching the shards they lack from each other, each into its
        /// own --db-dir or one they share (process 0's ends with the whole
        /// database; a rerun of the same commands resumes); euler and tictactoe without --hosts deal out
        /// each tier's positions and send each other what they solved over
        /// TCP, sharing no directory (process 0 saves the database; a rerun
        /// solves every tier again).
        #[arg(long, value_name = "P")]
        processes: Option<usize>,
        /// Which process this is, from 0 (process 0 prints the report).
        #[arg(long, value_name = "I")]
        process: Option<usize>,
        /// A file with one host:port line per process, in order: the TCP
        /// address each process listens on, for every game.
        #[arg(long, value_name = "FILE")]
        hosts: Option<std::path::PathBuf>,
        /// Without --hosts, a team on one machine (a tier team or a table
        /// team) listens on loopback: process I on 127.0.0.1:PORT+I.
        #[arg(long, value_name = "PORT", default_value_t = TEAM_PORT)]
        port: u16,
        /// How long each process waits for every other one to connect.
        #[arg(long, value_name = "SECS", default_value_t = dist::CONNECT_TIMEOUT.as_secs())]
        connect_timeout: u64,
        /// How long a peer process may send no heartbeat (it sends one
        /// every half second over TCP) before it is taken as lost, frozen
        /// or cut off, and the run ends with an error naming it.
        #[arg(long, value_name = "SECS", default_value_t = ply_core::dist::PEER_TIMEOUT.as_secs(),
              value_parser = clap::value_parser!(u64).range(1..))]
        peer_timeout: u64,
        /// A tier team cuts a tier of at least N indices between its
        /// processes (default 65536), each solving the indices of its
        /// slice: a tier every move leaves from its child tiers alone, a
        /// tier with moves inside it (quixo, teeko, morris) in lockstep
        /// rounds of remoteness, exchanging updates over TCP.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        cut_from: Option<u64>,
        /// A tier team cuts a tier its solver would solve a working cell
        /// per symmetry class too (each process then solves every index of
        /// its slice, a cell each).
        #[arg(long)]
        cut_classes: bool,
    },
    /// Write a solved game as a table, one row per stored position: key,
    /// position, value, remoteness, best moves, and the board as numbers
    /// where the game writes one.
    ///
    /// A row is one key of the solved table, not one reachable position:
    /// games solved by symmetry class (tictactoe, euler, quixo, teeko,
    /// morris, ...) write one row per class, its canonical member, so
    /// `ply export tictactoe:3x3x3` writes 765 rows where `ply analyze`
    /// counts 5,478 positions; games whose key leaves out the mover (the L
    /// Game) write a row per board with both movers in it. `ply analyze`
    /// counts positions; `export` writes what is stored.
    Export {
        /// The game, as NAME or NAME:PARAMS.
        game: String,
        /// The file format.
        #[arg(long, value_enum)]
        format: export::Format,
        /// The file to write (default: GAME.parquet or GAME.csv here).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Leave out the best_moves column (much quicker: no move is made).
        #[arg(long)]
        no_moves: bool,
        #[command(flatten)]
        db: DbArgs,
    },
    /// Saved databases: list, verify, remove.
    #[command(subcommand)]
    Db(db::DbCommand),
    /// Grundy values of an octal game (e.g. 0.07, 0.137, 4.7), its zeros, and
    /// its period once the octal periodicity theorem proves it.
    Octal {
        /// The code d0.d1d2...: d0 is 0 or 4, then octal digits.
        code: String,
        /// The largest heap to compute (a period proved within it is
        /// reported).
        #[arg(long, value_name = "N", default_value_t = octal::DEFAULT_UP_TO)]
        up_to: usize,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// Print every value too (JSON: a "values" array).
        #[arg(long)]
        values: bool,
    },
    /// Answer a contest problem: contest input on stdin, exact output on stdout.
    Judge {
        /// The contest problem: one of the possible values below.
        #[arg(value_parser = clap::builder::PossibleValuesParser::new(judge::PROBLEMS.iter().map(|p| p.name)))]
        problem: String,
    },
    /// Play against the perfect player in the terminal (moves on stdin).
    Play {
        /// The game, as NAME or NAME:PARAMS.
        game: String,
        /// The position to start from; the game's start if omitted.
        position: Option<String>,
        /// You move first from the position (the default).
        #[arg(long, conflicts_with = "second")]
        first: bool,
        /// The computer moves first from the position.
        #[arg(long)]
        second: bool,
        /// Seed for the computer's choice among equally good moves.
        #[arg(long)]
        seed: Option<u64>,
        #[command(flatten)]
        db: DbArgs,
    },
    /// Serve a web page and a JSON API to play and explore every game.
    Serve {
        /// The address to listen on, as HOST:PORT (a host name such as
        /// localhost is resolved; port 0 picks a free port).
        #[arg(long, default_value = "127.0.0.1:8080")]
        addr: String,
        /// Games to load (from their databases) or build before accepting
        /// connections, comma-separated (e.g. euler:5x5,yehr).
        #[arg(long, value_name = "GAME,...", value_delimiter = ',')]
        preload: Vec<String>,
        #[command(flatten)]
        db: DbArgs,
        #[command(flatten)]
        limits: serve::limits::Limits,
    },
}

impl Cli {
    /// Runs the command, writing its output to stdout.
    pub fn run(self) -> Result<(), PlyError> {
        // Not locked for the whole command: timely's networking threads
        // print to stdout while processes connect.
        let mut out = BufWriter::new(io::stdout());
        match self.command {
            Command::Games => {
                for entry in registry::entries() {
                    writeln!(out, "{:<12} {}", entry.name, entry.summary)?;
                    writeln!(out, "{:<12} variants: {}", "", entry.variants)?;
                }
            }
            Command::Solve {
                game,
                position,
                json,
                memory,
                db,
            } => {
                db.configure()?;
                if let Some(memory) = memory {
                    ply_core::limits::check_memory("--memory", memory)
                        .map_err(|e| PlyError::Unavailable(e.to_string()))?;
                    if !ply_core::db::set_block_cache_bytes(memory / 2) {
                        return Err(PlyError::Unavailable(
                            "--memory: a database was read before the block cache could be sized"
                                .into(),
                        ));
                    }
                    ply_core::limits::set_search_table_bytes(memory / 2);
                }
                let position = match position {
                    Some(dash) if dash == "-" => Some(read_position()?),
                    other => other,
                };
                let session = registry::open(&game)?;
                // A bad position is refused before a build that may take minutes.
                if let Some(position) = &position {
                    session.check_position(position)?;
                }
                if !db.no_db {
                    crate::session::refuse_long_without_database(session.as_ref())?;
                }
                session.prepare(&BarProgress::new())?;
                let working = Working::new(&format!("solving {}", session.name()));
                let mut report = session.solve_within(position.as_deref(), &working)?;
                drop(working);
                report.best_first();
                let notes = session.notes(&report);
                let source = session.source().map(|s| s.as_str());
                if json {
                    let noted = crate::report::Noted {
                        report: &report,
                        notes: &notes,
                        source,
                    };
                    writeln!(out, "{}", to_json(&noted)?)?;
                } else {
                    write!(out, "{}", report.to_text())?;
                    for note in &notes {
                        writeln!(out, "note      {note}")?;
                    }
                    if let Some(source) = source {
                        writeln!(out, "source    {source}")?;
                    }
                }
            }
            Command::Analyze {
                game,
                json,
                save,
                memory,
                end_tiers,
                db,
                workers,
                processes,
                process,
                hosts,
                port,
                connect_timeout,
                peer_timeout,
                cut_from,
                cut_classes,
            } => {
                let store = db.configure_saving(save)?;
                let cut = crate::session::Cutting {
                    from: cut_from,
                    classes: cut_classes,
                };
                let teamed = processes.is_some() || process.is_some();
                // Processes without --hosts, or of a game solved tier by
                // tier that the distributed solver does not take whole,
                // are a team building the tiers into the database
                // directory, each on --workers threads.
                let shared = teamed
                    && (hosts.is_none()
                        || (!registry::is_distributed(&game) && registry::open(&game)?.tiered()));
                let progress = BarProgress::new();
                // A game solved tier by tier (by the tier solver, or into a
                // table walked tier by tier) runs its own solver on the
                // worker threads.
                let tier_threads = match workers {
                    Some(threads) if !teamed && hosts.is_none() => {
                        let session = registry::open(&game)?;
                        if session.tiered() {
                            dist::cluster(workers, None, None, None)?;
                            Some((session, threads))
                        } else {
                            None
                        }
                    }
                    _ => None,
                };
                let distributed = (workers.is_some() || teamed) && tier_threads.is_none();
                if distributed && !shared && end_tiers.is_some() {
                    return Err(PlyError::argument(
                        "--end-tiers: the distributed solver solves whole games only",
                    ));
                }
                let report = if let Some((session, threads)) = tier_threads {
                    let mut report = worker_pool(threads)?.install(|| match end_tiers {
                        Some(height) => session.analyze_end_tiers(
                            height,
                            save.then_some(&store),
                            memory,
                            &progress,
                        ),
                        None => analyze(&*session, save.then_some(&store), memory, &progress),
                    })?;
                    report.extra.insert("workers".into(), threads.into());
                    report
                } else if shared {
                    let team = shared_team(
                        (processes, process),
                        save,
                        (hosts.as_deref(), port),
                        (connect_timeout, peer_timeout),
                    )?;
                    let bar = (team.process == 0).then(BarProgress::new);
                    let progress: &dyn ply_core::Progress = match &bar {
                        Some(bar) => bar,
                        None => &ply_core::NoProgress,
                    };
                    let session = registry::open(&game)?;
                    let build = || {
                        session.analyze_shared(&team, end_tiers, &store, (memory, cut), progress)
                    };
                    let built = match workers {
                        Some(threads) => {
                            dist::cluster(workers, None, None, None)?;
                            worker_pool(threads)?.install(build)?
                        }
                        None => build()?,
                    };
                    match built {
                        Some(mut report) => {
                            if let Some(threads) = workers {
                                report.extra.insert("workers".into(), threads.into());
                            }
                            report
                        }
                        None => return Ok(()),
                    }
                } else if distributed {
                    let cluster = dist::cluster(workers, processes, process, hosts.as_deref())?
                        .with_connect_timeout(std::time::Duration::from_secs(connect_timeout))
                        .with_peer_timeout(std::time::Duration::from_secs(peer_timeout));
                    let bar = (cluster.process() == 0).then(BarProgress::new);
                    let progress: &dyn ply_core::Progress = match &bar {
                        Some(bar) => bar,
                        None => &ply_core::NoProgress,
                    };
                    let game = registry::open_distributed(&game)?;
                    match dist::analyze(&*game, cluster, save.then_some(&store), progress)? {
                        Some(report) => report,
                        None => return Ok(()),
                    }
                } else {
                    let session = registry::open(&game)?;
                    match end_tiers {
                        Some(height) => session.analyze_end_tiers(
                            height,
                            save.then_some(&store),
                            memory,
                            &progress,
                        )?,
                        None => analyze(&*session, save.then_some(&store), memory, &progress)?,
                    }
                };
                if json {
                    writeln!(out, "{}", to_json(&report)?)?;
                } else {
                    write!(out, "{}", report.to_text())?;
                }
            }
            Command::Export {
                game,
                format,
                out: path,
                no_moves,
                db,
            } => {
                db.configure()?;
                let session = registry::open(&game)?;
                let path = path.unwrap_or_else(|| export::default_path(&session.name(), format));
                let columns = export::Columns {
                    best_moves: !no_moves,
                };
                let bar = BarProgress::new();
                // Ctrl-C or `kill` stops the export, which removes its
                // temporary file; the old file at `path`, if any, stays.
                let progress = stop::on_signal(&bar)?;
                let done = export::export(&*session, format, columns, &path, &progress)?;
                writeln!(
                    out,
                    "exported {} positions of {} to {} ({} bytes)",
                    done.rows,
                    session.name(),
                    done.path.display(),
                    done.bytes
                )?;
            }
            Command::Db(command) => db::run(command, &mut out)?,
            Command::Octal {
                code,
                up_to,
                json,
                values,
            } => {
                let report =
                    octal::OctalReport::compute(&code, up_to, values, &BarProgress::new())?;
                if json {
                    writeln!(out, "{}", to_json(&report)?)?;
                } else {
                    write!(out, "{}", report.to_text())?;
                }
            }
            Command::Judge { problem } => {
                let stdin = io::stdin();
                let mut input = io::BufReader::with_capacity(1 << 16, stdin.lock());
                judge::run(&problem, &mut input, &mut out)?;
            }
            Command::Play {
                game,
                position,
                first: _,
                second,
                seed,
                db,
            } => {
                db.configure()?;
                let session = registry::open(&game)?;
                let working =
                    Working::new(&format!("{}: working out the position", session.name()));
                let mut game = play::Match::new(&*session, position.as_deref(), !second, seed)?;
                drop(working);
                let stdin = io::stdin();
                play::run(&mut game, &mut stdin.lock(), &mut out)?;
            }
            Command::Serve {
                addr,
                preload,
                db,
                limits,
            } => {
                db.configure()?;
                serve::run(&addr, limits, &preload, &mut out)?
            }
        }
        out.flush()?;
        Ok(())
    }
}

/// Strongly solves `session` as `ply analyze` does, within `memory` bytes
/// if given (games solved tier by tier), and writes its database into
/// `save` if given, adding the file and its size to the report (`saved`,
/// `saved_bytes`). The command line and the Python package share it.
pub fn analyze(
    session: &dyn crate::Session,
    save: Option<&Store>,
    memory: Option<u64>,
    progress: &dyn ply_core::Progress,
) -> Result<crate::report::AnalyzeReport, PlyError> {
    session.analyze_saving(save, memory, progress)
}

/// The rayon threads `ply analyze --workers N` runs a game's own solver on.
fn worker_pool(threads: usize) -> Result<rayon::ThreadPool, PlyError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| PlyError::argument(format!("--workers {threads}: {e}")))
}

/// A position given as `-`: all of stdin, without surrounding whitespace.
/// The most bytes `ply solve GAME -` reads from stdin (a position of the
/// longest row game position is 2 MiB).
const MAX_POSITION_BYTES: u64 = 64 << 20;

/// The first loopback port of a tier team on one machine (`--port`).
const TEAM_PORT: u16 = 7047;

/// This process's place in a team building the tiers into a shared
/// database directory (`--processes P --process I --save`): over TCP at
/// the addresses of `--hosts`, else on loopback from `--port`; with the
/// connect and peer timeouts, in seconds.
fn shared_team(
    (processes, process): (Option<usize>, Option<usize>),
    save: bool,
    (hosts, port): (Option<&std::path::Path>, u16),
    (connect_timeout, peer_timeout): (u64, u64),
) -> Result<ply_core::team::Team, PlyError> {
    let (Some(processes), Some(process)) = (processes, process) else {
        return Err(PlyError::argument(
            "--processes and --process go together: every process of a team is \
             started with both (and the same --hosts, if any)",
        ));
    };
    if !save {
        return Err(PlyError::argument(
            "--processes builds the tiers into the database directory: give --save \
             (and the same --db-dir to every process)",
        ));
    }
    let peer_timeout = std::time::Duration::from_secs(peer_timeout);
    let team = match hosts {
        Some(path) => {
            let hosts = dist::read_hosts(path, processes, process)?;
            ply_core::team::Team::on_hosts(hosts, process, peer_timeout)
        }
        None => ply_core::team::Team::on_loopback(processes, process, port, peer_timeout),
    };
    let team = team.map_err(|why| PlyError::argument(format!("--process: {why}")))?;
    Ok(team.with_connect_timeout(std::time::Duration::from_secs(connect_timeout)))
}

fn read_position() -> Result<String, PlyError> {
    let mut bytes = Vec::new();
    io::Read::read_to_end(
        &mut io::Read::take(io::stdin().lock(), MAX_POSITION_BYTES + 1),
        &mut bytes,
    )?;
    if bytes.len() as u64 > MAX_POSITION_BYTES {
        return Err(PlyError::argument(format!(
            "the position on stdin is longer than {} MiB",
            MAX_POSITION_BYTES >> 20
        )));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        let bad = e.utf8_error().valid_up_to();
        let before = &e.as_bytes()[..bad];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        PlyError::input(
            line,
            format!(
                "the position on stdin is not UTF-8 text (byte {} of the line is not)",
                bad - line_start + 1
            ),
        )
    })?;
    Ok(text.trim().to_string())
}

fn to_json(value: &impl serde::Serialize) -> Result<String, PlyError> {
    serde_json::to_string(value).map_err(|e| PlyError::Io(io::Error::other(e)))
}
