//! The `ply` command line: one module per subcommand group.

pub mod dist;
pub mod octal;
pub mod progress;

use crate::error::PlyError;
use crate::{judge, play, registry, serve};
use clap::{Parser, Subcommand};
use progress::BarProgress;
use std::io::{self, BufWriter, Write};
use std::net::SocketAddr;

/// ply: strongly solve two-player, perfect-information games.
#[derive(Parser, Debug)]
#[command(name = "ply", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
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
    },
    /// Strongly solve a whole game and count positions by value and remoteness.
    Analyze {
        /// The game, as NAME or NAME:PARAMS.
        game: String,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// Solve by distributed retrograde analysis on N worker threads
        /// (per process).
        #[arg(long, value_name = "N")]
        workers: Option<usize>,
        /// Number of processes taking part (with --process and --hosts).
        #[arg(long, value_name = "P")]
        processes: Option<usize>,
        /// Which process this is, from 0 (process 0 prints the report).
        #[arg(long, value_name = "I")]
        process: Option<usize>,
        /// A file with one host:port line per process, in order.
        #[arg(long, value_name = "FILE")]
        hosts: Option<std::path::PathBuf>,
    },
    /// Grundy values of an octal game (e.g. 0.07, 0.137, 4.7), its zeros, and
    /// its period once the octal periodicity theorem proves it.
    Octal {
        /// The code d0.d1d2...: d0 is 0 or 4, then octal digits.
        code: String,
        /// The largest heap to compute.
        #[arg(long, value_name = "N")]
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
        /// The problem (see `ply judge --help` for the list).
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
    },
    /// Serve a web page and a JSON API to play and explore every game.
    Serve {
        /// The address to listen on (port 0 picks a free port).
        #[arg(long, default_value = "127.0.0.1:8080")]
        addr: SocketAddr,
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
                for entry in registry::GAMES {
                    writeln!(out, "{:<12} {}", entry.name, entry.summary)?;
                    writeln!(out, "{:<12} variants: {}", "", entry.variants)?;
                }
            }
            Command::Solve {
                game,
                position,
                json,
            } => {
                let position = match position {
                    Some(dash) if dash == "-" => Some(read_position()?),
                    other => other,
                };
                let session = registry::open(&game)?;
                session.prepare(&BarProgress::new())?;
                let report = session.solve(position.as_deref())?;
                let notes = session.notes(&report);
                if json {
                    let noted = Noted {
                        report: &report,
                        notes: &notes,
                    };
                    writeln!(out, "{}", to_json(&noted)?)?;
                } else {
                    write!(out, "{}", report.to_text())?;
                    for note in &notes {
                        writeln!(out, "note      {note}")?;
                    }
                }
            }
            Command::Analyze {
                game,
                json,
                workers,
                processes,
                process,
                hosts,
            } => {
                let report = if workers.is_some() || processes.is_some() || process.is_some() {
                    let cluster = dist::cluster(workers, processes, process, hosts.as_deref())?;
                    let bar = (cluster.process() == 0).then(BarProgress::new);
                    let progress: &dyn ply_core::Progress = match &bar {
                        Some(bar) => bar,
                        None => &ply_core::NoProgress,
                    };
                    match dist::analyze(&*registry::open_distributed(&game)?, cluster, progress)? {
                        Some(report) => report,
                        None => return Ok(()),
                    }
                } else {
                    registry::open(&game)?.analyze(&BarProgress::new())?
                };
                if json {
                    writeln!(out, "{}", to_json(&report)?)?;
                } else {
                    write!(out, "{}", report.to_text())?;
                }
            }
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
            } => {
                let session = registry::open(&game)?;
                let mut game = play::Match::new(&*session, position.as_deref(), !second, seed)?;
                let stdin = io::stdin();
                play::run(&mut game, &mut stdin.lock(), &mut out)?;
            }
            Command::Serve { addr } => serve::run(addr, &mut out)?,
        }
        out.flush()?;
        Ok(())
    }
}

/// A solve report with the session's notes on it, as `ply solve --json`
/// prints it.
#[derive(serde::Serialize)]
struct Noted<'a> {
    #[serde(flatten)]
    report: &'a crate::report::SolveReport,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    notes: &'a [String],
}

/// A position given as `-`: all of stdin, without surrounding whitespace.
fn read_position() -> Result<String, PlyError> {
    let mut text = String::new();
    io::Read::read_to_string(&mut io::stdin().lock(), &mut text)?;
    Ok(text.trim().to_string())
}

fn to_json(value: &impl serde::Serialize) -> Result<String, PlyError> {
    serde_json::to_string(value).map_err(|e| PlyError::Io(io::Error::other(e)))
}
