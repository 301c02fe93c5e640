//! Fuzz target: see `ply::fuzzing::game_name`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ply::fuzzing::game_name(data));
