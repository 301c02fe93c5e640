//! Fuzz target: see `ply::fuzzing::octal_code`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ply::fuzzing::octal_code(data));
