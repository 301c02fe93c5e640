//! `ply play`: a person plays against the perfect player in the terminal.
//!
//! A [`Match`] keeps the positions played so far and knows whose turn it is;
//! [`run`] reads commands line by line from any reader, so a script on stdin
//! plays a whole game as well as a person at a terminal does.

pub mod choose;
pub mod table;

use crate::cli::progress::Working;
use crate::error::{PlyError, excerpt};
use crate::report::SolveReport;
use crate::session::Session;
use ply_core::Value;
use rand::SeedableRng;
use rand::rngs::StdRng;
use std::fmt;
use std::io::{BufRead, Read, Write};

/// The longest line `ply play` reads, in bytes.
pub const MAX_LINE: u64 = 1 << 20;

/// Who won a finished game, from the person's side.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The person won.
    HumanWins,
    /// The computer won.
    ComputerWins,
    /// The game ended level.
    Tie,
    /// The game ended in a position its rules call drawn.
    Draw,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::HumanWins => "you win",
            Verdict::ComputerWins => "the computer wins",
            Verdict::Tie => "a tie",
            Verdict::Draw => "a draw",
        })
    }
}

/// A game between a person and the perfect player.
pub struct Match<'s> {
    session: &'s dyn Session,
    /// The report of the position where play began.
    first: SolveReport,
    /// The report of every position reached by a move since, in order.
    played: Vec<SolveReport>,
    /// Whether the person moves at the first position (and every second one after).
    human_first: bool,
    rng: StdRng,
}

impl<'s> Match<'s> {
    /// A match from `position` (the start if `None`). The person moves first
    /// if `human_first`; `seed` fixes the computer's choices among equal moves.
    pub fn new(
        session: &'s dyn Session,
        position: Option<&str>,
        human_first: bool,
        seed: Option<u64>,
    ) -> Result<Self, PlyError> {
        let first = session.solve_listing_all(position)?;
        let rng = match seed {
            Some(seed) => StdRng::seed_from_u64(seed),
            None => StdRng::from_os_rng(),
        };
        Ok(Self {
            session,
            first,
            played: Vec::new(),
            human_first,
            rng,
        })
    }

    /// The report of the position now on the board.
    pub fn current(&self) -> &SolveReport {
        self.played.last().unwrap_or(&self.first)
    }

    /// Plies played since the match began.
    pub fn plies(&self) -> usize {
        self.played.len()
    }

    /// Whether the person is to move now.
    pub fn human_to_move(&self) -> bool {
        self.is_human_turn(self.plies())
    }

    fn is_human_turn(&self, ply: usize) -> bool {
        ply.is_multiple_of(2) == self.human_first
    }

    /// The result, once the position on the board has no moves.
    pub fn verdict(&self) -> Option<Verdict> {
        let current = self.current();
        if !current.moves.is_empty() {
            return None;
        }
        let mover_is_human = self.human_to_move();
        Some(match current.value {
            Value::Tie => Verdict::Tie,
            Value::Draw => Verdict::Draw,
            value => {
                if (value == Value::Win) == mover_is_human {
                    Verdict::HumanWins
                } else {
                    Verdict::ComputerWins
                }
            }
        })
    }

    /// Plays the move named `name` (exactly, or ignoring case if that picks
    /// one move). Returns `false` if no legal move has that name.
    pub fn play(&mut self, name: &str) -> Result<bool, PlyError> {
        let moves = &self.current().moves;
        let exact = moves.iter().find(|m| m.name == name);
        let mut folded = moves.iter().filter(|m| m.name.eq_ignore_ascii_case(name));
        let chosen = exact.or_else(|| match (folded.next(), folded.next()) {
            (Some(only), None) => Some(only),
            _ => None,
        });
        let Some(position) = chosen.map(|m| m.position.clone()) else {
            return Ok(false);
        };
        let next = self.session.solve_listing_all(Some(&position))?;
        self.played.push(next);
        Ok(true)
    }

    /// The perfect player moves; returns the move's name, or `None` if the
    /// game is over.
    pub fn computer_move(&mut self) -> Result<Option<String>, PlyError> {
        let current = self.played.last().unwrap_or(&self.first);
        let Some(choice) = choose::choose(current, &mut self.rng) else {
            return Ok(None);
        };
        let name = choice.name.clone();
        let position = choice.position.clone();
        let next = self.session.solve_listing_all(Some(&position))?;
        self.played.push(next);
        Ok(Some(name))
    }

    /// Takes back moves until the person's previous turn. Returns `false`
    /// (and changes nothing) if the person has had no earlier turn.
    pub fn undo(&mut self) -> bool {
        let Some(ply) = (0..self.plies()).rev().find(|&p| self.is_human_turn(p)) else {
            return false;
        };
        self.played.truncate(ply);
        true
    }
}

/// What the person can type.
const HELP: &str = "\
type a move in the game's notation, or:
  m   list the legal moves
  ?   every move with its value and remoteness
  u   undo back to your previous turn
  h   this help
  q   quit";

/// Plays a whole match, reading the person's commands from `input` line by
/// line and writing the board and replies to `output`. Ends when the person
/// quits or the input ends; a finished game states its result and still
/// accepts `u` and `q`.
pub fn run(
    game: &mut Match<'_>,
    input: &mut dyn BufRead,
    output: &mut dyn Write,
) -> Result<(), PlyError> {
    let side = if game.human_first { "first" } else { "second" };
    writeln!(
        output,
        "ply play {}: you move {side}. Type h for help.",
        game.current().game
    )?;
    let mut line = Vec::new();
    let mut line_number = 0;
    let mut moved = true;
    loop {
        while !game.human_to_move() && game.verdict().is_none() {
            show(game, output)?;
            let thinking = Working::new("the computer is thinking");
            let played = game.computer_move()?;
            drop(thinking);
            if let Some(name) = played {
                writeln!(output, "computer plays {name}")?;
            }
            moved = true;
        }
        if moved {
            show(game, output)?;
            if let Some(verdict) = game.verdict() {
                writeln!(output, "result: {verdict}")?;
            }
            moved = false;
        }
        match game.verdict() {
            Some(_) => write!(output, "game over (u undoes, q quits)> ")?,
            None => write!(output, "your move> ")?,
        }
        output.flush()?;
        line.clear();
        line_number += 1;
        if (&mut *input)
            .take(MAX_LINE + 1)
            .read_until(b'\n', &mut line)?
            == 0
        {
            writeln!(output)?;
            return Ok(());
        }
        if line.len() as u64 > MAX_LINE {
            return Err(PlyError::input(
                line_number,
                format!("longer than {MAX_LINE} bytes"),
            ));
        }
        let command = std::str::from_utf8(&line)
            .map_err(|e| {
                PlyError::input(
                    line_number,
                    format!("not UTF-8 text (byte {} is not)", e.valid_up_to() + 1),
                )
            })?
            .trim();
        if game.verdict().is_none() && !command.is_empty() {
            let thinking = Working::new("the computer is thinking");
            let played = game.play(command)?;
            drop(thinking);
            if played {
                moved = true;
                continue;
            }
        }
        let shown = excerpt(command, 80);
        let command = if shown.len() < command.len() {
            shown.as_str()
        } else {
            command
        };
        match command {
            "" => {}
            "q" | "quit" => return Ok(()),
            "h" | "help" => writeln!(output, "{HELP}")?,
            "u" | "undo" => {
                moved = game.undo();
                if !moved {
                    writeln!(output, "nothing to undo")?;
                }
            }
            "m" | "moves" => {
                let names: Vec<&str> = game
                    .current()
                    .moves
                    .iter()
                    .map(|m| m.name.as_str())
                    .collect();
                writeln!(output, "legal moves: {}", names.join(" "))?;
            }
            "?" => write!(output, "{}", table::value_table(game.current()))?,
            other if game.verdict().is_some() => writeln!(
                output,
                "the game is over ('{other}' ignored); u undoes, q quits"
            )?,
            other => writeln!(
                output,
                "'{other}' is not a legal move or a command; m lists the moves, h shows help"
            )?,
        }
    }
}

/// Draws the board and says whose turn it is.
fn show(game: &Match<'_>, output: &mut dyn Write) -> Result<(), PlyError> {
    let current = game.current();
    let board = game.session.render(&current.position)?;
    writeln!(output)?;
    writeln!(output, "{}", board.trim_end())?;
    let status = if game.verdict().is_some() {
        "game over"
    } else if game.human_to_move() {
        "you to move"
    } else {
        "the computer to move"
    };
    writeln!(
        output,
        "position {}  (ply {}, {status})",
        current.position,
        game.plies()
    )?;
    Ok(())
}
