//! `ply export`: a solved game written as a table with one row per stored
//! position (its key, text, value, remoteness, best moves and, for a game
//! with a [`Tensor`], its board as numbers), as Parquet
//! through the arrow and parquet crates, or as CSV. Rows are built a chunk
//! of keys at a time, chunks in parallel, and written in key order as they
//! come, so memory stays bounded whatever the game's size; the file is
//! written beside its destination and renamed into place when complete
//! (one left by a killed export is removed by the next export of it).

use crate::error::PlyError;
use crate::session::Session;
use crate::session::rows::{Row, Rows, Want};
use arrow_array::builder::{ListBuilder, StringBuilder, UInt16Builder, UInt64Builder};
use arrow_array::types::Int8Type;
use arrow_array::{
    Array, ArrayRef, DictionaryArray, FixedSizeBinaryArray, Int8Array, ListArray, RecordBatch,
    StringArray, UInt16Array, UInt64Array,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_writer::{ArrowColumnChunk, ArrowColumnWriter, compute_leaves};
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;
use ply_core::db::Keys;
use ply_core::{Cell, Progress, Solution, Source, Tensor, Value};
use rayon::prelude::*;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The file format of an export.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Apache Parquet, zstd-compressed: `value` is a dictionary column,
    /// `best_moves` a list of strings, `board` fixed-size binary (a byte
    /// per cell).
    Parquet,
    /// Comma-separated text with a header line; `best_moves` is the move
    /// names joined by spaces, `board` the codes joined by spaces.
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
/// `remoteness` (null for a draw), `best_moves` and `board` (the board's
/// cells as small ints, for a game with a [`Tensor`]; its legend is the
/// schema's [`BOARD_METADATA`] entry).
pub const COLUMNS: [&str; 6] = [
    "key",
    "position",
    "value",
    "remoteness",
    "best_moves",
    "board",
];

/// The key of the Parquet schema's metadata entry holding the `board`
/// column's legend, as JSON: `rows`, `cols` and `codes`, an object from
/// each code (`"0"` for an empty cell) to the name of what it stands for.
pub const BOARD_METADATA: &str = "ply.board";

/// Which columns an export has: all of [`COLUMNS`], or all but
/// `best_moves` (much quicker: no move is generated). The `board` column
/// is there for every game with a [`Tensor`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Columns {
    /// Whether the `best_moves` column is written.
    pub best_moves: bool,
}

/// The columns of one export: which are written, the board's tensor, and
/// the schema they make.
#[derive(Clone, Debug)]
struct Layout {
    best_moves: bool,
    tensor: Option<Tensor>,
    schema: SchemaRef,
}

impl Layout {
    fn new(rows: &dyn Rows, columns: Columns) -> Self {
        let tensor = rows.tensor();
        Self {
            best_moves: columns.best_moves,
            schema: schema(columns.best_moves, tensor.as_ref()),
            tensor,
        }
    }

    /// The names of the columns written, in order.
    fn names(&self) -> Vec<&'static str> {
        let mut names = COLUMNS[..4].to_vec();
        if self.best_moves {
            names.push(COLUMNS[4]);
        }
        if self.tensor.is_some() {
            names.push(COLUMNS[5]);
        }
        names
    }

    /// What each row needs filled.
    fn want(&self) -> Want {
        Want {
            best: self.best_moves,
            board: self.tensor.is_some(),
        }
    }

    /// The cells of a board: the length of a `board` list.
    fn cells(&self) -> usize {
        self.tensor.as_ref().map_or(0, Tensor::cells)
    }
}

/// The legend of the `board` column, as [`BOARD_METADATA`] holds it.
pub fn legend_json(tensor: &Tensor) -> String {
    let codes: serde_json::Map<String, serde_json::Value> = std::iter::once("empty")
        .chain(tensor.codes.iter().map(|c| c.name.as_str()))
        .enumerate()
        .map(|(i, name)| (i.to_string(), name.into()))
        .collect();
    serde_json::json!({ "rows": tensor.rows, "cols": tensor.cols, "codes": codes }).to_string()
}

/// Keys per chunk: the unit of parallel work and of a record batch.
const CHUNK: u64 = 1 << 16;

/// The most chunks built at once (two groups are in memory: one being
/// written, the next being built), whatever the number of threads: with
/// rows of a few hundred bytes at most, well under 512 MB.
const MAX_GROUP: u64 = 8;

/// Chunks per Parquet row group (a row group's encoded columns are held
/// until it is appended; compressed, a few MB at most).
const GROUP_CHUNKS: u64 = 16;

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
    remove_stale_tmp_files(path);
    let tmp = tmp_path(path);
    let layout = Layout::new(&*rows, columns);
    let written = write_file(&*rows, format, &layout, &tmp, progress);
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

/// Removes the temporary files beside `path` left by exports of it whose
/// process is gone (killed with SIGKILL, or the machine stopped): those
/// named as [`tmp_path`] names them, with the id of no running process.
/// Only where running processes can be told (`/proc`, Linux); best effort.
fn remove_stale_tmp_files(path: &Path) {
    let proc = Path::new("/proc");
    if !cfg!(target_os = "linux") || !proc.join("self").exists() {
        return;
    }
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return;
    };
    let prefix = format!("{name}.tmp-");
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(pid) = file.to_str().and_then(|f| f.strip_prefix(&prefix)) else {
            continue;
        };
        if pid.parse::<u32>().is_ok() && !proc.join(pid).exists() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Writes every row into a new file at `tmp`, synced to disk; returns the
/// number of rows.
fn write_file(
    rows: &dyn Rows,
    format: Format,
    layout: &Layout,
    tmp: &Path,
    progress: &dyn Progress,
) -> Result<u64, PlyError> {
    let file = File::create(tmp)
        .map_err(|e| PlyError::argument(format!("cannot create {}: {e}", tmp.display())))?;
    let (count, file) = match format {
        Format::Parquet => write_parquet(rows, layout, BufWriter::new(file), progress)?,
        Format::Csv => {
            let mut out = BufWriter::with_capacity(1 << 20, file);
            writeln!(out, "{}", layout.names().join(","))?;
            let count = for_each_batch(rows, layout, progress, |batch| write_csv(batch, &mut out))?;
            (count, out)
        }
    };
    let file = file.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()?;
    Ok(count)
}

/// The encoded column chunks of one row group, and its number of rows.
type Encoded = (u64, Vec<ArrowColumnChunk>);

/// Writes every row to `out` as Parquet: each row group (a run of
/// [`GROUP_CHUNKS`] chunks of keys) is built and encoded (compressed
/// included) on its own thread, a wave of them at once, and appended to
/// the file in key order while the next wave is encoded. Returns the
/// number of rows and `out`, the footer written.
fn write_parquet(
    rows: &dyn Rows,
    layout: &Layout,
    out: BufWriter<File>,
    progress: &dyn Progress,
) -> Result<(u64, BufWriter<File>), PlyError> {
    let key = ColumnPath::from(COLUMNS[0]);
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(
            ZstdLevel::try_new(1).map_err(parquet_error)?,
        ))
        // Keys increase, positions and boards are all distinct: a
        // dictionary only costs time; so do statistics of their bytes.
        .set_column_dictionary_enabled(key.clone(), false)
        .set_column_encoding(key, Encoding::DELTA_BINARY_PACKED)
        .set_column_dictionary_enabled(ColumnPath::from(COLUMNS[1]), false)
        .set_column_dictionary_enabled(ColumnPath::from(COLUMNS[5]), false)
        .set_column_statistics_enabled(ColumnPath::from(COLUMNS[1]), EnabledStatistics::None)
        .set_column_statistics_enabled(ColumnPath::from(COLUMNS[5]), EnabledStatistics::None)
        .build();
    let (mut writer, factory) = ArrowWriter::try_new(out, layout.schema.clone(), Some(props))
        .and_then(ArrowWriter::into_serialized_writer)
        .map_err(parquet_error)?;
    let len = rows.solution().index_len();
    let chunks = len.div_ceil(CHUNK);
    let groups = chunks.div_ceil(GROUP_CHUNKS);
    let cells = Cells::new(rows.solution())?;
    progress.begin(&format!("exporting {}", rows.name()), len);
    let encode = |group: u64| -> Result<Option<Encoded>, PlyError> {
        let mut columns = factory
            .create_column_writers(usize::try_from(group).unwrap_or(usize::MAX))
            .map_err(parquet_error)?;
        let mut count = 0;
        for chunk in group * GROUP_CHUNKS..chunks.min((group + 1) * GROUP_CHUNKS) {
            if progress.cancelled() {
                return Err(PlyError::Cancelled(format!("exporting {}", rows.name())));
            }
            let range = chunk * CHUNK..len.min((chunk + 1) * CHUNK);
            if let Some(batch) = batch_of(rows, layout, &cells.within(range.clone())?)? {
                count += batch.num_rows() as u64;
                let mut leaves = columns.iter_mut();
                for (field, array) in layout.schema.fields().iter().zip(batch.columns()) {
                    for leaf in compute_leaves(field, array).map_err(parquet_error)? {
                        let column = leaves.next().ok_or_else(|| {
                            PlyError::Io(std::io::Error::other("export: a column without a writer"))
                        })?;
                        column.write(&leaf).map_err(parquet_error)?;
                    }
                }
            }
            progress.advance(range.end - range.start);
        }
        if count == 0 {
            return Ok(None);
        }
        let encoded = columns
            .into_iter()
            .map(ArrowColumnWriter::close)
            .collect::<Result<Vec<_>, _>>()
            .map_err(parquet_error)?;
        Ok(Some((count, encoded)))
    };
    let mut count = 0;
    in_waves(
        groups,
        (rayon::current_num_threads() as u64).clamp(1, MAX_GROUP),
        encode,
        |(rows, columns)| {
            let mut group = writer.next_row_group().map_err(parquet_error)?;
            for column in columns {
                column
                    .append_to_row_group(&mut group)
                    .map_err(parquet_error)?;
            }
            group.close().map_err(parquet_error)?;
            count += rows;
            Ok(())
        },
    )?;
    progress.end();
    Ok((count, writer.into_inner().map_err(parquet_error)?))
}

fn parquet_error(e: parquet::errors::ParquetError) -> PlyError {
    PlyError::Io(std::io::Error::other(format!("parquet: {e}")))
}

fn arrow_error(e: arrow_schema::ArrowError) -> PlyError {
    PlyError::Io(std::io::Error::other(format!("arrow: {e}")))
}

/// The schema of an export (see [`COLUMNS`]).
fn schema(best_moves: bool, tensor: Option<&Tensor>) -> SchemaRef {
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
    if best_moves {
        fields.push(Field::new(
            COLUMNS[4],
            DataType::List(Arc::new(Field::new("item", DataType::Utf8, false))),
            false,
        ));
    }
    let mut metadata = HashMap::new();
    if let Some(tensor) = tensor {
        fields.push(Field::new(COLUMNS[5], board_type(tensor.cells()), false));
        metadata.insert(BOARD_METADATA.to_string(), legend_json(tensor));
    }
    Arc::new(Schema::new(fields).with_metadata(metadata))
}

/// The type of the `board` column: `cells` bytes per row, one code a cell
/// (fixed-size binary: in Parquet a list would cost a repetition level
/// per cell, several times the time of the rest of the row).
fn board_type(cells: usize) -> DataType {
    DataType::FixedSizeBinary(i32::try_from(cells).unwrap_or(i32::MAX))
}

/// Builds the rows of `rows` as record batches, one per chunk of keys with
/// any rows, chunks in parallel, and hands them to `write` in key order.
/// Returns how many rows were written.
fn for_each_batch(
    rows: &dyn Rows,
    layout: &Layout,
    progress: &dyn Progress,
    mut write: impl FnMut(&RecordBatch) -> Result<(), PlyError> + Send,
) -> Result<u64, PlyError> {
    let len = rows.solution().index_len();
    let cells = Cells::new(rows.solution())?;
    progress.begin(&format!("exporting {}", rows.name()), len);
    let mut count = 0;
    in_waves(
        len.div_ceil(CHUNK),
        (rayon::current_num_threads() as u64 * 2).clamp(2, MAX_GROUP),
        |chunk| {
            if progress.cancelled() {
                return Err(PlyError::Cancelled(format!("exporting {}", rows.name())));
            }
            let range = chunk * CHUNK..len.min((chunk + 1) * CHUNK);
            let batch = batch_of(rows, layout, &cells.within(range.clone())?)?;
            progress.advance(range.end - range.start);
            Ok(batch)
        },
        |batch| {
            count += batch.num_rows() as u64;
            write(&batch)
        },
    )?;
    progress.end();
    Ok(count)
}

/// Makes the items `0..n`, `wave` of them at a time in parallel, and hands
/// those that are something to `take` in order, each wave while the next
/// one is made.
fn in_waves<T: Send>(
    n: u64,
    wave: u64,
    make: impl Fn(u64) -> Result<Option<T>, PlyError> + Sync,
    mut take: impl FnMut(T) -> Result<(), PlyError> + Send,
) -> Result<(), PlyError> {
    let mut made: Vec<Option<T>> = Vec::new();
    let mut first = 0;
    loop {
        let last = n.min(first + wave);
        let take_all = || made.drain(..).flatten().try_for_each(&mut take);
        let (taken, next) = rayon::join(take_all, || {
            (first..last)
                .into_par_iter()
                .map(&make)
                .collect::<Result<Vec<_>, _>>()
        });
        taken?;
        if first == last {
            return Ok(());
        }
        made = next?;
        first = last;
    }
}

/// The stored cells of a solution, a range of keys at a time.
struct Cells<'a> {
    solution: &'a dyn Solution,
    /// All of them, for an in-memory table of canonical keys, which lists
    /// its entries afresh on each call (it holds them all anyway).
    listed: Option<Vec<(u64, Cell)>>,
}

impl<'a> Cells<'a> {
    fn new(solution: &'a dyn Solution) -> Result<Self, PlyError> {
        let listed = if solution.keys() == Keys::Canonical && solution.source() == Source::Solved {
            let mut cells = Vec::new();
            solution.for_each_cell(0..solution.index_len(), &mut |key, cell| {
                cells.push((key, cell))
            })?;
            Some(cells)
        } else {
            None
        };
        Ok(Self { solution, listed })
    }

    /// The stored cells with keys in `range`, in key order.
    fn within(&self, range: Range<u64>) -> Result<Vec<(u64, Cell)>, PlyError> {
        match &self.listed {
            Some(cells) => {
                let from = cells.partition_point(|&(k, _)| k < range.start);
                let to = cells.partition_point(|&(k, _)| k < range.end);
                Ok(cells[from..to].to_vec())
            }
            None => {
                let mut cells = Vec::new();
                self.solution
                    .for_each_cell(range, &mut |key, cell| cells.push((key, cell)))?;
                Ok(cells)
            }
        }
    }
}

/// The batch of rows for `cells` (keys in increasing order), or `None` if
/// none of them names a position.
fn batch_of(
    rows: &dyn Rows,
    layout: &Layout,
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
    let mut boards = Vec::with_capacity(n * layout.cells());
    let mut row = Row::default();
    row.board.resize(layout.cells(), 0);
    let want = layout.want();
    for &(key, cell) in cells {
        let Some(outcome) = cell.unpack() else {
            continue;
        };
        if !rows.row(key, outcome, want, &mut row)? {
            continue;
        }
        boards.extend(row.board.iter().map(|&code| code as u8));
        keys.append_value(key);
        positions.append_value(&row.position);
        values.push(value_code(outcome.value));
        remoteness.append_option(outcome.remoteness.map(|r| r as u16));
        for mv in row.best_moves() {
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
    if layout.best_moves {
        arrays.push(Arc::new(best.finish()));
    }
    if let Some(tensor) = &layout.tensor {
        let cells = i32::try_from(tensor.cells()).map_err(|_| {
            PlyError::argument(format!("{}: the board has too many cells", rows.name()))
        })?;
        let boards = FixedSizeBinaryArray::try_from_iter(boards.chunks_exact(tensor.cells()))
            .map_err(arrow_error)?;
        if boards.value_length() != cells {
            return Err(PlyError::Io(std::io::Error::other(
                "export: a board of the wrong size",
            )));
        }
        arrays.push(Arc::new(boards));
    }
    RecordBatch::try_new(layout.schema.clone(), arrays)
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
    let schema = batch.schema();
    let named = |name: &str| schema.index_of(name).ok().map(|i| batch.column(i).as_any());
    let best = match named(COLUMNS[4]) {
        Some(c) => Some(c.downcast_ref::<ListArray>().ok_or_else(bad)?),
        None => None,
    };
    let board = match named(COLUMNS[5]) {
        Some(c) => Some(c.downcast_ref::<FixedSizeBinaryArray>().ok_or_else(bad)?),
        None => None,
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
        if let Some(board) = board {
            line.push(',');
            for (j, code) in board.value(i).iter().enumerate() {
                if j > 0 {
                    line.push(' ');
                }
                line.push_str(&code.to_string());
            }
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
