//! The README's Speed table is copied from BENCHMARKS.md's summary: every
//! README row must stand in that table with the same first four cells
//! (what, ply, baseline, ratio), and every row of BENCHMARKS.md's tables
//! must name a command and a date.

use std::path::Path;

fn read(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(name),
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The cells of the table rows in `text` between `from` and the next `## `.
fn rows(text: &str, from: &str) -> Vec<Vec<String>> {
    let start = text.find(from).unwrap_or_else(|| panic!("no {from}"));
    let section = &text[start + from.len()..];
    let section = &section[..section.find("\n## ").unwrap_or(section.len())];
    section
        .lines()
        .filter(|l| l.starts_with('|') && !l.starts_with("|---") && !l.starts_with("| what"))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

#[test]
fn the_readme_speed_rows_come_from_benchmarks_md() {
    let readme = rows(&read("README.md"), "## Speed");
    let summary = rows(&read("BENCHMARKS.md"), "## Summary");
    assert!(readme.len() >= 10, "{} rows", readme.len());
    for row in &readme {
        assert_eq!(row.len(), 4, "{row:?}");
        assert!(
            summary.iter().any(|s| s[..4] == row[..]),
            "README row not in BENCHMARKS.md's summary: {row:?}"
        );
    }
}

#[test]
fn every_benchmarks_row_has_a_command_and_a_date() {
    let text = read("BENCHMARKS.md");
    let mut checked = 0;
    let lines: Vec<&str> = text.lines().collect();
    for (at, line) in lines.iter().enumerate() {
        if !line.starts_with('|') || line.starts_with("|---") {
            continue;
        }
        // A table's header is the row its `|---` line follows.
        if lines
            .get(at + 1)
            .is_some_and(|next| next.starts_with("|---"))
        {
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let date = cells.last().copied().unwrap_or_default();
        let command = cells[cells.len() - 2];
        assert!(
            date.len() == 10 && date.starts_with("2026-") && command.contains('`'),
            "a row without a command and a date: {line}"
        );
        checked += 1;
    }
    assert!(checked >= 15, "{checked} rows");
}
