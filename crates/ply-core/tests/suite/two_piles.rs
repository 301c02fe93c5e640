//! The sparse table solver and alpha-beta search on a toy game, against the
//! plain memoised solver: two piles, a move takes 1 to 3 tokens from one
//! pile (so moves jump up to three tiers), taking the last token wins, and
//! optionally leaving one token in each pile ends the game level.

use ply_core::{
    AlphaBeta, Game, Indexed, MemoSolver, NoProgress, NumberedTiers, PositionError, Remoteness,
    Searchable, SparseTable, Symmetric, Value,
};
use ply_core::{Canonical, census_of_classes};

struct TwoPiles {
    size: u8,
    ties: bool,
    /// Overrides [`Symmetric::class_size`] to weigh every class ten times
    /// its true size, so that a census shows whether it asked the game.
    weighed: bool,
}

impl Game for TwoPiles {
    type Position = (u8, u8);
    type Move = (u8, u8);

    fn name(&self) -> String {
        format!("two-piles:{}", self.size)
    }

    fn start(&self) -> (u8, u8) {
        (self.size, self.size)
    }

    fn primitive(&self, &(a, b): &(u8, u8)) -> Option<Value> {
        match (a, b) {
            (0, 0) => Some(Value::Lose),
            (1, 1) if self.ties => Some(Value::Tie),
            _ => None,
        }
    }

    fn for_each_move(&self, &(a, b): &(u8, u8), mut visit: impl FnMut((u8, u8), (u8, u8))) {
        for take in 1..=3 {
            if take <= a {
                visit((0, take), (a - take, b));
            }
            if take <= b {
                visit((1, take), (a, b - take));
            }
        }
    }

    fn parse_position(&self, text: &str) -> Result<(u8, u8), PositionError> {
        Err(PositionError::new(format!("no text form: {text}")))
    }

    fn format_position(&self, position: &(u8, u8)) -> String {
        format!("{position:?}")
    }

    fn format_move(&self, _position: &(u8, u8), mv: (u8, u8)) -> String {
        format!("{mv:?}")
    }
}

impl Indexed for TwoPiles {
    fn index_len(&self) -> u64 {
        u64::from(self.size + 1).pow(2)
    }

    fn rank(&self, &(a, b): &(u8, u8)) -> u64 {
        u64::from(a) * u64::from(self.size + 1) + u64::from(b)
    }

    fn unrank(&self, index: u64) -> Option<(u8, u8)> {
        let side = u64::from(self.size + 1);
        (index < self.index_len()).then(|| ((index / side) as u8, (index % side) as u8))
    }
}

impl Symmetric for TwoPiles {
    fn for_each_symmetric(&self, &(a, b): &(u8, u8), mut visit: impl FnMut((u8, u8))) {
        visit((a, b));
        visit((b, a));
    }

    fn class_size(&self, _index: u64, &(a, b): &(u8, u8)) -> u64 {
        let size = if a == b { 1 } else { 2 };
        if self.weighed { 10 * size } else { size }
    }
}

impl NumberedTiers for TwoPiles {
    fn tier_count(&self) -> usize {
        2 * usize::from(self.size) + 1
    }

    fn tier(&self, &(a, b): &(u8, u8)) -> usize {
        2 * usize::from(self.size) - usize::from(a) - usize::from(b)
    }
}

impl Searchable for TwoPiles {
    fn key(&self, position: &(u8, u8)) -> u64 {
        self.rank(position)
    }

    fn key_space(&self) -> u64 {
        self.index_len()
    }

    fn plies_left(&self, &(a, b): &(u8, u8)) -> Remoteness {
        Remoteness::from(a) + Remoteness::from(b)
    }
}

#[test]
fn the_sparse_table_agrees_with_the_memoised_solver() {
    for ties in [false, true] {
        let game = TwoPiles {
            size: 9,
            ties,
            weighed: false,
        };
        // A root off the diagonal is not canonical; the table must cope.
        for root in [game.start(), (9, 4), (2, 7)] {
            let table = SparseTable::build(&game, &root, &NoProgress).unwrap();
            let mut memo = MemoSolver::new(&game);
            memo.solve(&root).unwrap();
            // Only a symmetric root reaches whole classes, which a census needs.
            match table.census(&game) {
                Some(census) => {
                    assert_eq!(root.0, root.1);
                    let plain = memo.census();
                    assert_eq!(
                        (census.positions, census.win, census.lose, census.tie),
                        (plain.positions, plain.win, plain.lose, plain.tie)
                    );
                }
                None => assert_ne!(root.0, root.1),
            }
            for index in 0..game.index_len() {
                let position = game.unrank(index).unwrap();
                let reachable = position.0 <= root.0 && position.1 <= root.1
                    || position.1 <= root.0 && position.0 <= root.1;
                match table.outcome(&game, &position) {
                    Some(outcome) => assert_eq!(outcome, memo.solve(&position).unwrap()),
                    None => assert!(!reachable, "{position:?} missing from root {root:?}"),
                }
            }
        }
    }
}

#[test]
fn alpha_beta_agrees_with_the_memoised_solver_even_with_a_tiny_table() {
    let game = TwoPiles {
        size: 12,
        ties: false,
        weighed: false,
    };
    let mut memo = MemoSolver::new(&game);
    for entries in [2, 1 << 10] {
        let mut search = AlphaBeta::new(&game, entries);
        for index in 0..game.index_len() {
            let position = game.unrank(index).unwrap();
            let expected = memo.solve(&position).unwrap();
            assert_eq!(search.solve(&game, &position), Ok(expected), "{position:?}");
            assert_eq!(search.value(&game, &position), Ok(expected.value));
        }
    }
}

/// Every census that weighs a class by its size asks the game's own
/// [`Symmetric::class_size`], so an override is obeyed everywhere.
#[test]
fn every_census_weighs_classes_by_the_games_own_class_size() {
    let [plain, weighed] = [false, true].map(|weighed| TwoPiles {
        size: 8,
        ties: true,
        weighed,
    });
    let table = SparseTable::build(&plain, &plain.start(), &NoProgress).unwrap();
    let truth = table.census(&plain).unwrap();
    let census = table.census(&weighed).unwrap();
    assert_eq!(
        (census.positions, census.win, census.lose, census.tie),
        (
            10 * truth.positions,
            10 * truth.win,
            10 * truth.lose,
            10 * truth.tie
        )
    );
    let classes = ply_core::IndexSet::new(plain.index_len());
    for index in (0..plain.index_len()).filter(|&i| table.cell(i) != ply_core::Cell::UNKNOWN) {
        classes.insert(index);
    }
    let solution = Canonical::new(table, plain.index_len());
    for (game, factor) in [(&plain, 1), (&weighed, 10)] {
        let census = census_of_classes(&solution, game, &classes).unwrap();
        assert_eq!(census.positions, factor * truth.positions);
        assert_eq!(census.win, factor * truth.win);
    }
}
