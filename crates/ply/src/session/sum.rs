//! Games that split into components ([`Decompose`]) answered by
//! Sprague-Grundy theory: the value, nimber and winning moves of positions
//! of any size the game accepts, in time linear in the position once the
//! heap values cover its largest component (kept for later queries).
//! Remoteness is exact where the search over sums of heaps is small enough
//! ([`SumSearch`]), and otherwise left out and said so.

use super::{Session, parse_or_start};
use crate::error::PlyError;
use crate::report::{AnalyzeReport, MoveReport, SolveReport};
use ply_core::{Decompose, MemoSolver, NoProgress, Outcome, Progress, Remoteness, Value};
use ply_core::{HeapValues, SEARCH_LIMIT, SumSearch, shipped};
use ply_core::{heaps, heaps_remoteness, largest_heap, solve_sum};
use std::sync::{Arc, Mutex};

/// Positions with up to this many moves list every move with the position
/// it leads to; larger ones list only their winning moves, without the
/// positions, or, when they have none, their first [`FULL_LISTING`]
/// component moves (every move loses).
pub const FULL_LISTING: usize = 256;
/// The most bytes of positions made to give a position's listed moves the
/// positions they lead to, when it has more than [`FULL_LISTING`] moves.
pub const FILL_BYTES: u64 = 1 << 26;
/// The most moves [`Session::solve_listing_all`] lists with the positions
/// they lead to (what `ply play` needs).
pub const PLAY_LISTING: usize = 4096;
/// The most moves from the start `ply analyze` searches in full.
pub const ANALYZE_LIMIT: usize = 20;

/// A sum of components, with its heap values and a shared search for
/// exact remoteness.
pub struct SumSession<G: Decompose> {
    game: G,
    heaps: HeapValues,
    search: Mutex<SumSearch>,
}

impl<G: Decompose> SumSession<G> {
    /// A session over `game`.
    pub fn new(game: G) -> Self {
        Self {
            heaps: HeapValues::new(game.octal_code(), game.most_tokens()),
            search: Mutex::new(SumSearch::new(game.octal_code())),
            game,
        }
    }

    /// The shared search, for one query.
    fn search(&self) -> std::sync::MutexGuard<'_, SumSearch> {
        self.search.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The remoteness after a move that leaves heaps `left` and `right` of
    /// heap `index` of `heaps` (which hold `live` live tokens), if the
    /// search is small enough; cheap when it is not.
    fn remoteness_after(
        &self,
        heaps: &[usize],
        live: usize,
        index: usize,
        [left, right]: [usize; 2],
    ) -> Option<Remoteness> {
        let mut search = self.search();
        (live + search.live_tokens([left, right]))
            .checked_sub(search.live_tokens([heaps[index]]))
            .filter(|&after| after <= SEARCH_LIMIT)?;
        let after: Vec<usize> = heaps
            .iter()
            .enumerate()
            .filter(|&(i, &h)| i != index && search.live_tokens([h]) > 0)
            .map(|(_, &h)| h)
            .chain([left, right])
            .collect();
        heaps_remoteness(&self.game, &mut search, &after)
    }

    /// The heap values covering `position` and every position it leads
    /// to, computed under `progress` if they are not yet known.
    fn values_for(
        &self,
        position: &G::Position,
        progress: &dyn Progress,
    ) -> Result<Arc<Vec<u16>>, PlyError> {
        let heap = largest_heap(&self.game, position);
        self.heaps.up_to(heap, progress).map_err(|e| {
            if !e.is_cancelled() {
                return PlyError::argument(e.to_string());
            }
            let code = self.heaps.code();
            let shipped = shipped(code).map_or_else(String::new, |values| {
                format!(" (heaps up to {} ship with ply)", values.len() - 1)
            });
            PlyError::solve(
                format!("computing {code} values up to a heap of {heap}{shipped}"),
                e,
            )
        })
    }

    /// The report on `position`, listing every move with the position it
    /// leads to when it has at most `listing` moves.
    fn report(
        &self,
        position: Option<&str>,
        progress: &dyn Progress,
        listing: usize,
    ) -> Result<SolveReport, PlyError> {
        let game = &self.game;
        let position = parse_or_start(game, position)?;
        let values = self.values_for(&position, progress)?;
        let mut report = SolveReport {
            game: game.name(),
            position: game.format_position(&position),
            value: Value::Lose,
            remoteness: Some(0),
            nimber: None,
            moves: Vec::new(),
        };
        if let Some(value) = game.primitive(&position) {
            report.value = value;
            return Ok(report);
        }
        let solution = solve_sum(game, &values, &position);
        report.value = solution.value;
        report.nimber = solution.nimber.map(u64::from);
        let Some(sum) = solution.nimber else {
            // Immediate wins: they win in 1, every other move lets the
            // opponent win at once.
            report.remoteness = Some(1);
            let immediate = &solution.winning_moves;
            let outcome = |mv: G::Move| {
                if immediate.contains(&mv) {
                    Outcome::lose(0)
                } else {
                    Outcome::win(1)
                }
            };
            if game.count_moves(&position) <= listing {
                game.for_each_move(&position, |mv, child| {
                    report
                        .moves
                        .push(self.move_report(mv, &position, Some(&child), outcome(mv)));
                });
            } else {
                for &mv in immediate {
                    report
                        .moves
                        .push(self.move_report(mv, &position, None, outcome(mv)));
                }
                self.fill_positions(&position, immediate, &mut report);
            }
            return Ok(report);
        };
        let heaps = heaps(game, &position);
        let (remoteness, live) = {
            let mut search = self.search();
            let live = search.live_tokens(heaps.iter().copied());
            (heaps_remoteness(game, &mut search, &heaps), live)
        };
        report.remoteness = remoteness;
        // Component moves: the move, its component, the heaps it leaves.
        let mut quiet: Vec<(G::Move, usize, [usize; 2])> = Vec::new();
        let mut component = 0;
        let winning = &solution.winning_moves;
        let listing = game.count_moves(&position) <= listing;
        game.for_each_component(&position, |c| {
            let index = component;
            component += 1;
            if !listing && !winning.is_empty() {
                return;
            }
            game.for_each_component_move(&c, |mv, left| {
                if listing || quiet.len() < FULL_LISTING {
                    quiet.push((mv, index, left));
                }
            });
        });
        // The outcome of the position a component move leads to, for the
        // player to move there.
        let after_quiet = |mv: G::Move, index: usize, left: [usize; 2]| Outcome {
            value: if winning.contains(&mv) {
                Value::Lose
            } else {
                Value::Win
            },
            remoteness: self.remoteness_after(&heaps, live, index, left),
        };
        if listing {
            game.for_each_move(&position, |mv, child| {
                let outcome = match quiet.iter().find(|(m, _, _)| *m == mv) {
                    Some(&(_, index, left)) => after_quiet(mv, index, left),
                    // A dead move: the opponent wins at once.
                    None => Outcome::win(1),
                };
                report
                    .moves
                    .push(self.move_report(mv, &position, Some(&child), outcome));
            });
        } else if sum != 0 {
            for &mv in winning {
                let outcome = Outcome {
                    value: Value::Lose,
                    remoteness: None,
                };
                report
                    .moves
                    .push(self.move_report(mv, &position, None, outcome));
            }
            self.fill_positions(&position, winning, &mut report);
        } else if !quiet.is_empty() {
            for &(mv, index, left) in &quiet {
                let outcome = after_quiet(mv, index, left);
                report
                    .moves
                    .push(self.move_report(mv, &position, None, outcome));
            }
            let moves: Vec<G::Move> = quiet.iter().map(|&(mv, _, _)| mv).collect();
            self.fill_positions(&position, &moves, &mut report);
        } else {
            // Only dead moves: each lets the opponent win at once.
            let mut dead = Vec::new();
            game.for_each_dead_move(&position, |mv| {
                if dead.len() < FULL_LISTING {
                    dead.push(mv)
                }
            });
            for &mv in &dead {
                report
                    .moves
                    .push(self.move_report(mv, &position, None, Outcome::win(1)));
            }
            self.fill_positions(&position, &dead, &mut report);
        }
        Ok(report)
    }

    /// Gives the listed moves `listed` (the last of `report`'s moves, in
    /// order) the positions they lead to, when making every move of
    /// `position` copies at most [`FILL_BYTES`]: so that a page can play
    /// them (a row of 5,000 squares, say); longer rows keep them empty.
    fn fill_positions(&self, position: &G::Position, listed: &[G::Move], report: &mut SolveReport) {
        let moves = self.game.count_moves(position) as u64;
        if moves.saturating_mul(report.position.len() as u64) > FILL_BYTES {
            return;
        }
        let first = report.moves.len() - listed.len();
        self.game.for_each_move(position, |mv, child| {
            if let Some(i) = listed.iter().position(|&m| m == mv) {
                report.moves[first + i].position = self.game.format_position(&child);
            }
        });
    }

    /// One listed move: its name, the position it leads to if given, and
    /// that position's outcome for the player to move there.
    fn move_report(
        &self,
        mv: G::Move,
        position: &G::Position,
        child: Option<&G::Position>,
        outcome: Outcome,
    ) -> MoveReport {
        MoveReport {
            name: self.game.format_move(position, mv),
            position: child.map_or_else(String::new, |c| self.game.format_position(c)),
            value: outcome.value,
            remoteness: outcome.remoteness,
        }
    }

    /// The live tokens of `position`'s components, what the remoteness
    /// search's cost grows with.
    fn live_tokens(&self, position: &G::Position) -> usize {
        self.search().live_tokens(heaps(&self.game, position))
    }
}

impl<G: Decompose + 'static> Session for SumSession<G> {
    /// The heap values and the remoteness search's memo, at their largest.
    fn memory_bound(&self) -> u64 {
        self.heaps.bytes_bound() + ply_core::SEARCH_MEMO_BYTES as u64
    }

    super::game_methods!(self => &self.game);

    fn solve_within(
        &self,
        position: Option<&str>,
        progress: &dyn Progress,
    ) -> Result<SolveReport, PlyError> {
        self.report(position, progress, FULL_LISTING)
    }

    fn solve_listing_all(&self, position: Option<&str>) -> Result<SolveReport, PlyError> {
        let parsed = parse_or_start(&self.game, position)?;
        let moves = self.game.count_moves(&parsed);
        if moves > PLAY_LISTING {
            return Err(PlyError::argument(format!(
                "a position with {moves} moves: play lists every move, for positions with at \
                 most {PLAY_LISTING}"
            )));
        }
        self.report(position, &NoProgress, PLAY_LISTING)
    }

    fn analyze(&self, progress: &dyn Progress) -> Result<AnalyzeReport, PlyError> {
        let start = self.game.start();
        let moves = self.game.count_moves(&start);
        if moves > ANALYZE_LIMIT {
            return Err(PlyError::argument(format!(
                "analyzing {} searches every position its start reaches, and the start has \
                 {moves} moves; at most {ANALYZE_LIMIT}",
                self.game.name()
            )));
        }
        progress.begin("searching", 0);
        let mut solver = MemoSolver::new(&self.game);
        solver
            .solve(&start)
            .map_err(|e| PlyError::argument(e.to_string()))?;
        progress.end();
        let census = solver
            .census()
            .map_examples(|p| self.game.format_position(&p));
        Ok(AnalyzeReport::from_census(self.game.name(), census))
    }

    fn notes(&self, report: &SolveReport) -> Vec<String> {
        let mut notes = Vec::new();
        let Ok(position) = self.game.parse_position(&report.position) else {
            return notes;
        };
        if report.remoteness.is_none() {
            notes.push(format!(
                "remoteness not computed: it needs a search over sums of components, done only \
                 when they hold at most {SEARCH_LIMIT} live tokens (this position's hold {})",
                self.live_tokens(&position)
            ));
        } else if report.moves.iter().any(|m| m.remoteness.is_none()) {
            notes.push(format!(
                "moves to positions whose components hold more than {SEARCH_LIMIT} live tokens \
                 have no remoteness: it is not computed"
            ));
        }
        let without = if report.moves.iter().any(|m| m.position.is_empty()) {
            ", without the positions they lead to"
        } else {
            ""
        };
        if self.game.count_moves(&position) > FULL_LISTING
            && report.moves.len() < self.game.count_moves(&position)
        {
            notes.push(if report.value == Value::Win {
                format!(
                    "a position with more than {FULL_LISTING} moves lists only its winning \
                     moves{without}; every other move loses"
                )
            } else {
                format!(
                    "a lost position with more than {FULL_LISTING} moves lists only its first \
                     {FULL_LISTING} moves that do not lose at once{without}; every move loses"
                )
            });
        }
        notes
    }
}
