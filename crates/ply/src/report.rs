//! The reports `ply solve` and `ply analyze` print, as text or JSON. Their
//! JSON shape is a contract other tools depend on (the `ply` command contract in the README).

use ply_core::team::Traffic;
use ply_core::{Census, Outcome, Remoteness, Value};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One position's value and where every move leads.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SolveReport {
    /// The game's full name.
    pub game: String,
    /// The position, in the game's text form.
    pub position: String,
    /// The value for the player to move.
    pub value: Value,
    /// Plies to the end; null for draws.
    pub remoteness: Option<Remoteness>,
    /// The Grundy value, for impartial games.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nimber: Option<u64>,
    /// Every legal move.
    pub moves: Vec<MoveReport>,
}

/// A move and the value of the position it leads to, for the player who
/// moves next after it.
///
/// Its JSON (`ply solve --json`, `/api/solve`) keeps the contract's
/// `value` and `remoteness` for the player who moves next, and adds
/// `mover_value` and `mover_remoteness`: the same outcome for the player
/// making the move, the one perspective `ply solve`'s text, `ply play` and
/// the page show (issue 58).
#[derive(Clone, Debug, PartialEq)]
pub struct MoveReport {
    /// The move, in the game's notation.
    pub name: String,
    /// The position after the move.
    pub position: String,
    /// Its value, for the player to move there.
    pub value: Value,
    /// Its remoteness; null for draws.
    pub remoteness: Option<Remoteness>,
}

impl SolveReport {
    /// The outcome of the reported position.
    pub fn outcome(&self) -> Outcome {
        Outcome {
            value: self.value,
            remoteness: self.remoteness,
        }
    }

    /// Orders the moves best first for the player to move (the fastest
    /// win, then ties, draws, the slowest loss), equal moves kept in the
    /// game's order: the one order of `ply solve`, its JSON and the API.
    pub fn best_first(&mut self) {
        self.moves.sort_by(|a, b| {
            let (a, b) = (a.outcome().through_move(), b.outcome().through_move());
            b.preference(a)
        });
    }

    /// The report as text for a person: the value, then a table of moves,
    /// best first, each with its value for the player making it (as
    /// `ply play` and the page show it).
    pub fn to_text(&self) -> String {
        let mut text = String::new();
        let _ = writeln!(text, "game      {}", self.game);
        let _ = writeln!(text, "position  {}", self.position);
        let _ = writeln!(text, "value     {}", describe(self.value, self.remoteness));
        if let Some(nimber) = self.nimber {
            let _ = writeln!(text, "nimber    {nimber}");
        }
        if self.moves.is_empty() {
            let _ = writeln!(text, "no moves: the game is over");
            return text;
        }
        let mut moves: Vec<&MoveReport> = self.moves.iter().collect();
        moves.sort_by(|a, b| {
            let (a, b) = (a.outcome().through_move(), b.outcome().through_move());
            b.preference(a)
        });
        let width = moves.iter().map(|m| m.name.len()).max().unwrap_or(4).max(4);
        let _ = writeln!(
            text,
            "\n{:width$}  {:<24}  position after",
            "move", FOR_MOVER
        );
        for m in moves {
            let mover = m.for_mover();
            let value = describe(mover.value, mover.remoteness);
            let _ = writeln!(text, "{:width$}  {value:<24}  {}", m.name, m.position);
        }
        text
    }
}

impl MoveReport {
    /// The outcome of the position the move leads to.
    pub fn outcome(&self) -> Outcome {
        Outcome {
            value: self.value,
            remoteness: self.remoteness,
        }
    }

    /// The outcome of the move for the player making it: the position's
    /// value flipped, one ply further from the end.
    pub fn for_mover(&self) -> Outcome {
        self.outcome().through_move()
    }
}

impl Serialize for MoveReport {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        let mover = self.for_mover();
        let mut fields = serializer.serialize_struct("MoveReport", 6)?;
        fields.serialize_field("move", &self.name)?;
        fields.serialize_field("position", &self.position)?;
        fields.serialize_field("value", &self.value)?;
        fields.serialize_field("remoteness", &self.remoteness)?;
        fields.serialize_field("mover_value", &mover.value)?;
        fields.serialize_field("mover_remoteness", &mover.remoteness)?;
        fields.end()
    }
}

/// The heading of a column of values seen by the player making the move,
/// the same words in `ply solve` and `ply play`.
pub const FOR_MOVER: &str = "for the player making it";

fn describe(value: Value, remoteness: Option<Remoteness>) -> String {
    match remoteness {
        Some(r) => format!("{value} in {r}"),
        None => value.to_string(),
    }
}

/// Counts over a whole game, as `ply analyze` prints them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AnalyzeReport {
    /// The game's full name.
    pub game: String,
    /// Positions counted (reachable from the start unless `extra` says otherwise).
    pub positions: u64,
    /// Wins for the player to move.
    pub win: u64,
    /// Losses for the player to move.
    pub lose: u64,
    /// Draws.
    pub draw: u64,
    /// Ties.
    pub tie: u64,
    /// The greatest remoteness of any counted position (0 if all are draws).
    pub max_remoteness: Remoteness,
    /// Counts at each remoteness.
    pub by_remoteness: Vec<RemotenessRow>,
    /// A win with the greatest remoteness.
    pub longest_win: Option<Example>,
    /// A loss with the greatest remoteness.
    pub longest_lose: Option<Example>,
    /// Game- or solver-specific facts (symmetry classes, index size, ...).
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

/// Counts of positions at one remoteness.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RemotenessRow {
    /// The remoteness.
    pub remoteness: Remoteness,
    /// Wins at this remoteness.
    pub win: u64,
    /// Losses at this remoteness.
    pub lose: u64,
    /// Ties at this remoteness.
    pub tie: u64,
}

/// An example position with its remoteness.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Example {
    /// The remoteness.
    pub remoteness: Remoteness,
    /// The position, in the game's text form.
    pub position: String,
}

impl AnalyzeReport {
    /// A report from a census whose examples are already written as text.
    pub fn from_census(game: String, census: Census<String>) -> Self {
        let example = |e: Option<(Remoteness, String)>| {
            e.map(|(remoteness, position)| Example {
                remoteness,
                position,
            })
        };
        Self {
            game,
            positions: census.positions,
            win: census.win,
            lose: census.lose,
            draw: census.draw,
            tie: census.tie,
            max_remoteness: census.max_remoteness().unwrap_or(0),
            by_remoteness: census
                .by_remoteness
                .iter()
                .enumerate()
                .map(|(r, &[win, lose, tie])| RemotenessRow {
                    remoteness: r as Remoteness,
                    win,
                    lose,
                    tie,
                })
                .collect(),
            longest_win: example(census.longest_win),
            longest_lose: example(census.longest_lose),
            extra: BTreeMap::new(),
        }
    }

    /// Adds what a team's processes sent each other over TCP, by process
    /// (`None` for one whose count never reached process 0), as
    /// `bytes_sent`, `messages` (frames) and `file_bytes` (files fetched),
    /// each summed over the processes that told theirs, and
    /// `bytes_sent_by_process` (null for one that did not).
    pub fn note_traffic(&mut self, traffic: &[Option<Traffic>]) {
        let told = traffic.iter().flatten();
        let sums = [
            ("bytes_sent", told.clone().map(|t| t.bytes).sum::<u64>()),
            ("messages", told.clone().map(|t| t.frames).sum()),
            ("file_bytes", told.map(|t| t.file_bytes).sum()),
        ];
        for (key, sum) in sums {
            self.extra.insert(key.into(), serde_json::json!(sum));
        }
        let by_process: Vec<Option<u64>> = traffic.iter().map(|t| t.map(|t| t.bytes)).collect();
        self.extra.insert(
            "bytes_sent_by_process".into(),
            serde_json::json!(by_process),
        );
    }

    /// The report as text for a person.
    pub fn to_text(&self) -> String {
        let mut text = String::new();
        let width = self
            .extra
            .keys()
            .map(|k| k.len() + 2)
            .max()
            .unwrap_or(0)
            .max(18);
        let mut line = |label: &str, value: &dyn std::fmt::Display| {
            let _ = writeln!(text, "{label:<width$}{value}");
        };
        line("game", &self.game);
        line("positions", &self.positions);
        line("win", &self.win);
        line("lose", &self.lose);
        line("tie", &self.tie);
        line("draw", &self.draw);
        line("max remoteness", &self.max_remoteness);
        if let Some(e) = &self.longest_win {
            line(
                "longest win",
                &format!("{} plies: {}", e.remoteness, e.position),
            );
        }
        if let Some(e) = &self.longest_lose {
            line(
                "longest loss",
                &format!("{} plies: {}", e.remoteness, e.position),
            );
        }
        for (key, value) in &self.extra {
            match value {
                serde_json::Value::String(text) => line(&key.replace('_', " "), text),
                value => line(&key.replace('_', " "), value),
            }
        }
        let _ = writeln!(text, "\nremoteness        win       lose        tie");
        for row in &self.by_remoteness {
            let _ = writeln!(
                text,
                "{:>10} {:>10} {:>10} {:>10}",
                row.remoteness, row.win, row.lose, row.tie
            );
        }
        text
    }
}

/// A solve report as `ply solve --json` and `/api/solve` print it: with the
/// session's notes on what it leaves out, and where its answers came from.
#[derive(Serialize)]
pub struct Noted<'a> {
    /// The report.
    #[serde(flatten)]
    pub report: &'a SolveReport,
    /// What the report leaves out (see [`crate::session::Session::notes`]).
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub notes: &'a [String],
    /// `database` or `solved`, for sessions that keep a solved table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<&'static str>,
}
