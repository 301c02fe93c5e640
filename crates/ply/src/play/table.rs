//! The table `?` prints: every move with what it leads to for the player who
//! makes it, best first, each row marked as a win, a tie or draw, or a loss.

use crate::report::{MoveReport, SolveReport};
use ply_core::{Outcome, Value};
use std::fmt::Write as _;

/// The mark of a move's outcome for the player making it: `+` wins, `=`
/// ties or draws, `-` loses.
pub fn mark(outcome: Outcome) -> char {
    match outcome.value {
        Value::Win => '+',
        Value::Tie | Value::Draw => '=',
        Value::Lose => '-',
    }
}

/// The moves of `report`, in the one order `m` and `?` list them: best
/// first for the player making them (equal ones by name) while values are
/// shown, by name alone while they are hidden, so the order gives nothing
/// away.
pub fn ordered(report: &SolveReport, values: bool) -> Vec<&MoveReport> {
    let mut moves: Vec<&MoveReport> = report.moves.iter().collect();
    moves.sort_by(|a, b| {
        let by_value = if values {
            let (a, b) = (a.outcome().through_move(), b.outcome().through_move());
            b.preference(a)
        } else {
            std::cmp::Ordering::Equal
        };
        by_value.then_with(|| a.name.cmp(&b.name))
    });
    moves
}

/// The table of every move from `report`'s position, best first.
pub fn value_table(report: &SolveReport) -> String {
    let rows: Vec<(String, Outcome)> = ordered(report, true)
        .into_iter()
        .map(|m| (m.name.clone(), m.outcome().through_move()))
        .collect();
    let width = rows
        .iter()
        .map(|(name, _)| name.len())
        .max()
        .unwrap_or(0)
        .max(4);
    let mut text = String::new();
    let _ = writeln!(text, "   {:width$}  {}", "move", crate::report::FOR_MOVER);
    for (name, outcome) in &rows {
        let _ = writeln!(text, " {} {name:width$}  {outcome}", mark(*outcome));
    }
    let _ = writeln!(text, "(+ wins, = ties or draws, - loses)");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_marked_and_sorted_best_first() {
        let moves = [
            ("a1", Outcome::win(2)),
            ("b1", Outcome::lose(0)),
            ("c1", Outcome::DRAW),
        ]
        .map(|(name, o)| MoveReport {
            name: name.into(),
            position: String::new(),
            value: o.value,
            remoteness: o.remoteness,
        });
        let report = SolveReport {
            game: "g".into(),
            position: "p".into(),
            value: Value::Win,
            remoteness: Some(1),
            nimber: None,
            moves: moves.to_vec(),
        };
        let table = value_table(&report);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines[1], " + b1    win in 1");
        assert_eq!(lines[2], " = c1    draw");
        assert_eq!(lines[3], " - a1    lose in 3");
    }
}
