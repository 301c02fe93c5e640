//! The cells of a solved child tier as the tier being solved reads them:
//! one byte each when every remoteness in the tier fits six bits (0 not a
//! position, 1 a draw, then win, lose and tie in the top two bits with the
//! remoteness below), else the two-byte [`Cell`].

use crate::value::{Cell, Outcome, Remoteness};

/// The most remoteness a one-byte cell holds.
const NARROW_MAX: Remoteness = 63;

/// A solved tier's cells, by index.
pub enum Cells {
    /// A byte each.
    Narrow(Vec<u8>),
    /// Two bytes each.
    Wide(Vec<Cell>),
}

impl Cells {
    /// Room for `len` unknown cells, a byte each if `narrow`.
    pub fn new(len: usize, narrow: bool) -> Cells {
        if narrow {
            Cells::Narrow(vec![0; len])
        } else {
            Cells::Wide(vec![Cell::UNKNOWN; len])
        }
    }

    /// Whether `cell` fits one byte.
    pub fn fits_narrow(cell: Cell) -> bool {
        cell.unpack()
            .is_none_or(|o| o.remoteness.unwrap_or(0) <= NARROW_MAX)
    }

    /// Sets the cell at `index` (which must fit if the cells are narrow).
    pub fn set(&mut self, index: usize, cell: Cell) {
        match self {
            Cells::Wide(cells) => cells[index] = cell,
            Cells::Narrow(bytes) => {
                bytes[index] = match cell.unpack() {
                    None => 0,
                    Some(o) => {
                        let r = o.remoteness.unwrap_or(0).min(NARROW_MAX) as u8;
                        match o.value {
                            crate::value::Value::Draw => 1,
                            crate::value::Value::Win => 64 | r,
                            crate::value::Value::Lose => 128 | r,
                            crate::value::Value::Tie => 192 | r,
                        }
                    }
                }
            }
        }
    }

    /// The outcome at `index`, if a position has it.
    #[inline]
    pub fn outcome(&self, index: usize) -> Option<Outcome> {
        match self {
            Cells::Wide(cells) => cells.get(index)?.unpack(),
            Cells::Narrow(bytes) => {
                let b = *bytes.get(index)?;
                let r = Remoteness::from(b & 63);
                match b >> 6 {
                    0 => (b == 1).then_some(Outcome::DRAW),
                    1 => Some(Outcome::win(r)),
                    2 => Some(Outcome::lose(r)),
                    _ => Some(Outcome::tie(r)),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_cells_read_back_what_was_set() {
        let outcomes = [
            None,
            Some(Outcome::DRAW),
            Some(Outcome::win(0)),
            Some(Outcome::win(63)),
            Some(Outcome::lose(17)),
            Some(Outcome::tie(5)),
        ];
        let mut narrow = Cells::new(outcomes.len(), true);
        let mut wide = Cells::new(outcomes.len(), false);
        for (i, o) in outcomes.iter().enumerate() {
            let cell = o.map_or(Cell::UNKNOWN, Cell::pack);
            assert!(Cells::fits_narrow(cell));
            narrow.set(i, cell);
            wide.set(i, cell);
            assert_eq!(narrow.outcome(i), *o);
            assert_eq!(wide.outcome(i), *o);
        }
        assert!(!Cells::fits_narrow(Cell::pack(Outcome::lose(64))));
    }
}
