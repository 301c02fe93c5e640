//! `ply judge uva10536` on random boards, checked board by board against
//! the plain memoised search.

use ply_core::{MemoSolver, Value};
use ply_games::Euler;
use ply_games::euler::Covered;
use proptest::prelude::*;

fn board_text(covered: u64) -> String {
    (0..4)
        .map(|row| {
            (0..4)
                .map(|col| {
                    if covered >> (row * 4 + col) & 1 == 1 {
                        'X'
                    } else {
                        '.'
                    }
                })
                .collect::<String>()
                + "\n"
        })
        .collect()
}

proptest! {
    #[test]
    fn every_verdict_matches_the_search(boards in proptest::collection::vec(0u64..0xffff, 0..40)) {
        let mut input = format!("{}\n", boards.len());
        for &board in &boards {
            input += "\n";
            input += &board_text(board);
        }
        let mut output = Vec::new();
        ply::judge::run("uva10536", &mut input.as_bytes(), &mut output).unwrap();

        let game = Euler::default();
        let mut search = MemoSolver::new(&game);
        let expected: String = boards
            .iter()
            .map(|&board| match search.solve(&Covered(board)).unwrap().value {
                Value::Win => "WINNING\n",
                _ => "LOSING\n",
            })
            .collect();
        prop_assert_eq!(String::from_utf8(output).unwrap(), expected);
    }
}
