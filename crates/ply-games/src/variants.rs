//! How each built-in game reads the text after `NAME:` in its name: one
//! [`Variant`] impl per game, each handing the text to the game's own
//! reader, so the registry and the examples open every game one way.

use crate::{
    ConnectFour, Dobutsu, Euler, LGame, Morris, Quixo, Teeko, TicTacToe, Treblecross, Yehr,
};
use ply_core::{PositionError, Variant};

impl Variant for Euler {
    fn with_params(params: &str) -> Result<Self, PositionError> {
        Euler::from_params(params)
    }
}

impl Variant for TicTacToe {
    fn with_params(params: &str) -> Result<Self, PositionError> {
        TicTacToe::from_params(params)
    }
}

impl Variant for Treblecross {
    fn with_params(params: &str) -> Result<Self, PositionError> {
        Treblecross::from_params(params)
    }
}

impl Variant for Dobutsu {
    fn with_params(params: &str) -> Result<Self, PositionError> {
        Dobutsu::from_params(params)
    }
}

impl Variant for Quixo {
    fn with_params(params: &str) -> Result<Self, PositionError> {
        Quixo::from_params(params)
    }
}

impl Variant for Teeko {
    fn with_params(params: &str) -> Result<Self, PositionError> {
        Teeko::from_params(params)
    }
}

impl Variant for ConnectFour {
    fn with_params(params: &str) -> Result<Self, PositionError> {
        ConnectFour::from_params(params)
    }
}

impl Variant for Morris {
    fn with_params(params: &str) -> Result<Self, PositionError> {
        Morris::from_params(params)
    }
}

/// The L Game is played on 4x4 only.
impl Variant for LGame {}

/// The Yehr Game has one board.
impl Variant for Yehr {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_without_parameters_refuse_them() {
        assert!(matches!(
            LGame::named(Some("5x5")),
            Err(PositionError::Parameters(_))
        ));
        assert!(matches!(
            Yehr::named(Some("")),
            Err(PositionError::Parameters(_))
        ));
    }

    #[test]
    fn a_bare_name_is_the_default_game() {
        assert_eq!(
            Euler::named(None).unwrap().shape(),
            Euler::default().shape()
        );
        assert_eq!(
            TicTacToe::named(Some("3x3x3")).unwrap().k(),
            3,
            "the parameters are read"
        );
        assert!(matches!(
            Treblecross::named(Some("x")),
            Err(PositionError::Parameters(_))
        ));
    }
}
