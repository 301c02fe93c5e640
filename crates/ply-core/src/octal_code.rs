//! [`OctalCode`]: the code `d0.d1d2...` of an octal game, read and checked,
//! and the moves it allows from a heap. A leaf of the crate: games name
//! their code through [`crate::Decompose`], and the heap solvers compute
//! its values ([`crate::solve::octal`]).

use std::fmt;

/// An octal code that is not valid, with the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OctalError(pub String);

impl fmt::Display for OctalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OctalError {}

/// The rules of an octal game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OctalCode {
    text: String,
    /// `digits[i]` is `di`, without trailing zero digits.
    digits: Vec<u8>,
}

impl OctalCode {
    /// Reads a code such as `0.07`, `0.137`, `4.7` or `.77`.
    pub fn parse(text: &str) -> Result<Self, OctalError> {
        let bad = |why: String| OctalError(format!("bad octal code '{text}': {why}"));
        let (before, after) = text
            .split_once('.')
            .ok_or_else(|| bad("expected digits around a point, e.g. 0.07".into()))?;
        let d0 = match before {
            "" | "0" => 0,
            "4" => 4,
            other => {
                return Err(bad(format!(
                    "the digit before the point must be 0 or 4, found '{other}'"
                )));
            }
        };
        let mut digits = vec![d0];
        for (i, ch) in after.chars().enumerate() {
            match ch.to_digit(8) {
                Some(d) => digits.push(d as u8),
                None => {
                    return Err(bad(format!(
                        "'{ch}' (digit {} after the point) is not an octal digit 0-7",
                        i + 1
                    )));
                }
            }
        }
        if after.is_empty() && d0 == 0 {
            return Err(bad("expected digits after the point, e.g. 0.07".into()));
        }
        while digits.len() > 1 && digits.last() == Some(&0) {
            digits.pop();
        }
        Ok(Self {
            text: text.to_string(),
            digits,
        })
    }

    /// The code as it was written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The most tokens one move removes (`k` in the periodicity theorem).
    pub fn max_take(&self) -> usize {
        self.digits.len() - 1
    }

    /// Digit `di` (0 past the last digit).
    pub fn digit(&self, i: usize) -> u8 {
        self.digits.get(i).copied().unwrap_or(0)
    }

    /// Calls `visit` with the nimber of every option of a heap of `n`
    /// tokens, given the values of all smaller heaps: the plain way.
    pub fn for_each_option(&self, n: usize, values: &[u16], mut visit: impl FnMut(u16)) {
        self.for_each_split(n, |[a, b]| visit(values[a] ^ values[b]));
    }

    /// Calls `visit` with the heaps every move from a heap of `n` tokens
    /// leaves (0 for none), each pair once with the smaller first, except
    /// that a pair reached by removing different counts repeats.
    pub fn for_each_split(&self, n: usize, mut visit: impl FnMut([usize; 2])) {
        for (i, &d) in self.digits.iter().enumerate() {
            if i > 0 && d & 1 != 0 && n == i {
                visit([0, 0]);
            }
            if i > 0 && d & 2 != 0 && n > i {
                visit([0, n - i]);
            }
            if d & 4 != 0 && n >= i + 2 {
                let rest = n - i;
                for a in 1..=rest / 2 {
                    visit([a, rest - a]);
                }
            }
        }
    }

    /// Whether a heap of `n` tokens has a move.
    pub fn has_move(&self, n: usize) -> bool {
        self.digits.iter().enumerate().any(|(i, &d)| {
            (i > 0 && d & 1 != 0 && n == i)
                || (i > 0 && d & 2 != 0 && n > i)
                || (d & 4 != 0 && n >= i + 2)
        })
    }
}

impl fmt::Display for OctalCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}
