//! UVA 10111, Find the Winning Move: on a 4x4 board with x to move, the
//! first square in row-major order where x's move forces a win.
//!
//! Each case is searched on its own by alpha-beta: a random case takes about
//! 0.15 ms, while building the whole 4x4 table first costs 0.2 to 0.35 s, so
//! search is faster below about 2000 cases (see BENCHMARKS.md). The
//! transposition table is shared between cases only as a store of proven
//! facts, so an answer never depends on the cases before it.

use super::input::Lines;
use crate::error::PlyError;
use ply_core::{AlphaBeta, Value};
use ply_games::TicTacToe;
use ply_games::tictactoe::Marks;
use std::io::{BufRead, Write};

/// Transposition table entries: 8 MiB, plenty for the positions of a 4x4 board.
const SEARCH_ENTRIES: u64 = 1 << 20;

/// Answers one case after another.
#[derive(Default)]
pub struct Solver {
    game: TicTacToe,
    /// Built at the first case searched, so that input refused before any
    /// case is answered costs no table.
    searcher: Option<AlphaBeta<TicTacToe>>,
}

impl Solver {
    /// The first square, as `(row, column)`, where x's move from `board`
    /// (x to move, no line yet) forces a win, if there is one.
    pub fn winning_move(&mut self, board: Marks) -> Result<Option<(usize, usize)>, PlyError> {
        for square in 0..16 {
            if board.occupied() >> square & 1 == 1 {
                continue;
            }
            let after = board.play(square);
            let game = &self.game;
            let value = self
                .searcher
                .get_or_insert_with(|| AlphaBeta::new(game, SEARCH_ENTRIES))
                .value(game, &after)
                .map_err(|e| PlyError::argument(e.to_string()))?;
            if value == Value::Lose {
                return Ok(Some((square / 4, square % 4)));
            }
        }
        Ok(None)
    }

    /// Reads one board of four rows, checking it is a legal case.
    fn read_board(&self, lines: &mut Lines<'_>) -> Result<Marks, PlyError> {
        let mut marks = Marks::default();
        for row in 0..4 {
            let line = lines.expect_line("a board row of 4 characters from '.', 'x', 'o'")?;
            let (x, o) = parse_row(line).map_err(|message| lines.error(message))?;
            marks.x |= x << (row * 4);
            marks.o |= o << (row * 4);
        }
        let (nx, no) = (marks.x.count_ones(), marks.o.count_ones());
        if nx != no {
            return Err(lines.error(format!(
                "it must be x's turn, so x and o need equal counts; this board has {nx} x and {no} o"
            )));
        }
        if self.game.has_line(marks.x) || self.game.has_line(marks.o) {
            return Err(lines.error("somebody has already won on this board"));
        }
        if marks.occupied() == self.game.full() {
            return Err(lines.error("the board is full"));
        }
        Ok(marks)
    }
}

/// The `x` and `o` marks of one board row, as 4-bit masks.
fn parse_row(line: &str) -> Result<(u64, u64), String> {
    let cells = line.trim_end().as_bytes();
    if cells.len() != 4 {
        return Err(format!(
            "a board row has 4 characters from '.', 'x', 'o'; found {} characters",
            cells.len()
        ));
    }
    let (mut x, mut o) = (0, 0);
    for (col, &cell) in cells.iter().enumerate() {
        match cell {
            b'x' => x |= 1 << col,
            b'o' => o |= 1 << col,
            b'.' => {}
            other => {
                return Err(format!(
                    "found '{}' in a board row; expected '.', 'x' or 'o'",
                    other.escape_ascii()
                ));
            }
        }
    }
    Ok((x, o))
}

/// Reads and checks the whole input, then writes one answer line per case:
/// a malformed case anywhere means no answer is printed.
pub fn run(input: &mut dyn BufRead, output: &mut dyn Write) -> Result<(), PlyError> {
    let mut lines = Lines::new(input);
    let mut solver = Solver::default();
    let mut boards = Vec::new();
    loop {
        let line = lines.expect_line("'?' (a case) or '$' (the end)")?;
        match line.trim_end() {
            "$" => break,
            "?" => boards.push(solver.read_board(&mut lines)?),
            other => {
                let message = format!(
                    "expected a line of just '?' (a case) or '$' (the end); found '{}'",
                    crate::error::excerpt(&other.escape_debug().to_string(), 40)
                );
                return Err(lines.error(message));
            }
        }
    }
    while let Some(line) = lines.next_line()? {
        if !line.trim().is_empty() {
            return Err(lines.error("text after '$', the end of the input"));
        }
    }
    for board in boards {
        match solver.winning_move(board)? {
            Some((row, col)) => writeln!(output, "({row},{col})")?,
            None => writeln!(output, "#####")?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(input: &str) -> Result<String, PlyError> {
        let mut output = Vec::new();
        run(&mut input.as_bytes(), &mut output)?;
        Ok(String::from_utf8(output).unwrap())
    }

    #[test]
    fn an_immediate_win_counts_and_board_order_decides() {
        assert_eq!(answer("?\nxxx.\noo..\no...\n....\n$\n").unwrap(), "(0,3)\n");
    }

    #[test]
    fn bad_boards_name_their_line() {
        for (input, line, why) in [
            ("?\nxxo.\n....\n....\n....\n$\n", 5, "equal counts"),
            ("?\nxxxx\noooo\n....\n....\n$\n", 5, "already won"),
            ("?\nxxoo\nooxx\nxxoo\nooxx\n$\n", 5, "full"),
            ("?\nxo.\n", 2, "found 3 characters"),
            ("?\nxo.a\n", 2, "found 'a'"),
            ("?\n....\n....\n....\n....\n", 6, "input ended"),
            ("!\n", 1, "expected a line of just '?'"),
            ("?junk\n", 1, "found '?junk'"),
            ("$garbage\n", 1, "found '$garbage'"),
            ("$\nmore\n", 2, "text after '$'"),
            // A bad case after a good one: no answer is printed at all.
            ("?\nxxx.\noo..\no...\n....\n?\nxo.a\n", 7, "found 'a'"),
        ] {
            let err = answer(input).unwrap_err().to_string();
            assert!(
                err.starts_with(&format!("input line {line}:")),
                "{input}: {err}"
            );
            assert!(err.contains(why), "{input}: {err}");
        }
    }
}
