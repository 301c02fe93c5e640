//! The cells of a solved child tier as the tier being solved reads them:
//! one byte each, a code into the tier's table of distinct outcomes, when
//! the tier holds at most 256 distinct cells (its shard's dictionary says
//! so before any cell is read); else the two-byte [`Cell`].

use crate::value::{Cell, Outcome};

/// The most distinct cells (the unknown cell included) a byte codes.
const NARROW_MOST: usize = 1 << 8;

/// A solved tier's cells, by index.
pub enum Cells {
    /// A byte each: the cell's code in `table`.
    Narrow {
        /// The outcome of each code; code 0 is no position.
        table: Vec<Option<Outcome>>,
        /// The cell of each code.
        cells: Vec<Cell>,
        /// The code of each raw cell value in `table`.
        code_of: Vec<u8>,
        /// The codes, by index.
        codes: Vec<u8>,
    },
    /// Two bytes each.
    Wide(Vec<Cell>),
}

impl Cells {
    /// Room for `len` unknown cells, to be set to cells of `dictionary`
    /// (the tier's distinct cells): a byte each if they are few enough.
    pub fn new(len: usize, dictionary: &[Cell]) -> Cells {
        let distinct = distinct(dictionary);
        if distinct.len() > NARROW_MOST {
            return Cells::Wide(crate::huge::vec(len, |_| Cell::UNKNOWN));
        }
        let mut code_of = vec![0; 1 << 16];
        for (code, cell) in distinct.iter().enumerate() {
            code_of[usize::from(cell.bits())] = code as u8;
        }
        Cells::Narrow {
            table: distinct.iter().map(|c| c.unpack()).collect(),
            cells: distinct,
            code_of,
            codes: crate::huge::vec(len, |_| 0),
        }
    }

    /// Bytes a cell takes when the tier's distinct cells are `dictionary`.
    pub fn width(dictionary: &[Cell]) -> u64 {
        if distinct(dictionary).len() > NARROW_MOST {
            2
        } else {
            1
        }
    }

    /// Sets the cell at `index` to `cell`, one of the dictionary's cells
    /// (another reads back as no position in narrow cells).
    pub fn set(&mut self, index: usize, cell: Cell) {
        match self {
            Cells::Wide(cells) => cells[index] = cell,
            Cells::Narrow { code_of, codes, .. } => {
                codes[index] = code_of[usize::from(cell.bits())];
            }
        }
    }

    /// The cell at `index` ([`Cell::UNKNOWN`] past the end): unlike
    /// [`Cells::outcome`], it tells a cell whose remoteness the shard
    /// leaves out ([`Cell::left_out`]) from no position.
    #[inline]
    pub fn cell(&self, index: usize) -> Cell {
        match self {
            Cells::Wide(cells) => cells.get(index).copied().unwrap_or(Cell::UNKNOWN),
            Cells::Narrow { cells, codes, .. } => codes
                .get(index)
                .map_or(Cell::UNKNOWN, |&code| cells[usize::from(code)]),
        }
    }

    /// Asks for the cell at `index` to be fetched into the cache, to be
    /// read soon ([`crate::prefetch()`]).
    #[inline]
    pub fn prefetch(&self, index: usize) {
        let _ = match self {
            Cells::Wide(cells) => cells.get(index).map(crate::prefetch::prefetch),
            Cells::Narrow { codes, .. } => codes.get(index).map(crate::prefetch::prefetch),
        };
    }

    /// The outcome at `index`, if a position has it.
    #[inline]
    pub fn outcome(&self, index: usize) -> Option<Outcome> {
        match self {
            Cells::Wide(cells) => cells.get(index)?.unpack(),
            Cells::Narrow { table, codes, .. } => table[usize::from(*codes.get(index)?)],
        }
    }
}

/// The distinct cells of `dictionary` and the unknown cell, the unknown
/// cell first.
fn distinct(dictionary: &[Cell]) -> Vec<Cell> {
    let mut distinct = vec![Cell::UNKNOWN];
    distinct.extend(dictionary.iter().filter(|&&c| c != Cell::UNKNOWN));
    distinct[1..].sort_unstable_by_key(|c| c.bits());
    distinct.dedup();
    distinct
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;

    fn cells_of(outcomes: &[Option<Outcome>]) -> Vec<Cell> {
        outcomes
            .iter()
            .map(|o| o.map_or(Cell::UNKNOWN, Cell::pack))
            .collect()
    }

    #[test]
    fn a_byte_each_reads_back_what_was_set_up_to_256_distinct_cells() {
        // 255 outcomes and the unknown cell: remoteness far past 6 bits.
        let mut outcomes = vec![None, Some(Outcome::DRAW)];
        outcomes.extend((0..127).map(|r| Some(Outcome::win(2 * r + 1))));
        outcomes.extend((0..126).map(|r| Some(Outcome::lose(2 * r))));
        outcomes.push(Some(Outcome::tie(3000)));
        let dictionary = cells_of(&outcomes);
        assert_eq!(dictionary.len(), 256);
        let mut cells = Cells::new(outcomes.len(), &dictionary);
        assert!(matches!(cells, Cells::Narrow { .. }));
        assert_eq!(Cells::width(&dictionary), 1);
        for (i, &cell) in dictionary.iter().enumerate().rev() {
            cells.set(i, cell);
        }
        for (i, o) in outcomes.iter().enumerate() {
            assert_eq!(cells.outcome(i), *o, "{i}");
        }
        assert_eq!(cells.outcome(outcomes.len()), None);
        assert_eq!(cells.cell(outcomes.len()), Cell::UNKNOWN);
    }

    #[test]
    fn a_left_out_cell_reads_back_as_itself_not_as_no_position() {
        let dictionary = [
            Cell::UNKNOWN,
            Cell::pack(Outcome::DRAW),
            Cell::left_out(Value::Win).unwrap(),
            Cell::pack(Outcome::lose(4)),
        ];
        for wide in [false, true] {
            let mut cells = if wide {
                Cells::Wide(vec![Cell::UNKNOWN; dictionary.len()])
            } else {
                Cells::new(dictionary.len(), &dictionary)
            };
            for (i, &cell) in dictionary.iter().enumerate().rev() {
                cells.set(i, cell);
            }
            for (i, &cell) in dictionary.iter().enumerate() {
                assert_eq!(cells.cell(i), cell, "{i}, wide {wide}");
                assert_eq!(cells.outcome(i), cell.unpack(), "{i}, wide {wide}");
            }
            assert_eq!(cells.outcome(2), None);
        }
    }

    #[test]
    fn more_than_256_distinct_cells_take_two_bytes_each() {
        let mut outcomes = vec![None];
        outcomes.extend((0..256).map(|r| Some(Outcome::win(r))));
        let dictionary = cells_of(&outcomes);
        let mut cells = Cells::new(outcomes.len(), &dictionary);
        assert!(matches!(cells, Cells::Wide(_)));
        assert_eq!(Cells::width(&dictionary), 2);
        for (i, &cell) in dictionary.iter().enumerate() {
            cells.set(i, cell);
        }
        for (i, o) in outcomes.iter().enumerate() {
            assert_eq!(cells.outcome(i), *o);
            assert_eq!(cells.cell(i), dictionary[i]);
        }
    }
}
