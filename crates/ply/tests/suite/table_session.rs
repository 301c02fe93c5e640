//! `TableSession::analyze` against the plain memoised search: the census of
//! positions reachable from the start, both when the start is symmetric
//! (counting by symmetry classes) and when it is not (counting every
//! reachable position, through the default `TableWalk` methods).

use ply::session::Session;
use ply::session::table::TableSession;
use ply_core::{Game, Indexed, MemoSolver, NoProgress, NumberedTiers, Symmetric, TableWalk};
use ply_games::Euler;
use ply_games::euler::Covered;
use std::collections::HashSet;

/// Euler 3x3 started with the top-left square covered: not symmetric, and
/// walked only through `TableWalk`'s default methods.
struct OffCentre(Euler);

impl Game for OffCentre {
    type Position = Covered;
    type Move = u64;
    fn name(&self) -> String {
        format!("{} from a1", self.0.name())
    }
    fn start(&self) -> Covered {
        Covered(1)
    }
    ply_core::forward_rules!();
}

impl Indexed for OffCentre {
    ply_core::forward_index!();
}

impl NumberedTiers for OffCentre {
    fn tier_count(&self) -> usize {
        self.0.tier_count()
    }
    fn tier(&self, position: &Covered) -> usize {
        self.0.tier(position)
    }
}

impl Symmetric for OffCentre {
    fn for_each_symmetric(&self, position: &Covered, visit: impl FnMut(Covered)) {
        self.0.for_each_symmetric(position, visit)
    }
}

impl TableWalk for OffCentre {}

/// The positions reachable from the start, by a plain depth-first walk.
fn reachable_by_walking<G: Game>(game: &G) -> HashSet<G::Position> {
    let mut seen = HashSet::from([game.start()]);
    let mut stack = vec![game.start()];
    while let Some(position) = stack.pop() {
        if game.primitive(&position).is_none() {
            game.for_each_move(&position, |_, child| {
                if seen.insert(child.clone()) {
                    stack.push(child);
                }
            });
        }
    }
    seen
}

fn check_against_search<G: TableWalk + Symmetric>(game: G) {
    let mut search = MemoSolver::new(&game);
    search.solve(&game.start()).unwrap();
    let expected = search.census();
    let reached = reachable_by_walking(&game);
    assert_eq!(reached.len() as u64, expected.positions);
    let classes: HashSet<u64> = reached
        .iter()
        .map(|p| game.rank(&game.canonical(p)))
        .collect();

    let session = TableSession::new(game).unwrap();
    let report = session.analyze(&NoProgress).unwrap();
    assert_eq!(report.positions, expected.positions, "{}", report.game);
    assert_eq!((report.win, report.lose), (expected.win, expected.lose));
    assert_eq!(report.max_remoteness, expected.max_remoteness().unwrap());
    assert_eq!(report.extra["symmetry_classes"], classes.len() as u64);
}

#[test]
fn a_symmetric_start_counts_by_classes() {
    check_against_search(Euler::new(3, 3, 3).unwrap());
    check_against_search(Euler::new(2, 4, 2).unwrap());
}

#[test]
fn an_asymmetric_start_counts_every_reachable_position() {
    check_against_search(OffCentre(Euler::new(3, 3, 3).unwrap()));
}
