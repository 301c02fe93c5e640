//! Sprague-Grundy theory for impartial games under normal play: the mex
//! that defines a nimber, nim sums, and the value and winning moves of a
//! position that splits into independent components ([`Decompose`]),
//! found from the components' nimbers without walking the product space.
//! The components are heaps of an octal game; their values come from the
//! caller (usually a [`crate::solve::heaps::HeapValues`] grown to cover
//! [`largest_heap`]).

use crate::game::Decompose;
use crate::solve::heaps::SumSearch;
use crate::value::{Nimber, Remoteness, Value};

/// The nimber of a sum of independent games: the XOR of theirs.
pub fn nim_sum(nimbers: impl IntoIterator<Item = Nimber>) -> Nimber {
    nimbers.into_iter().fold(0, |sum, n| sum ^ n)
}

/// The value, for the player to move, of an impartial game of nimber
/// `nimber` played alongside spare moves only one side may make (the
/// integer `spare`: the mover's spare moves minus the opponent's). A
/// nonzero integer outweighs any nimber, so whoever has more spare moves
/// wins whoever starts; with equal spares the nimber decides.
pub fn value_with_tempo(nimber: Nimber, spare: i64) -> Value {
    match spare.cmp(&0) {
        std::cmp::Ordering::Greater => Value::Win,
        std::cmp::Ordering::Less => Value::Lose,
        std::cmp::Ordering::Equal if nimber != 0 => Value::Win,
        std::cmp::Ordering::Equal => Value::Lose,
    }
}

/// What Sprague-Grundy theory says about one position of a decomposable game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SumSolution<M> {
    /// The value for the player to move.
    pub value: Value,
    /// The nim sum of the components; `None` for a primitive position or
    /// one with an immediate win.
    pub nimber: Option<Nimber>,
    /// Every winning move, in the order the game visits them: the immediate
    /// wins if there are any, else every component move that brings the nim
    /// sum to 0.
    pub winning_moves: Vec<M>,
}

/// The largest heap among `position`'s components (0 if none): heap values
/// up to it answer every query about the position and what it leads to.
pub fn largest_heap<G: Decompose>(game: &G, position: &G::Position) -> usize {
    let mut largest = 0;
    game.for_each_component(position, |component| {
        largest = largest.max(game.heap(&component))
    });
    largest
}

/// The nim sum of `position`'s components, or `None` if the position is
/// primitive or has an immediate win. `values` are the heap values of the
/// game's octal code, up to at least [`largest_heap`].
pub fn sum_nimber<G: Decompose>(
    game: &G,
    values: &[u16],
    position: &G::Position,
) -> Option<Nimber> {
    if game.primitive(position).is_some() || has_immediate_win(game, position) {
        return None;
    }
    let mut sum = 0;
    game.for_each_component(position, |component| {
        sum ^= Nimber::from(values[game.heap(&component)])
    });
    Some(sum)
}

/// The value, nimber and every winning move of `position`, in time linear
/// in the number of component moves. `values` are the heap values of the
/// game's octal code, up to at least [`largest_heap`].
pub fn solve_sum<G: Decompose>(
    game: &G,
    values: &[u16],
    position: &G::Position,
) -> SumSolution<G::Move> {
    if let Some(value) = game.primitive(position) {
        return SumSolution {
            value,
            nimber: None,
            winning_moves: Vec::new(),
        };
    }
    let mut immediate = Vec::new();
    game.for_each_immediate_win(position, |mv| immediate.push(mv));
    if !immediate.is_empty() {
        return SumSolution {
            value: Value::Win,
            nimber: None,
            winning_moves: immediate,
        };
    }
    let mut components = Vec::new();
    game.for_each_component(position, |component| {
        let nimber = Nimber::from(values[game.heap(&component)]);
        components.push((component, nimber));
    });
    let sum = nim_sum(components.iter().map(|(_, nimber)| *nimber));
    let mut winning_moves = Vec::new();
    if sum != 0 {
        for (component, nimber) in &components {
            // The rest of the sum, which this component must now cancel.
            let target = sum ^ nimber;
            game.for_each_component_move(component, |mv, [left, right]| {
                if Nimber::from(values[left] ^ values[right]) == target {
                    winning_moves.push(mv);
                }
            });
        }
    }
    SumSolution {
        value: if sum == 0 { Value::Lose } else { Value::Win },
        nimber: Some(sum),
        winning_moves,
    }
}

/// The heaps of `position`'s components, in the game's order.
pub fn heaps<G: Decompose>(game: &G, position: &G::Position) -> Vec<usize> {
    let mut heaps = Vec::new();
    game.for_each_component(position, |component| heaps.push(game.heap(&component)));
    heaps
}

/// The exact remoteness of `position`: 0 if primitive, 1 with an immediate
/// win, else that of the sum of its heaps ([`SumSearch`]) and the plies
/// after it ([`Decompose::plies_when_played_out`]); `None` when the sum is
/// too large to search.
pub fn sum_remoteness<G: Decompose>(
    game: &G,
    search: &mut SumSearch,
    position: &G::Position,
) -> Option<Remoteness> {
    if game.primitive(position).is_some() {
        return Some(0);
    }
    if has_immediate_win(game, position) {
        return Some(1);
    }
    heaps_remoteness(game, search, &heaps(game, position))
}

/// The exact remoteness of a position of `game` with no immediate win
/// whose components are `heaps`: that of their sum and the plies after it;
/// `None` when the sum is too large to search.
pub fn heaps_remoteness<G: Decompose>(
    game: &G,
    search: &mut SumSearch,
    heaps: &[usize],
) -> Option<Remoteness> {
    let (_, remoteness) = search.solve(heaps)?;
    Some(remoteness + game.plies_when_played_out())
}

fn has_immediate_win<G: Decompose>(game: &G, position: &G::Position) -> bool {
    let mut found = false;
    game.for_each_immediate_win(position, |_| found = true);
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Game, PositionError};
    use crate::octal_code::OctalCode;
    use crate::progress::NoProgress;
    use crate::solve::heaps::HeapValues;
    use crate::solve::mex::{MexSet, mex};
    use crate::solve::search::MemoSolver;
    use proptest::prelude::*;

    #[test]
    fn spare_moves_outweigh_nimbers() {
        assert_eq!(value_with_tempo(0, 0), Value::Lose);
        assert_eq!(value_with_tempo(3, 0), Value::Win);
        assert_eq!(value_with_tempo(0, 1), Value::Win);
        assert_eq!(value_with_tempo(5, -1), Value::Lose);
        assert_eq!(nim_sum([1, 2, 3]), 0);
        assert_eq!(nim_sum([4, 1]), 5);
    }

    /// Kayles rows as a sum: knock down one pin or two adjacent pins from
    /// any row, possibly splitting it in two. A position is the multiset of
    /// row lengths, sorted.
    struct Kayles {
        nimbers: Vec<Nimber>,
    }

    impl Kayles {
        fn new(max: usize) -> Self {
            let mut nimbers = vec![0];
            let mut set = MexSet::new();
            for n in 1..=max {
                let options = (1..=2.min(n)).flat_map(|take| {
                    let nimbers = &nimbers;
                    (0..=n - take).map(move |left| nimbers[left] ^ nimbers[n - take - left])
                });
                let value = mex(options, &mut set);
                nimbers.push(value);
            }
            Self { nimbers }
        }
    }

    /// A move: (row index, pins knocked down, pins left on its left).
    type KaylesMove = (usize, usize, usize);

    impl Game for Kayles {
        type Position = Vec<usize>;
        type Move = KaylesMove;

        fn name(&self) -> String {
            "kayles".into()
        }
        fn start(&self) -> Vec<usize> {
            Vec::new()
        }
        fn primitive(&self, _: &Vec<usize>) -> Option<Value> {
            None
        }
        fn for_each_move(&self, rows: &Vec<usize>, mut visit: impl FnMut(KaylesMove, Vec<usize>)) {
            for (i, &n) in rows.iter().enumerate() {
                for take in 1..=2.min(n) {
                    for left in 0..=n - take {
                        let mut next = rows.clone();
                        next.remove(i);
                        next.extend([left, n - take - left].into_iter().filter(|&r| r > 0));
                        next.sort_unstable();
                        visit((i, take, left), next);
                    }
                }
            }
        }
        fn parse_position(&self, _: &str) -> Result<Vec<usize>, PositionError> {
            Err(PositionError::new("not used"))
        }
        fn format_position(&self, rows: &Vec<usize>) -> String {
            format!("{rows:?}")
        }
        fn format_move(&self, _: &Vec<usize>, mv: KaylesMove) -> String {
            format!("{mv:?}")
        }
    }

    impl Decompose for Kayles {
        type Component = (usize, usize);

        fn for_each_immediate_win(&self, _: &Vec<usize>, _: impl FnMut(KaylesMove)) {}

        fn for_each_component(&self, rows: &Vec<usize>, mut visit: impl FnMut((usize, usize))) {
            rows.iter().copied().enumerate().for_each(&mut visit);
        }

        fn octal_code(&self) -> OctalCode {
            OctalCode::parse("0.77").unwrap()
        }

        fn most_tokens(&self) -> usize {
            self.nimbers.len() - 1
        }

        fn heap(&self, &(_, n): &(usize, usize)) -> usize {
            n
        }

        fn for_each_dead_move(&self, _: &Vec<usize>, _: impl FnMut(KaylesMove)) {}

        fn count_moves(&self, rows: &Vec<usize>) -> usize {
            let mut count = 0;
            self.for_each_move(rows, |_, _| count += 1);
            count
        }

        fn for_each_component_move(
            &self,
            &(i, n): &(usize, usize),
            mut visit: impl FnMut(KaylesMove, [usize; 2]),
        ) {
            for take in 1..=2.min(n) {
                for left in 0..=n - take {
                    visit((i, take, left), [left, n - take - left]);
                }
            }
        }
    }

    #[test]
    fn kayles_nimbers_start_as_published() {
        // Winning Ways; OEIS A002186.
        let kayles = Kayles::new(12);
        assert_eq!(kayles.nimbers, [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4]);
        // The engine's values of its octal code agree.
        let heaps = HeapValues::new(kayles.octal_code(), kayles.most_tokens());
        let values = heaps.up_to(12, &NoProgress).unwrap();
        let engine: Vec<Nimber> = values[..=12].iter().map(|&v| Nimber::from(v)).collect();
        assert_eq!(engine, kayles.nimbers);
    }

    proptest! {
        #[test]
        fn sums_agree_with_search_of_the_product(mut rows in proptest::collection::vec(1usize..7, 0..4)) {
            rows.sort_unstable();
            let game = Kayles::new(8);
            let mut solver = MemoSolver::new(&game);
            let heaps = HeapValues::new(game.octal_code(), game.most_tokens());
            let values = heaps.up_to(largest_heap(&game, &rows), &NoProgress).unwrap();
            let solution = solve_sum(&game, &values, &rows);
            prop_assert_eq!(solution.value, solver.solve(&rows).unwrap().value);
            prop_assert_eq!(solution.nimber, sum_nimber(&game, &values, &rows));
            let mut search = SumSearch::new(game.octal_code());
            prop_assert_eq!(
                sum_remoteness(&game, &mut search, &rows),
                solver.solve(&rows).unwrap().remoteness
            );
            let mut winning = Vec::new();
            game.for_each_move(&rows, |mv, child| {
                if solver.solve(&child).unwrap().value == Value::Lose {
                    winning.push(mv);
                }
            });
            prop_assert_eq!(solution.winning_moves, winning);
        }
    }
}
