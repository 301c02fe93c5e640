//! `ply export`: a solved game written as a table with one row per stored
//! position (its key, text, value, remoteness and best moves), as Parquet
//! through the arrow and parquet crates, or as CSV. Rows are built a chunk
//! of keys at a time, chunks in parallel, and written in key order as they
//! come, so memory stays bounded whatever the game's size; the file is
//! written beside its destination and renamed into place when complete.

use crate::error::PlyError;
use crate::session::Session;
use crate::session::rows::{Row, Rows};
use arrow_array::builder::{ListBuilder, StringBuilder, UInt16Builder, UInt64Builder};
use arrow_array::types::Int8Type;
use arrow_array::{
    Array, ArrayRef, DictionaryArray, Int8Array, ListArray, RecordBatch, StringArray, UInt16Array,
    UInt64Array,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use ply_core::db::Keys;
use ply_core::{Cell, Progress, Source, Value};
use rayon::prelude::*;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The file format of an export.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Apache Parquet, zstd-compressed: `value` is a dictionary column,
    /// `best_moves` a list of strings.
    Parquet,
    /// Comma-separated text with a header line; `best_moves` is the move
    /// names joined by spaces.
    Csv,
}

impl Format {
    /// The file name extension for the format.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Parquet => "parquet",
            Format::Csv => "csv",
        }
    }

    /// Reads a format's name (`parquet` or `csv`), as Python passes it.
    pub fn parse(name: &str) -> Result<Format, PlyError> {
        match name {
            "parquet" => Ok(Format::Parquet),
            "csv" => Ok(Format::Csv),
            other => Err(PlyError::argument(format!(
                "unknown export format '{}'; known formats: parquet, csv",
                crate::error::excerpt(other, 40)
            ))),
        }
    }
}

/// What an export wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exported {
    /// The file written.
    pub path: PathBuf,
    /// The rows in it.
    pub rows: u64,
    /// Its size in bytes.
    pub bytes: u64,
}

/// The file `ply export GAME` writes without `--out`: the game's full name
/// (`:` turned into `-`) with the format's extension, in the current
/// directory.
pub fn default_path(game: &str, format: Format) -> PathBuf {
    PathBuf::from(format!("{}.{}", game.replace(':', "-"), format.extension()))
}

/// The names of the columns, in order: `key` (the position's key in the
/// solution: its index, or its class's canonical index), `position`,
/// `value` (`win`, `lose`, `tie` or `draw`, for the player to move),
/// `remoteness` (null for a draw) and `best_moves`.
pub const COLUMNS: [&str; 5] = ["key", "position", "value", "remoteness", "best_moves"];

/// Which columns an export has: all of [`COLUMNS`], or all but
/// `best_moves` (much quicker: no move is generated).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Columns {
    /// Whether the `best_moves` column is written.
    pub best_moves: bool,
}

impl Columns {
    /// How many of [`COLUMNS`] are written.
    fn count(self) -> usize {
        if self.best_moves { 5 } else { 4 }
    }
}

/// Keys per chunk: the unit of parallel work and of a record batch.
const CHUNK: u64 = 1 << 16;

/// The most chunks built at once (two groups are in memory: one being
/// written, the next being built), whatever the number of threads: with
/// rows of a few hundred bytes at most, well under 512 MB.
const MAX_GROUP: u64 = 8;

/// Rows per Parquet row group (a row group is buffered until complete).
const ROW_GROUP: usize = 1 << 20;

/// Writes the strong solution of `session` to `path` in `format`,
/// reporting progress and stopping with [`PlyError::Cancelled`] once
/// `progress` is cancelled. The file appears only when complete.
pub fn export(
    session: &dyn Session,
    format: Format,
    columns: Columns,
    path: &Path,
    progress: &dyn Progress,
) -> Result<Exported, PlyError> {
    let rows = session.rows(progress)?.ok_or_else(|| {
        PlyError::argument(format!(
            "{} keeps no table to export: it is answered by search or theory",
            session.name()
        ))
    })?;
    let tmp = tmp_path(path);
    let written = write_file(&*rows, format, columns, &tmp, progress);
    match written {
        Ok(count) => {
            std::fs::rename(&tmp, path).map_err(|e| {
                let _ = std::fs::remove_file(&tmp);
                PlyError::argument(format!("writing {}: {e}", path.display()))
            })?;
            let bytes = std::fs::metadata(path)?.len();
            Ok(Exported {
                path: path.to_path_buf(),
                rows: count,
                bytes,
            })
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// The temporary file beside `path` that becomes it.
fn tmp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp-{}", std::process::id()));
    path.with_file_name(name)
}

/// Writes every row into a new file at `tmp`, synced to disk; returns the
/// number of rows.
fn write_file(
    rows: &dyn Rows,
    format: Format,
    columns: Columns,
    tmp: &Path,
    progress: &dyn Progress,
) -> Result<u64, PlyError> {
    let file = File::create(tmp)
        .map_err(|e| PlyError::argument(format!("cannot create {}: {e}", tmp.display())))?;
    let mut sink = match format {
        Format::Parquet => {
            let props = WriterProperties::builder()
                .set_compression(Compression::ZSTD(
                    ZstdLevel::try_new(1).map_err(parquet_error)?,
                ))
                .set_max_row_group_row_count(Some(ROW_GROUP))
                .build();
            Sink::Parquet(Box::new(
                ArrowWriter::try_new(BufWriter::new(file), schema(columns), Some(props))
                    .map_err(parquet_error)?,
            ))
        }
        Format::Csv => {
            let mut out = BufWriter::with_capacity(1 << 20, file);
            writeln!(out, "{}", COLUMNS[..columns.count()].join(","))?;
            Sink::Csv(out)
        }
    };
    let count = for_each_batch(rows, columns, progress, |batch| sink.write(batch))?;
    let file = match sink {
        Sink::Parquet(writer) => writer
            .into_inner()
            .map_err(parquet_error)?
            .into_inner()
            .map_err(|e| e.into_error())?,
        Sink::Csv(out) => out.into_inner().map_err(|e| e.into_error())?,
    };
    file.sync_all()?;
    Ok(count)
}

/// Where batches go.
enum Sink {
    Parquet(Box<ArrowWriter<BufWriter<File>>>),
    Csv(BufWriter<File>),
}

impl Sink {
    fn write(&mut self, batch: &RecordBatch) -> Result<(), PlyError> {
        match self {
            Sink::Parquet(writer) => writer.write(batch).map_err(parquet_error),
            Sink::Csv(out) => write_csv(batch, out),
        }
    }
}

fn parquet_error(e: parquet::errors::ParquetError) -> PlyError {
    PlyError::Io(std::io::Error::other(format!("parquet: {e}")))
}

fn arrow_error(e: arrow_schema::ArrowError) -> PlyError {
    PlyError::Io(std::io::Error::other(format!("arrow: {e}")))
}

/// The schema of an export (see [`COLUMNS`]).
pub fn schema(columns: Columns) -> SchemaRef {
    let mut fields = vec![
        Field::new(COLUMNS[0], DataType::UInt64, false),
        Field::new(COLUMNS[1], DataType::Utf8, false),
        Field::new(
            COLUMNS[2],
            DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Utf8)),
            false,
        ),
        Field::new(COLUMNS[3], DataType::UInt16, true),
    ];
    if columns.best_moves {
        fields.push(Field::new(
            COLUMNS[4],
            DataType::List(Arc::new(Field::new("item", DataType::Utf8, false))),
            false,
        ));
    }
    Arc::new(Schema::new(fields))
}

/// Builds the rows of `rows` as record batches, one per chunk of keys with
/// any rows, chunks in parallel, and hands them to `write` in key order.
/// Returns how many rows were written.
pub fn for_each_batch(
    rows: &dyn Rows,
    columns: Columns,
    progress: &dyn Progress,
    mut write: impl FnMut(&RecordBatch) -> Result<(), PlyError> + Send,
) -> Result<u64, PlyError> {
    let solution = rows.solution();
    let len = solution.index_len();
    let chunks = len.div_ceil(CHUNK);
    // An in-memory table of canonical keys lists its entries afresh on each
    // call: take them all at once (it holds them all anyway).
    let listed = if solution.keys() == Keys::Canonical && solution.source() == Source::Solved {
        let mut cells = Vec::new();
        solution.for_each_cell(0..len, &mut |key, cell| cells.push((key, cell)))?;
        Some(cells)
    } else {
        None
    };
    let cells_in = |range: Range<u64>| -> Result<Vec<(u64, Cell)>, PlyError> {
        match &listed {
            Some(cells) => {
                let from = cells.partition_point(|&(k, _)| k < range.start);
                let to = cells.partition_point(|&(k, _)| k < range.end);
                Ok(cells[from..to].to_vec())
            }
            None => {
                let mut cells = Vec::new();
                solution.for_each_cell(range, &mut |key, cell| cells.push((key, cell)))?;
                Ok(cells)
            }
        }
    };
    progress.begin(&format!("exporting {}", rows.name()), len);
    let group = (rayon::current_num_threads() as u64 * 2).clamp(2, MAX_GROUP);
    let build = |chunks: Range<u64>| -> Result<Vec<Option<RecordBatch>>, PlyError> {
        chunks
            .into_par_iter()
            .map(|chunk| {
                let range = chunk * CHUNK..len.min((chunk + 1) * CHUNK);
                let batch = batch_of(rows, columns, &cells_in(range.clone())?)?;
                progress.advance(range.end - range.start);
                Ok(batch)
            })
            .collect()
    };
    // Each group of chunks is written while the next one is built.
    let mut count = 0;
    let mut built: Vec<Option<RecordBatch>> = Vec::new();
    let mut first = 0;
    loop {
        if progress.cancelled() {
            return Err(PlyError::Cancelled(format!("exporting {}", rows.name())));
        }
        let last = chunks.min(first + group);
        let write_all = || -> Result<u64, PlyError> {
            let mut written = 0;
            for batch in built.iter().flatten() {
                written += batch.num_rows() as u64;
                write(batch)?;
            }
            Ok(written)
        };
        let (written, next) = rayon::join(write_all, || build(first..last));
        count += written?;
        if first == last {
            break;
        }
        built = next?;
        first = last;
    }
    progress.end();
    Ok(count)
}

/// The batch of rows for `cells` (keys in increasing order), or `None` if
/// none of them names a position.
fn batch_of(
    rows: &dyn Rows,
    columns: Columns,
    cells: &[(u64, Cell)],
) -> Result<Option<RecordBatch>, PlyError> {
    let n = cells.len();
    let mut keys = UInt64Builder::with_capacity(n);
    let mut positions = StringBuilder::with_capacity(n, n * 16);
    let mut values = Vec::with_capacity(n);
    let mut remoteness = UInt16Builder::with_capacity(n);
    let mut best = ListBuilder::new(StringBuilder::new()).with_field(Arc::new(Field::new(
        "item",
        DataType::Utf8,
        false,
    )));
    let mut row = Row::default();
    for &(key, cell) in cells {
        let Some(outcome) = cell.unpack() else {
            continue;
        };
        if !rows.row(key, outcome, columns.best_moves, &mut row)? {
            continue;
        }
        keys.append_value(key);
        positions.append_value(&row.position);
        values.push(value_code(outcome.value));
        remoteness.append_option(outcome.remoteness.map(|r| r as u16));
        for mv in &row.best {
            best.values().append_value(mv);
        }
        best.append(true);
    }
    if values.is_empty() {
        return Ok(None);
    }
    let dictionary = Arc::new(StringArray::from_iter_values(
        Value::ALL.iter().map(|v| v.as_str()),
    ));
    let values = DictionaryArray::<Int8Type>::try_new(Int8Array::from(values), dictionary)
        .map_err(arrow_error)?;
    let mut arrays: Vec<ArrayRef> = vec![
        Arc::new(keys.finish()),
        Arc::new(positions.finish()),
        Arc::new(values),
        Arc::new(remoteness.finish()),
    ];
    if columns.best_moves {
        arrays.push(Arc::new(best.finish()));
    }
    RecordBatch::try_new(schema(columns), arrays)
        .map(Some)
        .map_err(arrow_error)
}

/// The code of `value` in the `value` column's dictionary ([`Value::ALL`]).
fn value_code(value: Value) -> i8 {
    Value::ALL.iter().position(|&v| v == value).unwrap_or(0) as i8
}

/// Writes `batch` as CSV lines (see [`Format::Csv`]).
fn write_csv(batch: &RecordBatch, out: &mut impl Write) -> Result<(), PlyError> {
    let column = |i: usize| batch.column(i).as_any();
    let bad = || {
        PlyError::Io(std::io::Error::other(
            "export: a column of an unexpected type",
        ))
    };
    let keys = column(0).downcast_ref::<UInt64Array>().ok_or_else(bad)?;
    let positions = column(1).downcast_ref::<StringArray>().ok_or_else(bad)?;
    let values = column(2)
        .downcast_ref::<DictionaryArray<Int8Type>>()
        .ok_or_else(bad)?;
    let remoteness = column(3).downcast_ref::<UInt16Array>().ok_or_else(bad)?;
    let best = match batch.num_columns() {
        5 => Some(column(4).downcast_ref::<ListArray>().ok_or_else(bad)?),
        _ => None,
    };
    let mut line = String::new();
    for i in 0..batch.num_rows() {
        line.clear();
        line.push_str(&keys.value(i).to_string());
        line.push(',');
        push_csv_field(&mut line, positions.value(i));
        line.push(',');
        let code = values.keys().value(i);
        line.push_str(Value::ALL[code as usize].as_str());
        line.push(',');
        if remoteness.is_valid(i) {
            line.push_str(&remoteness.value(i).to_string());
        }
        if let Some(best) = best {
            line.push(',');
            let moves = best.value(i);
            let moves = moves
                .as_any()
                .downcast_ref::<StringArray>()
                .ok_or_else(bad)?;
            let joined: Vec<&str> = moves.iter().flatten().collect();
            push_csv_field(&mut line, &joined.join(" "));
        }
        line.push('\n');
        out.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// Appends `field` to a CSV line, quoted if it holds a comma, a quote or a
/// line break (quotes doubled), as RFC 4180 says.
fn push_csv_field(line: &mut String, field: &str) {
    if field.contains([',', '"', '\n', '\r']) {
        line.push('"');
        line.push_str(&field.replace('"', "\"\""));
        line.push('"');
    } else {
        line.push_str(field);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_with_commas_or_quotes_are_quoted() {
        let mut line = String::new();
        push_csv_field(&mut line, "R/4,5");
        line.push(',');
        push_csv_field(&mut line, "a\"b");
        line.push(',');
        push_csv_field(&mut line, "plain");
        assert_eq!(line, "\"R/4,5\",\"a\"\"b\",plain");
    }

    #[test]
    fn formats_parse_by_name() {
        assert_eq!(Format::parse("csv").unwrap(), Format::Csv);
        assert_eq!(Format::parse("parquet").unwrap(), Format::Parquet);
        assert!(Format::parse("xlsx").is_err());
    }
}
