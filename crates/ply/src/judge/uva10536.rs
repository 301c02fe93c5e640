//! UVA 10536, Game of Euler: for each 4x4 board, is the player to move
//! `WINNING` or `LOSING`?
//!
//! All 65,536 boards are solved once into a table, then each board is one
//! lookup. Input is checked strictly, and nothing is written unless all of
//! it is valid, so a bad input never leaves half an answer on stdout:
//! - line 1 holds N, the number of boards, as decimal digits. The statement
//!   says N < 100,000; the bound is not enforced, since answering more costs
//!   nothing;
//! - each board is a blank line, then 4 rows of 4 characters `X` (covered)
//!   or `.` (uncovered), with at least one `.`;
//! - spaces and tabs at the end of any line are ignored, as are `\r\n` line
//!   endings;
//! - after the N boards only blank lines may follow: any other text is an
//!   error, since it most likely means N is wrong.

use super::input::Lines;
use crate::error::PlyError;
use ply_core::{NoProgress, Table, Value};
use ply_games::Euler;
use std::io::{BufRead, Write};
use std::sync::OnceLock;

/// The board's side.
const SIDE: usize = 4;

/// The solved 4x4 game, built on first use and kept.
fn table() -> Result<&'static Table, PlyError> {
    static TABLE: OnceLock<Result<Table, String>> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            Table::build_symmetric(&Euler::default(), &NoProgress).map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| PlyError::argument(e.clone()))
}

/// Reads the boards from `input` and writes one verdict per board to `output`.
pub fn run(input: &mut dyn BufRead, output: &mut dyn Write) -> Result<(), PlyError> {
    let table = table()?;
    let mut lines = Lines::new(input);
    let count = read_count(&mut lines)?;
    let mut answers = Vec::with_capacity(count.min(1 << 20) as usize * "WINNING\n".len());
    for board in 1..=count {
        read_blank(&mut lines, board, count)?;
        let covered = read_board(&mut lines, board, count)?;
        let winning = table
            .outcome(covered)
            .is_some_and(|o| o.value == Value::Win);
        answers.extend_from_slice(if winning { b"WINNING\n" } else { b"LOSING\n" });
    }
    while let Some(line) = lines.next_line()? {
        if !trim(line).is_empty() {
            return Err(lines.error(format!(
                "unexpected text after the {count} announced boards"
            )));
        }
    }
    output.write_all(&answers)?;
    Ok(())
}

/// Ignores spaces and tabs at the end of a line.
fn trim(line: &str) -> &str {
    line.trim_end_matches([' ', '\t'])
}

fn read_count(lines: &mut Lines<'_>) -> Result<u64, PlyError> {
    let line = trim(lines.expect_line("the number of boards")?);
    let count = if !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()) {
        line.parse::<u64>().ok()
    } else {
        None
    };
    let shown = line.escape_debug().to_string();
    count.ok_or_else(|| {
        lines.error(format!(
            "expected the number of boards (a whole number), found '{shown}'"
        ))
    })
}

fn read_blank(lines: &mut Lines<'_>, board: u64, count: u64) -> Result<(), PlyError> {
    let expected = || format!("the blank line before board {board} of {count}");
    let number = lines.number() + 1;
    match lines.next_line()? {
        None => Err(PlyError::input(
            number,
            format!("input ended; expected {}", expected()),
        )),
        Some(line) if trim(line).is_empty() => Ok(()),
        Some(line) => {
            let shown = line.escape_debug().to_string();
            Err(lines.error(format!("expected {}, found '{shown}'", expected())))
        }
    }
}

/// Reads one board's rows into the mask of covered squares, bit `4r + c`
/// for row `r`, column `c`.
fn read_board(lines: &mut Lines<'_>, board: u64, count: u64) -> Result<u64, PlyError> {
    let mut covered = 0u64;
    for row in 0..SIDE {
        let number = lines.number() + 1;
        let line = match lines.next_line()? {
            Some(line) => trim(line),
            None => {
                return Err(PlyError::input(
                    number,
                    format!(
                        "input ended; expected row {} of board {board} of {count}",
                        row + 1
                    ),
                ));
            }
        };
        let mut bits = 0u64;
        let mut problem = None;
        let length = line.chars().count();
        if length != SIDE {
            problem = Some(format!(
                "row {} of board {board} has {length} characters, expected {SIDE} ('X' or '.')",
                row + 1,
            ));
        } else {
            for (column, ch) in line.chars().enumerate() {
                match ch {
                    'X' => bits |= 1 << column,
                    '.' => {}
                    _ => {
                        problem = Some(format!(
                            "row {} of board {board}, column {}: expected 'X' (covered) or '.' (uncovered), found '{}'",
                            row + 1,
                            column + 1,
                            ch.escape_debug()
                        ));
                        break;
                    }
                }
            }
        }
        if let Some(problem) = problem {
            return Err(lines.error(problem));
        }
        covered |= bits << (row * SIDE);
    }
    if covered == (1 << (SIDE * SIDE)) - 1 {
        return Err(lines.error(format!(
            "board {board} is fully covered; every board must have an uncovered square"
        )));
    }
    Ok(covered)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judge(input: &str) -> Result<String, String> {
        let mut reader = input.as_bytes();
        let mut output = Vec::new();
        run(&mut reader, &mut output).map_err(|e| e.to_string())?;
        Ok(String::from_utf8(output).unwrap())
    }

    #[test]
    fn tolerates_crlf_trailing_spaces_and_trailing_blank_lines() {
        assert_eq!(
            judge("2 \r\n\r\n....\r\n....\r\n....\r\n....\r\n\nXXXX\nXXXX\nXXXX\nXXX. \n\n\n"),
            Ok("LOSING\nLOSING\n".into())
        );
    }

    #[test]
    fn zero_boards_give_no_output() {
        assert_eq!(judge("0\n"), Ok(String::new()));
    }

    #[test]
    fn every_malformed_input_names_its_line() {
        let cases = [
            (
                "",
                "input line 1: input ended; expected the number of boards",
            ),
            (
                "x\n",
                "input line 1: expected the number of boards (a whole number), found 'x'",
            ),
            (
                "-1\n",
                "input line 1: expected the number of boards (a whole number), found '-1'",
            ),
            (
                "1\n....\n",
                "input line 2: expected the blank line before board 1 of 1, found '....'",
            ),
            (
                "1\n",
                "input line 2: input ended; expected the blank line before board 1 of 1",
            ),
            (
                "1\n\n....\n...\n",
                "input line 4: row 2 of board 1 has 3 characters, expected 4 ('X' or '.')",
            ),
            (
                "1\n\n....\n....\n..o.\n....\n",
                "input line 5: row 3 of board 1, column 3: expected 'X' (covered) or '.' (uncovered), found 'o'",
            ),
            (
                "1\n\n....\n....\n....\n",
                "input line 6: input ended; expected row 4 of board 1 of 1",
            ),
            (
                "1\n\nXXXX\nXXXX\nXXXX\nXXXX\n",
                "input line 6: board 1 is fully covered; every board must have an uncovered square",
            ),
            (
                "2\n\n....\n....\n....\n....\n",
                "input line 7: input ended; expected the blank line before board 2 of 2",
            ),
            (
                "1\n\n....\n....\n....\n....\n\nXXXX\n",
                "input line 8: unexpected text after the 1 announced boards",
            ),
            (
                "1\n\n....\n....\n..é.\n....\n",
                "input line 5: row 3 of board 1, column 3: expected 'X' (covered) or '.' (uncovered), found 'é'",
            ),
        ];
        for (input, message) in cases {
            assert_eq!(judge(input), Err(message.to_string()), "{input:?}");
        }
    }
}
