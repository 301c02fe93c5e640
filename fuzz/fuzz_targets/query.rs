//! Fuzz target: see `ply::fuzzing::query`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ply::fuzzing::query(data));
