//! `ply.Solver`: a game opened once, asked many things. A built-in game is
//! opened through the `ply` command's registry and session (from its
//! database when the store holds one); a game written in Python is
//! explored and solved by [`crate::python_game`].

use crate::python_game::PythonGame;
use crate::{errors, interrupt};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use ply::cli::export::{self, Format};
use ply::report::Noted;
use ply::session::Session;
use ply::session::rows::Rows;
use ply::session::store::{self, Store};
use ply_core::{Cell, Outcome, Value};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};
use rayon::prelude::*;
use std::path::PathBuf;

/// The value codes of the arrays: the names Python sees and their codes
/// (the value bits of a [`Cell`]).
pub const VALUE_CODES: [(&str, i8); 5] = [
    ("UNKNOWN", 0),
    ("WIN", 1),
    ("LOSE", 2),
    ("TIE", 3),
    ("DRAW", 4),
];

/// The code of an outcome's value in the arrays (see [`VALUE_CODES`]).
pub fn value_code(value: Value) -> i8 {
    match value {
        Value::Win => 1,
        Value::Lose => 2,
        Value::Tie => 3,
        Value::Draw => 4,
    }
}

/// An outcome as the arrays hold it: the value code and the remoteness,
/// -1 for none (a draw) and for an unknown cell.
pub fn codes(outcome: Option<Outcome>) -> (i8, i16) {
    match outcome {
        Some(o) => (value_code(o.value), o.remoteness.map_or(-1, |r| r as i16)),
        None => (0, -1),
    }
}

/// The most entries an array over a whole index may have (2^32: 6 GiB of
/// values and remoteness).
const MAX_ARRAY: u64 = 1 << 32;

/// Keys per unit of parallel work over an index.
const CHUNK: u64 = 1 << 16;

/// Value codes and remoteness, as numpy arrays.
type Arrays<'py> = (Bound<'py, PyArray1<i8>>, Bound<'py, PyArray1<i16>>);

/// A game opened for queries: a built-in game (by name) or a game written
/// in Python (an object with `start`, `moves`, `play` and `primitive`).
#[pyclass(module = "ply", frozen)]
pub struct Solver {
    backend: Backend,
}

/// What a [`Solver`] answers from.
enum Backend {
    /// A built-in game's session, and the store its database is read from
    /// (made the process's store again before each query, so that solvers
    /// over different directories each read their own).
    Native(Box<dyn Session>, Store),
    /// A game written in Python, explored and solved.
    Python(PythonGame),
}

impl Solver {
    /// Opens `game`: a name (`NAME` or `NAME:PARAMS`) read from the store
    /// in `db_dir` (else `$PLY_DB_DIR`, else the platform directory), or a
    /// Python game object, explored and solved at once.
    pub fn open(
        py: Python<'_>,
        game: &Bound<'_, PyAny>,
        db_dir: Option<PathBuf>,
    ) -> PyResult<Self> {
        let backend = match game.cast::<PyString>() {
            Ok(name) => {
                let name = name.to_cow()?.into_owned();
                let store = Store::locate(db_dir, true).map_err(errors::to_py)?;
                store::configure(store.clone());
                let session = ply::registry::open(&name).map_err(errors::to_py)?;
                Backend::Native(session, store)
            }
            Err(_) => {
                if db_dir.is_some() {
                    return Err(errors::argument(
                        "db_dir applies to built-in games only, not to a game written in Python",
                    ));
                }
                Backend::Python(PythonGame::solve(py, game)?)
            }
        };
        Ok(Self { backend })
    }

    /// The session of a built-in game, or the error for a Python game.
    fn native(&self, what: &str) -> PyResult<&dyn Session> {
        match &self.backend {
            Backend::Native(session, store) => {
                store::configure(store.clone());
                Ok(&**session)
            }
            Backend::Python(game) => Err(errors::argument(format!(
                "{what} is for built-in games; {} is written in Python",
                game.name()
            ))),
        }
    }

    /// Runs `work` on the session's solution read key by key, solving or
    /// loading it first (interruptible).
    fn with_rows<T: Send>(
        &self,
        py: Python<'_>,
        what: &str,
        work: impl FnOnce(&dyn Rows) -> Result<T, ply::PlyError> + Send,
    ) -> PyResult<T> {
        let session = self.native(what)?;
        interrupt::run(py, |progress| {
            let rows = session.rows(progress)?.ok_or_else(|| {
                ply::PlyError::argument(format!(
                    "{} keeps no table: it is answered by search or theory, one position at a time",
                    session.name()
                ))
            })?;
            work(&*rows)
        })
    }

    /// The value codes and remoteness of `keys`, or of the whole index.
    fn arrays(
        &self,
        py: Python<'_>,
        keys: Option<PyReadonlyArray1<'_, u64>>,
    ) -> PyResult<(Vec<i8>, Vec<i16>)> {
        if let Backend::Python(game) = &self.backend {
            return match keys {
                None => Ok(game.arrays()),
                Some(keys) => game.arrays_of(keys.as_slice()?),
            };
        }
        let keys: Option<Vec<u64>> = keys
            .map(|k| k.as_slice().map(<[u64]>::to_vec))
            .transpose()?;
        self.with_rows(py, "values()", move |rows| {
            let solution = rows.solution();
            let len = solution.index_len();
            match keys {
                Some(keys) => {
                    let out: Result<Vec<(i8, i16)>, ply::PlyError> = keys
                        .par_iter()
                        .map(|&key| {
                            if key >= len {
                                return Err(ply::PlyError::argument(format!(
                                    "key {key} is outside the index of {} (0 to {})",
                                    rows.name(),
                                    len.saturating_sub(1)
                                )));
                            }
                            Ok(codes(solution.cell(key)?.unpack()))
                        })
                        .collect();
                    Ok(out?.into_iter().unzip())
                }
                None => {
                    if len > MAX_ARRAY {
                        return Err(ply::PlyError::argument(format!(
                            "the index of {} has {len} keys, more than an array here may hold \
                             ({MAX_ARRAY}); ask for keys() or pass keys",
                            rows.name()
                        )));
                    }
                    let mut values = vec![0i8; len as usize];
                    let mut remoteness = vec![-1i16; len as usize];
                    values
                        .par_chunks_mut(CHUNK as usize)
                        .zip(remoteness.par_chunks_mut(CHUNK as usize))
                        .enumerate()
                        .try_for_each(|(chunk, (values, remoteness))| {
                            let start = chunk as u64 * CHUNK;
                            let end = start + values.len() as u64;
                            solution.for_each_cell(start..end, &mut |key, cell: Cell| {
                                let at = (key - start) as usize;
                                (values[at], remoteness[at]) = codes(cell.unpack());
                            })
                        })?;
                    Ok((values, remoteness))
                }
            }
        })
    }
}

#[pymethods]
impl Solver {
    /// Opens `game`: a built-in game's name (`NAME` or `NAME:PARAMS`), read
    /// from its database in `db_dir` (else `$PLY_DB_DIR`, else the
    /// platform directory) when there is one; or an object with
    /// `start()`, `moves(p)`, `play(p, m)` and `primitive(p)` and hashable
    /// positions, explored from its start and solved at once.
    #[new]
    #[pyo3(signature = (game, db_dir=None))]
    fn new(py: Python<'_>, game: &Bound<'_, PyAny>, db_dir: Option<PathBuf>) -> PyResult<Self> {
        Self::open(py, game, db_dir)
    }

    /// The game's full name with parameters.
    #[getter]
    fn name(&self) -> String {
        match &self.backend {
            Backend::Native(session, _) => session.name(),
            Backend::Python(game) => game.name().to_string(),
        }
    }

    /// The start position: text for a built-in game, the object for a
    /// Python game.
    #[getter]
    fn start<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match &self.backend {
            Backend::Native(session, _) => Ok(PyString::new(py, &session.start()).into_any()),
            Backend::Python(game) => Ok(game.position(py, 0)),
        }
    }

    /// The value of `position` (the start if `None`) and of every move
    /// from it: the dict `ply solve --json` prints.
    #[pyo3(signature = (position=None))]
    pub fn solve<'py>(
        &self,
        py: Python<'py>,
        position: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let session = match &self.backend {
            Backend::Python(game) => return game.solve_dict(py, position),
            Backend::Native(..) => self.native("solve()")?,
        };
        let position: Option<String> = position.map(|p| p.extract()).transpose()?;
        let json = interrupt::run(py, |progress| {
            if let Some(position) = &position {
                session.check_position(position)?;
            }
            ply::session::refuse_long_without_database(session)?;
            session.prepare(progress)?;
            let mut report = session.solve_within(position.as_deref(), progress)?;
            // The one order of `ply solve`, its JSON and the API.
            report.best_first();
            let notes = session.notes(&report);
            let noted = Noted {
                report: &report,
                notes: &notes,
                source: session.source().map(|s| s.as_str()),
            };
            serde_json::to_string(&noted).map_err(|e| ply::PlyError::Io(std::io::Error::other(e)))
        })?;
        json_loads(py, &json)
    }

    /// The value codes (see `ply.WIN`, ...) and remoteness (-1 for none)
    /// of each position in `positions`, as two numpy arrays (int8, int16).
    /// Positions are texts, or keys in a numpy uint64 array; for a Python
    /// game, position objects. Raises ArgumentError naming the first bad
    /// position.
    fn solve_many<'py>(
        &self,
        py: Python<'py>,
        positions: &Bound<'py, PyAny>,
    ) -> PyResult<Arrays<'py>> {
        let (values, remoteness) = match &self.backend {
            Backend::Python(game) => game.solve_many(positions)?,
            Backend::Native(..) => {
                if let Ok(keys) = positions.extract::<PyReadonlyArray1<'_, u64>>() {
                    self.arrays(py, Some(keys))?
                } else {
                    // Borrowed, not copied: the texts are read in place
                    // while the list keeps them alive.
                    if positions.is_instance_of::<PyString>() {
                        return Err(pyo3::exceptions::PyTypeError::new_err(
                            "solve_many() takes a list of positions, not one position",
                        ));
                    }
                    let strings = positions
                        .try_iter()?
                        .map(|p| Ok(p?.cast_into::<PyString>()?))
                        .collect::<PyResult<Vec<_>>>()?;
                    let texts = strings
                        .iter()
                        .map(|s| s.to_str())
                        .collect::<PyResult<Vec<&str>>>()?;
                    self.with_rows(py, "solve_many()", |rows| {
                        let out: Result<Vec<(i8, i16)>, ply::PlyError> = texts
                            .par_iter()
                            .map(|text| rows.outcome_of(text).map(|o| codes(Some(o))))
                            .collect();
                        Ok(out?.into_iter().unzip())
                    })?
                }
            }
        };
        Ok((values.into_pyarray(py), remoteness.into_pyarray(py)))
    }

    /// How many keys the game's solution has: the size of its index (for a
    /// Python game, the positions reached).
    fn index_len(&self, py: Python<'_>) -> PyResult<u64> {
        match &self.backend {
            Backend::Python(game) => Ok(game.len() as u64),
            Backend::Native(..) => {
                self.with_rows(py, "index_len()", |rows| Ok(rows.solution().index_len()))
            }
        }
    }

    /// The keys holding a solved position, increasing, as a numpy uint64
    /// array: the positions `ply export` writes.
    fn keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let keys = match &self.backend {
            Backend::Python(game) => (0..game.len() as u64).collect(),
            Backend::Native(..) => self.with_rows(py, "keys()", |rows| {
                let solution = rows.solution();
                let len = solution.index_len();
                let chunks: Result<Vec<Vec<u64>>, ply::PlyError> = (0..len.div_ceil(CHUNK))
                    .into_par_iter()
                    .map(|chunk| {
                        let mut keys = Vec::new();
                        let range = chunk * CHUNK..len.min((chunk + 1) * CHUNK);
                        solution.for_each_cell(range, &mut |key, _| keys.push(key))?;
                        Ok(keys)
                    })
                    .collect();
                Ok(chunks?.concat())
            })?,
        };
        Ok(keys.into_pyarray(py))
    }

    /// The value code (see `ply.WIN`, ...) of each key in `keys` (a numpy
    /// uint64 array), or of every key of the index if `None`; 0
    /// (`ply.UNKNOWN`) where no position is stored.
    #[pyo3(signature = (keys=None))]
    fn values<'py>(
        &self,
        py: Python<'py>,
        keys: Option<PyReadonlyArray1<'py, u64>>,
    ) -> PyResult<Bound<'py, PyArray1<i8>>> {
        Ok(self.arrays(py, keys)?.0.into_pyarray(py))
    }

    /// The remoteness of each key in `keys` (a numpy uint64 array), or of
    /// every key of the index if `None`; -1 for a draw and where no
    /// position is stored.
    #[pyo3(signature = (keys=None))]
    fn remoteness<'py>(
        &self,
        py: Python<'py>,
        keys: Option<PyReadonlyArray1<'py, u64>>,
    ) -> PyResult<Bound<'py, PyArray1<i16>>> {
        Ok(self.arrays(py, keys)?.1.into_pyarray(py))
    }

    /// The position at each key in `keys` (a numpy uint64 array), or at
    /// every key of the index if `None`: texts (None where a key names no
    /// position), or position objects for a Python game.
    #[pyo3(signature = (keys=None))]
    fn positions<'py>(
        &self,
        py: Python<'py>,
        keys: Option<PyReadonlyArray1<'py, u64>>,
    ) -> PyResult<Bound<'py, PyList>> {
        if let Backend::Python(game) = &self.backend {
            return game.positions(py, keys.as_ref().map(|k| k.as_slice()).transpose()?);
        }
        let keys: Option<Vec<u64>> = keys
            .map(|k| k.as_slice().map(<[u64]>::to_vec))
            .transpose()?;
        let texts = self.with_rows(py, "positions()", move |rows| {
            let len = rows.solution().index_len();
            let keys = match keys {
                Some(keys) => keys,
                None if len > MAX_ARRAY => {
                    return Err(ply::PlyError::argument(format!(
                        "the index of {} has {len} keys, too many to list; pass keys",
                        rows.name()
                    )));
                }
                None => (0..len).collect(),
            };
            Ok(keys
                .par_iter()
                .map(|&key| (key < len).then(|| rows.position(key)).flatten())
                .collect::<Vec<Option<String>>>())
        })?;
        PyList::new(py, texts)
    }

    /// Strongly solves the whole game: the census `ply analyze --json`
    /// prints, as a dict. With `save`, also writes the database into the
    /// store (as `ply analyze --save`).
    #[pyo3(signature = (save=false))]
    fn analyze<'py>(&self, py: Python<'py>, save: bool) -> PyResult<Bound<'py, PyAny>> {
        let (session, store) = match &self.backend {
            Backend::Python(game) => {
                if save {
                    return Err(errors::argument(format!(
                        "{} is written in Python: it has no database to save",
                        game.name()
                    )));
                }
                return json_loads(py, &game.analyze_json(py)?);
            }
            Backend::Native(_, store) => (self.native("analyze()")?, store),
        };
        let json = interrupt::run(py, |progress| {
            let report = ply::cli::analyze(session, save.then_some(store), None, progress)?;
            serde_json::to_string(&report).map_err(|e| ply::PlyError::Io(std::io::Error::other(e)))
        })?;
        json_loads(py, &json)
    }

    /// Writes the strong solution to `path` as `format` (`"parquet"` or
    /// `"csv"`), as `ply export` does (without the `best_moves` column if
    /// `best_moves` is false, as `--no-moves`; with a `board` column for a
    /// game whose board is written as numbers); returns the number of rows.
    #[pyo3(signature = (path, format="parquet", best_moves=true))]
    fn export(
        &self,
        py: Python<'_>,
        path: PathBuf,
        format: &str,
        best_moves: bool,
    ) -> PyResult<u64> {
        let session = self.native("export()")?;
        let format = Format::parse(format).map_err(errors::to_py)?;
        let done = interrupt::run(py, |progress| {
            export::export(
                session,
                format,
                export::Columns { best_moves },
                &path,
                progress,
            )
        })?;
        Ok(done.rows)
    }

    fn __repr__(&self) -> String {
        format!("ply.Solver({:?})", self.name())
    }
}

/// `json.loads(text)`.
fn json_loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (text,))
}
