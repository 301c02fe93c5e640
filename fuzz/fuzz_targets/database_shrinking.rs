//! Fuzz target: see `ply::fuzzing::shrinking_reads`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ply::fuzzing::database_shrinking(data));
