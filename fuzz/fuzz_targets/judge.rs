//! Fuzz target: see `ply::fuzzing::judge_input`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ply::fuzzing::judge_input(data));
