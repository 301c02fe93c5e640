//! The integration tests of `ply-core`, one module per former test file,
//! in one test binary (one link instead of one per file). Run one file's
//! tests with `cargo test --release -p ply-core --test suite MODULE::`.

mod no_import_circles;
mod octal;
mod two_piles;
