//! Contest problems answered in their exact judge formats, one module per
//! problem. Every case is decided on its own merits.

pub mod boi2002_lgame;
pub mod hdu3649;
pub mod input;
pub mod uva10111;
pub mod uva10536;
pub mod uva10561;

use crate::error::PlyError;
use std::io::{BufRead, Write};

/// A contest problem `ply judge` answers.
pub struct Problem {
    /// The name on the command line.
    pub name: &'static str,
    /// What it asks.
    pub summary: &'static str,
    /// Reads the whole contest input and writes the exact contest output.
    pub run: fn(&mut dyn BufRead, &mut dyn Write) -> Result<(), PlyError>,
}

/// Every problem `ply judge` knows.
pub const PROBLEMS: &[Problem] = &[
    Problem {
        name: "uva10536",
        summary: "Game of Euler: WINNING or LOSING for each 4x4 board",
        run: uva10536::run,
    },
    Problem {
        name: "uva10111",
        summary: "4x4 tic-tac-toe: the first square where x forces a win, or #####",
        run: uva10111::run,
    },
    Problem {
        name: "uva10561",
        summary: "Treblecross: WINNING and every winning first square, or LOSING",
        run: uva10561::run,
    },
    Problem {
        name: "hdu3649",
        summary: "The Yehr Game: which colour wins (by theory, no table)",
        run: hdu3649::run,
    },
    Problem {
        name: "boi2002-lgame",
        summary: "BOI 2002 L Game: the board after a winning move for #, else Draw or Losing",
        run: boi2002_lgame::run,
    },
];

/// Answers `problem` on `input`, writing to `output`.
pub fn run(problem: &str, input: &mut dyn BufRead, output: &mut dyn Write) -> Result<(), PlyError> {
    let entry = PROBLEMS.iter().find(|p| p.name == problem).ok_or_else(|| {
        let known: Vec<&str> = PROBLEMS.iter().map(|p| p.name).collect();
        PlyError::argument(format!(
            "unknown problem '{problem}'; known problems: {}",
            known.join(", ")
        ))
    })?;
    (entry.run)(input, output)?;
    output.flush()?;
    Ok(())
}
