//! Fuzz target: see `ply::fuzzing::position`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ply::fuzzing::position(data));
