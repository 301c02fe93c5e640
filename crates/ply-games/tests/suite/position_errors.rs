//! Every game says what kind of mistake a bad position or bad parameters
//! are: malformed text, a well-formed text that is no position of the
//! game, or parameters the game does not take.

use ply_core::{Game, PositionError};
use ply_games::{Dobutsu, Euler, LGame, TicTacToe, Treblecross, Yehr};

fn kind(result: Result<impl Sized, PositionError>) -> &'static str {
    match result {
        Ok(_) => "accepted",
        Err(PositionError::Malformed(_)) => "malformed",
        Err(PositionError::Illegal(_)) => "illegal",
        Err(PositionError::Parameters(_)) => "parameters",
        Err(PositionError::Unavailable(_)) => "unavailable",
    }
}

#[test]
fn bad_parameters_are_parameter_errors() {
    assert_eq!(kind(Euler::from_params("9x9")), "parameters");
    assert_eq!(kind(Euler::from_params("4x4x0")), "parameters");
    assert_eq!(kind(Euler::from_params("4y4")), "parameters");
    assert_eq!(kind(TicTacToe::from_params("7x7x5")), "parameters");
    assert_eq!(kind(TicTacToe::from_params("3x3x9")), "parameters");
    assert_eq!(kind(Treblecross::from_params("twelve")), "parameters");
    assert_eq!(kind(Treblecross::from_params("2")), "parameters");
    assert_eq!(kind(Dobutsu::from_params("XC")), "parameters");
}

#[test]
fn text_of_the_wrong_form_is_malformed() {
    assert_eq!(kind(Euler::default().parse_position("XX")), "malformed");
    assert_eq!(
        kind(Euler::default().parse_position("XXX./XXX./.XXX/.XXO")),
        "malformed"
    );
    assert_eq!(
        kind(TicTacToe::default().parse_position("x.o")),
        "malformed"
    );
    assert_eq!(
        kind(Treblecross::default().parse_position("..Y..")),
        "malformed"
    );
    assert_eq!(
        kind(LGame::new().parse_position("..../..../....")),
        "malformed"
    );
    assert_eq!(kind(Yehr.parse_position("Q/4,5,5,5/7,6,6,6")), "malformed");
    assert_eq!(kind(Yehr.parse_position("R/4,5,5/7,6,6,6")), "malformed");
    assert_eq!(
        kind(Dobutsu::new().parse_position("gle/.c./.C./ELG/-")),
        "malformed"
    );
    assert_eq!(
        kind(Dobutsu::new().parse_position("gle/.c./.Q./ELG/-/S")),
        "malformed"
    );
}

#[test]
fn well_formed_text_of_no_position_is_illegal() {
    assert_eq!(
        kind(TicTacToe::default().parse_position("xxx./..../..../....")),
        "illegal"
    );
    assert_eq!(
        kind(
            TicTacToe::from_params("3x3x3")
                .unwrap()
                .parse_position("xxx/ooo/x..")
        ),
        "illegal"
    );
    assert_eq!(kind(Yehr.parse_position("R/11,5,5,5/7,6,6,6")), "illegal");
    assert_eq!(kind(Yehr.parse_position("R/8,5,5,5/7,6,6,6")), "illegal");
    assert_eq!(
        kind(LGame::new().parse_position(".###/#*.x/*.*./x.*.")),
        "illegal"
    );
    assert_eq!(
        kind(Dobutsu::new().parse_position("gle/.c./.C./EGG/-/S")),
        "illegal"
    );
    assert_eq!(
        kind(Dobutsu::new().parse_position("gle/.c./CC./ELG/-/S")),
        "illegal"
    );
    // And the start positions are read back.
    assert_eq!(
        kind(Dobutsu::new().parse_position("gle/.c./.C./ELG/-/S")),
        "accepted"
    );
    assert_eq!(kind(Yehr.parse_position("R/4,5,5,5/7,6,6,6")), "accepted");
}
