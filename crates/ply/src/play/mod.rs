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
  m   list the legal moves (best first while values are shown, else by name)
  ?   every move with its value and remoteness, in the same order
  v   show or hide the values
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
    let start = game.session.board(Some(&game.current().position))?;
    let you = start
        .mover
        .map(|m| usize::from(m) ^ usize::from(!game.human_first))
        .map_or_else(
            || format!("player {}", if game.human_first { 1 } else { 2 }),
            |m| start.players[m].clone(),
        );
    writeln!(
        output,
        "ply play {}: you play {you} and move {side}. Type h for help.",
        game.current().game
    )?;
    let mut line = Vec::new();
    let mut line_number = 0;
    let mut moved = true;
    let mut values = true;
    loop {
        while !game.human_to_move() && game.verdict().is_none() {
            show(game, values, output)?;
            let thinking = Working::new("the computer is thinking");
            let played = game.computer_move()?;
            drop(thinking);
            if let Some(name) = played {
                writeln!(output, "computer plays {name}")?;
            }
            moved = true;
        }
        if moved {
            show(game, values, output)?;
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
            let before = game.current().outcome();
            let thinking = Working::new("the computer is thinking");
            let played = game.play(command)?;
            drop(thinking);
            if played {
                if values && let Some(flag) = blunder(before, game.current().outcome()) {
                    writeln!(output, "{flag}")?;
                }
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
            "h" | "help" => {
                writeln!(output, "{HELP}")?;
                writeln!(output, "{}", notation(game))?;
            }
            "v" | "values" => {
                values = !values;
                let now = if values { "shown" } else { "hidden" };
                writeln!(output, "values {now}")?;
            }
            "u" | "undo" => {
                moved = game.undo();
                if !moved {
                    writeln!(output, "nothing to undo")?;
                }
            }
            "m" | "moves" => {
                let names: Vec<&str> = table::ordered(game.current(), values)
                    .into_iter()
                    .map(|m| m.name.as_str())
                    .collect();
                writeln!(output, "legal moves: {}", names.join(" "))?;
            }
            "?" if values => write!(output, "{}", table::value_table(game.current()))?,
            "?" => writeln!(output, "values are hidden; v shows them")?,
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

/// What a move by the person did to their outcome, if it made it worse:
/// `before` is the position's outcome for them, `after` the next one's for
/// the other player.
fn blunder(before: ply_core::Outcome, after: ply_core::Outcome) -> Option<String> {
    let now = after.through_move().value;
    match (before.value, now) {
        (Value::Win, Value::Win) => None,
        (Value::Win, other) => Some(format!(
            "that move throws away the win (now {})",
            describe_value(other)
        )),
        (level @ (Value::Tie | Value::Draw), Value::Lose) => {
            Some(format!("that move turns the {level} into a loss"))
        }
        _ => None,
    }
}

/// A value as a noun: `a win`, `a tie`, `a draw`, `a loss`.
fn describe_value(value: Value) -> &'static str {
    match value {
        Value::Win => "a win",
        Value::Tie => "a tie",
        Value::Draw => "a draw",
        Value::Lose => "a loss",
    }
}

/// How moves are written, with one of the position's moves as an example.
fn notation(game: &Match<'_>) -> String {
    let current = game.current();
    // The first by name: an example that says nothing of its value.
    let example = table::ordered(current, false)
        .first()
        .map_or_else(String::new, |m| {
            format!(" For example `{}` here, one of the moves m lists.", m.name)
        });
    format!(
        "A move is typed as `ply solve` and m write it, capitals or not: the squares it \
         touches in order, each named by its column letter and row number as shown around \
         the board.{example}"
    )
}

/// `board` (the game's drawing of a position) with the column labels above
/// and the row labels left of it, where it is drawn a character (or a few)
/// per cell in `description`'s rows and columns; else as it is.
fn with_coordinates(board: &str, description: &ply_core::Board) -> String {
    let lines: Vec<&str> = board.trim_end().lines().collect();
    let (rows, cols) = (description.rows, description.cols);
    let width = lines.first().map_or(0, |l| l.chars().count());
    let fits = lines.len() == rows
        && cols > 0
        && width.is_multiple_of(cols)
        && lines.iter().all(|l| l.chars().count() == width)
        && description.row_labels.len() == rows
        && description.col_labels.len() == cols;
    if !fits {
        return board.trim_end().to_string();
    }
    let cell = width / cols;
    let pad = description
        .row_labels
        .iter()
        .map(String::len)
        .max()
        .unwrap_or(0);
    let mut text = format!("{:pad$} ", "");
    for label in &description.col_labels {
        text.push_str(&format!("{label:<cell$}"));
    }
    let mut text = text.trim_end().to_string();
    for (label, line) in description.row_labels.iter().zip(&lines) {
        text.push_str(&format!("\n{label:>pad$} {line}"));
    }
    text
}

/// Draws the board with its coordinates and says whose turn it is, and
/// (if `values`) the value for the player to move.
fn show(game: &Match<'_>, values: bool, output: &mut dyn Write) -> Result<(), PlyError> {
    let current = game.current();
    let board = game.session.render(&current.position)?;
    let description = game.session.board(Some(&current.position))?;
    writeln!(output)?;
    writeln!(output, "{}", with_coordinates(&board, &description))?;
    if values && game.verdict().is_none() {
        let who = if game.human_to_move() {
            "you"
        } else {
            "the computer"
        };
        writeln!(
            output,
            "value for the player to move ({who}): {}",
            current.outcome()
        )?;
    }
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
