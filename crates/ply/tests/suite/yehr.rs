//! `ply judge hdu3649`: the spec's sample byte for byte, every contest setup
//! against the brute-force retrograde solution, and malformed input
//! rejected with a line number.

use crate::common;

use common::problem::{answer, assert_answers};
use ply_core::solve::retro;
use ply_core::{NoProgress, Value};
use ply_games::Yehr;
use ply_games::yehr::{Side, YehrPosition};
use std::fmt::Write as _;

fn judge(input: &str) -> Result<String, String> {
    answer("hdu3649", input)
}

#[test]
fn the_spec_sample_byte_for_byte() {
    assert_answers("hdu3649", "hdu3649_sample");
}

#[test]
fn every_contest_setup_matches_brute_force() {
    let table = retro::solve_with_parents(&Yehr, &NoProgress).unwrap();
    let (mut input, mut expected) = (String::new(), String::new());
    for code in 0..5u32.pow(6) {
        let digit = |i: u32| (code / 5u32.pow(i) % 5) as u8;
        let red = [1 + digit(0), 1 + digit(1), 1 + digit(2), 5];
        let black = [6 + digit(3), 6 + digit(4), 6 + digit(5), 6];
        for (first, mover) in [(0, Side::Red), (1, Side::Black)] {
            let _ = writeln!(
                input,
                "{first}\n{} {} {} {}\n{} {} {} {}",
                red[0], red[1], red[2], red[3], black[0], black[1], black[2], black[3]
            );
            let position = YehrPosition::new(mover, red, black).unwrap();
            let mover_wins = table.outcome(&Yehr, &position).unwrap().value == Value::Win;
            let red_wins = mover_wins == (mover == Side::Red);
            expected.push_str(if red_wins { "Red\n" } else { "Black\n" });
        }
    }
    assert_eq!(expected.lines().count(), 31_250);
    assert_eq!(judge(&input).unwrap(), expected);
}

#[test]
fn groups_may_share_a_line() {
    assert_eq!(
        judge("0 4 5 5 5 7 6 6 6\n1\n4 5 5 5 7 6 6 6\n").unwrap(),
        "Red\nBlack\n"
    );
    assert_eq!(judge("").unwrap(), "");
}

#[test]
fn malformed_input_is_rejected_with_its_line() {
    for (input, message) in [
        (
            "2\n4 5 5 5\n7 6 6 6\n",
            "input line 1: expected who moves first",
        ),
        (
            "0\n4 5 5 5\n7 6 6\n",
            "input line 4: input ended; expected the row of Black's D",
        ),
        (
            "0\n4 5 5 5\n7 6 6 x\n",
            "input line 3: expected the row of Black's D (1 to 10), found 'x'",
        ),
        (
            "0\n4 6 5 5\n7 6 6 6\n",
            "input line 3: column B: Red's piece (row 6) must be below",
        ),
        (
            "0\n4 5 5 5\n7 6 6 11\n",
            "input line 3: expected the row of Black's D (1 to 10), found '11'",
        ),
        (
            "0\n4 5 5 5\n7 6 6 6\n1\n0 5 5 5\n",
            "input line 5: expected the row of Red's A (1 to 10), found '0'",
        ),
    ] {
        let err = judge(input).unwrap_err();
        assert!(err.starts_with(message), "{input:?}: {err}");
    }
}
