//! `ply octal CODE --up-to N`: the Grundy values of an octal game, its
//! second-player wins, and its period once the periodicity theorem proves it.

use crate::error::PlyError;
use ply_core::Progress;
use ply_core::solve::octal::{self, OctalCode, OctalValues};
use serde::Serialize;
use std::fmt::Write as _;

/// What `ply octal` prints. Its JSON shape is part of the command contract.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OctalReport {
    /// The code as given.
    pub code: String,
    /// The largest heap computed.
    pub up_to: usize,
    /// Heaps of value 0, ascending.
    pub zeros: Vec<usize>,
    /// The largest value.
    pub max: u32,
    /// The period, once proved; null before.
    pub period: Option<PeriodReport>,
    /// Every value, heap 0 first, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<u16>>,
}

/// A proved period.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PeriodReport {
    /// The least period.
    pub period: usize,
    /// The first heap from which the values repeat.
    pub preperiod: usize,
}

/// The largest heap `ply octal` computes without `--up-to`: well past
/// where the periods of the classic short codes are proved, and a fraction
/// of a second for any code.
pub const DEFAULT_UP_TO: usize = 10_000;

/// Zeros the text report lists before saying how many more there are.
const ZEROS_SHOWN: usize = 40;
/// Values on one line of the text report.
const VALUES_PER_LINE: usize = 10;

impl OctalReport {
    /// Computes the values of `code` for heaps up to `up_to`.
    pub fn compute(
        code: &str,
        up_to: usize,
        with_values: bool,
        progress: &dyn Progress,
    ) -> Result<Self, PlyError> {
        let code = OctalCode::parse(code).map_err(|e| PlyError::argument(e.to_string()))?;
        let values = octal::compute(&code, up_to, progress)
            .map_err(|e| PlyError::solve(format!("octal {}", code.text()), e))?;
        Ok(Self::from_values(&values, with_values))
    }

    /// The report on computed values.
    pub fn from_values(values: &OctalValues, with_values: bool) -> Self {
        Self {
            code: values.code.text().to_string(),
            up_to: values.up_to(),
            zeros: values.zeros(),
            max: values.max(),
            period: values.period.map(|p| PeriodReport {
                period: p.period,
                preperiod: p.preperiod,
            }),
            values: with_values.then(|| values.values.clone()),
        }
    }

    /// The report as text for a person.
    pub fn to_text(&self) -> String {
        let mut text = String::new();
        let _ = writeln!(text, "code      {}", self.code);
        let _ = writeln!(text, "up to     {}", self.up_to);
        let _ = writeln!(text, "max       {}", self.max);
        let shown: Vec<String> = self
            .zeros
            .iter()
            .take(ZEROS_SHOWN)
            .map(usize::to_string)
            .collect();
        let more = match self.zeros.len().saturating_sub(ZEROS_SHOWN) {
            0 => String::new(),
            n => format!(" ... and {n} more (--json lists all)"),
        };
        let _ = writeln!(
            text,
            "zeros     {} heaps: {}{more}",
            self.zeros.len(),
            shown.join(" ")
        );
        match self.period {
            Some(p) => {
                let _ = writeln!(
                    text,
                    "period    {} from heap {} (proved by the octal periodicity theorem)",
                    p.period, p.preperiod
                );
            }
            None => {
                let _ = writeln!(
                    text,
                    "period    none proved up to heap {} (the theorem needs more heaps, or there is none)",
                    self.up_to
                );
            }
        }
        if let Some(values) = &self.values {
            let _ = writeln!(text, "values");
            let width = self.up_to.to_string().len();
            for (line, chunk) in values.chunks(VALUES_PER_LINE).enumerate() {
                let row: Vec<String> = chunk.iter().map(u16::to_string).collect();
                let _ = writeln!(
                    text,
                    "  {:>width$}: {}",
                    line * VALUES_PER_LINE,
                    row.join(" ")
                );
            }
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ply_core::NoProgress;

    #[test]
    fn kayles_report() {
        let report = OctalReport::compute("0.77", 200, true, &NoProgress).unwrap();
        assert_eq!(report.zeros, [0]);
        assert_eq!(report.max, 8);
        assert_eq!(
            report.period,
            Some(PeriodReport {
                period: 12,
                preperiod: 71
            })
        );
        let json = serde_json::to_string(&report).unwrap();
        assert!(json.starts_with(
            r#"{"code":"0.77","up_to":200,"zeros":[0],"max":8,"period":{"period":12,"preperiod":71},"values":[0,1,2,3,1,4"#
        ));
        let text = report.to_text();
        assert!(text.contains("period    12 from heap 71"), "{text}");
        assert!(text.contains("\n   10: 2 6 4 1 2 7 1 4 3 2\n"), "{text}");
    }

    #[test]
    fn no_period_is_null_and_bad_codes_are_errors() {
        let report = OctalReport::compute("0.77", 100, false, &NoProgress).unwrap();
        let json = serde_json::to_string(&report).unwrap();
        assert!(json.ends_with(r#""period":null}"#), "{json}");
        let err = OctalReport::compute("0.78", 10, false, &NoProgress).unwrap_err();
        assert!(err.to_string().contains("not an octal digit"), "{err}");
    }
}
