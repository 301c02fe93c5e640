//! ply's errors as Python exceptions, with the messages the `ply` command
//! prints.

use pyo3::PyErr;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyOSError};

create_exception!(
    ply,
    PlyError,
    PyException,
    "The base of every error ply raises; the message is the line the `ply` command prints."
);
create_exception!(
    ply,
    ArgumentError,
    PlyError,
    "A bad argument: an unknown game, bad parameters, a malformed or impossible position."
);
create_exception!(
    ply,
    DatabaseError,
    PlyError,
    "A solved database is unreadable, corrupt or made for something else."
);
create_exception!(
    ply,
    Cancelled,
    PlyError,
    "The work was stopped before it finished."
);

/// The Python exception for `error`.
pub fn to_py(error: ply::PlyError) -> PyErr {
    let message = error.to_string();
    match error {
        ply::PlyError::Argument(_) | ply::PlyError::Input { .. } => ArgumentError::new_err(message),
        ply::PlyError::Database(_) => DatabaseError::new_err(message),
        ply::PlyError::Cancelled(_) => Cancelled::new_err(message),
        // Beyond this machine's limits now: Python's own word for it.
        ply::PlyError::Unavailable(_) => pyo3::exceptions::PyMemoryError::new_err(message),
        ply::PlyError::Io(_) => PyOSError::new_err(message),
    }
}

/// An [`ArgumentError`] saying `message`.
pub fn argument(message: impl Into<String>) -> PyErr {
    ArgumentError::new_err(message.into())
}
