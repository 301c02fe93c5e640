//! The `ply` command line: one module per subcommand group.

pub mod octal;
pub mod progress;

use crate::error::PlyError;
use crate::{judge, registry};
use clap::{Parser, Subcommand};
use progress::BarProgress;
use std::io::{self, BufWriter, Write};

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
}

impl Cli {
    /// Runs the command, writing its output to stdout.
    pub fn run(self) -> Result<(), PlyError> {
        let stdout = io::stdout();
        let mut out = BufWriter::new(stdout.lock());
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
            Command::Analyze { game, json } => {
                let report = registry::open(&game)?.analyze(&BarProgress::new())?;
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
