//! The table `?` prints: every move with what it leads to for the player who
//! makes it, best first, each row marked as a win, a tie or draw, or a loss.

use crate::report::SolveReport;
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

/// The table of every move from `report`'s position, best first.
pub fn value_table(report: &SolveReport) -> String {
    let mut rows: Vec<(String, Outcome)> = report
        .moves
        .iter()
        .map(|m| (m.name.clone(), m.outcome().through_move()))
        .collect();
    rows.sort_by(|a, b| b.1.preference(a.1).then_with(|| a.0.cmp(&b.0)));
    let width = rows
        .iter()
        .map(|(name, _)| name.len())
        .max()
        .unwrap_or(0)
        .max(4);
    let mut text = String::new();
    let _ = writeln!(text, "   {:width$}  for the player making it", "move");
    for (name, outcome) in &rows {
        let _ = writeln!(text, " {} {name:width$}  {outcome}", mark(*outcome));
    }
    let _ = writeln!(text, "(+ wins, = ties or draws, - loses)");
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::MoveReport;

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
