//! The `ply` command: everything is in the library (see [`ply::run`]).

#![forbid(unsafe_code)]

use std::process::ExitCode;

fn main() -> ExitCode {
    ply::run(Vec::new())
}
