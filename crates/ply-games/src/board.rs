//! Rectangular boards: their size, square names, and symmetries.

use ply_core::PositionError;

/// The most squares a board may have: one bit each in a `u64`.
pub const MAX_SQUARES: usize = 64;

/// The size of a rectangular board, at most [`MAX_SQUARES`] squares.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    /// Number of rows.
    pub rows: u8,
    /// Number of columns.
    pub cols: u8,
}

/// The symmetries of a board of at most 32 squares, applied to masks of
/// squares by table: for each symmetry, the image of every byte of a mask
/// at each of its four byte positions, so a mask maps with four lookups.
#[derive(Clone, Debug)]
pub struct MaskImages {
    tables: Vec<[[u32; 256]; 4]>,
}

impl MaskImages {
    /// How many symmetries there are (the identity first).
    pub fn len(&self) -> usize {
        self.tables.len()
    }

    /// Whether there is no symmetry at all (never, for a real board).
    pub fn is_empty(&self) -> bool {
        self.tables.is_empty()
    }

    /// The image of the squares `mask` under symmetry `symmetry`.
    #[inline]
    pub fn image(&self, symmetry: usize, mask: u32) -> u32 {
        let table = &self.tables[symmetry];
        table[0][(mask & 0xFF) as usize]
            | table[1][(mask >> 8 & 0xFF) as usize]
            | table[2][(mask >> 16 & 0xFF) as usize]
            | table[3][(mask >> 24) as usize]
    }
}

impl Shape {
    /// A shape, if it has between 1 and [`MAX_SQUARES`] squares.
    pub fn new(rows: u8, cols: u8) -> Result<Self, PositionError> {
        Self::from_dimensions(u64::from(rows), u64::from(cols))
    }

    /// A shape of `rows` x `cols` as read from a game's parameters, if it
    /// has between 1 and [`MAX_SQUARES`] squares.
    pub fn from_dimensions(rows: u64, cols: u64) -> Result<Self, PositionError> {
        let fits = |n: u64| u8::try_from(n).ok().filter(|&n| n > 0);
        match (fits(rows), fits(cols)) {
            (Some(r), Some(c)) if rows * cols <= MAX_SQUARES as u64 => {
                Ok(Self { rows: r, cols: c })
            }
            _ => Err(PositionError::parameters(format!(
                "a {rows}x{cols} board is not supported (1 to {MAX_SQUARES} squares)"
            ))),
        }
    }

    /// Number of squares.
    pub fn squares(self) -> usize {
        usize::from(self.rows) * usize::from(self.cols)
    }

    /// The square at row `r`, column `c`, numbered row-major from the top left.
    pub fn square(self, r: usize, c: usize) -> usize {
        r * usize::from(self.cols) + c
    }

    /// The name of a square: column letters, then row number from 1 at the
    /// top (`a1` is the top-left square). Columns past `z` are named like
    /// spreadsheet columns: `aa`, `ab`, ... (a board has at most 64).
    pub fn square_name(self, square: usize) -> String {
        let cols = usize::from(self.cols);
        format!("{}{}", column_name(square % cols), square / cols + 1)
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

    /// Tables that map a mask of this board's squares (at most 32) under
    /// each of its [`Shape::symmetries`].
    pub fn mask_images(self) -> MaskImages {
        MaskImages {
            tables: self
                .symmetries()
                .iter()
                .map(|map| {
                    let mut tables = [[0u32; 256]; 4];
                    for (position, table) in tables.iter_mut().enumerate() {
                        for (byte, image) in table.iter_mut().enumerate() {
                            for bit in 0..8 {
                                let square = position * 8 + bit;
                                if byte >> bit & 1 == 1 && square < map.len() {
                                    *image |= 1 << map[square];
                                }
                            }
                        }
                    }
                    tables
                })
                .collect(),
        }
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

/// The letters naming column `c` (from 0): `a` to `z`, then `aa`, `ab`, ...
fn column_name(c: usize) -> String {
    let letter = |n: usize| char::from(b'a' + (n % 26) as u8);
    if c < 26 {
        letter(c).to_string()
    } else {
        format!("{}{}", letter(c / 26 - 1), letter(c))
    }
}

/// Reads numbers joined by `x`, such as `5x5x4`: one for each of `names`
/// (what each number is, for errors), of which the last `optional` may be
/// left out. Says which number is wrong and why.
pub fn parse_dimensions(
    params: &str,
    names: &[&str],
    optional: usize,
) -> Result<Vec<u64>, PositionError> {
    let parts: Vec<&str> = params.split('x').collect();
    let fewest = names.len() - optional;
    if parts.len() < fewest || parts.len() > names.len() {
        let form: Vec<String> = names
            .iter()
            .map(|n| n.to_uppercase().replace(' ', "_"))
            .collect();
        let form = form.join("x");
        let count = if optional == 0 {
            format!("{}", names.len())
        } else {
            format!("{fewest} to {}", names.len())
        };
        return Err(PositionError::parameters(format!(
            "bad parameters: expected {count} numbers joined by 'x' ({form}), found {}",
            parts.len()
        )));
    }
    parts
        .iter()
        .zip(names)
        .map(|(part, name)| parse_number(part, name))
        .collect()
}

/// Reads one parameter that is a number of decimal digits (no sign, no
/// spaces); `name` says what it is, for the error.
pub fn parse_number(part: &str, name: &str) -> Result<u64, PositionError> {
    let mut shown: String = part.chars().take(20).collect();
    if part.chars().count() > 20 {
        shown.push_str("...");
    }
    if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
        return Err(PositionError::parameters(format!(
            "{name} '{}' is not a number",
            shown.escape_debug()
        )));
    }
    part.parse::<u64>()
        .map_err(|_| PositionError::parameters(format!("{name} {shown} is far too large")))
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

    #[test]
    fn square_names_past_z_take_two_letters() {
        let shape = Shape::new(1, 64).unwrap();
        let names: Vec<String> = (0..64).map(|s| shape.square_name(s)).collect();
        assert_eq!(names[25], "z1");
        assert_eq!(names[26], "aa1");
        assert_eq!(names[27], "ab1");
        assert_eq!(names[51], "az1");
        assert_eq!(names[52], "ba1");
        assert_eq!(names[63], "bl1");
        let mut distinct = names.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 64);
        assert!(
            names
                .iter()
                .all(|n| n.bytes().all(|b| b.is_ascii_alphanumeric()))
        );
    }

    #[test]
    fn parameters_errors_name_the_number_at_fault() {
        let names = ["rows", "columns", "longest pin"];
        assert_eq!(parse_dimensions("4x4", &names, 1).unwrap(), [4, 4]);
        assert_eq!(parse_dimensions("4x4x256", &names, 1).unwrap(), [4, 4, 256]);
        let error = |p: &str| parse_dimensions(p, &names, 1).unwrap_err().to_string();
        assert!(
            error("4").contains("expected 2 to 3 numbers"),
            "{}",
            error("4")
        );
        assert!(error("4x4x4x4").contains("found 4"));
        assert!(error("4xax4").contains("columns 'a' is not a number"));
        assert!(error("4x4x99999999999999999999999").contains("longest pin"));
        assert!(error(&"9".repeat(10_000)).len() < 200);
        assert!(
            Shape::from_dimensions(300, 1)
                .unwrap_err()
                .to_string()
                .contains("300x1")
        );
        assert!(Shape::from_dimensions(0, 5).is_err());
        assert!(Shape::from_dimensions(1 << 40, 1 << 40).is_err());
    }
}
