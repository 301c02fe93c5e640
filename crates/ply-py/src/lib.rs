//! ply from Python: the `ply._ply` extension module behind the `ply`
//! package. It opens the same games through the same registry and sessions
//! as the `ply` command ([`ply::registry`], [`ply::session`]), answers bulk
//! queries as numpy arrays, writes exports with [`ply::cli::export`], and
//! solves games written as Python classes with the engine's solvers.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod errors;
mod interrupt;
mod native;
mod python_game;

use pyo3::prelude::*;
use pyo3::types::PyList;

/// The games `ply games` lists: `(name, summary, variants)` for each.
#[pyfunction]
fn games() -> Vec<(&'static str, &'static str, &'static str)> {
    ply::registry::entries()
        .map(|e| (e.name, e.summary, e.variants))
        .collect()
}

/// The value of `position` (the start if `None`) of the built-in game
/// `game` and of every move from it: the dict `ply solve --json` prints.
/// `game` may also be a game written in Python (see `Solver`).
#[pyfunction]
#[pyo3(signature = (game, position=None, db_dir=None))]
fn solve<'py>(
    py: Python<'py>,
    game: &Bound<'py, PyAny>,
    position: Option<&Bound<'py, PyAny>>,
    db_dir: Option<std::path::PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    let solver = native::Solver::open(py, game, db_dir)?;
    solver.solve(py, position)
}

/// The module: functions, the `Solver` class, exceptions and value codes.
#[pymodule]
fn _ply(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(games, m)?)?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_class::<native::Solver>()?;
    m.add("PlyError", py.get_type::<errors::PlyError>())?;
    m.add("ArgumentError", py.get_type::<errors::ArgumentError>())?;
    m.add("DatabaseError", py.get_type::<errors::DatabaseError>())?;
    m.add("Cancelled", py.get_type::<errors::Cancelled>())?;
    for (name, code) in native::VALUE_CODES {
        m.add(name, code)?;
    }
    m.add(
        "VALUES",
        PyList::new(
            py,
            native::VALUE_CODES.iter().map(|(n, _)| n.to_lowercase()),
        )?,
    )?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
