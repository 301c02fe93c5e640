//! Fuzz target: see `ply::fuzzing::database`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ply::fuzzing::database(data));
