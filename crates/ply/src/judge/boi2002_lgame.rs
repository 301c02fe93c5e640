//! BOI 2002 "L Game": given a board with `#` to move, print the board after
//! a winning move, else `No winning move exist` and then `Draw` or `Losing`.
//!
//! Of the winning moves, the one that wins fastest is printed; among those,
//! the board that comes first in text order, so the answer is always the same.

use super::input::Lines;
use crate::error::PlyError;
use ply_core::solve::retro::{self, RetroTable};
use ply_core::{Game, NoProgress, Value};
use ply_games::LGame;
use ply_games::lgame::LPosition;
use std::io::{BufRead, Write};

/// What `#` can achieve from a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// `#` wins by moving to this position (fastest win first).
    Win(LPosition),
    /// Neither side can force a win.
    Draw,
    /// `#` loses whatever it does.
    Losing,
}

/// The answer for `position` (with `#` to move) from the solved `table`.
pub fn answer(game: &LGame, table: &RetroTable, position: &LPosition) -> Answer {
    let mut wins = Vec::new();
    game.for_each_move(position, |_, child| {
        if let Some(outcome) = table
            .outcome(game, &child)
            .filter(|o| o.value == Value::Lose)
        {
            wins.push((outcome.remoteness, game.format_position(&child), child));
        }
    });
    let fastest = wins
        .into_iter()
        .min_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    match (fastest, table.outcome(game, position).map(|o| o.value)) {
        (Some((_, _, child)), _) => Answer::Win(child),
        (None, Some(Value::Lose)) => Answer::Losing,
        (None, _) => Answer::Draw,
    }
}

/// The board of `position` as the contest prints it: four rows of four.
pub fn board_lines(game: &LGame, position: &LPosition) -> String {
    let text = game.format_position(position);
    let board = text.strip_suffix("/*").unwrap_or(&text);
    let mut lines = board.replace('/', "\n");
    lines.push('\n');
    lines
}

/// Reads the board and writes the answer.
pub fn run(input: &mut dyn BufRead, output: &mut dyn Write) -> Result<(), PlyError> {
    let mut lines = Lines::new(input);
    let mut rows = Vec::with_capacity(4);
    for row in 1..=4 {
        let line = lines
            .expect_line(&format!("board row {row} of 4"))?
            .trim_end()
            .to_string();
        if line.len() != 4 || !line.bytes().all(|b| b".x#*".contains(&b)) {
            return Err(lines.error(format!(
                "expected 4 characters from '.', 'x', '#', '*', found '{}'",
                line.escape_default()
            )));
        }
        rows.push(line);
    }
    while let Some(line) = lines.next_line()? {
        if !line.trim().is_empty() {
            return Err(lines.error("expected the end of input after the 4 board rows"));
        }
    }
    let game = LGame::new();
    let position = game
        .parse_position(&rows.join("/"))
        .map_err(|e| PlyError::input(1, format!("impossible board (lines 1-4): {e}")))?;
    if !game.can_move(&position) {
        return Err(PlyError::input(
            1,
            "the board (lines 1-4): # has no legal move, but the problem promises one",
        ));
    }
    let table = retro::solve_symmetric(&game, &NoProgress)
        .map_err(|e| PlyError::argument(format!("solving the L Game: {e}")))?;
    match answer(&game, &table, &position) {
        Answer::Win(child) => output.write_all(board_lines(&game, &child).as_bytes())?,
        Answer::Draw => output.write_all(b"No winning move exist\nDraw\n")?,
        Answer::Losing => output.write_all(b"No winning move exist\nLosing\n")?,
    }
    Ok(())
}
