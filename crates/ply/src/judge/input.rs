//! Reading contest input line by line, keeping line numbers for errors.

use crate::error::PlyError;
use std::io::BufRead;

/// Contest input read line by line. Every error names the 1-based line.
pub struct Lines<'a> {
    reader: &'a mut dyn BufRead,
    buffer: String,
    number: usize,
}

impl<'a> Lines<'a> {
    /// Reads from `reader`.
    pub fn new(reader: &'a mut dyn BufRead) -> Self {
        Self {
            reader,
            buffer: String::new(),
            number: 0,
        }
    }

    /// The next line without its line ending (`\n` or `\r\n`), or `None` at
    /// the end of input.
    pub fn next_line(&mut self) -> Result<Option<&str>, PlyError> {
        self.buffer.clear();
        let read = self.reader.read_line(&mut self.buffer).map_err(|err| {
            if err.kind() == std::io::ErrorKind::InvalidData {
                PlyError::input(self.number + 1, "the line is not valid UTF-8 text")
            } else {
                PlyError::Io(err)
            }
        })?;
        if read == 0 {
            return Ok(None);
        }
        self.number += 1;
        Ok(Some(self.buffer.trim_end_matches(['\n', '\r'])))
    }

    /// The next line, or an error saying what was `expected` instead of the end.
    pub fn expect_line(&mut self, expected: &str) -> Result<&str, PlyError> {
        let number = self.number + 1;
        self.next_line()?
            .ok_or_else(|| PlyError::input(number, format!("input ended; expected {expected}")))
    }

    /// The number of the line read last (0 before the first).
    pub fn number(&self) -> usize {
        self.number
    }

    /// An input error at the line read last.
    pub fn error(&self, message: impl Into<String>) -> PlyError {
        PlyError::input(self.number, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_that_is_not_utf8_names_its_line() {
        let mut text: &[u8] = b"3\n\xff\n";
        let mut lines = Lines::new(&mut text);
        assert_eq!(lines.next_line().unwrap(), Some("3"));
        let err = lines.next_line().unwrap_err();
        assert_eq!(
            err.to_string(),
            "input line 2: the line is not valid UTF-8 text"
        );
    }

    #[test]
    fn numbers_lines_and_strips_line_endings() {
        let mut text: &[u8] = b"3\r\n\nabc";
        let mut lines = Lines::new(&mut text);
        assert_eq!(lines.next_line().unwrap(), Some("3"));
        assert_eq!(lines.next_line().unwrap(), Some(""));
        assert_eq!(lines.expect_line("a board").unwrap(), "abc");
        assert_eq!(lines.number(), 3);
        let err = lines.expect_line("a board").unwrap_err();
        assert_eq!(
            err.to_string(),
            "input line 4: input ended; expected a board"
        );
    }
}
