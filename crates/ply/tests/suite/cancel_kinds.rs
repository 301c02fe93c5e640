//! A solve stopped before its end is reported as stopped, in every solver
//! family: the CLI exits 2 with "stopped: ..." and the server answers 503
//! (the kind table in `ply::error`), never 400 as if the asker were at fault.

use ply::error::Kind;
use ply::{PlyError, registry};
use ply_core::Budget;
use ply_core::NoProgress;

/// A game of each solver family, and whether its position is a long row
/// (else the start): the family's solve starts and is stopped at once.
const FAMILIES: [(&str, &str, bool); 6] = [
    ("whole-index table", "euler:5x5", false),
    ("reachable table", "tictactoe", false),
    ("retrograde analysis", "yehr", false),
    ("one-byte retrograde analysis", "dobutsu:GC", false),
    ("alpha-beta search", "tictactoe:6x6x4", false),
    // A row longer than the 0.007 values shipped: they must be computed.
    ("sum of heaps", "treblecross", true),
];

#[test]
fn a_cancelled_solve_of_every_family_is_stopped_and_503() {
    let long_row = ".".repeat((1 << 20) + 10);
    for (family, game, long) in FAMILIES {
        let position = long.then_some(long_row.as_str());
        let session = registry::open(game).unwrap_or_else(|e| panic!("{game}: {e}"));
        let budget = Budget::new(&NoProgress);
        budget.cancel();
        let error = session
            .solve_within(position, &budget)
            .expect_err(&format!("{family} ({game}) was stopped before it began"));
        assert!(
            matches!(error, PlyError::Cancelled(_)),
            "{family} ({game}): {error:?}"
        );
        assert_eq!(error.kind(), Kind::Unavailable, "{family}");
        assert_eq!(error.kind().codes(), (2, 503), "{family}");
        assert!(error.to_string().starts_with("stopped: "), "{error}");
    }
}
