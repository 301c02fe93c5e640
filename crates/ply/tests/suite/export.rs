//! `ply export`: the file it writes, read back with the parquet crate (or
//! as CSV text), holds one row per stored position, and every row agrees
//! with `ply solve` on that position.

use crate::common;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int8Type, UInt16Type, UInt64Type};
use arrow_array::{Array, RecordBatch, StringArray};
use common::cli::scratch_dir;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use ply::report::SolveReport;
use std::path::Path;
use std::process::Command;

/// One exported row.
#[derive(Clone, Debug, PartialEq)]
struct Row {
    key: u64,
    position: String,
    value: String,
    remoteness: Option<u16>,
    best: Vec<String>,
    board: Vec<i8>,
}

fn export(game: &str, format: &str, out: &Path) -> String {
    let out = out.to_str().unwrap();
    ply_ok(&["export", game, "--format", format, "--out", out, "--no-db"])
}

/// What `ply ARGS` printed, asserting that it succeeded.
fn ply_ok(args: &[&str]) -> String {
    let done = Command::new(env!("CARGO_BIN_EXE_ply"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        done.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&done.stderr)
    );
    String::from_utf8(done.stdout).unwrap()
}

fn rows_of(batch: &RecordBatch) -> Vec<Row> {
    let keys = batch.column(0).as_primitive::<UInt64Type>();
    let positions = batch.column(1).as_string::<i32>();
    let values = batch.column(2).as_dictionary::<Int8Type>();
    let names = values.values().as_string::<i32>();
    let remoteness = batch.column(3).as_primitive::<UInt16Type>();
    let best = batch.column(4).as_list::<i32>();
    let board = batch
        .column_by_name("board")
        .map(|b| b.as_fixed_size_binary());
    (0..batch.num_rows())
        .map(|i| Row {
            key: keys.value(i),
            position: positions.value(i).to_string(),
            value: names.value(values.keys().value(i) as usize).to_string(),
            remoteness: remoteness.is_valid(i).then(|| remoteness.value(i)),
            best: best
                .value(i)
                .as_any()
                .downcast_ref::<StringArray>()
                .unwrap()
                .iter()
                .map(|m| m.unwrap().to_string())
                .collect(),
            board: board.map_or(Vec::new(), |b| {
                b.value(i).iter().map(|&c| c as i8).collect()
            }),
        })
        .collect()
}

fn read_parquet(path: &Path) -> Vec<Row> {
    let file = std::fs::File::open(path).unwrap();
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    reader.flat_map(|batch| rows_of(&batch.unwrap())).collect()
}

/// The moves of a report that achieve its value and remoteness, found
/// from the report's own list of moves.
fn best_moves(report: &SolveReport) -> Vec<String> {
    report
        .moves
        .iter()
        .filter(|m| m.outcome().through_move() == report.outcome())
        .map(|m| m.name.clone())
        .collect()
}

/// The board codes of a position's text, cell by cell: each character of
/// its first `cells` squares (rows joined by `/`) looked up in `legend`,
/// code 0 first.
fn codes_of(text: &str, legend: &str, cells: usize) -> Vec<i8> {
    text.chars()
        .filter(|&c| c != '/')
        .take(cells)
        .map(|c| legend.find(c).unwrap_or_else(|| panic!("{text}: '{c}'")) as i8)
        .collect()
}

/// The file at `path` has the board legend `legend_json`, and each row's
/// board holds the codes of its text's `cells` squares, `chars` naming
/// code 0 first.
fn check_boards(path: &Path, rows: &[Row], legend_json: &str, chars: &str, cells: usize) {
    assert_eq!(legend(path).as_deref(), Some(legend_json));
    for row in rows {
        assert_eq!(row.board.len(), cells, "{}", row.position);
        assert_eq!(
            row.board,
            codes_of(&row.position, chars, cells),
            "{}",
            row.position
        );
    }
}

/// The legend in a Parquet file's schema metadata.
fn legend(path: &Path) -> Option<String> {
    let file = std::fs::File::open(path).unwrap();
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    builder.schema().metadata().get("ply.board").cloned()
}

/// Every row agrees with `ply solve` (through the same session the command
/// opens), and the keys are the stored keys, increasing.
fn check_rows(game: &str, rows: &[Row]) {
    let session = ply::registry::open(game).unwrap();
    let solved = session.rows(&ply_core::NoProgress).unwrap().unwrap();
    let mut stored = Vec::new();
    let solution = solved.solution();
    solution
        .for_each_cell(0..solution.index_len(), &mut |key, _| stored.push(key))
        .unwrap();
    assert_eq!(rows.iter().map(|r| r.key).collect::<Vec<_>>(), stored);
    assert!(!rows.is_empty());
    for row in rows {
        let report = session.solve(Some(&row.position)).unwrap();
        assert_eq!(report.position, row.position);
        assert_eq!(report.value.as_str(), row.value, "{}", row.position);
        assert_eq!(
            report.remoteness.map(|r| r as u16),
            row.remoteness,
            "{}",
            row.position
        );
        assert_eq!(best_moves(&report), row.best, "{}", row.position);
        // Every move leaving a position that is not over is best or not.
        if report.moves.is_empty() {
            assert!(row.best.is_empty());
        } else {
            assert!(!row.best.is_empty(), "{}", row.position);
        }
    }
}

#[test]
fn lgame_parquet_agrees_with_ply_solve() {
    let dir = scratch_dir("lgame");
    let path = dir.join("lgame.parquet");
    let said = export("lgame", "parquet", &path);
    let rows = read_parquet(&path);
    assert_eq!(
        said.trim(),
        format!(
            "exported {} positions of lgame to {} ({} bytes)",
            rows.len(),
            path.display(),
            std::fs::metadata(&path).unwrap().len()
        )
    );
    check_rows("lgame", &rows);
    // The board column: one code per square, as the text has them.
    check_boards(
        &path,
        &rows,
        r##"{"codes":{"0":"empty","1":"# L","2":"* L","3":"neutral piece"},"cols":4,"rows":4}"##,
        ".#*x",
        16,
    );
    // Without moves: the same rows, four columns.
    let bare = dir.join("bare.csv");
    let done = Command::new(env!("CARGO_BIN_EXE_ply"))
        .args(["export", "lgame", "--format", "csv", "--no-moves", "--out"])
        .arg(&bare)
        .output()
        .unwrap();
    assert!(done.status.success());
    let text = std::fs::read_to_string(&bare).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "key,position,value,remoteness,board");
    assert_eq!(lines.len(), rows.len() + 1);
    for (line, row) in lines[1..].iter().zip(&rows) {
        let remoteness = row.remoteness.map_or(String::new(), |r| r.to_string());
        let board: Vec<String> = row.board.iter().map(i8::to_string).collect();
        assert_eq!(
            *line,
            format!(
                "{},{},{},{remoteness},{}",
                row.key,
                row.position,
                row.value,
                board.join(" ")
            )
        );
    }
    // Draws have no remoteness; the L game has draws.
    assert!(
        rows.iter()
            .any(|r| r.value == "draw" && r.remoteness.is_none())
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn euler_parquet_and_csv_agree_with_ply_solve() {
    let dir = scratch_dir("euler");
    let parquet = dir.join("e.parquet");
    let csv = dir.join("e.csv");
    export("euler:3x4", "parquet", &parquet);
    export("euler:3x4", "csv", &csv);
    let rows = read_parquet(&parquet);
    check_rows("euler:3x4", &rows);
    check_boards(
        &parquet,
        &rows,
        r#"{"codes":{"0":"empty","1":"pin"},"cols":4,"rows":3}"#,
        ".X",
        12,
    );
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("key,position,value,remoteness,best_moves,board")
    );
    let from_csv: Vec<Row> = lines
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            assert_eq!(f.len(), 6, "{line}");
            Row {
                key: f[0].parse().unwrap(),
                position: f[1].to_string(),
                value: f[2].to_string(),
                remoteness: (!f[3].is_empty()).then(|| f[3].parse().unwrap()),
                best: f[4].split_whitespace().map(str::to_string).collect(),
                board: f[5].split(' ').map(|c| c.parse().unwrap()).collect(),
            }
        })
        .collect();
    assert_eq!(from_csv, rows);
    // Only the two files: no temporary file is left behind.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
    std::fs::remove_dir_all(dir).unwrap();
}

/// The mirror image of a Connect Four board's text: each row reversed.
fn mirrored(text: &str) -> String {
    text.split('/')
        .map(|row| row.chars().rev().collect::<String>())
        .collect::<Vec<_>>()
        .join("/")
}

/// Connect Four, solved tier by tier: a row for one of each mirror pair of
/// 4x4's 161,029 positions (Tromp's count, every position legal play
/// reaches, the start included), as its database holds them, each
/// agreeing with `ply solve`, and each board the codes of its text: 0
/// empty, 1 an `x` disc, 2 an `o` disc, row-major from the top.
#[test]
fn connect4_parquet_has_a_row_and_a_board_per_position() {
    let game = "connect4:4x4";
    let dir = scratch_dir("connect4");
    let path = dir.join("c4.parquet");
    let said = export(game, "parquet", &path);
    let rows = read_parquet(&path);
    assert!(
        said.starts_with(&format!(
            "exported {} positions of connect4:4x4",
            rows.len()
        )),
        "{said}"
    );
    // Every position once: no two rows share a key or a position, no row
    // is another's mirror image, and the rows and their images are every
    // position.
    let positions: std::collections::HashSet<&str> =
        rows.iter().map(|r| r.position.as_str()).collect();
    assert_eq!(positions.len(), rows.len());
    let images: Vec<String> = rows.iter().map(|r| mirrored(&r.position)).collect();
    let both: std::collections::HashSet<&str> = positions
        .iter()
        .copied()
        .chain(images.iter().map(String::as_str))
        .collect();
    assert_eq!(both.len(), 161_029);
    assert_eq!(
        both.len(),
        2 * rows.len()
            - images
                .iter()
                .zip(&rows)
                .filter(|(m, r)| **m == r.position)
                .count()
    );
    check_rows(game, &rows);
    check_boards(
        &path,
        &rows,
        r#"{"codes":{"0":"empty","1":"x (first)","2":"o (second)"},"cols":4,"rows":4}"#,
        ".xo",
        16,
    );
    // A few rows by hand: discs at the bottom of the board are its last row.
    // A position's row is its own or its mirror image's.
    let row = |text: &str| {
        let image = mirrored(text);
        let found = rows.iter().find(|r| r.position == text);
        found.map_or_else(
            || {
                let r = rows.iter().find(|r| r.position == image).unwrap();
                Row {
                    position: text.to_string(),
                    board: r
                        .board
                        .chunks(4)
                        .flat_map(|row| row.iter().rev().copied())
                        .collect(),
                    ..r.clone()
                }
            },
            Row::clone,
        )
    };
    let start = row("..../..../..../....");
    assert_eq!((start.value.as_str(), start.remoteness), ("tie", Some(16)));
    assert_eq!(start.board, [0; 16]);
    let first = row("..../..../..../x...");
    assert_eq!(first.board[12..], [1, 0, 0, 0]);
    assert!(first.board[..12].iter().all(|&c| c == 0));
    // `1213` on the board: x at the bottom of columns 1 and 3, o on
    // column 1 and at the bottom of column 2.
    let mixed = row("..../..../o.../xox.");
    assert_eq!(
        mixed.board,
        [0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 2, 1, 0]
    );
    // Four x discs down column 1: lost for o, the player to move, at once.
    let won = row("x.../xo../xo../xo..");
    assert_eq!((won.value.as_str(), won.remoteness), ("lose", Some(0)));
    assert!(won.best.is_empty());
    // From a saved database, which leaves out one side's remoteness: the
    // same rows, every left-out remoteness found again.
    let db = dir.join("db");
    let db = db.to_str().unwrap();
    ply_ok(&["analyze", game, "--save", "--json", "--db-dir", db]);
    let stored = dir.join("stored.parquet");
    let out = stored.to_str().unwrap();
    ply_ok(&[
        "export", game, "--format", "parquet", "--db-dir", db, "--out", out,
    ]);
    assert_eq!(read_parquet(&stored), rows);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn games_without_a_table_are_refused_and_leave_no_file() {
    let dir = scratch_dir("refused");
    let path = dir.join("t.parquet");
    let done = Command::new(env!("CARGO_BIN_EXE_ply"))
        .args(["export", "tictactoe:5x5x4", "--format", "parquet", "--out"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(done.status.code(), Some(2));
    let err = String::from_utf8_lossy(&done.stderr);
    assert!(err.contains("keeps no table to export"), "{err}");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    std::fs::remove_dir_all(dir).unwrap();
}

/// The temporary files (`NAME.tmp-PID`) in `dir`.
#[cfg(unix)]
fn temporary_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains(".tmp-"))
        .collect()
}

/// `ply export` stopped by SIGTERM or SIGINT while it writes (its temporary
/// file is there) stops as cancelled, removes its temporary file and leaves
/// the file already at `--out` as it was.
#[cfg(unix)]
#[test]
fn a_killed_export_leaves_no_temporary_file_and_the_old_file_intact() {
    let dir = common::cli::Scratch::new("export-killed");
    let out = dir.0.join("euler.parquet");
    for signal in ["TERM", "INT"] {
        std::fs::write(&out, "the export before").unwrap();
        // euler:5x5 solves in about a second; its 33.5 M rows with best
        // moves take many more to write: time enough to be stopped.
        let mut export = Command::new(env!("CARGO_BIN_EXE_ply"))
            .args([
                "export",
                "euler:5x5",
                "--format",
                "parquet",
                "--no-db",
                "--out",
            ])
            .arg(&out)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        while temporary_files(&dir.0).is_empty() {
            assert!(
                export.try_wait().unwrap().is_none(),
                "the export ended before it was stopped"
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let sent = Command::new("kill")
            .args(["-s", signal, &export.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success(), "kill -s {signal}");
        let done = export.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&done.stderr);
        assert_eq!(done.status.code(), Some(2), "SIG{signal}: {err}");
        assert!(
            err.contains("stopped: exporting euler:5x5"),
            "SIG{signal}: {err}"
        );
        assert_eq!(temporary_files(&dir.0), Vec::<String>::new(), "SIG{signal}");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "the export before");
    }
}

/// The temporary file a killed export could not remove (SIGKILL) is removed
/// by the next export to the same file; that of a running process is not.
#[cfg(target_os = "linux")]
#[test]
fn the_next_export_removes_the_temporary_file_of_a_dead_one() {
    let dir = common::cli::Scratch::new("export-stale");
    let out = dir.0.join("lgame.parquet");
    let mut gone = Command::new("true").spawn().unwrap();
    let dead = gone.id();
    gone.wait().unwrap();
    let stale = dir.0.join(format!("lgame.parquet.tmp-{dead}"));
    let running = dir
        .0
        .join(format!("lgame.parquet.tmp-{}", std::process::id()));
    let other = dir.0.join(format!("other.parquet.tmp-{dead}"));
    for file in [&stale, &running, &other] {
        std::fs::write(file, "half an export").unwrap();
    }
    export("lgame", "parquet", &out);
    assert!(!stale.exists(), "the dead export's file is left");
    assert!(running.exists() && other.exists());
    assert!(!read_parquet(&out).is_empty());
}
