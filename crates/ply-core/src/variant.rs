//! A game chosen by name: `NAME` is the game's default, `NAME:PARAMS` a
//! variant read from the text after `:`. Whoever opens games by name reads
//! their parameters through [`Variant::named`], so every game is opened one
//! way and refuses bad parameters with one kind of error
//! ([`PositionError::Parameters`]).

use crate::game::PositionError;

/// The longest stretch of refused parameters quoted back in an error.
const QUOTED_CHARS: usize = 40;

/// A game that can be named, with or without parameters.
pub trait Variant: Default {
    /// The game the text after `NAME:` describes. The default refuses any
    /// text: the game takes no parameters.
    fn with_params(params: &str) -> Result<Self, PositionError> {
        Err(PositionError::parameters(format!(
            "this game takes no parameters (got '{}')",
            quoted(params)
        )))
    }

    /// The game named with `params` after `:`, or its default without.
    fn named(params: Option<&str>) -> Result<Self, PositionError> {
        params.map_or_else(|| Ok(Self::default()), Self::with_params)
    }
}

/// At most [`QUOTED_CHARS`] characters of `text`, escaped for one line.
fn quoted(text: &str) -> String {
    let mut shown: String = text.chars().take(QUOTED_CHARS).collect();
    if text.chars().count() > QUOTED_CHARS {
        shown.push_str("...");
    }
    shown.escape_debug().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game with one parameter, a small number, and 3 by default.
    #[derive(Debug, PartialEq)]
    struct Piles(u8);

    impl Default for Piles {
        fn default() -> Self {
            Piles(3)
        }
    }

    impl Variant for Piles {
        fn with_params(params: &str) -> Result<Self, PositionError> {
            params
                .parse()
                .map(Piles)
                .map_err(|_| PositionError::parameters(format!("'{params}' is no pile count")))
        }
    }

    /// A game without parameters.
    #[derive(Debug, Default, PartialEq)]
    struct Fixed;

    impl Variant for Fixed {}

    #[test]
    fn a_bare_name_is_the_default_and_params_are_read() {
        assert_eq!(Piles::named(None), Ok(Piles(3)));
        assert_eq!(Piles::named(Some("7")), Ok(Piles(7)));
        assert!(matches!(
            Piles::named(Some("x")),
            Err(PositionError::Parameters(m)) if m.contains("'x'")
        ));
    }

    #[test]
    fn a_game_without_parameters_refuses_any_and_quotes_them_briefly() {
        assert_eq!(Fixed::named(None), Ok(Fixed));
        let long = "y".repeat(500);
        match Fixed::named(Some(&long)) {
            Err(PositionError::Parameters(m)) => {
                assert!(m.contains("takes no parameters"), "{m}");
                assert!(m.len() < 100, "{m}");
            }
            other => panic!("expected a parameters error, got {other:?}"),
        }
        assert!(matches!(
            Fixed::named(Some("")),
            Err(PositionError::Parameters(_))
        ));
    }
}
