//! Remoteness found again by a search of one ply. A database may leave out
//! the remoteness of every win, or of every loss ([`Cell::left_out`]): most
//! of a big database's bytes are remoteness, which compresses poorly, and
//! one side of it follows from the other. A win is won in one more ply
//! than its quickest losing child is lost; a loss is lost in one more ply
//! than its slowest child (all wins) is won. So a left-out win needs its
//! children's losses stored, and a left-out loss its children's wins: one
//! database leaves out one side only, and no search goes deeper than one ply.

use crate::game::Game;
use crate::value::{Cell, Outcome, Value};

/// The outcome of `position`, whose stored cell is `stored`: the cell's own
/// outcome, or for a cell made by [`Cell::left_out`] the remoteness found
/// from the cells of its children: from the rules where play has ended,
/// else from `child` (stored, or from the rules where the database keeps
/// none). `Ok(None)` if `stored` is
/// [`Cell::UNKNOWN`], or if the children contradict it: a left-out win with
/// no losing child, or a child of the other side left out too, which no
/// sound database holds.
pub fn complete<G: Game, E>(
    game: &G,
    position: &G::Position,
    stored: Cell,
    mut child: impl FnMut(&G::Position) -> Result<Cell, E>,
) -> Result<Option<Outcome>, E> {
    let Some(value) = stored.left_out_value() else {
        return Ok(stored.unpack());
    };
    if let Some(end) = game.primitive(position) {
        return Ok((end == value).then(|| Outcome::terminal(end)));
    }
    let mut children = Vec::new();
    game.for_each_move(position, |_, next| children.push(next));
    let mut through = Through::new(value);
    for next in &children {
        let cell = match game.primitive(next) {
            Some(end) => Cell::pack(Outcome::terminal(end)),
            None => child(next)?,
        };
        if !through.child(cell) {
            return Ok(None);
        }
    }
    Ok(through.outcome())
}

/// The outcome of a position that is not primitive and whose stored cell
/// leaves out the remoteness of its side, found from its children's cells
/// taken one at a time: the search of one ply [`complete`] makes, for
/// callers that reach the children otherwise (the tier solver, by tier
/// and index).
#[derive(Clone, Copy, Debug)]
pub struct Through {
    /// The side left out.
    value: Value,
    /// The best remoteness through a move so far: the least loss for a
    /// win, the greatest win for a loss.
    best: Option<u32>,
    /// Whether a child contradicted the stored side.
    contradicted: bool,
}

impl Through {
    /// Nothing taken yet, for a position whose stored cell is a left-out
    /// `value`.
    pub fn new(value: Value) -> Through {
        Through {
            value,
            best: None,
            contradicted: false,
        }
    }

    /// Takes a child's cell; false once the children contradict the stored
    /// side (a child of the other side left out too, or a left-out loss
    /// with a child that is not a win), after which no outcome is found.
    pub fn child(&mut self, cell: Cell) -> bool {
        if cell.left_out_value() == Some(self.value.flip()) {
            self.contradicted = true;
        }
        match (self.value, cell.unpack()) {
            (Value::Win, Some(o)) if o.value == Value::Lose => {
                let r = o.remoteness.unwrap_or(0);
                self.best = Some(self.best.map_or(r, |b| b.min(r)));
            }
            (Value::Lose, Some(o)) if o.value == Value::Win => {
                let r = o.remoteness.unwrap_or(0);
                self.best = Some(self.best.map_or(r, |b| b.max(r)));
            }
            (Value::Lose, _) => self.contradicted = true,
            _ => {}
        }
        !self.contradicted
    }

    /// The outcome the children taken say: `None` if they contradicted
    /// it, or if a left-out win has no losing child.
    pub fn outcome(&self) -> Option<Outcome> {
        if self.contradicted {
            return None;
        }
        match (self.value, self.best) {
            (Value::Win, Some(r)) => Some(Outcome::win(r + 1)),
            (Value::Lose, Some(r)) => Some(Outcome::lose(r + 1)),
            (Value::Lose, None) => Some(Outcome::lose(0)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::search::MemoSolver;
    use std::convert::Infallible;

    /// Subtraction: take 1, 2 or 5 from a pile; no move loses. Wins and
    /// losses of many remotenesses, and no draws.
    struct Take;

    impl Game for Take {
        type Position = u64;
        type Move = u64;
        fn name(&self) -> String {
            "take".into()
        }
        fn start(&self) -> u64 {
            60
        }
        fn primitive(&self, _: &u64) -> Option<Value> {
            None
        }
        fn for_each_move(&self, pile: &u64, mut visit: impl FnMut(u64, u64)) {
            for take in [1, 2, 5] {
                if take <= *pile {
                    visit(take, pile - take);
                }
            }
        }
        fn parse_position(&self, text: &str) -> Result<u64, crate::game::PositionError> {
            text.parse()
                .map_err(|_| crate::game::PositionError::new("not a pile"))
        }
        fn format_position(&self, pile: &u64) -> String {
            pile.to_string()
        }
        fn format_move(&self, _: &u64, take: u64) -> String {
            take.to_string()
        }
    }

    fn cells() -> Vec<Cell> {
        let mut solver = MemoSolver::new(&Take);
        (0..=60)
            .map(|pile| Cell::pack(solver.solve(&pile).unwrap()))
            .collect()
    }

    #[test]
    fn either_side_left_out_is_found_again_from_the_other() {
        let full = cells();
        for side in [Value::Win, Value::Lose] {
            let kept: Vec<Cell> = full
                .iter()
                .map(|&c| match c.unpack() {
                    Some(o) if o.value == side => Cell::left_out(side).unwrap(),
                    _ => c,
                })
                .collect();
            assert!(kept.iter().filter(|c| c.left_out_value().is_some()).count() > 10);
            for pile in 0..=60u64 {
                let found = complete::<_, Infallible>(&Take, &pile, kept[pile as usize], |&c| {
                    Ok(kept[c as usize])
                })
                .unwrap();
                assert_eq!(found, full[pile as usize].unpack(), "pile {pile}, {side:?}");
            }
        }
    }

    #[test]
    fn both_sides_left_out_is_refused_not_answered() {
        let both: Vec<Cell> = cells()
            .iter()
            .map(|c| Cell::left_out(c.unpack().unwrap().value).unwrap())
            .collect();
        let answered = (1..=60u64)
            .filter(|&pile| {
                complete::<_, Infallible>(&Take, &pile, both[pile as usize], |&c| {
                    Ok(both[c as usize])
                })
                .unwrap()
                .is_some()
            })
            .count();
        assert_eq!(answered, 0);
        assert_eq!(
            complete::<_, Infallible>(&Take, &7, Cell::UNKNOWN, |_| Ok(Cell::UNKNOWN)).unwrap(),
            None
        );
    }
}
