//! Rectangular boards: their size, square names, and symmetries.

use ply_core::PositionError;

/// The size of a rectangular board, at most 64 squares.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    /// Number of rows.
    pub rows: u8,
    /// Number of columns.
    pub cols: u8,
}

impl Shape {
    /// A shape, if it has between 1 and 64 squares.
    pub fn new(rows: u8, cols: u8) -> Result<Self, PositionError> {
        let squares = u32::from(rows) * u32::from(cols);
        if rows == 0 || cols == 0 || squares > 64 {
            return Err(PositionError::new(format!(
                "a {rows}x{cols} board is not supported (1 to 64 squares)"
            )));
        }
        Ok(Self { rows, cols })
    }

    /// Number of squares.
    pub fn squares(self) -> usize {
        usize::from(self.rows) * usize::from(self.cols)
    }

    /// The square at row `r`, column `c`, numbered row-major from the top left.
    pub fn square(self, r: usize, c: usize) -> usize {
        r * usize::from(self.cols) + c
    }

    /// The name of a square: column letter, then row number from 1 at the top
    /// (`a1` is the top-left square).
    pub fn square_name(self, square: usize) -> String {
        let cols = usize::from(self.cols);
        let column = (b'a' + (square % cols) as u8) as char;
        format!("{column}{}", square / cols + 1)
    }

    /// The permutations of squares that map the board onto itself: 8 for a
    /// square board, 4 otherwise. Each maps a square to its image.
    pub fn symmetries(self) -> Vec<Vec<usize>> {
        let (rows, cols) = (usize::from(self.rows), usize::from(self.cols));
        let count = if rows == cols { 8 } else { 4 };
        (0..count)
            .map(|symmetry| {
                (0..rows * cols)
                    .map(|s| {
                        let (r, c) = (s / cols, s % cols);
                        let (r, c) = match symmetry {
                            0 => (r, c),
                            1 => (r, cols - 1 - c),
                            2 => (rows - 1 - r, c),
                            3 => (rows - 1 - r, cols - 1 - c),
                            4 => (c, r),
                            5 => (c, rows - 1 - r),
                            6 => (cols - 1 - c, r),
                            _ => (cols - 1 - c, rows - 1 - r),
                        };
                        r * cols + c
                    })
                    .collect()
            })
            .collect()
    }

    /// Splits a board written as rows joined by `/` into its rows, checking
    /// the number and length of rows.
    pub fn split_rows(self, text: &str) -> Result<Vec<&[u8]>, PositionError> {
        let rows: Vec<&[u8]> = text.split('/').map(str::as_bytes).collect();
        if rows.len() != usize::from(self.rows) {
            return Err(PositionError::new(format!(
                "expected {} rows joined by '/', found {}",
                self.rows,
                rows.len()
            )));
        }
        if let Some((i, row)) = rows
            .iter()
            .enumerate()
            .find(|(_, r)| r.len() != usize::from(self.cols))
        {
            return Err(PositionError::new(format!(
                "row {} has {} characters, expected {}",
                i + 1,
                row.len(),
                self.cols
            )));
        }
        Ok(rows)
    }
}

/// Reads `ROWSxCOLS` (e.g. `5x5`) or `ROWSxCOLSxK` parameters.
pub fn parse_dimensions(params: &str, count: usize) -> Result<Vec<u8>, PositionError> {
    let parts: Vec<&str> = params.split('x').collect();
    let numbers: Option<Vec<u8>> = parts.iter().map(|p| p.parse::<u8>().ok()).collect();
    match numbers {
        Some(n) if n.len() == count => Ok(n),
        _ => Err(PositionError::new(format!(
            "bad parameters '{params}': expected {} numbers joined by 'x'",
            count
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetries_are_permutations() {
        for (rows, cols, count) in [(4, 4, 8), (3, 5, 4), (1, 7, 4)] {
            let shape = Shape::new(rows, cols).unwrap();
            let syms = shape.symmetries();
            assert_eq!(syms.len(), count);
            for map in syms {
                let mut seen = map.clone();
                seen.sort();
                assert_eq!(seen, (0..shape.squares()).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn square_names_start_top_left() {
        let shape = Shape::new(4, 4).unwrap();
        assert_eq!(shape.square_name(0), "a1");
        assert_eq!(shape.square_name(7), "d2");
    }
}
