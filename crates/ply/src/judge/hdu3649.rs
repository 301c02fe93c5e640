//! HDU 3649 "New Game" (the Yehr Game): for each case, `Red` if Red wins
//! with perfect play, else `Black`. Answered by theory
//! ([`ply_games::yehr_theory`]): no table is built.

use super::input::Lines;
use crate::error::PlyError;
use ply_games::yehr_theory::YehrRows;
use std::io::{BufRead, Write};

/// What each of the nine numbers of a case is.
const FIELDS: [&str; 9] = [
    "who moves first: 0 (Red) or 1 (Black)",
    "the row of Red's A",
    "the row of Red's B",
    "the row of Red's C",
    "the row of Red's D",
    "the row of Black's A",
    "the row of Black's B",
    "the row of Black's C",
    "the row of Black's D",
];

/// Reads cases until the end of input, each nine whitespace-separated
/// numbers on any number of lines; writes one line per case. The input is
/// checked whole before anything is written.
pub fn run(input: &mut dyn BufRead, output: &mut dyn Write) -> Result<(), PlyError> {
    let mut lines = Lines::new(input);
    let mut answer = String::new();
    let mut case = [0u8; 9];
    let mut filled = 0;
    while let Some(line) = lines.next_line()? {
        let tokens: Vec<String> = line.split_whitespace().map(String::from).collect();
        for token in tokens {
            let (field, allowed) = match filled {
                0 => (FIELDS[0].to_string(), 0..=1),
                n => (format!("{} (1 to 10)", FIELDS[n]), 1..=10),
            };
            case[filled] = token
                .parse()
                .ok()
                .filter(|n| allowed.contains(n))
                .ok_or_else(|| lines.error(format!("expected {field}, found '{token}'")))?;
            filled += 1;
            if filled == 9 {
                let red = [case[1], case[2], case[3], case[4]];
                let black = [case[5], case[6], case[7], case[8]];
                let rows = YehrRows::new(case[0] == 0, red, black)
                    .map_err(|e| lines.error(e.to_string()))?;
                answer.push_str(if rows.red_wins() { "Red\n" } else { "Black\n" });
                filled = 0;
            }
        }
    }
    if filled > 0 {
        return Err(PlyError::input(
            lines.number() + 1,
            format!("input ended; expected {}", FIELDS[filled]),
        ));
    }
    output.write_all(answer.as_bytes())?;
    Ok(())
}
