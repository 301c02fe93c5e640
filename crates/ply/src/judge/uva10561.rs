//! UVA 10561 Treblecross: for each row, `WINNING` and every square where a
//! winning first move can be played (ascending, each once), or `LOSING` and
//! an empty line. Answered by Sprague-Grundy theory (see
//! [`ply_games::treblecross`]).

use super::input::Lines;
use crate::error::PlyError;
use ply_core::HeapValues;
use ply_core::{Decompose, NoProgress, Value};
use ply_core::{largest_heap, solve_sum};
use ply_games::Treblecross;
use ply_games::treblecross::Row;
use std::fmt::Write as _;
use std::io::{BufRead, Write};

/// The shortest and longest rows the problem allows.
pub const LENGTHS: std::ops::RangeInclusive<usize> = 3..=200;

/// Reads T and T rows; writes two lines per row. The input is checked
/// whole before anything is written.
pub fn run(input: &mut dyn BufRead, output: &mut dyn Write) -> Result<(), PlyError> {
    let game = Treblecross::default();
    // The heap of the longest empty row covers every row of the problem.
    let longest = largest_heap(&game, &Row::empty(*LENGTHS.end()));
    let values = HeapValues::new(game.octal_code(), game.most_tokens())
        .up_to(longest, &NoProgress)
        .map_err(|e| PlyError::argument(e.to_string()))?;
    let mut lines = Lines::new(input);
    let first = lines
        .expect_line("the number of positions T")?
        .trim()
        .to_string();
    let count: usize = first.parse().map_err(|_| {
        lines.error(format!(
            "expected the number of positions T, found '{first}'"
        ))
    })?;
    let mut answer = String::new();
    for case in 1..=count {
        let text = lines
            .expect_line(&format!("position {case} of {count}"))?
            .trim();
        let row = read_row(text).map_err(|message| lines.error(message))?;
        let solution = solve_sum(&game, &values, &row);
        if solution.value == Value::Win {
            let squares: Vec<String> = solution
                .winning_moves
                .iter()
                .map(|s| (s + 1).to_string())
                .collect();
            let _ = writeln!(answer, "WINNING\n{}", squares.join(" "));
        } else {
            answer.push_str("LOSING\n\n");
        }
    }
    while let Some(line) = lines.next_line()? {
        let extra = line.trim().to_string();
        if !extra.is_empty() {
            return Err(lines.error(format!("more positions than T = {count}: '{extra}'")));
        }
    }
    output.write_all(answer.as_bytes())?;
    Ok(())
}

/// A row as the problem allows it: 3 to 200 squares of `.` and `X`, with no
/// three X in a row.
fn read_row(text: &str) -> Result<Row, String> {
    if !LENGTHS.contains(&text.len()) {
        return Err(format!(
            "a row has 3 to 200 squares, found {} ('{}')",
            text.len(),
            text.escape_debug()
        ));
    }
    let row = Row::parse(text).map_err(|e| e.to_string())?;
    if row.has_three() {
        return Err(format!(
            "the row '{text}' already has three X in a row: the game is over"
        ));
    }
    Ok(row)
}
